"""Selection mechanisms: exact pmfs, sampling against pmfs, error formulas, bad input."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optmech import (
    ExponentialMechanism,
    InvalidArgumentError,
    PermuteAndFlip,
    RandomizedResponse,
    ReportNoisyMax,
    UniformSelection,
    make_mechanism,
)
from optmech.selection.mechanisms import MECHANISMS
from optmech.selection.worst_case import em_error_on_step, pf_error_on_step, worst_case_error
from tests.stats_helpers import chi_square_pvalue

SCORE_VECTORS = [
    np.array([0.0, -1.0, -3.0]),
    np.array([5.0, 5.0, 4.0, 0.0, -2.0, 4.5]),
    np.array([0.0, -40.0, -0.5, -80.0]),          # wide gaps: tiny probabilities
    np.linspace(0, -3, 12),
]


@pytest.mark.parametrize("name", MECHANISMS)
@pytest.mark.parametrize("case", range(len(SCORE_VECTORS)))
def test_samples_follow_the_pmf(name, case):
    """Chi-square with a fixed seed: p-value above 1e-4 (a wrong pmf or sampler with the
    same seed gives p-values far below that at 20000 draws)."""
    mech = make_mechanism(name, epsilon=1.3)
    scores = SCORE_VECTORS[case]
    draws = mech.sample(scores, size=20_000, rng=np.random.default_rng(1000 + case))
    assert chi_square_pvalue(draws, mech.pmf(scores)) > 1e-4


def test_chi_square_detects_the_wrong_mechanism():
    """The same test tells PF from EM on the vector where they differ most."""
    scores = np.array([0.0, -1.5, -1.5, -1.5])
    draws = PermuteAndFlip(1.0).sample(scores, size=20_000, rng=np.random.default_rng(5))
    assert chi_square_pvalue(draws, ExponentialMechanism(1.0).pmf(scores)) < 1e-6


def test_rnm_exponential_and_gumbel_sample_like_pf_and_em():
    """RNM samples by adding noise; its draws follow PF's and EM's closed forms."""
    scores = np.array([1.0, 0.0, -0.5, -2.0, 0.7])
    rng = np.random.default_rng(11)
    for noise, closed in (("exponential", PermuteAndFlip), ("gumbel", ExponentialMechanism)):
        draws = ReportNoisyMax(0.9, noise=noise).sample(scores, size=30_000, rng=rng)
        assert chi_square_pvalue(draws, closed(0.9).pmf(scores)) > 1e-4


def test_exponential_mechanism_closed_form():
    scores = np.array([0.0, -1.0, -3.0])
    weights = np.exp(1.3 / 2 * scores)
    np.testing.assert_allclose(ExponentialMechanism(1.3).pmf(scores), weights / weights.sum(),
                               rtol=1e-15)
    # monotonic: exponent epsilon / sensitivity
    weights = np.exp(1.3 / 2 * scores)
    np.testing.assert_allclose(ExponentialMechanism(1.3, 2.0, monotonic=True).pmf(scores),
                               weights / weights.sum(), rtol=1e-15)


def test_two_candidates_pf_closed_form():
    """n = 2: Pr[PF = loser] = p / 2 with p = e^{ε(q - q*)/(2Δ)} (by hand from Algorithm 1)."""
    probs = PermuteAndFlip(2.0, sensitivity=0.5).pmf([0.0, -0.3])
    p = math.exp(2.0 / (2 * 0.5) * -0.3)
    np.testing.assert_allclose(probs, [1 - p / 2, p / 2], atol=1e-16)


def test_randomized_response_by_hand():
    e = math.exp(0.7)
    rr = RandomizedResponse(0.7)
    np.testing.assert_allclose(rr.pmf([3.0, 1.0, 2.0, 0.0]), [e / (e + 3), 1 / (e + 3),
                                                               1 / (e + 3), 1 / (e + 3)])
    # two tied maxima: the true answer is one of them uniformly
    tied = rr.pmf([3.0, 3.0, 0.0])
    np.testing.assert_allclose(tied, [(e + 1) / (2 * (e + 2))] * 2 + [1 / (e + 2)])
    # no overflow for a huge epsilon
    np.testing.assert_allclose(RandomizedResponse(1e4).pmf([1.0, 0.0]), [1.0, 0.0])


def test_uniform_selection():
    np.testing.assert_allclose(UniformSelection().pmf(np.arange(4.0)), 0.25)
    assert UniformSelection().privacy.epsilon == 0


@pytest.mark.parametrize("n", [2, 3, 10, 1000])
@pytest.mark.parametrize("c", [-0.1, -2.0, -15.0])
def test_equations_7_and_8_match_expected_error(n, c):
    """The paper's Proposition 4 formulas on (c, ..., c, 0) against the exact pmfs."""
    eps, delta = 1.3, 0.7
    scores = np.append(np.full(n - 1, c), 0.0)
    p = math.exp(eps * c / (2 * delta))
    assert em_error_on_step(n, p, eps, delta) == pytest.approx(
        ExponentialMechanism(eps, delta).expected_error(scores), rel=1e-12)
    assert pf_error_on_step(n, p, eps, delta) == pytest.approx(
        PermuteAndFlip(eps, delta).expected_error(scores), rel=1e-11)


def test_worst_case_is_the_maximum_over_step_vectors():
    """Worst case from the formula against a dense grid of c using the exact pmfs."""
    for mech, name in ((PermuteAndFlip(1.0), "pf"), (ExponentialMechanism(1.0), "em")):
        best = worst_case_error(name, 5, 1.0)
        grid = np.linspace(-12, -0.01, 2000)
        errors = [mech.expected_error(np.append(np.full(4, c), 0.0)) for c in grid]
        assert best.error >= max(errors) - 1e-12
        assert best.error <= max(errors) + 1e-4
    # Paper (Section 4.1): at n = 2 the worst-case ratio EM/PF is the largest, below 2.
    ratio = worst_case_error("em", 2, 1.0).error / worst_case_error("pf", 2, 1.0).error
    assert 1.2 < ratio < 2


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-30, 30), min_size=1, max_size=25),
       st.floats(0.01, 10))
def test_pf_never_worse_than_em(scores, eps):
    """McKenna & Sheldon's Theorem 2: E[err PF] <= E[err EM] on every score vector."""
    pf = PermuteAndFlip(eps).expected_error(scores)
    em = ExponentialMechanism(eps).expected_error(scores)
    assert pf <= em + 1e-12 * max(1.0, em)


@pytest.mark.parametrize("noise", ["laplace", "exponential", "gumbel"])
def test_rnm_pmf_sums_to_one_and_is_monotone_in_scores(noise):
    scores = np.array([0.0, -0.5, -1.0, -4.0, -4.0])
    probs = ReportNoisyMax(1.0, noise=noise).pmf(scores)
    assert abs(probs.sum() - 1) < 1e-12
    assert np.all(np.diff(probs[:4]) < 0)


def test_sample_shapes_and_seeds():
    pf = PermuteAndFlip(1.0)
    scores = [0.0, -1.0, -2.0]
    assert isinstance(pf.sample(scores, rng=np.random.default_rng(0)), int)
    assert pf.sample(scores, size=(2, 3), rng=np.random.default_rng(0)).shape == (2, 3)
    a = pf.sample(scores, size=50, rng=np.random.default_rng(4))
    b = pf.sample(scores, size=50, rng=np.random.default_rng(4))
    assert np.array_equal(a, b)
    assert pf.sample(scores, size=0).shape == (0,)


def test_privacy_guarantees_are_stated():
    assert PermuteAndFlip(0.5).privacy.epsilon == 0.5
    assert "Theorem 1" in str(PermuteAndFlip(0.5).privacy)
    assert "monotonic" in str(ExponentialMechanism(0.5, monotonic=True).privacy)
    assert ReportNoisyMax(0.5, 2.0).scale == pytest.approx(8.0)
    assert ReportNoisyMax(0.5, 2.0, monotonic=True).scale == pytest.approx(4.0)


@pytest.mark.parametrize("call, argument", [
    (lambda: PermuteAndFlip(0), "epsilon"),
    (lambda: PermuteAndFlip(float("inf")), "epsilon"),
    (lambda: ExponentialMechanism(1, sensitivity=-1), "sensitivity"),
    (lambda: PermuteAndFlip(1).pmf([]), "scores"),
    (lambda: PermuteAndFlip(1).pmf([0, float("nan")]), "scores"),
    (lambda: PermuteAndFlip(1).pmf([[[0, 1]]]), "scores"),            # 3-D
    (lambda: PermuteAndFlip(1).pmf([[0, 1], [0]]), "scores"),         # ragged rows
    (lambda: PermuteAndFlip(1).pmf(np.zeros((0, 3))), "scores"),      # no rows
    (lambda: PermuteAndFlip(1).rvs([0, 1], random_state=np.random.RandomState(0)),
     "random_state"),
    (lambda: ReportNoisyMax(1, noise="cauchy"), "noise"),
    (lambda: make_mechanism("foo", 1.0), "mechanism"),
    (lambda: PermuteAndFlip(1).sample([0, 1], size=-1), "size"),
    (lambda: PermuteAndFlip(1).sample([0, 1], rng=-1), "rng"),
    (lambda: PermuteAndFlip(1).sample([0, 1], rng="42"), "rng"),
    (lambda: PermuteAndFlip(True), "epsilon"),
    (lambda: PermuteAndFlip("1.0"), "epsilon"),
    (lambda: ExponentialMechanism(1.0, sensitivity=5e-324), "sensitivity"),
    (lambda: PermuteAndFlip(1.0, monotonic="yes"), "monotonic"),
    (lambda: PermuteAndFlip(1).pmf([True, False]), "scores"),
    (lambda: PermuteAndFlip(1).pmf([True, 1.5]), "scores"),          # numpy would make floats
    (lambda: PermuteAndFlip(1).pmf((0.5, np.True_)), "scores"),
    (lambda: PermuteAndFlip(1).pmf(["1.0", "2"]), "scores"),
    (lambda: PermuteAndFlip(1).pmf([10**400, 0]), "scores"),
])
def test_bad_input_names_the_argument(call, argument):
    with pytest.raises(InvalidArgumentError) as info:
        call()
    assert info.value.argument == argument
    assert "must be" in str(info.value)


@pytest.mark.parametrize("value", [10**400, -(10**400)])
def test_integers_beyond_the_double_range_are_refused_as_arguments(value):
    """10**400 as epsilon or sensitivity: the library's argument error (it was an
    OverflowError from inside the check)."""
    from fractions import Fraction

    for build in (lambda v: PermuteAndFlip(v), lambda v: ReportNoisyMax(1.0, sensitivity=v),
                  lambda v: ExponentialMechanism(Fraction(v, 3))):
        with pytest.raises(InvalidArgumentError, match="finite number > 0"):
            build(value)


def test_labelled_mechanisms_read_every_collection_the_same_way():
    from optmech.selection.mechanisms import labelled_mechanisms

    pf = PermuteAndFlip(1.0)

    def mine(scores):
        return pf.pmf(scores)

    assert labelled_mechanisms("rnm-laplace") == [("rnm_laplace", "rnm-laplace")]
    assert labelled_mechanisms(pf) == [("pf", pf)]
    assert labelled_mechanisms(["em", pf, mine]) == [("em", "em"), ("pf", pf), ("mine", mine)]
    assert labelled_mechanisms({"a": "pf", "b": mine}) == [("a", "pf"), ("b", mine)]
    assert labelled_mechanisms([]) == labelled_mechanisms({}) == []
    for bad in (["pf", pf], ["rnm-laplace", "rnm_laplace"]):
        with pytest.raises(InvalidArgumentError, match="mechanisms"):
            labelled_mechanisms(bad)

def test_report_noisy_max_logpmf_far_below_the_top_is_finite():
    """float16 scores [1, 65504] at epsilon 1 (scale 2): the lower candidate is 32,751.5
    scales down, log-probability ``-g + log(2 + g) - log 4`` (two-candidate closed form of
    the difference of two Laplace variables); it was -inf.  Rows of a batch alike."""
    gap = 65503 / 2
    exact = -gap + math.log(2 + gap) - math.log(4)
    mechanism = ReportNoisyMax(1)
    scores = np.array([1, 65504], dtype=np.float16)
    assert mechanism.logpmf(scores)[0] == pytest.approx(exact, rel=1e-14)
    batch = mechanism.logpmf(np.array([[1.0, 65504.0], [65504.0, 1.0]]))
    assert batch[0, 0] == pytest.approx(exact, rel=1e-14) and batch[1, 1] == batch[0, 0]
