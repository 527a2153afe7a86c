"""Exact-arithmetic samplers for permute-and-flip and the exponential mechanism.

Floating-point samplers can leak through the low bits of their output (Mironov 2012,
"On significance of the least significant bits for differential privacy"); OpenDP answers
this by sampling from exact rationals.  These samplers do the same: the scores, epsilon
and the sensitivity are read as the exact rationals they denote (integers, ``Fraction``,
or floats as ``Fraction(float)`` would read them; :mod:`optmech.exact_rationals`), and
every random decision is an exact Bernoulli(exp(-x)) or Bernoulli(p) coin for a rational
``x`` or ``p``, built from uniform random integers (Canonne, Kamath & Steinke 2020,
Algorithm 1; :mod:`optmech.exact_bernoulli`).  Randomness comes from the OS CSPRNG
(``secrets``) unless a ``numpy.random.Generator`` is passed explicitly, which is meant for
reproducible tests only (:mod:`optmech.exact_random`).  What this does and does not protect
against: ``docs/security.md``.

Notation: ``c = epsilon / (2 sensitivity)`` (``epsilon / sensitivity`` if monotonic),
``x_r = c (q* - q_r) >= 0`` and ``p_r = exp(-x_r)``, all exact.

Permute-and-flip (McKenna & Sheldon 2020, Algorithm 1) visits the candidates in a uniformly
random order ``pi`` and returns the first ``r`` whose Bernoulli(p_r) coin is heads; the
coins are independent of each other and of ``pi``.  Two exact ways to run it:

* Flip everything (:func:`_uniform_head_per_row`, fewer than ``_LAZY_MIN`` candidates):
  flip all ``n`` coins, let ``H`` be the set of heads and return a uniform element of
  ``H``.  ``H`` is never empty (``p_r = 1`` at the maximum), and given ``H`` the first
  element of ``H`` in the independent uniform order ``pi`` is uniform on ``H`` (relabelling
  by a permutation of ``H`` leaves the law of ``pi`` unchanged).  Coins after the first
  head are never looked at by Algorithm 1; flipping them anyway changes nothing, as they
  are independent of everything else.  Vectorised over rows of independent draws.
* Lazily (:func:`_lazy_permute_and_flip`, from ``_LAZY_MIN`` candidates): generate
  ``pi`` as the order of first appearance in a stream of i.i.d. uniform indices (that
  order is a uniform permutation: relabelling the candidates leaves the stream's law, and
  so the order's, unchanged), flip the coins of the newly visited candidates batch by
  batch, and return the first head.  If ``n / _LAZY_SHARE`` candidates are visited
  without a head, the rest of ``pi`` is, given what was seen, a uniform order of the
  unvisited candidates independent of their coins, so the first bullet applies to them:
  a uniform head among the unvisited ones (they hold every maximum, so one exists).
  The expected number of visits is about ``n / sum_r p_r``; the switch caps the extra
  work at ``n / _LAZY_SHARE`` coins when ``sum_r p_r`` is small.

Exponential mechanism by PF with replacement (McKenna & Sheldon 2020, Algorithm 2): repeat
"draw ``r`` uniformly from all candidates; return it if its Bernoulli(p_r) coin is heads".
An attempt returns ``r`` with probability ``p_r / n``, so the output has
``Pr[r] = p_r / sum_s p_s``, the exponential mechanism.  Attempts are independent and
identically distributed, so the accepted attempts of one long stream, in order, are
independent draws: :func:`exponential_mechanism_exact` runs the attempts in vectorised
batches (their sizes only affect speed) and keeps the first ``count`` acceptances.
Expected cost: ``n / sum_r p_r`` attempts per draw.

Vectorised coins (:class:`_Coins`).  A coin with ``floor(x_r) >= m`` has ``m`` unit
factors whose round-2 bits can be drawn first, in bulk
(:func:`optmech.exact_bernoulli.unit_blocks`).  Each candidate is classified by
``min(floor(x_r), 8)`` with exact threshold comparisons (:meth:`ExactScores.units`),
one random byte per coin decides those bits, and only the survivors (the candidates near
the maximum and a ``2^-8`` fraction of the far ones) need their exact ``x_r`` and the
rest of their coin (:func:`optmech.exact_bernoulli.exp_coins`).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from optmech.exact_bernoulli import BULK_UNITS, Ratios, exp_coins, unit_blocks
from optmech.exact_random import RandomBytes
from optmech.exact_rationals import ExactScores, common_denominator, exact_exponent, to_fraction
from optmech.samplers import row_blocks
from optmech.validation import InvalidArgumentError, check_integer

__all__ = [
    "bernoulli",
    "bernoulli_exp",
    "bernoulli_logistic",
    "exponential_mechanism_exact",
    "permute_and_flip_exact",
]

_MAX_ATTEMPTS = 1 << 20     # EM attempts per vectorised batch
_LAZY_MIN = 1 << 14         # from this many candidates PF visits them lazily, ...
_LAZY_SHARE = 32            # ... at most n / 32 of them before flipping the rest at once
_LAZY_BATCH = 32            # first batch of uniform draws that give the random order


class _Coins:
    """Independent Bernoulli(p_r) coins, ``p_r = exp(-c (q* - q_r))``, for any array of
    candidates (each entry gets its own coin): :func:`unit_blocks` with one random byte
    per coin first, then the survivors' exact exponents and the rest of their coins."""

    def __init__(self, scores: ExactScores, exponent: Fraction, source: RandomBytes,
                 classify_all: bool):
        self.scores, self.exponent, self.source = scores, exponent, source
        self.thresholds = scores.unit_thresholds(exponent, BULK_UNITS)
        self.all_units = scores.units(self.thresholds) if classify_all else None

    def flip(self, candidates: np.ndarray) -> np.ndarray:
        units = self.scores.units(self.thresholds, candidates) if self.all_units is None \
            else self.all_units[candidates]
        survivors = np.flatnonzero(unit_blocks(self.source, units))
        g, h, index = self.scores.exponents(self.exponent, candidates[survivors])
        heads = np.zeros(candidates.size, dtype=bool)
        heads[survivors] = exp_coins(self.source, g, h, index,
                                     units[survivors].astype(np.int64))
        return heads


def _uniform_head_per_row(coins: _Coins, rows: int, n: int) -> np.ndarray:
    """For ``rows`` independent rows of all ``n`` coins, a uniform head of each row."""
    heads = np.flatnonzero(coins.flip(np.tile(np.arange(n), rows)))
    per_row = np.bincount(heads // n, minlength=rows)        # >= 1: the maximum is heads
    first = np.cumsum(per_row) - per_row
    return heads[first + coins.source.below_each(per_row)] % n


def _lazy_permute_and_flip(coins: _Coins, n: int) -> int:
    """One PF draw visiting candidates in uniform random order, stopping at the first
    head; after ``n / _LAZY_SHARE`` visits without one, a uniform head of the rest."""
    source = coins.source
    seen = np.zeros(n, dtype=bool)
    visited, batch = 0, _LAZY_BATCH
    while visited < n // _LAZY_SHARE:
        draws = source.below(n, batch)
        _, first = np.unique(draws, return_index=True)
        order = draws[np.sort(first)]              # first occurrences, in order
        order = order[~seen[order]]
        seen[order] = True
        visited += order.size
        heads = np.flatnonzero(coins.flip(order))
        if heads.size:
            return int(order[heads[0]])
        batch *= 2
    rest = np.flatnonzero(~seen)                   # holds every maximum: none was visited
    heads = rest[coins.flip(rest)]
    return int(heads[source.below(heads.size, 1)[0]])


def _permute_and_flip(scores: ExactScores, exponent: Fraction, count: int,
                      source: RandomBytes) -> np.ndarray:
    n = scores.size
    out = np.zeros(count, dtype=np.int64)
    if n == 1:
        return out
    coins = _Coins(scores, exponent, source, classify_all=n < _LAZY_MIN)
    if n >= _LAZY_MIN:
        out[:] = [_lazy_permute_and_flip(coins, n) for _ in range(count)]
        return out
    for block in row_blocks(count, n):
        out[block] = _uniform_head_per_row(coins, block.stop - block.start, n)
    return out


def _exponential_mechanism(scores: ExactScores, exponent: Fraction, count: int,
                           source: RandomBytes) -> np.ndarray:
    n = scores.size
    out = np.zeros(count, dtype=np.int64)
    if n == 1:
        return out
    coins = _Coins(scores, exponent, source, classify_all=n < _LAZY_MIN)
    filled = attempts = accepted = 0
    while filled < count:
        wanted = count - filled
        # Attempts per acceptance (n / sum_r p_r) estimated from those so far, doubling
        # while there are none; the batch size affects only the speed.
        batch = min(wanted * (attempts + 64) // (accepted + 1), _MAX_ATTEMPTS)
        tried = source.below(n, batch)
        won = tried[coins.flip(tried)]
        out[filled:filled + min(won.size, wanted)] = won[:wanted]
        filled += min(won.size, wanted)
        attempts += batch
        accepted += won.size
    return out


def _run(sampler, scores, epsilon, sensitivity, monotonic, count, rng) -> np.ndarray:
    exponent = exact_exponent(epsilon, sensitivity, monotonic)
    count = check_integer(count, "count", minimum=0)
    source = RandomBytes(rng)
    return sampler(ExactScores.from_input(scores), exponent, count, source)


def permute_and_flip_exact(scores, epsilon, sensitivity=1, monotonic: bool = False,
                           count: int = 1, rng=None) -> np.ndarray:
    """``count`` independent permute-and-flip selections, sampled with exact arithmetic.

    ``Pr[PF = r] = p_r int_0^1 prod_{s != r} (1 - p_s t) dt`` with
    ``p_r = exp(-c (q* - q_r))`` (see :class:`optmech.PermuteAndFlip`); ``scores``,
    ``epsilon`` and ``sensitivity`` are integers, ``Fraction`` or finite floats, each read
    as the exact rational it denotes.  ``rng=None`` draws from the OS CSPRNG
    (``secrets``); a ``numpy.random.Generator`` may be passed for reproducible tests, and
    is then the only source of randomness.  Method and proof: module docstring.
    Returns an int64 array of candidate indices.
    """
    return _run(_permute_and_flip, scores, epsilon, sensitivity, monotonic, count, rng)


def exponential_mechanism_exact(scores, epsilon, sensitivity=1, monotonic: bool = False,
                                count: int = 1, rng=None) -> np.ndarray:
    """``count`` independent exponential-mechanism selections, ``Pr[r] ∝ p_r``, sampled
    with exact arithmetic by PF with replacement (rejection).  Arguments and randomness as
    :func:`permute_and_flip_exact`; expected cost ``n / sum_r p_r`` coins per draw."""
    return _run(_exponential_mechanism, scores, epsilon, sensitivity, monotonic, count, rng)


def _single(value: Fraction):
    """``value = g[0] / h`` as a one-entry table (:func:`exp_coins`, :class:`Ratios`)."""
    g, h, _ = common_denominator(np.ones(1, dtype=np.int64), value.numerator,
                                 value.denominator)
    return g, h


def bernoulli_exp(x, count: int = 1, rng=None) -> np.ndarray:
    """``count`` independent Bernoulli(exp(-x)) coins (a bool array) for a rational
    ``x >= 0`` (integer, ``Fraction`` or finite float, read exactly).

    Canonne-Kamath-Steinke Algorithm 1 with bulk round-2 bits
    (:mod:`optmech.exact_bernoulli`); randomness as :func:`permute_and_flip_exact`.
    """
    value = to_fraction(x, "x")
    if value < 0:
        raise InvalidArgumentError("x", x, "a rational number >= 0")
    count = check_integer(count, "count", minimum=0)
    g, h = _single(value)
    return exp_coins(RandomBytes(rng), g, h, np.zeros(count, dtype=np.int64))


def bernoulli(p, count: int = 1, rng=None) -> np.ndarray:
    """``count`` independent Bernoulli(p) coins for a rational ``p`` in [0, 1]: heads iff
    a uniform integer on ``[0, denominator)`` is below the numerator (for denominators
    beyond 2^63, the equivalent lazy comparison of :class:`Ratios`)."""
    value = to_fraction(p, "p")
    if not 0 <= value <= 1:
        raise InvalidArgumentError("p", p, "a rational number in [0, 1]")
    count = check_integer(count, "count", minimum=0)
    g, h = _single(value)
    return Ratios(g, h).coins(RandomBytes(rng), np.zeros(count, dtype=np.int64))


def bernoulli_logistic(x, count: int = 1, rng=None) -> np.ndarray:
    """``count`` independent Bernoulli(1 / (1 + exp(-x))) coins for a rational ``x >= 0``
    (2-ary randomised response with budget ``x``: heads = report the truth).

    Each round draws a fair bit: 1 gives heads; otherwise a Bernoulli(exp(-x)) coin that
    comes up heads gives tails, and tails of both start a new round.  A round ends in heads
    with probability 1/2 and in tails with probability ``exp(-x) / 2``, so the output is
    heads with probability ``1 / (1 + exp(-x))``; only exact coins are used.
    """
    value = to_fraction(x, "x")
    if value < 0:
        raise InvalidArgumentError("x", x, "a rational number >= 0")
    count = check_integer(count, "count", minimum=0)
    out = np.zeros(count, dtype=bool)
    pending = np.arange(count)
    while pending.size:
        fair = bernoulli(Fraction(1, 2), pending.size, rng)
        out[pending[fair]] = True
        rest = pending[~fair]
        pending = rest[~bernoulli_exp(value, rest.size, rng)]
    return out
