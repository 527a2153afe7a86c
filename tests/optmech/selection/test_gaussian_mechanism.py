"""Report-noisy-max with Gaussian noise as a mechanism: its parameters, its zCDP guarantee
(the proof's maximisation by enumeration, the bound against explicit pairs and the worst pair
found), its privacy curves against 50-digit references, and its sampler (chi-square)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from optmech.privacy import high_precision as hp
from optmech.privacy.bounds import GAUSSIAN, gaussian_delta, proven_bound
from optmech.privacy.curves import pair_curves
from optmech.privacy.worst import worst_pair
from optmech.selection.gaussian_reference import gaussian_log_pmf_mp
from optmech.selection.mechanisms import (
    GaussianGuarantee,
    GaussianNoisyMax,
    gaussian_spread,
    make_mechanism,
)
from optmech.validation import InvalidArgumentError


def test_parameters_repr_and_equality():
    mechanism = GaussianNoisyMax(2.0, 0.5, monotonic=True)
    assert repr(mechanism) == "GaussianNoisyMax(sigma=2.0, sensitivity=0.5, monotonic=True)"
    assert mechanism == GaussianNoisyMax(2.0, 0.5, True)
    assert hash(mechanism) == hash(GaussianNoisyMax(2.0, 0.5, True))
    assert mechanism != GaussianNoisyMax(2.0, 0.5)
    assert mechanism.name == "rnm_gaussian" and mechanism.noise == "gaussian"
    assert mechanism.epsilon is None and mechanism.scale == 2.0 and mechanism.exponent == 0.5
    assert make_mechanism("rnm-gaussian", None, 0.5, True, sigma=2.0) == mechanism


@pytest.mark.parametrize("sigma", [0.0, -1.0, math.inf, math.nan, "x"])
def test_bad_noise_scale_is_refused_naming_sigma(sigma):
    with pytest.raises(InvalidArgumentError, match="sigma"):
        GaussianNoisyMax(sigma)


def test_make_mechanism_needs_sigma_and_no_epsilon():
    with pytest.raises(InvalidArgumentError, match="sigma"):
        make_mechanism("rnm_gaussian", None)
    with pytest.raises(InvalidArgumentError, match="epsilon"):
        make_mechanism("rnm_gaussian", 1.0, sigma=1.0)
    with pytest.raises(InvalidArgumentError, match="sigma"):
        make_mechanism("pf", 1.0, sigma=1.0)


def test_guarantee_states_zcdp_and_no_pure_dp():
    guarantee = GaussianNoisyMax(2.0, 3.0).privacy
    assert isinstance(guarantee, GaussianGuarantee)
    for attribute in ("epsilon", "delta", "dominance"):
        assert not hasattr(guarantee, attribute)
    assert guarantee.rho(2) == pytest.approx(9.0 * 2 / 8)
    assert guarantee.rho(3) == pytest.approx(9.0 * (3 - 1 / 3) / 8)
    assert guarantee.rho(4) == pytest.approx(9.0 * 4 / 8)
    assert guarantee.mu(5) ** 2 / 2 == pytest.approx(guarantee.rho(5))
    monotonic = GaussianNoisyMax(2.0, 3.0, True).privacy
    assert monotonic.rho(5) == pytest.approx(9.0 * (2 * 3 / 5) / 8)
    assert "zCDP" in str(guarantee)


def test_accountant_takes_it_only_bound_to_its_number_of_candidates():
    """No pure-DP reading: unbound, the accountant refuses it naming n; bound to n, its
    dominating pair is the mu(n)-GDP pair."""
    from optmech.privacy.accountant import OnCandidates, dominance_of

    with pytest.raises(InvalidArgumentError, match="number of candidates"):
        dominance_of(GaussianNoisyMax(1.0))
    bound = dominance_of(OnCandidates(GaussianNoisyMax(2.0, 3.0), 5))
    assert (bound.kind, bound.rounds) == ("gaussian", 1)
    assert bound.epsilon == pytest.approx(3.0 * np.sqrt(5 - 1 / 5) / 2.0, rel=1e-15)


@pytest.mark.parametrize("n", range(2, 9))
@pytest.mark.parametrize("monotonic", [False, True])
def test_spread_is_the_largest_centred_move_over_every_corner(n, monotonic):
    # ||P d||^2 is convex in d: its maximum over the box is at a corner; enumerate them
    corners = itertools.product((0.0, 1.0) if monotonic else (-1.0, 1.0), repeat=n)
    best = max(float(np.sum((np.array(d) - np.mean(d)) ** 2)) for d in corners)
    assert gaussian_spread(n, monotonic) == pytest.approx(best, rel=1e-15)


def test_for_rho_calibrates_sigma():
    mechanism = GaussianNoisyMax.for_rho(0.3, 7, sensitivity=2.0)
    assert mechanism.privacy.rho(7) == pytest.approx(0.3, rel=1e-14)
    assert mechanism.sigma == pytest.approx(2.0 * math.sqrt((7 - 1 / 7) / 0.6))
    for rho in (0.0, -1.0, math.inf):
        with pytest.raises(InvalidArgumentError, match="rho"):
            GaussianNoisyMax.for_rho(rho, 3)
    with pytest.raises(InvalidArgumentError, match="n"):
        GaussianNoisyMax.for_rho(1.0, 1)


def test_proven_bound_needs_the_number_of_candidates():
    mechanism = GaussianNoisyMax(1.5)
    assert proven_bound(mechanism) is None
    bound = proven_bound(mechanism, 4)
    assert bound.kind == GAUSSIAN and bound.max_loss == math.inf
    assert bound.zcdp_rho == pytest.approx(mechanism.privacy.rho(4))
    assert bound.renyi([1.0, 3.0, math.inf]).tolist() == pytest.approx(
        [bound.mu ** 2 / 2, 3 * bound.mu ** 2 / 2, math.inf])


def test_gaussian_delta_against_fifty_digits():
    import mpmath as mp

    for mu in (0.1, 1.3, 7.0):
        for eps_prime in (0.0, 0.5, 3.0, 20.0):
            with mp.workdps(50):
                exact = (mp.ncdf(mu / 2 - mp.mpf(eps_prime) / mu)
                         - mp.exp(eps_prime) * mp.ncdf(-mu / 2 - mp.mpf(eps_prime) / mu))
            value = gaussian_delta(mu, [eps_prime])[0]
            # e^(-c^2/2) carries the rounding of c^2 (c = eps'/mu - mu/2), and the difference
            # of the two terms cancels: a few roundings of the first, Phibar(c)
            c = eps_prime / mu - mu / 2
            first = float(mp.ncdf(-mp.mpf(c)))
            tolerance = (2e-15 + 2.2e-16 * c * c) * float(exact) + 8e-16 * first
            assert abs(value - float(exact)) <= tolerance, (mu, eps_prime)


def test_the_bound_holds_on_explicit_pairs():
    rng = np.random.default_rng(11)
    checked = 0
    for _ in range(40):
        n = int(rng.integers(2, 6))
        monotonic = bool(rng.integers(2))
        sigma = float(rng.choice([0.5, 1.0, 3.0]))
        mechanism = GaussianNoisyMax(sigma, 1.0, monotonic)
        q = np.concatenate([[0.0], rng.uniform(-15.0 * sigma, 0.0, n - 1)])
        move = rng.uniform(0.0, 1.0, n) if monotonic else rng.uniform(-1.0, 1.0, n)
        curves = pair_curves(mechanism, q, q + move)
        bound = proven_bound(mechanism, n)
        finite = np.isfinite(curves.orders)
        assert (curves.divergence[finite] <= bound.renyi(curves.orders[finite]) * (1 + 1e-9)
                + 1e-12).all()
        assert (curves.delta <= bound.delta(curves.eps_prime) + 1e-12).all()
        assert curves.zcdp_rho <= bound.zcdp_rho * (1 + 1e-9)
        checked += 1
    assert checked == 40


@pytest.mark.parametrize("n", [2, 3])
def test_worst_pair_found_approaches_the_bound(n):
    # the bound is the supremum at n = 2 and 3 (the far candidate's event aligns with the
    # move): the worst found, with scores within 40 noise scales, is within 3 % of it
    # (0.98851 of 1 at n = 2, 1.31871 of 4/3 at n = 3, seed 0)
    mechanism = GaussianNoisyMax(1.0)
    found = worst_pair(mechanism, n, span=40.0)
    assert found.bound.kind == GAUSSIAN
    assert 0.97 * found.bound_value <= found.value <= found.bound_value * (1 + 1e-9)
    assert found.curves.zcdp_rho_bound <= found.bound_value * (1 + 1e-9)


def test_curves_match_fifty_digit_references():
    scores, neighbour, sigma = [0.0, -3.0, 0.0], [1.0, -4.0, 1.0], 1.0
    curves = pair_curves(GaussianNoisyMax(sigma), scores, neighbour,
                         eps_prime=[0.0, 0.5, 2.0], orders=[1.0, 2.0, 10.0])
    log_p = gaussian_log_pmf_mp([str(s) for s in scores], str(sigma))
    log_q = gaussian_log_pmf_mp([str(s) for s in neighbour], str(sigma))
    for order, value, error in zip(curves.orders, curves.divergence, curves.divergence_error):
        exact = float(max(hp.renyi_mp(log_p, log_q, order), hp.renyi_mp(log_q, log_p, order)))
        assert abs(value - exact) <= max(error, 1e-13 * exact), order
    for eps_prime, value in zip(curves.eps_prime, curves.delta):
        exact = float(max(hp.hockey_stick_mp(log_p, log_q, eps_prime),
                          hp.hockey_stick_mp(log_q, log_p, eps_prime)))
        assert abs(value - exact) <= 1e-13 * exact + 1e-15
    assert curves.max_loss == pytest.approx(float(max(hp.max_loss_mp(log_p, log_q),
                                                      hp.max_loss_mp(log_q, log_p))), rel=1e-12)


def test_samples_follow_the_pmf():
    mechanism = GaussianNoisyMax(1.3)
    scores = np.array([0.0, -0.4, -1.0, -2.5, -4.0, -0.4])
    draws = 200_000
    counts = np.bincount(mechanism.sample(scores, size=draws, rng=2024), minlength=scores.size)
    expected = mechanism.pmf(scores) * draws
    # chi-square at the 1e-4 level: fails by chance once in 10^4 seeds
    assert stats.chisquare(counts, expected).pvalue > 1e-4
    assert isinstance(mechanism.sample(scores, rng=1), int)
    assert mechanism.rvs(scores, size=(2, 3), random_state=1).shape == (2, 3)
    with pytest.raises(InvalidArgumentError, match="exact"):
        mechanism.sample(scores, exact=True)
