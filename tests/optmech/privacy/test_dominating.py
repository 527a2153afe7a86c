"""What dominates each mechanism (optmech.privacy.dominating), checked three ways:

* the theorem's hypothesis, ``S'' <= S`` for the survival functions of exponential, Laplace
  and Gumbel noise, by SymPy;
* its conclusion, rebuilt numerically: for random permute-and-flip and report-noisy-max
  pairs the kernel ``kappa = P - P''`` along the path is non-negative, sums to 1 over the
  outputs, and smoothing it with the Laplace density gives back both output distributions;
* brute force: random pairs of every mechanism stay below their dominating curves (and the
  bounded-range curve is attained on two candidates);

and the spread of a pair onto the grid dominates the pair at every ``alpha >= 0`` (both
directions) while matching its curve at the nodes; the Gaussian pair's closed-form curve
against 40-digit integration, its grid version above it, and its composition against the
exact curve of sqrt(K) mu-GDP."""

import math

import numpy as np
import pytest
import sympy as sp

from optmech.privacy.accountants import laplace_delta
from optmech.privacy.adaptive import HockeyStickBound
from optmech.privacy.bounds import bounded_range_delta, randomised_response_delta
from optmech.privacy.divergences import hockey_stick
from optmech.privacy.dominating import (
    GAUSSIAN,
    LAPLACE,
    RANDOMISED_RESPONSE,
    Dominance,
    gaussian_delta,
    spread_on_grid,
)
from optmech.selection.mechanisms import make_mechanism

U = sp.symbols("u", real=True)


@pytest.mark.parametrize("noise", ["exponential", "laplace", "gumbel"])
def test_survival_function_second_derivative_is_at_most_itself(noise):
    """S'' - S <= 0 on each side of 0, and S' does not jump up at 0 (a kink of S may only
    add a negative point mass to S'')."""
    v = sp.symbols("v", positive=True)
    if noise == "gumbel":
        s = 1 - sp.exp(-sp.exp(-U))
        gap = sp.simplify((sp.diff(s, U, 2) - s).subs(sp.exp(-U), v))
        # e^v (S - S'') = e^v - 1 - v + v^2 >= 0: zero at v = 0, increasing for v > 0
        g = sp.simplify(-gap * sp.exp(v))
        assert sp.simplify(g - (sp.exp(v) - 1 - v + v ** 2)) == 0
        assert g.subs(v, 0) == 0 and sp.simplify(sp.diff(g, v) - (sp.exp(v) - 1 + 2 * v)) == 0
        return
    if noise == "exponential":
        above, below = sp.exp(-U), sp.Integer(1)
    else:
        above, below = sp.exp(-U) / 2, 1 - sp.exp(U) / 2
    assert sp.simplify(sp.diff(above, U, 2) - above) == 0          # u > 0: S'' = S
    assert sp.simplify(sp.diff(below, U, 2) - below) == -1         # u < 0: S'' - S = -1
    jump = (sp.diff(above, U) - sp.diff(below, U)).subs(U, 0)
    assert jump <= 0
    assert (above - below).subs(U, 0) == 0                          # S continuous


def _path_pmfs(mechanism, z, w, y):
    """P_y(r) on the path z + y w, every y of ``y`` (one batch)."""
    return mechanism.pmf(z[None, :] + y[:, None] * w[None, :])


@pytest.mark.parametrize("name, seed", [("pf", 0), ("pf", 1), ("pf", 2), ("rnm_laplace", 3)])
def test_laplace_kernel_rebuilds_the_pair(name, seed):
    """eps = 2, sensitivity 1: the noise has scale 1 in score units, so the path is in the
    theorem's units; eps' = 1.3 is the end of the path."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 5))
    mechanism = make_mechanism(name, 2.0)
    z = np.concatenate([[0.0], -rng.exponential(1.5, n - 1)])
    w = rng.random(n)
    end = 1.3
    dy, span = (2e-3, 22.0) if name == "pf" else (5e-3, 12.0)  # Laplace noise: row by row
    y = np.arange(-span, span + end + dy / 2, dy)
    p = _path_pmfs(mechanism, z, w, y)
    second = (p[2:] - 2 * p[1:-1] + p[:-2]) / dy ** 2
    kappa = p[1:-1] - second
    assert kappa.min() > -1e-4
    np.testing.assert_allclose(kappa.sum(axis=1), 1.0, atol=1e-4)
    x = y[1:-1]
    for at, index in [(0.0, np.searchsorted(y, 0.0)), (end, len(y) - 1 - np.searchsorted(
            y[::-1] * -1, -end))]:
        weights = np.exp(-np.abs(x - at)) / 2 * dy
        # beyond the grid kappa is its limit; the Laplace weight left there is e^-(span)/2
        rebuilt = (weights[:, None] * kappa).sum(axis=0) \
            + (kappa[0] * math.exp(-(at + span)) + kappa[-1] * math.exp(-(span + end - at))) / 2
        exact = mechanism.pmf(z + at * w)
        np.testing.assert_allclose(rebuilt, exact, atol=2e-4)
        del index


def _random_pairs(rng, count, n_max, monotonic=False):
    for _ in range(count):
        n = int(rng.integers(2, n_max + 1))
        q = np.concatenate([[0.0], -rng.exponential(rng.choice([0.3, 1.0, 3.0]), n - 1)])
        if rng.random() < 0.4:
            q = np.round(q)
        move = rng.choice([-1.0, 1.0], n) * (rng.random(n) if rng.random() < 0.3 else 1.0)
        if monotonic:
            move = np.abs(move)
        yield q, q + move


@pytest.mark.parametrize("name, curve", [("pf", laplace_delta), ("rnm_laplace", laplace_delta),
                                         ("rnm_exponential", laplace_delta),
                                         ("em", bounded_range_delta), ("em", laplace_delta),
                                         ("rr", randomised_response_delta)])
@pytest.mark.parametrize("monotonic", [False, True])
def test_random_pairs_stay_below_their_dominating_curve(name, curve, monotonic):
    rng = np.random.default_rng(7)
    grid = np.linspace(0.0, 1.0, 41)
    for eps in [0.3, 1.0, 4.0]:
        mechanism = make_mechanism(name, eps, 1.0, monotonic)
        bound = curve(eps, grid * eps)
        for q, other in _random_pairs(rng, 60, 6, monotonic):
            logs = mechanism.logpmf(np.stack([q, other]))
            for a, b in ((logs[0], logs[1]), (logs[1], logs[0])):
                delta = hockey_stick(np.minimum(a, 0), np.minimum(b, 0), grid * eps)
                assert (delta <= bound * (1 + 1e-10) + 1e-14).all(), (q, other)


def test_bounded_range_curve_is_attained_on_two_candidates():
    eps, e = 1.0, 0.4
    target = float(bounded_range_delta(eps, [e])[0])
    mechanism = make_mechanism("em", eps)
    best = 0.0
    for g in np.linspace(-6, 6, 2401):
        logs = mechanism.logpmf(np.array([[0.0, -g], [-1.0, -g + 1.0]]))
        best = max(best, float(hockey_stick(logs[1], logs[0], [e])[0]),
                   float(hockey_stick(logs[0], logs[1], [e])[0]))
    assert best == pytest.approx(target, rel=1e-5)
    assert best <= target * (1 + 1e-12)


def _curve(losses, masses, alpha):
    """sum_r (p_r - alpha q_r)_+ of atoms given by loss and P-mass."""
    q = masses * np.exp(-losses)
    return np.maximum(masses[None, :] - alpha[:, None] * q[None, :], 0.0).sum(axis=1)


@pytest.mark.parametrize("seed", range(4))
def test_spread_dominates_at_every_alpha_and_matches_at_nodes(seed):
    rng = np.random.default_rng(seed)
    losses = rng.uniform(-1.0, 1.0, 5)
    masses = rng.random(5)
    masses /= masses.sum()
    # make it a pair: Q-masses must sum to 1 too; rescale with one extra atom at loss 0
    q = masses * np.exp(-losses)
    losses = np.append(losses, 0.0)
    masses = np.append(masses, max(1.0 - q.sum(), 0.0))
    masses /= masses.sum()
    h = 0.13
    spread = spread_on_grid(h, losses, masses)
    nodes = (spread.start + np.arange(spread.masses.size)) * h
    alpha = np.concatenate([np.linspace(0.0, 3.5, 701), np.exp(nodes)])
    original = _curve(losses, masses, alpha)
    ours = _curve(nodes, spread.masses, alpha)
    assert (ours >= original - 1e-14).all()
    at_nodes = slice(701, None)
    np.testing.assert_allclose(ours[at_nodes], original[at_nodes], atol=1e-14)
    assert spread.masses.sum() == pytest.approx(masses.sum(), abs=1e-15)


@pytest.mark.parametrize("eps, h, aligned", [(1.0, 0.125, True), (0.3, 0.03, True),
                                             (2.0, 0.5, True), (0.3, 0.07, False)])
def test_spread_laplace_pair_dominates_its_curve(eps, h, aligned):
    step = Dominance(LAPLACE, eps).fixed_step(h)
    nodes = (step.start + np.arange(step.masses.size)) * h
    assert step.masses.sum() == pytest.approx(1.0, abs=1e-14)
    kl = eps + math.expm1(-eps)                       # the Laplace pair's KL
    assert kl <= step.mean <= kl * (1 + 2 * (h / eps) ** 2)
    e = np.linspace(0.0, eps, 57)
    ours = _curve(nodes, step.masses, np.exp(e))
    assert (ours >= laplace_delta(eps, e) - 1e-14).all()
    # second order where the atoms at +-eps sit on nodes, first order where they do not
    assert (ours <= laplace_delta(eps, e) + (h * h if aligned else 0.15 * h)).all()


def test_randomised_response_on_its_grid_is_exact():
    step = Dominance(RANDOMISED_RESPONSE, 0.8).fixed_step(0.1)
    nodes = (step.start + np.arange(step.masses.size)) * 0.1
    e = np.linspace(0.0, 0.8, 17)
    np.testing.assert_allclose(_curve(nodes, step.masses, np.exp(e)),
                               randomised_response_delta(0.8, e), rtol=1e-13, atol=1e-16)


def _mp_gaussian_delta(mu, eps_prime):
    """E_Q[(P/Q - e^eps')_+] of N(mu, 1) against N(0, 1), integrated at 40 digits."""
    import mpmath
    with mpmath.workdps(40):
        mu, alpha = mpmath.mpf(mu), mpmath.exp(mpmath.mpf(eps_prime))
        # P/Q = e^(mu x - mu^2/2) exceeds alpha beyond x0
        x0 = (mpmath.log(alpha) + mu * mu / 2) / mu
        p_tail = mpmath.quad(lambda x: mpmath.npdf(x, mu, 1), [x0, mpmath.inf])
        q_tail = mpmath.quad(lambda x: mpmath.npdf(x, 0, 1), [x0, mpmath.inf])
        return p_tail - alpha * q_tail


@pytest.mark.parametrize("mu", [0.05, 1.0, 4.0])
def test_gaussian_curve_against_integration(mu):
    for e in (0.0, 0.3, 2.0, 8.0):
        exact = float(_mp_gaussian_delta(mu, e))
        assert gaussian_delta(mu, e) == pytest.approx(exact, rel=1e-12, abs=1e-300)


@pytest.mark.parametrize("mu, h", [(0.1, 0.1 / 16), (1.0, 1.0 / 16), (3.0, 0.25)])
def test_spread_gaussian_pair_dominates_its_curve(mu, h):
    step = Dominance(GAUSSIAN, mu).fixed_step(h)
    nodes = (step.start + np.arange(step.masses.size)) * h
    assert step.masses.sum() + step.escape == pytest.approx(1.0, abs=1e-14)
    assert 0 < step.escape < 1e-39
    e = np.linspace(0.0, 4.0 * mu, 97)
    ours = _curve(nodes, step.masses, np.exp(e)) + step.escape
    exact = gaussian_delta(mu, e)
    assert (ours >= exact - 1e-15).all()
    assert (ours <= exact + h * h).all()


@pytest.mark.parametrize("mu, rounds", [(0.02, 200), (0.3, 30), (1.0, 5)])
def test_gaussian_composition_against_exact_gdp(mu, rounds):
    """K rounds of mu-GDP compose to exactly sqrt(K) mu-GDP (Dong, Roth and Su,
    Corollary 3.3): the certified grid bound lies above that curve and close to it."""
    h = mu / 16
    step = Dominance(GAUSSIAN, mu).fixed_step(h)
    bound = HockeyStickBound.terminal(h)
    for _ in range(rounds):
        bound = bound.apply_fixed(step)
    e = np.linspace(0.0, 3.0 * mu * math.sqrt(rounds), 31)
    exact = gaussian_delta(mu * math.sqrt(rounds), e)
    ours = bound(e)
    assert (ours >= exact).all()
    assert (ours <= exact * 1.005 + rounds * 1e-39).all()     # measured: 3.8e-3 at most
