"""Exact discrete privacy loss distributions: the atoms of a pair, composed without a grid.

A pair of distributions ``(P, Q)`` on finitely many outputs is, for every curve of
:mod:`optmech.privacy.divergences`, the same as its *atoms*: the distinct privacy losses
``L = log(P_r / Q_r)`` with the total ``P``- and ``Q``-mass of the outputs that have them
(outputs with equal loss add up: every divergence is a sum over outputs of a function of
``(P_r, Q_r)`` that is homogeneous of degree one, so outputs with one ratio merge without
changing it).  Independent runs multiply the masses and add the losses, so ``k`` runs of one
pair are the ``k``-fold outer sum of its atoms, merged again.

Method and choices:

* Two atoms merge when their losses agree to :data:`MERGE_TOLERANCE` (relative; losses that
  are equal mathematically differ by rounding when they are sums taken in different
  orders).  Merging two atoms of different losses is a post-processing of the pair (the two
  outputs are reported as one), so by the data-processing inequality it can only lower a
  curve: a merged composition is a lower bound, exact to the tolerance.
* A binary pair (two outputs, e.g. randomised response, or the exponential mechanism on
  two candidates) composed ``k`` times has ``k + 1`` atoms with binomial masses, formed in
  closed form (:meth:`LossAtoms.binary_power`): no merging, no rounding beyond the last
  bit.
* Everything is kept in logarithms (``log P``, ``log Q``): masses of 1e-300 and below stay
  exact, as in :mod:`optmech.privacy.divergences`, whose hockey-stick and Rényi functions
  evaluate the atoms.
* The number of atoms is bounded before the work starts (:func:`power_size` with
  :func:`~optmech.resources.require_memory`); past :data:`MAX_ATOMS` a composition is
  refused with a pointer to the certified accountant (:mod:`optmech.privacy.accountant`),
  which composes on a grid instead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.special import gammaln

from optmech.privacy.divergences import hockey_stick
from optmech.resources import require_memory
from optmech.validation import InvalidArgumentError, check_integer

__all__ = ["MAX_ATOMS", "MERGE_TOLERANCE", "LossAtoms", "power_size"]

#: Relative tolerance within which two losses count as equal (:class:`LossAtoms`).
MERGE_TOLERANCE = 1e-12
#: The most atoms a composition may have (about 100 MB of arrays while composing).
MAX_ATOMS = 2_000_000
# Peak bytes per atom formed (power_size) while outer sums are formed and merged: three float
# arrays of the outer sum (log P, log Q, loss), the sort order and the sorted copies.
# Measured with tracemalloc for PF pairs, n = 5..20 outputs, k = 4..20 runs: 90 to 101 bytes.
BYTES_PER_PRODUCT_ATOM = 112


def _logaddexp_groups(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """``log sum exp`` of each group of ``values`` (groups begin at ``starts``)."""
    top = np.maximum.reduceat(values, starts)
    safe = np.where(np.isfinite(top), top, 0.0)
    repeat = np.diff(np.append(starts, values.size))
    with np.errstate(divide="ignore", invalid="ignore"):
        sums = np.add.reduceat(np.exp(values - np.repeat(safe, repeat)), starts)
        return np.log(sums) + safe


@dataclass(frozen=True)
class LossAtoms:
    """The distinct privacy losses of a pair with their masses (module docstring).

    ``log_p`` and ``log_q`` are the logarithms of the ``P``- and ``Q``-masses of each atom
    (``-inf`` for 0); atoms are sorted by loss ``log_p - log_q`` (``+inf`` where only ``P``
    is positive, ``-inf`` where only ``Q`` is).
    """

    #: ``log P`` of each atom (``-inf`` for mass 0).
    log_p: np.ndarray = field(repr=False)
    #: ``log Q`` of each atom.
    log_q: np.ndarray = field(repr=False)

    @classmethod
    def of(cls, log_p, log_q) -> "LossAtoms":
        """The atoms of a pair given by its log-probabilities per output (merged)."""
        log_p = np.asarray(log_p, dtype=float).ravel()
        log_q = np.asarray(log_q, dtype=float).ravel()
        if log_p.shape != log_q.shape or log_p.size == 0:
            raise InvalidArgumentError("log_p, log_q", (log_p.shape, log_q.shape),
                                       "two log-pmfs of the same length")
        keep = ~(np.isneginf(log_p) & np.isneginf(log_q))
        return cls._merged(log_p[keep], log_q[keep])

    @classmethod
    def _merged(cls, log_p: np.ndarray, log_q: np.ndarray) -> "LossAtoms":
        with np.errstate(invalid="ignore"):
            loss = np.where(np.isneginf(log_p), -np.inf,
                            np.where(np.isneginf(log_q), np.inf, log_p - log_q))
        order = np.argsort(loss, kind="stable")
        loss, log_p, log_q = loss[order], log_p[order], log_q[order]
        if loss.size > 1:
            finite = np.isfinite(loss)
            scale = np.maximum(1.0, np.abs(np.where(finite, loss, 0.0)))
            gap = np.diff(np.where(finite, loss, 0.0))
            same = (gap <= MERGE_TOLERANCE * scale[1:]) & finite[1:] & finite[:-1]
            same |= (loss[1:] == loss[:-1]) & ~finite[1:]          # +inf with +inf, -inf
            starts = np.flatnonzero(np.concatenate([[True], ~same]))
            if starts.size < loss.size:
                log_p = _logaddexp_groups(log_p, starts)
                log_q = _logaddexp_groups(log_q, starts)
        return cls(log_p, log_q)

    @property
    def size(self) -> int:
        """Number of atoms."""
        return int(self.log_p.size)

    @property
    def losses(self) -> np.ndarray:
        """``log P - log Q`` of each atom (``±inf`` where one mass is 0)."""
        with np.errstate(invalid="ignore"):
            return np.where(np.isneginf(self.log_p), -np.inf,
                            np.where(np.isneginf(self.log_q), np.inf,
                                     self.log_p - self.log_q))

    def reversed(self) -> "LossAtoms":
        """The pair in the other direction (``Q`` against ``P``)."""
        return LossAtoms(self.log_q[::-1].copy(), self.log_p[::-1].copy())

    def delta(self, eps_prime) -> np.ndarray:
        """``delta(eps') = sum max(0, P - e^eps' Q)`` in this direction, for each ``eps'``."""
        return hockey_stick(np.minimum(self.log_p, 0.0), np.minimum(self.log_q, 0.0),
                            eps_prime)

    def product(self, other: "LossAtoms") -> "LossAtoms":
        """The atoms of two independent runs (outer sum of losses, merged)."""
        require_memory(BYTES_PER_PRODUCT_ATOM * self.size * other.size, "atoms",
                       self.size * other.size)
        if self.size * other.size > MAX_ATOMS:
            raise InvalidArgumentError(
                "k", self.size * other.size,
                f"a composition of at most {MAX_ATOMS:,} distinct losses before merging; "
                "optmech.privacy.accountant composes larger ones on a certified grid")
        log_p = (self.log_p[:, None] + other.log_p[None, :]).ravel()
        log_q = (self.log_q[:, None] + other.log_q[None, :]).ravel()
        return LossAtoms._merged(log_p, log_q)

    def power(self, k: int) -> "LossAtoms":
        """``k`` independent runs: binomial in closed form for two atoms, else one run at a
        time, merging after each (refused up front beyond :data:`MAX_ATOMS` or the memory
        budget, :func:`power_size`)."""
        k = check_integer(k, "k", minimum=1)
        if self.size == 2:
            return self.binary_power(k)
        power_size(self.size, k)                                  # refuses up front
        result = self
        for _ in range(k - 1):
            result = result.product(self)
        return result

    def binary_power(self, k: int) -> "LossAtoms":
        """``k`` runs of a two-atom pair: ``k + 1`` atoms, ``i`` runs on the first atom, with
        masses ``C(k, i) P_0^i P_1^(k - i)`` (and the same for ``Q``)."""
        if self.size != 2:
            raise InvalidArgumentError("atoms", self.size, "a pair with two distinct losses")
        i = np.arange(k + 1, dtype=float)
        log_binomial = gammaln(k + 1.0) - gammaln(i + 1.0) - gammaln(k - i + 1.0)

        def masses(logs: np.ndarray) -> np.ndarray:
            with np.errstate(invalid="ignore"):
                terms = [np.where(count > 0, count * value, 0.0)
                         for count, value in ((i, logs[0]), (k - i, logs[1]))]
            return log_binomial + terms[0] + terms[1]

        return LossAtoms._merged(masses(self.log_p), masses(self.log_q))


def power_size(atoms: int, k: int) -> int:
    """An upper bound on the atoms formed while composing ``k`` runs of ``atoms`` atoms one
    run at a time: ``C(atoms + k - 2, k - 1) * atoms`` before the last merge (the count
    vectors of ``k - 1`` runs times one more run), refused (naming ``k``) beyond
    :data:`MAX_ATOMS` or the memory budget."""
    size = (math.comb(atoms + k - 2, k - 1) * atoms if atoms < 10**6 and k < 10**6
            else math.inf)
    if size > MAX_ATOMS:
        raise InvalidArgumentError(
            "k", k, f"a composition that forms at most {MAX_ATOMS:,} atoms "
                    f"({atoms} losses, {k} runs: up to {size:,.0f}); "
                    "optmech.privacy.accountant composes larger ones on a certified grid")
    require_memory(BYTES_PER_PRODUCT_ATOM * size, "k", k)
    return int(size)
