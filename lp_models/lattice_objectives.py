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
  (``metadata["objective_scale"]``), as the sum objective is.
* ``"max"`` — minimise the largest expected error over ``Q`` (minimax): one more column
  ``t`` (the last) with cost 1, and one row ``t - (E x)_u >= 0`` per unit, placed after the
  rows of the given LP.  ``t`` is boxed in ``[0, upper]`` (no expected error exceeds ``k``
  lattice steps), so :func:`lp_models.program.dual_objective` turns any row multipliers
  into a finite lower bound.  ``objective_scale`` is 1: the objective is in units of Δ.

Rows appended later (row generation) must have one more column than the original LP.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import scipy.sparse as sp

from lp_models.lattice import level_error
from lp_models.lattice_classes import LatticeClasses
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
    """``lp`` with the cost ``sum_u w_u (E x)_u / sum_u w_u`` (see the module docstring)."""
    errors = _check_errors(lp, errors)
    weights = np.asarray(weights, dtype=float)
    if weights.shape != (errors.shape[0],) or not np.isfinite(weights).all() \
            or (weights < 0).any() or not weights.sum() > 0:
        raise ValueError(f"weights must be {errors.shape[0]} finite numbers >= 0 with a "
                         "positive sum")
    scale = float(weights.sum())
    return dataclasses.replace(
        lp, cost=errors.T @ weights / scale, name=f"{lp.name} [weighted]",
        metadata={**lp.metadata, "objective": "weighted", "objective_scale": scale,
                  "objective_weights": weights})


def with_max_objective(lp: LinearProgram, errors, upper: float) -> LinearProgram:
    """``lp`` with the epigraph column ``t`` and rows ``t >= (E x)_u`` (module docstring);
    ``metadata["epigraph_column"]`` is ``t``'s index, ``"epigraph_rows"`` the row range."""
    errors = _check_errors(lp, errors)
    if not (np.isfinite(upper) and upper > 0):
        raise ValueError(f"upper must be a finite number > 0, got {upper!r}")
    units = errors.shape[0]
    old = sp.hstack([lp.matrix, sp.csc_matrix((lp.num_rows, 1))])
    epigraph = sp.hstack([-errors, sp.csc_matrix(np.ones((units, 1)))])
    cost = np.zeros(lp.num_cols + 1)
    cost[-1] = 1.0
    return dataclasses.replace(
        lp, cost=cost, matrix=sp.vstack([old, epigraph], format="csc"),
        row_lower=np.concatenate([lp.row_lower, np.zeros(units)]),
        row_upper=np.concatenate([lp.row_upper, np.full(units, np.inf)]),
        col_lower=np.append(lp.col_lower, 0.0), col_upper=np.append(lp.col_upper, upper),
        offset=0.0, col_labels=None, row_labels=None, name=f"{lp.name} [max]",
        metadata={**lp.metadata, "objective": "max", "objective_scale": 1.0,
                  "epigraph_column": lp.num_cols,
                  "epigraph_rows": (lp.num_rows, lp.num_rows + units)})
