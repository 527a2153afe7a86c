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
``k D_alpha`` of one run (a test checks it).  :func:`product` composes two different pairs
the same way.  The memory of a composition is bounded before it starts
(:func:`~optmech.privacy.loss_atoms.power_size`); larger compositions, and sequences of
different mechanisms with a certified bound, are :mod:`optmech.privacy.accountant`'s.
"""

from __future__ import annotations

import math

import numpy as np

from optmech.privacy.loss import LossDistribution
from optmech.privacy.loss_atoms import LossAtoms
from optmech.validation import check_integer

__all__ = ["compose", "composition_size", "product"]


def composition_size(n: int, k: int) -> int:
    """``C(n + k - 1, k)``: the count vectors of ``k`` runs over ``n`` outputs, a bound on the
    atoms of :func:`compose`."""
    return math.comb(n + k - 1, k)


def _as_distribution(template: LossDistribution, atoms: LossAtoms, scores=None,
                     neighbour=None) -> LossDistribution:
    return LossDistribution(template.scores if scores is None else scores,
                            template.neighbour if neighbour is None else neighbour,
                            np.minimum(atoms.log_p, 0.0), np.minimum(atoms.log_q, 0.0))


def compose(distribution: LossDistribution, k: int) -> LossDistribution:
    """The pair of ``k``-fold products, as its atoms (module docstring).

    The result's ``scores`` and ``neighbour`` are the single run's (repeated ``k`` times in
    meaning); its outputs are the distinct losses of the product.  Refused up front
    (naming ``k``) when the composition could form more than
    :data:`~optmech.privacy.loss_atoms.MAX_ATOMS` atoms or exceed the memory budget.
    """
    k = check_integer(k, "k", minimum=1)
    atoms = LossAtoms.of(distribution.log_p, distribution.log_q)
    return _as_distribution(distribution, atoms.power(k))


def product(first: LossDistribution, second: LossDistribution) -> LossDistribution:
    """The pair ``(P1 x P2, Q1 x Q2)`` of two independent runs, as its atoms."""
    atoms = LossAtoms.of(first.log_p, first.log_q).product(
        LossAtoms.of(second.log_p, second.log_q))
    return _as_distribution(first, atoms, np.concatenate([first.scores, second.scores]),
                            np.concatenate([first.neighbour, second.neighbour]))
