"""The proven bounds against brute force: the bounded-range delta curve is the maximum over
binary pairs (a grid of their loss t), attained by the exponential mechanism on two
candidates; the randomised-response curves are those of the binary pair; the Rényi bound of
bounded range holds on binary pairs and is exact at order 1; every mechanism's worst pair
found stays below its bound."""

import math

import numpy as np
import pytest

from optmech.privacy.bounds import (
    BOUNDED_RANGE,
    LAPLACE,
    PURE_DP,
    bounded_range_delta,
    bounded_range_kl,
    bounded_range_renyi,
    proven_bound,
    randomised_response_delta,
    randomised_response_renyi,
)
from optmech.privacy.curves import pair_curves
from optmech.privacy.divergences import hockey_stick, renyi
from optmech.selection.mechanisms import PmfMechanism, make_mechanism

EPS = 1.2
GRID = np.array([0.0, 0.3, 0.6, 1.1, 1.2, 2.0])


def _binary(t, eps):
    """The bounded-range pair with losses t (first output) and t - eps."""
    q = (1 - math.exp(t - eps)) / (math.exp(t) - math.exp(t - eps))
    p = math.exp(t) * q
    return np.log([p, 1 - p]), np.log([q, 1 - q])


def _binary_batch(ts, eps):
    """Every binary pair of :func:`_binary` for the losses ``ts``, both directions, as one
    batch ``(log P, log Q)`` of shape ``(2 len(ts), 2)``."""
    pairs = [_binary(t, eps) for t in ts]
    forward = np.array([p for p, _ in pairs])
    backward = np.array([q for _, q in pairs])
    return np.concatenate([forward, backward]), np.concatenate([backward, forward])


def test_bounded_range_delta_is_the_max_over_binary_pairs():
    ts = np.linspace(1e-6, EPS - 1e-6, 4001)
    brute = hockey_stick(*_binary_batch(ts, EPS), GRID).max(axis=0)
    bound = bounded_range_delta(EPS, GRID)
    assert (brute <= bound * (1 + 1e-12) + 1e-300).all()
    np.testing.assert_allclose(brute, bound, rtol=1e-5, atol=1e-300)   # t-grid resolution


def test_exponential_mechanism_attains_the_bounded_range_curve_on_two_candidates():
    """EM on (0, -g) vs (-1, 1 - g) has losses t, t - eps with e^t = (1 + e^eps x)/(1 + x),
    x = e^{-eps g / 2}; at t = (eps + eps')/2 its delta(eps') is the bound."""
    for e in (0.0, 0.5, 1.0):
        t = (EPS + e) / 2
        x = (math.exp(t) - 1) / (math.exp(EPS) - math.exp(t))
        g = -2 * math.log(x) / EPS
        curves = pair_curves(make_mechanism("em", EPS), (0.0, -g), (-1.0, 1.0 - g),
                             eps_prime=[e])
        assert curves.delta[0] == pytest.approx(bounded_range_delta(EPS, [e])[0], rel=1e-12)


def test_randomised_response_curves_are_the_binary_pairs():
    rr = np.log(np.array([math.exp(EPS), 1.0]) / (1 + math.exp(EPS)))
    np.testing.assert_allclose(randomised_response_delta(EPS, GRID),
                               hockey_stick(rr, rr[::-1], GRID), rtol=1e-13, atol=1e-300)
    orders = [1.0, 1.5, 2.0, 10.0, math.inf]
    np.testing.assert_allclose(randomised_response_renyi(EPS, orders),
                               renyi(rr, rr[::-1], orders), rtol=1e-13)


def test_bounded_range_renyi_bound_holds_on_binary_pairs_and_is_exact_at_order_one():
    orders = [1.0, 1.5, 2.0, 4.0, 16.0]
    bound = bounded_range_renyi(EPS, orders)
    ts = np.linspace(1e-6, EPS - 1e-6, 2001)
    brute = renyi(*_binary_batch(ts, EPS), orders).max(axis=0)
    assert (brute <= bound * (1 + 1e-12)).all()
    assert brute[0] == pytest.approx(bounded_range_kl(EPS), rel=1e-7)


def test_which_guarantee_each_mechanism_gets():
    assert proven_bound(make_mechanism("em", 1.0)).kind == BOUNDED_RANGE
    assert proven_bound(make_mechanism("rnm_gumbel", 1.0)).kind == BOUNDED_RANGE
    for name in ("pf", "rnm_laplace", "rnm_exponential"):
        assert proven_bound(make_mechanism(name, 1.0)).kind == LAPLACE
    assert proven_bound(make_mechanism("rr", 1.0)).kind == PURE_DP
    assert proven_bound(make_mechanism("uniform", 1.0)).epsilon == 0.0
    assert proven_bound(PmfMechanism(lambda q: np.full(q.size, 1 / q.size), 1.0)) is None
    assert proven_bound(object()) is None


def test_rho_bounds():
    assert proven_bound(make_mechanism("em", 2.0)).zcdp_rho == 0.5
    pure = proven_bound(make_mechanism("rr", 1.0)).zcdp_rho
    # at least the KL of randomised response (its value as alpha -> 1), at most eps^2/2
    assert 1.0 * math.tanh(0.5) <= pure <= 0.5
    laplace = proven_bound(make_mechanism("pf", 1.0)).zcdp_rho
    # at least the Laplace pair's KL, eps + e^-eps - 1 (the sup of D_alpha / alpha is its
    # limit at alpha -> 1 here); the certified sup over the default orders is within 0.5 %
    kl = 1.0 + math.expm1(-1.0)
    assert kl <= laplace <= kl * 1.005
