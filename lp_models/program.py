"""The one solver layer: a plain :class:`LinearProgram` and :func:`solve` through HiGHS.

Every LP builder in :mod:`lp_models` returns a :class:`LinearProgram`::

    minimise (or maximise)   c @ x + offset
    subject to               row_lower <= A @ x <= row_upper
                             col_lower <=     x <= col_upper

with ``A`` a ``scipy.sparse.csc_matrix`` and ``±inf`` for a missing bound, labelled rows
and columns (:mod:`lp_models.labels`) and an objective in documented units
(``objective_scale``, ``objective_units``); :func:`write_lp` and :func:`read_lp` move it
through MPS and LP files with HiGHS (user guide: ``docs/guide/lp_models.md``).  :func:`solve`
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
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import scipy.sparse as sp

from lp_models import labels
from lp_models.atomic import atomic_path
from lp_models.display import Displayed
from lp_models.labels import LabelBlock, check_blocks

__all__ = [
    "HighsModel",
    "InvalidModelError",
    "LinearProgram",
    "METHODS",
    "Solution",
    "SolverError",
    "dual_objective",
    "read_lp",
    "solve",
    "to_cvxpy",
    "write_lp",
]

METHODS = ("auto", "simplex", "ipm", "pdlp")


class InvalidModelError(ValueError):
    """A :class:`LinearProgram` whose arrays do not fit together."""


class SolverError(RuntimeError):
    """HiGHS did not return a certified optimum.

    Attributes: ``status`` (HiGHS model status text, or a description of the failed check),
    ``num_rows``, ``num_cols``, ``num_nonzeros`` (None when not counted: left out of the
    message) and ``method``.
    """

    def __init__(self, message: str, *, status: str, num_rows: int, num_cols: int,
                 num_nonzeros: int | None, method: str):
        nonzeros = "" if num_nonzeros is None else f", {num_nonzeros} nonzeros"
        super().__init__(
            f"{message} [status: {status}; model: {num_rows} rows x {num_cols} columns"
            f"{nonzeros}; method: {method}]"
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


def _read_only(arr: np.ndarray) -> np.ndarray:
    """A read-only view of ``arr`` (the caller's own array keeps its flags)."""
    view = arr.view()
    view.flags.writeable = False
    return view


def _read_only_matrix(matrix: sp.csc_matrix) -> sp.csc_matrix:
    """``matrix`` with read-only views of its arrays (``lp.matrix.data[0] = 1`` raises)."""
    matrix.data, matrix.indices, matrix.indptr = (
        _read_only(matrix.data), _read_only(matrix.indices), _read_only(matrix.indptr))
    return matrix


def _block_counts(layout: list[tuple[str, int, int]]) -> str:
    """``sum-to-one 10, privacy 18, monotone 48`` from a row or column layout."""
    return ", ".join(f"{kind} {stop - start}" for kind, start, stop in layout)


@dataclass(frozen=True, eq=False, repr=False)
class LinearProgram(Displayed):
    """A linear program in HiGHS's bounded-row form (see module docstring).

    Objective units.  ``objective_scale * (c @ x + offset)`` is the objective in the units
    ``objective_units`` names: builders divide some costs by a scale so that HiGHS's absolute
    tolerances act on numbers of order one (the lattice LP's total error over 37 score
    vectors becomes a mean), and :meth:`objective_in_units` maps any objective value of this
    LP (``objective_value(x)``, ``Solution.objective``, a dual bound) back.

    Labels.  ``row_blocks``/``col_blocks`` (:class:`~lp_models.labels.LabelBlock`) say what
    the leading rows and columns are; :meth:`row_label`, :meth:`row_labels`,
    :meth:`row_layout` and their column twins render them on demand, :meth:`row_names`
    the short names written to MPS files (:mod:`lp_models.labels`).

    ``metadata`` holds whatever a builder needs to map the solution back (class tables,
    index arrays).  Missing column bounds default to ``[0, inf)``.  Frozen: the ``with_*``
    methods and :func:`dataclasses.replace` return new programs (sharing unchanged arrays),
    and the arrays are read-only views (``lp.cost[0] = 1.0`` raises ``ValueError``).  A
    view shares memory with the float array it was made from (no copy of a model with
    millions of rows): the caller's own array keeps its flags, and writing into it changes
    the LP, so a builder passes arrays it no longer changes.

    Display: ``repr(lp)`` names the sizes, sense and units; in a notebook the LP shows as a
    table of those and of its row and column blocks.  :meth:`to_highs` hands over a loaded
    ``highspy.Highs`` for HiGHS options this wrapper does not expose.
    """

    #: Objective coefficients ``c``, one per column.
    cost: np.ndarray
    #: Constraint matrix ``A`` (sparse, one row per constraint).
    matrix: sp.csc_matrix
    #: Lower bounds of ``A @ x`` (``-inf`` where none).
    row_lower: np.ndarray
    #: Upper bounds of ``A @ x`` (``inf`` where none).
    row_upper: np.ndarray
    #: Lower bounds of ``x`` (default 0).
    col_lower: np.ndarray | None = None
    #: Upper bounds of ``x`` (default ``inf``).
    col_upper: np.ndarray | None = None
    #: ``"min"`` or ``"max"``.
    sense: str = "min"
    #: Constant added to ``c @ x``.
    offset: float = 0.0
    #: Labels of the leading columns, block by block.
    col_blocks: Sequence[LabelBlock] = ()
    #: Labels of the leading rows, block by block.
    row_blocks: Sequence[LabelBlock] = ()
    #: The model's name (written to MPS files).
    name: str = ""
    #: What the builder needs to map a solution back (class tables, index arrays).
    metadata: Mapping[str, Any] = field(default_factory=dict)
    #: ``objective_scale * (c @ x + offset)`` is the objective in ``objective_units``.
    objective_scale: float = 1.0
    #: What the scaled objective measures, in words.
    objective_units: str = ""

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
        try:
            col_blocks = check_blocks(self.col_blocks, ncol, "col_blocks")
            row_blocks = check_blocks(self.row_blocks, nrow, "row_blocks")
        except ValueError as error:
            raise InvalidModelError(str(error)) from None
        if not np.isfinite(self.offset):
            raise InvalidModelError("offset must be finite")
        if not (np.isfinite(self.objective_scale) and self.objective_scale > 0):
            raise InvalidModelError(f"objective_scale must be a finite number > 0, got "
                                    f"{self.objective_scale!r}")
        set_ = object.__setattr__
        set_(self, "cost", _read_only(cost))
        set_(self, "matrix", _read_only_matrix(matrix))
        set_(self, "row_lower", _read_only(row_lower))
        set_(self, "row_upper", _read_only(row_upper))
        set_(self, "col_lower", _read_only(col_lower))
        set_(self, "col_upper", _read_only(col_upper))
        set_(self, "col_blocks", col_blocks)
        set_(self, "row_blocks", row_blocks)
        set_(self, "offset", float(self.offset))
        set_(self, "objective_scale", float(self.objective_scale))

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
        """``c @ x + offset`` for a given point (in this LP's scale; see
        :meth:`objective_in_units`)."""
        return float(self.cost @ np.asarray(x, dtype=float) + self.offset)

    def objective_in_units(self, value: float) -> float:
        """``objective_scale * value``: an objective value of this LP in the units of
        ``objective_units`` (e.g. the lattice LP's mean error per score vector as the total
        error over all of them)."""
        return self.objective_scale * float(value)

    def max_violation(self, x: np.ndarray) -> float:
        """Largest absolute violation of any row or column bound at ``x`` (0 if feasible)."""
        x = np.asarray(x, dtype=float)
        activity = self.matrix @ x
        parts = [np.maximum(self.row_lower - activity, 0.0),
                 np.maximum(activity - self.row_upper, 0.0),
                 np.maximum(self.col_lower - x, 0.0),
                 np.maximum(x - self.col_upper, 0.0)]
        return float(max((p.max() for p in parts if p.size), default=0.0))

    # -- labels (lp_models.labels): rendered on demand ------------------------------------

    def row_label(self, i: int) -> str:
        """What row ``i`` is, e.g. ``sum-to-one[class 3: m=(2,1,0)]``."""
        return labels.render(self.row_blocks, [i], self.num_rows, "row")[0]

    def column_label(self, j: int) -> str:
        """What column ``j`` is, e.g. ``x[class 3: m=(2,1,0), level 1]``."""
        return labels.render(self.col_blocks, [j], self.num_cols, "column")[0]

    def row_labels(self, indices=None) -> list[str]:
        """Labels of the rows ``indices`` (``None``: every row, one string each)."""
        return labels.render(self.row_blocks, indices, self.num_rows, "row")

    def column_labels(self, indices=None) -> list[str]:
        """Labels of the columns ``indices`` (``None``: every column)."""
        return labels.render(self.col_blocks, indices, self.num_cols, "column")

    def row_layout(self) -> list[tuple[str, int, int]]:
        """``(kind, start, stop)`` of each block of rows, in order."""
        return labels.layout(self.row_blocks, self.num_rows, "row")

    def column_layout(self) -> list[tuple[str, int, int]]:
        """``(kind, start, stop)`` of each block of columns, in order."""
        return labels.layout(self.col_blocks, self.num_cols, "column")

    def row_names(self) -> list[str]:
        """Short unique names of all rows (as written to MPS and LP files)."""
        return labels.names(self.row_blocks, self.num_rows, "row")

    def column_names(self) -> list[str]:
        """Short unique names of all columns."""
        return labels.names(self.col_blocks, self.num_cols, "column")

    # -- new programs from this one ---------------------------------------------------------

    def with_rows(self, matrix, lower, upper, label: LabelBlock | str | None = None
                  ) -> "LinearProgram":
        """This LP with the rows ``lower <= matrix @ x <= upper`` appended (``matrix``: one
        row per new row, ``num_cols`` columns; ``lower``/``upper`` scalars or vectors).

        ``label``: a :class:`~lp_models.labels.LabelBlock` for the new rows, or a kind
        (``"budget"``: rows labelled ``budget[0]``, ``budget[1]``, ...), or None (labelled
        ``row i``)."""
        rows = sp.csr_matrix(matrix, dtype=float)
        if rows.shape[1] != self.num_cols:
            raise InvalidModelError(f"new rows have {rows.shape[1]} columns, the model "
                                    f"{self.num_cols}")
        count = rows.shape[0]
        return dataclasses.replace(
            self, matrix=sp.vstack([self.matrix, rows], format="csc"),
            row_lower=np.concatenate([self.row_lower, _as_vector("lower", lower, count)]),
            row_upper=np.concatenate([self.row_upper, _as_vector("upper", upper, count)]),
            row_blocks=_appended(self.row_blocks, self.num_rows, "row", label, count))

    def with_columns(self, cost, lower=0.0, upper=np.inf, matrix=None,
                     label: LabelBlock | str | None = None) -> "LinearProgram":
        """This LP with new columns appended: their ``cost``, bounds, and coefficients in
        the existing rows (``matrix``, ``num_rows`` rows; None: zeros).  ``label`` as in
        :meth:`with_rows`."""
        cost = np.atleast_1d(np.asarray(cost, dtype=float))
        count = cost.size
        block = (sp.csc_matrix((self.num_rows, count)) if matrix is None
                 else sp.csc_matrix(matrix, dtype=float))
        if block.shape != (self.num_rows, count):
            raise InvalidModelError(f"new columns' matrix must have shape "
                                    f"({self.num_rows}, {count}), got {block.shape}")
        return dataclasses.replace(
            self, cost=np.concatenate([self.cost, cost]),
            matrix=sp.hstack([self.matrix, block], format="csc"),
            col_lower=np.concatenate([self.col_lower, _as_vector("lower", lower, count)]),
            col_upper=np.concatenate([self.col_upper, _as_vector("upper", upper, count)]),
            col_blocks=_appended(self.col_blocks, self.num_cols, "column", label, count))

    def with_objective(self, cost, *, offset: float = 0.0, sense: str | None = None,
                       scale: float = 1.0, units: str = "") -> "LinearProgram":
        """This LP with another objective ``cost @ x + offset`` (``sense`` kept unless
        given); its ``objective_scale`` and ``objective_units`` are ``scale`` and
        ``units``, never inherited from the old objective."""
        return dataclasses.replace(self, cost=cost, offset=offset,
                                   sense=self.sense if sense is None else sense,
                                   objective_scale=scale, objective_units=units)

    def same_model(self, other: "LinearProgram") -> bool:
        """Whether ``other`` has exactly the same cost, matrix, bounds, sense and offset
        (labels, names, metadata and the objective scale are not compared)."""
        return (self.matrix.shape == other.matrix.shape and self.sense == other.sense
                and self.offset == other.offset
                and all(np.array_equal(getattr(self, a), getattr(other, a))
                        for a in ("cost", "row_lower", "row_upper", "col_lower", "col_upper"))
                and (self.matrix != other.matrix).nnz == 0)

    # -- files (through highspy) ------------------------------------------------------------

    def write(self, path) -> Path:
        """Write this LP to ``path`` (``.mps`` or ``.lp``, by suffix) with HiGHS; see
        :func:`write_lp`."""
        return write_lp(self, path)

    @classmethod
    def read(cls, path) -> "LinearProgram":
        """An LP read from an MPS or LP file with HiGHS; see :func:`read_lp`."""
        return read_lp(path)

    # -- HiGHS itself and display ------------------------------------------------------------

    def to_highs(self, method: str = "auto", *, presolve: bool | None = None,
                 options: Mapping[str, Any] | None = None, verbose: bool = False):
        """A ``highspy.Highs`` with this LP loaded and the options :func:`solve` would set
        (``method``, ``presolve``, ``options``, ``verbose`` as there): for HiGHS options and
        calls this wrapper does not expose.  What you do with it is unchecked; to keep
        :func:`solve`'s checks (status, feasibility, recomputed dual bound), set the options
        on a :class:`HighsModel` instead (``model.highs.setOptionValue(...)``, then
        ``model.run()``)."""
        return HighsModel(self, method, presolve=presolve, options=options,
                          verbose=verbose).highs

    _display = ("name", "sense", "num_rows", "num_cols", "num_nonzeros", "objective_units")

    def _display_items(self) -> list[tuple[str, Any]]:
        return [("name", self.name), ("sense", self.sense),
                ("rows", self.num_rows), ("columns", self.num_cols),
                ("nonzeros", self.num_nonzeros),
                ("row blocks", _block_counts(self.row_layout())),
                ("column blocks", _block_counts(self.column_layout())),
                ("objective scale", self.objective_scale),
                ("objective units", self.objective_units or "—")]



def _appended(blocks, size: int, what: str, label, count: int) -> tuple:
    """``blocks`` (covering some of ``size`` entries) followed by ``count`` new entries
    under ``label`` (a LabelBlock, a kind, or None for unlabelled)."""
    if label is None:
        return tuple(blocks)
    if isinstance(label, str):
        label = LabelBlock(label, count, labels.prefix_for(label))
    if label.size != count:
        raise InvalidModelError(f"label {label.kind!r} covers {label.size} entries, "
                                f"{count} were added")
    return labels.padded(blocks, size, what) + (label,)


@dataclass(frozen=True, repr=False)
class Solution(Displayed):
    """A certified optimum of a :class:`LinearProgram`.

    ``x`` primal values, ``row_activity = A @ x``, ``row_duals`` (y) and ``reduced_costs``
    (z = c - A.T y) in HiGHS's convention, ``objective`` the primal objective (with offset),
    ``dual_objective`` recomputed from ``y``, ``z`` and the bounds, ``status`` the HiGHS model
    status text, ``solve_seconds`` the wall time of ``run()``.  Both objectives are in the
    LP's own (possibly scaled) units; ``objective_in_units`` is the objective in the units
    ``objective_units`` names (``LinearProgram.objective_in_units``: the lattice LP's mean
    error per score vector becomes the paper's total error).  ``repr`` and the notebook
    table show the status, both objectives (and ``objective_in_units`` when the LP is
    scaled), the gap and the infeasibilities, not the vectors.
    """

    #: Primal values, one per column.
    x: np.ndarray
    #: ``A @ x``.
    row_activity: np.ndarray
    #: Row multipliers ``y`` (HiGHS's sign convention).
    row_duals: np.ndarray
    #: ``z = c - A.T @ y``.
    reduced_costs: np.ndarray
    #: The primal objective, offset included.
    objective: float
    #: The dual objective recomputed from ``y``, ``z`` and the bounds.
    dual_objective: float
    #: The HiGHS model status text (``"Optimal"``).
    status: str
    #: The method asked of :func:`solve` (``"auto"``, ``"simplex"``, ``"ipm"``, ``"pdlp"``).
    method: str
    #: Wall seconds of the solve.
    solve_seconds: float
    #: Simplex or interior-point iterations.
    iterations: int
    #: Largest primal infeasibility HiGHS reports.
    max_primal_infeasibility: float
    #: Largest dual infeasibility HiGHS reports.
    max_dual_infeasibility: float
    #: The LP's ``objective_scale``: ``objective_scale * objective`` is in ``objective_units``.
    objective_scale: float = 1.0
    #: The LP's ``objective_units``: what the scaled objective measures, in words.
    objective_units: str = ""

    _display = ("status", "objective", "dual_objective", "gap", "max_primal_infeasibility",
                "max_dual_infeasibility", "method", "iterations", "solve_seconds")

    @property
    def gap(self) -> float:
        """Relative primal–dual gap ``|p - d| / max(1, |p|)``."""
        return abs(self.objective - self.dual_objective) / max(1.0, abs(self.objective))

    @property
    def objective_in_units(self) -> float:
        """``objective_scale * objective``: the objective in ``objective_units``."""
        return self.objective_scale * self.objective

    def _repr_items(self):
        """The key numbers; after ``objective``, ``objective_in_units`` when the LP is
        scaled (its ``objective`` is then not the number its units name)."""
        items = super()._repr_items()
        if self.objective_scale != 1.0:
            items.insert(2, ("objective_in_units", self.objective_in_units))
        return items

    def _display_items(self):
        units = [("objective_units", self.objective_units)] if self.objective_units else []
        return [*self._repr_items(), *units]


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


# Whether Highs.run() has been called in this process (see HighsModel.crossover).
_HIGHS_HAS_RUN = False


def _ensure_highs_has_run() -> None:
    """Solve a one-column LP in a fresh ``Highs`` unless some ``run()`` already happened in
    this process: ``Highs.crossover`` crashes the process before the first run (see
    :meth:`HighsModel.crossover`).  Kept until a highspy release fixes it."""
    global _HIGHS_HAS_RUN
    if _HIGHS_HAS_RUN:
        return
    import highspy

    h = new_highs()
    h.setOptionValue("output_flag", False)
    h.passModel(1, 0, 0, int(highspy.MatrixFormat.kColwise),
                int(highspy.ObjSense.kMinimize), 0.0, np.ones(1), np.zeros(1), np.ones(1),
                np.zeros(0), np.zeros(0), np.zeros(1, dtype=np.int32),
                np.zeros(0, dtype=np.int32), np.zeros(0), np.zeros(1, dtype=np.int32))
    h.run()
    _HIGHS_HAS_RUN = True


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

    @property
    def highs(self):
        """The ``highspy.Highs`` holding the model: set HiGHS options the wrapper does not
        expose here (``model.highs.setOptionValue(name, value)``) before :meth:`run`, which
        applies the usual checks to the result."""
        return self._highs

    def _fail(self, message: str, status: str) -> SolverError:
        lp = self.lp
        return SolverError(message, status=status, num_rows=lp.num_rows, num_cols=lp.num_cols,
                           num_nonzeros=lp.num_nonzeros, method=self.method)

    def set_options(self, options: Mapping[str, Any]) -> None:
        """Set HiGHS options verbatim (``setOptionValue``) for the next runs."""
        for key, value in options.items():
            self._highs.setOptionValue(key, value)

    def add_rows(self, matrix: sp.spmatrix, lower: np.ndarray, upper: np.ndarray,
                 label: LabelBlock | str | None = None) -> None:
        """Append rows ``lower <= matrix @ x <= upper`` (``matrix``: one row per new row,
        ``num_cols`` columns); :attr:`lp` follows (:meth:`LinearProgram.with_rows`, with
        ``label`` for the new rows)."""
        rows = sp.csr_matrix(matrix, dtype=float)
        rows.sort_indices()
        lp = self.lp.with_rows(rows, lower, upper, label)
        start = self.lp.num_rows
        self._highs.addRows(rows.shape[0], lp.row_lower[start:], lp.row_upper[start:], rows.nnz,
                            rows.indptr[:-1].astype(np.int32),
                            rows.indices.astype(np.int32), rows.data)
        self.lp = lp

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

    def crossover(self, x: np.ndarray, row_duals: np.ndarray) -> str:
        """Hand HiGHS a primal point ``x`` *and* row multipliers ``row_duals`` (HiGHS's sign
        convention; the row activities and reduced costs are computed from them) and run
        its crossover (IPX's), which leaves a basis in the model for the next :meth:`run`.
        Returns HiGHS's model status after the crossover (``"Optimal"`` when its basis is
        optimal; ``"Unknown"`` when it stopped with a basis that is not, which a run then
        repairs): nothing is certified here, the next run is.  Raises
        :class:`SolverError` when HiGHS rejects the call.

        The process must have run HiGHS once before: ``Highs.crossover`` crashes the
        process (SIGSEGV) when no ``Highs.run()`` has been called yet in it, whatever the
        point (measured with highspy 1.11.0, 1.15.1 and 1.16.0), and returns after any run;
        so a one-column LP is solved first in a separate ``Highs`` object when none has
        been (:func:`_ensure_highs_has_run`).  Primal values alone never gave an optimal
        basis, and ``setSolution`` followed by a crossover of ``getSolution()`` loses the
        duals, hence both here, in one ``HighsSolution``."""
        _ensure_highs_has_run()
        highspy, lp = self._highspy, self.lp
        x = np.asarray(x, dtype=float)
        y = np.asarray(row_duals, dtype=float)
        if x.shape != (lp.num_cols,) or y.shape != (lp.num_rows,):
            raise ValueError(f"x and row_duals must have {lp.num_cols} and {lp.num_rows} "
                             f"entries, got {x.shape} and {y.shape}")
        point = highspy.HighsSolution()
        point.col_value = x
        point.row_value = lp.matrix @ x
        point.col_dual = lp.cost - lp.matrix.T @ y
        point.row_dual = y
        point.value_valid = point.dual_valid = True
        if self._highs.crossover(point) == highspy.HighsStatus.kError:
            raise self._fail("HiGHS crossover failed", "crossover error")
        return self._highs.modelStatusToString(self._highs.getModelStatus())

    def set_basis(self, basic_columns: np.ndarray, basic_rows: np.ndarray) -> None:
        """Hand HiGHS a basis for the next :meth:`run`: the columns and rows marked True are
        basic, every other column and row is nonbasic at its lower bound (at its upper bound
        where the lower one is infinite).  HiGHS factorises it at the next run and, should it
        be singular, replaces dependent columns by row slacks itself."""
        highspy, lp = self._highspy, self.lp
        status = highspy.HighsBasisStatus

        def statuses(basic, lower):
            nonbasic = np.where(np.isfinite(lower), int(status.kLower), int(status.kUpper))
            codes = np.where(np.asarray(basic, dtype=bool), int(status.kBasic), nonbasic)
            return [status(int(code)) for code in codes]

        basis = highspy.HighsBasis()
        basis.col_status = statuses(basic_columns, lp.col_lower)
        basis.row_status = statuses(basic_rows, lp.row_lower)
        basis.valid = True
        if self._highs.setBasis(basis) == highspy.HighsStatus.kError:
            raise self._fail("HiGHS rejected the basis", "basis error")

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
        global _HIGHS_HAS_RUN
        _HIGHS_HAS_RUN = True
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
            objective_scale=lp.objective_scale,
            objective_units=lp.objective_units,
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


# -- MPS and LP files ---------------------------------------------------------------------

FILE_SUFFIXES = (".mps", ".lp")
_HIGHS_INFINITY = 1e20       # HiGHS reads a bound or cost of this size as infinite
_SMALLEST_ENTRY = 1e-12      # least small_matrix_value: HiGHS drops entries at or below it
_LARGEST_ENTRY = 1e15        # HiGHS's large_matrix_value: it refuses entries above it


def _file_highs():
    """A quiet ``Highs`` that keeps every matrix entry above 1e-12 (HiGHS's default drops
    entries up to 1e-9, e.g. ``e^-eps`` at eps = 21)."""
    h = new_highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("small_matrix_value", _SMALLEST_ENTRY)
    return h


def _check_writable(lp: LinearProgram, row_names: list[str], col_names: list[str]) -> None:
    """Refuse what HiGHS would write as a different LP (see :func:`write_lp`)."""
    free = np.flatnonzero(np.isneginf(lp.row_lower) & np.isposinf(lp.row_upper))
    if free.size:
        i = int(free[0])
        raise InvalidModelError(f"row {i} ({lp.row_label(i)}) has no finite bound; MPS and "
                                "LP readers drop such rows, so the file would hold another LP")
    for what, values in (("cost", lp.cost), ("row bound", lp.row_lower),
                         ("row bound", lp.row_upper), ("column bound", lp.col_lower),
                         ("column bound", lp.col_upper)):
        big = np.flatnonzero(np.isfinite(values) & (np.abs(values) >= _HIGHS_INFINITY))
        if big.size:
            raise InvalidModelError(f"a {what} of {values[big[0]]:g}: HiGHS reads magnitudes "
                                    f">= {_HIGHS_INFINITY:g} as infinite")
    entries = np.abs(lp.matrix.data)
    if ((entries > 0) & (entries <= _SMALLEST_ENTRY)).any() or (entries > _LARGEST_ENTRY).any():
        raise InvalidModelError(f"matrix entries must be 0 or of magnitude in "
                                f"({_SMALLEST_ENTRY:g}, {_LARGEST_ENTRY:g}]: HiGHS drops or "
                                "refuses the others")
    for what, names in (("row", row_names), ("column", col_names)):
        if len(set(names)) != len(names):
            raise InvalidModelError(f"{what} names are not unique")


def _check_destination(path: Path) -> None:
    """Refuse a path HiGHS could not write, saying why (HiGHS itself only reports that it
    failed): its folder is missing or not writable, or the path is a folder or a read-only
    file."""
    folder = path.parent
    if not folder.is_dir():
        raise FileNotFoundError(f"cannot write {str(path)!r}: the folder {str(folder)!r} "
                                "does not exist")
    if path.is_dir():
        raise IsADirectoryError(f"cannot write {str(path)!r}: it is a folder")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise PermissionError(f"cannot write {str(path)!r}: the folder {str(folder)!r} is "
                              "not writable")
    if path.exists() and not os.access(path, os.W_OK):
        raise PermissionError(f"cannot write {str(path)!r}: the file is not writable")


def write_lp(lp: LinearProgram, path) -> Path:
    """Write ``lp`` to ``path`` with HiGHS's ``writeModel``: free MPS for a ``.mps`` suffix,
    the CPLEX LP format for ``.lp``; rows and columns carry :meth:`LinearProgram.row_names`
    and :meth:`LinearProgram.column_names`.  Returns the path.

    MPS keeps every number to 17 significant digits, so :func:`read_lp` returns the same LP
    (:meth:`LinearProgram.same_model`).  The LP format is for people and other solvers:
    HiGHS writes a row bounded on both sides as two rows and leaves out a column that has
    no entry, no cost and default bounds, so reading it back gives an equivalent LP, not the
    same one.  Labels, metadata and the objective scale are not written.

    Refused with :class:`InvalidModelError` instead of being written as another LP: a row
    without a finite bound (readers drop it), a finite bound or cost of magnitude >= 1e20
    (HiGHS reads it as infinite), a nonzero matrix entry of magnitude <= 1e-12 or > 1e15
    (HiGHS drops or refuses it), and repeated names (only possible with names read from a
    file).  The file appears whole or not at all, and a link at ``path`` is replaced, not
    followed (:mod:`lp_models.atomic`).  A path that cannot be written is refused before
    HiGHS runs, with an ``OSError``
    saying why (``FileNotFoundError``: the folder does not exist; ``PermissionError``: the
    folder or file is not writable; ``IsADirectoryError``: the path is a folder).  Cost: one
    Python string per row and column and one pass of HiGHS over the model
    (``benchmarks/results/lp_files.md``: the reduced lattice LP at n = k = 8).
    """
    import highspy

    path = Path(path)
    if path.suffix.lower() not in FILE_SUFFIXES:
        raise InvalidModelError(f"path must end in {' or '.join(FILE_SUFFIXES)}; got "
                                f"{str(path)!r}")
    _check_destination(path)
    row_names, col_names = lp.row_names(), lp.column_names()
    _check_writable(lp, row_names, col_names)
    model = highspy.HighsLp()
    model.num_col_, model.num_row_ = lp.num_cols, lp.num_rows
    model.col_cost_, model.offset_ = lp.cost, lp.offset
    model.col_lower_, model.col_upper_ = lp.col_lower, lp.col_upper
    model.row_lower_, model.row_upper_ = lp.row_lower, lp.row_upper
    model.sense_ = (highspy.ObjSense.kMinimize if lp.sense == "min"
                    else highspy.ObjSense.kMaximize)
    matrix = model.a_matrix_
    matrix.format_ = highspy.MatrixFormat.kColwise
    matrix.num_col_, matrix.num_row_ = lp.num_cols, lp.num_rows
    matrix.start_ = lp.matrix.indptr.astype(np.int32)
    matrix.index_ = lp.matrix.indices.astype(np.int32)
    matrix.value_ = lp.matrix.data
    model.col_names_, model.row_names_ = col_names, row_names
    model.model_name_ = "".join(lp.name.split()) or "optmech"
    h = _file_highs()
    if h.passModel(model) == highspy.HighsStatus.kError:
        raise InvalidModelError("HiGHS rejected the model")
    if h.getNumNz() != np.count_nonzero(lp.matrix.data):   # guards the checks above
        raise InvalidModelError(f"HiGHS kept {h.getNumNz()} of the model's "
                                f"{np.count_nonzero(lp.matrix.data)} nonzero entries")
    with atomic_path(path) as staged:      # whole or not at all, never through a link
        if h.writeModel(str(staged)) == highspy.HighsStatus.kError:
            raise OSError(f"HiGHS could not write {str(path)!r}")
    return path


def read_lp(path) -> LinearProgram:
    """The LP in an MPS or LP file, read by HiGHS (``readModel``, then ``getLp``).

    Rows and columns are labelled (and named) by the file's names; the objective scale is 1
    and ``name`` is HiGHS's model name (the file's stem), since a file carries neither.
    An MPS file written by :func:`write_lp` gives back the same LP
    (:meth:`LinearProgram.same_model`).  HiGHS's MPS reader drops rows without a finite
    bound (MPS ``N`` rows other than the objective).  Raises :class:`InvalidModelError` if
    HiGHS cannot read the file or the model has integer variables, ``FileNotFoundError`` if
    there is no file.
    """
    import highspy

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no file {str(path)!r}")
    h = _file_highs()
    if h.readModel(str(path)) == highspy.HighsStatus.kError:
        raise InvalidModelError(f"HiGHS could not read {str(path)!r} as an MPS or LP file")
    model = h.getLp()
    if np.any(np.asarray(model.integrality_, dtype=int)):
        raise InvalidModelError(f"{str(path)!r} has integer variables; a LinearProgram is "
                                "continuous")
    nrow, ncol = model.num_row_, model.num_col_
    a = model.a_matrix_
    parts = (np.asarray(a.value_, dtype=float), np.asarray(a.index_, dtype=np.int64),
             np.asarray(a.start_, dtype=np.int64))
    matrix = (sp.csc_matrix(parts, shape=(nrow, ncol))
              if a.format_ == highspy.MatrixFormat.kColwise
              else sp.csr_matrix(parts, shape=(nrow, ncol)).tocsc())
    col_names, row_names = list(model.col_names_), list(model.row_names_)
    return LinearProgram(
        cost=np.asarray(model.col_cost_, dtype=float), matrix=matrix,
        row_lower=np.asarray(model.row_lower_, dtype=float),
        row_upper=np.asarray(model.row_upper_, dtype=float),
        col_lower=np.asarray(model.col_lower_, dtype=float),
        col_upper=np.asarray(model.col_upper_, dtype=float),
        sense="min" if model.sense_ == highspy.ObjSense.kMinimize else "max",
        offset=float(model.offset_),
        col_blocks=(LabelBlock("column", ncol, "c", names=col_names),) if col_names else (),
        row_blocks=(LabelBlock("row", nrow, "r", names=row_names),) if row_names else (),
        name=model.model_name_)
