"""Checking a privacy guarantee numerically from output distributions.

A selection mechanism is epsilon-DP when, for every pair of neighbouring score vectors
``q ~ q'`` (``|q_r - q'_r| <= Δ_r`` for all ``r``) and every output ``r``,
``Pr[M(q) = r] <= e^epsilon Pr[M(q') = r]``.  Given a mechanism's exact ``pmf`` this module
measures the *realised* privacy loss over a finite set of neighbours:

* :func:`worst_case_neighbours`: for each output ``r`` the neighbour of the permute-and-flip
  paper's Proposition 2 (``q'_r = q_r + Δ``, ``q'_s = q_s - Δ``), and its mirror image;
  for a regular mechanism these attain the worst case;
* :func:`lattice_neighbours`: every ``q + d`` with each ``d_r`` on an evenly spaced grid
  of ``[-Δ_r, Δ_r]`` (a seeded random subset when there are too many);
* :func:`hockey_stick_delta`: ``delta(epsilon) = sum_r max(0, P_r - e^epsilon Q_r)``, the
  smallest delta for which two output distributions are (epsilon, delta)-indistinguishable.

Sensitivities may differ per candidate (heterogeneous sensitivities), and ``monotonic=True``
restricts neighbours to moves of all scores in one direction.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np

from optmech.resources import require_memory
from optmech.selection.mechanisms import as_mechanism
from optmech.unbounded import UNBOUNDED, unbounded_if_infinite
from optmech.validation import (
    InvalidArgumentError,
    as_real_array,
    check_integer,
    check_nonnegative,
    check_scores,
)

__all__ = [
    "PrivacyCheck",
    "hockey_stick_delta",
    "lattice_neighbours",
    "max_divergence",
    "privacy_loss",
    "realised_epsilon",
    "worst_case_neighbours",
]


def _distributions(p, q) -> tuple[np.ndarray, np.ndarray]:
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    if p.shape != q.shape or p.ndim != 1:
        raise InvalidArgumentError("p, q", (p.shape, q.shape), "two 1-D arrays of equal length")
    return p, q


def max_divergence(p, q) -> float:
    """``max_r log(p_r / q_r)`` over outputs with ``p_r > 0``
    (:data:`~optmech.unbounded.UNBOUNDED`, equal to ``inf``, if some ``q_r = 0``)."""
    p, q = _distributions(p, q)
    support = p > 0
    if (q[support] == 0).any():
        return UNBOUNDED
    return float(np.max(np.log(p[support]) - np.log(q[support]), initial=0.0))


def privacy_loss(p, q) -> float:
    """Symmetric privacy loss ``max(D_inf(p||q), D_inf(q||p))`` of two output distributions."""
    return max(max_divergence(p, q), max_divergence(q, p))


def hockey_stick_delta(p, q, epsilon: float) -> float:
    """``sum_r max(0, p_r - e^epsilon q_r)``: the tight delta of ``p`` against ``q``."""
    p, q = _distributions(p, q)
    epsilon = check_nonnegative(epsilon, "epsilon")
    return float(np.maximum(p - math.exp(epsilon) * q, 0.0).sum())


def _sensitivities(scores: np.ndarray, sensitivity) -> np.ndarray:
    """One sensitivity per candidate: finite, >= 0, at least one > 0 (with every one 0 no
    neighbour differs from ``scores`` and a check would prove nothing)."""
    allowed = "finite numbers >= 0, at least one > 0 (one, or one per candidate)"
    values = as_real_array(sensitivity, "sensitivity", allowed)
    if values.ndim > 1 or values.size not in (1, scores.size):
        raise InvalidArgumentError("sensitivity", sensitivity, allowed)
    delta = np.broadcast_to(values, scores.shape)
    if not (np.isfinite(delta).all() and (delta >= 0).all() and delta.max() > 0):
        raise InvalidArgumentError("sensitivity", sensitivity, allowed)
    return delta


def worst_case_neighbours(scores, sensitivity=1.0, monotonic: bool = False) -> np.ndarray:
    """Rows ``q ± Δ ⊙ (e_r - (1 - e_r))`` for each ``r`` (Proposition 2's neighbour).

    With ``monotonic=True`` the rows are ``q ± Δ_r e_r`` (all scores move one way).
    """
    q = check_scores(scores)
    delta = _sensitivities(q, sensitivity)
    n = q.size
    eye = np.eye(n)
    direction = eye if monotonic else 2 * eye - 1
    moves = direction * delta
    return np.concatenate([q + moves, q - moves])


def lattice_neighbours(scores, sensitivity=1.0, levels: int = 3, limit: int = 4096,
                       monotonic: bool = False, rng: np.random.Generator | None = None
                       ) -> np.ndarray:
    """Neighbours ``q + d`` with ``d_r`` on ``levels`` evenly spaced points of ``[-Δ_r, Δ_r]``.

    All ``levels**n`` combinations when that is at most ``limit``, otherwise ``limit`` of
    them drawn with ``rng``.  ``monotonic=True`` keeps the ``d`` whose entries share a sign.
    """
    q = check_scores(scores)
    delta = _sensitivities(q, sensitivity)
    levels = check_integer(levels, "levels", minimum=2)
    limit = check_integer(limit, "limit", minimum=1)
    require_memory(24 * q.size * min(limit, levels ** min(q.size, 64)), "limit", limit)
    grid = np.linspace(-1.0, 1.0, levels)
    n = q.size
    if levels ** n <= limit:
        steps = np.array(list(itertools.product(grid, repeat=n)))
    else:
        rng = np.random.default_rng(rng)
        steps = grid[rng.integers(levels, size=(limit, n))]
    if monotonic:
        steps = steps[(steps >= 0).all(axis=1) | (steps <= 0).all(axis=1)]
    return q + steps * delta


@dataclass(frozen=True)
class PrivacyCheck:
    """Largest privacy loss found: ``epsilon`` at ``output`` between ``scores`` and
    ``neighbour``, over ``neighbours_checked`` neighbouring vectors.  ``epsilon`` is
    :data:`~optmech.unbounded.UNBOUNDED` (equal to ``inf``) when one of the two inputs
    produces ``output`` and the other cannot: the mechanism is not ε'-DP for any ε'."""

    #: The largest privacy loss ``|log Pr[M(q) = r] - log Pr[M(q') = r]|`` found (>= 0), or
    #: :data:`~optmech.unbounded.UNBOUNDED`.
    epsilon: float
    #: The output (0-based candidate index) at which it occurs.
    output: int
    #: The score vector ``q`` that was checked.
    scores: np.ndarray
    #: The neighbouring score vector ``q'`` attaining ``epsilon`` (``scores`` itself when no
    #: neighbour was checked).
    neighbour: np.ndarray
    #: Number of neighbouring score vectors compared with ``scores``.
    neighbours_checked: int

    def satisfies(self, epsilon: float, rtol: float = 1e-9) -> bool:
        """True when the realised loss is at most ``epsilon`` (relative tolerance ``rtol``)."""
        return self.epsilon <= epsilon * (1 + rtol) + 1e-15


def realised_epsilon(mechanism, scores, sensitivity=None, neighbours=None,
                     monotonic: bool | None = None, levels: int = 3, limit: int = 4096,
                     rng: np.random.Generator | None = None) -> PrivacyCheck:
    """Largest ``|log Pr[M(q) = r] - log Pr[M(q') = r]|`` over outputs and neighbours.

    ``mechanism`` is anything :func:`~optmech.selection.mechanisms.as_mechanism` accepts: a
    mechanism, an object with a ``pmf(scores)`` method, or a function of the scores
    returning the pmf (its outputs are checked).  ``sensitivity`` and ``monotonic`` default
    to the mechanism's own attributes (1.0 and False if it has none).  ``neighbours``
    defaults to the worst-case neighbours together with the lattice neighbours.
    """
    if isinstance(mechanism, str):
        raise InvalidArgumentError("mechanism", mechanism, "a mechanism object or a function "
                                                           "of the scores (not a name)")
    # log probabilities from the mechanism's own logpmf: a probability below 2.2e-308 is a
    # subnormal double with few significant bits, and log(pmf) there would misstate the
    # loss (PF at a gap of 730 nats: 4e-8 too large)
    logpmf = as_mechanism(mechanism).logpmf
    q = check_scores(scores)
    if sensitivity is None:
        sensitivity = getattr(mechanism, "sensitivity", 1.0)
    if monotonic is None:
        monotonic = bool(getattr(mechanism, "monotonic", False))
    if neighbours is None:
        neighbours = np.concatenate([
            worst_case_neighbours(q, sensitivity, monotonic),
            lattice_neighbours(q, sensitivity, levels, limit, monotonic, rng)])
    neighbours = np.atleast_2d(as_real_array(neighbours, "neighbours",
                                             "an array of score vectors like scores"))
    if neighbours.ndim != 2 or neighbours.shape[1] != q.size \
            or not np.isfinite(neighbours).all():
        raise InvalidArgumentError("neighbours", neighbours,
                                   f"finite score vectors of {q.size} candidates")
    best = (-math.inf, 0, q)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_base = np.asarray(logpmf(q), dtype=float)
        for other in neighbours:
            log_other = np.asarray(logpmf(other), dtype=float)
            gap = np.abs(log_base - log_other)
            gap[(log_base == -np.inf) & (log_other == -np.inf)] = 0.0
            r = int(np.argmax(gap))
            if gap[r] > best[0]:
                best = (float(gap[r]), r, other)
    return PrivacyCheck(epsilon=unbounded_if_infinite(max(best[0], 0.0)), output=best[1],
                        scores=q, neighbour=np.array(best[2]), neighbours_checked=len(neighbours))
