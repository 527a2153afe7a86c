"""Aggregates and lattices beyond the paper's LP: the HiGHS solve behind
``solve_lattice(..., objective="max"|"weighted", lattice="delta")``.

Permute-and-flip paper, Section 8 (question 3: "other ways of averaging or aggregating over
score vectors", "more general domains").  The LPs are built in :mod:`lp_models.lattice`
(:func:`~lp_models.lattice.reduced_lattice_lp`, :func:`~lp_models.lattice.delta_lattice_lp`)
and :mod:`lp_models.lattice.objectives`; :func:`optmech.lattice.optimum.solve_lattice`
repairs and certifies the point returned here exactly as it does for the sum objective.

Weights (``objective="weighted"``) are a prior over the vectors of ``Q``.  A regular
mechanism is symmetric, so its expected error is the same on every vector of a class and
the prior enters only through its *sum over each class*: the class weights.  Accepted forms
(:func:`objective_weights`):

* an array with one weight per class (in the order of
  :class:`~lp_models.lattice.classes.LatticeClasses`), each the prior's sum over the class;
* ``"geometric:RATE"`` — every vector of depth ``L`` (its deepest level) weighs ``RATE^L``,
  so class ``m`` weighs ``multinomial(m) RATE^depth(m)`` (``RATE = 1`` is the sum
  objective with the lattice weighting);
* ``"depth:W0,W1,...,Wk"`` — every vector of depth ``L`` weighs ``W_L``.

Every class weight must be a double: weights whose arithmetic overflows
(``geometric:1e308``) and positive weights below the smallest normal double (2.2e-308,
where a double keeps too few digits for the objective and the ratios) are refused.
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
from lp_models.lattice.certificates import LatticeUnits
from lp_models.lattice.classes import LatticeClasses
from lp_models.lattice.objectives import (
    OBJECTIVES,
    class_error_matrix,
    with_max_objective,
    with_weighted_objective,
)
from lp_models.lattice.recurrences import pf_lattice_probabilities
from lp_models.program import HighsModel, SolverError
from optmech.lattice.solve_loop import (
    DUAL_SIMPLEX,
    PRIMAL_SIMPLEX,
    pair_keys,
    violated_monotone_rows,
)
from optmech.validation import InvalidArgumentError, refuse_overflow

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
        geometric = family == "geometric" and len(numbers) == 1 \
            and math.isfinite(numbers[0]) and numbers[0] > 0
        if not (geometric or (family == "depth" and len(numbers) == classes.k + 1)):
            raise InvalidArgumentError("weights", weights, allowed)
        # RATE^depth times a class's multiplicity can overflow (geometric:1e308): bad input
        with refuse_overflow("weights", weights, "class weights within the double range ("
                             + allowed + ")"):
            per_depth = numbers[0] ** np.arange(classes.k + 1, dtype=float) if geometric \
                else np.array(numbers)
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
    # a subnormal weight keeps a few of its 53 bits: the objective and every ratio computed
    # from it would be silently wrong (geometric:5e-324 gave every mechanism a ratio of 1)
    if ((result > 0) & (result < np.finfo(float).tiny)).any():
        raise InvalidArgumentError("weights", weights, "class weights each 0 or at least "
                                   "2.2250738585072014e-308, the smallest normal double")
    return result


def _shown(weights) -> str:
    """A weight vector as an error message shows it (a spec string as given)."""
    return weights if isinstance(weights, str) else f"{np.size(weights)} class weights"


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
                 monotone_pairs=None, units: LatticeUnits | None = None):
    """The reduced LP of the lattice with the chosen objective, in the variables of ``units``
    (probabilities when None).  In scaled units (:meth:`LatticeUnits.relative`) the
    objective is also relative to the scale's: the cost is divided by the value of the point
    of all ones, and the epigraph variable of ``"max"`` is in units of that point's largest
    class error (``objective_scale`` holds either), so that the point of all ones has value
    1."""
    log_scale = None if units is None else units.log_scale
    if lattice == "delta":
        lp = delta_lattice_lp(classes.n, classes.k, epsilon, weighting, classes=classes,
                              monotone_pairs=monotone_pairs, log_scale=log_scale)
    else:
        lp = reduced_lattice_lp(classes.n, classes.k, epsilon, weighting, constraints,
                                classes=classes, monotone_pairs=monotone_pairs,
                                log_scale=log_scale)
    errors = class_error_matrix(classes, lattice)
    if units is not None and units.scaled:
        errors = errors @ sp.diags(units.scale)
    if objective == "max":
        scale = 1.0 if units is None or not units.scaled else float((errors @ np.ones(
            classes.num_variables)).max())
        return with_max_objective(lp, errors, level_error(lattice) * classes.k, scale)
    if objective == "weighted":
        lp = with_weighted_objective(lp, errors, weights)
    if units is None or not units.scaled:
        return lp
    value = lp.objective_value(np.ones(lp.num_cols))          # PF's, in the LP's scale
    if not value > 0:
        # weights on tied vectors only, or weighted errors below the smallest double: the
        # optimum is 0 (or not a double) and every ratio 0/0
        raise InvalidArgumentError(
            "weights", "(as given)" if weights is None else _shown(weights),
            "weights under which permute-and-flip's weighted expected error is a positive "
            "double (here it is 0: the weight is on score vectors whose candidates all tie, "
            "or the weighted errors underflow; the optimum and every ratio would be 0/0)")
    return lp.with_objective(lp.cost / value, scale=lp.objective_scale * value,
                             units=lp.objective_units)


def solve_objective_with_highs(units: LatticeUnits, *, objective: str, weighting: str,
                               weights: np.ndarray | None, constraints: str, method: str,
                               time_limit: float | None, margin: float, rounding: float,
                               cap: float):
    """Solve the LP of :func:`objective_lp` in ``units`` with HiGHS, one model kept between
    rounds, and for ``"regular"`` add the violated monotonicity rows by row generation
    (HiGHS's dual simplex continues from its basis).  Returns ``(LP certified against, the
    solver's point, its row duals, HiGHS status, method label)``: the LP has the rows HiGHS
    had at the end (``metadata["monotone_pairs"]``) with their exact coefficients, in
    ``units``; the point includes the epigraph column of ``"max"``.  Monotonicity rows
    violated by more than ``rounding`` times their two terms are generated (the repair
    leaves violations up to that).

    The units are relative to PF's probabilities (:meth:`LatticeUnits.relative`; on the
    Δ-lattice to PF with coins ``e^{-eps ceil(j / 2)}``): every privacy and monotonicity
    coefficient is ``e^-eps`` times a ratio of neighbouring scales (a normal double for every
    ``eps <= 700``, while the probabilities span ``e^{-eps k}``), and HiGHS's absolute
    tolerances (1e-10) bound *relative* violations.  Unscaled, the LP failed its certificate
    from about eps = 10 (n, k <= 4: relative row violations whose repair cost up to 1e-4 of
    the objective, and dual bounds that lost every digit to rounding at eps = 40, where the
    optimum is ~1e-18).  HiGHS drops matrix entries below ``small_matrix_value`` (set to its
    least, 1e-12): deep levels of a class row at large eps (the repair's renormalisation
    restores the class rows exactly), and the second coefficient of rows that then read
    ``z_a >= 0`` (a relaxation).

    HiGHS solves the LP with every privacy row *tightened* by the relative ``margin`` (the
    coefficient of its second term times ``1 + margin``): its point then meets the exact
    privacy rows with a relative slack of about ``margin`` instead of violating the tight ones
    by rounding, and needs no mixing with a feasible anchor, whose cost at large eps can
    exceed the objective by ``e^{eps / 2}`` (on the Δ-lattice, where no regular mechanism
    known in closed form is within a constant factor of the optimum; measured at n = 3,
    k = 1, eps = 42.7: a repaired point 4000 times the optimum).  The price is of order
    ``margin`` times the objective.  Monotonicity rows are tightened by at most a hundredth of
    the scale point's own slack (:func:`_tightened_coef`): at large eps some hold between
    probabilities that differ by less than their rounding (two top items with
    ``1 - O(e^-eps)``), and tightened by ``margin`` they made the LP infeasible (n = 2,
    k = 2, eps = 43), while untightened the point violated others by 1e-14 and mixing cost
    up to 7e-6 of the objective (n = k = 4, eps = 10.5, max).

    HiGHS also bounds every variable by ``cap`` (the scale's point is all ones): where it
    drops the class-row coefficient of a deep level, nothing else bounds that variable in its
    model, and it returned points beyond their bounds by 1e7 (n = 2, k = 3, eps = 14.8, max,
    Appendix D's rows); such a variable left at a large value also unbalances its class row
    (by ``cap`` times the dropped coefficient) once the row is restored.  The bound only
    restricts HiGHS's LP, so its point stays feasible for the certified LP, whose lower
    bound uses the true box.

    Row generation starts from the own-score monotonicity rows (which bound every scaled
    variable by its chain neighbour) and adds the violated others: at eps = 0.5 the max
    objective ends with 3291 of the 6552 monotonicity rows at n = k = 6 (1723 columns,
    0.57 s CPU) and 16 804 of 31 416 at n = k = 7 (7261 columns, 17 s CPU; medians of 3
    runs, load average 3 to 4 on 2 cores).  ``"auto"`` is HiGHS's dual simplex here (the
    held-row start of the sum objective begins at PF's basis, which is not optimal for
    these objectives).
    """
    classes = units.classes
    regular = constraints == "regular"
    empty = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))
    seed = next(monotonicity_pair_blocks(classes)) if regular else empty
    lp = objective_lp(classes, units.epsilon, units.lattice, objective, weighting, weights,
                      constraints, monotone_pairs=seed if regular else None, units=units)
    solver = "simplex" if method == "auto" else method
    head = classes.num_classes + units.privacy[0].size
    solved = _tightened(lp, slice(classes.num_classes, head), slice(head, head + seed[0].size),
                        margin)
    col_upper = solved.col_upper.copy()
    col_upper[:classes.num_variables] = np.minimum(col_upper[:classes.num_variables], cap)
    model = HighsModel(dataclasses.replace(solved, col_upper=col_upper), solver,
                       options=_TOLERANCES)
    first, second = seed
    num_vars = classes.num_variables

    def run():
        return model.run(time_limit=time_limit, feasibility_tolerance=1e-6,
                         refactor_tolerance=1e-12)

    for round_index in range(_MAX_ROUNDS):
        try:
            sol = run()
        except SolverError as error:
            # After rows were added HiGHS's dual simplex can end with status "Unknown" (n = k
            # = 4, eps = 21.2, Δ-lattice, max); the primal simplex from a fresh factorisation
            # of the same basis finishes the round.  Any other failure is raised.
            if round_index == 0 or solver != "simplex" or error.status != "Unknown":
                raise
            model.refactor()
            model.set_options({"simplex_strategy": PRIMAL_SIMPLEX})
            sol = run()
            model.set_options({"simplex_strategy": DUAL_SIMPLEX})
        if solver == "ipm" and round_index == 0:
            model.set_options({"solver": "simplex"})    # simplex from IPX's basis (rounds)
            continue
        if not regular:
            break
        new_a, new_b = violated_monotone_rows(units, sol.x[:num_vars],
                                              pair_keys(classes, first, second), rounding)
        if new_a.size == 0:
            break
        coef = _tightened_coef(units.pair_coef(new_a, new_b), margin)
        model.add_rows(pair_rows(new_a, new_b, coef, lp.num_cols), np.zeros(new_a.size),
                       np.full(new_a.size, np.inf))
        model.set_options({"solver": "simplex"})
        first, second = np.concatenate([first, new_a]), np.concatenate([second, new_b])
    else:
        raise SolverError("row generation did not converge", status="row generation",
                          num_rows=model.lp.num_rows, num_cols=lp.num_cols,
                          num_nonzeros=model.lp.num_nonzeros, method=solver)
    new = slice(seed[0].size, None)
    certify_lp = lp.with_rows(pair_rows(first[new], second[new],
                                        units.pair_coef(first[new], second[new]), lp.num_cols),
                              0.0, np.inf)
    certify_lp = dataclasses.replace(certify_lp, metadata={
        **lp.metadata, "monotone_pairs": (first, second)})
    return certify_lp, sol.x, sol.row_duals, sol.status, f"highs-{solver}"


def _tightened(lp, privacy: slice, monotone: slice, margin: float):
    """``lp`` with the negative coefficients of the ``privacy`` rows times ``1 + margin``
    and those of the ``monotone`` rows by :func:`_tightened_coef`."""
    matrix = lp.matrix.tocoo()
    data = matrix.data.copy()
    row = matrix.row
    inside = (row >= privacy.start) & (row < privacy.stop) & (data < 0)
    data[inside] *= 1 + margin
    inside = (row >= monotone.start) & (row < monotone.stop) & (data < 0)
    data[inside] = -_tightened_coef(-data[inside], margin)
    return dataclasses.replace(lp, matrix=sp.csc_matrix((data, (row, matrix.col)),
                                                        shape=matrix.shape))


def _tightened_coef(coef, margin: float):
    """A monotonicity coefficient made larger by the relative ``min(margin, (1 - coef) /
    100)``: the scale's own point (all ones) keeps most of its slack ``1 - coef``, and a row
    it meets with equality (or violates) is left as it is."""
    return coef * (1 + np.clip((1 - coef) / 100, 0.0, margin))
