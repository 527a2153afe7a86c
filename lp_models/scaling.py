"""Column and row scaling of a :class:`~lp_models.program.LinearProgram`, so that a solver's
absolute tolerances become relative ones.

With ``x = D z`` (``D = diag(col_scale) > 0``), row ``i`` of ``A D`` divided by its
largest absolute coefficient ``s_i`` and the cost divided by ``cost_scale > 0``, the scaled
LP has the same feasible points (mapped by ``D``) as the original and objective values
``c^T D z / cost_scale``; a multiplier ``w_i`` of its row ``i`` is the multiplier
``y_i = cost_scale * w_i / s_i`` of the original row (:func:`original_duals`).  Cost: one
sparse product per call.

Used where probabilities span many orders of magnitude (the lattice LPs at large ε: the
deepest level of n = 3, k = 4 at ε = 8 has probability ~1e-14), where a solver's absolute
feasibility tolerance of 1e-10 would otherwise allow relative violations far above 1.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import scipy.sparse as sp

from lp_models.program import LinearProgram

__all__ = ["original_duals", "scale_rows", "scaled_program"]


def scale_rows(matrix, col_scale: np.ndarray) -> tuple[sp.csr_matrix, np.ndarray]:
    """``(A D / s, s)``: the rows of ``A D`` divided by ``s``, their largest absolute
    coefficients (1 for an empty row)."""
    scaled = sp.csr_matrix(matrix, dtype=float) @ sp.diags(np.asarray(col_scale, dtype=float))
    scaled = sp.csr_matrix(scaled)
    largest = np.asarray(abs(scaled).max(axis=1).todense()).ravel()
    largest[largest == 0] = 1.0
    return sp.csr_matrix(sp.diags(1.0 / largest) @ scaled), largest


def scaled_program(lp: LinearProgram, col_scale: np.ndarray, cost_scale: float = 1.0
                   ) -> tuple[LinearProgram, np.ndarray]:
    """``(scaled LP, row scale s)`` for ``x = D z`` (see the module docstring).  Column
    scales must be finite and positive, and so must ``cost_scale``."""
    col_scale = np.asarray(col_scale, dtype=float)
    if col_scale.shape != (lp.num_cols,) or not (np.isfinite(col_scale).all()
                                                 and (col_scale > 0).all()):
        raise ValueError(f"col_scale must be {lp.num_cols} finite numbers > 0")
    if not (np.isfinite(cost_scale) and cost_scale > 0):
        raise ValueError(f"cost_scale must be a finite number > 0, got {cost_scale!r}")
    matrix, rows = scale_rows(lp.matrix, col_scale)
    return dataclasses.replace(
        lp, cost=lp.cost * col_scale / cost_scale, matrix=matrix.tocsc(),
        row_lower=lp.row_lower / rows, row_upper=lp.row_upper / rows,
        col_lower=lp.col_lower / col_scale, col_upper=lp.col_upper / col_scale,
        offset=lp.offset / cost_scale, col_labels=None, row_labels=None,
        name=f"{lp.name} [scaled]"), rows


def original_duals(scaled_duals: np.ndarray, row_scale: np.ndarray,
                   cost_scale: float = 1.0) -> np.ndarray:
    """Multipliers of the original rows from those of the scaled LP."""
    return cost_scale * np.asarray(scaled_duals, dtype=float) / row_scale
