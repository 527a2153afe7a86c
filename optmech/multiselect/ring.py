"""Multi-selection on a ring (the paper's Appendix A.2): the Laplace baseline.

Users and results live on a circle of circumference ``2 pi`` (points of ``[-pi, pi)``) with
the distance along the circle.  The ring's Laplace noise is the truncated Laplace density
``rho(x) = e^{-eps |x|} / Z`` on ``[-pi, pi]`` (``Z = 2 (1 - e^{-eps pi}) / eps``): the user
sends ``u + x`` (mod ``2 pi``).  It is eps-geographic DP because ``log rho(d(x, u))`` is
``eps``-Lipschitz in ``u`` for the circle's distance ``d``.  (Wrapping the line's Laplace
around the circle is also private but costs more: 0.763 against 0.743 at ``eps = 3/8``,
``k = 2``.)

Cost of offsets ``a``: for ``x in [-pi, pi]`` the circle distance to ``a_i`` is
``min_m |x - a_i - 2 pi m|`` over ``m in {-1, 0, 1}``, so the cost is the line cost of the
``3k`` points ``a_i + 2 pi m`` under the truncated density
(:func:`~optmech.multiselect.noise.expected_cost`; closed form for the identity through the
truncated density's cdf and stop-loss transform, quadrature otherwise).

Best offsets (:func:`ring_laplace_response`): Nelder-Mead from several starting sets (the
line's optimal offsets, evenly spaced sets, shrunken copies).  The cost is accurate to
about 1e-12 and, being flat to second order at the optimum, pins the offsets only to about
1e-5.  A local search: tested against exhaustive search over a 120-point grid for k = 2.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize

from optmech.multiselect.noise import expected_cost
from optmech.multiselect.offsets import (
    ServerResponse,
    check_results,
    closed_form_offsets,
    resolve_disutility,
)
from optmech.validation import check_positive, check_scores

__all__ = ["TruncatedLaplace", "ring_expected_cost", "ring_laplace_response", "wrap"]


def wrap(x) -> np.ndarray:
    """Points of the circle as numbers in ``[-pi, pi)``."""
    return np.mod(np.asarray(x, dtype=float) + math.pi, 2 * math.pi) - math.pi


@dataclass(frozen=True)
class TruncatedLaplace:
    """Density ``e^{-eps |x|}`` on ``[-half_width, half_width]``, normalised."""

    #: The decay rate ε of the density.
    epsilon: float
    #: Half the support's width (π on the ring of circumference 2π).
    half_width: float = math.pi

    @property
    def support(self) -> tuple[float, float]:
        return (-self.half_width, self.half_width)

    @property
    def _edge(self) -> float:
        return math.exp(-self.epsilon * self.half_width)

    @property
    def _norm(self) -> float:
        """``2 Z eps`` with ``Z = int e^{-eps |x|}``: ``2 (1 - e^{-eps A})``."""
        return -2.0 * math.expm1(-self.epsilon * self.half_width)

    def pdf(self, y) -> np.ndarray:
        y = np.asarray(y, dtype=float)
        inside = np.abs(y) <= self.half_width
        return np.where(inside, self.epsilon * np.exp(-self.epsilon * np.abs(y)) / self._norm, 0.0)

    def _lower_cdf(self, y: np.ndarray) -> np.ndarray:
        """cdf at ``y <= 0``."""
        y = np.maximum(y, -self.half_width)
        return (np.exp(self.epsilon * y) - self._edge) / self._norm

    def cdf(self, y) -> np.ndarray:
        y = np.asarray(y, dtype=float)
        return np.where(y <= 0, self._lower_cdf(np.minimum(y, 0.0)),
                        1.0 - self._lower_cdf(np.minimum(-y, 0.0)))

    def _lower_stop_loss(self, y: np.ndarray) -> np.ndarray:
        """``Psi(y) = int_{-A}^y cdf`` at ``y <= 0``."""
        y = np.maximum(y, -self.half_width)
        return ((np.exp(self.epsilon * y) - self._edge) / self.epsilon
                - (y + self.half_width) * self._edge) / self._norm

    def stop_loss(self, y) -> np.ndarray:
        """``E(y - X)^+``; for ``y > 0`` it is ``y + Psi(-y)`` (mean zero)."""
        y = np.asarray(y, dtype=float)
        low = self._lower_stop_loss(np.minimum(-np.abs(y), 0.0))
        return np.where(y <= 0, low, y + low)

    def sample(self, size=None, rng: np.random.Generator | None = None):
        """Inverse-cdf sampling."""
        rng = np.random.default_rng() if rng is None else rng
        u = rng.random(size)
        half = np.abs(u - 0.5) * self._norm  # in [0, 1 - e^{-eps A})
        magnitude = -np.log1p(-half) / self.epsilon
        return np.where(u < 0.5, -magnitude, magnitude)


def ring_expected_cost(offsets, epsilon: float, h=None) -> float:
    """Expected ``h(circle distance to the nearest result)`` under the ring's Laplace noise."""
    epsilon = check_positive(epsilon, "epsilon")
    a = wrap(check_scores(np.array(offsets, dtype=float, ndmin=1), "offsets"))
    extended = np.concatenate([a - 2 * math.pi, a, a + 2 * math.pi])
    return expected_cost(extended, epsilon, h, TruncatedLaplace(epsilon))


def ring_laplace_response(k: int, epsilon: float, h=None) -> ServerResponse:
    """Best offsets and cost for the ring's Laplace noise (module docstring)."""
    k = check_results(k)
    epsilon = check_positive(epsilon, "epsilon")
    disutility = resolve_disutility(h, epsilon)
    if k == 1:  # the noise is symmetric and unimodal about 0: the median 0 is optimal
        return ServerResponse(1, epsilon, np.zeros(1), ring_expected_cost([0.0], epsilon,
                                                                          disutility),
                              disutility.name, "numerical (ring)")
    line = closed_form_offsets(k, epsilon)
    even = (np.arange(k) + 0.5) * 2 * math.pi / k - math.pi
    starts = [line * f for f in (1.0, 0.5) if np.ptp(line * f) < 2 * math.pi]
    starts += [even, even + math.pi / k, 0.5 * even]

    def cost(a):
        return ring_expected_cost(a, epsilon, disutility)

    best = min((optimize.minimize(cost, x0, method="Nelder-Mead",
                                  options={"xatol": 1e-8, "fatol": 1e-14,
                                           "maxiter": 4000 * k, "maxfev": 8000 * k})
                for x0 in starts), key=lambda r: r.fun)
    return ServerResponse(k, epsilon, np.sort(wrap(best.x)), float(best.fun), disutility.name,
                          "numerical (ring)")
