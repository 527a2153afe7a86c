"""Privacy of rank-based stopping rules under the metric d_l (Theorems 3.2, 4.1, 4.2;
Corollaries 2-3 of Grining et al., arXiv:2005.01586v4).

A rule that selects the k-th best candidate with probability ``q[k-1]`` (whatever the
qualification ordering) is (ε, δ)-DP under d_l exactly when ::

    q_i <= e^ε q_j + δ      for all i != j with |i - j| <= l          (Theorem 3.2, tight),

because swapping the candidates of ranks i and j exchanges q_i and q_j and leaves the
other outputs alone; the worst event is S = {C_{σ_i}}.  Hence the tight parameters are ::

    δ(ε) = max_{0<|i-j|<=l} max(q_i - e^ε q_j, 0),
    ε(δ) = max(0, max_{0<|i-j|<=l, q_i > δ} ln((q_i - δ) / q_j))   (inf if such a q_j = 0).

Both are evaluated over all O(l n) pairs, in floating point, with no assumption on the shape
of q, a block of ranks at a time: the p-mix of M* is computed block by block
(:class:`~optmech.secretary.classical.RankBlocks`), so :func:`pmix_epsilon` and friends need
memory independent of n (``secretary profile --n 1e8`` peaked at 8 GiB with the whole
distribution and its pairs in memory); the work, ``O(n l)``, is estimated and refused beyond
the budget (:func:`scan_estimate`).  For the p-mix of M* with the blind choice the paper
shows the worst pair is (1, l+1) when n >= 7 (Lemma 2) and gives closed forms and their n ->
infinity limits (Theorem 4.2, Corollaries 2-3); :func:`pmix_epsilon`, :func:`pmix_delta` and
:func:`pmix_largest_p` return the value over all pairs, the closed form, and the limit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lp_models.display import Displayed
from optmech.resources import Estimate, require
from optmech.secretary.classical import RankBlocks, a_coefficients
from optmech.secretary.mixing import check_distribution
from optmech.validation import (
    InvalidArgumentError,
    check_integer,
    check_nonnegative,
    check_probability,
)

__all__ = [
    "MAX_EPSILON",
    "PmixBound",
    "asymptotic_delta",
    "asymptotic_epsilon",
    "asymptotic_largest_p",
    "check_epsilon",
    "delta_for_epsilon",
    "epsilon_for_delta",
    "largest_mix_weight",
    "mix_bound",
    "pmix_delta",
    "pmix_epsilon",
    "pmix_largest_p",
    "scan_estimate",
]


MAX_EPSILON = 700.0
"""Largest finite ε accepted (e^ε must stay a finite double)."""


def check_epsilon(epsilon) -> float:
    """ε in [0, 700] (finite; e^700 ~ 1e304)."""
    epsilon = check_nonnegative(epsilon, "epsilon")
    if epsilon > MAX_EPSILON:
        raise InvalidArgumentError("epsilon", epsilon, f"a number in [0, {MAX_EPSILON:g}]")
    return epsilon


# CPU seconds per ordered pair (i, j) of one scan and per rank of one call (the p-mix and
# M* read by RankBlocks, three passes each), rounded up from pmix_epsilon at n = 10^6, 10^7
# and l = 1, 10 on a loaded 2-core machine (2e-8 s a pair, 3e-7 s a rank).
SECONDS_PER_PAIR, SECONDS_PER_RANK = 3e-8, 4e-7


def _check_l(l, n: int) -> int:
    """``1 <= l <= n - 1``; the pair scans (``O(n l)`` work, ``O(l)`` memory beyond a block)
    must fit the budgets."""
    l = check_integer(l, "l", minimum=1, maximum=n - 1)
    require(scan_estimate(n, l))
    return l


def scan_estimate(n: int, l: int) -> Estimate:
    """Work and memory of the pair scans of one call on ``n`` ranks and distance ``l``: two
    scans of the ``2 n l`` ordered pairs (the mix and M* itself, for Theorem 4.1) and the
    ranks read block by block (a block of :class:`RankBlocks` plus ``l`` ranks, a few arrays
    of each)."""
    return Estimate(4 * n * l * SECONDS_PER_PAIR + n * SECONDS_PER_RANK,
                    64 * (RankBlocks.BLOCK + l) + 16 * n / RankBlocks.BLOCK, "n, l", (n, l))


class _Ranks:
    """A rank distribution read in blocks: an array, or the p-mix of M* with the blind
    choice computed block by block (equal bit for bit to
    :func:`~optmech.secretary.mixing.pmix_rank_distribution`; ``p = 0`` is the blind choice
    itself, ``p = 1`` M*)."""

    def __init__(self, q: np.ndarray | None = None, n: int = 0, p: float = 1.0):
        self.array = q
        self.size = q.size if q is not None else n
        self.blocks = None if q is not None or p == 0.0 else RankBlocks(n)
        self.p = p

    def values(self, start: int, stop: int) -> np.ndarray:
        if self.array is not None:
            return self.array[start:stop]
        if self.blocks is None:                       # blind_choice(n)
            return np.full(max(min(stop, self.size) - start, 0), 1.0 / self.size)
        r = self.blocks.values(start, stop)
        if self.p == 1.0:
            return r
        # mix(p, r, blind_choice(n)): p * r + (1 - p) * (1 / n), the same operations
        return self.p * r + (1.0 - self.p) * np.full(r.size, 1.0 / self.size)


def _best_pair(ranks: list[_Ranks], l: int, value, largest: bool = True
               ) -> tuple[float, tuple[int, int] | None]:
    """The best (largest, or smallest) ``value(at_i, at_j)`` over the ordered pairs
    ``0 < |i - j| <= l`` and the first pair attaining it in the order of
    :func:`lp_models.stopping.privacy_pairs` (``(i, i + d)`` for d = 1..l, then
    ``(i + d, i)``), 1-based; ``at_i`` lists each distribution's values at ``i``.  The ranks
    are read a block at a time, so memory does not grow with ``n``."""
    n = ranks[0].size
    block = RankBlocks.BLOCK
    forward = l * n - l * (l + 1) // 2           # pairs (i, i + d)
    sign = 1.0 if largest else -1.0
    best, best_order, best_pair = -math.inf, None, None
    for start in range(0, n - 1, block):
        stop = min(start + block, n - 1)
        window = [r.values(start, min(n, stop + l)) for r in ranks]
        for d in range(1, l + 1):
            m = min(stop, n - d) - start          # i in the block with i + d < n
            if m <= 0:
                break
            low = [w[:m] for w in window]
            high = [w[d:d + m] for w in window]
            before = (d - 1) * n - (d - 1) * d // 2   # pairs of the smaller distances
            for first, second, pairs_before, reverse in ((low, high, 0, False),
                                                         (high, low, forward, True)):
                scores = sign * value(first, second)
                at = int(np.argmax(scores))
                order = pairs_before + before + start + at
                if scores[at] > best or (scores[at] == best and best_order is not None
                                         and order < best_order):
                    i = start + at
                    best, best_order = float(scores[at]), order
                    best_pair = (i + d + 1, i + 1) if reverse else (i + 1, i + d + 1)
    return sign * best, best_pair


def _worst_delta(q: _Ranks, epsilon: float, l) -> tuple[float, tuple[int, int] | None]:
    grow = math.exp(epsilon)
    excess, pair = _best_pair([q], _check_l(l, q.size), lambda a, b: a[0] - grow * b[0])
    return (0.0, None) if excess <= 0 else (excess, pair)


def _worst_epsilon(q: _Ranks, delta: float, l) -> tuple[float, tuple[int, int] | None]:
    def loss(a, b):
        top = a[0] - delta
        live = top > b[0]                   # pairs that need ε > 0
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(live, np.log(np.where(live, top, 1.0)) - np.log(b[0]), -np.inf)

    worst, pair = _best_pair([q], _check_l(l, q.size), loss)
    return (0.0, None) if worst == -math.inf else (worst, pair)


def delta_for_epsilon(q, epsilon: float, l: int) -> float:
    """Tight δ(ε) of a rule with rank distribution q under d_l (Theorem 3.2)."""
    q = check_distribution(q)
    return _worst_delta(_Ranks(q), check_epsilon(epsilon), l)[0]


def epsilon_for_delta(q, delta: float, l: int) -> float:
    """Tight ε(δ) of a rule with rank distribution q under d_l (Theorem 3.2); ``inf`` when
    some neighbour j of a rank i with q_i > δ has q_j = 0."""
    q = check_distribution(q)
    return _worst_epsilon(_Ranks(q), check_probability(delta, "delta"), l)[0]


def mix_bound(epsilon: float, delta: float, p: float, n: int) -> tuple[float, float]:
    """Theorem 4.1: if M_opt is (ε, δ)-DP under d_l, its p-mix with a rule whose outcome is
    uniform is ``(ln(e^ε - (1-p)(e^ε - 1)/n), p δ)``-DP under d_l (a sufficient bound)."""
    epsilon = check_epsilon(epsilon)
    delta = check_probability(delta, "delta")
    p = check_probability(p, "p")
    n = check_integer(n, "n", minimum=2)
    grow = math.expm1(epsilon)
    return math.log1p(grow - (1.0 - p) * grow / n), p * delta


def _largest_weight(first: _Ranks, second: _Ranks, epsilon: float, delta: float,
                    l) -> tuple[float, tuple[int, int] | None]:
    l = _check_l(l, first.size)
    grow = math.exp(epsilon)
    largest_base, _ = _best_pair([second], l, lambda a, b: a[0] - grow * b[0])
    if largest_base > delta:
        raise InvalidArgumentError("second", "a rank distribution",
                                   f"(epsilon={epsilon:g}, delta={delta:g})-DP under d_{l}")

    def limit(a, b):
        base = a[1] - grow * b[1]
        slope = (a[0] - grow * b[0]) - base
        rising = slope > 0
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(rising, (delta - base) / np.where(rising, slope, 1.0), np.inf)

    smallest, pair = _best_pair([first, second], l, limit, largest=False)
    if smallest >= 1.0:
        return 1.0, None
    return smallest, pair


def largest_mix_weight(first, second, epsilon: float, delta: float, l: int) -> float:
    """Largest p in [0, 1] for which the p-mix ``p first + (1-p) second`` is (ε, δ)-DP
    under d_l, over all pairs (Theorem 3.2).  Each pair's condition is linear in p:
    ``p (D1 - D2) <= δ - D2`` with ``D = q_i - e^ε q_j``; ``second`` must itself be
    (ε, δ)-DP (the blind choice always is)."""
    first = check_distribution(first, "first")
    second = check_distribution(second, "second")
    if first.shape != second.shape:
        raise InvalidArgumentError("second", second, f"a distribution of length {first.size}")
    return _largest_weight(_Ranks(first), _Ranks(second), check_epsilon(epsilon),
                           check_probability(delta, "delta"), l)[0]


@dataclass(frozen=True, repr=False)
class PmixBound(Displayed):
    """One privacy quantity of the p-mix of M* with the blind choice.

    ``exact``: over all pairs ``|i - j| <= l`` at this n (Theorem 3.2; tight for every n);
    ``closed_form``: the paper's formula at this n through the pair (1, l+1) (Theorem 4.2,
    Corollary 2 or 3; equal to ``exact`` whenever Lemma 2 holds, which the paper proves
    for n >= 7); ``asymptotic``: its n -> infinity limit (through a_{l+1});
    ``pair``: 1-based ranks (i, j) attaining ``exact`` (None when no pair binds);
    ``theorem_4_1``: the (looser) value Theorem 4.1 guarantees from M*'s own exact privacy
    (None for the largest p).
    """

    #: The quantity (ε(δ), δ(ε) in [0, 1], or the largest private p in [0, 1], as the function that
    #: returns it says) over all pairs ``|i - j| <= l`` at this n: tight (Theorem 3.2).
    exact: float
    #: The paper's formula at this n, through the pair (1, l+1) (Theorem 4.2, Corollary 2 or 3);
    #: equal to ``exact`` whenever Lemma 2 holds (n >= 7).
    closed_form: float
    #: The n -> infinity limit of the formula (through ``a_{l+1}``).
    asymptotic: float
    #: 1-based ranks (i, j) of the pair attaining ``exact``; None when no pair binds.
    pair: tuple[int, int] | None
    #: The looser value Theorem 4.1 guarantees from M*'s own exact privacy; None for the largest p.
    theorem_4_1: float | None = None

    _display = ("exact", "closed_form", "asymptotic", "pair", "theorem_4_1")


def _a(l: int) -> float:
    return float(a_coefficients(np.array([l + 1]))[0])


def _setup(n, l, p):
    n = check_integer(n, "n", minimum=2)
    l = _check_l(l, n)
    p = check_probability(p, "p")
    return n, l, p, _Ranks(n=n, p=p)


def asymptotic_epsilon(p: float, delta: float, l: int = 1) -> float:
    """n -> infinity limit of the p-mix's ε(δ) (Theorem 4.2):
    ``ln((p - δ e)/(a_{l+1} p))`` if ``δ < p (1 - a_{l+1})/e``, else 0."""
    p, delta = check_probability(p, "p"), check_probability(delta, "delta")
    a = _a(check_integer(l, "l", minimum=1))
    return math.log((p - delta * math.e) / (a * p)) if delta < p * (1 - a) / math.e else 0.0


def asymptotic_delta(p: float, epsilon: float, l: int = 1) -> float:
    """n -> infinity limit of the p-mix's δ(ε) (Corollary 2): ``(p/e)(1 - a_{l+1} e^ε)``
    if positive, else 0."""
    p, epsilon = check_probability(p, "p"), check_epsilon(epsilon)
    a = _a(check_integer(l, "l", minimum=1))
    return max(p / math.e * (1.0 - a * math.exp(epsilon)), 0.0)


def asymptotic_largest_p(epsilon: float, delta: float, l: int = 1) -> float:
    """n -> infinity limit of the largest private p (Corollary 3):
    ``min(1, e δ / (1 - e^ε a_{l+1}))``, and 1 when ``e^ε a_{l+1} >= 1``."""
    epsilon, delta = check_epsilon(epsilon), check_probability(delta, "delta")
    room = 1.0 - math.exp(epsilon) * _a(check_integer(l, "l", minimum=1))
    return min(1.0, math.e * delta / room) if room > 0 else 1.0


def pmix_epsilon(n: int, p: float, delta: float, l: int = 1) -> PmixBound:
    """ε(δ) of the p-mix (Theorem 4.2): ``ln((q_1 - δ)/q_{l+1})`` if δ < q_1 - q_{l+1},
    else 0, and its limit :func:`asymptotic_epsilon`."""
    n, l, p, q = _setup(n, l, p)
    delta = check_probability(delta, "delta")
    exact, pair = _worst_epsilon(q, delta, l)
    top, low = q.values(0, 1)[0] - delta, q.values(l, l + 1)[0]
    closed = math.log(top / low) if top > low else 0.0
    # Theorem 4.1 with M* at (ε0, δ/p): the mix is (ln(e^ε0 - (1-p)(e^ε0 - 1)/n), δ)-DP.
    base = min(1.0, delta / p) if p > 0 else 1.0
    theorem = mix_bound(_worst_epsilon(_Ranks(n=n), base, l)[0], base, p, n)[0]
    return PmixBound(exact, closed, asymptotic_epsilon(p, delta, l), pair, theorem)


def pmix_delta(n: int, p: float, epsilon: float, l: int = 1) -> PmixBound:
    """δ(ε) of the p-mix (Corollary 2): ``q_1 - e^ε q_{l+1}`` if positive, else 0, and its
    limit :func:`asymptotic_delta`."""
    n, l, p, q = _setup(n, l, p)
    epsilon = check_epsilon(epsilon)
    exact, pair = _worst_delta(q, epsilon, l)
    grow = math.exp(epsilon)
    closed = max(float(q.values(0, 1)[0] - grow * q.values(l, l + 1)[0]), 0.0)
    # Theorem 4.1 with M* at ε0 chosen so that ln(e^ε0 - (1-p)(e^ε0 - 1)/n) = ε.
    keep = (1.0 - p) / n
    base = math.log((grow - keep) / (1.0 - keep))
    theorem = p * _worst_delta(_Ranks(n=n), base, l)[0]
    return PmixBound(exact, closed, asymptotic_delta(p, epsilon, l), pair, theorem)


def pmix_largest_p(n: int, epsilon: float, delta: float, l: int = 1) -> PmixBound:
    """Largest p for which the p-mix is (ε, δ)-DP under d_l (Corollary 3):
    ``(δ + (e^ε-1)/n) / (r_1 - e^ε r_{l+1} + (e^ε-1)/n)`` if δ < r_1 - e^ε r_{l+1}, else 1,
    and its limit :func:`asymptotic_largest_p`.  ``exact`` is over all pairs at this n;
    ``pair`` is the binding pair."""
    n = check_integer(n, "n", minimum=2)
    l = _check_l(l, n)
    epsilon = check_epsilon(epsilon)
    delta = check_probability(delta, "delta")
    r = _Ranks(n=n)
    exact, pair = _largest_weight(r, _Ranks(n=n, p=0.0), epsilon, delta, l)
    gap = float(r.values(0, 1)[0] - math.exp(epsilon) * r.values(l, l + 1)[0])
    spread = math.expm1(epsilon) / n
    closed = (delta + spread) / (gap + spread) if delta < gap else 1.0
    return PmixBound(exact, closed, asymptotic_largest_p(epsilon, delta, l), pair)
