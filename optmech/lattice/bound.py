"""Certified brackets ``L <= OPT <= U`` on the optimal regular mechanism's total error, at
sizes the exact solve cannot reach, and optimality-ratio brackets from them.

Permute-and-flip paper — R. McKenna and D. Sheldon, *Permute-and-Flip: A new mechanism for
differentially private selection*, NeurIPS 2020, arXiv:2010.12603 — Section 5 (Theorem 3,
Figure 2) and Appendix D.  Below the chain-dual threshold (e.g. eps = 0.5) the exact optimum
(:func:`optmech.lattice.optimum.solve_lattice`) is an LP solve that stops being practical at
n = k = 9; :func:`bound_lattice` brackets the same LP's optimum instead, by the first-order
method of :mod:`lp_models.lattice.bracket` (restarted PDHG on the chain structure; no LP
solver), to a relative width ``tol`` or until a time limit.  A bracket answers what a ratio
needs: for every mechanism ``M`` with total error ``T_M``,

    T_M / U  <=  optimality ratio of M  =  T_M / OPT  <=  T_M / L.

Certification here does not trust the method: ``L`` is recomputed from the returned row
multipliers by :func:`lp_models.lattice.certificates.lagrangian_bound` (a Lagrangian bound,
valid for *any* multipliers, rounding included), and ``U``'s point is checked against every
row of the LP — class rows, privacy rows and every monotonicity row of the regular LP —
by :func:`lp_models.lattice.certificates.primal_violation`; :meth:`LatticeBracket.mechanism`
is that point as a mechanism, whose realised privacy loss
:func:`optmech.lattice.optimum.realised_privacy_loss` measures independently of the LP.
``U`` is its value rounded upwards, so ``L <= U`` holds in floating point, not just up to
rounding; a ``tol`` below :data:`MIN_TOL` (1e-15) could never be certified and is refused.

``exact=True`` finishes a bracket that reached :data:`~optmech.lattice.optimum.FINISH_WIDTH`
by HiGHS's simplex from its PDHG point (:func:`optmech.lattice.optimum.finish_bracket`):
status ``"exact"`` with the certified optimum when its certified gap is at most
:data:`~optmech.lattice.optimum.EXACT_GAP` (1e-9, the simplex's own tolerance), else the
finish's certified ``[L, U]`` as a bracket (status ``"converged"``: a finish accepted at
1e-7 put n = k = 9's value 1.6e-8 above the proven optimum), or the bracket when HiGHS
fails or the time runs out.

Time.  ``time_limit`` bounds the whole call: PF's point is checked against every row first,
and what that took, twice over, is kept back for the final certificates; the loop and the
exact finish stop that much before the limit.  :func:`bound_with_ratios` (the ``optmech
lattice bound`` command) computes the mechanisms' exact errors before the bracket, within the
same limit (they cannot be cut short and would otherwise run after it: ``--n 100 --k 3
--eps 1 --time-limit 30`` took 139 s).  A limit below what building and certifying the
bracket takes (:data:`_SECONDS_PER_VARIABLE`, measured at n = k = 12) is refused up front.

Cost: measured on a shared 2-core machine (``benchmarks/results/lattice_bound.md``), eps = 0.5:
n = k = 8 to width 1e-4 in about 5 CPU s, n = k = 9 in about 25, n = k = 10 in about 150;
memory grows linearly with the number of variables.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from lp_models.display import Displayed, ResultList, Tabular, joined
from lp_models.lattice import class_weights, variable_costs
from lp_models.lattice.bracket import FEASIBILITY_TOLERANCE, bracket_lattice_lp
from lp_models.lattice.certificates import (
    LatticeDual,
    LatticeUnits,
    lagrangian_bound,
    objective_upper,
    primal_violation,
)
from lp_models.lattice.classes import LatticeClasses, variable_count
from lp_models.lattice.recurrences import pf_lattice_probabilities
from lp_models.program import SolverError
from optmech.lattice.inputs import check_lattice, lattice_table
from optmech.lattice.optimum import (
    EXACT_GAP,
    FINISH_WIDTH,
    GAP_TOLERANCE,
    LatticeSolutionMechanism,
    finish_bracket,
    lattice_lp_counts,
)
from optmech.lattice.ratios import (
    RATIO_MECHANISMS,
    add_own_ratios,
    mechanism_totals,
    split_mechanisms,
    sweep_blocks,
    sweep_cells,
)
from optmech.progress import progress
from optmech.tables import bracket_text
from optmech.validation import InvalidArgumentError, check_positive

__all__ = ["DEFAULT_TIME_LIMIT", "DEFAULT_TOL", "FINISH_WIDTH", "MIN_TOL", "LatticeBracket",
           "RatioBands", "bound_cell", "bound_lattice", "bound_sweep", "bound_with_ratios",
           "bracket_ratios", "check_bound_arguments"]

DEFAULT_TOL = 1e-4
# The narrowest relative width a bracket is asked for: its bounds are rounded outwards by a
# few units of 2^-52 = 2.2e-16 each (lagrangian_bound, objective_upper), so a target below
# this could never be certified.
MIN_TOL = 1e-15
# The final certificates (every row checked, the Lagrangian bound) get this many times what
# one check of every row took at the start; the loop and the exact finish stop that much
# before the time limit.
_RESERVE_SCANS = 2.0
# Least time limit per variable: building the class table, PF, the chain dual, the first
# PDHG model and the certificates, measured at n = k = 12 (9.1 million variables) in CPU
# seconds and rounded up.
_SECONDS_PER_VARIABLE = 2.5e-6
# Seconds a bracket runs at most unless told otherwise (the bracket reached by then is
# returned, certified, with status "time_limit").
DEFAULT_TIME_LIMIT = 600.0


@dataclass(frozen=True, eq=False, repr=False)
class LatticeBracket(Displayed):
    """A certified bracket ``lower <= OPT <= upper`` on the lattice LP's optimal total error
    (units of Δ = 1, summed over the weighted vectors, as ``LatticeOptimum.total_error``).

    ``relative_width = (upper - lower) / lower``; ``status`` is ``"converged"`` when it
    reached ``tol`` and ``"time_limit"`` otherwise (the bracket is certified either way).
    ``probabilities`` is the point achieving ``upper`` (per variable of ``classes``, as
    ``LatticeOptimum.probabilities``; it satisfies every row to ``max_violation``), and
    ``dual`` the row multipliers (normalised units: divide totals by ``objective_scale``)
    that :func:`lp_models.lattice.certificates.lagrangian_bound` turns into ``lower``.
    ``iterations`` counts PDHG steps, ``seconds`` the wall time including certification;
    ``history`` lists ``(seconds, iterations, lower, upper)`` whenever a bound improved.
    """

    #: Number of items.
    n: int
    #: Depth of the lattice.
    k: int
    #: The privacy parameter ε.
    epsilon: float
    #: ``"lattice"`` or ``"cube"``, as for :class:`~optmech.lattice.optimum.LatticeOptimum`.
    weighting: str
    #: ``"regular"`` or ``"paper"``.
    constraint_set: str
    #: The target relative width.
    tol: float
    #: Certified lower bound on the optimal total error (units of Δ).
    lower: float
    #: Total error of ``probabilities``, a point checked against every row: an upper bound.
    upper: float
    #: ``(upper - lower) / lower``.
    relative_width: float
    #: ``"converged"`` (width at most ``tol``), ``"time_limit"``, ``"exact"`` or
    #: ``"interrupted"`` (Ctrl-C; the ``KeyboardInterrupt`` carries it, see
    #: :func:`bound_lattice`).
    status: str
    #: PDHG steps taken.
    iterations: int
    #: Wall seconds, certification included.
    seconds: float
    #: Permute-and-flip's total error on the same lattice (its ratio is ``pf_total_error /
    #: [upper, lower]``).
    pf_total_error: float
    #: Largest row violation of ``probabilities``.
    max_violation: float
    #: Monotonicity rows the run worked with.
    rows_generated: int
    #: Columns of the LP.
    num_variables: int
    #: Rows of the full LP.
    num_constraints: int
    #: Divide totals by this to get the normalised units of ``dual``.
    objective_scale: float
    #: The point achieving ``upper``, per variable of ``classes``.
    probabilities: np.ndarray = field(repr=False)
    #: Row multipliers that certify ``lower``.
    dual: LatticeDual = field(repr=False)
    #: ``(seconds, iterations, lower, upper)`` whenever a bound improved.
    history: tuple = field(repr=False)
    #: The classes of score vectors.
    classes: LatticeClasses = field(repr=False)
    #: The lattice of the LP: always the 2Δ-lattice here.
    lattice: str = "2delta"                 # the bracket is for the 2Δ-lattice's LP

    def mechanism(self) -> LatticeSolutionMechanism:
        """The point achieving ``upper`` as a mechanism with a ``pmf`` on the lattice."""
        return LatticeSolutionMechanism(self)

    # repr and notebook table: the problem, the bracket, how it was reached
    _display = ("n", "k", "epsilon", "lower", "upper", "relative_width", "status")

    def _display_items(self):
        return [*self._repr_items(), ("tol", self.tol), ("iterations", self.iterations),
                ("seconds", self.seconds), ("pf_total_error", self.pf_total_error),
                ("max_violation", self.max_violation), ("num_variables", self.num_variables),
                ("num_constraints", self.num_constraints)]


def bound_lattice(n: int, k: int, epsilon: float, *, tol: float = DEFAULT_TOL,
                  time_limit: float | None = DEFAULT_TIME_LIMIT, weighting: str = "lattice",
                  constraints: str = "regular", exact: bool = False, log=None
                  ) -> LatticeBracket:
    """Certified bracket on the optimum of the lattice LP for ``n`` items, depth ``k`` and
    privacy ``epsilon`` (the LP of :func:`optmech.lattice.optimum.solve_lattice`, same
    ``weighting`` and ``constraints``), narrowed until its relative width is at most ``tol``
    (at least :data:`MIN_TOL`) or ``time_limit`` seconds (wall clock, for everything the call
    does; default :data:`DEFAULT_TIME_LIMIT`, None for no limit) have passed.  With
    ``exact``, a bracket that reached :data:`FINISH_WIDTH` is finished by HiGHS's simplex
    from its PDHG point (:func:`optmech.lattice.optimum.finish_bracket`) in the time left:
    status ``"exact"``, the certified optimum, when the certified gap is at most
    :data:`EXACT_GAP` (also when the bracket itself is that narrow); a looser finish is the
    bracket it certifies; if the finish fails or runs out of time, the certified bracket as
    without it.  The
    current bracket is reported through :func:`optmech.progress.progress` (a status line on
    stderr when the ``optmech`` command runs); ``log``: a callable receiving one line per
    improvement.  Ctrl-C (``KeyboardInterrupt``) while it narrows keeps what it reached:
    that bracket is certified as a finished one is (status ``"interrupted"``) and the
    ``KeyboardInterrupt`` goes on with it as its ``bracket`` attribute
    (:func:`bound_with_ratios` adds ``ratios``), so ``optmech lattice bound`` prints it
    before exiting with status 130.  Raises
    :class:`SolverError` if a certificate fails (a bug, never expected).
    """
    n, k, epsilon, tol, time_limit = check_bound_arguments(n, k, epsilon, tol, time_limit,
                                                           weighting, constraints)
    started = time.perf_counter()
    classes = lattice_table(n, k, "bound")
    return _bound(classes, epsilon, weighting, constraints, tol,
                  None if time_limit is None else started + time_limit, exact, log, started)


def check_bound_arguments(n, k, epsilon, tol, time_limit, weighting, constraints):
    """The arguments of :func:`bound_lattice` checked, a time limit below what building and
    certifying the bracket takes refused (``optmech lattice bound`` checks them before any
    work)."""
    n, k, epsilon = check_lattice(n, k, epsilon, weighting, constraints)
    tol = _check_tol(tol)
    if time_limit is not None:
        time_limit = check_positive(time_limit, "time_limit")
        least = _SECONDS_PER_VARIABLE * variable_count(n, k)
        if time_limit < least:
            raise InvalidArgumentError("time_limit", time_limit, f"at least {least:.3g} s "
                                       f"at n = {n}, k = {k} (building and certifying the "
                                       f"bracket of its {variable_count(n, k)} variables)")
    return n, k, epsilon, tol, time_limit


def _check_tol(tol) -> float:
    """``tol`` checked: a relative width in ``[MIN_TOL, 1)``."""
    tol = check_positive(tol, "tol")
    if not MIN_TOL <= tol < 1:
        raise InvalidArgumentError("tol", tol, f"a relative width in [{MIN_TOL:g}, 1) (a "
                                   "certified bracket is not narrower: its bounds are "
                                   "rounded outwards by a few units of 2^-52)")
    return tol


def _bound(classes, epsilon, weighting, constraints, tol, deadline, exact, log, started
           ) -> LatticeBracket:
    """:func:`bound_lattice` on a class table (arguments checked)."""
    regular = constraints == "regular"
    scale = float(class_weights(classes, weighting).sum())
    units = LatticeUnits(classes, epsilon)
    cost = variable_costs(classes, weighting)          # unnormalised: total error
    pf = pf_lattice_probabilities(classes, epsilon)
    # PF, the first upper bound, checked against every row now: what one check of every row
    # takes sets the time kept back for the final certificates
    scan = time.perf_counter()
    pf_violation = primal_violation(units, pf, regular)
    reserve = _RESERVE_SCANS * (time.perf_counter() - scan)
    loop_deadline = None if deadline is None else deadline - reserve
    n, k = classes.n, classes.k
    with progress(desc=f"lattice bound n={n} k={k} eps={epsilon:g}") as bar:
        def report(seconds, steps, lower, upper):
            text = _bracket_text(lower * scale, upper * scale)
            bar.set_postfix_str(text)
            if log is not None:
                log(f"{seconds:8.1f} s  {steps:7d} steps  {text}")

        try:
            run = bracket_lattice_lp(classes, epsilon, weighting, regular, tol=tol,
                                     deadline=loop_deadline, callback=report)
            interrupted = None
        except KeyboardInterrupt as stop:   # Ctrl-C: certify the bracket reached, then stop
            if getattr(stop, "bracket_run", None) is None:
                raise
            run, interrupted = stop.bracket_run, stop
        optimum = None
        if (exact and interrupted is None
                and GAP_TOLERANCE < run.relative_width <= FINISH_WIDTH
                and not _passed(loop_deadline)):
            bar.set_postfix_str("exact finish (HiGHS simplex from the PDHG point)")
            try:
                optimum, dual = finish_bracket(run, units, weighting, constraints,
                                               loop_deadline)
            except SolverError as error:
                if log is not None:
                    log(f"exact finish failed, the bracket stands: {error}")
    if optimum is not None:
        # the finish's certified [lower bound, value]: exact only at the simplex's own gap
        lower, upper, violation = optimum.lower_bound, optimum.total_error, \
            optimum.max_violation
        point, dual = optimum.probabilities, dual
        status = _status(True, (upper - lower) / lower, tol)
    else:
        point, dual = run.point, run.dual
        lower = lagrangian_bound(units, cost, _rescaled(dual, scale))
        violation = (pf_violation if np.array_equal(point, pf)
                     else primal_violation(units, point, regular))
        upper = objective_upper(cost, point)
        _check_certified(classes, regular, lower, upper, violation)
        status = ("interrupted" if interrupted is not None
                  else _status(exact, (upper - lower) / lower, tol))
    num_cols, num_rows, _ = lattice_lp_counts(classes, regular)
    bracket = LatticeBracket(
        n=n, k=k, epsilon=epsilon, weighting=weighting, constraint_set=constraints, tol=tol,
        lower=lower, upper=upper, relative_width=(upper - lower) / lower, status=status,
        iterations=run.steps, seconds=time.perf_counter() - started,
        pf_total_error=float(cost @ pf), max_violation=violation,
        rows_generated=run.rows_generated if optimum is None else optimum.rows_generated,
        num_variables=num_cols, num_constraints=num_rows, objective_scale=scale,
        probabilities=point, dual=dual, history=tuple(run.history), classes=classes)
    if interrupted is not None:
        interrupted.bracket = bracket
        raise interrupted
    return bracket


def _status(exact: bool, width: float, tol: float) -> str:
    """``"exact"`` (asked for, and certified to :data:`EXACT_GAP`), ``"converged"`` (to
    ``tol``) or ``"time_limit"``."""
    if exact and width <= EXACT_GAP:
        return "exact"
    return "converged" if width <= tol else "time_limit"


def _passed(deadline: float | None) -> bool:
    return deadline is not None and time.perf_counter() >= deadline


def _bracket_text(lower: float, upper: float) -> str:
    """The current bracket as progress reports show it."""
    width = (upper - lower) / lower if lower > 0 else math.inf
    low, high = bracket_text(lower, upper)
    return f"lower {low}, upper {high}, width {width:.2e}"


def _check_certified(classes, regular, lower, upper, violation) -> None:
    """:class:`SolverError` unless ``[lower, upper]`` is a finite positive bracket of a point
    satisfying every row (a bug, never expected)."""
    if not (violation <= FEASIBILITY_TOLERANCE and math.isfinite(lower)
            and math.isfinite(upper) and 0 < lower <= upper):
        num_cols, num_rows, nonzeros = lattice_lp_counts(classes, regular)
        raise SolverError(f"bracket failed its certificate: lower {lower!r}, upper {upper!r}, "
                          f"violation {violation!r}", status="certificate failed",
                          num_rows=num_rows, num_cols=num_cols, num_nonzeros=nonzeros,
                          method="pdhg")


def _rescaled(dual: LatticeDual, scale: float) -> LatticeDual:
    """The multipliers for the unnormalised cost (every multiplier times ``scale``)."""
    return LatticeDual(y=dual.y * scale, mu=dual.mu * scale, pairs=dual.pairs,
                       nu=dual.nu * scale)


def bracket_ratios(bracket: LatticeBracket, mechanisms=RATIO_MECHANISMS
                   ) -> dict[str, tuple[float, float]]:
    """``{key: (T_M / upper, T_M / lower)}``: the optimality ratio of each mechanism lies in
    this interval, ``T_M`` being its exact total error on the bracket's lattice and
    weighting.  ``mechanisms`` as for :func:`optmech.lattice.ratios.optimality_ratios`:
    names (``"pf"``, ``"em"``, ``"rnm_laplace"``, ...), or your own mechanisms at the
    bracket's epsilon (a :class:`~optmech.selection.mechanisms.PmfMechanism`, an object with
    ``pmf(scores)`` or a function of the scores), keyed by each name or mechanism's ``name``,
    or a dict ``{label: mechanism}`` keyed by its labels."""
    return _ratio_brackets(mechanism_totals(mechanisms, bracket.epsilon, bracket.n,
                                            bracket.k, bracket.weighting, bracket.classes),
                           bracket)


def _ratio_brackets(totals: dict[str, float], bracket: LatticeBracket
                    ) -> dict[str, tuple[float, float]]:
    return {key: (value / bracket.upper, value / bracket.lower)
            for key, value in totals.items()}


def bound_with_ratios(n: int, k: int, epsilon: float, mechanisms=RATIO_MECHANISMS, *,
                      tol: float = DEFAULT_TOL,
                      time_limit: float | None = DEFAULT_TIME_LIMIT,
                      weighting: str = "lattice", constraints: str = "regular",
                      exact: bool = False, log=None
                      ) -> tuple[LatticeBracket, dict[str, tuple[float, float]]]:
    """:func:`bound_lattice` and :func:`bracket_ratios` within one ``time_limit`` (what
    ``optmech lattice bound`` runs): the mechanisms' exact total errors first, since they
    cannot be cut short (:class:`TimeoutError` when the time limit passes before they are
    done), then the bracket in the time left."""
    n, k, epsilon, tol, time_limit = check_bound_arguments(n, k, epsilon, tol, time_limit,
                                                           weighting, constraints)
    started = time.perf_counter()
    deadline = None if time_limit is None else started + time_limit
    classes = lattice_table(n, k, "bound")
    totals = mechanism_totals(mechanisms, epsilon, n, k, weighting, classes, deadline)
    try:
        bracket = _bound(classes, epsilon, weighting, constraints, tol, deadline, exact, log,
                         started)
    except KeyboardInterrupt as stop:
        if getattr(stop, "bracket", None) is not None:
            stop.ratios = _ratio_brackets(totals, stop.bracket)
        raise
    return bracket, _ratio_brackets(totals, bracket)


@dataclass(frozen=True, eq=False, repr=False)
class RatioBands(Displayed, Tabular):
    """Certified optimality-ratio brackets of several mechanisms over a grid of epsilon for
    one ``(n, k)``: ``ratios[name]`` has shape ``(len(epsilons), 2)``, row ``i`` the bracket
    ``[lo, hi]`` at ``epsilons[i]``; ``lower``/``upper`` bracket the optimal total error,
    ``status`` says per epsilon whether ``tol`` was reached."""

    #: Number of items.
    n: int
    #: Depth of the lattice.
    k: int
    #: The grid of ε.
    epsilons: np.ndarray
    #: Lower bound on the optimal total error at each ε.
    lower: np.ndarray
    #: Upper bound on the optimal total error at each ε.
    upper: np.ndarray
    #: Mechanism name -> array of shape ``(len(epsilons), 2)``: the ratio bracket ``[lo, hi]``
    #: at each ε.
    ratios: dict[str, np.ndarray]
    #: ``"converged"`` or ``"time_limit"`` at each ε.
    status: tuple[str, ...]

    _display = ("n", "k", "epsilons", "lower", "upper", "ratios", "status")

    def records(self) -> list[dict]:
        """One row per epsilon: ``n``, ``k``, ``epsilon``, ``lower``, ``upper``, ``status``
        and ``<mechanism>_lo``, ``<mechanism>_hi`` (its ratio bracket) per mechanism."""
        return [joined({"n": self.n, "k": self.k, "epsilon": float(e),
                        "lower": float(self.lower[i]), "upper": float(self.upper[i]),
                        "status": self.status[i]},
                       {f"{name}_{end}": float(pairs[i, j]) for name, pairs in self.ratios.items()
                        for j, end in enumerate(("lo", "hi"))})
                for i, e in enumerate(self.epsilons)]


def bound_cell(n: int, k: int, epsilon: float, mechanisms: list[str], weighting: str,
               constraints: str, tol: float, time_limit: float | None,
               exact: bool = False) -> dict:
    """One sweep cell: the bracket and the ratio brackets at one ``(n, k, epsilon)``
    (:func:`bound_with_ratios`), as plain values (for :func:`optmech.sweep.run_sweep`:
    cache, process pool, Dask)."""
    bracket, ratios = bound_with_ratios(n, k, epsilon, mechanisms, tol=tol,
                                        time_limit=time_limit, weighting=weighting,
                                        constraints=constraints, exact=exact)
    return {"lower": bracket.lower, "upper": bracket.upper, "status": bracket.status,
            "ratios": {name: [float(lo), float(hi)] for name, (lo, hi) in ratios.items()}}


def bound_sweep(ns, ks, epsilons, mechanisms=("pf", "em"), *, tol: float = DEFAULT_TOL,
                time_limit: float | None = DEFAULT_TIME_LIMIT, weighting: str = "lattice",
                constraints: str = "regular", exact: bool = False, workers: int = 1,
                dask_scheduler=None, cache_dir=None,
                show_progress: bool | None = None) -> ResultList:
    """:func:`optmech.lattice.ratios.ratio_sweep` with a certified bracket per point instead
    of the exact optimum (:func:`bound_with_ratios` per point: ``time_limit`` per point,
    default :data:`DEFAULT_TIME_LIMIT`; ``exact`` as for :func:`bound_lattice`): one
    :class:`RatioBands` per ``(n, k)`` in ``ns x ks``, in a
    :class:`~lp_models.display.ResultList` (``to_frame()``: one row per point).
    ``mechanisms`` as for :func:`~optmech.lattice.ratios.ratio_sweep`: built-in names
    (bracketed inside the cells), or your own mechanisms as functions ``epsilon ->
    mechanism``, in a list or a dict ``{label: name or function}``, whose ratio brackets are
    computed in this process from each cell's certified ``[lower, upper]``."""
    from optmech.sweep import run_sweep

    tol = _check_tol(tol)
    if time_limit is not None:
        time_limit = check_positive(time_limit, "time_limit")
    names, factories = split_mechanisms(mechanisms)
    cells, eps = sweep_cells(ns, ks, epsilons, sorted(set(names.values())), weighting,
                             constraints, tol=tol, time_limit=time_limit, exact=exact)
    results = run_sweep(bound_cell, cells, workers=workers, dask_scheduler=dask_scheduler,
                        cache_dir=cache_dir, desc="lattice ratio brackets",
                        show_progress=show_progress)
    add_own_ratios(cells, results, names, factories, weighting,
                   lambda value, result: [value / result["upper"], value / result["lower"]])
    return ResultList(RatioBands(n=cell["n"], k=cell["k"], epsilons=eps.copy(),
                                 lower=np.array([r["lower"] for r in block]),
                                 upper=np.array([r["upper"] for r in block]),
                                 ratios={m: np.array([r["ratios"][m] for r in block])
                                         for m in [*names, *factories]},
                                 status=tuple(r["status"] for r in block))
                      for cell, block in sweep_blocks(cells, results, eps.size))
