"""Report-noisy-max with i.i.d. Laplace noise: the fast exact pmf against independent
references.

References: a 50-digit mpmath quadrature of the defining integral written here (itself
checked against mpmath's tanh-sinh ``quad`` on the whole real line); the two-candidate
closed form and the exact piecewise-exponential integral of
:mod:`optmech.privacy.high_precision` (far tails, gaps up to 1.7e308 scales); the general
quadrature of :mod:`optmech.selection.noisy_max` (a second method: a panel edge at every
score); exact invariances (shift, unit, permutation).
"""

from __future__ import annotations

import math
from collections import Counter
from functools import lru_cache

import mpmath as mp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optmech.data.datasets import load_histogram
from optmech.data.tasks import get_task
from optmech.privacy.high_precision import log_pmf_mp
from optmech.selection.laplace_noisy_max import (
    _log_space_nodes,
    laplace_level_probabilities,
    laplace_log_cdf_and_hazard,
    laplace_noisy_max_logpmf,
    laplace_noisy_max_pmf,
)
from optmech.selection.mechanisms import ReportNoisyMax
from optmech.selection.noisy_max import noisy_max_pmf
from optmech.validation import InvalidArgumentError

DPS = 50
CUT = mp.mpf("1e-30")


@lru_cache(maxsize=None)
def gauss_legendre(m: int) -> tuple:
    """``m``-node Gauss–Legendre rule on [-1, 1] at DPS + 10 digits (Newton on P_m)."""
    with mp.workdps(DPS + 10):
        rule = []
        for guess in np.polynomial.legendre.leggauss(m)[0]:
            x = mp.mpf(float(guess))
            for _ in range(10):
                p, p_prev = mp.legendre(m, x), mp.legendre(m - 1, x)
                slope = m * (x * p - p_prev) / (x * x - 1)
                x -= p / slope
            p, p_prev = mp.legendre(m, x), mp.legendre(m - 1, x)
            slope = m * (x * p - p_prev) / (x * x - 1)
            rule.append((x, 2 / ((1 - x * x) * slope ** 2)))
        return tuple(rule)


def laplace_parts(x, values, b):
    """Standard Laplace cdf ``F`` and ``f / F`` of ``(x - v) / b`` for each value ``v``."""
    cdfs, ratios = [], []
    for v in values:
        z = (x - v) / b
        if z < 0:
            cdfs.append(mp.exp(z) / 2)
            ratios.append(mp.mpf(1))
        else:
            e = mp.exp(-z) / 2
            cdfs.append(1 - e)
            ratios.append(e / (1 - e))
    return cdfs, ratios


def reference_levels(values, counts, scale, nodes=16) -> list:
    """Probability of one candidate at each of the distinct ``values`` when ``counts[u]``
    candidates sit at ``values[u]``: ``Pr = integral f(x - v) prod_{others} F dx / b`` at
    50 digits (``prod_{others} F = G / F(x - v)`` with ``G = prod_s F_s^count_s``).

    ``G(x)`` is the cdf of the noisy maximum, so the mass of all integrands below ``lo`` is
    ``G(lo)`` and above ``hi`` it is ``1 - G(hi)``; both are evaluated and asserted below
    1e-30.  ``lo`` is the highest value (or ``top + b log(2e-30)``) with ``G <= 1e-30``;
    ``hi`` doubles until ``1 - G <= 1e-30``.  Panels: split at every value inside, at most
    b long below the top and growing geometrically above it; ``nodes``-point
    Gauss–Legendre on each (panels of b/2, at 1.7x the CPU, agreed to 4e-23 relative on
    every reference of this file; panels of 2b only to 1e-16).
    """
    with mp.workdps(DPS):
        b = mp.mpf(float(scale))
        order = sorted(range(len(values)), key=lambda u: -values[u])
        vals = [mp.mpf(float(values[u])) for u in order]
        cnts = [int(counts[u]) for u in order]
        top = vals[0]

        def cdf_of_max(x):
            return mp.fprod(F ** c for F, c in zip(laplace_parts(x, vals, b)[0], cnts, strict=True))

        lo = top + b * mp.log(2 * CUT)
        for v in vals[:80]:
            if v > lo and cdf_of_max(v) <= CUT:
                lo = v
                break
        reach = mp.mpf(1)
        while 1 - cdf_of_max(top + b * reach) > CUT:
            reach *= 2
        hi = top + b * reach
        assert cdf_of_max(lo) <= CUT and 1 - cdf_of_max(hi) <= CUT
        edges = [lo] + sorted(v for v in vals if lo < v < top) + [top]
        panels = []
        for left, right in zip(edges[:-1], edges[1:], strict=True):
            k = int(mp.ceil((right - left) / b))
            panels += [(left + (right - left) * i / k, left + (right - left) * (i + 1) / k)
                       for i in range(k)]
        left = top
        while left < hi:
            step = b * max(mp.mpf(1) / 2, (left - top) / b / 2)
            panels.append((left, left + step))
            left += step
        totals = [mp.mpf(0)] * len(vals)
        for left, right in panels:
            half, mid = (right - left) / 2, (right + left) / 2
            for x0, w0 in gauss_legendre(nodes):
                cdfs, ratios = laplace_parts(mid + half * x0, vals, b)
                weight = w0 * half / b * mp.fprod(F ** c for F, c in zip(cdfs, cnts, strict=True))
                for u, ratio in enumerate(ratios):
                    totals[u] += weight * ratio
        out = [None] * len(vals)
        for position, u in enumerate(order):
            out[u] = totals[position]
        return out


def reference_pmf(scores, scale) -> np.ndarray:
    """:func:`reference_levels` for a score vector (equal scores grouped), as floats."""
    tally = Counter(float(v) for v in scores)
    values = list(tally)
    levels = reference_levels(values, [tally[v] for v in values], scale)
    probs = dict(zip(values, levels, strict=True))
    return np.array([float(probs[float(v)]) for v in scores])


def tanh_sinh_pmf(scores, scale) -> list:
    """Each ``Pr[r]`` by mpmath's tanh-sinh ``quad`` over the whole line, split at the
    scores (no truncation at all)."""
    with mp.workdps(DPS):
        q = [mp.mpf(float(v)) for v in scores]
        b = mp.mpf(float(scale))
        cdf = lambda z: mp.exp(z) / 2 if z < 0 else 1 - mp.exp(-z) / 2  # noqa: E731
        points = [-mp.inf] + sorted(set(q)) + [mp.inf]
        return [mp.quad(lambda x, r=r: mp.exp(-abs((x - q[r]) / b)) / (2 * b) * mp.fprod(
            cdf((x - q[s]) / b) for s in range(len(q)) if s != r), points)
            for r in range(len(q))]


def test_reference_agrees_with_tanh_sinh_on_the_whole_line():
    scores, scale = [0.0, -1.0, -1.0, 2.5], 1.5
    ours = reference_pmf(scores, scale)
    quad = tanh_sinh_pmf(scores, scale)
    assert max(abs(a - float(b)) for a, b in zip(ours, quad, strict=True)) < 1e-17
    assert abs(float(mp.fsum(quad)) - 1) < 1e-30


def _cases():
    rng = np.random.default_rng(2024)
    rows = [("normal n=3", rng.normal(size=3) * 3, 2.0),
            ("normal n=40", rng.normal(size=40) * 3, 2.0),
            ("ties n=12", np.round(rng.normal(size=12) * 2), 1.0),
            ("near ties n=20", rng.normal(size=20) * 0.1, 1.0),
            ("gaps of 1e6", np.concatenate([rng.normal(size=6), rng.normal(size=6) - 1e6,
                                            [-2e6]]), 1.0),
            ("near +1e9", 1e9 + np.round(rng.normal(size=30) * 8) / 4, 0.5),
            ("near -1e9", -1e9 + np.round(rng.normal(size=15) * 8) / 4, 3.0),
            ("ties n=200", np.round(rng.normal(size=200) * 3), 0.7),
            ("tiny scale", np.array([0.0, -3e-12, -1e-11, -1e-11, -5e-11]), 1e-11),
            ("huge scale", np.array([0.0, -3e12, -1e13, 2e12]), 4e12)]
    return [pytest.param(scores, scale, id=name) for name, scores, scale in rows]


def assert_matches_reference(probs, reference):
    """Within 1e-14 absolute everywhere, and 1e-13 relative above 1e-250 (FLOOR)."""
    np.testing.assert_allclose(probs, reference, rtol=0, atol=1e-14)
    resolved = reference > 1e-250
    np.testing.assert_allclose(probs[resolved], reference[resolved], rtol=1e-13, atol=0)


@pytest.mark.parametrize("scores, scale", _cases())
def test_against_50_digit_reference(scores, scale):
    probs = laplace_noisy_max_pmf(scores, scale)
    assert_matches_reference(probs, reference_pmf(scores, scale))
    assert abs(probs.sum() - 1) <= 1e-14 and (probs >= 0).all()


@pytest.mark.slow
def test_against_50_digit_reference_200_distinct_scores():
    scores = np.random.default_rng(7).normal(size=200) * 3
    assert_matches_reference(laplace_noisy_max_pmf(scores, 2.0), reference_pmf(scores, 2.0))


def test_millions_of_candidates_at_few_levels_against_the_reference():
    """1.1 million candidates on four levels: two of them at or above the window's lower
    edge (panel edges), two below it (the Chebyshev bulk, counts 10^5 and 10^6)."""
    levels = np.array([0.0, -0.5, -3.0, -5.0])
    counts = np.array([1, 1, 100_000, 1_000_000])
    probs = laplace_noisy_max_pmf(np.repeat(levels, counts), 1.0)
    first = np.cumsum(counts) - counts
    exact = np.array([float(p) for p in reference_levels(levels, counts, 1.0)])
    np.testing.assert_allclose(probs[first], exact, rtol=1e-13, atol=1e-16)
    assert abs(counts @ probs[first] - 1) <= 1e-13


@pytest.mark.parametrize("gap", [0.0, 1e-9, 0.3, 1.0, 7.5, 40.0, 300.0, 560.0, 700.0, 1e6])
@pytest.mark.parametrize("scale", [1e-300, 0.5, 1e300])
def test_two_candidates_closed_form(gap, scale):
    """The difference of two Laplace(b) variables exceeds g >= 0 with probability
    ``e^{-g/b} (2 + g/b) / 4``: the lower candidate's probability, to 1e-13 relative down
    to FLOOR = 1e-250 (gap 560: 8.8e-242) and within FLOOR below it."""
    scores = np.array([0.0, -gap * scale])
    probs = laplace_noisy_max_pmf(scores, scale)
    loser = float(mp.exp(-gap) * (2 + gap) / 4)
    assert probs[1] == pytest.approx(loser, rel=1e-13, abs=1e-250)
    assert probs[0] == pytest.approx(1 - loser, rel=1e-15)


def test_invariant_under_shift_unit_and_permutation():
    """Scores on a grid of 1/16, so ``q 2^p + c`` is exact for the shifts below: the gaps
    in scale units are bit-for-bit the same, and so are the probabilities."""
    rng = np.random.default_rng(3)
    q = np.round(rng.normal(size=300) * 64) / 16
    base = laplace_noisy_max_pmf(q, 1.5)
    for power, shift in ((0, 1e9), (0, -1e9), (0, 2.0 ** 44), (-900, 0.0), (40, -1e20),
                         (950, 1e300), (950, -1e300), (975, -1.7e308)):
        moved = q * 2.0 ** power + shift
        assert np.array_equal((moved - shift) / 2.0 ** power, q)   # the shift is exact
        np.testing.assert_array_equal(laplace_noisy_max_pmf(moved, 1.5 * 2.0 ** power), base)
    perm = rng.permutation(q.size)
    np.testing.assert_array_equal(laplace_noisy_max_pmf(q[perm], 1.5), base[perm])


def test_agrees_with_the_general_quadrature_at_hundreds_of_distinct_scores():
    """The general path puts a panel edge at every score (no bulk interpolation)."""
    rng = np.random.default_rng(5)
    for scores, scale in ((rng.normal(size=1000) * 3, 2.0),
                          (-rng.exponential(size=300) * 20, 1.0)):
        np.testing.assert_allclose(laplace_noisy_max_pmf(scores, scale),
                                   noisy_max_pmf(scores, scale, "laplace"), rtol=0, atol=1e-15)


extreme_scores = st.one_of(
    st.floats(-1e308, 1e308),
    st.sampled_from([0.0, 1.0, -1.0, 1e9, -1e9, 1e308, -1e308, 5e-324]),
    st.floats(-3, 3))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(extreme_scores, min_size=1, max_size=30),
       st.floats(-300, 300).map(lambda e: 10.0 ** e),
       st.randoms(use_true_random=False))
def test_every_finite_input_gives_a_pmf(scores, scale, random):
    """At extreme magnitudes: finite, >= 0, sums to 1 within 1e-12, higher score never less
    likely, equal scores equally likely, permutation equivariant."""
    q = np.array(scores)
    probs = laplace_noisy_max_pmf(q, scale)
    assert np.isfinite(probs).all() and (probs >= 0).all()
    assert abs(probs.sum() - 1) <= 1e-12
    order = np.argsort(q, kind="stable")
    assert (np.diff(probs[order]) >= -1e-15).all()
    for value in np.unique(q):
        tied = probs[q == value]
        assert tied.max() == tied.min()
    perm = list(range(q.size))
    random.shuffle(perm)
    np.testing.assert_array_equal(laplace_noisy_max_pmf(q[perm], scale), probs[perm])


def test_level_probabilities_match_the_pmf_of_each_vector():
    levels = np.array([0.0, -0.4, -2.0, -50.0])
    counts = np.array([[1, 0, 0, 0], [1, 3, 0, 2], [4, 1, 1, 1], [2, 0, 1000, 5]])
    table = laplace_level_probabilities(levels, counts)
    for row, probs in zip(counts, table, strict=True):
        pmf = laplace_noisy_max_pmf(np.repeat(levels, row), 1.0)
        first = (np.cumsum(row) - row)[row > 0]
        np.testing.assert_allclose(probs[row > 0], pmf[first], rtol=1e-13, atol=1e-16)
    with pytest.raises(InvalidArgumentError, match="levels"):
        laplace_level_probabilities([-1.0, -2.0], [[1, 1]])
    with pytest.raises(InvalidArgumentError, match="counts"):
        laplace_level_probabilities([0.0, -1.0], [[0, 2]])


@pytest.mark.parametrize("scale", [0.0, -1.0, float("inf"), float("nan"), "x"])
def test_bad_scale_is_refused(scale):
    with pytest.raises(InvalidArgumentError, match="scale"):
        laplace_noisy_max_pmf([0.0, 1.0], scale)


def test_single_candidate_and_all_ties():
    assert laplace_noisy_max_pmf([1e308], 1e-300).tolist() == [1.0]
    assert (laplace_noisy_max_pmf(np.full(10**6, -3.0), 0.1) == 1e-6).all()


@pytest.mark.parametrize("epsilon, sensitivity", [(1e-300, 1e300), (1e300, 1e-300)])
def test_mechanism_refuses_a_scale_outside_the_floats(epsilon, sensitivity):
    """2 sensitivity / epsilon overflows (or underflows): no pmf can be computed honestly,
    and the mechanism is refused when it is built."""
    with pytest.raises(InvalidArgumentError, match="sensitivity"):
        ReportNoisyMax(epsilon, sensitivity)


def test_mechanism_at_extreme_but_representable_scales():
    """epsilon 1e-300 (scale 2e300) and 1e300 (scale 2e-300): the scale-free closed form
    of two candidates holds at both ends."""
    for eps in (1e-300, 1e300):
        gap = 3.0 * 2 / eps
        probs = ReportNoisyMax(eps).pmf([0.0, -gap])
        assert probs[1] == pytest.approx(math.exp(-3.0) * 5 / 4, rel=1e-13)


@pytest.mark.parametrize("dataset, bins, task, eps", [
    ("INCOME", 1024, "mode", 0.1),       # raised IntegrationError before
    ("NETFLIX", None, "median", 1e-4),   # 17,770 bins, widest window
    ("PATENT", None, "mode", 10.0),
    ("HEPTH", 1024, "median", 0.01),
])
def test_shipped_datasets(dataset, bins, task, eps):
    """The pmf exists (its sum is checked inside), and at 1024 bins it agrees with the
    general quadrature."""
    t = get_task(task, monotonic=(task == "mode"))
    q = t.scores(load_histogram(dataset, bins))
    mechanism = ReportNoisyMax(eps, t.sensitivity, monotonic=t.monotonic)
    probs = mechanism.pmf(q)
    assert abs(probs.sum() - 1) <= 1e-12 and (probs >= 0).all()
    if bins == 1024:
        np.testing.assert_allclose(probs, noisy_max_pmf(q, mechanism.scale, "laplace"),
                                   rtol=0, atol=1e-14)


def test_log_cdf_and_hazard_against_scipy():
    from scipy.stats import laplace

    z = np.concatenate([np.linspace(-700, 740, 4001), [-1e-300, 0.0, 1e-300]])
    log_cdf, hazard = laplace_log_cdf_and_hazard(z)
    np.testing.assert_allclose(log_cdf, laplace.logcdf(z), rtol=1e-14, atol=0)
    np.testing.assert_allclose(hazard, laplace.pdf(z) / laplace.cdf(z), rtol=1e-14, atol=0)
    # below -708 scipy's cdf is subnormal (its logcdf loses digits, -inf below -745)
    assert laplace_log_cdf_and_hazard(np.array([-1e6]))[0][0] == -1e6 - math.log(2)


def tanh_sinh_log_pmf(scores, scale, dps=20) -> list:
    """``log Pr[r]`` by mpmath's tanh-sinh ``quad`` on the whole line, split at the scores
    and at distances 2^j from each of them (a stretch hundreds of scales long, split at the
    scores only, lost four digits of a probability near e^-452)."""
    with mp.workdps(dps):
        q = [mp.mpf(float(v)) / float(scale) for v in scores]
        cdf = lambda z: mp.exp(z) / 2 if z < 0 else 1 - mp.exp(-z) / 2  # noqa: E731
        points = set(q)
        for a in set(q):
            points |= {a + sign * mp.mpf(2) ** j for j in range(0, 11) for sign in (-1, 1)}
        points = [-mp.inf, *sorted(points), mp.inf]
        return [mp.log(mp.quad(lambda x, r=r: mp.exp(-abs(x - q[r])) / 2 * mp.fprod(
            cdf(x - q[s]) for s in range(len(q)) if s != r), points))
            for r in range(len(q))]


def test_log_probabilities_far_below_the_top_against_tanh_sinh():
    """Two candidates near the top, one 451.5 scales below (probability about 1e-196:
    the log of the pmf) and one 601.75 below (about 1e-261: the log-space quadrature)."""
    scores, scale = [3.0, 0.0, -900.0, -1200.5], 2.0
    ours = laplace_noisy_max_logpmf(np.array(scores), scale)
    reference = np.array([float(v) for v in tanh_sinh_log_pmf(scores, scale)])
    assert reference[-1] < math.log(1e-250)
    np.testing.assert_allclose(ours, reference, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("gap", [600.0, 2000.0, 32751.5, 1e5])
@pytest.mark.parametrize("scale", [1e-300, 0.5, 1e300])
def test_two_candidates_log_closed_form(gap, scale):
    """``log((2 + g) e^{-g} / 4)`` for the lower candidate, where the probability itself
    is below the double range or only absolutely accurate."""
    logs = laplace_noisy_max_logpmf(np.array([0.0, -gap * scale]), scale)
    exact = float(-mp.mpf(gap) + mp.log(2 + mp.mpf(gap)) - mp.log(4))
    assert logs[1] == pytest.approx(exact, rel=1e-14)
    assert abs(logs[0]) <= 1e-14           # log(1 - tiny), as accurate as the pmf


@pytest.mark.parametrize("gap", [30.0, 700.0, 1e4, 32751.5, 1e6, 1e10, 1e100, 1e300, 1.7e308])
def test_two_candidates_log_closed_form_at_any_gap(gap):
    """The far tail in closed form beyond ``R`` scales (module docstring): the lower
    candidate's ``log((2 + g) e^-g / 4)`` to 1e-15 relative at gaps from 30 to 1.7e308
    scales; the top's ``-(2 + g) e^-g / 4`` to 1e-13 relative where it is a normal double
    (log1p of the other), and 0 or subnormal below."""
    logs = laplace_noisy_max_logpmf(np.array([0.0, -gap]), 1.0)
    with mp.workdps(40):
        g = mp.mpf(gap)
        exact = -g + mp.log(2 + g) - mp.log(4)
        assert logs[1] == pytest.approx(float(exact), rel=1e-15)
        top = -mp.exp(exact)
        if abs(top) > 1e-300:
            assert logs[0] == pytest.approx(float(top), rel=1e-13)
        else:
            assert -1e-300 <= logs[0] <= 0.0


@pytest.mark.parametrize("scores", [(0.0, -1e10, -1e10), (0.0, -50.0, -1e6),
                                    (0.0, -3.0, -1e8, -2e8), (0.0, 0.0, -2000.0, -2000.5),
                                    (0.0, -1e5, -1e5 - 3, -2e5)])
def test_far_apart_groups_against_the_closed_form_reference(scores):
    """Several candidates far apart (stretches of up to 1e10 scales): every log-probability
    within 1e-15 relative (and 1e-300 absolute: a top within e^-690 of 1 rounds to -0) of
    the exact piecewise-exponential integral at 50 digits."""
    ours = laplace_noisy_max_logpmf(np.array(scores), 1.0)
    reference = log_pmf_mp("rnm_laplace", 2, scores)         # scale 2 / eps = 1
    for value, exact in zip(ours, reference):
        assert abs(value - float(exact)) <= 1e-15 * abs(float(exact)) + 1e-300


@pytest.mark.parametrize("gap", [1e3, 1e6, 1e12, 1e300])
def test_cost_of_a_far_tail_does_not_grow_with_the_gap(gap):
    """The log-space grid of a tiny probability: at most ``R + 45 + log S`` scales of
    panels whatever the gap (before: panels of at most 20 scales over the whole gap, 5 GB
    and more than 150 s at 1e308), so the same number of nodes from 1e3 to 1e300."""
    values, counts = np.array([0.0, -gap]), np.array([1, 1])
    anchor, offset, weights, far = _log_space_nodes(values, counts, -gap, 45.0)
    assert anchor.size == offset.size == weights.size <= 3000
    assert far.size == (1 if gap > 100 else 0)
