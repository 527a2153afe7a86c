"""Reference computations for the private secretary paper (Grining, Klonowski, Sulkowska).

Everything here is computed independently of :mod:`optmech`: exact fractions, brute-force
enumeration of arrival orders, and mpmath at 50 digits for large ``n``.

The optimal rule ``M*`` (Definition 3) rejects the first ``t_n - 1`` candidates, then stops
at the first candidate better than all before it, and stops at time ``n`` when there is none.
``r_{k,n}`` is the probability that it selects the ``k``-th best candidate.  The mix
``M`` plays ``M*`` with probability ``p`` and the blind choice (uniform) otherwise, so
``q_{k,n} = p r_{k,n} + (1 - p)/n`` (equation (3)).  Neighbouring preferences under ``d_l``
swap two candidates at most ``l`` ranks apart, which swaps two entries of ``q``.
"""

from __future__ import annotations

import functools
import itertools
import math
from fractions import Fraction

import mpmath

__all__ = [
    "EXACT_THRESHOLD_LIMIT",
    "a_k",
    "enumerate_rank_probabilities",
    "hockey_stick",
    "lemma3_gap",
    "minimal_exp_epsilon",
    "mixed",
    "neighbour_profile",
    "rank_probabilities",
    "rank_probabilities_by_stopping_time",
    "rank_probabilities_mp",
    "rank_probabilities_printed",
    "threshold",
    "win_probability",
]

EXACT_THRESHOLD_LIMIT = 2000
DIGITS = 50


def _threshold_exact(n: int) -> int:
    """Smallest ``t >= 1`` with ``sum_{j=t}^{n-1} 1/j <= 1`` (Fact 1), exactly.

    The partial sums grow as ``t`` decreases; floats decide unless within 1e-9 of 1, where
    the sum is recomputed as a fraction.
    """
    total, t = 0.0, n
    while t > 1:
        step = total + 1.0 / (t - 1)
        if abs(step - 1.0) < 1e-9:
            above = sum(Fraction(1, j) for j in range(t - 1, n)) > 1
        else:
            above = step > 1.0
        if above:
            break
        total, t = step, t - 1
    return t


def _harmonic_tail(n: int, t: int):
    """``sum_{j=t}^{n-1} 1/j = H_{n-1} - H_{t-1}`` at 50 digits."""
    with mpmath.workdps(DIGITS):
        return mpmath.harmonic(n - 1) - mpmath.harmonic(t - 1)


@functools.lru_cache(maxsize=None)
def threshold(n: int) -> int:
    """The threshold ``t_n`` of Fact 1.

    Exact arithmetic up to ``EXACT_THRESHOLD_LIMIT``; beyond it mpmath at 50 digits on the
    candidates allowed by ``n/e <= t_n < (n-1)/e + 2`` (proved in
    :func:`proofs.secretary.check_threshold`), refusing to decide a sum within 1e-40 of 1.
    """
    if n <= EXACT_THRESHOLD_LIMIT:
        return _threshold_exact(n)
    t = max(2, math.floor(n / math.e) - 1)
    while True:
        tail = _harmonic_tail(n, t)
        if abs(tail - 1) < mpmath.mpf(10) ** -40:
            raise ArithmeticError(f"cannot decide the threshold for n={n} at {DIGITS} digits")
        if tail <= 1:
            return t
        t += 1


def win_probability(n: int, t: int) -> Fraction:
    """``Pr[select the best]`` of the threshold rule with threshold ``t`` (1 <= t <= n)."""
    if t == 1:
        return Fraction(1, n)
    return Fraction(t - 1, n) * sum(Fraction(1, i - 1) for i in range(t, n + 1))


def _main_sum(n: int, k: int, t: int) -> Fraction:
    """``sum_{i=t}^{n-k+1} C(n-k, i-1) / C(n-1, i-1) / (i-1)`` of Theorem 5.1."""
    return sum((Fraction(math.comb(n - k, i - 1), math.comb(n - 1, i - 1)) / (i - 1)
                for i in range(t, n - k + 2)), Fraction(0))


@functools.lru_cache(maxsize=None)
def rank_probabilities_printed(n: int, t: int | None = None) -> tuple[Fraction, ...]:
    """``r_{k,n}``, k = 1..n, exactly as printed in Fact 2 / Theorem 5.1 (n >= 3)."""
    t = threshold(n) if t is None else t
    return tuple(Fraction(t - 1, n) * (_main_sum(n, k, t) + Fraction(1, n - 1))
                 for k in range(1, n + 1))


@functools.lru_cache(maxsize=None)
def rank_probabilities(n: int, t: int | None = None) -> tuple[Fraction, ...]:
    """Corrected ``r_{k,n}``: the printed form without the ``1/(n-1)`` term at ``k = 1``.

    The forced stop at time ``n`` happens only when the best candidate came before ``t``,
    so it never selects the best.  ``t`` defaults to ``t_n``; any ``2 <= t <= n`` gives the
    rule with that threshold.
    """
    t = threshold(n) if t is None else t
    return tuple(Fraction(t - 1, n) * (_main_sum(n, k, t) + (Fraction(1, n - 1) if k > 1 else 0))
                 for k in range(1, n + 1))


@functools.lru_cache(maxsize=None)
def rank_probabilities_by_stopping_time(n: int, t: int) -> tuple[Fraction, ...]:
    """``r_{k,n}`` derived by conditioning on the stopping time instead of on positions.

    The rule stops at time ``i >= t`` on a relative best with probability
    ``(1/i) (t-1)/(i-1)`` (the ``i``-th arrival is the best of the first ``i``, and the best
    of the first ``i - 1`` came before ``t``); that arrival, the best of a uniformly random
    ``i``-subset, has overall rank ``k`` with probability ``C(n-k, i-1) / C(n, i)``,
    independently.  The forced stop (probability ``(t-1)/n``) selects the last arrival, of
    uniform rank among ``2..n``.
    """
    out = []
    for k in range(1, n + 1):
        value = sum((Fraction(t - 1, i * (i - 1)) * Fraction(math.comb(n - k, i - 1),
                                                               math.comb(n, i))
                     for i in range(t, n + 1)), Fraction(0))
        if k > 1:
            value += Fraction(t - 1, n * (n - 1))
        out.append(value)
    return tuple(out)


@functools.lru_cache(maxsize=None)
def enumerate_rank_probabilities(n: int, t: int | None = None) -> tuple[Fraction, ...]:
    """``r_{k,n}`` by running ``M*`` on all ``n!`` arrival orders (rank 1 is the best)."""
    t = threshold(n) if t is None else t
    counts = [0] * (n + 1)
    for order in itertools.permutations(range(1, n + 1)):
        best = n + 1
        chosen = order[-1]
        for position, rank in enumerate(order, start=1):
            if rank < best:
                if position >= t:
                    chosen = rank
                    break
                best = rank
        counts[chosen] += 1
    total = math.factorial(n)
    return tuple(Fraction(c, total) for c in counts[1:])


def lemma3_gap(n: int, t: int, k: int) -> Fraction:
    """The printed gap ``r_{k,n} - r_{k+1,n} = (t-1)/n * 1/k * C(n-t+1, k) / C(n-1, k)``."""
    return Fraction(t - 1, n) / k * Fraction(math.comb(n - t + 1, k), math.comb(n - 1, k))


def mixed(r, p: Fraction) -> list[Fraction]:
    """``q_{k,n} = p r_{k,n} + (1 - p)/n`` (equation (3))."""
    n = len(r)
    return [p * x + (1 - p) / n for x in r]


def hockey_stick(P, Q, E) -> Fraction:
    """``max_S P(S) - E Q(S) = sum_k max(0, P_k - E Q_k)`` (the smallest valid delta)."""
    return sum((max(Fraction(0), pk - E * qk) for pk, qk in zip(P, Q)), Fraction(0))


def minimal_exp_epsilon(P, Q, delta) -> Fraction | None:
    """Smallest ``E >= 1`` with ``hockey_stick(P, Q, E) <= delta``; None if there is none.

    ``E -> hockey_stick(P, Q, E)`` is convex, decreasing and piecewise linear with
    breakpoints ``P_k / Q_k``; the root is found exactly on the right piece.
    """
    if hockey_stick(P, Q, 1) <= delta:
        return Fraction(1)
    if sum((pk for pk, qk in zip(P, Q) if qk == 0), Fraction(0)) > delta:
        return None
    breaks = sorted({pk / qk for pk, qk in zip(P, Q) if qk > 0 and pk / qk > 1})
    low = Fraction(1)
    for high in breaks:
        if hockey_stick(P, Q, high) <= delta:
            break
        low = high
    # on (low, high] the active set is {k : P_k / Q_k > low}: solve the linear equation
    active = [(pk, qk) for pk, qk in zip(P, Q) if qk == 0 or pk / qk > low]
    sp = sum((pk for pk, _ in active), Fraction(0))
    sq = sum((qk for _, qk in active), Fraction(0))
    return low if sq == 0 else (sp - delta) / sq


def neighbour_profile(q: list[Fraction], delta: Fraction) -> list[Fraction | None]:
    """For each distance ``d = 1..n-1``: the largest minimal ``E`` over neighbours that swap
    ranks ``i < j`` with ``j - i = d``, in both directions (full pmf vectors compared).

    The smallest ``E = e^eps`` for ``(eps, delta)``-DP under ``d_l`` is then the running
    maximum of this list up to ``d = l``.
    """
    n = len(q)
    worst: list[Fraction | None] = [Fraction(1)] * (n - 1)
    for i in range(n):
        for j in range(i + 1, n):
            rho = list(q)
            rho[i], rho[j] = rho[j], rho[i]
            for P, Q in ((q, rho), (rho, q)):
                E = minimal_exp_epsilon(P, Q, delta)
                d = j - i - 1
                if E is None or worst[d] is None:
                    worst[d] = None
                else:
                    worst[d] = max(worst[d], E)
    return worst


def a_k(k: int):
    """``a_k = sum_{s>=k} (1-1/e)^s / s = 1 - sum_{s=1}^{k-1} (1-1/e)^s / s`` at 50 digits."""
    with mpmath.workdps(DIGITS):
        x = 1 - 1 / mpmath.e
        return 1 - mpmath.fsum(x ** s / s for s in range(1, k))


def rank_probabilities_mp(n: int, kmax: int) -> list:
    """Corrected ``r_{1..kmax, n}`` at 50 digits for large ``n``.

    ``r_1 = (t-1)/n (H_{n-1} - H_{t-2})`` (harmonic numbers by mpmath), then the gaps
    verified exactly elsewhere: ``r_1 - r_2 = (t-1)(n-t)/(n(n-1))`` and Lemma 3 for k >= 2.
    """
    t = threshold(n)
    with mpmath.workdps(DIGITS):
        r = [mpmath.mpf(t - 1) / n * (mpmath.harmonic(n - 1) - mpmath.harmonic(t - 2))]
        if kmax >= 2:
            r.append(r[0] - mpmath.mpf((t - 1) * (n - t)) / (n * (n - 1)))
        ratio = mpmath.mpf(n - t + 1) / (n - 1)
        for k in range(2, kmax):
            ratio *= mpmath.mpf(n - t + 1 - (k - 1)) / (n - 1 - (k - 1))
            r.append(r[-1] - mpmath.mpf(t - 1) / n / k * ratio)
    return r
