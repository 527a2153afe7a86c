"""The optimal rule M* of the classical secretary problem: threshold and rank distribution.

Notation of the private secretary paper (Grining et al., arXiv:2005.01586v4): n
candidates, rank 1 is the best, ``t_n`` the threshold of Fact 1, ``r_{k,n}`` the probability
that M* selects the k-th best candidate (Fact 2 / Theorem 5.1), ``a_k`` the constants of
Corollary 1.

Erratum (docs/errata.md).  Fact 2 and Theorem 5.1 print

    r_{k,n} = (t_n - 1)/n * ( sum_{i=t_n}^{n-k+1} C(n-k, i-1)/C(n-1, i-1) / (i-1) + 1/(n-1) ).

The last term is the forced stop at time n, which selects the last candidate only when the
best one arrived before ``t_n``; the last candidate is then never the best, so for k = 1
the term must be dropped.  With it the printed values sum to ``1 + (t_n - 1)/(n (n - 1))``;
without it they sum to 1, agree with exhaustive enumeration of all arrival orders, and
``r_{1,n}`` equals the separately printed win probability
``(t_n - 1)/n * sum_{i=t_n}^{n} 1/(i-1)``.  Every function here uses the corrected form;
:func:`rank_distribution_as_printed` keeps the printed one for comparison.  The same
correction applies to Lemma 3's difference recurrence at k = 1:
``r_{1,n} - r_{2,n} = (t_n - 1)(n - t_n) / (n (n - 1))``.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np

from optmech.resources import require_memory
from optmech.validation import InvalidArgumentError, check_integer

__all__ = [
    "EXACT_MAX_N",
    "RankBlocks",
    "a_coefficients",
    "asymptotic_rank_distribution",
    "rank_distribution",
    "rank_distribution_as_printed",
    "rank_distribution_exact",
    "success_probability",
    "threshold",
]

EXACT_MAX_N = 2000
"""Largest n accepted by the exact (Fraction, O(n^2) big-rational) functions."""

_DIGITS = 40


def _check_n(n, maximum: int | None = None) -> int:
    return check_integer(n, "n", minimum=2, maximum=maximum)


def _tail_harmonic(n: int, t: int) -> mpmath.mpf:
    """sum_{i=t}^{n-1} 1/i = psi(n) - psi(t), to about 40 digits."""
    return mpmath.digamma(n) - mpmath.digamma(t)


def threshold(n: int) -> int:
    """``t_n`` of Fact 1: the smallest t >= 1 with ``1/t + 1/(t+1) + ... + 1/(n-1) <= 1``.

    Bisection on ``psi(n) - psi(t)`` with mpmath at 40 digits (O(log n) evaluations, any
    n).  The sum equals 1 exactly only for n = 2 (t_2 = 1: M* then stops at once, like the
    blind choice); otherwise a sum closer to 1 than 1e-30 is settled with exact fractions.
    t_n ~ n/e.
    """
    n = _check_n(n)
    if n == 2:
        return 1
    with mpmath.workdps(_DIGITS):
        low, high = 1, n - 1              # S(1) > 1 >= S(n-1) = 1/(n-1)
        while high - low > 1:
            mid = (low + high) // 2
            if _tail_harmonic(n, mid) <= 1:
                high = mid
            else:
                low = mid
        for t in (low, high):
            if abs(_tail_harmonic(n, t) - 1) < mpmath.mpf(10) ** (-30):
                exact = sum(Fraction(1, i) for i in range(t, n))
                return t if exact <= 1 else t + 1
    return high


def rank_distribution(n: int) -> np.ndarray:
    """``r_{k,n}`` for k = 1..n (float64), the rank distribution of M* (corrected Fact 2).

    Computed from the tail with Lemma 3's differences, all positive:
    ``r_{n,n} = (t-1)/(n(n-1))`` (only the forced stop reaches rank n),
    ``r_{k,n} - r_{k+1,n} = (t-1)/(n k) * C(n-t+1, k)/C(n-1, k)`` for k >= 2 and
    ``(t-1)(n-t)/(n(n-1))`` for k = 1 (erratum, module docstring).  The binomial ratio is a
    cumulative product of factors in [0, 1] and the sum runs from the smallest terms up,
    so there is no cancellation or overflow: relative error about 1e-14 for n up to 10^6
    and beyond (the alternating or binomial-sum forms lose digits or overflow long before).
    O(n) time; ``n`` whose arrays (about 10 doubles per candidate, with the mixes and
    differences callers build) exceed the memory budget is refused up front.
    :class:`RankBlocks` gives the same numbers, bit for bit, a block at a time.
    """
    n = _check_n(n)
    require_memory(80 * n, "n", n)
    return RankBlocks(n).values(0, n)


class RankBlocks:
    """:func:`rank_distribution` read a block at a time, in memory independent of ``n``:
    :meth:`values` ``(start, stop)`` equals ``rank_distribution(n)[start:stop]`` bit for bit.

    The cumulative product (forward) and the sum from the tail (backward) run block by block
    with the running value carried over, in the same order of operations as one pass over
    the whole array (numpy's ``cumprod``/``cumsum`` are sequential), after a first pass
    that records both running values at every block edge: ``2 n / BLOCK`` doubles, and
    about three passes of ``O(n)`` work."""

    #: Ranks per block.
    BLOCK = 1 << 18

    def __init__(self, n: int):
        self.n = n = _check_n(n)
        self.t = t = threshold(n)
        self.uniform = t == 1
        self._recent: dict[int, np.ndarray] = {}
        if self.uniform:
            return
        self.scale = (t - 1) / n
        self.tail = self.scale / (n - 1)
        edges = range(0, n - 1, self.BLOCK)          # blocks of the n - 1 steps
        self._ratio_in = []                          # cumprod carried into each block
        carry = 1.0
        for start in edges:
            self._ratio_in.append(carry)
            carry = self._ratios(start, carry)[-1]
        self._sum_out = [0.0] * len(self._ratio_in)  # tail sum carried out of each block
        carry = 0.0
        for block in reversed(range(len(self._ratio_in))):
            self._sum_out[block] = carry
            carry = self._suffix_sums(block, carry)[0]

    def _ratios(self, start: int, carry: float) -> np.ndarray:
        """``C(n-t+1, k) / C(n-1, k)`` for the block of steps from ``k = start + 1``."""
        n, t = self.n, self.t
        k = np.arange(start + 1, min(start + self.BLOCK, n - 1) + 1, dtype=float)
        return np.cumprod(np.concatenate([[carry], (n - t + 2 - k) / (n - k)]))[1:]

    def _steps(self, block: int) -> np.ndarray:
        """``r_k - r_{k+1}`` for the block's ``k`` (k = 1 corrected)."""
        start = block * self.BLOCK
        k = np.arange(start + 1, min(start + self.BLOCK, self.n - 1) + 1, dtype=float)
        steps = self.scale * self._ratios(start, self._ratio_in[block]) / k
        if start == 0:
            steps[0] = self.scale * (self.n - self.t) / (self.n - 1)
        return steps

    def _suffix_sums(self, block: int, carry: float) -> np.ndarray:
        """``sum_{m >= k} steps_m`` for the block's ``k``, given the sum after the block."""
        steps = self._steps(block)
        return np.cumsum(np.concatenate([[carry], steps[::-1]]))[:0:-1]

    def _block(self, block: int) -> np.ndarray:
        """``r_k`` for the block's ``k`` but the last rank; the last two blocks read are
        kept (a window that overlaps the next block reads both)."""
        if block not in self._recent:
            self._recent = {**{b: v for b, v in self._recent.items() if b == block - 1},
                            block: self.tail + self._suffix_sums(block, self._sum_out[block])}
        return self._recent[block]

    def values(self, start: int, stop: int) -> np.ndarray:
        """``r_{k,n}`` for the 0-based ranks ``start <= k - 1 < stop``."""
        start, stop = max(start, 0), min(stop, self.n)
        if self.uniform:
            return np.full(max(stop - start, 0), 1.0 / self.n)
        out = np.full(max(stop - start, 0), self.tail)       # r_n (and the padding)
        first, last = start // self.BLOCK, min(stop, self.n - 1)
        for block in range(first, (last - 1) // self.BLOCK + 1 if last > start else first):
            lo = block * self.BLOCK
            sums = self._block(block)
            a, b = max(lo, start), min(lo + sums.size, last)
            out[a - start:b - start] = sums[a - lo:b - lo]
        return out


def _exact(n: int, printed: bool) -> list[Fraction]:
    n = _check_n(n, EXACT_MAX_N)
    t = threshold(n)
    if t == 1:
        return [Fraction(1, n)] * n
    scale = Fraction(t - 1, n)
    out = []
    for k in range(1, n + 1):
        total = sum((Fraction(math.comb(n - k, i - 1), math.comb(n - 1, i - 1) * (i - 1))
                     for i in range(t, n - k + 2)), Fraction(0))
        if k >= 2 or printed:
            total += Fraction(1, n - 1)
        out.append(scale * total)
    return out


def rank_distribution_exact(n: int) -> list[Fraction]:
    """``r_{k,n}`` as exact fractions from the binomial sum of Theorem 5.1, corrected
    (no forced-stop term for k = 1).  O(n^2) big-rational operations: n <= 2000."""
    return _exact(n, printed=False)


def rank_distribution_as_printed(n: int) -> list[Fraction]:
    """Fact 2 / Theorem 5.1 exactly as printed (with the 1/(n-1) term also for k = 1).

    Not a distribution: it sums to ``1 + (t_n - 1)/(n (n - 1))``.  Kept only to show the
    erratum; use :func:`rank_distribution_exact`."""
    return _exact(n, printed=True)


def success_probability(n: int) -> float:
    """P(M* selects the best) = ``(t_n - 1)/n * sum_{i=t_n}^{n} 1/(i-1)`` (Fact 2), -> 1/e."""
    n = _check_n(n)
    t = threshold(n)
    if t == 1:
        return 1.0 / n
    with mpmath.workdps(_DIGITS):
        return float(mpmath.mpf(t - 1) / n * _tail_harmonic(n, t - 1))


def a_coefficients(k) -> np.ndarray:
    """``a_k = sum_{s>=k} (1 - 1/e)^s / s`` (Corollary 1), k >= 1; a_1 = 1, a_2 = 1/e.

    Summed directly from s = k over 120 terms (the tail beyond is below 1e-24 relative:
    the terms fall by a factor 1 - 1/e each), never as 1 minus a partial sum.
    """
    k = np.asarray(k)
    if not np.issubdtype(k.dtype, np.integer) or (k < 1).any():
        raise InvalidArgumentError("k", k, "integers >= 1")
    x = 1.0 - math.exp(-1.0)
    j = np.arange(120)
    kk = k[..., None].astype(float)
    return np.exp(kk[..., 0] * math.log(x)) * (x ** j / (kk + j)).sum(axis=-1)


def asymptotic_rank_distribution(k) -> np.ndarray:
    """``lim_n r_{k,n} = a_k / e`` for fixed k (Theorem 5.2 / Fact 2)."""
    return a_coefficients(k) / math.e
