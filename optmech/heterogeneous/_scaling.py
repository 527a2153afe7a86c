"""Exact power-of-two rescaling, for computations that are invariant under a common scale.

The GEM transform (its ratios do not change when scores and sensitivities are multiplied
by the same factor) and random stopping (its output distribution does not change when
scores and noise scales are) can be evaluated on ``2^k`` times their inputs.  Multiplying
by ``2^k`` is exact in the normal range of doubles, so for inputs that need no rescaling
(``k = 0``) nothing changes, and otherwise the results equal those of the unscaled
computation wherever the latter does not overflow.
"""

from __future__ import annotations

import numpy as np

__all__ = ["log2_range", "power_of_two_shift", "times_power_of_two"]


def log2_range(values: np.ndarray) -> tuple[float, float]:
    """``(lo, hi)`` with ``2^lo <= |x| < 2^hi`` for every nonzero entry ``x``
    (``(inf, -inf)`` when all are 0)."""
    _, exponents = np.frexp(values[values != 0])
    if exponents.size == 0:
        return np.inf, -np.inf
    return float(exponents.min() - 1), float(exponents.max())


def times_power_of_two(values: np.ndarray, factor: float, k: int) -> np.ndarray:
    """``values * factor * 2^k`` for a finite ``factor > 0``, without an intermediate
    overflow or underflow (the caller chooses ``k`` so that the product fits; entries
    below the double range become subnormal or 0)."""
    mantissa, exponent = np.frexp(factor)
    x_mantissa, x_exponent = np.frexp(values)
    return np.ldexp(x_mantissa * mantissa, x_exponent + int(exponent) + k)


def power_of_two_shift(low: float, top: float, bound: int) -> int | None:
    """``k`` with ``low + k >= -bound`` and ``top + k <= bound`` (0 when it will do, so
    ordinary inputs are not touched), or None when ``top - low > 2 bound``."""
    if top - low > 2 * bound:
        return None
    if low >= -bound and top <= bound:
        return 0
    return int(bound - top) if top > bound else int(-bound - low)
