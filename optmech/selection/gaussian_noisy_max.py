r"""Exact output probabilities of report-noisy-max with i.i.d. Gaussian noise.

For scores ``q_1..q_n`` and noise ``sigma Z_r``, ``Z_r`` standard normal (cdf ``Phi``, density
``phi``), the shared path of :mod:`optmech.selection.iid_noisy_max` standardises the scores
to levels ``y <= 0`` (the top at 0) and needs, per level ``v``,

    Pr[v] = integral G(x) h(x - v) dx,   G(x) = prod_s Phi(x - y_s),   h = phi / Phi.

Every integrand here is log-concave: ``log Phi`` and ``log h`` are concave (``(log Phi)'' =
-h (z + h)`` lies in ``(-1, 0)``, ``(log h)'' = -1 - (log Phi)''`` too), so ``log G`` rises with
a falling slope ``S(x) = sum_s h(x - y_s)`` and curvature ``C(x) = sum_s h(x - y_s) (x - y_s
+ h(x - y_s))``, both decreasing in ``x`` (``h (z + h) = 1 - Var(Z | Z < z)`` falls).  That
gives rigorous windows and panel widths.

``log Phi``, ``h`` and ``log h`` (:func:`gaussian_log_cdf`, :func:`gaussian_hazard`,
:func:`gaussian_log_hazard`) come from one ``erfcx(|z| / sqrt 2)`` (``Phibar(|z|) = erfcx(|z| /
sqrt 2) e^{-z^2/2} / 2``), never from ``log(ndtr(z))``: that has an absolute error of 1e-16
wherever ``Phi(z)`` is near 1, and 10^5 levels sum such errors into ``log G`` (1e-11 relative
in every probability); here every value is exact to a few roundings relative to itself.

Window ``[lo, hi]`` of the pmf.  Above: ``1 - G(hi) <= sum_s Phibar(hi - y_s) <= n Phibar(hi)
= TAIL = 1e-17``; the mass of level ``v``'s integrand above ``hi`` is at most ``2 Phibar(hi -
v)``, and comparing with the mass on ``[hi - d, hi]`` for ``d`` up to the median of the
maximum shows it is below about 1e-17 of ``Pr[v]``.  Below: ``lo`` solves ``log G(lo) = log
FLOOR``, ``FLOOR = 1e-250`` (safeguarded Newton: ``log G`` is increasing and concave,
bracketed by ``Phi^{-1}(FLOOR)`` and 0); by concavity ``G(x) <= FLOOR e^{S(lo)(x - lo)}``
below it and ``h(x - v) <= |x - v| + 1``, so every probability loses at most ``FLOOR (|lo -
v| + 2) / S(lo)`` there: relative accuracy above about 1e-235, absolute below (the log-pmf
recomputes everything under ``TINY = 1e-200`` in log space).

Panels.  From ``lo`` to ``hi``, each panel starts at ``x`` and is ``min(PANEL, RATE_WIDTH /
(S(x) + 1), CURVATURE_WIDTH / sqrt(C(x) + 1))`` long (``PANEL = 2``, ``RATE_WIDTH = 20``,
``CURVATURE_WIDTH = 3``), with ``NODES = 16`` Gauss–Legendre nodes: ``S`` and ``C`` fall with
``x``, so their values at the panel's start bound them on the panel; 16 nodes integrate
``e^{c x}`` with ``c w <= 20`` to 2e-15 and a Gaussian of curvature ``k`` over ``w sqrt k <=
3`` (Bernstein ellipse ``rho = 4``) to about 1e-17 relative.  The panels' count is about
``log(1 / FLOOR) / RATE_WIDTH = 29`` plus ``(hi - lo) / PANEL`` plus the curvature's share:
37 or 38 (592 to 608 nodes) for 2 to 10^5 N(0, 9) scores at ``sigma = 2``.

Far levels.  A level ``v <= lo - FAR`` (``FAR = 8.3``) has ``Phibar(x - v) <= 5.2e-17`` on the
window: its ``log Phi`` is ``-Phibar`` from three terms of the asymptotic series ``phi(z)/z (1
- 1/z^2 + 3/z^4 - 15/z^6)`` (relative error ``105/z^8 <= 4e-6`` of a term below 5.2e-17: 1e-16
absolute for 10^6 such candidates) and its ``h`` is ``phi`` (relative ``Phibar(8.3) = 5e-17``),
one ``exp`` per node where the others take an ``erfcx``.  Levels below ``lo - REACH``
(``REACH = 38.5``, ``phi(38.5) < 1e-322``) change nothing in double precision and get
probability 0 (their log-probabilities come from the log space).

Log space (:meth:`GaussianFamily.log_space_grid`).  The integrand ``psi(x) = log G(x) + log
h(x - v)`` of a tiny level ``v`` is concave with ``psi' = S(x) - (x - v) - h(x - v)`` and
``-psi'' <= C(x) + 1``.  Its mode ``m`` (bisection with Newton steps on ``psi'``) anchors the
nodes (every ``x - level`` is ``(m - level) + offset``); the window reaches from ``m`` until
``psi`` has fallen by ``LOG_DROP = 50`` on each side (concavity: the tail beyond is at most
``e^{psi(b)} / |psi'(b)|``, below ``e^{-50}`` relative); panels from its left end are
``min(PANEL, CURVATURE_WIDTH / sqrt(C + 1), RATE_WIDTH / |psi'|max)`` long, with ``|psi'|``
bounded on the panel from its start (left of the mode it falls; right of it, it grows by at
most ``(C + 1) w``).  So a candidate 10^6 scales below the top costs about 40 panels, like
one next to it.  Where ``|psi(m)| > ROUNDED_AWAY = 1e17`` (a gap beyond about 6e8 scales)
one rounding of ``log p`` exceeds 10, and ``psi``'s differences near the mode are below its
own rounding: the integral is then ``e^{psi(m)} sqrt(2 pi) s``, ``s = 1 / sqrt(C(m) + 1)``,
within a factor ``sqrt(n + 1)`` of the exact one (``-psi''`` lies between ``1 - h (z + h)`` of
the level's own factor, near 1 that far above it, and ``C + 1 <= n + 1``): below that
rounding.  A log-probability below -1.8e308 (a gap beyond about 2.7e154 scales) is
``-inf``.

Precision (tests against a 50-digit mpmath quadrature, tanh-sinh around each integrand's
mode, and the two-candidate closed form ``Phi(-g / sqrt 2)``): every probability above 1e-200
within ``1e-14 + 4e-16 |log p|`` relative, the second term the rounding of ``log G`` where a
tiny probability's integrand peaks (6.3e-14 at worst, at ``p = 7.6e-124``, over about 100
random vectors of 2 to 8 scores, gaps up to 60 scales, ties; 1.0e-15 on 10^5 candidates on
8 levels, probabilities down to 2.9e-49), log-probabilities below that within ``1e-15 |log
p|`` plus 1e-13.

Cost: ``O(n log n)`` to group equal scores, then about ``2 * 608 * U`` evaluations of ``erfcx``
for ``U`` distinct scores within ``FAR`` of the window (one ``exp`` for each far one):
10^5 distinct N(0, 9) scores at ``sigma = 2`` in 6.7 to 7.1 CPU s, against 0.064 to 0.076 s
for Laplace noise, whose exponential tails let all but 78 levels enter through two Chebyshev
interpolants (:mod:`optmech.selection.laplace_noisy_max`); 10^5 integer scores in [0, 1000)
in 0.014 s, 10^5 candidates on 8 levels in 0.008 s (shared 2-core machine).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from optmech.selection.iid_noisy_max import (
    NoiseFamily,
    grid_probabilities,
    iid_noisy_max_logpmf,
    iid_noisy_max_pmf,
)
from optmech.selection.noisy_max import TAIL

__all__ = ["CURVATURE_WIDTH", "FAR", "FLOOR", "GAUSSIAN", "LOG_DROP", "NODES", "PANEL",
           "RATE_WIDTH", "REACH", "ROUNDED_AWAY", "GaussianFamily", "gaussian_hazard",
           "gaussian_log_cdf",
           "gaussian_log_hazard", "gaussian_noisy_max_logpmf", "gaussian_noisy_max_pmf"]

FLOOR = 1e-250
PANEL = 2.0
RATE_WIDTH = 20.0
CURVATURE_WIDTH = 3.0
NODES = 16
FAR = 8.3
REACH = 38.5
LOG_DROP = 50.0
ROUNDED_AWAY = 1e17
_RULE = np.polynomial.legendre.leggauss(NODES)
_SQRT2 = math.sqrt(2.0)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_LOG_SQRT_2PI = 0.5 * math.log(2.0 * math.pi)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_MAX_PANELS = 100_000


def _tail_parts(z: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(negative, r, e)``: ``z < 0``, ``r = erfcx(|z| / sqrt 2)`` and ``e = e^{-z^2/2}``
    (0 where it underflows), so ``Phibar(|z|) = r e / 2``."""
    with np.errstate(over="ignore", under="ignore"):
        return z < 0, special.erfcx(np.abs(z) / _SQRT2), np.exp(-0.5 * z * z)


def gaussian_log_cdf(z: np.ndarray) -> np.ndarray:
    """``log Phi(z)``: ``log(r/2) - z^2/2`` below 0, ``log1p(-r e / 2)`` above (module
    docstring), exact to a few roundings of the value."""
    negative, r, e = _tail_parts(np.asarray(z, dtype=float))
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        return np.where(negative, np.log(0.5 * r) - 0.5 * z * z, np.log1p(-0.5 * r * e))


def gaussian_hazard(z: np.ndarray) -> np.ndarray:
    """``h(z) = phi(z) / Phi(z)``: ``sqrt(2/pi) / r`` below 0, ``phi(z) / (1 - r e / 2)``
    above."""
    negative, r, e = _tail_parts(np.asarray(z, dtype=float))
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        return np.where(negative, _SQRT_2_OVER_PI / r, _INV_SQRT_2PI * e / (1.0 - 0.5 * r * e))


def gaussian_log_hazard(z: np.ndarray) -> np.ndarray:
    """``log h(z)``, finite where ``h`` underflows: ``log sqrt(2/pi) - log r`` below 0,
    ``-z^2/2 - log sqrt(2 pi) - log1p(-r e / 2)`` above."""
    negative, r, e = _tail_parts(np.asarray(z, dtype=float))
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        return np.where(negative, math.log(_SQRT_2_OVER_PI) - np.log(r),
                        -0.5 * z * z - _LOG_SQRT_2PI - np.log1p(-0.5 * r * e))


def _far_log_cdf(z: np.ndarray) -> np.ndarray:
    """``log Phi(z) = -Phibar(z)`` for ``z >= FAR`` by three terms of the asymptotic series
    (module docstring)."""
    inverse = 1.0 / (z * z)
    with np.errstate(under="ignore", over="ignore"):
        return -_INV_SQRT_2PI * np.exp(-0.5 * z * z) / z * (
            1.0 - inverse * (1.0 - 3.0 * inverse * (1.0 - 5.0 * inverse)))


def _far_hazard(z: np.ndarray) -> np.ndarray:
    """``h(z) = phi(z)`` for ``z >= FAR`` (relative error ``Phibar(z) <= 5.2e-17``)."""
    with np.errstate(under="ignore", over="ignore"):
        return _INV_SQRT_2PI * np.exp(-0.5 * z * z)


def _slope_and_curvature(z: np.ndarray, counts: np.ndarray) -> tuple[float, float]:
    """``(S, C)``: ``sum counts h(z)`` and ``sum counts h(z) (z + h(z))`` over the levels
    (``z = x - level``): the slope and minus the curvature of ``log G`` at ``x``.  Each
    curvature term ``h (z + h) = 1 - Var(Z | Z < z)`` lies in ``(0, 1)``; below ``z = -8``,
    where ``z + h`` cancels (``h`` is near ``-z``), it is ``1 - 1/z^2`` (the variance's leading
    term; within 1e-3, which is all the panel widths need)."""
    h = gaussian_hazard(z)
    with np.errstate(divide="ignore", over="ignore"):
        terms = np.where(z < -8.0, 1.0 - 1.0 / (z * z), h * (z + h))
    return float(counts @ h), float(counts @ np.clip(terms, 0.0, 1.0))


def _march(start: float, stop: float, width) -> np.ndarray:
    """Panel edges from ``start`` to ``stop``, each panel ``width(x)`` long from its start
    ``x`` (at most ``_MAX_PANELS``: a bound no input reaches, against a runaway loop)."""
    edges = [start]
    while edges[-1] < stop and len(edges) <= _MAX_PANELS:
        edges.append(min(stop, edges[-1] + width(edges[-1])))
    if edges[-1] < stop:
        from optmech.selection.noisy_max import IntegrationError

        raise IntegrationError(f"the Gaussian quadrature needs more than {_MAX_PANELS} panels")
    return np.array(edges)


def _rule(edges: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Gauss–Legendre nodes (relative to 0) and weights on the panels between ``edges``."""
    x, w = _RULE
    half = 0.5 * np.diff(edges)[:, None]
    return (edges[:-1, None] + half * (x + 1)).ravel(), (half * w).ravel()


class GaussianFamily(NoiseFamily):
    """The standard normal law for :mod:`optmech.selection.iid_noisy_max` (module
    docstring)."""

    name = "gaussian"

    def log_cdf(self, z):
        return gaussian_log_cdf(z)

    def hazard(self, z):
        return gaussian_hazard(z)

    def log_hazard(self, z):
        return gaussian_log_hazard(z)

    # --- the pmf ----------------------------------------------------------------------------

    def window(self, values: np.ndarray, counts: np.ndarray) -> tuple[float, float]:
        """``(lo, hi)`` (module docstring)."""
        hi = float(-special.ndtri(TAIL / float(counts.sum())))
        return self._lower_edge(values, counts.astype(float)), hi

    @staticmethod
    def _lower_edge(values: np.ndarray, counts: np.ndarray) -> float:
        """The ``x`` with ``log G(x) = log FLOOR``: Newton steps kept inside a shrinking
        bracket ``[a, b]`` (``log G(a) <= log FLOOR < log G(b)``), to 1e-6."""
        target = math.log(FLOOR)
        a, b = float(special.ndtri(FLOOR)), 0.0
        x = a
        for _ in range(200):
            z = x - values
            log_g = float(counts @ gaussian_log_cdf(z))
            if log_g > target:
                b = x
            else:
                a = x
            slope = float(counts @ gaussian_hazard(z))
            step = x - (log_g - target) / slope if slope > 0 else 0.5 * (a + b)
            step = step if a < step < b else 0.5 * (a + b)
            if abs(step - x) <= 1e-6 or b - a <= 1e-6:
                return a
            x = step
        return a

    def level_probabilities(self, values, counts):
        lo, hi = self.window(values, counts)
        reached = values > lo - REACH
        near = values > lo - FAR
        far = reached & ~near
        c = counts.astype(float)

        def width(x):
            slope, curvature = _slope_and_curvature(x - values[near], c[near])
            return min(PANEL, RATE_WIDTH / (slope + 1.0),
                       CURVATURE_WIDTH / math.sqrt(curvature + 1.0))

        x, w = _rule(_march(lo, hi, width))
        extra = np.zeros_like(x)
        rows = max(1, (1 << 21) // x.size)
        for start in range(0, int(far.sum()), rows):
            levels = values[far][start:start + rows]
            extra += c[far][start:start + rows] @ _far_log_cdf(x[None, :] - levels[:, None])
        probs = np.zeros(values.size)
        probs[near], weights = grid_probabilities(x, w, values[near], counts[near], self,
                                                  extra)
        for start in range(0, int(far.sum()), rows):
            index = np.flatnonzero(far)[start:start + rows]
            probs[index] = _far_hazard(x[None, :] - values[index, None]) @ weights
        return probs

    # --- log space --------------------------------------------------------------------------

    def log_space_grid(self, values, counts, v):
        c = counts.astype(float)
        gaps = v - values                       # x - level = gaps + t for x = v + t

        def derivatives(t: float) -> tuple[float, float]:
            """``(psi'(v + t), C(v + t) + 1)``."""
            slope, curvature = _slope_and_curvature(gaps + t, c)
            own = float(gaussian_hazard(np.array(t)))
            return slope - t - own, curvature + 1.0

        mode = _root(lambda t: derivatives(t)[0])
        anchor = v + mode
        offsets_of = anchor - values            # x - level = offsets_of + o, x = anchor + o
        own = anchor - v

        def psi(o: float) -> float:
            with np.errstate(over="ignore", invalid="ignore"):   # below -1.8e308: -inf
                return float(c @ gaussian_log_cdf(offsets_of + o)
                             + gaussian_log_hazard(np.array(own + o)))

        def slope_at(o: float) -> tuple[float, float]:
            slope, curvature = _slope_and_curvature(offsets_of + o, c)
            h = float(gaussian_hazard(np.array(own + o)))
            return slope - (own + o) - h, curvature + 1.0

        peak = psi(0.0)
        scale = 1.0 / math.sqrt(slope_at(0.0)[1])
        if not abs(peak) <= ROUNDED_AWAY:
            # one rounding of log p exceeds 10: the integral as e^psi(m) sqrt(2 pi) s
            return (np.array([anchor]), np.zeros(1), np.array([math.sqrt(2 * math.pi) * scale]),
                    np.array([]))
        ends = []
        for sign in (-1.0, 1.0):
            reach = scale
            while psi(sign * reach) > peak - LOG_DROP:
                reach *= 2.0
            ends.append(sign * reach)

        def width(o: float) -> float:
            slope, curvature = slope_at(o)
            wide = min(PANEL, CURVATURE_WIDTH / math.sqrt(curvature))
            rate = slope if slope > 0 else -slope + wide * curvature
            return min(wide, RATE_WIDTH / max(rate, 1e-300))

        offset, weight = _rule(_march(ends[0], ends[1], width))
        return np.full(offset.size, anchor), offset, weight, np.array([])


def _root(f, start: float = 0.0) -> float:
    """The zero of a decreasing function ``f`` (to 1e-9 relative, or 1e-12 absolute): the
    bracket grows geometrically from ``start``, then bisection."""
    a = b = start
    step = 1.0
    if f(start) > 0:
        while f(b) > 0:
            a, b = b, b + step
            step *= 2.0
    else:
        while f(a) <= 0:
            a, b = a - step, a
            step *= 2.0
    for _ in range(200):
        m = 0.5 * (a + b)
        if f(m) > 0:
            a = m
        else:
            b = m
        if b - a <= max(1e-12, 1e-9 * abs(m)):
            break
    return 0.5 * (a + b)


GAUSSIAN = GaussianFamily()


def gaussian_noisy_max_pmf(scores, scale: float) -> np.ndarray:
    """``Pr[argmax_r (q_r + Z_r) = r]`` for i.i.d. ``Z_r ~ N(0, scale^2)`` (module
    docstring: every probability within ``1e-14 + 4e-16 |log p|`` relative above 1e-200,
    1e-250 absolute far below; the sum checked to be 1 within 1e-12)."""
    return iid_noisy_max_pmf(scores, scale, GAUSSIAN)


def gaussian_noisy_max_logpmf(scores, scale: float) -> np.ndarray:
    """``log`` of :func:`gaussian_noisy_max_pmf`, finite for every candidate whose
    log-probability is a double (below ``TINY = 1e-200`` from a quadrature in log space:
    module docstring)."""
    return iid_noisy_max_logpmf(scores, scale, GAUSSIAN)
