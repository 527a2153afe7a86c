"""Privacy of rank-based stopping rules under the metric d_l (Theorems 3.2, 4.1, 4.2;
Corollaries 2-3 of Grining et al., arXiv:2005.01586v4).

A rule that selects the k-th best candidate with probability ``q[k-1]`` (whatever the
qualification ordering) is (ε, δ)-DP under d_l exactly when ::

    q_i <= e^ε q_j + δ      for all i != j with |i - j| <= l          (Theorem 3.2, tight),

because swapping the candidates of ranks i and j exchanges q_i and q_j and leaves the
other outputs alone; the worst event is S = {C_{σ_i}}.  Hence the tight parameters are ::

    δ(ε) = max_{0<|i-j|<=l} max(q_i - e^ε q_j, 0),
    ε(δ) = max(0, max_{0<|i-j|<=l, q_i > δ} ln((q_i - δ) / q_j))   (inf if such a q_j = 0).

Both are evaluated over all O(l n) pairs, in floating point, with no assumption on the
shape of q.  For the p-mix of M* with the blind choice the paper shows the worst pair is
(1, l+1) when n >= 7 (Lemma 2) and gives closed forms and their n -> infinity limits
(Theorem 4.2, Corollaries 2-3); :func:`pmix_epsilon`, :func:`pmix_delta` and
:func:`pmix_largest_p` return the value over all pairs, the closed form, and the limit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lp_models.display import Displayed
from lp_models.stopping import privacy_pairs
from optmech.resources import require_memory
from optmech.secretary.classical import a_coefficients, rank_distribution
from optmech.secretary.mixing import blind_choice, check_distribution, pmix_rank_distribution
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
]


MAX_EPSILON = 700.0
"""Largest finite ε accepted (e^ε must stay a finite double)."""


def check_epsilon(epsilon) -> float:
    """ε in [0, 700] (finite; e^700 ~ 1e304)."""
    epsilon = check_nonnegative(epsilon, "epsilon")
    if epsilon > MAX_EPSILON:
        raise InvalidArgumentError("epsilon", epsilon, f"a number in [0, {MAX_EPSILON:g}]")
    return epsilon


def _check_l(l, n: int) -> int:
    """``1 <= l <= n - 1``; the ``O(n l)`` rank pairs must fit the memory budget."""
    l = check_integer(l, "l", minimum=1, maximum=n - 1)
    require_memory(64 * n * l, "n, l", (n, l))
    return l


def _pairs(q: np.ndarray, l) -> tuple[np.ndarray, np.ndarray]:
    return privacy_pairs(q.size, _check_l(l, q.size))


def _worst_delta(q: np.ndarray, epsilon: float, l) -> tuple[float, tuple[int, int] | None]:
    a, b = _pairs(q, l)
    excess = q[a] - math.exp(epsilon) * q[b]
    worst = int(np.argmax(excess))
    if excess[worst] <= 0:
        return 0.0, None
    return float(excess[worst]), (int(a[worst]) + 1, int(b[worst]) + 1)


def _worst_epsilon(q: np.ndarray, delta: float, l) -> tuple[float, tuple[int, int] | None]:
    a, b = _pairs(q, l)
    top = q[a] - delta
    live = top > q[b]                       # pairs that need ε > 0
    if not live.any():
        return 0.0, None
    a, b, top = a[live], b[live], top[live]
    with np.errstate(divide="ignore"):
        loss = np.log(top) - np.log(q[b])
    worst = int(np.argmax(loss))
    return float(loss[worst]), (int(a[worst]) + 1, int(b[worst]) + 1)


def delta_for_epsilon(q, epsilon: float, l: int) -> float:
    """Tight δ(ε) of a rule with rank distribution q under d_l (Theorem 3.2)."""
    q = check_distribution(q)
    return _worst_delta(q, check_epsilon(epsilon), l)[0]


def epsilon_for_delta(q, delta: float, l: int) -> float:
    """Tight ε(δ) of a rule with rank distribution q under d_l (Theorem 3.2); ``inf`` when
    some neighbour j of a rank i with q_i > δ has q_j = 0."""
    q = check_distribution(q)
    return _worst_epsilon(q, check_probability(delta, "delta"), l)[0]


def mix_bound(epsilon: float, delta: float, p: float, n: int) -> tuple[float, float]:
    """Theorem 4.1: if M_opt is (ε, δ)-DP under d_l, its p-mix with a rule whose outcome is
    uniform is ``(ln(e^ε - (1-p)(e^ε - 1)/n), p δ)``-DP under d_l (a sufficient bound)."""
    epsilon = check_epsilon(epsilon)
    delta = check_probability(delta, "delta")
    p = check_probability(p, "p")
    n = check_integer(n, "n", minimum=2)
    grow = math.expm1(epsilon)
    return math.log1p(grow - (1.0 - p) * grow / n), p * delta


def _largest_weight(first: np.ndarray, second: np.ndarray, epsilon: float, delta: float,
                    l) -> tuple[float, tuple[int, int] | None]:
    a, b = _pairs(first, l)
    grow = math.exp(epsilon)
    base = second[a] - grow * second[b]
    if (base > delta).any():
        raise InvalidArgumentError("second", "a rank distribution",
                                   f"(epsilon={epsilon:g}, delta={delta:g})-DP under d_{l}")
    slope = (first[a] - grow * first[b]) - base
    rising = np.flatnonzero(slope > 0)
    if rising.size == 0:
        return 1.0, None
    limits = (delta - base[rising]) / slope[rising]
    worst = int(np.argmin(limits))
    if limits[worst] >= 1.0:
        return 1.0, None
    k = rising[worst]
    return float(limits[worst]), (int(a[k]) + 1, int(b[k]) + 1)


def largest_mix_weight(first, second, epsilon: float, delta: float, l: int) -> float:
    """Largest p in [0, 1] for which the p-mix ``p first + (1-p) second`` is (ε, δ)-DP
    under d_l, over all pairs (Theorem 3.2).  Each pair's condition is linear in p:
    ``p (D1 - D2) <= δ - D2`` with ``D = q_i - e^ε q_j``; ``second`` must itself be
    (ε, δ)-DP (the blind choice always is)."""
    first = check_distribution(first, "first")
    second = check_distribution(second, "second")
    if first.shape != second.shape:
        raise InvalidArgumentError("second", second, f"a distribution of length {first.size}")
    return _largest_weight(first, second, check_epsilon(epsilon),
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

    exact: float
    closed_form: float
    asymptotic: float
    pair: tuple[int, int] | None
    theorem_4_1: float | None = None

    _display = ("exact", "closed_form", "asymptotic", "pair", "theorem_4_1")


def _a(l: int) -> float:
    return float(a_coefficients(np.array([l + 1]))[0])


def _setup(n, l, p):
    n = check_integer(n, "n", minimum=2)
    l = _check_l(l, n)
    p = check_probability(p, "p")
    return n, l, p, pmix_rank_distribution(n, p)


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
    top, low = q[0] - delta, q[l]
    closed = math.log(top / low) if top > low else 0.0
    # Theorem 4.1 with M* at (ε0, δ/p): the mix is (ln(e^ε0 - (1-p)(e^ε0 - 1)/n), δ)-DP.
    base = min(1.0, delta / p) if p > 0 else 1.0
    theorem = mix_bound(_worst_epsilon(rank_distribution(n), base, l)[0], base, p, n)[0]
    return PmixBound(exact, closed, asymptotic_epsilon(p, delta, l), pair, theorem)


def pmix_delta(n: int, p: float, epsilon: float, l: int = 1) -> PmixBound:
    """δ(ε) of the p-mix (Corollary 2): ``q_1 - e^ε q_{l+1}`` if positive, else 0, and its
    limit :func:`asymptotic_delta`."""
    n, l, p, q = _setup(n, l, p)
    epsilon = check_epsilon(epsilon)
    exact, pair = _worst_delta(q, epsilon, l)
    grow = math.exp(epsilon)
    closed = max(float(q[0] - grow * q[l]), 0.0)
    # Theorem 4.1 with M* at ε0 chosen so that ln(e^ε0 - (1-p)(e^ε0 - 1)/n) = ε.
    keep = (1.0 - p) / n
    base = math.log((grow - keep) / (1.0 - keep))
    theorem = p * _worst_delta(rank_distribution(n), base, l)[0]
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
    r = rank_distribution(n)
    exact, pair = _largest_weight(r, blind_choice(n), epsilon, delta, l)
    gap = float(r[0] - math.exp(epsilon) * r[l])
    spread = math.expm1(epsilon) / n
    closed = (delta + spread) / (gap + spread) if delta < gap else 1.0
    return PmixBound(exact, closed, asymptotic_largest_p(epsilon, delta, l), pair)
