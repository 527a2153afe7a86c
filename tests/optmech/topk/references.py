"""Independent references for the top-T mechanisms: each pmf written from its definition
with plain Python loops over ``itertools`` tuples and 50-digit mpmath arithmetic, sharing
no code with :mod:`optmech.topk` (no sort of the outputs, no softmax kernel, no
Gauss-Legendre quadrature).

* peeling: the product over rounds of the round's selection probability among the
  candidates left; EM's is ``e^{a q_r} / sum e^{a q_j}``; PF's is McKenna & Sheldon's
  alternating sum (their Lemma 2 / Appendix E),
  ``p_r sum_{S subset others} (-1)^|S| prod_{s in S} p_s / (|S| + 1)``, with the terms of
  equal coins grouped by binomial coefficients, exact at 50 digits for the sizes used
  here;
* every score, difference and exponent is an exact ``Fraction`` (a double converts
  exactly), and only ``exponent * difference`` goes to mpmath: at any scale (scores of
  1e300, an exponent of 1e20) the reference sees the differences a double rounds away;
* joint EM / PF: the same two selection rules over the list of all ordered tuples, with
  ``u(s) = -max_i (c_(i) - q_{s_i})`` from a loop;
* canonical: EM over the T-subsets with the loss from a loop, each set's T! orders sharing
  its probability.
"""

from __future__ import annotations

import functools
import itertools
import math
from fractions import Fraction

import mpmath

mpmath.mp.dps = 50


def _exp(x: Fraction):
    """``e^x`` of an exact rational at 50 digits (any size: mpmath's exponents have no
    bound)."""
    return mpmath.exp(mpmath.mpf(x.numerator) / x.denominator)


def _em(values, a):
    a, values = Fraction(a), [Fraction(v) for v in values]
    best = max(values)
    weights = [_exp(a * (v - best)) for v in values]
    total = mpmath.fsum(weights)
    return [w / total for w in weights]


def _pf(values, a):
    """PF by the alternating sum, with the candidates of equal value grouped: for others
    with values ``v_l`` taken ``m_l`` times, ``sum_{j_l <= m_l} prod_l C(m_l, j_l)
    (-p_l)^{j_l} / (sum_l j_l + 1)``."""
    a, values = Fraction(a), [Fraction(v) for v in values]
    best = max(values)
    distinct = sorted(set(values))
    coins = [_exp(a * (v - best)) for v in distinct]
    counts = [values.count(v) for v in distinct]
    of_value = []
    for own in range(len(distinct)):
        others = [c - (k == own) for k, c in enumerate(counts)]
        total = mpmath.mpf(0)
        for taken in itertools.product(*(range(m + 1) for m in others)):
            term = mpmath.mpf(1)
            for p, m, j in zip(coins, others, taken):
                term *= math.comb(m, j) * (-p) ** j
            total += term / (sum(taken) + 1)
        of_value.append(coins[own] * total)
    return [of_value[distinct.index(v)] for v in values]


RULES = {"em": _em, "pf": _pf}


@functools.lru_cache(maxsize=None)
def peeling(scores: tuple, top: int, a: float, rule: str) -> dict:
    """{ordered tuple: probability} of T rounds of ``rule`` with exponent ``a``."""
    out = {}
    for s in itertools.permutations(range(len(scores)), top):
        probability = mpmath.mpf(1)
        for t in range(top):
            left = [j for j in range(len(scores)) if j not in s[:t]]
            round_pmf = RULES[rule]([scores[j] for j in left], a)
            probability *= round_pmf[left.index(s[t])]
        out[s] = probability
    return out


def joint_utility(scores, s) -> Fraction:
    leaders = sorted(map(Fraction, scores), reverse=True)
    return -max(leaders[i] - Fraction(scores[j]) for i, j in enumerate(s))


@functools.lru_cache(maxsize=None)
def joint(scores: tuple, top: int, a: float, rule: str) -> dict:
    tuples = list(itertools.permutations(range(len(scores)), top))
    return dict(zip(tuples, RULES[rule]([joint_utility(scores, s) for s in tuples], a)))


def canonical_loss(scores, subset) -> Fraction:
    inside = [Fraction(scores[i]) for i in subset]
    outside = [Fraction(scores[j]) for j in range(len(scores)) if j not in subset]
    return max(Fraction(0), max(outside, default=min(inside)) - min(inside))


@functools.lru_cache(maxsize=None)
def canonical(scores: tuple, top: int, a: float) -> dict:
    """{ordered tuple: probability}: the set's probability over its T! orders."""
    sets = list(itertools.combinations(range(len(scores)), top))
    probabilities = _em([-canonical_loss(scores, S) for S in sets], a)
    share = math.factorial(top)
    return {s: probabilities[sets.index(tuple(sorted(s)))] / share
            for s in itertools.permutations(range(len(scores)), top)}


def reference_pmf(name: str, scores: tuple, top: int, a: float) -> dict:
    """The reference of mechanism ``name`` at exponent ``a`` (the mechanism's own)."""
    if name in ("peel-em", "gumbel", "peel-pf"):
        return peeling(scores, top, a, "pf" if name == "peel-pf" else "em")
    if name in ("joint-em", "joint-pf"):
        return joint(scores, top, a, name[-2:])
    return canonical(scores, top, a)
