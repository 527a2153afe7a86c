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

Cost: measured on a shared 2-core machine (``benchmarks/results/lattice_bound.md``), eps = 0.5:
n = k = 8 to width 1e-4 in about 8 s, n = k = 9 in about 40 s, n = k = 10 in about 3 minutes
of CPU time; memory grows linearly with the number of variables.
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
    primal_violation,
)
from lp_models.lattice.classes import LatticeClasses
from lp_models.lattice.recurrences import pf_lattice_probabilities
from lp_models.program import SolverError
from optmech.lattice.inputs import check_lattice, lattice_table
from optmech.lattice.optimum import (
    LatticeSolutionMechanism,
    lattice_lp_counts,
    lattice_lp_size,
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
from optmech.validation import InvalidArgumentError, check_positive

__all__ = ["DEFAULT_TIME_LIMIT", "DEFAULT_TOL", "LatticeBracket", "RatioBands", "bound_cell",
           "bound_lattice", "bound_sweep", "bracket_ratios"]

DEFAULT_TOL = 1e-4
# Seconds a bracket runs at most unless told otherwise (the bracket reached by then is
# returned, certified, with status "time_limit").
DEFAULT_TIME_LIMIT = 600.0
_UNIT = 2.0 ** -52


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
    #: ``"converged"`` (width at most ``tol``) or ``"time_limit"``.
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
                  constraints: str = "regular", log=None) -> LatticeBracket:
    """Certified bracket on the optimum of the lattice LP for ``n`` items, depth ``k`` and
    privacy ``epsilon`` (the LP of :func:`optmech.lattice.optimum.solve_lattice`, same
    ``weighting`` and ``constraints``), narrowed until its relative width is at most ``tol``
    or ``time_limit`` seconds (wall clock; default :data:`DEFAULT_TIME_LIMIT`, None for no
    limit) have passed.  The current bracket is reported through
    :func:`optmech.progress.progress` (a status line on stderr when the ``optmech`` command
    runs); ``log``: a callable receiving one line per improvement.  Raises
    :class:`SolverError` if a certificate fails (a bug, never expected).
    """
    n, k, epsilon = check_lattice(n, k, epsilon, weighting, constraints)
    tol = check_positive(tol, "tol")
    if not tol < 1:
        raise InvalidArgumentError("tol", tol, "a relative width in (0, 1)")
    if time_limit is not None:
        time_limit = check_positive(time_limit, "time_limit")
    started = time.perf_counter()
    classes = lattice_table(n, k, "bound")
    regular = constraints == "regular"
    deadline = None if time_limit is None else started + time_limit
    scale = float(class_weights(classes, weighting).sum())
    with progress(desc=f"lattice bound n={n} k={k} eps={epsilon:g}") as bar:
        def report(seconds, steps, lower, upper):
            text = _bracket_text(lower * scale, upper * scale)
            bar.set_postfix_str(text)
            if log is not None:
                log(f"{seconds:8.1f} s  {steps:7d} steps  {text}")

        run = bracket_lattice_lp(classes, epsilon, weighting, regular, tol=tol,
                                 deadline=deadline, callback=report)
    lower, upper, violation = _certify(classes, epsilon, weighting, regular, run, scale)
    width = (upper - lower) / lower
    _, num_rows = lattice_lp_size(n, k, constraints, classes=classes)
    pf_total = float(variable_costs(classes, weighting)
                     @ pf_lattice_probabilities(classes, epsilon))
    return LatticeBracket(
        n=n, k=k, epsilon=epsilon, weighting=weighting, constraint_set=constraints, tol=tol,
        lower=lower, upper=upper, relative_width=width,
        status="converged" if width <= tol else "time_limit", iterations=run.steps,
        seconds=time.perf_counter() - started, pf_total_error=pf_total,
        max_violation=violation, rows_generated=run.rows_generated,
        num_variables=classes.num_variables, num_constraints=num_rows, objective_scale=scale,
        probabilities=run.point, dual=run.dual, history=tuple(run.history), classes=classes)


def _bracket_text(lower: float, upper: float) -> str:
    """The current bracket as progress reports show it."""
    width = (upper - lower) / lower if lower > 0 else math.inf
    return f"lower {lower:.8g}, upper {upper:.8g}, width {width:.2e}"


def _certify(classes, epsilon, weighting, regular, run, scale) -> tuple[float, float, float]:
    """``(lower, upper, max violation)`` recomputed from the run's dual and primal points
    (total-error units), independently of how they were found."""
    units = LatticeUnits(classes, epsilon)
    cost = variable_costs(classes, weighting)          # unnormalised: total error
    lower = lagrangian_bound(units, cost, _rescaled(run.dual, scale))
    violation = primal_violation(units, run.point, regular)
    products = cost * run.point
    upper = float(products.sum()) * (1 + products.size * _UNIT)      # rounding, upwards
    if not (violation <= FEASIBILITY_TOLERANCE and math.isfinite(lower)
            and math.isfinite(upper) and 0 < lower <= upper):
        num_cols, num_rows, nonzeros = lattice_lp_counts(classes, regular)
        raise SolverError(f"bracket failed its certificate: lower {lower!r}, upper {upper!r}, "
                          f"violation {violation!r}", status="certificate failed",
                          num_rows=num_rows, num_cols=num_cols, num_nonzeros=nonzeros,
                          method="pdhg")
    return lower, upper, violation


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
    return {key: (value / bracket.upper, value / bracket.lower)
            for key, value in mechanism_totals(mechanisms, bracket.epsilon, bracket.n,
                                               bracket.k, bracket.weighting,
                                               bracket.classes).items()}


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
               constraints: str, tol: float, time_limit: float | None) -> dict:
    """One sweep cell: the bracket and the ratio brackets at one ``(n, k, epsilon)``, as
    plain values (for :func:`optmech.sweep.run_sweep`: cache, process pool, Dask)."""
    bracket = bound_lattice(n, k, epsilon, tol=tol, time_limit=time_limit,
                            weighting=weighting, constraints=constraints)
    return {"lower": bracket.lower, "upper": bracket.upper, "status": bracket.status,
            "ratios": {name: [float(lo), float(hi)]
                       for name, (lo, hi) in bracket_ratios(bracket, mechanisms).items()}}


def bound_sweep(ns, ks, epsilons, mechanisms=("pf", "em"), *, tol: float = DEFAULT_TOL,
                time_limit: float | None = DEFAULT_TIME_LIMIT, weighting: str = "lattice",
                constraints: str = "regular", workers: int = 1, dask_scheduler=None,
                cache_dir=None, show_progress: bool | None = None) -> ResultList:
    """:func:`optmech.lattice.ratios.ratio_sweep` with a certified bracket per point instead
    of the exact optimum (``time_limit`` per point, default :data:`DEFAULT_TIME_LIMIT`): one
    :class:`RatioBands` per ``(n, k)`` in ``ns x ks``, in a
    :class:`~lp_models.display.ResultList` (``to_frame()``: one row per point).
    ``mechanisms`` as for :func:`~optmech.lattice.ratios.ratio_sweep`: built-in names
    (bracketed inside the cells), or your own mechanisms as functions ``epsilon ->
    mechanism``, in a list or a dict ``{label: name or function}``, whose ratio brackets are
    computed in this process from each cell's certified ``[lower, upper]``."""
    from optmech.sweep import run_sweep

    tol = check_positive(tol, "tol")
    if time_limit is not None:
        time_limit = check_positive(time_limit, "time_limit")
    names, factories = split_mechanisms(mechanisms)
    cells, eps = sweep_cells(ns, ks, epsilons, sorted(set(names.values())), weighting,
                             constraints, tol=tol, time_limit=time_limit)
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
