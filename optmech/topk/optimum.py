"""The optimal top-k mechanism on the bounded 2Δ-lattice, certified.

The LP is :func:`lp_models.topk.topk_lp` (the permute-and-flip paper's optimal-mechanism LP,
R. McKenna and D. Sheldon, arXiv:2010.12603, Section 5 and Appendix D, for ``T`` outputs;
its module docstring states every row and each reduction with its proof).
:func:`solve_topk` returns a :class:`TopKOptimum` whose value is *certified*:

1. HiGHS solves the LP in the units ``z = x / e^{-eps d}`` (every privacy coefficient in
   ``[e^{-2 eps}, 1]``) with primal and dual feasibility tolerances of 1e-10, by default
   with its interior point and crossover (``method="auto"``: measured 5 to 7 times faster
   than its dual simplex at n = 6, k = 4, T = 2, 16 s against 2.4 s, the same vertex), and
   with its dual simplex when that fails to certify (steps 2 to 4; at ``eps k`` from 15 to
   20 the simplex certified sizes where the interior point's multipliers did not).
2. If the point violates a row by more than 1e-13, one round of iterative refinement: the
   same LP with every bound shifted by the point's activity and scaled by 1e4 is solved
   again, and its solution, scaled back, corrects the point (at eps = 0.01, n = 5, T = 1,
   where the rows tie the probabilities within ``e^-eps``, HiGHS's point violated rows by
   2e-11 to 8e-11; after one round every row holds to 2e-16).
3. Repair, checked in double: clip at 0, rescale each class to sum to one, then mix with a
   strictly feasible anchor by the smallest weight that makes every privacy and
   monotonicity row hold.  The anchor is the exponential mechanism on the outputs with
   utility ``sum_{r in o} q_r`` (sensitivity ``T Δ``) at ``eps / 2``, in a uniformly random
   order: it meets every privacy row with a factor ``e^{eps/2}`` to spare, and raising an
   item strictly raises, raising another strictly lowers, its probability of being among
   the first ``i`` outputs.
4. The lower bound is :func:`lp_models.program.dual_objective` at HiGHS's row multipliers
   (inequality multipliers clipped at 0: a Lagrangian bound, valid for any multipliers
   because every column is boxed); the relative gap must be at most ``gap_tolerance``
   (1e-7) or :class:`~lp_models.program.SolverError` is raised.

Budgets: the variables are counted in closed form and the rows bounded before anything is
built (:func:`topk_lp_size`); memory and CPU time estimated from them are refused up front
beyond the budgets of :mod:`optmech.resources`.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field

import numpy as np

from lp_models.display import Displayed
from lp_models.lattice import monotonicity_pairs
from lp_models.program import LinearProgram, SolverError, dual_objective, solve
from lp_models.topk import CONSTRAINTS, ERRORS, TopKOrbits, orbit_count, topk_lp, topk_orbits
from lp_models.topk.model import prefix_marginals, privacy_row_bound
from lp_models.topk.orbits import MAX_VARIABLES, orbit_count_exceeds
from optmech.resources import Estimate, require, require_memory
from optmech.validation import (
    InvalidArgumentError,
    check_choice,
    check_integer,
    check_positive,
)

__all__ = ["GAP_TOLERANCE", "METHODS", "TopKOptimum", "check_epsilon", "check_topk",
           "require_topk_sweep", "solve_topk", "topk_lp_size", "topk_sweep_estimate"]

METHODS = ("auto", "simplex", "ipm")
GAP_TOLERANCE = 1e-7
MIN_EPSILON = 1e-6
# eps k beyond this: the deepest probabilities e^{-eps k} fall below HiGHS's tolerances and
# its smallest matrix entry (1e-9), and the certificate is lost (measured on n <= 5, T <= 3:
# certified everywhere up to eps k = 15, at 20 all but the T = 3 sizes, at 25 none).
MAX_EPSILON_DEPTH = 20.0
_TOLERANCES = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
_REFINE_ABOVE = 1e-13
_REFINE_SCALE = 1e4
# Memory per nonzero of the LP (the matrix, its copies in HiGHS and the interior point's
# factors) and CPU seconds per (nonzero)^1.5 of topk_lp_size's bound, measured and rounded
# up: the solves of benchmarks/topk_lp.py took 0.5e-7 (n = 8, k = 4, T = 2) to 6.4e-7
# (n = 5, k = 7, T = 3: 573 CPU s, refined) of it, deeper lattices the most, and n = 6,
# k = 5, T = 3 had not finished after 18 CPU minutes (more than 8.8e-7).
_BYTES_PER_NONZERO = 600
_SECONDS_PER_WORK = 1e-6


@dataclass(frozen=True, eq=False, repr=False)
class TopKOptimum(Displayed):
    """A certified optimum of the top-k LP.

    ``probabilities[v]`` is the optimum's probability of one output of orbit ``v`` (class
    ``orbits.var_class[v]``, level sequence ``orbits.var_levels[v]``); it meets every row of
    the LP up to the rounding reported in ``max_violation``.  ``total_error`` is the sum over
    ``Q`` of the expected ``objective`` error (units of Δ = 1), ``lower_bound`` a certified
    lower bound on the LP's optimum, ``gap`` their relative difference.
    """

    #: Number of items.
    n: int
    #: Depth of the lattice: scores 0, -2, ..., -2k (units of Δ).
    k: int
    #: The privacy parameter ε of the whole output.
    epsilon: float
    #: The number ``T`` of items returned.
    top: int
    #: True for ordered tuples, False for subsets.
    ordered: bool
    #: ``"regular"`` (monotonicity rows) or ``"private"`` (every symmetric ε-DP mechanism).
    constraint_set: str
    #: The error minimised: ``"l1"``, ``"l_inf"`` or ``"k_relative"``.
    objective: str
    #: The optimum: the probability of one output of each orbit.
    probabilities: np.ndarray = field(repr=False)
    #: Sum over Q of the optimum's expected ``objective`` error, units of Δ.
    total_error: float
    #: Certified lower bound on the LP's optimum (units of ``total_error``).
    lower_bound: float
    #: Relative difference of ``total_error`` and ``lower_bound`` (at most the tolerance).
    gap: float
    #: ``"Optimal"`` for a certified optimum (HiGHS's model status).
    status: str
    #: The HiGHS solver used: ``"ipm"`` (interior point and crossover) or ``"simplex"``.
    method: str
    #: Whether one round of iterative refinement corrected HiGHS's point.
    refined: bool
    #: Columns of the LP.
    num_variables: int
    #: Rows of the LP.
    num_constraints: int
    #: Nonzeros of the LP's matrix.
    num_nonzeros: int
    #: Largest violation of any row by ``probabilities`` in the LP's units (rounding).
    max_violation: float
    #: CPU seconds of this process for building, solving and certifying.
    cpu_seconds: float
    #: The variables (class, orbit of outputs) of the LP.
    orbits: TopKOrbits = field(repr=False)
    #: The LP the optimum is certified against (variables ``z = x / e^{-eps d}``).
    lp: LinearProgram = field(repr=False)

    _display = ("n", "k", "epsilon", "top", "ordered", "constraint_set", "objective",
                "total_error", "lower_bound", "gap", "status")

    def _display_items(self):
        return [*self._repr_items(), ("method", self.method), ("refined", self.refined),
                ("num_variables", self.num_variables),
                ("num_constraints", self.num_constraints),
                ("num_nonzeros", self.num_nonzeros), ("max_violation", self.max_violation),
                ("cpu_seconds", self.cpu_seconds)]

    def class_errors(self, kind: str | None = None) -> np.ndarray:
        """``(C,)``: the optimum's expected error ``kind`` (default: the objective's) on each
        class representative, units of Δ."""
        errors = self.orbits.errors(self.objective if kind is None else kind)
        return np.bincount(self.orbits.var_class, weights=self.orbits.size * errors
                           * self.probabilities, minlength=self.orbits.classes.num_classes)

    def pmf(self, scores) -> np.ndarray:
        """The optimal mechanism's probabilities of every output on lattice score vectors
        (one vector, or one per row), aligned with :func:`~optmech.topk.outcomes` ``(n, top,
        ordered)``.  Scores must lie on the 2Δ-lattice (Δ = 1)
        within depth ``k`` up to a common shift; anything else raises
        :class:`InvalidArgumentError`."""
        from optmech.topk import outcomes

        q = np.asarray(scores, dtype=float)
        rows = np.atleast_2d(q)
        c = self.orbits.classes
        refusal = InvalidArgumentError("scores", scores, f"{c.n} scores on the 2-lattice "
                                       f"(scores 0, -2, ..., -{2 * c.k} up to a shift)")
        if q.ndim not in (1, 2) or rows.shape[1] != c.n or not np.isfinite(rows).all():
            raise refusal
        steps = (rows.max(axis=1, keepdims=True) - rows) / 2.0
        levels = np.rint(np.minimum(steps, c.k + 1)).astype(np.int64)
        if np.abs(steps - levels).max() > 1e-9 or levels.max() > c.k:
            raise refusal
        counts = (levels[:, :, None] == np.arange(c.k + 1)).sum(axis=1)
        owner = c.find(counts @ c.radix)
        tuples = outcomes(c.n, self.top, self.ordered)
        variables = self.orbits.find(owner[:, None], levels[:, tuples])
        probs = self.probabilities[variables]
        return probs[0] if q.ndim == 1 else probs


def check_topk(n, k, top, ordered, constraints: str = "regular") -> tuple[int, int, int, bool]:
    """``(n, k, top, ordered)`` checked: ``n >= 2`` items, depth ``k >= 1``, ``1 <= top <=
    n - 1``, ``ordered`` a bool, and a known constraint set."""
    n = check_integer(n, "n", minimum=2)
    k = check_integer(k, "k", minimum=1)
    top = check_integer(top, "top", minimum=1)
    if top > n - 1:
        raise InvalidArgumentError("top", top, f"an integer in [1, n - 1] = [1, {n - 1}]")
    if not isinstance(ordered, (bool, np.bool_)):
        raise InvalidArgumentError("ordered", ordered, "True or False")
    check_choice(constraints, "constraints", CONSTRAINTS)
    return n, k, top, bool(ordered)


def check_epsilon(epsilon, k: int) -> float:
    """``epsilon`` checked: at least :data:`MIN_EPSILON` and ``epsilon k`` at most
    :data:`MAX_EPSILON_DEPTH`."""
    epsilon = check_positive(epsilon, "epsilon")
    if not (MIN_EPSILON <= epsilon and epsilon * k <= MAX_EPSILON_DEPTH):
        raise InvalidArgumentError("epsilon", epsilon, f"a number in [{MIN_EPSILON:g}, "
                                   f"{MAX_EPSILON_DEPTH:g} / k] (beyond, the probabilities "
                                   "e^-(epsilon k) fall below the solver's tolerances)")
    return float(epsilon)


def _objective(objective) -> str:
    """One of :data:`lp_models.topk.ERRORS` (``"l_1"`` read as ``"l1"``, as the error
    measures of :mod:`optmech.topk.utilities` read it)."""
    from optmech.topk.utilities import check_measure

    try:
        return check_choice(check_measure(objective), "objective", ERRORS)
    except InvalidArgumentError:
        raise InvalidArgumentError("objective", objective, "one of " + ", ".join(ERRORS)
                                   ) from None


def topk_lp_size(n: int, k: int, top: int, ordered: bool = True,
                 constraints: str = "regular") -> tuple[int, int, int]:
    """``(variables, rows, nonzeros)`` of the LP without building it: the variables and the
    monotonicity rows exactly, the privacy rows as an upper bound (every neighbour-set orbit
    of every variable, before the pairs that leave the lattice are dropped).  Refuses
    (:class:`InvalidArgumentError`) a table that cannot be enumerated."""
    n, k, top, ordered = check_topk(n, k, top, ordered, constraints)
    orbits = _orbit_table(n, k, top, ordered)
    privacy = privacy_row_bound(orbits)
    rows = orbits.classes.num_classes + privacy
    nonzeros = orbits.num_variables + 2 * privacy
    if constraints == "regular":
        first, second = monotonicity_pairs(orbits.classes)
        for prefix in (range(1, top + 1) if ordered else [top]):
            per_item = np.diff(prefix_marginals(orbits, prefix).indptr)
            rows += first.size
            nonzeros += int(per_item[first].sum() + per_item[second].sum())
    return orbits.num_variables, int(rows), int(nonzeros)


def _orbit_table(n: int, k: int, top: int, ordered: bool) -> TopKOrbits:
    """The orbits, refused (:class:`InvalidArgumentError`) when their table alone would not
    fit in the memory budget (about 200 bytes a variable)."""
    if orbit_count_exceeds(n, k, top, ordered, MAX_VARIABLES):
        raise InvalidArgumentError("n, k, top", (n, k, top),
                                   f"a lattice of at most {MAX_VARIABLES} LP variables")
    require_memory(200.0 * orbit_count(n, k, top, ordered), "n, k, top", (n, k, top))
    try:
        return topk_orbits(n, k, top, ordered)
    except ValueError as error:
        raise InvalidArgumentError("n, k, top", (n, k, top),
                                   f"a lattice that fits ({error})") from None


def _lp_estimate(n, k, top, size, solves: int = 1) -> Estimate:
    """Memory and CPU time of ``solves`` LPs, estimated from their size."""
    _, _, nonzeros = size
    return Estimate(solves * _SECONDS_PER_WORK * nonzeros ** 1.5,
                    _BYTES_PER_NONZERO * nonzeros, "n, k, top", (n, k, top))


def topk_sweep_estimate(n, k, top, epsilons, ordered: bool = True,
                        constraints: str = "regular") -> Estimate:
    """Check every ε of a sweep; the memory and total CPU time of its LPs, estimated from
    their size (:func:`topk_lp_size`) before the first solve."""
    n, k, top, ordered = check_topk(n, k, top, ordered, constraints)
    for epsilon in epsilons:
        check_epsilon(epsilon, k)
    return _lp_estimate(n, k, top, topk_lp_size(n, k, top, ordered, constraints),
                        len(epsilons))


def require_topk_sweep(n, k, top, epsilons, ordered: bool = True,
                       constraints: str = "regular") -> None:
    """Refuse, before the first solve, a sweep whose memory or total CPU time exceeds the
    budget (:func:`topk_sweep_estimate`)."""
    require(topk_sweep_estimate(n, k, top, epsilons, ordered, constraints))


def _anchor(orbits: TopKOrbits, epsilon: float) -> np.ndarray:
    """Probabilities of the strictly feasible anchor (module docstring, step 3): the
    exponential mechanism with utility ``sum_{r in o} q_r = -2 sum λ`` (sensitivity ``T``)
    at ``eps / 2``: weight ``exp(-(eps / 2) (2 sum λ) / (2 T))`` per output (in logs)."""
    log_weight = -epsilon / (2 * orbits.top) * orbits.var_levels.sum(axis=1)
    log_weight = log_weight - log_weight.max()
    weight = orbits.size * np.exp(log_weight)
    total = np.bincount(orbits.var_class, weights=weight,
                        minlength=orbits.classes.num_classes)
    return np.exp(log_weight) / total[orbits.var_class]


def _refine(lp: LinearProgram, z: np.ndarray, method: str, time_limit):
    """One round of iterative refinement (module docstring, step 2): ``(point, solution)``."""
    activity = lp.matrix @ z
    scale = _REFINE_SCALE
    corrector = dataclasses.replace(
        lp, row_lower=scale * (lp.row_lower - activity),
        row_upper=scale * (lp.row_upper - activity),
        col_lower=scale * (lp.col_lower - z), col_upper=scale * (lp.col_upper - z))
    solution = solve(corrector, method, time_limit=time_limit, options=_TOLERANCES,
                     feasibility_tolerance=1e-6)
    return z + solution.x / scale, solution


def _repair(lp: LinearProgram, z: np.ndarray, anchor: np.ndarray, size) -> np.ndarray:
    """``z`` clipped at 0, each class rescaled to sum to one, then mixed with ``anchor``
    (same units) by the smallest weight that satisfies every inequality row; rows the anchor
    meets with equality are left to ``max_violation``.  :class:`SolverError` when the anchor
    cannot repair a violated row."""
    num_classes = lp.metadata["num_class_rows"]
    z = np.maximum(z, 0.0)
    owner = lp.metadata["orbits"].var_class
    sums = lp.matrix[:num_classes] @ z
    if not (sums > 0).all():
        raise SolverError("a class of the solver's point has no probability",
                          status="Optimal but not certified", num_rows=size[1],
                          num_cols=size[0], num_nonzeros=size[2], method="repair")
    z = z / sums[owner]
    rows = lp.matrix[num_classes:]
    point, spare = rows @ z, rows @ anchor
    violated = (point < 0) & (spare > 0)
    if violated.any():
        weight = float(np.max(-point[violated] / (spare[violated] - point[violated])))
        z = (1.0 - weight) * z + weight * anchor
    return z


def solve_topk(n: int, k: int, epsilon: float, top: int, *, ordered: bool = True,
               constraints: str = "regular", objective: str = "l1", method: str = "auto",
               gap_tolerance: float = GAP_TOLERANCE,
               time_limit: float | None = None) -> TopKOptimum:
    """Certified optimum of the top-``top`` LP for ``n`` items, depth ``k`` and privacy
    ``epsilon`` (of the whole output).

    ``ordered``: ordered tuples (True) or subsets.  ``constraints``: ``"regular"`` (the
    top-k form of the paper's regularity: for ``top = 1`` the optimum of
    :func:`optmech.lattice.solve_lattice`) or ``"private"`` (every symmetric ε-DP mechanism;
    a lower bound for every shift-invariant ε-DP mechanism).  ``objective``: ``"l1"``
    (``"l_1"`` too), ``"l_inf"`` or ``"k_relative"``.  ``method``: ``"auto"`` (HiGHS
    interior point with crossover), ``"ipm"`` or ``"simplex"``.  Raises
    :class:`SolverError` when HiGHS stops short of optimality or the certified gap exceeds
    ``gap_tolerance``.
    """
    started = time.process_time()
    n, k, top, ordered = check_topk(n, k, top, ordered, constraints)
    epsilon = check_epsilon(epsilon, k)
    objective = _objective(objective)
    check_choice(method, "method", METHODS)
    gap_tolerance = check_positive(gap_tolerance, "gap_tolerance")
    if time_limit is not None:
        time_limit = check_positive(time_limit, "time_limit")
    size = topk_lp_size(n, k, top, ordered, constraints)
    require(_lp_estimate(n, k, top, size))
    orbits = _orbit_table(n, k, top, ordered)
    lp = topk_lp(n, k, epsilon, top, ordered=ordered, constraints=constraints,
                 objective=objective, scaled=True, orbits=orbits)
    unit = np.exp(lp.metadata["log_scale"])
    anchor = _anchor(orbits, epsilon) / unit
    attempts = ("ipm", "simplex") if method == "auto" else (method,)
    for attempt, solver in enumerate(attempts):
        try:
            z, primal, bound, gap, status, refined = _certified(lp, solver, anchor,
                                                                time_limit, gap_tolerance)
            break
        except SolverError as error:
            if attempt == len(attempts) - 1 or error.status.startswith("Time limit"):
                raise
    return TopKOptimum(
        n=n, k=k, epsilon=epsilon, top=top, ordered=ordered, constraint_set=constraints,
        objective=objective, probabilities=z * unit,
        total_error=lp.objective_in_units(primal), lower_bound=lp.objective_in_units(bound),
        gap=gap, status=status, method=solver, refined=refined,
        num_variables=lp.num_cols, num_constraints=lp.num_rows,
        num_nonzeros=lp.num_nonzeros, max_violation=lp.max_violation(z),
        cpu_seconds=time.process_time() - started, orbits=orbits, lp=lp)


def _certified(lp: LinearProgram, solver: str, anchor: np.ndarray, time_limit,
               gap_tolerance: float):
    """One HiGHS solve of ``lp`` with ``solver``, refined where its point is loose, repaired
    with ``anchor`` and certified (module docstring, steps 1 to 4): ``(point, value, bound,
    gap, status, refined)`` in the LP's units, or :class:`SolverError`."""
    solution = solve(lp, solver, time_limit=time_limit, options=_TOLERANCES)
    z, solutions = solution.x, [solution]
    refined = lp.max_violation(z) > _REFINE_ABOVE
    if refined:
        z, correction = _refine(lp, z, solver, time_limit)
        solutions.append(correction)
    size = (lp.num_cols, lp.num_rows, lp.num_nonzeros)
    z = _repair(lp, z, anchor, size)
    primal = lp.objective_value(z)
    bound = max(_lower_bound(lp, s.row_duals) for s in solutions)
    gap = abs(primal - bound) / abs(primal) if primal else abs(bound)
    if not gap <= gap_tolerance:
        raise SolverError(f"certified gap {gap:.3g} exceeds {gap_tolerance:g}",
                          status=f"{solution.status} but not certified", num_rows=size[1],
                          num_cols=size[0], num_nonzeros=size[2], method=solver)
    return z, primal, bound, gap, solution.status, refined


def _lower_bound(lp: LinearProgram, row_duals: np.ndarray) -> float:
    """:func:`dual_objective` at ``row_duals`` with the inequality multipliers clipped at 0
    (a Lagrangian bound, valid for any multipliers: every column is boxed)."""
    y = np.where(np.isinf(lp.row_upper), np.maximum(row_duals, 0.0), row_duals)
    return float(dual_objective(lp, y)[0])
