"""The certified dynamic programme (optmech.privacy.adaptive) against independent references:
one bounded-range round is the closed-form envelope at 30 digits; two rounds are at least the
sup over a dense grid of t of the exact one-round curve (the adversary's best), and close to
it; fixed rounds of randomised response are Kairouz-Oh-Viswanath's binomial sum at 30 digits;
two different fixed rounds equal the brute-force product of their spread pairs (this reads the
bound below 0 through the symmetry); truncation and regridding only raise the bound."""

import math

import mpmath as mp
import numpy as np
import pytest

from optmech.privacy.adaptive import ROUNDING_INFLATION, HockeyStickBound, bounded_range_mass
from optmech.privacy.dominating import LAPLACE, RANDOMISED_RESPONSE, Dominance


def _envelope(eps, x):
    """One bounded-range round's curve at 30 digits, ``x >= 0``."""
    with mp.workdps(30):
        if x >= eps:
            return mp.mpf(0)
        return (1 - mp.e ** (-(mp.mpf(eps) - x) / 2)) ** 2 / (1 - mp.e ** (-mp.mpf(eps)))


def _one_round(eps, x):
    """The same for every real x (symmetry: W(x) = 1 - e^x + e^x W(-x) below 0), in double
    precision from the closed form."""
    x = np.asarray(x, dtype=float)
    envelope = lambda v: np.expm1(-(eps - np.minimum(v, eps)) / 2) ** 2 / -math.expm1(-eps)  # noqa
    return np.where(x >= 0, envelope(np.abs(x)), -np.expm1(x) + np.exp(x) * envelope(np.abs(x)))


@pytest.mark.parametrize("eps, resolution", [(0.1, 4), (0.5, 16), (1.0, 8), (3.0, 16)])
def test_one_bounded_range_round_is_the_envelope(eps, resolution):
    h = eps / resolution
    bound = HockeyStickBound.terminal(h).apply_bounded_range(eps)
    for i in range(resolution + 1):
        exact = float(_envelope(eps, i * h))
        assert bound.values[i] >= exact * (1 - 1e-15)
        assert bound.values[i] <= exact * (1 + 2e-12) + 1e-300


@pytest.mark.parametrize("eps", [0.2, 1.0])
def test_two_rounds_bound_the_adversary_and_stay_close(eps):
    """The reference maximises over 20,001 values of t the exact expectation of the one-round
    curve: a lower bound on the true two-round value (up to the grid of t)."""
    resolution = 32
    h = eps / resolution
    bound = HockeyStickBound.terminal(h).apply_bounded_range(eps).apply_bounded_range(eps)
    t = np.linspace(0.0, eps, 20_001)
    p = bounded_range_mass(eps, t)
    for x in np.arange(0, 2 * eps, 3 * h):
        first, second = _one_round(eps, x - t), _one_round(eps, x - t + eps)
        reference = float((p * first + (1 - p) * second).max())
        ours = float(bound(x)[0])
        assert ours >= reference * (1 - 1e-12) - 1e-16
        # the chord of the one-round curve between nodes: second order in the grid step
        assert ours <= reference + 1e-3 * float(bound(0.0)[0])


def _kov(eps, k, e):
    """Randomised response at eps composed k times (Kairouz, Oh and Viswanath): the binomial
    sum at 30 digits."""
    with mp.workdps(30):
        eps, e = mp.mpf(eps), mp.mpf(e)
        p = mp.e ** eps / (1 + mp.e ** eps)
        total = mp.mpf(0)
        for i in range(k + 1):
            loss = (k - 2 * i) * eps
            if loss > e:
                total += mp.binomial(k, i) * p ** (k - i) * (1 - p) ** i * (1 - mp.e ** (e - loss))
        return float(total)


@pytest.mark.parametrize("eps, k", [(0.5, 7), (1.0, 12), (0.1, 40)])
def test_randomised_response_rounds_are_the_binomial_sum(eps, k):
    h = eps / 8
    step = Dominance(RANDOMISED_RESPONSE, eps).fixed_step(h)
    bound = HockeyStickBound.terminal(h)
    for _ in range(k):
        bound = bound.apply_fixed(step)
    inflation = ROUNDING_INFLATION * step.masses.size * k      # documented, upward
    for e in [0.0, 0.3 * eps, eps, 2.5 * eps, 0.5 * k * eps]:
        exact = _kov(eps, k, e)
        ours = float(bound(e)[0])
        assert exact * (1 - 1e-14) <= ours <= exact * (1 + inflation + 1e-14)


def test_two_different_fixed_rounds_equal_their_product():
    h = 0.05
    rr = Dominance(RANDOMISED_RESPONSE, 0.4).fixed_step(h)
    laplace = Dominance(LAPLACE, 0.7).fixed_step(h)
    bound = HockeyStickBound.terminal(h).apply_fixed(laplace).apply_fixed(rr)
    # brute force: every pair of losses, with its P-mass
    loss = ((rr.start + np.arange(rr.masses.size))[:, None]
            + (laplace.start + np.arange(laplace.masses.size))[None, :]) * h
    mass = rr.masses[:, None] * laplace.masses[None, :]
    inflation = ROUNDING_INFLATION * (rr.masses.size + laplace.masses.size)
    for e in np.arange(0, 1.2, h):
        exact = float((mass * np.maximum(-np.expm1(e - loss), 0.0)).sum())
        ours = float(bound(e)[0])
        assert exact * (1 - 1e-14) <= ours <= exact * (1 + inflation + 1e-14)


def test_truncation_only_raises_the_bound():
    """A window cut short reads the Azuma-Hoeffding tail instead of computed values: never
    below them."""
    h = 0.025
    full = short = HockeyStickBound.terminal(h)
    for _ in range(30):
        full = full.apply_bounded_range(0.1)
        short = short.apply_bounded_range(0.1, reach=0.4)
    x = np.arange(0, full.values.size) * h
    assert (short(x) >= full(x) * (1 - 1e-15)).all()
    assert short.values.size < full.values.size


def test_regridding_only_raises_the_bound():
    h = 0.01
    bound = HockeyStickBound.terminal(h)
    for _ in range(5):
        bound = bound.apply_bounded_range(0.3)
    x = np.linspace(0, 1.5, 301)
    coarse = bound.regrid(4 * h)
    assert (coarse(x) >= bound(x) * (1 - 1e-15)).all()
    fine = bound.regrid(h / 2)
    np.testing.assert_allclose(fine(x), bound(x), rtol=1e-13, atol=1e-300)


def test_epsilon_inverts_the_curve():
    h = 0.01
    bound = HockeyStickBound.terminal(h)
    for _ in range(20):
        bound = bound.apply_bounded_range(0.2)
    for delta in [1e-2, 1e-4, 1e-8]:
        e = bound.epsilon(delta)
        assert float(bound(e)[0]) <= delta * (1 + 1e-12)
        assert float(bound(max(e - 1e-6, 0.0))[0]) > delta


def test_a_family_takes_its_worst_member_at_every_step():
    """Two steps over a family of three pairs (closed under swapping): the adversary picks
    the second pair after seeing the first loss; enumerated exactly."""
    rng = np.random.default_rng(5)
    pairs = []
    for _ in range(3):
        p = rng.dirichlet(np.ones(3))
        q = rng.dirichlet(np.ones(3))
        pairs += [(np.log(p / q), p), (np.log(q / p), q)]
    losses = np.array([l for l, _ in pairs])
    masses = np.array([m for _, m in pairs])
    h = 0.01
    bound = HockeyStickBound.terminal(h).apply_family(losses, masses).apply_family(
        losses, masses)
    for x in [0.0, 0.1, 0.4, 0.9, 1.7]:
        exact = max(sum(m1 * max(float((m2 * np.maximum(-np.expm1(x - l1 - l2), 0)).sum())
                                 for l2, m2 in pairs)
                        for l1, m1 in zip(*first)) for first in pairs)
        ours = float(bound(x)[0])
        assert exact * (1 - 1e-12) <= ours <= exact + 2e-4
