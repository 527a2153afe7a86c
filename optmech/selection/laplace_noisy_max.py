"""Exact output probabilities of report-noisy-max with i.i.d. Laplace noise, at any size.

For scores ``q_1..q_n`` and noise ``b * Y`` with ``Y`` standard Laplace (``b = 2Δ/ε``, or
``Δ/ε`` for monotonic scores; permute-and-flip paper, Appendix F), write
``y_s = (q_s - q*) / b <= 0`` (the top score is 0, so the result depends on the scores only
through their gaps in scale units: shift, unit and order of the scores do not matter) and
``F``, ``f`` for the standard Laplace cdf and density.  With ``G(x) = prod_s F(x - y_s)``,
the cdf of the noisy maximum, and the reversed hazard ``h = f / F`` (``h(z) = 1`` for
``z < 0``, ``h(z) = e^{-z} / (2 - e^{-z})`` for ``z >= 0``),

    Pr[r] = integral f(x - y_r) prod_{s != r} F(x - y_s) dx = integral G(x) h(x - y_r) dx.

The integrand is smooth except at the scores, where ``F`` changes branch.  Equal scores
share one factor ``F^count`` and one probability.

Window ``[lo, hi]``.  Above: ``1 - G(hi) <= sum_s e^{y_s - hi} / 2``, so
``hi = log(S / (2 TAIL))`` with ``S = sum_s e^{y_s}`` leaves out mass ``TAIL = 1e-17``;
since ``e^{-z}/2 <= h(z) <= e^{-z}`` for ``z >= 0``, that is also at most about
``5 TAIL`` of every single probability.  Below: with ``phi_r(x) = min(1, e^{y_r - x})``,
``h(x - y_r)`` lies in ``[phi_r / 2, phi_r]`` and ``phi_r`` falls at most like ``e^{-x}``,
so for every candidate the mass below ``lo`` is at most ``2 R(lo)`` times the mass above,
``R(lo) = int_{-inf}^{lo} G e^{-x} / int_{lo}^{inf} G e^{-x}``.  With the scores sorted
``z_1 = 0 >= z_2 >= ...`` (ties counted), ``G(x) <= prod_{i <= j} e^{x - z_i} / 2`` below
``z_j`` and ``int_{log S}^{inf} G e^{-x} >= 3 / (4S)``, so

    R(z_j) <= 2^{-j} exp(sum_{2 <= i <= j} (z_j - z_i)) * 4S / (3 (j - 1))     (j >= 2).

``lo`` is the first distinct score whose bound is <= TAIL (then every probability keeps a
relative truncation error below 2e-17), but not below ``log(2 FLOOR)`` with
``FLOOR = 1e-250``, where ``G <= FLOOR`` (then the error is below 1e-250 absolute: only
probabilities under about 1e-245 lose relative accuracy, e.g. two candidates more than
565 scales apart).  The bound is <= TAIL once ``j >= log2(4S / (3 TAIL))``, so at most
``ceil(log2(4S / (3 TAIL))) + 1 <= 78`` distinct scores lie in ``[lo, 0]`` for ``n <= 10^6``
(58 when the top stands alone, ``S`` near 1), whatever the number of candidates.

Head and bulk.  The distinct scores ``>= lo`` (the head) are panel edges for
Gauss–Legendre with ``NODES = 16`` nodes per panel.  The integrand is analytic between
edges; its singularities lie ``log 2`` or more below a score (where ``1 - e^{-z}/2``
vanishes).  Panels above the top are ``PANEL = 1/2`` long; a stretch below it between two
edges is graded from its lower end (width ``max(1/2, d/2)`` at distance ``d``), which keeps
the Bernstein ellipse ratio ``rho >= 7.4`` (16-node error ``~ rho^{-32} < 1e-27``
relative), and capped at ``RATE_WIDTH / m = 20 / m`` where ``m`` candidates lie above it
(the integrand grows like ``e^{m x}``; 16 nodes integrate ``e^{c x}`` over a width ``w``
with ``c w <= 20`` to 2e-15).  The bulk (scores ``< lo``, possibly 10^6 of them) never
changes branch on the window: with coins ``a_s = e^{y_s - lo} < 1`` and
``t = e^{-(x - lo)} in (0, 1]``,

    sum_{bulk} log F(x - y_s) = sum_s count_s log1p(-a_s t / 2) =: Psi(t),
    Pr[bulk s] = a_s * Phi(a_s),  Phi(a) = sum_j W_j t_j / (2 - a t_j),

where ``W_j = w_j G(x_j)`` are the weighted quadrature nodes.  ``Psi(t) / t`` and
``Phi(a)`` are analytic on a disc of radius 2 around [0, 1] (the singularity is where
``a t = 2``), so each is interpolated from ``CHEBYSHEV = 32`` Chebyshev points on [0, 1]
(``numpy.polynomial.Chebyshev.interpolate``): the truncation error is of order
``5.8^{-32} ~ 1e-24`` relative, and measured errors are at the rounding level of the
interpolant (relative 1e-14 at worst in every bulk probability, so tiny probabilities
keep their digits).  This replaces a sum over ``n`` candidates at every quadrature node by
one at each of 32 points.

Precision.  Truncation 2e-17 relative (1e-250 absolute below ``FLOOR``), quadrature and
interpolation below 1e-24, rounding of order 1e-16 per probability: tests find every
probability within 1e-14 absolute and 1e-13 relative (above 1e-250) of an independent
50-digit mpmath quadrature (n <= 200, ties, gaps of 10^6 scale units, scores near +-1e9,
scales 1e-11 and 4e12), and sums within 1e-14 of 1.  The sum is checked: off by more
than ``SUM_TOLERANCE = 1e-12`` raises :class:`IntegrationError` rather than returning a
wrong number (not observed on any input).  Probabilities are >= 0; permuting the scores
permutes the result bit for bit (only the multiset of gaps enters).

Why this method.  The general quadrature of :mod:`optmech.selection.noisy_max` puts a
panel edge at every distinct score that can reach its window, so its cost grows like the
square of the number of distinct scores near the top (10^4 distinct N(0, 9) scores at
scale 2: 35 s).  Here at most ``log2(4n / 3e-17) + 1`` scores are edges and the rest enters
through two Chebyshev interpolants: 10^5 distinct scores take 0.068 s, 10^6 take 0.43 s
with a peak of 88 MiB (``benchmarks/results/rnm_laplace.md``, shared 2-core machine).
``log F`` and ``h`` are evaluated by :func:`laplace_log_cdf_and_hazard` from one ``exp``
per node rather than by ``scipy.stats.laplace`` (tests check them against it): its
``logcdf``, ``pdf`` and ``cdf`` took 5.7x as long on 3 x 20,000 points (11.4 ms against
2.0 ms), and its ``logcdf`` is ``log(cdf)`` below the median: it loses digits below -708
(subnormal ``cdf``) and is ``-inf`` below -745.

Log-probabilities (:func:`laplace_noisy_max_logpmf`).  ``log`` of the pmf where it is at
least ``TINY = 1e-200`` (relative error 1e-14 there).  Below, the pmf keeps only absolute
accuracy (``FLOOR``) or underflows (two candidates 32,751.5 scales apart: about
``e^{-32742}``), so each such distinct score ``v`` gets its own quadrature in log space.
With ``k(z) = e^z h(z)`` (``e^z`` below 0, ``1 / (2 - e^{-z})`` above, so ``k`` is in
``(0, 1]``),

    Pr[r] = e^{v} integral e^{-x} G(x) k(x - v) dx,

and the integrand ``e^{-x} G(x) k(x - v)`` is a double of ordinary size wherever it
matters, so ``log Pr[r] = v + logsumexp_j (log w_j + log G(x_j) - x_j + log k(x_j - v))``.
Window: below ``v - LOG_BELOW`` (30 scales) the integrand falls like ``e^{m (x - v)}``
with ``m >= 2`` candidates at or above ``v`` (relative mass below ``e^{-60}``); above
``log S + 45`` it is at most ``e^{-x}`` against a total of at least ``1 / (4S)``
(relative ``4e-20``).  Panels: every distinct score inside is an edge, with the grading
and the rate cap of the pmf's grid (:func:`_nodes`; the log slope of this integrand is
at most the rate used there).

Far stretches.  Between two consecutive distinct scores ``a < c <= 0`` with ``N``
candidates at or above ``c``, a point ``x >= a + R`` (``R = 40 + log n`` scales, the
"reach") sees every lower candidate at least ``R`` scales below it: each factor
``F(x - l) = 1 - e^{-(x - l)}/2`` lies in ``[1 - e^{-R}/2, 1]``, their product in
``[1 - n e^{-R}/2, 1]``, and ``2 k(x - v) = 1 / (1 - e^{-(x - v)}/2)`` in ``[1, 1 + e^{-R}]``
(``v <= a``).  So there the integrand is ``e^{v - x} prod_{l_i >= c} (e^{x - l_i}/2)^{c_i} / 2``,
a single exponential ``e^{(N - 1) x}`` times a constant, within ``(n/2 + 1) e^{-R} <=
e^{-40}`` relative, and ``[a + R, c]`` is integrated in closed form
(:func:`_far_stretch_log_integrals`); only ``[a, a + R]`` gets panels.  Every node is kept
as ``anchor + offset`` with the anchor a score, and ``x - l`` as ``(anchor - l) +
offset``, so a node 3 scales above a score at -1e300 is still 3 scales above it.  The
panels of a tiny score's integral are therefore at most ``R + 45 + log S`` scales long
in all, whatever the gaps: ``ReportNoisyMax(1.0).logpmf([1e308, -1e308])`` took over 150 s
and 5 GB before (panels of at most 20 scales over 10^308), 2 ms now.  The error of a
log-probability is then of the order of its own rounding, ``1e-16 |log p|`` (an absolute
``1e-6`` at a gap of ``1e10`` scales: the double nearest ``log p``).  Tests compare with
the exact piecewise-exponential integral at 50 digits
(:mod:`optmech.privacy.high_precision`) and with the two-candidate closed form
``Pr = (2 + g) e^{-g} / 4`` at gaps from 30 to 1.7e308 scales.
Cost: ``16 * panels * U`` evaluations per tiny distinct score (``U`` distinct scores),
refused beyond the work budget.

Cost: ``O(n log n)`` for grouping equal scores, ``O(U * CHEBYSHEV)`` for the ``U``
distinct scores, and ``O(H * J)`` for the ``H <= 78`` head scores and the ``J`` nodes
(``16 * 2 * hi`` above the top, ``hi <= 37 + log n``, plus a few graded panels per
stretch below it); memory ``O(n)`` (the bulk is processed in blocks of 2^16).
"""

from __future__ import annotations

import math

import numpy as np

from optmech.progress import progress
from optmech.selection.iid_noisy_max import (
    NoiseFamily,
    check_total,
    grid_probabilities,
    iid_noisy_max_logpmf,
    iid_noisy_max_pmf,
)
from optmech.selection.noisy_max import TAIL
from optmech.validation import InvalidArgumentError

__all__ = [
    "CHEBYSHEV",
    "FLOOR",
    "LAPLACE",
    "NODES",
    "PANEL",
    "RATE_WIDTH",
    "LaplaceFamily",
    "laplace_level_probabilities",
    "laplace_log_cdf_and_hazard",
    "laplace_noisy_max_logpmf",
    "laplace_noisy_max_pmf",
]

FLOOR = 1e-250
PANEL = 0.5
RATE_WIDTH = 20.0
NODES = 16
CHEBYSHEV = 32
_BLOCK = 1 << 16
_RULE = np.polynomial.legendre.leggauss(NODES)
_LOG_LOW = math.log(2 * TAIL)  # G(x) <= F(x) <= TAIL for x <= _LOG_LOW
_LOG_FLOOR = math.log(2 * FLOOR)  # G(x) <= FLOOR for x <= _LOG_FLOOR
LOG_BELOW = 30.0    # a tiny level's log-space window starts this many scales below it


def _total_coin(values: np.ndarray, counts) -> float:
    """``S = sum counts e^{values}`` (>= 1: the top value is 0)."""
    return float(np.dot(counts, np.exp(values)))


def _lower_edge(values: np.ndarray, counts: np.ndarray, total_coin: float) -> float:
    """``lo``: the first distinct value (descending ``values``, top 0) at which the bound
    ``R_u`` on the relative mass below it is <= TAIL, or ``log(2 FLOOR)`` if that is higher
    (module docstring)."""
    head = min(values.size, _head_limit(total_coin))
    v, c = values[:head], counts[:head].astype(float)
    others = c.copy()
    others[0] -= 1                                  # z_2, z_3, ...: all but one top
    reached = np.cumsum(c)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        spread = np.tril(v[:, None] - v[None, :]) @ others  # sum_{i>=2} (z_j - z_i) <= 0
        log_ratio = (spread - reached * math.log(2) - np.log(reached - 1)
                     + math.log(4 * total_coin / 3))
    below = np.flatnonzero((reached >= 2) & (log_ratio <= math.log(TAIL)))
    edge = float(v[below[0]]) if below.size else -math.inf
    return max(_LOG_FLOOR, edge)


def _head_limit(total_coin: float) -> int:
    """Distinct values that can lie above ``lo``: ``R_u <= 2^{-N_u} 4S/3`` is <= TAIL once
    ``N_u >= log2(4S / (3 TAIL))``."""
    return math.ceil(math.log2(4 * total_coin / (3 * TAIL))) + 1


def _upper_edge(total_coin: float) -> float:
    """``hi = log(S / (2 TAIL))``: ``1 - G(hi) <= sum_s e^{y_s - hi} / 2 = TAIL``."""
    return math.log(total_coin / (2 * TAIL))


def _panels(length: float, rate: float) -> np.ndarray:
    """Panel ends (distances from the lower end) covering ``[0, length]`` below the top:
    widths ``max(PANEL, d / 2)`` at distance ``d`` from the lower end (the integrand's
    singularities lie ``log 2`` or more below it, so the Bernstein ratio stays >= 7.4) and
    at most ``RATE_WIDTH / rate`` (the integrand grows like ``e^{rate x}``)."""
    ends, d = [], 0.0
    cap = RATE_WIDTH / rate
    while d < length:
        d += min(max(PANEL, d / 2), cap)
        ends.append(min(d, length))
    return np.array(ends)


def _nodes(lo: float, hi: float, levels: np.ndarray, above: np.ndarray,
           reach: float = math.inf) -> tuple[np.ndarray, np.ndarray, np.ndarray, list]:
    """Gauss–Legendre nodes on ``[lo, hi]``, ``NODES`` per panel, as ``(anchor, offset,
    weight)`` per node (the node is ``anchor + offset``), and the long stretches left to a
    closed form.

    Panel edges at 0 and at the ``levels`` (descending; ``above[u]`` candidates at or above
    ``levels[u]``) inside the window.  Above 0: panels of ``PANEL``.  A stretch below 0 is
    graded from its lower end by :func:`_panels` with ``rate`` = the candidates at or above
    its upper end, and is laid out from that upper end, so a node's rounding is relative
    to its own distance from the nearer cut (a stretch can reach from -575 to near 0).  A
    stretch ``(a, c)`` below 0 longer than ``reach`` gets panels on ``[a, a + reach]`` only,
    laid out from ``a`` (which may be -1e300: ``a + reach`` would round to ``a``), and
    ``(a, c, rate)`` is listed for :func:`_far_stretch_log_integrals`.
    """
    inside = (levels > lo) & (levels < hi)
    cuts = np.unique(np.concatenate([[lo, hi, 0.0], levels[inside]]))
    anchors, left, right, far = [], [], [], []
    for a, c in zip(cuts[:-1], cuts[1:], strict=True):
        if c <= 0:
            rate = float(above[np.searchsorted(-levels, -c, side="right") - 1])
            length = min(c - a, reach)
            ends = _panels(length, rate)
            starts = np.concatenate([[0.0], ends[:-1]])
            if c - a > reach:
                far.append((float(a), float(c), rate))
                anchors.append(np.full(ends.size, a))
                left.append(starts)
                right.append(ends)
            else:
                anchors.append(np.full(ends.size, c))
                left.append(starts - length)
                right.append(ends - length)
        else:
            pieces = max(1, math.ceil((c - a) / PANEL))
            edges = np.linspace(0.0, c - a, pieces + 1)
            anchors.append(np.full(pieces, a))
            left.append(edges[:-1])
            right.append(edges[1:])
    anchor, start, end = (np.concatenate(v)[:, None] for v in (anchors, left, right))
    x, w = _RULE
    half = 0.5 * (end - start)
    return (np.broadcast_to(anchor, (anchor.size, NODES)).ravel(),
            (start + half * (x + 1)).ravel(), (half * w).ravel(), far)


def laplace_log_cdf_and_hazard(z: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``log F(z)`` and ``h(z) = f(z) / F(z)`` of the standard Laplace law from one
    ``exp(-|z|)``: ``(z - log 2, 1)`` for ``z < 0``, ``(log1p(-e/2), e / (2 - e))`` with
    ``e = e^{-z}`` for ``z >= 0``.  Exact to rounding for every finite ``z`` (tests compare
    with ``scipy.stats.laplace`` above -708, where its ``log(cdf)`` is still normal)."""
    e = np.exp(-np.abs(z))
    negative = z < 0
    return (np.where(negative, z - math.log(2), np.log1p(-0.5 * e)),
            np.where(negative, 1.0, e / (2.0 - e)))


class LaplaceFamily(NoiseFamily):
    """The standard Laplace law for :mod:`optmech.selection.iid_noisy_max`: its window,
    head and bulk (module docstring)."""

    name = "laplace"
    seconds_per_term = 5e-8

    def log_cdf(self, z):
        return laplace_log_cdf_and_hazard(z)[0]

    def hazard(self, z):
        return laplace_log_cdf_and_hazard(z)[1]

    def log_hazard(self, z):
        # log h = log k - z with k(z) = e^z h(z): 0 below 0, -z - log(2 - e^-z) above
        return np.where(z < 0, 0.0, -z - np.log(2.0 - np.exp(-np.abs(z))))

    def level_probabilities(self, values, counts):
        total_coin = _total_coin(values, counts)
        lo = _lower_edge(values, counts, total_coin)
        hi = _upper_edge(total_coin)
        head = values >= lo
        anchor, offset, w, _ = _nodes(lo, hi, values[head], np.cumsum(counts[head]))
        x = anchor + offset
        t = np.exp(lo - x)                              # t = e^{-(x - lo)} in (0, 1]
        coins = np.exp(values[~head] - lo)              # bulk coins a = e^{y - lo} < 1
        extra = t * _bulk_log_cdf(coins, counts[~head].astype(float))(t) if coins.size else 0.0
        probs = np.empty(values.size)
        probs[head], weights = grid_probabilities(x, w, values[head], counts[head], self, extra)
        if coins.size:
            probs[~head] = _bulk_probabilities(coins, t, weights)
        return probs

    def log_space_grid(self, values, counts, v):
        return _log_space_nodes(values, counts, v, math.log(_total_coin(values, counts)) + 45.0)


LAPLACE = LaplaceFamily()


class _Grid:
    """The quadrature grid on ``[lo, hi]`` for standardised ``levels`` (panel edges at the
    levels inside the window) and, per level, ``log F`` and ``h`` at the nodes: one grid for
    many rows of counts (:func:`laplace_level_probabilities`)."""

    def __init__(self, levels: np.ndarray, above: np.ndarray, lo: float, hi: float):
        anchor, offset, self.w, _ = _nodes(lo, hi, levels, above)
        self.x = anchor + offset
        # (levels, nodes); z >= lo - 0 >= log 2 FLOOR
        self.log_cdf, self.hazard = laplace_log_cdf_and_hazard(self.x[None, :] - levels[:, None])

    def probabilities(self, counts: np.ndarray) -> np.ndarray:
        """``sum_j w_j G(x_j) h(x_j - level)`` per level for each row of ``counts`` (items
        per level), by matrix products."""
        return (self.w * np.exp(counts @ self.log_cdf)) @ self.hazard.T


def _bulk_log_cdf(coins: np.ndarray, counts: np.ndarray) -> np.polynomial.Chebyshev:
    """Chebyshev interpolant of ``Psi(t) / t = sum counts * log1p(-coins t / 2) / t`` on
    ``t in [0, 1]`` (coins < 1)."""
    def psi_over_t(t):
        total = np.zeros_like(t)
        for start in range(0, coins.size, _BLOCK):
            a, c = coins[start:start + _BLOCK], counts[start:start + _BLOCK]
            total += (np.log1p(-0.5 * np.outer(t, a)) * c).sum(axis=1)  # pairwise sums
        return total / t

    return np.polynomial.Chebyshev.interpolate(psi_over_t, CHEBYSHEV - 1, domain=[0, 1])


def _bulk_probabilities(coins: np.ndarray, t: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """``a * Phi(a)`` with ``Phi(a) = sum_j W_j t_j / (2 - a t_j)`` for every coin ``a``,
    through its Chebyshev interpolant on [0, 1]."""
    def phi(a):
        return (weights * t / (2.0 - np.outer(a, t))).sum(axis=1)

    interpolant = np.polynomial.Chebyshev.interpolate(phi, CHEBYSHEV - 1, domain=[0, 1])
    out = np.empty_like(coins)
    for start in range(0, coins.size, _BLOCK):
        a = coins[start:start + _BLOCK]
        out[start:start + _BLOCK] = a * interpolant(a)
    return out


def laplace_noisy_max_pmf(scores, scale: float) -> np.ndarray:
    """``Pr[argmax_r (q_r + Z_r) = r]`` for i.i.d. ``Z_r ~ Laplace(0, scale)``.

    Every probability is within about 1e-15 absolute and 1e-14 relative of the exact
    value (relative above ``FLOOR = 1e-250``, within ``FLOOR`` below), and the sum is
    checked to be 1 within 1e-12 (method, precision and cost in the module docstring; the
    path shared with the Gaussian noise: :mod:`optmech.selection.iid_noisy_max`).
    Raises :class:`~optmech.validation.InvalidArgumentError` on bad input and
    :class:`~optmech.selection.noisy_max.IntegrationError` if the check fails.

    Parameters
    ----------
    scores
        1-D array of finite scores (any magnitude up to the float range).
    scale
        the noise scale ``b > 0`` (``2Δ/ε`` for report-noisy-max, ``Δ/ε`` for
        monotonic scores).
    """
    return iid_noisy_max_pmf(scores, scale, LAPLACE)


def laplace_level_probabilities(levels, counts, *, show_progress: bool | None = None,
                                desc: str = "rnm-laplace") -> np.ndarray:
    """Report-noisy-max with Laplace noise on many score vectors that share their levels.

    ``levels`` are standardised scores ``(q - q*) / b``, strictly decreasing from
    ``levels[0] == 0``; row ``i`` of ``counts`` says how many candidates sit at each level,
    with ``counts[i, 0] >= 1``.  Returns ``P[i, u]``, the probability of one particular
    candidate at level ``u`` in vector ``i``.  The quadrature of
    :func:`laplace_noisy_max_pmf` on one grid for all rows: ``lo = log(2 TAIL)`` bounds
    every row's ``G`` by ``TAIL`` (each row has a candidate at 0), ``hi`` is the largest
    row's upper edge, every level inside the window is a panel edge, panels below the top
    are graded for the most candidates any row has at or above each level; then
    ``P = (w * exp(counts @ log F)) @ h`` block by block.  Precision: 1e-16 absolute
    (the window is cut by mass, not by the relative bound, which would make it up to 600
    scales long for every row); probabilities below about 1e-15 are therefore only
    absolutely accurate, which is what expected errors and their ratios need.  Each row's
    probabilities must sum to 1 within ``SUM_TOLERANCE``.
    """
    levels = np.asarray(levels, dtype=float)
    counts = np.asarray(counts)
    if (levels.ndim != 1 or levels.size == 0 or levels[0] != 0
            or not (np.isfinite(levels).all() and (np.diff(levels) < 0).all())):
        raise InvalidArgumentError("levels", levels,
                                   "finite numbers decreasing strictly from 0")
    if counts.ndim != 2 or counts.shape[1] != levels.size or not (counts >= 0).all() \
            or not (counts[:, 0] >= 1).all():
        raise InvalidArgumentError("counts", counts,
                                   "a 2-D array of counts >= 0, one column per level, "
                                   "the first column >= 1")
    hi = _upper_edge(_total_coin(levels, counts.max(axis=0)))
    grid = _Grid(levels, np.cumsum(counts, axis=1).max(axis=0), _LOG_LOW, hi)
    probs = np.empty(counts.shape)
    block = max(1, (1 << 22) // grid.x.size)
    starts = range(0, counts.shape[0], block)
    for start in progress(starts, total=len(starts), desc=desc, enabled=show_progress):
        probs[start:start + block] = grid.probabilities(counts[start:start + block].astype(float))
    check_total((counts * probs).sum(axis=1), "report-noisy-max level probabilities")
    return probs


def laplace_noisy_max_logpmf(scores, scale: float) -> np.ndarray:
    """``log Pr[argmax_r (q_r + Z_r) = r]`` for i.i.d. ``Z_r ~ Laplace(0, scale)``, finite
    for every candidate: ``log`` of :func:`laplace_noisy_max_pmf` where the probability is
    at least ``TINY``, a quadrature in log space below (module docstring), so a candidate
    thousands of scales below the top gets its log-probability, not ``-inf`` (``-inf`` only
    beyond -1.8e308: a gap beyond the double range in scale units).  A top probability above
    1/2 has ``log1p(-(sum of the others))``
    (:func:`~optmech.selection.scores.log_top_from_rest`): the pmf's 1e-16 absolute accuracy
    near 1 would leave its logarithm only that.  Raises as :func:`laplace_noisy_max_pmf`,
    and :class:`~optmech.validation.ResourceLimitError` naming ``scores`` when the log-space
    quadratures would exceed the work budget (the shared path:
    :func:`~optmech.selection.iid_noisy_max.iid_noisy_max_logpmf`)."""
    return iid_noisy_max_logpmf(scores, scale, LAPLACE)


def _log_space_nodes(values, counts, v: float, hi: float) -> tuple:
    """The pmf's grid (:func:`_nodes`) on ``[v - LOG_BELOW, hi]`` as ``(anchor, offset,
    weight)``, stretches longer than :func:`_reach` left to
    :func:`_far_stretch_log_integrals` (their logs, fourth)."""
    lo = v - LOG_BELOW
    inside = values > lo
    reach = _reach(float(counts.sum()))
    anchor, offset, w, far = _nodes(lo, hi, values[inside], np.cumsum(counts[inside]), reach)
    return anchor, offset, w, _far_stretch_log_integrals(values, counts, v, far, reach)


def _reach(candidates: float) -> float:
    """``40 + log n``: beyond this many scales above a stretch's lower end the log-space
    integrand is one exponential within ``e^{-40}`` relative (module docstring)."""
    return 40.0 + math.log(candidates)


def _far_stretch_log_integrals(values, counts, v: float, far: list, reach: float
                               ) -> np.ndarray:
    """``log int_{a + reach}^c e^{v - x} G(x) / 2 dx`` with ``G`` kept to the ``N``
    candidates at or above ``c`` (``(a, c, N)`` in ``far``): ``(v - c) + sum_{l_i >= c}
    c_i (c - l_i) - (N + 1) log 2 + log int_0^{c - a - reach} e^{-(N - 1) t} dt``."""
    out = []
    for a, c, rate in far:
        above = values >= c
        exponent = (v - c) + float(counts[above] @ (c - values[above]))
        length, kappa = (c - a) - reach, rate - 1.0
        log_length = (math.log(length) if kappa == 0.0
                      else math.log(-math.expm1(-kappa * length)) - math.log(kappa))
        out.append(exponent - (rate + 1.0) * math.log(2.0) + log_length)
    return np.array(out)
