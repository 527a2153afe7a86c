"""Noise families for multi-selection, exact expected costs, and the Appendix A.3 quantile offsets.

All families are symmetric and log-concave and are normalised as in the paper's Appendix
A.3: ``E|Y| = 1/eps``.  Laplace has scale ``1/eps`` (the only one of them that is
eps-geographic DP); Gaussian ``sigma = sqrt(pi/2)/eps``; logistic ``s = 1/(2 ln2 eps)``.

Exact cost of a fixed offset set.  With the offsets sorted and the Voronoi boundaries
``m_i = (a_i + a_{i+1})/2`` (the user keeps the nearest result: ``h`` is increasing), ::

    E min_i h(|Y - a_i|) = sum_i E[h(|Y - a_i|); m_{i-1} <= Y <= m_i].

For ``h(t) = t`` every term is closed form in the cdf ``F`` and the stop-loss transform
``Psi(y) = E(y - Y)^+ = int_{-inf}^y F``  (by symmetry ``E(Y - y)^+ = Psi(-y)``)::

    E[(Y - a); a <= Y <= m] = Psi(-a) - Psi(-m) - (m - a) F(-m),
    E[(a - Y); l <= Y <= a] = Psi(a) - Psi(l) - (a - l) F(l),

with ``Psi`` = ``(b/2) e^{-|y|/b} + y^+`` (Laplace, scale b), ``sigma (phi + z Phi)(y/sigma)``
(Gaussian), ``s log(1 + e^{y/s})`` (logistic); accurate to a few ulps of ``1/eps``.  Other
``h`` are integrated cell by cell (split at ``a_i`` and at 0) with ``scipy.integrate.quad``
to 1e-12 relative.

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

from optmech.multiselect.offsets import check_results, resolve_disutility
from optmech.validation import check_choice, check_positive, check_scores

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

    family: str
    epsilon: float

    def __post_init__(self):
        check_choice(self.family, "noise", NOISE_FAMILIES)
        object.__setattr__(self, "epsilon", check_positive(self.epsilon, "epsilon"))

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
    return _quadrature_cost(a, lower, upper, noise, disutility)


def _identity_cost(a, lower, upper, noise: SymmetricNoise) -> float:
    psi, cdf = noise.stop_loss, noise.cdf
    # finite cell boundaries only: the outer cells run to -inf / +inf (terms vanish there)
    l, u = lower[1:], upper[:-1]
    right = np.sum(psi(-a)) - np.sum(psi(-u) + (u - a[:-1]) * cdf(-u))
    left = np.sum(psi(a)) - np.sum(psi(l) + (a[1:] - l) * cdf(l))
    return float(right + left)


def _quadrature_cost(a, lower, upper, noise: SymmetricNoise, h) -> float:
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
    epsilon = check_positive(epsilon, "epsilon")
    K = (k + 1) // 2
    return (math.e * (1.0 + math.log(K)) + 1.0) / (epsilon * K)
