"""The one solver layer: a plain :class:`LinearProgram` and :func:`solve` through HiGHS.

Every LP builder in :mod:`lp_models` returns a :class:`LinearProgram`::

    minimise (or maximise)   c @ x + offset
    subject to               row_lower <= A @ x <= row_upper
                             col_lower <=     x <= col_upper

with ``A`` a ``scipy.sparse.csc_matrix`` and ``±inf`` for a missing bound.  :func:`solve`
hands the whole model to HiGHS in one ``passModel`` call (column-wise arrays), runs it once
with the chosen method, and returns a :class:`Solution`; :class:`HighsModel` keeps the model
between runs for row generation (rows added, bounds changed, HiGHS re-optimising from its
last basis), with the same checks on every run and, when the caller asks for it
(``refactor_tolerance``), one re-run from a fresh factorisation of a final basis whose
values drifted.  Nothing else in the project talks to ``highspy``.

Guarantees of :func:`solve` (no hidden retries, no silent numbers):

* a HiGHS model status other than *Optimal* raises :class:`SolverError`, which carries the
  status and the model's size;
* an *Optimal* status is not trusted on its own: the returned primal point is checked
  against every row and column bound with numpy, and a violation above
  ``feasibility_tolerance`` raises :class:`SolverError` as well (PDLP in particular reports
  *Optimal* with violations around 1e-6);
* the dual objective is recomputed from the row duals and the bounds (see
  :func:`dual_objective`), so ``Solution.gap`` is an independent certificate of optimality.

Dual sign convention (HiGHS's, for either sense): the reduced costs are
``z = c - A.T @ y``; at an optimum of a minimisation ``y_i > 0`` only where the row's lower
bound is active and ``y_i < 0`` only where its upper bound is active (mirrored for a
maximisation).
"""

from __future__ import annotations

import dataclasses
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np
import scipy.sparse as sp

__all__ = [
    "HighsModel",
    "InvalidModelError",
    "LinearProgram",
    "METHODS",
    "Solution",
    "SolverError",
    "dual_objective",
    "solve",
    "to_cvxpy",
]

METHODS = ("auto", "simplex", "ipm", "pdlp")


class InvalidModelError(ValueError):
    """A :class:`LinearProgram` whose arrays do not fit together."""


class SolverError(RuntimeError):
    """HiGHS did not return a certified optimum.

    Attributes: ``status`` (HiGHS model status text, or a description of the failed check),
    ``num_rows``, ``num_cols``, ``num_nonzeros`` and ``method``.
    """

    def __init__(self, message: str, *, status: str, num_rows: int, num_cols: int,
                 num_nonzeros: int, method: str):
        super().__init__(
            f"{message} [status: {status}; model: {num_rows} rows x {num_cols} columns, "
            f"{num_nonzeros} nonzeros; method: {method}]"
        )
        self.status = status
        self.num_rows = num_rows
        self.num_cols = num_cols
        self.num_nonzeros = num_nonzeros
        self.method = method


def _as_vector(name: str, values, length: int, fill: float | None = None) -> np.ndarray:
    if values is None:
        if fill is None:
            raise InvalidModelError(f"{name} is required")
        return np.full(length, fill, dtype=float)
    arr = np.asarray(values, dtype=float)
    if arr.ndim == 0:
        arr = np.full(length, float(arr))
    if arr.shape != (length,):
        raise InvalidModelError(f"{name} must have shape ({length},), got {arr.shape}")
    if np.isnan(arr).any():
        raise InvalidModelError(f"{name} contains NaN")
    return arr


@dataclass(frozen=True)
class LinearProgram:
    """A linear program in HiGHS's bounded-row form (see module docstring).

    ``col_labels``/``row_labels`` are optional sequences naming what each variable and row
    means; ``metadata`` holds whatever a builder needs to map the solution back (class
    tables, index arrays).  Missing column bounds default to ``[0, inf)``.
    """

    cost: np.ndarray
    matrix: sp.csc_matrix
    row_lower: np.ndarray
    row_upper: np.ndarray
    col_lower: np.ndarray | None = None
    col_upper: np.ndarray | None = None
    sense: str = "min"
    offset: float = 0.0
    col_labels: Sequence[Any] | None = None
    row_labels: Sequence[Any] | None = None
    name: str = ""
    metadata: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self):
        cost = np.asarray(self.cost, dtype=float)
        if cost.ndim != 1:
            raise InvalidModelError(f"cost must be a vector, got shape {cost.shape}")
        if not np.isfinite(cost).all():
            raise InvalidModelError("cost must be finite")
        matrix = sp.csc_matrix(self.matrix, dtype=float)
        nrow, ncol = matrix.shape
        if ncol != cost.size:
            raise InvalidModelError(
                f"matrix has {ncol} columns but cost has {cost.size} entries")
        if matrix.nnz and not np.isfinite(matrix.data).all():
            raise InvalidModelError("matrix entries must be finite")
        matrix.sort_indices()
        if self.sense not in ("min", "max"):
            raise InvalidModelError(f"sense must be 'min' or 'max', got {self.sense!r}")
        row_lower = _as_vector("row_lower", self.row_lower, nrow)
        row_upper = _as_vector("row_upper", self.row_upper, nrow)
        col_lower = _as_vector("col_lower", self.col_lower, ncol, fill=0.0)
        col_upper = _as_vector("col_upper", self.col_upper, ncol, fill=np.inf)
        for kind, lo, hi in (("row", row_lower, row_upper), ("col", col_lower, col_upper)):
            bad = np.flatnonzero(lo > hi)
            if bad.size:
                i = int(bad[0])
                raise InvalidModelError(
                    f"{kind} {i}: lower bound {lo[i]} exceeds upper bound {hi[i]}")
        for labels, size, what in ((self.col_labels, ncol, "col_labels"),
                                   (self.row_labels, nrow, "row_labels")):
            if labels is not None and len(labels) != size:
                raise InvalidModelError(f"{what} has {len(labels)} entries, expected {size}")
        if not np.isfinite(self.offset):
            raise InvalidModelError("offset must be finite")
        set_ = object.__setattr__
        set_(self, "cost", cost)
        set_(self, "matrix", matrix)
        set_(self, "row_lower", row_lower)
        set_(self, "row_upper", row_upper)
        set_(self, "col_lower", col_lower)
        set_(self, "col_upper", col_upper)
        set_(self, "offset", float(self.offset))

    @property
    def num_cols(self) -> int:
        return self.matrix.shape[1]

    @property
    def num_rows(self) -> int:
        return self.matrix.shape[0]

    @property
    def num_nonzeros(self) -> int:
        return int(self.matrix.nnz)

    def objective_value(self, x: np.ndarray) -> float:
        """``c @ x + offset`` for a given point."""
        return float(self.cost @ np.asarray(x, dtype=float) + self.offset)

    def max_violation(self, x: np.ndarray) -> float:
        """Largest absolute violation of any row or column bound at ``x`` (0 if feasible)."""
        x = np.asarray(x, dtype=float)
        activity = self.matrix @ x
        parts = [np.maximum(self.row_lower - activity, 0.0),
                 np.maximum(activity - self.row_upper, 0.0),
                 np.maximum(self.col_lower - x, 0.0),
                 np.maximum(x - self.col_upper, 0.0)]
        return float(max((p.max() for p in parts if p.size), default=0.0))


@dataclass(frozen=True)
class Solution:
    """A certified optimum of a :class:`LinearProgram`.

    ``x`` primal values, ``row_activity = A @ x``, ``row_duals`` (y) and ``reduced_costs``
    (z = c - A.T y) in HiGHS's convention, ``objective`` the primal objective (with offset),
    ``dual_objective`` recomputed from ``y``, ``z`` and the bounds, ``status`` the HiGHS model
    status text, ``solve_seconds`` the wall time of ``run()``.
    """

    x: np.ndarray
    row_activity: np.ndarray
    row_duals: np.ndarray
    reduced_costs: np.ndarray
    objective: float
    dual_objective: float
    status: str
    method: str
    solve_seconds: float
    iterations: int
    max_primal_infeasibility: float
    max_dual_infeasibility: float

    @property
    def gap(self) -> float:
        """Relative primal–dual gap ``|p - d| / max(1, |p|)``."""
        return abs(self.objective - self.dual_objective) / max(1.0, abs(self.objective))


def dual_objective(lp: LinearProgram, row_duals: np.ndarray,
                   dual_tolerance: float = 1e-9) -> tuple[float, float]:
    """Lagrangian dual value of ``lp`` at the row multipliers ``row_duals``.

    For a minimisation the dual function is
    ``g(y) = offset + sum_i y_i * (row_lower_i if y_i > 0 else row_upper_i)
    + sum_j z_j * (col_lower_j if z_j > 0 else col_upper_j)`` with ``z = c - A.T y``; it is a
    lower bound on the optimum for every ``y`` for which it is finite.  A multiplier that
    would pair with an infinite bound is dual infeasibility: its size is returned as the
    second value and it is left out of the sum only when below ``dual_tolerance``.
    A maximisation is handled as the minimisation of ``-c``.
    """
    sign = 1.0 if lp.sense == "min" else -1.0
    y = sign * np.asarray(row_duals, dtype=float)
    z = sign * lp.cost - lp.matrix.T @ y

    def paired(mult, lower, upper):
        bound = np.where(mult > 0, lower, upper)
        finite = np.isfinite(bound)
        infeasibility = float(np.abs(mult[~finite]).max(initial=0.0))
        return float(mult[finite] @ bound[finite]), infeasibility

    rows, row_inf = paired(y, lp.row_lower, lp.row_upper)
    cols, col_inf = paired(z, lp.col_lower, lp.col_upper)
    infeasibility = max(row_inf, col_inf)
    value = rows + cols
    if infeasibility > dual_tolerance:
        value = -np.inf
    return sign * value + lp.offset, infeasibility


def _highs_options(method: str, presolve: bool | None) -> dict[str, Any]:
    solver = {"auto": "choose", "simplex": "simplex", "ipm": "ipm", "pdlp": "pdlp"}[method]
    options: dict[str, Any] = {"solver": solver}
    if presolve is None and method == "ipm":
        # IPX after presolve, without crossover, returned wrong duals on the lattice LP
        # (status "Unknown", measured with highspy 1.15); IPM runs without presolve unless
        # the caller asks for it.
        presolve = False
    if presolve is not None:
        options["presolve"] = "on" if presolve else "off"
    return options


def solve(lp: LinearProgram, method: str = "auto", *, time_limit: float | None = None,
          presolve: bool | None = None, warm_start: np.ndarray | None = None,
          options: Mapping[str, Any] | None = None, feasibility_tolerance: float = 1e-7,
          verbose: bool = False) -> Solution:
    """Solve ``lp`` with HiGHS and return a certified :class:`Solution`.

    Parameters
    ----------
    method : "auto" | "simplex" | "ipm" | "pdlp"
        HiGHS ``solver`` option ("auto" lets HiGHS choose).  "ipm" runs without presolve
        unless ``presolve=True`` is passed.
    time_limit
        seconds, or None for no limit.  Hitting it raises :class:`SolverError`.
    presolve
        force HiGHS presolve on/off (None keeps HiGHS's default, see ``method``).
    warm_start
        a primal point handed to HiGHS with ``setSolution`` before ``run()``.
    options
        further HiGHS options, passed verbatim with ``setOptionValue``.
    feasibility_tolerance
        the largest absolute bound violation accepted in the returned
        point (checked here with numpy, whatever HiGHS reports).
    """
    model = HighsModel(lp, method, presolve=presolve, options=options, verbose=verbose)
    return model.run(time_limit=time_limit, warm_start=warm_start,
                     feasibility_tolerance=feasibility_tolerance)


def new_highs():
    """A fresh ``highspy.Highs`` with nothing written to stdout.

    highspy 1.16 prints its version banner to the C-level stdout when the first ``Highs`` of a
    process is constructed, before any option can silence it; that would corrupt ``--json``
    output, so file descriptor 1 points to ``os.devnull`` during construction."""
    import highspy

    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            return highspy.Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)


class HighsModel:
    """One HiGHS model kept between runs, for row generation and bound changes.

    ``run()`` gives the same guarantees as :func:`solve` (status checked, primal point
    checked against every bound, dual objective recomputed), always against the model as it
    is now: :attr:`lp` follows every :meth:`add_rows` and :meth:`change_row_bounds`.
    Between runs HiGHS keeps its basis, so after adding violated rows (dual simplex) or
    relaxing bounds (primal simplex) it re-optimises from where it stopped instead of from
    scratch.  ``time_limit`` of a run counts that run only (HiGHS's own clock is cumulative
    over the model's runs; the difference is taken here).
    """

    def __init__(self, lp: LinearProgram, method: str = "auto", *,
                 presolve: bool | None = None, options: Mapping[str, Any] | None = None,
                 verbose: bool = False):
        import highspy

        if method not in METHODS:
            raise ValueError(f"method must be one of {', '.join(METHODS)}; got {method!r}")
        self.lp = lp
        self.method = method
        self._highspy = highspy
        h = self._highs = new_highs()
        h.setOptionValue("output_flag", bool(verbose))
        for key, value in _highs_options(method, presolve).items():
            h.setOptionValue(key, value)
        self.set_options(options or {})
        A = lp.matrix
        sense = highspy.ObjSense.kMinimize if lp.sense == "min" else highspy.ObjSense.kMaximize
        status = h.passModel(
            lp.num_cols, lp.num_rows, lp.num_nonzeros, int(highspy.MatrixFormat.kColwise),
            int(sense), lp.offset, lp.cost, lp.col_lower, lp.col_upper, lp.row_lower,
            lp.row_upper, A.indptr.astype(np.int32), A.indices.astype(np.int32), A.data,
            np.zeros(lp.num_cols, dtype=np.int32))
        if status == highspy.HighsStatus.kError:
            raise self._fail("HiGHS rejected the model", "load error")

    def _fail(self, message: str, status: str) -> SolverError:
        lp = self.lp
        return SolverError(message, status=status, num_rows=lp.num_rows, num_cols=lp.num_cols,
                           num_nonzeros=lp.num_nonzeros, method=self.method)

    def set_options(self, options: Mapping[str, Any]) -> None:
        """Set HiGHS options verbatim (``setOptionValue``) for the next runs."""
        for key, value in options.items():
            self._highs.setOptionValue(key, value)

    def add_rows(self, matrix: sp.spmatrix, lower: np.ndarray, upper: np.ndarray) -> None:
        """Append rows ``lower <= matrix @ x <= upper`` (``matrix``: one row per new row,
        ``num_cols`` columns); :attr:`lp` drops its row labels, if it had any."""
        rows = sp.csr_matrix(matrix, dtype=float)
        if rows.shape[1] != self.lp.num_cols:
            raise InvalidModelError(f"new rows have {rows.shape[1]} columns, the model "
                                    f"{self.lp.num_cols}")
        rows.sort_indices()
        lower = _as_vector("lower", lower, rows.shape[0])
        upper = _as_vector("upper", upper, rows.shape[0])
        self._highs.addRows(rows.shape[0], lower, upper, rows.nnz,
                            rows.indptr[:-1].astype(np.int32),
                            rows.indices.astype(np.int32), rows.data)
        lp = self.lp
        self.lp = dataclasses.replace(
            lp, matrix=sp.vstack([lp.matrix, rows], format="csc"),
            row_lower=np.concatenate([lp.row_lower, lower]),
            row_upper=np.concatenate([lp.row_upper, upper]), row_labels=None)

    def change_row_bounds(self, rows: np.ndarray, lower: np.ndarray,
                          upper: np.ndarray) -> None:
        """New bounds ``lower <= A[rows] @ x <= upper`` for existing rows."""
        rows = np.asarray(rows, dtype=np.int64)
        lower = _as_vector("lower", lower, rows.size)
        upper = _as_vector("upper", upper, rows.size)
        self._highs.changeRowsBounds(rows.size, rows.astype(np.int32), lower, upper)
        row_lower, row_upper = self.lp.row_lower.copy(), self.lp.row_upper.copy()
        row_lower[rows], row_upper[rows] = lower, upper
        self.lp = dataclasses.replace(self.lp, row_lower=row_lower, row_upper=row_upper)

    def run(self, *, time_limit: float | None = None, warm_start: np.ndarray | None = None,
            feasibility_tolerance: float = 1e-7,
            refactor_tolerance: float | None = None) -> Solution:
        """Run HiGHS from its current state and return a certified :class:`Solution` of
        :attr:`lp` (other parameters as in :func:`solve`).

        ``refactor_tolerance``: if the optimal point HiGHS returns violates a bound by more
        than this, its final basis is factorised afresh (HiGHS's own basis handed back with
        ``setBasis``) and HiGHS runs once more from it.  The simplex updates its primal
        values along with the factorisation; after thousands of updates they can drift from
        the basis's true vertex (measured with highspy 1.16: a sum-to-one row of the lattice
        LP off by 1.2e-6 under an "Optimal" status with 1e-10 tolerances).  The second run
        recomputes the values from the fresh factors and pivots on only if they show an
        infeasibility; the checks below apply to its point, and ``iterations`` counts both.
        """
        started = time.perf_counter()
        iterations = self._run_highs(time_limit, warm_start)
        sol = self._highs.getSolution()
        if refactor_tolerance is not None and self.lp.max_violation(
                np.asarray(sol.col_value)) > refactor_tolerance:
            self.refactor()
            remaining = None if time_limit is None else max(
                time_limit - (time.perf_counter() - started), 1e-3)
            iterations += self._run_highs(remaining, None)
            sol = self._highs.getSolution()
        return self._solution(sol, time.perf_counter() - started, iterations,
                              feasibility_tolerance)

    def refactor(self) -> None:
        """Hand HiGHS its own current basis back (``setBasis``), so that the next run
        factorises it afresh instead of continuing from the updated factors and values."""
        self._highs.setBasis(self._highs.getBasis())

    def _run_highs(self, time_limit: float | None, warm_start: np.ndarray | None) -> int:
        """One ``Highs.run()``; raises unless the model status is *Optimal*; returns the
        run's iteration count."""
        highspy, h = self._highspy, self._highs
        if time_limit is not None and not (time_limit > 0):
            raise ValueError(f"time_limit must be positive seconds, got {time_limit!r}")
        h.setOptionValue("time_limit", np.inf if time_limit is None
                         else h.getRunTime() + float(time_limit))
        if warm_start is not None:
            start = highspy.HighsSolution()
            start.col_value = np.asarray(warm_start, dtype=float).tolist()
            start.value_valid = True
            h.setSolution(start)

        h.run()
        model_status = h.getModelStatus()
        if model_status != highspy.HighsModelStatus.kOptimal:
            raise self._fail("HiGHS did not reach an optimal solution",
                             h.modelStatusToString(model_status))
        info = h.getInfo()
        return int(info.simplex_iteration_count + info.ipm_iteration_count
                   + info.pdlp_iteration_count)       # this run's (HiGHS resets them)

    def _solution(self, sol, seconds: float, iterations: int,
                  feasibility_tolerance: float) -> Solution:
        """HiGHS's solution ``sol`` of the last run, checked against :attr:`lp` (see
        :func:`solve`)."""
        h, lp = self._highs, self.lp
        status_text = h.modelStatusToString(h.getModelStatus())
        info = h.getInfo()
        x = np.asarray(sol.col_value, dtype=float)
        violation = lp.max_violation(x)
        if violation > feasibility_tolerance:
            raise self._fail(f"the returned point violates a bound by {violation:.3g} "
                             f"(tolerance {feasibility_tolerance:g})",
                             f"{status_text} but infeasible")
        if not sol.dual_valid:
            raise self._fail("HiGHS returned no dual values", status_text)
        y = np.asarray(sol.row_dual, dtype=float)
        dual_value, dual_infeasibility = dual_objective(lp, y)
        return Solution(
            x=x,
            row_activity=np.asarray(sol.row_value, dtype=float),
            row_duals=y,
            reduced_costs=np.asarray(sol.col_dual, dtype=float),
            objective=lp.objective_value(x),
            dual_objective=float(dual_value),
            status=status_text,
            method=self.method,
            solve_seconds=seconds,
            iterations=iterations,
            max_primal_infeasibility=violation,
            max_dual_infeasibility=max(dual_infeasibility, float(info.max_dual_infeasibility)),
        )


@dataclass(frozen=True)
class CvxpyModel:
    """``lp`` as a cvxpy problem; ``row_duals()`` maps cvxpy's duals to HiGHS's convention."""

    problem: Any
    x: Any
    lower: Any | None
    upper: Any | None
    lower_rows: np.ndarray
    upper_rows: np.ndarray
    num_rows: int
    sense: str

    def row_duals(self) -> np.ndarray:
        y = np.zeros(self.num_rows)
        sign = 1.0 if self.sense == "min" else -1.0
        if self.lower is not None:
            y[self.lower_rows] += sign * np.asarray(self.lower.dual_value).ravel()
        if self.upper is not None:
            y[self.upper_rows] -= sign * np.asarray(self.upper.dual_value).ravel()
        return y


def to_cvxpy(lp: LinearProgram, max_cols: int = 20_000) -> CvxpyModel:
    """The same model in cvxpy, for cross-checks on small LPs (refuses large ones).

    Each finite row lower bound becomes ``A_L x >= row_lower`` and each finite upper bound
    ``A_U x <= row_upper`` (an equality row appears in both); after
    ``model.problem.solve()``, ``model.row_duals()`` is comparable with ``Solution.row_duals``.
    """
    import cvxpy as cp

    if lp.num_cols > max_cols:
        raise ValueError(f"to_cvxpy is for small models (<= {max_cols} columns); "
                         f"this one has {lp.num_cols}")
    x = cp.Variable(lp.num_cols)
    A = sp.csr_matrix(lp.matrix)
    constraints = []
    lower_rows = np.flatnonzero(np.isfinite(lp.row_lower))
    upper_rows = np.flatnonzero(np.isfinite(lp.row_upper))
    lower = upper = None
    if lower_rows.size:
        lower = A[lower_rows] @ x >= lp.row_lower[lower_rows]
        constraints.append(lower)
    if upper_rows.size:
        upper = A[upper_rows] @ x <= lp.row_upper[upper_rows]
        constraints.append(upper)
    finite_lo = np.isfinite(lp.col_lower)
    finite_hi = np.isfinite(lp.col_upper)
    if finite_lo.any():
        constraints.append(x[np.flatnonzero(finite_lo)] >= lp.col_lower[finite_lo])
    if finite_hi.any():
        constraints.append(x[np.flatnonzero(finite_hi)] <= lp.col_upper[finite_hi])
    objective = lp.cost @ x + lp.offset
    goal = cp.Minimize(objective) if lp.sense == "min" else cp.Maximize(objective)
    problem = cp.Problem(goal, constraints)
    return CvxpyModel(problem=problem, x=x, lower=lower, upper=upper,
                      lower_rows=lower_rows, upper_rows=upper_rows,
                      num_rows=lp.num_rows, sense=lp.sense)
