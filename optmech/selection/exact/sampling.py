"""Exact-arithmetic samplers for permute-and-flip and the exponential mechanism.

Floating-point samplers can leak through the low bits of their output (Mironov 2012,
"On significance of the least significant bits for differential privacy"); OpenDP answers
this by sampling from exact rationals.  These samplers do the same: the scores, epsilon
and the sensitivity are read as the exact rationals they denote (integers, ``Fraction``,
or floats as ``Fraction(float)`` would read them; :mod:`optmech.selection.exact.rationals`), and
every random decision is an exact Bernoulli(exp(-x)) or Bernoulli(p) coin for a rational
``x`` or ``p``, built from uniform random integers (Canonne, Kamath & Steinke 2020,
Algorithm 1; :mod:`optmech.selection.exact.bernoulli`).  Randomness comes from the OS CSPRNG
(``secrets``) unless a ``numpy.random.Generator`` is passed explicitly, which is meant for
reproducible tests only (:mod:`optmech.selection.exact.random`).  What this does and does
not protect against: ``docs/security.md``.

Notation: ``c = epsilon / (2 sensitivity)`` (``epsilon / sensitivity`` if monotonic),
``x_r = c (q* - q_r) >= 0`` and ``p_r = exp(-x_r)``, all exact.

Permute-and-flip (McKenna & Sheldon 2020, Algorithm 1) visits the candidates in a uniformly
random order ``pi`` and returns the first ``r`` whose Bernoulli(p_r) coin is heads; the
coins are independent of each other and of ``pi``.  Two exact ways to run it:

* Flip everything (:func:`_uniform_head_per_row`): flip all ``n`` coins, let ``H`` be the
  set of heads and return a uniform element of ``H``.  ``H`` is never empty (``p_r = 1``
  at the maximum), and given ``H`` the first element of ``H`` in the independent uniform
  order ``pi`` is uniform on ``H`` (relabelling by a permutation of ``H`` leaves the law
  of ``pi`` unchanged).  Coins after the first head are never looked at by Algorithm 1;
  flipping them anyway changes nothing, as they are independent of everything else.
  Vectorised over rows of independent draws.
* Lazily (:func:`_lazy_permute_and_flip`): generate ``pi`` as the order of first
  appearance in a stream of i.i.d. uniform indices (that order is a uniform permutation:
  relabelling the candidates leaves the stream's law, and so the order's, unchanged),
  flip the coins of the newly visited candidates and return the first head.  The first
  visits flip one coin at a time with Python integers (:meth:`_Coins.flip_one`); from
  ``_LAZY_MIN`` candidates, doubling batches follow until ``n / _LAZY_SHARE`` are visited.
  When the visits stop without a head, the rest of ``pi`` is, given what was seen, a
  uniform order of the unvisited candidates independent of their coins, so the first
  bullet applies to them: a uniform head among the unvisited ones (they hold every
  maximum, so one exists).  This holds whatever rule, based on what was seen, stops the
  visits.  A draw is always finished this way, never abandoned and drawn afresh: the
  draws kept would then be those whose head came early, which favours large ``p_r``
  (towards EM; ``test_lazy_draws_finish_with_the_rest_then_switch_to_rows``).

Which way, and how many coins one at a time, is a speed choice only: it depends on
``n``, the number of draws and a rough estimate of the heads rate (``_WEIGHTS``: about
``exp(-floor(x_r))`` for candidates classified so far in the call, visited or probed
without a coin), never on the outcome of a coin of a draw still to be made.  A lazy
draw costs about ``n / sum_r p_r`` visits; a row of all coins costs ``n`` vectorised coins
but vectorises over draws.  PF draws lazily from ``_LAZY_MIN`` candidates, and for fewer
while the estimated heads rate keeps one-by-one visits short and few enough draws are
wanted (``count (_LAZY_COINS - n) <= _ROWS_COINS``); the remaining draws go as rows.

Exponential mechanism by PF with replacement (McKenna & Sheldon 2020, Algorithm 2): repeat
"draw ``r`` uniformly from all candidates; return it if its Bernoulli(p_r) coin is heads".
An attempt returns ``r`` with probability ``p_r / n``, so the output has
``Pr[r] = p_r / sum_s p_s``, the exponential mechanism.  Attempts are independent and
identically distributed, so the accepted attempts of one long stream, in order, are
independent draws: :func:`exponential_mechanism_exact` makes the first attempts one coin
at a time (while the estimated heads rate is high, at most ``_ONE_BY_ONE``), then runs
them in vectorised batches (whose sizes only affect speed) and keeps the first ``count``
acceptances.  Expected cost: ``n / sum_r p_r`` attempts per draw.

Vectorised coins (:meth:`_Coins.flip`).  A coin with ``floor(x_r) >= m`` has ``m`` unit
factors whose round-2 bits can be drawn first, in bulk
(:func:`optmech.selection.exact.bernoulli.unit_blocks`).  Each candidate is classified by
``min(floor(x_r), 8)`` with exact threshold comparisons (:meth:`ExactScores.units`),
one random byte per coin decides those bits, and only the survivors (the candidates near
the maximum and a ``2^-8`` fraction of the far ones) need their exact ``x_r`` and the
rest of their coin (:func:`optmech.selection.exact.bernoulli.exp_coins`).  One coin at a time
(:meth:`_Coins.flip_one`): the exact ``x_r`` in Python integers
(:meth:`ExactScores.exponent_of`) and :func:`optmech.selection.exact.bernoulli.exp_coin`, the same
draws as the vectorised coin; numpy's per-call cost would dominate a few coins.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from optmech.selection.exact.bernoulli import BULK_UNITS, Ratios, exp_coin, exp_coins, unit_blocks
from optmech.selection.exact.random import RandomBytes
from optmech.selection.exact.rationals import (
    ExactScores,
    common_denominator,
    exact_exponent,
    to_fraction,
)
from optmech.selection.samplers import row_blocks
from optmech.validation import InvalidArgumentError, check_integer

__all__ = [
    "bernoulli",
    "bernoulli_exp",
    "bernoulli_logistic",
    "exponential_mechanism_exact",
    "permute_and_flip_exact",
]

_MAX_ATTEMPTS = 1 << 20     # EM attempts per vectorised batch
_LAZY_MIN = 1 << 14         # from this many candidates PF always draws lazily, visiting
_LAZY_SHARE = 32            # at most n / 32 of them before flipping the rest at once
_LAZY_BATCH = 64            # first batch of uniform draws that give the random order
_ONE_BY_ONE = 32            # coins per draw flipped one at a time at most
_PROBE = 4                  # candidates classified before the heads-rate estimate counts
# about 256 exp(-u): the weight of a coin with u whole units in the heads-rate estimate
_WEIGHTS = (256, 94, 35, 13, 5, 2, 1, 0, 0)
_LAZY_COINS = 256           # cost of a lazy draw with a high heads rate, ...
_ROWS_COINS = 1024          # ... and fixed cost of a call of rows, both in vectorised coins


class _Coins:
    """Independent Bernoulli(p_r) coins, ``p_r = exp(-c (q* - q_r))``: :meth:`flip` for an
    array of candidates (each entry gets its own coin; :func:`unit_blocks` with one random
    byte per coin first, then the survivors' exact exponents and the rest of their coins),
    :meth:`flip_one` for one candidate with Python integers (:func:`exp_coin`)."""

    def __init__(self, scores: ExactScores, exponent: Fraction, source: RandomBytes):
        self.scores, self.exponent, self.source = scores, exponent, source
        self._thresholds = self._all_units = None
        self.classified = self.weight = 0     # for the heads-rate estimate

    def units(self, candidates=None) -> np.ndarray:
        """``min(floor(x_r), BULK_UNITS)`` for the candidates (default all, kept)."""
        if self._thresholds is None:          # set up on first use: flip_one needs none
            self._thresholds = self.scores.unit_thresholds(self.exponent, BULK_UNITS)
        if candidates is not None:
            return self.scores.units(self._thresholds, candidates)
        if self._all_units is None:
            self._all_units = self.scores.units(self._thresholds)
        return self._all_units

    def flip(self, candidates: np.ndarray, units=None) -> np.ndarray:
        """Coins of ``candidates``, whose :meth:`units` are ``units`` if given."""
        if units is None:
            units = self.units(candidates)
        survivors = unit_blocks(self.source, units).nonzero()[0]
        g, h, index = self.scores.exponents(self.exponent, candidates[survivors])
        heads = np.zeros(candidates.size, dtype=bool)
        heads[survivors] = exp_coins(self.source, g, h, index,
                                     units[survivors].astype(np.int64))
        return heads

    def _exponent(self, r: int):
        """``x_r = g / h``; counts ``r`` into the heads-rate estimate."""
        g, h = self.scores.exponent_of(self.exponent, r)
        self.classified += 1
        self.weight += _WEIGHTS[min(g // h, BULK_UNITS)]
        return g, h

    def flip_one(self, r: int) -> bool:
        return exp_coin(self.source, *self._exponent(r))

    def probe(self):
        """Count ``_PROBE`` uniformly drawn candidates into the estimate (no coin)."""
        for _ in range(_PROBE):
            self._exponent(self.source.integer_below(self.scores.size))

    def one_by_one_pays(self, flipped: int) -> bool:
        """Whether a draw that has flipped ``flipped`` coins one at a time should flip the
        next one so: while the candidates classified so far in this call (visited or
        probed) give an estimated heads rate of at least ``1 / _ONE_BY_ONE``.  Only the
        speed depends on it."""
        return flipped < _ONE_BY_ONE and (self.classified < _PROBE or
                                          self.weight * _ONE_BY_ONE >= 256 * self.classified)


def _uniform_head_per_row(coins: _Coins, rows: int, n: int, units: np.ndarray) -> np.ndarray:
    """For ``rows`` independent rows of all ``n`` coins (of :meth:`_Coins.units`
    ``units``), a uniform head of each row."""
    heads = coins.flip(np.tile(np.arange(n), rows), np.tile(units, rows)).nonzero()[0]
    per_row = np.bincount(heads // n, minlength=rows)        # >= 1: the maximum is heads
    first = np.cumsum(per_row) - per_row
    return heads[first + coins.source.below_each(per_row)] % n


def _lazy_permute_and_flip(coins: _Coins, n: int) -> int:
    """One PF draw visiting candidates in uniform random order, stopping at the first
    head: one coin at a time while :meth:`_Coins.one_by_one_pays`, then (from ``_LAZY_MIN``
    candidates) in doubling batches until ``n / _LAZY_SHARE`` are visited, then a uniform
    head of the rest."""
    source = coins.source
    seen = set()
    while len(seen) < n and coins.one_by_one_pays(len(seen)):
        r = source.integer_below(n)
        if r not in seen:
            if coins.flip_one(r):
                return r
            seen.add(r)
    visited, batch = len(seen), _LAZY_BATCH
    is_seen = np.zeros(n, dtype=bool)
    is_seen[list(seen)] = True
    while n >= _LAZY_MIN and visited < n // _LAZY_SHARE:
        draws = source.below(n, batch)
        _, first = np.unique(draws, return_index=True)
        order = draws[np.sort(first)]              # first occurrences, in order
        order = order[~is_seen[order]]
        is_seen[order] = True
        visited += order.size
        heads = coins.flip(order).nonzero()[0]
        if heads.size:
            return int(order[heads[0]])
        batch *= 2
    rest = (~is_seen).nonzero()[0]                 # holds every maximum: none was visited
    heads = rest[coins.flip(rest)]
    return int(heads[source.below(heads.size, 1)[0]])


def _permute_and_flip(coins: _Coins, count: int) -> np.ndarray:
    n = coins.scores.size
    out = np.zeros(count, dtype=np.int64)
    done = 0
    if n >= _LAZY_MIN or count * (_LAZY_COINS - n) <= _ROWS_COINS:
        if count > 1 and n < _LAZY_MIN:
            coins.probe()
        # lazily, while the heads rate seen so far makes one-by-one visits pay off
        while done < count and (n >= _LAZY_MIN or count == 1 or coins.one_by_one_pays(0)):
            out[done] = _lazy_permute_and_flip(coins, n)
            done += 1
    if done < count:
        units = coins.units()
        for block in row_blocks(count - done, n):
            out[done + block.start:done + block.stop] = _uniform_head_per_row(
                coins, block.stop - block.start, n, units)
    return out


def _exponential_mechanism(coins: _Coins, count: int) -> np.ndarray:
    n, source = coins.scores.size, coins.source
    out = np.zeros(count, dtype=np.int64)
    filled = attempts = 0
    while filled < count and coins.one_by_one_pays(attempts):
        r = source.integer_below(n)
        attempts += 1
        if coins.flip_one(r):
            out[filled] = r
            filled += 1
    accepted = filled
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
    scores = ExactScores.from_input(scores)
    if scores.size == 1:
        return np.zeros(count, dtype=np.int64)
    return sampler(_Coins(scores, exponent, RandomBytes(rng)), count)


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
    (:mod:`optmech.selection.exact.bernoulli`); randomness as :func:`permute_and_flip_exact`.
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
