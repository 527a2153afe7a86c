"""The protocol end to end (sampling, Monte Carlo), noise families, the Appendix A.3
quantile offsets, and the ring's Laplace baseline."""

import math

import mpmath
import numpy as np
import pytest
from scipy import integrate

from optmech.multiselect.noise import (
    NOISE_FAMILIES,
    SymmetricNoise,
    expected_cost,
    quantile_cost_bound,
    quantile_offsets,
)
from optmech.multiselect.offsets import closed_form_cost, optimal_response
from optmech.multiselect.protocol import MultiSelection
from optmech.multiselect.ring import (
    TruncatedLaplace,
    ring_expected_cost,
    ring_laplace_response,
    wrap,
)
from optmech.selection.mechanisms import PrivacyGuarantee
from optmech.validation import InvalidArgumentError

NOISES = [SymmetricNoise(f, 0.8) for f in NOISE_FAMILIES] + [TruncatedLaplace(0.8)]


@pytest.mark.parametrize("noise", NOISES, ids=lambda n: type(n).__name__ + getattr(n, "family", ""))
def test_cdf_pdf_and_stop_loss_against_quadrature(noise):
    low, high = noise.support
    low, high = max(low, -60.0), min(high, 60.0)
    assert integrate.quad(noise.pdf, low, high, points=[0.0], epsabs=1e-13)[0] == \
        pytest.approx(1.0, abs=1e-10)
    for y in (-3.7, -0.4, 0.0, 0.9, 2.5):
        kink = {"points": [0.0]} if y > 0 else {}
        assert noise.cdf(y) == pytest.approx(
            integrate.quad(noise.pdf, low, y, epsabs=1e-14, **kink)[0], abs=1e-11)
        assert noise.stop_loss(y) == pytest.approx(
            integrate.quad(lambda t: (y - t) * noise.pdf(t), low, y, epsabs=1e-14, **kink)[0],
            abs=1e-11)


@pytest.mark.parametrize("family", NOISE_FAMILIES)
def test_mean_absolute_noise_is_one_over_epsilon(family):
    noise = SymmetricNoise(family, 2.5)
    mean_abs = 2 * integrate.quad(lambda y: y * noise.pdf(y), 0, np.inf)[0]
    assert mean_abs == pytest.approx(0.4, rel=1e-10)


@pytest.mark.parametrize("family", NOISE_FAMILIES)
def test_identity_cost_closed_form_matches_quadrature(family):
    rng = np.random.default_rng(3)
    for k in (1, 2, 5):
        offsets = rng.normal(0, 2, k)
        exact = expected_cost(offsets, 0.7, noise=family)
        quadrature = expected_cost(offsets, 0.7, h=lambda t: t, noise=family)  # other path
        assert exact == pytest.approx(quadrature, rel=1e-10)


@pytest.mark.parametrize("config", [
    dict(k=4, epsilon=1.0),
    dict(k=3, epsilon=0.5, h="sqrt"),
    dict(k=2, epsilon=2.0, h="square"),
    dict(k=5, epsilon=1.0, noise="gaussian"),
    dict(k=6, epsilon=0.3, noise="logistic", h="log1p"),
])
def test_monte_carlo_cost_agrees_with_the_exact_cost(config):
    protocol = MultiSelection(**config)
    estimate = protocol.monte_carlo_cost(200_000, np.random.default_rng(11), user=-4.2)
    assert abs(estimate.mean - protocol.cost) <= 5 * estimate.standard_error
    assert estimate.standard_error < 0.01 * protocol.cost


def test_sample_is_the_protocol_and_reproducible():
    protocol = MultiSelection(3, 0.9)
    draws = protocol.sample(user=[0.0, 5.0, -2.0], rng=np.random.default_rng(1))
    again = protocol.sample(user=[0.0, 5.0, -2.0], rng=np.random.default_rng(1))
    np.testing.assert_array_equal(draws.results, again.results)
    np.testing.assert_allclose(draws.results, draws.signal[:, None] + protocol.offsets)
    distances = np.abs(draws.results - draws.user[:, None])
    np.testing.assert_array_equal(draws.disutility, distances.min(axis=1))
    np.testing.assert_array_equal(draws.chosen, distances.argmin(axis=1))
    assert protocol.sample(size=(4, 5), rng=np.random.default_rng(0)).results.shape == (4, 5, 3)
    assert protocol.sample(rng=np.random.default_rng(0)).results.shape == (3,)


def test_default_offsets_and_privacy_statement():
    laplace = MultiSelection(4, 1.0)
    np.testing.assert_allclose(laplace.offsets, optimal_response(4, 1.0).offsets)
    assert laplace.cost == pytest.approx(closed_form_cost(4, 1.0), rel=1e-14)
    assert isinstance(laplace.privacy, PrivacyGuarantee) and laplace.privacy.epsilon == 1.0
    gaussian = MultiSelection(5, 1.0, noise="gaussian")
    np.testing.assert_allclose(gaussian.offsets, quantile_offsets(5, 1.0, "gaussian"))
    assert gaussian.privacy is None


def test_quantile_offsets_are_quantiles_of_the_absolute_noise():
    """Appendix A.3: a_i = F^{-1}(1 - i/K) with F the survival function of |Y|."""
    for family in NOISE_FAMILIES:
        noise = SymmetricNoise(family, 1.3)
        for k in (1, 7, 8):
            offsets = quantile_offsets(k, 1.3, family)
            assert offsets.size == k
            K = (k + 1) // 2
            positive = np.unique(offsets[offsets > 0])
            survival = 2 * (1 - noise.cdf(positive))
            np.testing.assert_allclose(survival, 1 - np.arange(1, K) / K, rtol=1e-12)


@pytest.mark.parametrize("family", NOISE_FAMILIES)
def test_quantile_construction_cost_is_within_theorem_24(family):
    costs = []
    for k in (1, 3, 11, 51, 201, 1001):
        cost = expected_cost(quantile_offsets(k, 0.6, family), 0.6, noise=family)
        assert cost <= quantile_cost_bound(k, 0.6)
        if family == "laplace":  # a feasible choice of offsets for Laplace noise
            assert cost >= closed_form_cost(k, 0.6) - 1e-12
        costs.append(cost * k * 0.6 / max(1.0, math.log(k)))
    assert max(costs) < 3.0  # cost * k * eps / log k stays bounded: O(log k / (k eps))


def test_optimal_offsets_beat_the_quantile_offsets_for_laplace():
    for k in (3, 5, 21):
        assert closed_form_cost(k, 1.0) < expected_cost(quantile_offsets(k, 1.0), 1.0)


def test_ring_cost_against_direct_quadrature_of_the_circle_distance():
    noise = TruncatedLaplace(0.6)
    for offsets in ([0.3], [-2.0, 1.1], [-3.0, 0.2, 2.9], [4.0, -1.0]):
        a = wrap(offsets)
        def distance(x):
            return min(min(abs(x - v), 2 * math.pi - abs(x - v)) for v in a)
        cuts = sorted({-math.pi, math.pi, 0.0, *a, *wrap(a + math.pi),
                       *[wrap((u + v) / 2) for u in a for v in a],
                       *[wrap((u + v) / 2 + math.pi) for u in a for v in a]})
        direct = sum(integrate.quad(lambda x: distance(x) * noise.pdf(x), lo, hi,
                                    epsabs=1e-14)[0] for lo, hi in zip(cuts[:-1], cuts[1:]))
        assert ring_expected_cost(offsets, 0.6) == pytest.approx(direct, rel=1e-10)
        assert ring_expected_cost(offsets, 0.6, h=lambda t: t) == pytest.approx(direct, rel=1e-9)


def test_truncated_laplace_sampler():
    noise = TruncatedLaplace(0.375)
    draws = noise.sample(200_000, np.random.default_rng(5))
    assert np.abs(draws).max() <= math.pi
    exact = integrate.quad(lambda y: abs(y) * noise.pdf(y), -math.pi, math.pi, points=[0])[0]
    assert abs(np.abs(draws).mean() - exact) <= 5 * np.abs(draws).std() / math.sqrt(draws.size)


def _ring_pair_cost(a, b, eps):
    """``E min(d(X, a), d(X, b))`` for the ring's truncated Laplace ``X`` and the circle
    distance ``d``, for arrays of pairs at once, independently of the library's line-cost
    path: ``[-pi, pi]`` is cut at every kink of the integrand (``a``, ``b``, their antipodes,
    the pair's two midpoints on the circle, 0), and on each piece the integrand is
    ``s (x - c) rho(x)`` (``c`` the nearer result unwrapped to that piece, ``s = +-1``),
    integrated in closed form through ``int rho`` and ``int x rho``."""
    a, b = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    mid = (a + b) / 2
    ends = np.full(a.shape, math.pi)
    cuts = np.sort(np.stack([-ends, ends, 0 * a, wrap(a), wrap(b), wrap(a + math.pi),
                             wrap(b + math.pi), wrap(mid), wrap(mid + math.pi)]), axis=0)
    lo, hi = cuts[:-1], cuts[1:]
    x = (lo + hi) / 2
    to_a, to_b = wrap(x - a), wrap(x - b)
    u = np.where(np.abs(to_a) <= np.abs(to_b), to_a, to_b)  # signed offset from the nearer
    centre = x - u
    norm, edge = -2 * math.expm1(-eps * math.pi), math.exp(-eps * math.pi)
    neg, pos = np.minimum, np.maximum

    def mass(t):     # int_{-pi}^t rho, rho(x) = eps e^{-eps |x|} / norm
        return np.where(t <= 0, np.exp(eps * neg(t, 0)) - edge,
                        norm + edge - np.exp(-eps * pos(t, 0))) / norm

    def moment(t):   # int_{-pi}^t x rho(x) dx
        below = (neg(t, 0) - 1 / eps) * np.exp(eps * neg(t, 0)) + (math.pi + 1 / eps) * edge
        above = (math.pi + 1 / eps) * edge - (pos(t, 0) + 1 / eps) * np.exp(-eps * pos(t, 0))
        return np.where(t <= 0, below, above) / norm

    return np.sum(np.sign(u) * (moment(hi) - moment(lo) - centre * (mass(hi) - mass(lo))),
                  axis=0)


@pytest.mark.parametrize("eps", [0.375, 1.0, 3.0])
def test_ring_pair_reference_matches_ring_expected_cost(eps):
    """The test's closed-form pair cost and the library's line-cost path agree to 1e-13 on
    random pairs and on coinciding, antipodal and wrapped-around ones."""
    rng = np.random.default_rng(7)
    pairs = [*rng.uniform(-math.pi, math.pi, (40, 2)), (0.0, 0.0), (-math.pi, 0.0),
             (-math.pi, -math.pi), (1.0, 1.0 + 1e-12), (-math.pi, math.pi - 1e-9), (2.0, -2.5)]
    for a, b in pairs:
        assert _ring_pair_cost(a, b, eps) == pytest.approx(ring_expected_cost([a, b], eps),
                                                           abs=1e-13)


@pytest.mark.parametrize("eps", [0.375, 1.0])
def test_ring_laplace_offsets_against_exhaustive_grid_search(eps):
    """Every pair of a 120-point grid, by the test's closed-form pair cost (exact to about
    1e-15, checked against the library above), costs no less than the optimiser's pair."""
    r = ring_laplace_response(2, eps)
    grid = np.linspace(-math.pi, math.pi, 120, endpoint=False)
    first, second = np.triu_indices(grid.size)
    best = float(_ring_pair_cost(grid[first], grid[second], eps).min())
    assert r.cost <= best + 1e-12
    assert best - r.cost < 2e-3  # the grid's resolution
    paper_like = {0.375: 0.7429138860, 1.0: 0.5677400575}[eps]
    assert r.cost == pytest.approx(paper_like, abs=1e-9)


def test_bad_input():
    with pytest.raises(InvalidArgumentError, match="noise"):
        MultiSelection(3, 1.0, noise="cauchy")
    with pytest.raises(InvalidArgumentError, match="offsets"):
        MultiSelection(3, 1.0, offsets=[0.0, 1.0])
    with pytest.raises(InvalidArgumentError, match="offsets"):
        expected_cost([0.0, np.nan], 1.0)
    with pytest.raises(InvalidArgumentError, match="size"):
        MultiSelection(2, 1.0).monte_carlo_cost(1)
    with pytest.raises(InvalidArgumentError, match="user"):
        MultiSelection(2, 1.0).sample(user=np.inf)
    with pytest.raises(InvalidArgumentError, match="epsilon"):
        quantile_offsets(3, 0.0)
    with pytest.raises(InvalidArgumentError, match="k"):
        quantile_cost_bound(0, 1.0)


@pytest.mark.parametrize("k", [2, 10, 1000, 10**6])
def test_identity_cost_of_many_results_against_the_closed_form(k):
    """The optimal Laplace offsets for k = 2K cost ln(1 + 1/K) / eps, a value of order 1/k
    that a sum of O(1) terms loses in cancellation (the former formula was 2.4e-4 off at
    k = 10^6, 3.5e-3 at 10^7, and three times too large at 10^8)."""
    for eps in (1.0, 1e-300, 1e200):
        cost = expected_cost(optimal_response(k, eps).offsets, eps)
        assert cost == pytest.approx(math.log1p(2 / k) / eps, rel=1e-14, abs=0)


def _mpmath_identity_cost(offsets, density, support=(-mpmath.inf, mpmath.inf)):
    """``E min_i |Y - a_i|`` at the working precision: each Voronoi cell integrated
    separately, split at its offset and at 0."""
    a = sorted(mpmath.mpf(float(x)) for x in offsets)
    edges = [support[0], *[(x + y) / 2 for x, y in zip(a, a[1:])], support[1]]
    total = mpmath.mpf(0)
    for centre, lo, hi in zip(a, edges, edges[1:]):
        lo, hi = max(lo, support[0]), min(hi, support[1])
        cuts = sorted({lo, hi} | {c for c in (centre, mpmath.mpf(0)) if lo < c < hi})
        for x0, x1 in zip(cuts, cuts[1:]):
            total += mpmath.quad(lambda y: abs(y - centre) * density(y), [x0, x1])
    return total


@pytest.mark.parametrize("family", ["laplace", "gaussian", "logistic"])
def test_identity_cost_against_30_digit_quadrature(family):
    """Narrow cells (Gauss–Legendre), wide cells (tail formula), offsets on both sides of 0
    and far in the tail, against mpmath: 1e-14 relative.  30 digits: the references agree
    with 50-digit ones to 20 digits (and cost 3.7 instead of 5.3 CPU s)."""
    noise = SymmetricNoise(family, 0.8)
    s = mpmath.mpf(noise.scale)
    density = {"laplace": lambda y: mpmath.exp(-abs(y) / s) / (2 * s),
               "gaussian": lambda y: mpmath.npdf(y, 0, s),
               "logistic": lambda y: mpmath.sech(y / (2 * s)) ** 2 / (4 * s)}[family]
    rng = np.random.default_rng(3)
    with mpmath.workdps(30):
        for offsets in (quantile_offsets(41, 0.8, family),
                        np.sort(rng.normal(0.0, 3.0, 12)),
                        np.array([-40.0, -39.99, -0.3, 0.001, 0.002, 7.0, 30.0])):
            reference = _mpmath_identity_cost(offsets, density)
            assert expected_cost(offsets, 0.8, noise=family) == \
                pytest.approx(float(reference), rel=1e-14)


@pytest.mark.parametrize("k", [1, 2, 7, 10, 4001])
def test_default_laplace_cost_is_the_cost_of_its_offsets(k):
    """The protocol reports the closed form for its optimal offsets; integrating those
    offsets gives the same number."""
    protocol = MultiSelection(k, 0.7)
    assert protocol.cost == pytest.approx(expected_cost(protocol.offsets, 0.7), rel=1e-14)
