"""Other aggregates of the expected error over the bounded lattice: weights and minimax.

The lattice LPs of :mod:`lp_models.lattice` minimise the *sum* of the expected errors over
``Q`` (each vector once, or with the cube weighting).  The permute-and-flip paper (Section 8,
question 3) asks about other ways of aggregating over score vectors; two are built here, for
the reduced LP (one error row per class) and the full LP (one per vector) alike, from an
*error matrix* ``E`` whose row ``u`` maps the variables to the expected error of unit ``u``
(units of Δ):

* ``"weighted"`` — minimise ``sum_u w_u (E x)_u`` for user weights ``w >= 0`` (a prior over
  ``Q``).  A regular mechanism is symmetric, so it has the same expected error on every
  vector of a class: a prior over vectors enters the reduced LP only through its sum over
  each class, and the class weights are those sums.  The cost is divided by ``sum_u w_u``
  (the LP's ``objective_scale``), as the sum objective is.
* ``"max"`` — minimise the largest expected error over ``Q`` (minimax): one more column
  ``t`` (the last) with cost 1, and one row ``t - (E x)_u >= 0`` per unit, placed after the
  rows of the given LP.  ``t`` is boxed in ``[0, upper]`` (no expected error exceeds ``k``
  lattice steps), so :func:`lp_models.program.dual_objective` turns any row multipliers
  into a finite lower bound.  ``objective_scale`` is the unit of ``t`` (1: units of Δ).

Rows appended later (row generation) must have one more column than the original LP.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import scipy.sparse as sp

from lp_models.labels import LabelBlock
from lp_models.lattice.classes import LatticeClasses
from lp_models.lattice.labels import epigraph_block
from lp_models.lattice.model import level_error
from lp_models.program import LinearProgram

__all__ = [
    "OBJECTIVES",
    "class_error_matrix",
    "vector_error_matrix",
    "with_max_objective",
    "with_weighted_objective",
]

OBJECTIVES = ("sum", "max", "weighted")


def class_error_matrix(classes: LatticeClasses, lattice: str = "2delta") -> sp.csr_matrix:
    """``(C, V)`` matrix whose row ``c`` gives the expected error (units of Δ) of the
    representative of class ``c``: ``sum_j m_j * step * j * x[c, j]`` (``step`` = 2 on the
    2Δ-lattice, 1 on the Δ-lattice)."""
    data = classes.var_count * level_error(lattice) * classes.var_level
    return sp.csr_matrix((data, (classes.var_class, np.arange(classes.num_variables))),
                         shape=(classes.num_classes, classes.num_variables))


def vector_error_matrix(levels: np.ndarray, lattice: str = "2delta") -> sp.csr_matrix:
    """The same for the full LP of :func:`lp_models.lattice.full_lattice_lp`: row ``i`` is
    the expected error on the ``i``-th level vector (variables ``i * n + r``)."""
    levels = np.asarray(levels)
    count, n = levels.shape
    return sp.csr_matrix(((level_error(lattice) * levels).ravel().astype(float),
                          (np.repeat(np.arange(count), n), np.arange(count * n))),
                         shape=(count, count * n))


def _check_errors(lp: LinearProgram, errors) -> sp.csr_matrix:
    errors = sp.csr_matrix(errors, dtype=float)
    if errors.shape[1] != lp.num_cols:
        raise ValueError(f"error matrix has {errors.shape[1]} columns, the LP {lp.num_cols}")
    return errors


def with_weighted_objective(lp: LinearProgram, errors, weights) -> LinearProgram:
    """``lp`` with the cost ``sum_u w_u (E x)_u / sum_u w_u`` (see the module docstring);
    ``objective_scale`` is ``sum_u w_u``, so ``lp.objective_in_units(value)`` is the
    weighted total error."""
    errors = _check_errors(lp, errors)
    weights = np.asarray(weights, dtype=float)
    if weights.shape != (errors.shape[0],) or not np.isfinite(weights).all() \
            or (weights < 0).any() or not weights.sum() > 0:
        raise ValueError(f"weights must be {errors.shape[0]} finite numbers >= 0 with a "
                         "positive sum")
    scale = float(weights.sum())
    weighted = lp.with_objective(errors.T @ weights / scale, scale=scale,
                                 units="prior-weighted total expected error over Q, units of Δ")
    return dataclasses.replace(
        weighted, name=f"{lp.name} [weighted]",
        metadata={**lp.metadata, "objective": "weighted", "objective_weights": weights})


def with_max_objective(lp: LinearProgram, errors, upper: float, scale: float = 1.0
                       ) -> LinearProgram:
    """``lp`` with the epigraph column ``t`` and rows ``t >= (E x)_u`` (module docstring);
    ``metadata["epigraph_column"]`` is ``t``'s index, ``"epigraph_rows"`` the row range.
    The objective ``t`` is in units of ``scale`` Δ (``objective_scale``; the rows read
    ``t - (E x)_u / scale >= 0`` and ``t <= upper / scale``)."""
    errors = _check_errors(lp, errors)
    if not (np.isfinite(upper) and upper > 0):
        raise ValueError(f"upper must be a finite number > 0, got {upper!r}")
    if not (np.isfinite(scale) and scale > 0):
        raise ValueError(f"scale must be a finite number > 0, got {scale!r}")
    units = errors.shape[0]
    epigraph = lp.with_columns([0.0], 0.0, upper / scale, label=LabelBlock(
        "epigraph", 1, "t", names=("t",)))
    epigraph = epigraph.with_rows(
        sp.hstack([-errors / scale, sp.csc_matrix(np.ones((units, 1)))]), 0.0, np.inf,
        epigraph_block(lp, units))
    cost = np.zeros(lp.num_cols + 1)
    cost[-1] = 1.0
    return dataclasses.replace(
        epigraph.with_objective(cost, scale=scale,
                                units="largest expected error over Q, units of Δ"),
        name=f"{lp.name} [max]",
        metadata={**lp.metadata, "objective": "max", "epigraph_column": lp.num_cols,
                  "epigraph_rows": (lp.num_rows, lp.num_rows + units)})
