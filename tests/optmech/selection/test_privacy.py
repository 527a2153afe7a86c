"""Numerical privacy checks of the mechanisms' guarantees."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optmech import ExponentialMechanism, PermuteAndFlip, RandomizedResponse, ReportNoisyMax
from optmech.selection.noisy_max import noisy_max_pmf
from optmech.selection.privacy import (
    hockey_stick_delta,
    lattice_neighbours,
    max_divergence,
    privacy_loss,
    realised_epsilon,
    worst_case_neighbours,
)

scores_strategy = st.lists(st.floats(-20, 20), min_size=2, max_size=5)


@settings(max_examples=40, deadline=None)
@given(scores_strategy, st.floats(0.05, 5), st.floats(0.1, 3), st.booleans())
def test_pf_and_em_never_exceed_epsilon(scores, eps, sensitivity, monotonic):
    for cls in (PermuteAndFlip, ExponentialMechanism):
        mech = cls(eps, sensitivity, monotonic=monotonic)
        check = realised_epsilon(mech, scores)
        assert check.satisfies(eps), (cls.__name__, check)


def test_subnormal_probabilities_do_not_inflate_the_realised_loss():
    """PF at a gap of about 730 nats: the pmf of the far candidate is a subnormal double
    (1.6e-318, a few significant bits); the loss is read from logpmf, where it is exact to
    rounding.  The loss between the two vectors is eps * shift / sensitivity (4.5 exactly
    here), computed as log(pmf) it came out 4.5 + 4.1e-8."""
    mech = PermuteAndFlip(4.5, 0.1015625, monotonic=True)
    check = realised_epsilon(mech, [4.5, -12.0], neighbours=[[4.5, -11.8984375]])
    assert mech.pmf([4.5, -12.0])[1] < 2.2e-308
    assert check.epsilon == pytest.approx(4.5, rel=1e-12)


@settings(max_examples=15, deadline=None)
@given(st.lists(st.floats(-5, 5), min_size=2, max_size=4), st.floats(0.2, 3))
def test_rnm_laplace_and_randomized_response_never_exceed_epsilon(scores, eps):
    for mech in (ReportNoisyMax(eps), RandomizedResponse(eps)):
        assert realised_epsilon(mech, scores, levels=3).satisfies(eps)


def test_pf_loss_is_attained_at_the_worst_case_neighbour():
    """Far below the maximum PF's probability scales by exactly e^ε when the score moves
    by 2Δ relative to the rest (the tight case of Proposition 2)."""
    mech = PermuteAndFlip(0.8, sensitivity=1.0)
    scores = np.array([0.0, -6.0, -9.0])
    check = realised_epsilon(mech, scores, neighbours=worst_case_neighbours(scores, 1.0))
    assert check.epsilon == pytest.approx(0.8, rel=1e-6)


def test_an_overclaimed_guarantee_is_caught():
    """EM run at twice the exponent is 2ε-private, not ε: the checker sees it."""
    eps = 0.5
    too_loose = ExponentialMechanism(2 * eps)
    scores = np.array([0.0, -3.0, -3.0, -10.0])
    check = realised_epsilon(too_loose, scores, sensitivity=1.0)
    assert not check.satisfies(eps)
    assert check.epsilon > 1.5 * eps


def test_rnmh_with_exponential_noise_is_not_private():
    """Heterogeneous-sensitivities paper, Section IV-A: candidate 1 has sensitivity 0 and
    score 0 on both datasets, candidate 2 sensitivity 1 and score 1/2 vs -1/2.  With noise
    Exp(2Δ_a/ε), Pr[output 1] is 0 on D and 1 - e^{-ε/4} on D': no finite ε."""
    eps = 1.0
    sensitivities = np.array([0.0, 1.0])

    def rnmh(q):
        return noisy_max_pmf(q, 2 * sensitivities / eps, "exponential")

    d, d_prime = np.array([0.0, 0.5]), np.array([0.0, -0.5])
    assert rnmh(d)[0] == 0.0
    assert rnmh(d_prime)[0] == pytest.approx(1 - math.exp(-eps / 4), abs=1e-15)
    check = realised_epsilon(rnmh, d, sensitivity=sensitivities, neighbours=[d_prime])
    assert check.epsilon == math.inf and check.output == 0
    # The default neighbour sets find it too.
    assert realised_epsilon(rnmh, d, sensitivity=sensitivities).epsilon == math.inf


def test_divergences_by_hand():
    p, q = np.array([0.5, 0.5, 0.0]), np.array([0.25, 0.5, 0.25])
    assert max_divergence(p, q) == pytest.approx(math.log(2))
    assert max_divergence(q, p) == math.inf
    assert privacy_loss(p, q) == math.inf
    assert hockey_stick_delta(p, q, 0.0) == pytest.approx(0.25)
    assert hockey_stick_delta(p, q, math.log(2)) == pytest.approx(0.0)
    assert hockey_stick_delta(q, p, math.log(1.5)) == pytest.approx(0.25)


def test_neighbour_sets():
    q = np.array([1.0, 2.0, 3.0])
    worst = worst_case_neighbours(q, 0.5)
    np.testing.assert_allclose(worst[0], [1.5, 1.5, 2.5])
    np.testing.assert_allclose(worst[3], [0.5, 2.5, 3.5])
    grid = lattice_neighbours(q, [1.0, 0.0, 2.0], levels=3)
    assert grid.shape == (27, 3)
    assert set(grid[:, 1]) == {2.0}
    assert np.abs(grid - q).max() == 2.0
    mono = lattice_neighbours(q, 1.0, levels=3, monotonic=True)
    steps = mono - q
    assert ((steps >= 0).all(axis=1) | (steps <= 0).all(axis=1)).all()
    sampled = lattice_neighbours(np.zeros(20), 1.0, levels=5, limit=100,
                                 rng=np.random.default_rng(0))
    assert sampled.shape == (100, 20)
