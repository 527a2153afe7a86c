"""Exact composition of one pair: the output distributions of ``k`` independent runs.

Running a mechanism ``k`` times on ``q`` (and on ``q'``) gives the product distributions
``P^k`` and ``Q^k`` on ``n^k`` output sequences.  Every curve of
:mod:`optmech.privacy.divergences` depends on them only through their privacy loss
distribution, so :func:`compose` returns the pair's *atoms* (:mod:`optmech.privacy.loss_atoms`):
the distinct losses of the ``k``-fold product with their ``P``- and ``Q``-masses, formed one
run at a time with outputs of equal loss merged (two outputs: binomial masses in closed
form).  At most ``C(n + k - 1, k)`` atoms (:func:`composition_size`, the count vectors of
``k`` runs over ``n`` outputs), often far fewer.  So ``delta(eps')`` of ``k`` composed
selections is exact, not discretised as in a PLD accountant; ``D_alpha`` of the product is
``k D_alpha`` of one run (a test checks it).  The error bounds of the runs' log-probabilities
(:meth:`~optmech.privacy.loss.LossDistribution.errors`) carry over: a product atom's mass is a
sum of products of ``k`` masses, so its logarithm is off by at most ``k`` times the largest
error of one run, plus the rounding of its ``k`` additions, the merging sums and the binomial
coefficients of a binary pair: ``k + 2`` roundings of the largest intermediate,
``k max|log p| + log k!``.  The composed curves' error intervals stay bounds.
:func:`product` composes two different pairs the same way.  The memory of a composition is
bounded before it starts (:func:`~optmech.privacy.loss_atoms.power_size`); larger
compositions, and sequences of different mechanisms with a certified bound, are
:mod:`optmech.privacy.accountant`'s.
"""

from __future__ import annotations

import math

import numpy as np

from optmech.privacy.loss import LossDistribution
from optmech.privacy.loss_atoms import LossAtoms
from optmech.selection.scores import ROUNDING
from optmech.validation import check_integer

__all__ = ["compose", "composition_size", "product"]


def composition_size(n: int, k: int) -> int:
    """``C(n + k - 1, k)``: the count vectors of ``k`` runs over ``n`` outputs, a bound on the
    atoms of :func:`compose`."""
    return math.comb(n + k - 1, k)


def _error_bound(*runs: LossDistribution, repeat: int = 1) -> float:
    """A bound on the error of every composed log-mass of ``runs``, each run ``repeat``
    times (module docstring)."""
    inherited = largest = 0.0
    for run in runs:
        errors = np.concatenate([np.ravel(e) for e in run.errors()])
        logs = np.concatenate([run.log_p, run.log_q])
        inherited += float(np.max(errors, initial=0.0))
        largest += float(np.max(np.abs(logs[np.isfinite(logs)]), initial=0.0))
    k = len(runs) * repeat
    return repeat * inherited + (k + 2) * ROUNDING * (repeat * largest + math.lgamma(k + 1))


def _as_distribution(template: LossDistribution, atoms: LossAtoms, error: float,
                     scores=None, neighbour=None) -> LossDistribution:
    log_p, log_q = np.minimum(atoms.log_p, 0.0), np.minimum(atoms.log_q, 0.0)
    return LossDistribution(template.scores if scores is None else scores,
                            template.neighbour if neighbour is None else neighbour,
                            log_p, log_q, np.full(log_p.shape, error),
                            np.full(log_q.shape, error))


def compose(distribution: LossDistribution, k: int) -> LossDistribution:
    """The pair of ``k``-fold products, as its atoms (module docstring).

    The result's ``scores`` and ``neighbour`` are the single run's (repeated ``k`` times in
    meaning); its outputs are the distinct losses of the product.  Refused up front
    (naming ``k``) when the composition could form more than
    :data:`~optmech.privacy.loss_atoms.MAX_ATOMS` atoms or exceed the memory budget.
    """
    k = check_integer(k, "k", minimum=1)
    atoms = LossAtoms.of(distribution.log_p, distribution.log_q)
    return _as_distribution(distribution, atoms.power(k), _error_bound(distribution, repeat=k))


def product(first: LossDistribution, second: LossDistribution) -> LossDistribution:
    """The pair ``(P1 x P2, Q1 x Q2)`` of two independent runs, as its atoms."""
    atoms = LossAtoms.of(first.log_p, first.log_q).product(
        LossAtoms.of(second.log_p, second.log_q))
    return _as_distribution(first, atoms, _error_bound(first, second),
                            np.concatenate([first.scores, second.scores]),
                            np.concatenate([first.neighbour, second.neighbour]))
