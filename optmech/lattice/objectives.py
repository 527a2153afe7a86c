"""Aggregates and lattices beyond the paper's LP: the HiGHS solve behind
``solve_lattice(..., objective="max"|"weighted", lattice="delta")``.

Permute-and-flip paper, Section 8 (question 3: "other ways of averaging or aggregating over
score vectors", "more general domains").  The LPs are built in :mod:`lp_models.lattice`
(:func:`~lp_models.lattice.reduced_lattice_lp`, :func:`~lp_models.lattice.delta_lattice_lp`)
and :mod:`lp_models.lattice_objectives`; :func:`optmech.lattice.optimum.solve_lattice`
repairs and certifies the point returned here exactly as it does for the sum objective.

Weights (``objective="weighted"``) are a prior over the vectors of ``Q``.  A regular
mechanism is symmetric, so its expected error is the same on every vector of a class and
the prior enters only through its *sum over each class*: the class weights.  Accepted forms
(:func:`objective_weights`):

* an array with one weight per class (in the order of
  :class:`~lp_models.lattice_classes.LatticeClasses`), each the prior's sum over the class;
* ``"geometric:RATE"`` — every vector of depth ``L`` (its deepest level) weighs ``RATE^L``,
  so class ``m`` weighs ``multinomial(m) RATE^depth(m)`` (``RATE = 1`` is the sum
  objective with the lattice weighting);
* ``"depth:W0,W1,...,Wk"`` — every vector of depth ``L`` weighs ``W_L``.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import scipy.sparse as sp

from lp_models.lattice import (
    delta_lattice_lp,
    level_error,
    monotonicity_pair_blocks,
    pair_rows,
    reduced_lattice_lp,
)
from lp_models.lattice_classes import LatticeClasses
from lp_models.lattice_objectives import (
    OBJECTIVES,
    class_error_matrix,
    with_max_objective,
    with_weighted_objective,
)
from lp_models.lattice_recurrences import pf_lattice_probabilities
from lp_models.program import HighsModel, SolverError
from lp_models.scaling import original_duals, scale_rows, scaled_program
from optmech.lattice.solve_loop import pair_keys, violated_monotone_rows
from optmech.validation import InvalidArgumentError

__all__ = [
    "OBJECTIVES",
    "WEIGHT_FAMILIES",
    "aggregate_error",
    "objective_lp",
    "objective_weights",
    "pf_on_lattice",
    "solve_objective_with_highs",
]

WEIGHT_FAMILIES = ("geometric", "depth")
_MAX_ROUNDS = 200
_TOLERANCES = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10,
               "small_matrix_value": 1e-12}


def objective_weights(weights, classes: LatticeClasses) -> np.ndarray:
    """Class weights (the prior summed over each class) from an array or a spec string (see
    the module docstring); finite, ``>= 0`` and with a positive sum, else
    :class:`InvalidArgumentError`."""
    allowed = ("one weight per class, 'geometric:RATE' or 'depth:W0,...,Wk' "
               f"(k + 1 = {classes.k + 1} values)")
    if isinstance(weights, str):
        family, _, values = weights.partition(":")
        try:
            numbers = [float(v) for v in values.split(",")]
        except ValueError:
            raise InvalidArgumentError("weights", weights, allowed) from None
        if family == "geometric" and len(numbers) == 1 and math.isfinite(numbers[0]) \
                and numbers[0] > 0:
            per_depth = numbers[0] ** np.arange(classes.k + 1, dtype=float)
        elif family == "depth" and len(numbers) == classes.k + 1:
            per_depth = np.array(numbers)
        else:
            raise InvalidArgumentError("weights", weights, allowed)
        result = classes.multiplicity * per_depth[classes.depth]
    else:
        try:
            result = np.array(weights, dtype=float)
        except (TypeError, ValueError):
            raise InvalidArgumentError("weights", weights, allowed) from None
        if result.shape != (classes.num_classes,):
            raise InvalidArgumentError("weights", weights, allowed)
    if not (np.isfinite(result).all() and (result >= 0).all() and result.sum() > 0):
        raise InvalidArgumentError("weights", weights, "finite weights >= 0 with a positive "
                                   "sum (" + allowed + ")")
    return result


def pf_on_lattice(classes: LatticeClasses, epsilon: float, lattice: str) -> np.ndarray:
    """PF's probability of every variable: recurrence (5) with coins ``e^{-eps j}`` on the
    2Δ-lattice and ``e^{-eps j / 2}`` on the Δ-lattice (level ``j`` is ``j`` steps of Δ
    there, PF's exponent is ``eps / (2Δ)``)."""
    return pf_lattice_probabilities(classes, epsilon * level_error(lattice) / 2.0)


def aggregate_error(errors: np.ndarray, objective: str, weights: np.ndarray | None
                    ) -> float:
    """The objective of a mechanism from its expected error on each class: ``weights @
    errors`` for ``"sum"`` and ``"weighted"`` (class weights), ``max(errors)`` for
    ``"max"``."""
    if objective == "max":
        return float(np.max(errors))
    return float(np.asarray(weights, dtype=float) @ errors)


def objective_lp(classes: LatticeClasses, epsilon: float, lattice: str, objective: str,
                 weighting: str, weights: np.ndarray | None, constraints: str,
                 monotone_pairs=None):
    """The reduced LP of the lattice with the chosen objective (no scaling beyond the
    builders')."""
    if lattice == "delta":
        lp = delta_lattice_lp(classes.n, classes.k, epsilon, weighting, classes=classes,
                              monotone_pairs=monotone_pairs)
    else:
        lp = reduced_lattice_lp(classes.n, classes.k, epsilon, weighting, constraints,
                                classes=classes, monotone_pairs=monotone_pairs)
    errors = class_error_matrix(classes, lattice)
    if objective == "max":
        return with_max_objective(lp, errors, level_error(lattice) * classes.k)
    if objective == "weighted":
        return with_weighted_objective(lp, errors, weights)
    return lp


def solve_objective_with_highs(classes: LatticeClasses, epsilon: float, *, lattice: str,
                               objective: str, weighting: str, weights: np.ndarray | None,
                               constraints: str, method: str, time_limit: float | None,
                               pf: np.ndarray):
    """Solve the LP of :func:`objective_lp` with HiGHS, one model kept between rounds, and
    for ``"regular"`` add the violated monotonicity rows by row generation (HiGHS's dual
    simplex continues from its basis).  Returns ``(x, LP certified against, row duals,
    HiGHS status, method label)``; ``x`` includes the epigraph column for ``"max"``.

    HiGHS solves the LP scaled by PF (:mod:`lp_models.scaling`: the variable ``x / pf`` is
    of order 1 for every class, ``t`` is divided by PF's largest class error, each row has
    largest coefficient 1 and the objective is divided by PF's value), so its absolute
    tolerances (1e-10) bound *relative* violations of the privacy and monotonicity rows.
    HiGHS ignores matrix entries below ``small_matrix_value`` (set to its least, 1e-12):
    deep levels of a class row at large eps; the own-score monotonicity rows are in the
    model from the start, so those variables stay bounded by their neighbours, and the
    repair's renormalisation restores the class rows exactly.  Unscaled, at n = 3, k = 4, eps = 4 the max objective came back
    with relative row violations whose repair cost 4e-6 of the objective (level-4
    probabilities are ~1e-7 there).  The point and multipliers returned are unscaled, and
    the LP certified against is the unscaled one with the generated rows.

    Row generation starts from the own-score monotonicity rows (which bound every scaled
    variable by its chain neighbour) and adds the violated others: at eps = 0.5 the max
    objective ends with 3291 of the 6552 monotonicity rows at n = k = 6 (1723 columns,
    0.57 s CPU) and 16 804 of 31 416 at n = k = 7 (7261 columns, 17 s CPU; medians of 3
    runs, load average 3 to 4 on 2 cores).  ``"auto"`` is HiGHS's dual simplex here (the
    held-row start of the sum objective begins at PF's basis, which is not optimal for
    these objectives).
    """
    regular = constraints == "regular"
    empty = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    seed = next(monotonicity_pair_blocks(classes)) if regular else empty
    lp = objective_lp(classes, epsilon, lattice, objective, weighting, weights, constraints,
                      monotone_pairs=seed if regular else None)
    errors = class_error_matrix(classes, lattice) @ pf
    col_scale = (np.append(pf, errors.max()) if objective == "max"
                 else np.asarray(pf, dtype=float))
    cost_scale = lp.objective_value(col_scale)           # PF's value: objective of order 1
    scaled, row_scale = scaled_program(lp, col_scale, cost_scale)
    solver = "simplex" if method == "auto" else method
    model = HighsModel(scaled, solver, options=_TOLERANCES)
    first, second = seed
    for round_index in range(_MAX_ROUNDS):
        sol = model.run(time_limit=time_limit, feasibility_tolerance=1e-6,
                        refactor_tolerance=1e-9)
        if solver == "ipm" and round_index == 0:
            model.set_options({"solver": "simplex"})    # simplex from IPX's basis (rounds)
            continue
        if not regular:
            break
        x = col_scale[:classes.num_variables] * sol.x[:classes.num_variables]
        new_a, new_b = violated_monotone_rows(classes, x, pair_keys(classes, first, second))
        if new_a.size == 0:
            break
        rows, scale = scale_rows(pair_rows(new_a, new_b, 1.0, lp.num_cols), col_scale)
        model.add_rows(rows, np.zeros(new_a.size), np.full(new_a.size, np.inf))
        model.set_options({"solver": "simplex"})
        row_scale = np.concatenate([row_scale, scale])
        first, second = np.concatenate([first, new_a]), np.concatenate([second, new_b])
    else:
        raise SolverError("row generation did not converge", status="row generation",
                          num_rows=model.lp.num_rows, num_cols=lp.num_cols,
                          num_nonzeros=model.lp.num_nonzeros, method=solver)
    added = first.size - seed[0].size
    generated = pair_rows(first[seed[0].size:], second[seed[0].size:], 1.0, lp.num_cols)
    certify_lp = dataclasses.replace(
        lp, matrix=sp.vstack([lp.matrix, generated], format="csc"),
        row_lower=np.concatenate([lp.row_lower, np.zeros(added)]),
        row_upper=np.concatenate([lp.row_upper, np.full(added, np.inf)]),
        metadata={**lp.metadata, "monotone_pairs": (first, second)})
    return (col_scale * sol.x, certify_lp, original_duals(sol.row_duals, row_scale, cost_scale),
            sol.status, f"highs-{solver}")
