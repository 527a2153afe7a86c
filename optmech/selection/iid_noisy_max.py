"""Report-noisy-max with i.i.d. noise of one family: the path every family shares.

For scores ``q_1..q_n`` and noise ``b * Y`` with ``Y`` i.i.d. of a standard law (cdf ``F``,
density ``f``), write ``y_s = (q_s - q*) / b <= 0`` (the top score is 0, so only the gaps in
scale units matter) and ``G(x) = prod_s F(x - y_s)``, the cdf of the noisy maximum.  With the
reversed hazard ``h = f / F``,

    Pr[r] = integral f(x - y_r) prod_{s != r} F(x - y_s) dx = integral G(x) h(x - y_r) dx.

Equal scores share one factor ``F^count`` and one probability, so everything works on the
distinct standardised scores (the *levels*, descending from 0) and their counts.  This
module is the part of that computation that does not depend on the noise:

* :func:`iid_noisy_max_pmf`: validation, standardisation
  (:func:`~optmech.selection.noisy_max.standardised_gaps`), the levels, the family's
  probabilities per level, the checks (finite, ``>= 0``, summing to 1 within
  ``SUM_TOLERANCE``: else :class:`~optmech.selection.noisy_max.IntegrationError`, never a
  wrong number);
* :func:`iid_noisy_max_logpmf`: ``log`` of the pmf where the probability is at least
  ``TINY = 1e-200``; below, each such level's probability from its own quadrature in log
  space (the family's grid around that level's integrand, the sum by :func:`log_space_sum`),
  refused up front beyond the work budget; a top probability above 1/2 from the others
  (:func:`~optmech.selection.scores.log_top_from_rest`);
* :func:`grid_probabilities`: on a quadrature grid ``(x_j, w_j)``, ``W_j = w_j G(x_j)`` and
  ``Pr = sum_j W_j h(x_j - level)`` for every level, in memory-bounded blocks of levels;
* :func:`log_space_sum`: ``log sum_j w_j G(x_j) h(x_j - v)`` with nodes given as ``anchor +
  offset`` and every ``x_j - level`` formed as ``(anchor - level) + offset`` (exact where the
  level is the anchor), so a node a few scales from a level at ``-1e300`` stays there.

The families: Laplace (:mod:`optmech.selection.laplace_noisy_max`) and Gaussian
(:mod:`optmech.selection.gaussian_noisy_max`).  A family supplies its ``log F`` and ``h``
(:meth:`NoiseFamily.log_cdf`, :meth:`NoiseFamily.hazard`, :meth:`NoiseFamily.log_hazard`),
the probability of each level (:meth:`NoiseFamily.level_probabilities`: its window,
grid and treatment of far levels, with their precision stated there) and the grid of one
tiny level's log-space quadrature with its cost (:meth:`NoiseFamily.log_space_grid`).
"""

from __future__ import annotations

import math

import numpy as np

from optmech.resources import require_work
from optmech.selection.noisy_max import SUM_TOLERANCE, IntegrationError, standardised_gaps
from optmech.selection.scores import log_top_from_rest
from optmech.validation import check_positive, check_scores

__all__ = ["NoiseFamily", "TINY", "check_total", "grid_probabilities", "iid_noisy_max_logpmf",
           "iid_noisy_max_pmf", "levels_of", "log_space_sum"]

#: Below this a log-probability gets its own quadrature in log space.
TINY = 1e-200
#: (level x node) cells per vectorised block: 16 MiB of doubles.
_CELLS = 1 << 21


class NoiseFamily:
    """What a noise family supplies to the shared path (module docstring)."""

    #: The family's name (``"laplace"``, ``"gaussian"``).
    name: str = ""
    #: CPU seconds of one (node, level) term of a log-space quadrature (an upper estimate,
    #: the work refused beyond the budget).
    seconds_per_term: float = 1e-7

    def log_cdf(self, z: np.ndarray) -> np.ndarray:
        """``log F(z)`` of the standard law, exact to rounding for every finite ``z``."""
        raise NotImplementedError

    def hazard(self, z: np.ndarray) -> np.ndarray:
        """``h(z) = f(z) / F(z)``."""
        raise NotImplementedError

    def log_hazard(self, z: np.ndarray) -> np.ndarray:
        """``log h(z)``, finite wherever ``h(z)`` underflows."""
        raise NotImplementedError

    def level_probabilities(self, values: np.ndarray, counts: np.ndarray) -> np.ndarray:
        """The probability of one candidate at each level (``values`` strictly decreasing
        from 0, at least two of them; ``counts`` >= 1)."""
        raise NotImplementedError

    def log_space_grid(self, values: np.ndarray, counts: np.ndarray, v: float) -> tuple:
        """``(anchor, offset, weight, extra)`` of the log-space quadrature of the level
        ``v``: nodes ``anchor + offset`` with weights, and the logs of any parts integrated
        in closed form (``extra``)."""
        raise NotImplementedError


def levels_of(y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(values, inverse, counts)``: the distinct standardised scores, descending (the first
    is 0), each candidate's index among them, and their multiplicities."""
    values, inverse, counts = np.unique(-y, return_inverse=True, return_counts=True)
    return -values, inverse.ravel(), counts


def check_total(total, what: str) -> None:
    """Refuse (:class:`IntegrationError`) probabilities whose sum is off 1 by more than
    ``SUM_TOLERANCE``."""
    worst = float(np.max(np.abs(np.asarray(total) - 1.0)))
    if not worst <= SUM_TOLERANCE:
        raise IntegrationError(f"{what} sum to 1 only within {worst!r} (tolerance "
                               f"{SUM_TOLERANCE}); refusing to return them")


def iid_noisy_max_pmf(scores, scale: float, family: NoiseFamily) -> np.ndarray:
    """``Pr[argmax_r (q_r + scale Y_r) = r]`` for i.i.d. ``Y_r`` of ``family`` (module
    docstring; the precision is the family's).  Raises
    :class:`~optmech.validation.InvalidArgumentError` on bad input and
    :class:`~optmech.selection.noisy_max.IntegrationError` when the checks fail."""
    q = check_scores(scores)
    b = check_positive(scale, "scale")
    if q.size == 1:
        return np.ones(1)
    values, inverse, counts = levels_of(standardised_gaps(q, b))
    if values.size == 1:
        return np.full(q.size, 1.0 / q.size)
    probs = family.level_probabilities(values, counts)
    if not (np.isfinite(probs).all() and (probs >= 0).all()):
        raise IntegrationError("report-noisy-max probabilities are not all finite and >= 0")
    check_total(counts @ probs, "report-noisy-max probabilities")
    return probs[inverse]


def iid_noisy_max_logpmf(scores, scale: float, family: NoiseFamily) -> np.ndarray:
    """``log Pr[argmax_r (q_r + scale Y_r) = r]``, finite for every candidate whose
    log-probability is a double (module docstring): ``log`` of :func:`iid_noisy_max_pmf` at
    or above ``TINY``, a quadrature in log space below; ``-inf`` for a gap beyond the double
    range in scale units.  Raises as :func:`iid_noisy_max_pmf`, and
    :class:`~optmech.validation.ResourceLimitError` naming ``scores`` when the log-space
    quadratures would exceed the work budget."""
    q = check_scores(scores)
    b = check_positive(scale, "scale")
    probs = iid_noisy_max_pmf(q, b, family)
    with np.errstate(divide="ignore"):
        out = np.log(probs)
    tiny = probs < TINY
    if not tiny.any():
        return log_top_from_rest(out[None, :])[0]
    gaps = standardised_gaps(q, b)
    values, inverse, counts = levels_of(gaps)
    beyond = gaps <= -np.finfo(float).max
    levels = np.unique(inverse[tiny & ~beyond])
    grids = [family.log_space_grid(values, counts, float(values[u])) for u in levels]
    require_work(family.seconds_per_term * values.size * sum(g[1].size for g in grids),
                 "scores", f"{q.size} scores")
    for u, grid in zip(levels, grids, strict=True):
        out[inverse == u] = log_space_sum(values, counts, float(values[u]), *grid,
                                          family=family)
    # a gap beyond the double range in scale units (standardised_gaps clips it): its
    # log-probability is below -1.8e308, correctly rounded -inf
    out[beyond] = -np.inf
    return log_top_from_rest(out[None, :])[0]


def grid_probabilities(x: np.ndarray, w: np.ndarray, levels: np.ndarray, counts: np.ndarray,
                       family: NoiseFamily, extra_log=0.0) -> tuple[np.ndarray, np.ndarray]:
    """``(Pr, W)`` on the grid ``(x, w)``: ``W = w exp(sum_u counts_u log F(x - levels_u) +
    extra_log)`` (``extra_log``: the log cdf of candidates left out of ``levels``, at the
    nodes) and ``Pr_u = sum_j W_j h(x_j - levels_u)``; blocks of levels keep at most
    ``_CELLS`` cells in memory.  A single block's probabilities are summed pairwise (rounding
    about 1e-16 relative), several blocks' by matrix products."""
    rows = max(1, _CELLS // max(x.size, 1))
    log_g = np.zeros_like(x) + extra_log
    for start in range(0, levels.size, rows):
        z = x[None, :] - levels[start:start + rows, None]
        log_g += counts[start:start + rows].astype(float) @ family.log_cdf(z)
    weights = w * np.exp(log_g)
    probs = np.empty(levels.size)
    for start in range(0, levels.size, rows):
        hazard = family.hazard(x[None, :] - levels[start:start + rows, None])
        probs[start:start + rows] = ((hazard * weights).sum(axis=1) if levels.size <= rows
                                     else hazard @ weights)
    return probs, weights


def log_space_sum(values: np.ndarray, counts: np.ndarray, v: float, anchor: np.ndarray,
                  offset: np.ndarray, w: np.ndarray, extra: np.ndarray, *,
                  family: NoiseFamily) -> float:
    """``log(sum_j w_j G(x_j) h(x_j - v) + sum e^extra)`` at the nodes ``x_j = anchor_j +
    offset_j``, every ``x_j - level`` formed as ``(anchor_j - level) + offset_j``, ``log G``
    summed in blocks of levels; ``-inf`` when every term is below -1.8e308."""
    log_g = np.zeros_like(offset)
    block = max(1, (1 << 22) // max(offset.size, 1))
    with np.errstate(over="ignore", invalid="ignore"):    # a sum below -1.8e308 is -inf
        for start in range(0, values.size, block):
            z = (anchor[None, :] - values[start:start + block, None]) + offset[None, :]
            log_g += counts[start:start + block].astype(float) @ family.log_cdf(z)
        terms = np.concatenate([np.log(w) + log_g
                                + family.log_hazard((anchor - v) + offset), extra])
        top = float(terms.max())
        if not math.isfinite(top):
            return -math.inf
        return top + math.log(float(np.exp(terms - top).sum()))
