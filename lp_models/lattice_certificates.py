"""Certificates for the reduced lattice LP that hold whatever produced the point: a lower
bound from *any* row multipliers, and a primal point checked against *every* row.

Permute-and-flip paper, Section 5 and Appendix D; the LP is
:func:`lp_models.lattice.reduced_lattice_lp` in its units (``x[m, j]`` is the probability of
one item at level ``j`` in class ``m``; ``cost`` any cost vector of it, normalised or not).
Nothing here calls a solver.

Lower bound (:func:`lagrangian_bound`).  With multipliers ``y_m`` (free) on the class rows
``sum_j m_j x[m, j] = 1``, ``mu_s >= 0`` on the privacy rows ``x[s] - e^-eps x[next(s)] >= 0``
and ``nu_i >= 0`` on monotonicity rows ``x[a_i] - x[b_i] >= 0``, every feasible ``x``
satisfies

    c @ x >= c @ x - sum_m y_m (sum_j m_j x[m, j] - 1) - sum_s mu_s (row_s) - sum_i nu_i (row_i)
          =  sum_m y_m + r @ x,

    r_v = c_v - m_j y_m - mu_v + e^-eps mu_prev(v) - sum_{a_i = v} nu_i + sum_{b_i = v} nu_i,

because each subtracted row is zero (class rows) or a nonnegative multiple of a
nonnegative number.  Every feasible ``x`` also lies in the box ``0 <= x[m, j] <= 1/m_j`` (the
class rows and ``x >= 0`` imply it), so ``r @ x >= sum_v min(0, r_v) / m_j`` and

    OPT >= L(y, mu, nu) = sum_m y_m + sum_v min(0, r_v) / m_j

for *every* ``y``, every ``mu >= 0`` and every ``nu >= 0`` on *any* subset of the
monotonicity rows (a row left out has multiplier 0).  The rows of the regular LP that are
missing from ``pairs`` therefore need no care: the bound holds for the full LP, and for the
``"paper"`` constraint set (no monotonicity rows) as well.  Negative ``mu`` or ``nu`` are
clipped to 0 (which keeps the bound valid); nothing about how the multipliers were found
enters.  Rounding: each ``r_v`` is computed in double precision and lowered by a bound on its
rounding error (``(terms + 2) 2^-52`` times the sum of the magnitudes of its terms) before
``min(0, .)``, and both sums are lowered by ``N 2^-52`` times the sum of their absolute
terms, so the returned number is a lower bound on the optimum of the LP with its
coefficients as stored, not just up to rounding.  Cost ``O(V + rows given)``.

Primal check (:func:`primal_violation`): the largest violation of any class row, privacy
row, *every* monotonicity row of the regular LP (generated block by block by
:func:`lp_models.lattice.monotonicity_pair_blocks`, never all held at once: 62.8 million
at n = k = 12) and of ``x >= 0``, absolute (the values are probabilities).

Primal repair (:func:`repair_primal`): clip at 0, renormalise each class, then mix with a
strictly feasible anchor (by default ``(uniform + PF) / 2``) by the smallest common weight
that makes every privacy and monotonicity row hold.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from lp_models.lattice import monotonicity_pair_blocks, privacy_pairs
from lp_models.lattice_classes import LatticeClasses
from lp_models.program import SolverError

__all__ = [
    "LatticeDual",
    "lagrangian_bound",
    "monotone_violation",
    "primal_violation",
    "reduced_costs",
    "repair_primal",
]

_UNIT = 2.0 ** -52


@dataclass(frozen=True, eq=False)
class LatticeDual:
    """Row multipliers of a reduced lattice LP: ``y`` on the class rows (one per class),
    ``mu`` on the privacy rows (one per variable with a chain successor, in the order of
    ``numpy.flatnonzero(classes.var_next >= 0)``), ``nu`` on the monotonicity rows
    ``x[pairs[0][i]] >= x[pairs[1][i]]``.  In the row order of
    :func:`lp_models.lattice.reduced_lattice_lp` with ``monotone_pairs=pairs`` they are
    ``numpy.concatenate([y, mu, nu])``."""

    y: np.ndarray
    mu: np.ndarray
    pairs: tuple[np.ndarray, np.ndarray]
    nu: np.ndarray

    def row_multipliers(self) -> np.ndarray:
        """``concatenate([y, mu, nu])``: the multipliers in the LP's row order."""
        return np.concatenate([self.y, self.mu, self.nu])


def _check_dual(classes: LatticeClasses, cost: np.ndarray, dual: LatticeDual) -> None:
    num_privacy = int((classes.var_next >= 0).sum())
    a, b = dual.pairs
    shapes = {"cost": (np.shape(cost), (classes.num_variables,)),
              "y": (np.shape(dual.y), (classes.num_classes,)),
              "mu": (np.shape(dual.mu), (num_privacy,)),
              "pairs[1]": (np.shape(b), np.shape(a)), "nu": (np.shape(dual.nu), np.shape(a))}
    for name, (got, want) in shapes.items():
        if got != want:
            raise ValueError(f"{name} has shape {got}, expected {want}")
    for name, v in (("cost", cost), ("y", dual.y), ("mu", dual.mu), ("nu", dual.nu)):
        if not np.isfinite(v).all():
            raise ValueError(f"{name} must be finite")


def reduced_costs(classes: LatticeClasses, epsilon: float, cost: np.ndarray,
                  dual: LatticeDual) -> tuple[np.ndarray, np.ndarray]:
    """``(r, magnitude)``: the reduced cost ``r_v`` of every variable at ``dual`` (``mu`` and
    ``nu`` clipped at 0; see the module docstring) and the sum of the absolute values of the
    terms it adds, for rounding bounds."""
    _check_dual(classes, cost, dual)
    decay = math.exp(-epsilon)
    num_vars = classes.num_variables
    source = np.flatnonzero(classes.var_next >= 0)
    target = classes.var_next[source]
    mu = np.maximum(dual.mu, 0.0)
    nu = np.maximum(dual.nu, 0.0)
    a, b = (np.asarray(p, dtype=np.int64) for p in dual.pairs)
    class_term = classes.var_count * dual.y[classes.var_class]
    r = cost - class_term
    magnitude = np.abs(cost) + np.abs(class_term)
    r[source] -= mu
    r[target] += decay * mu
    magnitude[source] += mu
    magnitude[target] += decay * mu
    if a.size:
        nu_out = np.bincount(a, weights=nu, minlength=num_vars)
        nu_in = np.bincount(b, weights=nu, minlength=num_vars)
        r += nu_in - nu_out
        magnitude += nu_in + nu_out
    return r, magnitude


def lagrangian_bound(classes: LatticeClasses, epsilon: float, cost: np.ndarray,
                     dual: LatticeDual) -> float:
    """A lower bound on the optimum of the reduced LP with cost ``cost`` (either constraint
    set, any monotonicity rows) from *any* multipliers: ``L(y, mu, nu)`` of the module
    docstring with rounding accounted for.  Raises ``ValueError`` on mismatched shapes or
    non-finite input."""
    r, magnitude = reduced_costs(classes, epsilon, cost, dual)
    a = np.asarray(dual.pairs[0])
    # terms per r_v: cost, class term, at most one mu out, one mu in, and its nu rows
    terms = 4.0 + np.bincount(a, minlength=classes.num_variables) + np.bincount(
        np.asarray(dual.pairs[1]), minlength=classes.num_variables) if a.size else 4.0
    rounding = (terms + 2.0) * _UNIT * magnitude * (1 + 1e-6)
    shortfall = np.minimum(r - rounding, 0.0) / classes.var_count
    shortfall *= 1 + 2 * _UNIT                              # the division's rounding
    total_y = float(dual.y.sum()) - dual.y.size * _UNIT * float(np.abs(dual.y).sum())
    total_short = float(shortfall.sum()) * (1 + shortfall.size * _UNIT)
    return total_y + total_short - 4 * _UNIT * (abs(total_y) + abs(total_short))


def monotone_violation(classes: LatticeClasses, x: np.ndarray) -> float:
    """Largest ``x[b] - x[a]`` over every monotonicity row ``x[a] >= x[b]`` of the regular
    LP (0 or negative when all hold), checked block by block."""
    worst = 0.0
    for a, b in monotonicity_pair_blocks(classes):
        if a.size:
            worst = max(worst, float((x[b] - x[a]).max()))
    return worst


def primal_violation(classes: LatticeClasses, epsilon: float, x: np.ndarray,
                     regular: bool) -> float:
    """Largest absolute violation at ``x`` of any row of the reduced LP (class rows, privacy
    rows, every monotonicity row when ``regular``) or of ``0 <= x <= 1/m_j``."""
    x = np.asarray(x, dtype=float)
    if x.shape != (classes.num_variables,) or not np.isfinite(x).all():
        raise ValueError(f"x must be {classes.num_variables} finite numbers")
    totals = np.bincount(classes.var_class, weights=classes.var_count * x,
                         minlength=classes.num_classes)
    source = np.flatnonzero(classes.var_next >= 0)
    parts = [float(np.abs(totals - 1.0).max()),
             float((math.exp(-epsilon) * x[classes.var_next[source]] - x[source]).max(
                 initial=0.0)),
             float(-x.min()), float((x - 1.0 / classes.var_count).max())]
    if regular:
        parts.append(monotone_violation(classes, x))
    return max(0.0, *parts)


def repair_primal(classes: LatticeClasses, epsilon: float, x: np.ndarray, pf: np.ndarray,
                  regular: bool, lattice: str = "2delta",
                  anchor: np.ndarray | None = None) -> np.ndarray:
    """Make ``x`` satisfy every row exactly: clip, renormalise per class, then mix with the
    strictly feasible ``anchor`` (default ``(uniform + pf) / 2``) by the smallest weight
    that removes the largest relative violation of a privacy row of ``lattice`` (with
    ``pf`` PF's point on that lattice) or of a monotonicity row (every one when ``regular``,
    block by block).  Raises :class:`~lp_models.program.SolverError` if the anchor does not
    meet a violated row strictly."""
    x = np.maximum(np.asarray(x, dtype=float), 0.0)
    totals = np.bincount(classes.var_class, weights=classes.var_count * x,
                         minlength=classes.num_classes)
    x = x / totals[classes.var_class]
    if anchor is None:
        anchor = 0.5 * (pf + 1.0 / classes.n)
    decay = math.exp(-epsilon)

    def rows():
        yield (*privacy_pairs(classes, lattice), decay)
        if regular:
            for a, b in monotonicity_pair_blocks(classes):
                yield a, b, 1.0

    theta = 0.0
    for a, b, coef in rows():
        row_x = x[a] - coef * x[b]
        bad = row_x < 0
        if bad.any():
            row_anchor = anchor[a[bad]] - coef * anchor[b[bad]]
            if (row_anchor <= 0).any():
                raise SolverError("cannot repair the primal point: the anchor is not strictly "
                                  "feasible", status="repair failed", num_rows=0,
                                  num_cols=x.size, num_nonzeros=0, method="repair")
            need = -row_x[bad] / (row_anchor - row_x[bad])
            theta = max(theta, float(need.max()))
    if theta > 0:
        theta = min(1.0, theta * (1 + 1e-9) + 1e-16)
        x = (1 - theta) * x + theta * anchor
    return x
