"""Exact Bernoulli(p) and Bernoulli(exp(-x)) coins for rational p and x >= 0, vectorised.

Every coin is decided by comparing uniform random integers (:mod:`optmech.selection.exact.random`)
with exact integer thresholds; no floating-point number is involved.

Bernoulli(f / h) for integers ``0 <= f <= h``: heads iff ``V < f`` with ``V`` uniform on
``{0, ..., h - 1}``; for ``h > 2^63`` a lazy comparison 32 bits at a time
(:class:`Ratios`).

Bernoulli(exp(-gamma)), Canonne, Kamath & Steinke (2020), "The Discrete Gaussian for
Differential Privacy", Algorithm 1.  For ``0 <= gamma <= 1``: set ``K = 1`` and repeat
"draw ``A ~ Bernoulli(gamma / K)``; if ``A = 0`` stop, else ``K <- K + 1``"; output 1 iff the
final ``K`` is odd.  (Pr[stop at K] = gamma^(K-1)/(K-1)! - gamma^K/K!, so Pr[K odd] =
sum_j (-gamma)^j / j! = exp(-gamma).)  For ``gamma > 1`` the same algorithm multiplies
``floor(gamma)`` independent Bernoulli(exp(-1)) "unit" coins and one Bernoulli(exp(-frac))
coin with ``frac = gamma - floor(gamma)``: ``exp(-gamma) = exp(-1)^floor(gamma) exp(-frac)``.

How the draws are organised (each step is exact):

1. ``Bernoulli(gamma / K)`` with ``gamma = f / h`` is ``[W < f]`` with ``W`` uniform on
   ``{0..K h - 1}`` (``Pr = f / (K h)``) when ``K h <= 2^63``; else ``[U = 0] and [V < f]``
   with ``U`` uniform on ``{0..K-1}`` and ``V`` uniform on ``{0..h-1}`` independent:
   ``Pr = (1/K)(f/h)``, ``V`` drawn only when ``U = 0`` (its value matters only then).
   For a unit coin (``gamma = 1``) ``A`` is ``[U = 0]`` alone, and round ``K = 1`` is
   certain.
2. Lockstep: all coins of a batch are in the same round ``K``, so ``U`` has one bound and
   is drawn for the whole batch at once; a coin leaves the batch when its ``A`` is 0.
3. Bulk bits.  Round ``K = 2`` of a unit coin is one fair bit, and if that bit says
   ``A = 0`` the unit coin stops at the even ``K = 2``, i.e. it is tails, and so is every
   coin it is a factor of.  :func:`unit_blocks` therefore draws, for up to
   ``BULK_UNITS = 8`` unit factors of each coin, these round-2 bits first, as one random
   byte per coin: the coin dies unless its ``m`` low bits are all set (probability
   ``2^-m``).  Only the survivors run rounds ``K >= 3`` of those units.  This is the same
   set of independent draws as Algorithm 1, evaluated in another order, and a draw is
   skipped only when the outcome no longer depends on it; neither changes the joint
   distribution of the outputs.  For a coin far out in the tail (large ``gamma``) the
   typical cost is one random byte.

:func:`exp_coin` flips one coin with Python integers by the same steps (``[W < f]`` for
any ``K h``), stopping at the first unit factor that is tails.  It is for the samplers'
one-candidate-at-a-time paths, where a few coins are flipped and numpy's per-call cost
would dominate.
"""

from __future__ import annotations

import numpy as np

from optmech.selection.exact.random import INT64_MAX, RandomBytes, to_int64_if_fits

__all__ = ["BULK_UNITS", "Ratios", "exp_coin", "exp_coins", "unit_blocks"]

BULK_UNITS = 8   # unit factors whose round-2 bits share one random byte
_MASKS = np.array([(1 << m) - 1 for m in range(BULK_UNITS + 1)], dtype=np.uint8)


class Ratios:
    """A table of rationals ``f[j] / h`` in [0, 1] (integers ``f[j]``, one ``h``) from which
    Bernoulli coins are flipped: :meth:`coins` gives coin ``i`` the ratio ``f[index[i]] / h``.

    ``h <= 2^63``: heads iff ``V < f`` with ``V`` uniform on ``[0, h)``.  Larger ``h`` (``f``
    then holds Python ints): compare a uniform real ``U`` in [0, 1) with ``f / h``, 32 bits
    at a time.  With ``w`` the next 32 bits of ``U`` and ``a = floor(f 2^32 / h)`` (computed
    once per table entry), ``w < a`` means ``U < (w + 1) 2^-32 <= f / h`` (heads) and
    ``w > a`` means ``U >= (a + 1) 2^-32 > f / h`` (tails); on a tie (probability
    ``2^-32``), ``U = (a + U') 2^-32`` with ``U'`` uniform, and
    ``U < f / h  <=>  U' < f' / h`` with ``f' = f 2^32 - a h``: the same test again.
    """

    def __init__(self, f: np.ndarray, h: int):
        self.h = h
        self.small = h <= INT64_MAX + 1
        self.f = to_int64_if_fits(f) if self.small else f
        if not self.small:
            self.shifted = f.astype(object) << 32
            self.fixed = (self.shifted // h).astype(np.int64)     # <= 2^32 since f <= h

    def coins(self, source: RandomBytes, index: np.ndarray) -> np.ndarray:
        """Independent Bernoulli(``f[index[i]] / h``) coins."""
        if self.small:
            return source.below(self.h, index.size) < self.f[index]
        words = source.words(index.size, np.uint32).astype(np.int64)
        fixed = self.fixed[index]
        heads = words < fixed
        tie = (words == fixed).nonzero()[0]
        if tie.size:
            rest = self.shifted[index[tie]] - fixed[tie].astype(object) * self.h
            heads[tie] = Ratios(rest, self.h).coins(source, np.arange(tie.size))
        return heads


def _unit_rounds(source: RandomBytes, count: int, start: int) -> np.ndarray:
    """``count`` unit coins (Algorithm 1, gamma = 1) that have reached round ``start``
    with ``A = 1`` so far; finish them in lockstep and return which are heads."""
    heads = np.empty(count, dtype=bool)
    active = np.arange(count)
    k = start
    while active.size:
        going_on = source.below(k, active.size) == 0     # A ~ Bernoulli(1 / K)
        heads[active[~going_on]] = k % 2 == 1
        active = active[going_on]
        k += 1
    return heads


def unit_blocks(source: RandomBytes, units: np.ndarray) -> np.ndarray:
    """For every entry, whether ``units[i]`` (0..BULK_UNITS) independent Bernoulli(exp(-1))
    coins are all heads: round-2 bits first (one byte per entry), then rounds ``K >= 3`` of
    the survivors' units (step 3 of the module docstring)."""
    mask = _MASKS[units]
    alive = (source.words(units.size, np.uint8) & mask) == mask
    idx = (alive & (units > 0)).nonzero()[0]
    if idx.size:
        owner = np.repeat(idx, units[idx])
        alive[owner[~_unit_rounds(source, owner.size, start=3)]] = False
    return alive


def _fraction_coins(source: RandomBytes, fractions: Ratios, index: np.ndarray) -> np.ndarray:
    """Bernoulli(exp(-gamma_i)) with ``gamma_i = fractions[index[i]] < 1``, by Algorithm 1
    in lockstep (steps 1-2 of the module docstring)."""
    heads = np.empty(index.size, dtype=bool)
    active = np.arange(index.size)
    k = 1
    while active.size:
        if fractions.small and k * fractions.h <= INT64_MAX + 1:
            # [U = 0] and [V < f] in one draw: [W < f], W uniform on [0, K h)
            going_on = source.below(k * fractions.h, active.size) < fractions.f[index[active]]
        else:
            going_on = source.below(k, active.size) == 0                    # [U = 0]
            rest = going_on.nonzero()[0]
            going_on[rest] = fractions.coins(source, index[active[rest]])   # and [V < f]
        heads[active[~going_on]] = k % 2 == 1
        active = active[going_on]
        k += 1
    return heads


def exp_coins(source: RandomBytes, g: np.ndarray, h: int, index: np.ndarray,
              passed_units=None) -> np.ndarray:
    """Independent Bernoulli(exp(-g[index[i]] / h)) coins (integers ``g[j] >= 0``, ``h >= 1``).

    ``g`` is a table of exponents (int64, then ``h`` fits int64, or Python ints); Python
    integer work is done once per table entry, per coin only for a coin with more than
    ``2^63`` whole units.
    ``passed_units[i]`` (default 0) unit factors of coin ``i`` are known to be heads
    already (drawn by the caller with :func:`unit_blocks`); only the rest is drawn here.
    """
    whole = g // h
    fractions = Ratios(g - whole * h, h)
    remaining = to_int64_if_fits(whole)[index]
    if passed_units is not None:
        remaining = remaining - passed_units
    heads = np.ones(index.size, dtype=bool)
    todo = (remaining > 0).nonzero()[0]
    while todo.size:
        block = np.minimum(remaining[todo], BULK_UNITS).astype(np.int64)
        passed = unit_blocks(source, block)
        heads[todo[~passed]] = False
        remaining[todo] -= block
        todo = todo[passed & (remaining[todo] > 0)]
    todo = (heads & (fractions.f > 0)[index]).nonzero()[0]
    heads[todo] = _fraction_coins(source, fractions, index[todo])
    return heads


def _unit_heads(source: RandomBytes) -> bool:
    """One unit coin (Algorithm 1, gamma = 1) that has reached round 3 with ``A = 1``."""
    k = 3
    while source.integer_below(k) == 0:      # A ~ Bernoulli(1 / K)
        k += 1
    return k % 2 == 1


def exp_coin(source: RandomBytes, g: int, h: int) -> bool:
    """One Bernoulli(exp(-g / h)) coin (Python ints ``g >= 0``, ``h >= 1``): unit factors
    in blocks of up to ``BULK_UNITS`` (their round-2 bits first, as :func:`unit_blocks`),
    then the fraction, stopping at the first factor that is tails (module docstring)."""
    whole, f = divmod(g, h)
    while whole > 0:
        m = min(whole, BULK_UNITS)
        if source.integer_below(1 << m) != (1 << m) - 1:   # some unit stops at K = 2
            return False
        for _ in range(m):
            if not _unit_heads(source):
                return False
        whole -= m
    k = 1
    while f and source.integer_below(k * h) < f:           # A ~ Bernoulli((f / h) / K)
        k += 1
    return k % 2 == 1
