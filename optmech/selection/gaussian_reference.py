"""Report-noisy-max with Gaussian noise at 50 significant digits (mpmath): the independent
second computation of :mod:`optmech.selection.gaussian_noisy_max`.

For standardised scores ``y_r = q_r / sigma``,

    Pr[r] = integral phi(x - y_r) prod_{s != r} Phi(x - y_s) dx

is integrated by mpmath's tanh-sinh ``quad`` on the whole real line, split at the
integrand's mode ``m`` and at ``m + k s`` for ``k`` in ``±4, ±12, ±40`` (``s = 1 /
sqrt(-psi''(m))``, ``psi`` the log of the integrand: the integrand is log-concave, so these
pieces hold all of its mass and each is smooth); ``phi`` and ``Phi`` are mpmath's ``npdf``
and ``ncdf``, whose exponent range is unbounded, so a probability of ``1e-9775`` is computed
like one of 0.2.  The mode and ``s`` only place the split points: they are found in double
precision (bisection on ``psi'``, decreasing), nothing else is shared with the double path.
Every value is checked: ``quad``'s own error estimate must be below ``10^-(digits - 5)`` of
the value, or :class:`ArithmeticError` is raised.  A top probability ``1 - s`` with ``s``
below ``10^-digits`` would keep none of ``s``'s digits: where the others sum to ``s < 1/2``
the top's logarithm is ``log1p(-s)`` (the probabilities sum to 1 exactly).

Checked in tests against the closed forms ``Pr = Phi(-g / sqrt 2)`` of two candidates ``g``
scales apart (agreement to 1e-54 relative at gaps 0 to 300) and ``1/n`` of ``n`` tied
candidates.  Cost: about 1 s per candidate of a vector of a few candidates.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
from scipy import special

__all__ = ["DIGITS", "gaussian_log_pmf_mp"]

#: Significant digits of every value.
DIGITS = 50
_SPLITS = (-40, -12, -4, 0, 4, 12, 40)


def _mode_and_width(y: np.ndarray, r: int) -> tuple[float, float]:
    """The mode of ``phi(x - y_r) prod_{s != r} Phi(x - y_s)`` and ``1/sqrt(-psi'')`` there, in
    double precision (they only place the split points)."""
    others = np.delete(y, r)

    def slope(x: float) -> float:
        z = x - others
        h = np.exp(-0.5 * z * z - 0.5 * math.log(2 * math.pi) - special.log_ndtr(z))
        return float(h.sum()) - (x - y[r])

    a, b = float(y.min()) - 1.0, float(y.max()) + 40.0
    while slope(a) <= 0:
        a -= 2 * (b - a)
    for _ in range(200):
        m = 0.5 * (a + b)
        a, b = (m, b) if slope(m) > 0 else (a, m)
        if b - a <= 1e-12 * max(1.0, abs(m)):
            break
    m = 0.5 * (a + b)
    step = 1e-4 * max(1.0, abs(m) ** 0.5)
    curvature = max((slope(m - step) - slope(m + step)) / (2 * step), 1e-12)
    return m, 1.0 / math.sqrt(curvature)


def gaussian_log_pmf_mp(scores, sigma=1, digits: int = DIGITS, candidates=None) -> list:
    """``log Pr[argmax_r (q_r + sigma Z_r) = r]`` for i.i.d. standard normal ``Z_r``, as
    mpmath numbers at ``digits`` significant digits (``scores`` and ``sigma`` may be strings,
    read exactly); ``candidates``: only these indices (in that order; the top's
    ``log1p(-s)`` form then needs the others, so it applies with every candidate only)."""
    with mp.workdps(digits + 8):
        s = mp.mpf(sigma)
        q = [mp.mpf(v) for v in scores]
        top = max(q)
        y = [(v - top) / s for v in q]
        y_double = np.array([float(v) for v in y])
        out = []
        chosen = range(len(y)) if candidates is None else list(candidates)
        for r in chosen:
            m, width = _mode_and_width(y_double, r)
            mode = mp.mpf(m)
            others = y[:r] + y[r + 1:]

            def integrand(x, yr=y[r], others=others):
                value = mp.npdf(x - yr)
                for v in others:
                    value *= mp.ncdf(x - v)
                return value

            scale = integrand(mode)
            points = [-mp.inf] + [mode + k * mp.mpf(width) for k in _SPLITS] + [mp.inf]
            value, error = mp.quad(lambda x: integrand(x) / scale, points, error=True)
            if not error <= value * mp.mpf(10) ** (5 - digits):
                raise ArithmeticError(f"mpmath quad error {error} for candidate {r}")
            out.append(mp.log(scale) + mp.log(value))
        # a top probability 1 - s with s below 10^-digits keeps none of s's digits: its
        # logarithm is log1p(-s) from the others (exactly, since the pmf sums to 1)
        top = max(range(len(out)), key=lambda r: out[r])
        rest = mp.fsum(mp.exp(v) for r, v in enumerate(out) if r != top)
        if candidates is None and rest < mp.mpf("0.5"):
            out[top] = mp.log1p(-rest)
        return [+v for v in out]
