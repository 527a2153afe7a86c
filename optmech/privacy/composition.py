"""Exact composition: the output distributions of ``k`` independent runs on the same pair.

Running a mechanism ``k`` times on ``q`` (and on ``q'``) gives the product distributions
``P^k`` and ``Q^k`` on ``n^k`` output sequences.  The loss of a sequence depends only on how
often each output occurs (its count vector ``c``, ``sum c = k``), so the pair is summarised
without loss by the ``C(n + k - 1, k)`` count vectors, each with

    log P^k(c) = log multinomial(k; c) + sum_r c_r log P_r

(and the same for ``Q``): every divergence of :mod:`optmech.privacy.divergences` (a sum over
outputs of a function of the pair ``(P, Q)`` of an output, where outputs with the same loss
add up) takes the same value on the summary as on the product.  So ``delta(eps')`` of ``k``
composed selections is exact, not discretised as in a PLD accountant; ``D_alpha`` of the
product is ``k D_alpha`` of one run (a test checks it).  :func:`product` composes two
different pairs the same way (the outer product of their outputs).
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy.special import gammaln

from optmech.privacy.loss import LossDistribution
from optmech.resources import require_memory
from optmech.validation import InvalidArgumentError, check_integer

__all__ = ["compose", "composition_size", "count_vectors", "product"]


def composition_size(n: int, k: int) -> int:
    """``C(n + k - 1, k)``: the count vectors of ``k`` runs over ``n`` outputs."""
    return math.comb(n + k - 1, k)


@functools.lru_cache(maxsize=32)
def count_vectors(n: int, k: int) -> np.ndarray:
    """Every vector of ``n`` counts >= 0 summing to ``k``, one per row (read-only)."""
    if n == 1:
        out = np.array([[k]], dtype=np.int64)
    else:
        out = np.concatenate([np.column_stack([np.full(len(rest), first, dtype=np.int64),
                                               rest])
                              for first in range(k, -1, -1)
                              for rest in [count_vectors(n - 1, k - first)]])
    out.flags.writeable = False
    return out


def compose(distribution: LossDistribution, k: int) -> LossDistribution:
    """The pair of ``k``-fold products, summarised by count vectors (module docstring).

    The result's ``scores`` and ``neighbour`` are the single run's (repeated ``k`` times in
    meaning); its outputs are the count vectors of :func:`count_vectors`.  Refused when the
    count vectors need more memory than the budget
    (:func:`~optmech.resources.require_memory`).
    """
    k = check_integer(k, "k", minimum=1)
    n = distribution.log_p.size
    require_memory(8.0 * composition_size(n, k) * (n + 4), "k", k)
    counts = count_vectors(n, k)
    log_multinomial = gammaln(k + 1.0) - gammaln(counts + 1.0).sum(axis=1)
    return LossDistribution(distribution.scores, distribution.neighbour,
                            log_multinomial + _weighted(counts, distribution.log_p),
                            log_multinomial + _weighted(counts, distribution.log_q))


def _weighted(counts: np.ndarray, log_probabilities: np.ndarray) -> np.ndarray:
    """``sum_r c_r log p_r`` with ``0 * (-inf) = 0`` (an output that never occurs in ``c``)."""
    terms = np.where(counts > 0, counts * np.where(np.isneginf(log_probabilities), 0.0,
                                                  log_probabilities), 0.0)
    never = (counts > 0) & np.isneginf(log_probabilities)
    return np.where(never.any(axis=1), -np.inf, terms.sum(axis=1))


def product(first: LossDistribution, second: LossDistribution) -> LossDistribution:
    """The pair ``(P1 x P2, Q1 x Q2)`` of two independent runs (outputs: all pairs)."""
    size = first.log_p.size * second.log_p.size
    if size > 10**7:
        raise InvalidArgumentError("second", second.log_p.size,
                                   "pairs whose product has at most 10^7 outputs")
    require_memory(32.0 * size, "second", second.log_p.size)
    log_p = (first.log_p[:, None] + second.log_p[None, :]).ravel()
    log_q = (first.log_q[:, None] + second.log_q[None, :]).ravel()
    return LossDistribution(np.concatenate([first.scores, second.scores]),
                            np.concatenate([first.neighbour, second.neighbour]), log_p, log_q)
