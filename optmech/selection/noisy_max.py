"""Output probabilities of report-noisy-max with independent, per-candidate noise.

For candidates with scores ``q_a`` and noise ``Z_a = b_a * Y_a`` (``Y_a`` standard Laplace,
exponential, Gumbel or normal; ``b_a = 0`` means no noise),

    Pr[argmax_a (q_a + Z_a) = r] = integral f_r(x - q_r) prod_{s != r} F_s(x - q_s) dx.

This serves report-noisy-max with heterogeneous scales (RNMH, heterogeneous-sensitivities
paper eqn 4), and it is the independent cross-check of the closed forms for exponential
noise (= permute-and-flip) and Gumbel noise (= exponential mechanism) and of the fast
i.i.d. Laplace and Gaussian paths :mod:`optmech.selection.laplace_noisy_max` (the
permute-and-flip paper's Appendix F, no closed form) and
:mod:`optmech.selection.gaussian_noisy_max`, which ``ReportNoisyMax`` and
``GaussianNoisyMax`` use.

Method and accuracy.  Scores and scales are first expressed in units of the largest scale
``b_max`` with the top score at 0 (:func:`standardised_gaps`), so the result does not
depend on a common shift or unit of the scores.  Writing ``G(x) = prod_s F_s(x - q_s)``,
the integrand of ``r`` is ``h_r(x) * G(x)`` with ``h_r = f_r / F_r`` (evaluated in log
space, so nothing cancels).

* Window.  With ``tail = 1e-17``, the integral is restricted to ``[x_lo, x_hi]`` where
  ``x_lo = max_s (q_s + b_s * Q(tail))`` (below it ``G <= F_s <= tail`` for that ``s``, and
  ``s``'s own density has mass <= tail there) and ``x_hi = max_s (q_s + b_s *
  Q(1 - tail / n))`` (beyond it each ``f_r`` has mass <= tail / n and ``1 - G <= tail``).
  The mass left out is below ``2 * tail`` in total.
* Far candidates.  A candidate whose noisy score exceeds ``x_lo`` with probability at most
  ``tail / n`` wins with probability below ``2 * tail`` and changes ``G`` on the window by
  a factor within ``1 - tail / n`` of 1; it is left out (probability 0), which adds at most
  ``2 * tail`` to the error and makes the cost independent of how many such candidates
  there are (a candidate 10^6 scales below the top costs nothing).
* Panels.  The integrand is analytic except at the scores themselves (Laplace kinks,
  exponential support starts), so every score inside the window is a panel boundary, and
  panels are further split to length <= ``b_min / 2``.  Each panel gets Gauss–Legendre with
  16 nodes, 8 on panels shorter than ``b_min / 8`` and 4 on panels shorter than
  ``b_min / 64`` (on a panel of relative length ``h / b`` the m-node rule's error is of
  order ``(h / 2b)^(2m) / (2m)!``: below 1e-20 in every tier).  The window is about
  ``80 b_max`` long, so scales more than about 10^3 apart need more than ``_MAX_NODES``
  nodes and :class:`IntegrationError` is raised.  A scale whose ratio to ``b_max``
  underflows to 0 is a point mass.
* Check.  The probabilities must be finite and sum to 1 within ``SUM_TOLERANCE = 1e-12``;
  otherwise :class:`IntegrationError` is raised rather than a wrong number returned.  Tests
  compare with mpmath at 30 digits (agreement better than 1e-12 absolute).

Cost: ``O(n + U * J)`` for ``U`` distinct (score, scale) pairs that can reach the window and
``J`` nodes (16 per panel); every such score is a panel edge, so with one scale the cost
grows like ``U^2`` (use :mod:`optmech.selection.laplace_noisy_max` for i.i.d. Laplace).
Candidates with ``b_a = 0`` are point masses; the largest of them wins ties with each other
uniformly and beats every noisy candidate that lands below it.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from optmech.validation import InvalidArgumentError, check_choice, check_scores

__all__ = [
    "IntegrationError",
    "NOISES",
    "log_cdf",
    "log_hazard",
    "lower_quantile",
    "noisy_max_pmf",
    "quadrature_panels",
    "standardised_gaps",
    "upper_quantile",
]

NOISES = ("laplace", "exponential", "gumbel", "gaussian")
TAIL = 1e-17
SUM_TOLERANCE = 1e-12
_MAX_NODES = 2_000_000
_CELLS = 1 << 21  # (candidate group x node) cells per vectorised block: ~16 MiB


class IntegrationError(ArithmeticError):
    """The quadrature could not certify the requested accuracy."""


def lower_quantile(noise: str, tail: float) -> float:
    """Standardised ``Q(tail)``."""
    if noise == "gaussian":
        return float(special.ndtri(tail))
    return {"laplace": math.log(2 * tail), "exponential": -math.log1p(-tail),
            "gumbel": -math.log(-math.log(tail))}[noise]


def upper_quantile(noise: str, tail: float) -> float:
    """Standardised ``Q(1 - tail)`` computed from the survival function."""
    if noise == "gaussian":
        return float(-special.ndtri(tail))
    return {"laplace": -math.log(2 * tail), "exponential": -math.log(tail),
            "gumbel": -math.log(-math.log1p(-tail))}[noise]


def log_cdf(noise: str, y: np.ndarray) -> np.ndarray:
    if noise == "gaussian":
        from optmech.selection.gaussian_noisy_max import gaussian_log_cdf

        return gaussian_log_cdf(y)
    with np.errstate(divide="ignore", invalid="ignore"):
        if noise == "laplace":
            return np.where(y < 0, y - math.log(2), np.log1p(-0.5 * np.exp(-np.abs(y))))
        if noise == "exponential":
            return np.where(y > 0, np.log(-np.expm1(-np.maximum(y, 0))), -np.inf)
        return -np.exp(-y)


def log_hazard(noise: str, y: np.ndarray) -> np.ndarray:
    """``log(f(y) / F(y))`` for the standard noise (the scale is added by the caller)."""
    if noise == "gaussian":
        from optmech.selection.gaussian_noisy_max import gaussian_log_hazard

        return gaussian_log_hazard(y)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if noise == "laplace":
            e = np.exp(-np.abs(y))
            return np.where(y < 0, 0.0, -np.abs(y) - math.log(2) - np.log1p(-0.5 * e))
        if noise == "exponential":
            pos = np.maximum(y, 0)
            return np.where(y > 0, -pos - np.log(-np.expm1(-pos)), -np.inf)
        return -y


def quadrature_panels(lo: float, hi: float, breaks: np.ndarray, width: float):
    """Gauss–Legendre nodes/weights on [lo, hi] with panel edges at ``breaks``."""
    edges = np.unique(np.concatenate([[lo, hi], breaks[(breaks > lo) & (breaks < hi)]]))
    lengths = np.diff(edges)
    with np.errstate(over="ignore"):
        pieces = np.maximum(1.0, np.ceil(lengths / width))
    if not pieces.sum() * 16 <= _MAX_NODES:
        raise IntegrationError(
            f"the integration window needs {pieces.sum():.3g} panels; the scales differ too "
            "much for this quadrature")
    pieces = pieces.astype(int)
    starts = np.repeat(edges[:-1], pieces)
    steps = np.repeat(lengths / pieces, pieces)
    first = np.repeat(np.cumsum(pieces) - pieces, pieces)
    starts = starts + steps * (np.arange(pieces.sum()) - first)
    nodes, weights = [], []
    tiers = ((16, steps > width / 4), (8, (steps <= width / 4) & (steps > width / 32)),
             (4, steps <= width / 32))
    for m, mask in tiers:
        if not mask.any():
            continue
        x, w = np.polynomial.legendre.leggauss(m)
        a, h = starts[mask][:, None], steps[mask][:, None]
        nodes.append((a + 0.5 * h * (x + 1)).ravel())
        weights.append((0.5 * h * w).ravel())
    return np.concatenate(nodes), np.concatenate(weights)


def standardised_gaps(scores: np.ndarray, scale: float) -> np.ndarray:
    """``(q - max q) / scale`` without overflow: a gap beyond the float range is taken as
    ``(q/2 - max q / 2) / (scale/2)``, and a quotient beyond it as ``-float_max`` (such a
    candidate is further below the top than any probability can resolve)."""
    top = scores.max()
    with np.errstate(over="ignore", invalid="ignore"):
        gaps = scores - top
        y = gaps / scale
        wide = ~np.isfinite(gaps)
        if wide.any():
            y[wide] = (0.5 * scores[wide] - 0.5 * top) / (0.5 * scale)
    return np.maximum(y, -np.finfo(float).max)


def noisy_max_pmf(scores, scales, noise: str = "laplace") -> np.ndarray:
    """``Pr[argmax_a (q_a + b_a Y_a) = r]`` for every candidate ``r``.

    See the module docstring for the method and its accuracy (about 1e-12 absolute).

    Parameters
    ----------
    scores
        1-D array of finite scores ``q_a``.
    scales
        a scale ``b_a >= 0`` per candidate, or one scale for all.
    noise
        "laplace", "exponential", "gumbel" or "gaussian" (standard forms: Laplace(0, 1),
        Exp(1), Gumbel(0, 1), N(0, 1)).
    """
    q = check_scores(scores)
    check_choice(noise, "noise", NOISES)
    b = np.broadcast_to(np.asarray(scales, dtype=float), q.shape).copy()
    if not (np.isfinite(b).all() and (b >= 0).all()):
        raise InvalidArgumentError("scales", scales, "finite numbers >= 0, one per score")
    n = q.size
    if n == 1:
        return np.ones(1)

    probs = np.zeros(n)
    noisy = b > 0
    point = ~noisy
    # Units: the largest scale, origin: the top score (translation and scale invariant).
    unit = b.max() if noisy.any() else 1.0
    q = standardised_gaps(q, unit)
    b = b / unit
    top_point = q[point].max() if point.any() else -np.inf
    if noisy.any():
        qn, bn = q[noisy], b[noisy]
        lo = max(float((qn + bn * lower_quantile(noise, TAIL)).max()), top_point)
        upper = qn + bn * upper_quantile(noise, TAIL / n)
        hi = float(upper.max())
        # Candidates that exceed lo with probability <= TAIL / n neither win (<= 2 TAIL) nor
        # move G on [lo, hi] (their F >= 1 - TAIL / n there): leave them out.
        kept = np.flatnonzero(noisy)[upper > lo]
        if hi > lo:
            keys, inverse, counts = np.unique(np.stack([q[kept], b[kept]], axis=1), axis=0,
                                              return_inverse=True, return_counts=True)
            uq, ub = keys[:, 0], keys[:, 1]
            breaks = uq if noise != "gumbel" else np.array([])
            if point.any():
                breaks = np.append(breaks, top_point)
            x, w = quadrature_panels(lo, hi, breaks, ub.min() / 2)
            rows = max(1, _CELLS // x.size)
            log_g = np.zeros_like(x)
            for start in range(0, uq.size, rows):
                s = slice(start, start + rows)
                y = (x[None, :] - uq[s, None]) / ub[s, None]
                log_g += counts[s] @ log_cdf(noise, y)
            group_probs = np.empty(uq.size)
            for start in range(0, uq.size, rows):
                s = slice(start, start + rows)
                y = (x[None, :] - uq[s, None]) / ub[s, None]
                log_terms = log_hazard(noise, y) - np.log(ub[s, None]) + log_g
                group_probs[s] = np.exp(log_terms) @ w
            probs[kept] = group_probs[inverse.ravel()]
    if point.any():
        winners = np.flatnonzero(point & (q == top_point))
        below = float(np.exp(log_cdf(noise, (top_point - q[noisy]) / b[noisy]).sum())) \
            if noisy.any() else 1.0
        probs[winners] = below / winners.size
    total = probs.sum()
    if not (np.isfinite(probs).all() and abs(total - 1.0) <= SUM_TOLERANCE):
        raise IntegrationError(
            f"noisy-max probabilities sum to {total!r}, off by more than {SUM_TOLERANCE}")
    return probs
