"""Scores and privacy parameters as exact rationals, for the exact samplers.

Every accepted input denotes an exact rational number and is read as exactly that number:
integers as themselves, ``fractions.Fraction`` as itself, and a binary float (a double is
``M 2^E`` with integers ``M``, ``E``) as that dyadic rational, as ``Fraction(float)`` does.
Non-finite values are refused.  Scores keep their native representation (int64, float64
or an object array of Python ints / ``Fraction``) so that the bulk operations stay
vectorised; two operations touch them, and both are exact:

* :meth:`ExactScores.units`: ``min(floor(x_r), limit)`` for ``x_r = c (q* - q_r)``, from
  ``floor(x_r) >= m  <=>  q_r <= tau_m = q* - m / c``.  The rational ``tau_m`` is computed
  exactly (integer numerator and denominator) and rounded *down* into the scores' own
  type (``floor`` for integers; the largest double ``<= tau_m`` for floats, found with an
  exact ``Fraction`` check and ``math.nextafter``; ``Fraction`` scores keep ``tau_m``).
  For a value ``q`` of that type, ``q <= tau_m  <=>  q <= round_down(tau_m)``, and
  comparisons between two doubles or two int64 are exact, so the classification is exact.
* :meth:`ExactScores.exponents`: ``x_r = g_r / h`` with integers ``g_r`` and one common
  ``h``, for the candidates that need their exact value.  Doubles are split exactly into
  ``M 2^E`` (``numpy.frexp``, then scaling the mantissa by ``2^53``, both exact) and
  brought to a common power of two.  int64 arithmetic is used only after checking with
  Python integers that nothing can overflow; otherwise the numbers stay Python ints.
* :meth:`ExactScores.exponent_of`: the same ``x_r`` for one candidate, in Python
  integers from ``as_integer_ratio`` (exact for ints, floats and ``Fraction``).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

import numpy as np

from optmech.selection.exact.random import INT64_MAX, bit_length, to_int64_if_fits
from optmech.validation import InvalidArgumentError

__all__ = ["ExactScores", "common_denominator", "exact_exponent", "to_fraction"]

_SCORES_ALLOWED = ("a non-empty 1-D sequence of finite integers, floats or "
                   "fractions.Fraction values")


def to_fraction(value, argument: str) -> Fraction:
    """``value`` (an integer, ``Fraction``, ``Decimal`` or finite float) as an exact
    ``Fraction``; anything else, including ``nan`` and ``inf``, is refused."""
    allowed = "a finite integer, float or fractions.Fraction"
    if isinstance(value, (bool, np.bool_)):
        raise InvalidArgumentError(argument, value, allowed)
    if isinstance(value, numbers.Rational):
        return Fraction(int(value.numerator), int(value.denominator))
    if isinstance(value, (float, np.floating, Decimal)):
        if not (value.is_finite() if isinstance(value, Decimal) else math.isfinite(value)):
            raise InvalidArgumentError(argument, value, allowed)
        if isinstance(value, np.floating):
            return Fraction(*value.as_integer_ratio())
        return Fraction(value)
    raise InvalidArgumentError(argument, value, allowed)


def exact_exponent(epsilon, sensitivity, monotonic: bool) -> Fraction:
    """``c = epsilon / (2 sensitivity)`` (``epsilon / sensitivity`` if monotonic), exactly."""
    eps = to_fraction(epsilon, "epsilon")
    delta = to_fraction(sensitivity, "sensitivity")
    if eps <= 0:
        raise InvalidArgumentError("epsilon", epsilon, "a finite number > 0")
    if delta <= 0:
        raise InvalidArgumentError("sensitivity", sensitivity, "a finite number > 0")
    return eps * Fraction(delta.denominator, delta.numerator * (1 if monotonic else 2))


def _largest_double_at_most(t: Fraction):
    """The largest double ``<= t``, or None if ``t`` is below every finite double."""
    try:
        d = float(t)          # correctly rounded (Python's int / int is)
    except OverflowError:     # callers have t <= a finite double, so t < -max double
        return None
    if Fraction(d) > t:
        d = math.nextafter(d, -math.inf)
    return None if math.isinf(d) else d


def _dyadic(values: np.ndarray):
    """Integers ``N`` (int64 if they fit, else Python ints) and ``E`` with
    ``values = N 2^E`` exactly, for a float64 array."""
    mantissa, exponent = np.frexp(values)              # values = mantissa 2^exponent, exact
    m = np.ldexp(mantissa, 53).astype(np.int64)        # |mantissa| 2^53 < 2^53: integer
    e = exponent.astype(np.int64) - 53
    nonzero = m != 0
    if not nonzero.any():
        return np.zeros(values.size, dtype=np.int64), 0
    magnitude = np.abs(m)
    zeros = bit_length(magnitude & -magnitude) - 1     # trailing zero bits of M
    zeros[~nonzero] = 0
    m >>= zeros
    e += zeros
    low = int(e[nonzero].min())
    shift = np.where(nonzero, e - low, 0)
    if int((bit_length(np.abs(m)) + shift).max()) <= 62:
        return m << shift, low
    return m.astype(object) << shift.astype(object), low


@dataclass(frozen=True)
class ExactScores:
    """A validated score vector; ``values`` is int64, float64, or an object array whose
    entries are Python ints or ``Fraction`` (see the module docstring)."""

    #: The scores, each the exact rational it denotes: int64, float64, or an object array of
    #: Python ints or ``Fraction`` values (length >= 1).
    values: np.ndarray
    #: ``q* = max_r q_r``, exactly, as a Python int, float or ``Fraction``.
    top: object

    @classmethod
    def from_input(cls, scores) -> "ExactScores":
        """Validate ``scores`` and keep each entry as the exact rational it denotes."""
        try:
            if isinstance(scores, np.ndarray):
                arr = scores
            else:
                arr = np.empty(len(scores), dtype=object)
                arr[:] = list(scores)
        except (TypeError, ValueError):
            raise InvalidArgumentError("scores", scores, _SCORES_ALLOWED) from None
        if arr.ndim != 1 or arr.size == 0:
            raise InvalidArgumentError("scores", scores, _SCORES_ALLOWED)
        values = cls._native(arr, scores)
        top = values.max()
        return cls(values, top if values.dtype == object else top.item())

    @staticmethod
    def _native(arr: np.ndarray, scores) -> np.ndarray:
        kind = arr.dtype.kind
        if kind in "iu":
            return to_int64_if_fits(arr.astype(object) if kind == "u" else arr)
        if kind == "f" and arr.dtype.itemsize <= 8:
            values = arr.astype(np.float64, copy=False)    # float16/32 -> float64: exact
            if not np.isfinite(values).all():
                raise InvalidArgumentError("scores", scores, _SCORES_ALLOWED)
            return values
        if kind not in "fO":
            raise InvalidArgumentError("scores", scores, _SCORES_ALLOWED)
        if all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_))
               for v in arr):
            return to_int64_if_fits(np.array([int(v) for v in arr], dtype=object))
        if all(type(v) is float or isinstance(v, (np.float64, np.float32, np.float16))
               for v in arr):
            return ExactScores._native(arr.astype(np.float64), scores)
        try:
            exact = [to_fraction(v, "scores") for v in arr]
        except InvalidArgumentError:
            raise InvalidArgumentError("scores", scores, _SCORES_ALLOWED) from None
        out = np.empty(len(exact), dtype=object)
        out[:] = exact
        return out

    @property
    def size(self) -> int:
        return self.values.size

    def unit_thresholds(self, exponent: Fraction, limit: int) -> list:
        """``theta_m`` for ``m = 1, 2, ...`` (at most ``limit``, decreasing) such that
        ``floor(exponent (q* - q_r)) >= m  <=>  q_r <= theta_m`` for every score ``q_r``:
        ``tau_m = q* - m / exponent`` rounded down into the scores' type.  Values of ``m``
        that no score can reach are left out."""
        kind = self.values.dtype.kind
        top = Fraction(self.top)
        # tau_m = (top_n num - m den top_d) / (top_d num) for top = top_n / top_d and
        # exponent = num / den, in integers.
        base, step = top.numerator * exponent.numerator, exponent.denominator * top.denominator
        scale = top.denominator * exponent.numerator
        thresholds = []
        for m in range(1, limit + 1):
            if kind == "i":
                t = (base - m * step) // scale
                if t < -INT64_MAX - 1:
                    break
            elif kind == "f":
                t = _largest_double_at_most(Fraction(base - m * step, scale))
                if t is None:
                    break
            else:
                t = Fraction(base - m * step, scale)
            thresholds.append(t)
        return thresholds

    def units(self, thresholds: list, idx=None) -> np.ndarray:
        """``min(floor(exponent (q* - q_r)), len(thresholds))`` for ``r`` in ``idx`` (default
        all), exactly, from :meth:`unit_thresholds` (uint8)."""
        values = self.values if idx is None else self.values[idx]
        # Scores below the last threshold (usually most of them) need one comparison;
        # the others count the thresholds >= q_r.
        k = len(thresholds)
        units = np.full(values.size, k, dtype=np.uint8)
        near = (values > thresholds[-1]).nonzero()[0] if k else np.arange(values.size)
        values = values[near]
        count = np.zeros(near.size, dtype=np.uint8)
        for t in thresholds[:-1]:
            count += values <= t
        units[near] = count
        return units

    def exponent_of(self, exponent: Fraction, r: int):
        """``(g, h)``, Python ints in lowest terms with ``exponent (q* - q_r) = g / h``."""
        top_num, top_den = self.top.as_integer_ratio()
        num, den = self.values.item(r).as_integer_ratio()
        g = exponent.numerator * (top_num * den - num * top_den)
        h = exponent.denominator * top_den * den
        common = math.gcd(g, h)
        return g // common, h // common

    def exponents(self, exponent: Fraction, idx: np.ndarray):
        """``(g, h, index)`` with ``exponent (q* - q_r) = g[index[i]] / h`` exactly for
        ``r = idx[i]``: a table ``g`` of integers and one denominator ``h``.

        ``g`` is int64 (then ``h < 2^63``) or, when that cannot hold the numbers, an object
        array of Python ints; then it has one entry per distinct score, so that Python
        integer arithmetic is done once per distinct value.
        """
        kind = self.values.dtype.kind
        num, den = exponent.numerator, exponent.denominator
        if kind == "O":
            unique, index = np.unique(idx, return_inverse=True)
            x = [exponent * (self.top - v) for v in self.values[unique]]
            den = math.lcm(1, *(v.denominator for v in x))
            gaps = np.array([v.numerator * (den // v.denominator) for v in x], dtype=object)
            g, h, table = common_denominator(gaps, 1, den)
            return g, h, table[index]
        values = self.values[idx]
        if kind == "f":
            n, low = _dyadic(np.concatenate(([self.top], values)))
            gaps = n[0] - n[1:]                         # |N| < 2^62: no int64 overflow
            num, den = num << max(low, 0), den << max(-low, 0)
        else:
            fits = values.size == 0 or self.top - int(values.min()) <= INT64_MAX
            gaps = self.top - (values if fits else values.astype(object))
        return common_denominator(gaps, num, den)


def common_denominator(gaps: np.ndarray, num: int, den: int):
    """``(g, h, index)`` with ``g[index[i]] / h = gaps[i] num / den`` (integers
    ``gaps[i] >= 0``, ``num``, ``den >= 1``), ``h`` as small as one common denominator
    allows.  ``g`` is int64 (``index`` the identity) when ``g`` and ``h`` fit it; else an
    object array of Python ints with one entry per distinct gap."""
    common = math.gcd(num, den)
    num, den = num // common, den // common
    if gaps.size:
        spread = math.gcd(int(np.gcd.reduce(gaps)) if gaps.dtype != object
                          else math.gcd(*gaps.tolist()), den)
        if spread > 1:
            gaps, den = gaps // spread, den // spread
    if gaps.dtype != object and den <= INT64_MAX and \
            (gaps.size == 0 or int(gaps.max()) * num <= INT64_MAX):
        return gaps * num, den, np.arange(gaps.size)
    gaps, index = _distinct(gaps)
    return gaps.astype(object) * num, den, index


def _distinct(values: np.ndarray):
    """``(table, index)`` with ``table[index] == values`` and distinct table entries
    (non-negative integers); a counting pass when their range is small, else a sort."""
    if values.dtype != object and values.size and int(values.max()) < 4 * values.size:
        present = np.zeros(int(values.max()) + 1, dtype=bool)
        present[values] = True
        return present.nonzero()[0], (np.cumsum(present) - 1)[values]
    return np.unique(values, return_inverse=True)
