"""The generalised-exponential-mechanism score transform in O(n log n).

Raskhodnikova & Smith (2015) turn scores ``q_a`` with candidate-wise sensitivities
``Δ_a > 0`` into normalised scores (heterogeneous-sensitivities paper, eqns 6-7)

    q'_a = min_b [(q_a - q_b) - t (Δ_a - Δ_b)] / (Δ_a + Δ_b)  <=  0          (7)

(``b = a`` gives 0).  If every ``q_a`` moves by at most ``Δ_a`` between neighbouring
datasets, each ratio moves by at most 1, so ``q'`` has sensitivity at most 1 for every
fixed ``t``.

Method.  With ``u_b = q_b - t Δ_b``, the ratio in (7) is the slope of the segment from
``P_b = (-Δ_b, u_b)`` to ``A_a = (Δ_a, u_a)``, and ``A_a`` lies to the right of every
``P_b``.  The smallest slope from a point to the right of a point set is attained on the
upper convex hull of the set, at the tangent vertex: the first hull vertex whose outgoing
edge has ``A_a`` on or above its supporting line (that predicate is monotone along the
hull, because the edge lines evaluated right of the hull decrease along it).  So:

1. sort by ``Δ`` and keep, for each distinct ``Δ``, the largest ``u`` (``O(n log n)``);
2. upper hull: a prefix/suffix-maximum filter (after shearing by the end-to-end chord)
   deletes every point lower than some point on each side of it; then vectorised pruning
   passes delete every point lying on or below the
   chord of its two current neighbours (such a point is never a hull vertex) until a pass
   deletes nothing; if that takes more than 24 passes, Andrew's monotone chain (a Python
   loop, ``O(n)`` after sorting) finishes the rest;
3. a branch-free binary search per query over the hull edges, all queries at once
   (``O(n log h)``);
4. ``q'_a`` evaluated with formula (7) itself at the tangent vertex and its two
   neighbours (so a rounding-level misjudged tangent cannot matter), capped at 0.

Accuracy: the result is formula (7) evaluated in floating point at a minimising ``b``;
it agrees with the ``O(n^2)`` definition :func:`gem_scores_reference` to rounding
(tests: relative 1e-12 of the score scale).  10^6 candidates take about a second.
"""

from __future__ import annotations

import numpy as np

from optmech.heterogeneous.inputs import check_scores_and_sensitivities
from optmech.validation import check_finite

__all__ = ["gem_scores", "gem_scores_reference"]

_MAX_PASSES = 24    # vectorised pruning passes before the sequential monotone chain
_BLOCK = 1 << 22    # pairs per block in the quadratic reference


def _remove_below_chords(x: np.ndarray, y: np.ndarray, alive: np.ndarray) -> np.ndarray:
    """One pass: drop every interior point on or below the chord of its neighbours."""
    a, b, c = alive[:-2], alive[1:-1], alive[2:]
    cross = (x[b] - x[a]) * (y[c] - y[a]) - (y[b] - y[a]) * (x[c] - x[a])
    keep = np.ones(alive.size, dtype=bool)
    keep[1:-1] = cross < 0
    return alive[keep]


def _monotone_chain(x: np.ndarray, y: np.ndarray, alive: np.ndarray) -> np.ndarray:
    """Andrew's monotone chain (upper half) over ``alive`` (x strictly increasing)."""
    hx, hy, hi = [], [], []
    for i, xi, yi in zip(alive.tolist(), x[alive].tolist(), y[alive].tolist()):
        while len(hi) >= 2 and \
                (hx[-1] - hx[-2]) * (yi - hy[-2]) - (hy[-1] - hy[-2]) * (xi - hx[-2]) >= 0:
            hx.pop(), hy.pop(), hi.pop()
        hx.append(xi), hy.append(yi), hi.append(i)
    return np.array(hi, dtype=np.int64)


def _dominated(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Points below some chord: after shearing by the slope of the end-to-end chord, a
    point lower than some point on its left and some point on its right."""
    if x.size < 3:
        return np.zeros(x.size, dtype=bool)
    z = y - (y[-1] - y[0]) / (x[-1] - x[0]) * x
    left = np.maximum.accumulate(z)
    right = np.maximum.accumulate(z[::-1])[::-1]
    out = np.zeros(x.size, dtype=bool)
    out[1:-1] = z[1:-1] < np.minimum(left[:-2], right[2:])
    return out


def _upper_hull(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Indices of the upper-hull vertices of points with strictly increasing ``x``."""
    alive = np.flatnonzero(~_dominated(x, y))
    for _ in range(_MAX_PASSES):
        if alive.size <= 2:
            return alive
        pruned = _remove_below_chords(x, y, alive)
        if pruned.size == alive.size:
            return alive
        alive = pruned
    return _monotone_chain(x, y, alive)


def _tangent_vertices(hx: np.ndarray, hy: np.ndarray, ax: np.ndarray, ay: np.ndarray
                      ) -> np.ndarray:
    """For each query ``(ax, ay)`` right of the hull, the vertex of smallest slope to it.

    That is the first edge ``i`` whose supporting line ``c_i + s_i x`` passes on or below
    the query (or the last vertex).  Branch-free binary search, all queries in lock-step:
    the edge arrays are padded to a power of two with lines at -inf, so every step is a
    gather, a comparison and an add (``ceil(log2 h)`` vectorised steps).
    """
    size = 1 << max(0, int(hx.size - 1).bit_length())
    slope = np.zeros(size)
    intercept = np.full(size, -np.inf)
    slope[:hx.size - 1] = np.diff(hy) / np.diff(hx)
    intercept[:hx.size - 1] = hy[1:] - slope[:hx.size - 1] * hx[1:]
    first = np.zeros(ax.size, dtype=np.int64)
    step = size >> 1
    while step:
        probe = first + (step - 1)
        np.add(first, step, out=first, where=ay < intercept[probe] + slope[probe] * ax)
        step >>= 1
    return first


def gem_scores(scores, sensitivities, t: float) -> np.ndarray:
    """Normalised GEM scores ``q'`` of eqn (7), in ``O(n log n)``.

    Returns ``q'`` with ``q'_a <= 0`` and ``max_a q'_a = 0``; see the module docstring.

    Parameters
    ----------
    scores
        candidate scores ``q_a`` (finite).
    sensitivities
        candidate-wise sensitivities ``Δ_a > 0``, same length.
    t
        the shift ``t`` (GEM uses ``2 log(n/β)/ε``, mGEM its negative).
    """
    q, d = check_scores_and_sensitivities(scores, sensitivities)
    t = check_finite(t, "t")
    u = q - t * d
    order = np.argsort(d, kind="stable")
    d_sorted, u_sorted = d[order], u[order]
    starts = np.flatnonzero(np.r_[True, d_sorted[1:] != d_sorted[:-1]])
    group_top = np.maximum.reduceat(u_sorted, starts)
    # candidate index of each group's top u: the first position reaching the maximum
    sizes = np.diff(np.r_[starts, d_sorted.size])
    is_top = u_sorted == np.repeat(group_top, sizes)
    first_top = np.minimum.reduceat(np.where(is_top, np.arange(d_sorted.size), d_sorted.size),
                                    starts)
    representative = order[first_top][::-1]          # increasing x = -Δ
    x, y = -d[representative], u[representative]
    hull = _upper_hull(x, y)
    vertex = _tangent_vertices(x[hull], y[hull], d, u)
    hull_q, hull_d = q[representative[hull]], d[representative[hull]]
    best = np.zeros(q.size)
    for shift in (-1, 0, 1):
        b = np.clip(vertex + shift, 0, hull.size - 1)
        best = np.minimum(best, ((q - hull_q[b]) - t * (d - hull_d[b])) / (d + hull_d[b]))
    return best


def gem_scores_reference(scores, sensitivities, t: float) -> np.ndarray:
    """Eqn (7) by its definition: all ``n^2`` pairs (vectorised in blocks of rows).

    The independent reference for :func:`gem_scores`; use it only for small ``n``.
    """
    q, d = check_scores_and_sensitivities(scores, sensitivities)
    t = check_finite(t, "t")
    out = np.empty(q.size)
    rows = max(1, _BLOCK // q.size)
    for start in range(0, q.size, rows):
        a = slice(start, start + rows)
        ratios = ((q[a, None] - q[None, :]) - t * (d[a, None] - d[None, :])) \
            / (d[a, None] + d[None, :])
        out[a] = ratios.min(axis=1)
    return out
