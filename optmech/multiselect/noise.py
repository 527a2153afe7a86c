"""Noise families for multi-selection, exact expected costs, and the Appendix A.3 quantile offsets.

All families are symmetric and log-concave and are normalised as in the paper's Appendix
A.3: ``E|Y| = 1/eps``.  Laplace has scale ``1/eps`` (the only one of them that is
eps-geographic DP); Gaussian ``sigma = sqrt(pi/2)/eps``; logistic ``s = 1/(2 ln2 eps)``.

Exact cost of a fixed offset set.  With the offsets sorted and the Voronoi boundaries
``m_i = (a_i + a_{i+1})/2`` (the user keeps the nearest result: ``h`` is increasing), ::

    E min_i h(|Y - a_i|) = sum_i E[h(|Y - a_i|); m_{i-1} <= Y <= m_i].

For ``h(t) = t`` the terms are half-cells ``E[(Y - a); a <= Y <= m]`` (and, by symmetry,
``E[(a - Y); l <= Y <= a]`` is the same at ``(-a, -l)``).  Each is split at 0 into pieces
that lie on one side of the mode, and a piece is computed from the tail functions
``S(y) = P(Y > y)`` and ``G(y) = E(Y - y)^+`` at ``y >= 0`` only, which are as small as
the mass they describe: on ``[a', m]`` with ``0 <= a'``, ::

    E[(Y - a); a' <= Y <= m] = (a' - a)(S(a') - S(m)) + G(a') - G(m) - (m - a') S(m),

and on ``[a, m']`` with ``m' <= 0`` (mirrored, ``c = -a``, ``l = -m'``) ::

    E[(Y - a); a <= Y <= m'] = (c - l) S(l) - G(l) + G(c).

``G`` is ``(b/2) e^{-y/b}`` (Laplace, scale b), ``sigma (phi(z) - z (1 - Phi(z)))``
(Gaussian, ``z = y/sigma``), ``s log(1 + e^{-y/s})`` (logistic).  These differences cancel
to second order on a narrow piece (the k results of a large k sit in cells of width about
``2/(eps k)``), so a piece narrower than ``1/eps`` is integrated by 6-point Gauss–Legendre
instead (its integrand is smooth there: the kink at 0 and the
support's edges are piece ends), exact to rounding.  Every piece is non-negative, so the
sum has no cancellation: the cost is accurate to about 1e-14 relative for every k (tests:
the closed form ``ln(1 + 1/K) / eps`` of the optimal Laplace offsets for k = 2K up to
10^6, and an mpmath reference at 50 digits), until the cells are so narrow that the offsets
themselves are subnormal numbers (eps near 1e300 with many results; multi-selection takes
eps in :func:`~optmech.multiselect.offsets.epsilon_range`, 1e±300 for the identity).  Other ``h``
are integrated cell by cell (split at ``a_i`` and at 0) with ``scipy.integrate.quad`` to
1e-12 relative, at unit scale: ``x = eps y``, so that no integral spans ``1/eps`` (at
``eps = 1e-6`` the raw integrals did not converge), with ``h(t / eps) = eps^-p h(t)``
for a homogeneous ``h`` (:meth:`~optmech.multiselect.offsets.Disutility.at_unit_scale`);
about 5 ms of CPU per result at most, counted against the work budget
(:func:`~optmech.resources.require_work`, naming ``k``).

Appendix A.3 (Theorem 24).  For ``k`` results take ``K = (k + 1) // 2`` and the ``2K - 1``
offsets ``{0, +-a_1, ..., +-a_{K-1}}`` with ``a_i`` the ``i/K`` quantile of ``|Y|`` (the
paper's ``F^{-1}(1 - i/K)`` with ``F`` the survival function of ``|Y|``).  For even ``k`` the
last result repeats 0 (the construction has an odd number of points).  Theorem 24's proof
gives the explicit bound ``phi <= (e (1 + ln K) + 1) / (eps K) = O(log k / (k eps))``
(:func:`quantile_cost_bound`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import integrate, special, stats

from optmech.multiselect.offsets import check_epsilon, check_results, resolve_disutility
from optmech.resources import require_work
from optmech.validation import check_choice, check_scores

__all__ = [
    "NOISE_FAMILIES",
    "SymmetricNoise",
    "expected_cost",
    "quantile_cost_bound",
    "quantile_offsets",
]

NOISE_FAMILIES = ("laplace", "gaussian", "logistic")


@dataclass(frozen=True)
class SymmetricNoise:
    """A symmetric log-concave noise with ``E|Y| = 1/epsilon`` (module docstring)."""

    #: "laplace", "gaussian" or "logistic" (:data:`NOISE_FAMILIES`).
    family: str
    #: The privacy parameter ε; the noise has ``E|Y| = 1/epsilon``.
    epsilon: float

    def __post_init__(self):
        check_choice(self.family, "noise", NOISE_FAMILIES)
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))

    @property
    def scale(self) -> float:
        """Laplace ``b``, Gaussian ``sigma`` or logistic ``s``."""
        factor = {"laplace": 1.0, "gaussian": math.sqrt(math.pi / 2),
                  "logistic": 0.5 / math.log(2.0)}[self.family]
        return factor / self.epsilon

    @property
    def distribution(self):
        """The frozen ``scipy.stats`` distribution of ``Y``."""
        family = {"laplace": stats.laplace, "gaussian": stats.norm,
                  "logistic": stats.logistic}[self.family]
        return family(loc=0.0, scale=self.scale)

    @property
    def support(self) -> tuple[float, float]:
        return (-math.inf, math.inf)

    def cdf(self, y) -> np.ndarray:
        z = np.asarray(y, dtype=float) / self.scale
        if self.family == "laplace":
            half = 0.5 * np.exp(-np.abs(z))
            return np.where(z < 0, half, 1.0 - half)
        if self.family == "gaussian":
            return special.ndtr(z)
        return special.expit(z)

    def pdf(self, y) -> np.ndarray:
        z = np.asarray(y, dtype=float) / self.scale
        if self.family == "laplace":
            density = 0.5 * np.exp(-np.abs(z))
        elif self.family == "gaussian":
            density = np.exp(-0.5 * z * z) / math.sqrt(2 * math.pi)
        else:
            density = special.expit(z) * special.expit(-z)
        return density / self.scale

    def stop_loss(self, y) -> np.ndarray:
        """``Psi(y) = E(y - Y)^+``, closed form per family."""
        y = np.asarray(y, dtype=float)
        s = self.scale
        if self.family == "laplace":
            return 0.5 * s * np.exp(-np.abs(y) / s) + np.maximum(y, 0.0)
        if self.family == "gaussian":
            z = y / s
            return s * (special.ndtr(z) * z + np.exp(-0.5 * z * z) / math.sqrt(2 * math.pi))
        return s * np.logaddexp(0.0, y / s)

    def sample(self, size=None, rng: np.random.Generator | None = None):
        rng = np.random.default_rng() if rng is None else rng
        s = self.scale
        if self.family == "laplace":
            return rng.laplace(0.0, s, size)
        if self.family == "gaussian":
            return rng.normal(0.0, s, size)
        return rng.logistic(0.0, s, size)


def _noise(noise, epsilon):
    if isinstance(noise, str):
        return SymmetricNoise(noise, epsilon)
    return noise


def _check_offsets(offsets) -> np.ndarray:
    return np.sort(check_scores(np.array(offsets, dtype=float, ndmin=1), "offsets"))


def expected_cost(offsets, epsilon: float, h=None,
                  noise: str | SymmetricNoise = "laplace") -> float:
    """``E min_i h(|Y - a_i|)`` for ``Y`` of the given family with ``E|Y| = 1/epsilon``.

    Exact for the identity (closed form, module docstring); numerical quadrature to 1e-12
    relative for other ``h``.  The cost does not depend on the user's value.  ``noise`` may
    also be any object with ``epsilon``, ``support``, ``cdf``, ``pdf`` and ``stop_loss`` of a
    distribution symmetric about 0 (e.g. the ring's truncated Laplace).
    """
    noise = _noise(noise, epsilon)
    a = _check_offsets(offsets)
    disutility = resolve_disutility(h, noise.epsilon)
    mids = 0.5 * (a[1:] + a[:-1])
    lower = np.concatenate([[-np.inf], mids])
    upper = np.concatenate([mids, [np.inf]])
    if disutility.is_identity:
        return _identity_cost(a, lower, upper, noise)
    require_work(a.size * _QUAD_SECONDS_PER_RESULT, "k", a.size)
    return _quadrature_cost(a, lower, upper, noise, disutility)


# Pieces narrower than this many units of 1/eps are integrated by Gauss–Legendre (the
# closed form loses digits there: its terms cancel to second order in the width); 6 nodes
# are exact to rounding on such a piece (error term ~ width^13 / (13 (12!)^3 / (6!)^4)).
_NARROW = 1.0
_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(6)
_BLOCK = 1 << 18  # cells per block of the (cells x nodes) quadrature arrays
# CPU seconds of the quadrature per result (cell), other h than the identity: measured
# 0.2-4 ms at k = 1001 on 2 cores under load; the work budget's estimate.
_QUAD_SECONDS_PER_RESULT = 5e-3


def _identity_cost(a, lower, upper, noise: SymmetricNoise) -> float:
    # cell i is [lower_i, upper_i] around a_i: the half-cells above and below a_i, the latter
    # by the symmetry Y -> -Y
    total = 0.0
    for start in range(0, a.size, _BLOCK):
        cells = slice(start, start + _BLOCK)
        total += float(np.sum(_half_cells(noise, a[cells], upper[cells]))
                       + np.sum(_half_cells(noise, -a[cells], -lower[cells])))
    return total


def _half_cells(noise, a: np.ndarray, m: np.ndarray) -> np.ndarray:
    """``E[(Y - a); a <= Y <= m]`` for each ``a <= m`` (``m`` may be ``+inf``): the pieces
    above and below 0, each by the tail formula or, when narrow, by Gauss–Legendre."""
    def tail(y):      # S(y), G(y) at y >= 0; zero at +inf
        finite = np.isfinite(y)
        s, g = np.zeros(y.size), np.zeros(y.size)
        s[finite], g[finite] = noise.cdf(-y[finite]), noise.stop_loss(-y[finite])
        return s, g

    unit = _NARROW / noise.epsilon
    low, high = noise.support
    result = np.zeros(a.size)
    # above 0: [a', m] with a' = max(a, 0)
    start = np.maximum(a, 0.0)
    wide = m - start >= unit
    s_start, g_start = tail(start[wide])
    s_end, g_end = tail(m[wide])
    beyond = np.where(s_end > 0, m[wide] - start[wide], 0.0) * s_end  # 0 at m = +inf
    result[wide] = (start[wide] - a[wide]) * (s_start - s_end) + g_start - g_end - beyond
    narrow = ~wide & (m > start)
    result[narrow] += _gauss_legendre(noise, a[narrow], np.maximum(start[narrow], low),
                                      np.minimum(m[narrow], high))
    # below 0: [a, m'] with m' = min(m, 0), mirrored to c = -a, l = -m'
    end = np.minimum(m, 0.0)
    wide = end - a >= unit
    c, l = -a[wide], -end[wide]
    s_l, g_l = tail(l)
    result[wide] += (c - l) * s_l - g_l + tail(c)[1]
    narrow = ~wide & (end > a)
    result[narrow] += _gauss_legendre(noise, a[narrow], np.maximum(a[narrow], low),
                                      np.minimum(end[narrow], high))
    return result


def _gauss_legendre(noise, a: np.ndarray, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """``int_left^right (y - a) f(y) dy`` by 6-point Gauss–Legendre (0 where empty)."""
    half = 0.5 * np.maximum(right - left, 0.0)
    y = left[:, None] + half[:, None] * (_NODES + 1.0)
    return half * (((y - a[:, None]) * noise.pdf(y)) @ _WEIGHTS)


def _quadrature_cost(a, lower, upper, noise: SymmetricNoise, h) -> float:
    if isinstance(noise, SymmetricNoise) and noise.epsilon != 1.0:
        # at unit scale (y = x / eps): E h(|Y - a|) = c E g(|X - eps a|), h(t/eps) = c g(t)
        unit, factor = h.at_unit_scale(noise.epsilon)
        eps = noise.epsilon
        return factor * _quadrature_cost(a * eps, lower * eps, upper * eps,
                                         SymmetricNoise(noise.family, 1.0), unit)
    pdf = noise.pdf
    low, high = noise.support
    total = 0.0
    for centre, lo, hi in zip(a, np.maximum(lower, low), np.minimum(upper, high)):
        if hi <= lo:
            continue
        cuts = sorted({lo, hi} | {c for c in (centre, 0.0) if lo < c < hi})
        for x0, x1 in zip(cuts[:-1], cuts[1:]):
            if x1 > x0:
                total += integrate.quad(lambda y, c=centre: float(h(abs(y - c))) * pdf(y),
                                        x0, x1, epsabs=1e-15, epsrel=1e-12, limit=200)[0]
    return total


def quantile_offsets(k: int, epsilon: float, noise: str | SymmetricNoise = "laplace") -> np.ndarray:
    """Appendix A.3 offsets: quantiles ``i/K`` of ``|Y|``, mirrored (module docstring)."""
    k = check_results(k)
    noise = _noise(noise, epsilon)
    K = (k + 1) // 2
    levels = np.arange(1, K) / K
    positive = noise.distribution.ppf(0.5 + 0.5 * levels)  # quantile of |Y| at level p
    offsets = np.concatenate([-positive[::-1], [0.0], positive])
    if k % 2 == 0:
        offsets = np.concatenate([offsets, [0.0]])
    return np.sort(offsets)


def quantile_cost_bound(k: int, epsilon: float) -> float:
    """Theorem 24's explicit bound ``(e (1 + ln K) + 1) / (epsilon K)``, ``K = (k+1)//2``."""
    k = check_results(k)
    epsilon = check_epsilon(epsilon)
    K = (k + 1) // 2
    return (math.e * (1.0 + math.log(K)) + 1.0) / (epsilon * K)
