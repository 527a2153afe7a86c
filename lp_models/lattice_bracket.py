"""A certified bracket ``L <= OPT <= U`` on the reduced lattice LP by restarted PDHG, with no
LP solver: the method behind :func:`optmech.lattice.bound.bound_lattice`.

Permute-and-flip paper, Section 5 and Appendix D; the LP is
:func:`lp_models.lattice.reduced_lattice_lp` (normalised cost).  Below the chain-dual
threshold the exact optimum needs an LP solve whose simplex makes one basis swap per pivot
(about 15,000 swaps from PF at n = k = 10, eps = 0.5); a first-order method makes them all at
once, and its iterates are turned into certified bounds:

* **Lower bound.**  :class:`~lp_models.pdhg.RestartedPDHG` runs on the *restricted* LP: class
  rows, privacy rows and the monotonicity rows generated so far (seeded with the block that
  binds most, as in :mod:`optmech.lattice.solve_loop`).  From time to time its class and
  monotonicity multipliers are made dual feasible by the chain sweep of
  :func:`lp_models.lattice_dual_repair.repair_dual`, and
  :func:`lp_models.lattice_certificates.lagrangian_bound` — valid for any multipliers, and
  for the full regular LP because a missing row has multiplier 0 — gives ``L``.
* **Upper bound.**  PF is feasible, so ``U <= PF's value`` from the start.  From time to
  time the current primal iterate is *polished* (PDLP's feasibility polishing): PDHG on the
  same rows with cost 0, started at the iterate, for 200 steps; every monotonicity row is
  then checked block by block, the violated ones join the restricted LP and the polish
  goes on (up to four rounds); finally :func:`lp_models.lattice_certificates.repair_primal`
  renormalises each class and mixes with the strictly feasible ``(uniform + PF) / 2`` just
  enough to satisfy every row, and :func:`lp_models.lattice_certificates.primal_violation`
  checks the result against every row.  ``U`` is its value when no row is violated by more
  than 1e-12.
* **Row generation.**  When the primal iterate violates a monotonicity row that is not in the
  restricted LP by more than it violates the rows it has, the row is added and PDHG starts
  again on the enlarged LP from its iterate (new rows get multiplier 0).

Rows are generated and points polished only once the iterate satisfies the restricted LP's
rows to 1e-3 (earlier iterates would add rows that never bind).  The work is scheduled in
PDHG steps, so that a run is reproducible: a bound evaluation or a scan of every
monotonicity row counts as 20 steps (measured 13 to 25 at n = k = 9 to 12), a polish as
its own steps plus its scans, and each kind of work is due again when it has taken a fixed
share of the steps since (bounds 10 %, row generation 10 %, polishing 25 %).  The loop stops
when ``(U - L) / L <= tol`` or at the deadline; every bound it returns is certified, the
bracket is just wider when time runs out.  Measured choices (eps = 0.5, n = k = 8 and 9):
PDHG without its averaged iterate needed 3 to 4 times the steps for the same lower bound;
keeping the old scales when rows are added (instead of rescaling the enlarged LP) 2.7 times
the time to width 1e-4; the shares and the number of Ruiz passes matter by less than the
run-to-run spread of +-15 %.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from lp_models.lattice import monotonicity_pair_blocks, reduced_lattice_lp
from lp_models.lattice_certificates import (
    LatticeDual,
    lagrangian_bound,
    primal_violation,
    repair_primal,
)
from lp_models.lattice_classes import LatticeClasses
from lp_models.lattice_dual_repair import repair_dual
from lp_models.lattice_recurrences import chain_dual, pf_lattice_probabilities
from lp_models.lattice_units import LatticeUnits
from lp_models.pdhg import RestartedPDHG

__all__ = ["BracketRun", "bracket_lattice_lp"]

# A point counts as exactly feasible when no row is violated by more than this (absolute;
# the values are probabilities).  Repaired points have violations of order 1e-16.
FEASIBILITY_TOLERANCE = 1e-12
# Monotonicity rows violated by more than this (relative to x[a]) are generated.
_GENERATE_TOLERANCE = 1e-9
# Rows are generated and points polished only from iterates that satisfy the restricted
# LP's rows to this (absolute) level: the first iterates violate them by up to 0.4 and would
# add tens of thousands of rows that never bind.
_SANE_VIOLATION = 1e-3
_BOUND_SHARE, _GENERATE_SHARE, _POLISH_SHARE = 0.1, 0.1, 0.25
_POLISH_STEPS, _POLISH_ROUNDS = 200, 4
_SCAN_COST, _CHUNK = 20, 10


@dataclass
class BracketRun:
    """What :func:`bracket_lattice_lp` found, in the LP's normalised units.

    ``lower`` and ``dual``: the best lower bound and the multipliers it was computed from
    (recompute it with :func:`lagrangian_bound`); ``upper`` and ``point``: the best upper
    bound and a point satisfying every row (PF when nothing better was found); ``steps``:
    PDHG steps (main problem and polishing); ``history``: ``(seconds, steps, lower,
    upper)`` whenever a bound improved; ``rows_generated``: the monotonicity rows in the
    restricted LP at the end.
    """

    lower: float
    dual: LatticeDual
    upper: float
    point: np.ndarray
    steps: int
    seconds: float
    converged: bool
    rows_generated: int
    history: list = field(default_factory=list)

    @property
    def relative_width(self) -> float:
        return (self.upper - self.lower) / self.lower if self.lower > 0 else math.inf


def _seed_pairs(classes: LatticeClasses, regular: bool) -> tuple[np.ndarray, np.ndarray]:
    """The monotonicity block "raise another item from level 1 to the top" (the one that
    binds most at the optimum), or no rows for the paper's constraint set."""
    if not regular:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty
    blocks = monotonicity_pair_blocks(classes)
    next(blocks), next(blocks)
    return next(blocks)


def _violated_rows(units: LatticeUnits, x: np.ndarray, pairs):
    """Monotonicity rows ``x[a] >= x[b]`` not among ``pairs`` that ``x`` violates by more
    than it violates the rows it is meant to satisfy (class, privacy and ``pairs`` rows: an
    iterate's violations below that level are noise of the method, not information) and by
    more than a relative ``_GENERATE_TOLERANCE``."""
    classes = units.classes
    a, b = pairs
    noise = max(primal_violation(units, x, regular=False),
                float((x[b] - x[a]).max(initial=0.0)))
    firsts, seconds = [], []
    for first, second in monotonicity_pair_blocks(classes):
        excess = x[second] - x[first]
        bad = (excess > noise) & (excess > _GENERATE_TOLERANCE * np.abs(x[first]))
        firsts.append(first[bad])
        seconds.append(second[bad])
    first, second = np.concatenate(firsts), np.concatenate(seconds)
    present = np.sort(a * classes.num_variables + b)
    if present.size == 0:
        return first, second
    keys = first * classes.num_variables + second
    new = present[np.minimum(np.searchsorted(present, keys), present.size - 1)] != keys
    return first[new], second[new]


class _Bracketing:
    """State of one bracketing run (see the module docstring)."""

    def __init__(self, classes, epsilon, weighting, regular, log):
        self.classes, self.epsilon, self.regular = classes, epsilon, regular
        self.weighting, self.log = weighting, log
        self.units = LatticeUnits(classes, epsilon)
        self.pf = pf_lattice_probabilities(classes, epsilon)
        self.anchor = 0.5 * (self.pf + 1.0 / classes.n)
        self.pairs = _seed_pairs(classes, regular)
        lp = self._restricted_lp(self.pairs)
        self.cost = lp.cost
        self.num_class_rows = classes.num_classes
        self.num_privacy_rows = lp.metadata["num_privacy_rows"]
        self.upper, self.point = float(self.cost @ self.pf), self.pf
        lam, mu = chain_dual(classes, epsilon, self.cost)      # the dual of PF's basis
        self.lower, self.dual = -math.inf, None
        self._offer_dual(lam, np.zeros(self.pairs[0].size))
        y0 = np.concatenate([lam, np.maximum(mu[lp.metadata["privacy_source"]], 0.0),
                             np.zeros(self.pairs[0].size)])
        self.solver = RestartedPDHG(lp, self.pf, y0)
        self.steps_before = 0          # main steps of the solvers replaced so far
        self.polish_steps = 0

    @property
    def main_steps(self) -> int:
        """PDHG steps on the restricted LP so far."""
        return self.steps_before + self.solver.iterations

    def _restricted_lp(self, pairs):
        c = self.classes
        return reduced_lattice_lp(c.n, c.k, self.epsilon, self.weighting, "paper", classes=c,
                                  monotone_pairs=pairs)

    def _offer_dual(self, y, nu) -> None:
        dual = repair_dual(self.units, self.cost, y, self.pairs, nu)
        value = lagrangian_bound(self.units, self.cost, dual)
        if value > self.lower:
            self.lower, self.dual = value, dual

    def _offer_point(self, x) -> None:
        point = repair_primal(self.units, x, self.anchor, self.regular)
        if point is not None and primal_violation(self.units, point,
                                                  self.regular) <= FEASIBILITY_TOLERANCE:
            value = float(self.cost @ point)
            if value < self.upper:
                self.upper, self.point = value, point

    def bound(self) -> None:
        """``L`` from the current multipliers."""
        y = self.solver.y
        start = self.num_class_rows + self.num_privacy_rows
        self._offer_dual(y[:self.num_class_rows], y[start:])

    def polish(self, deadline: float | None) -> int:
        """``U`` from the current primal iterate (see the module docstring); monotonicity
        rows the polished point violates join the restricted LP.  Returns its cost in
        steps."""
        x, cost = self.solver.x, 0
        for round_index in range(_POLISH_ROUNDS):
            feasibility = RestartedPDHG(self.solver.problem.without_cost(), x)
            feasibility.omega, feasibility.eta = self.solver.omega, self.solver.eta
            feasibility.iterate(_POLISH_STEPS)
            x = feasibility.x
            self.polish_steps += feasibility.iterations
            del feasibility
            cost += _POLISH_STEPS + _SCAN_COST
            last = round_index == _POLISH_ROUNDS - 1 or _passed(deadline)
            if not self.regular or last or not self._add_violated(x):
                break
        self._offer_point(x)
        return cost + _SCAN_COST

    def noise(self) -> float:
        """How far the primal iterate is from satisfying the restricted LP's rows."""
        x = self.solver.x
        a, b = self.pairs
        return max(primal_violation(self.units, x, regular=False),
                   float((x[b] - x[a]).max(initial=0.0)))

    def generate(self) -> bool:
        """Add the monotonicity rows the primal iterate violates; True if any."""
        return self._add_violated(self.solver.x)

    def _add_violated(self, x) -> bool:
        a, b = _violated_rows(self.units, x, self.pairs)
        if a.size == 0:
            return False
        self.pairs = _joined(self.pairs, (a, b))
        self._restart_main()
        return True

    def _restart_main(self) -> None:
        """PDHG on the enlarged restricted LP (rescaled from scratch: measured at n = k = 9,
        keeping the old scales for the old rows and scaling only the new ones took 2.7
        times as long to width 1e-4), from the current iterate (new rows get multiplier 0)
        with the current step size and primal weight; the old solver is released first (at
        n = k = 12 it holds some 2 GB)."""
        x, y = self.solver.x, self.solver.y
        omega, eta = self.solver.omega, self.solver.eta
        self.steps_before += self.solver.iterations
        self.solver = None
        lp = self._restricted_lp(self.pairs)
        y = np.concatenate([y, np.zeros(lp.num_rows - y.size)])
        self.solver = RestartedPDHG(lp, x, y)
        self.solver.omega, self.solver.eta = omega, eta


def _passed(deadline: float | None) -> bool:
    return deadline is not None and time.perf_counter() >= deadline


def _joined(pairs, more):
    return np.concatenate([pairs[0], more[0]]), np.concatenate([pairs[1], more[1]])


def bracket_lattice_lp(classes: LatticeClasses, epsilon: float, weighting: str = "lattice",
                       regular: bool = True, *, tol: float = 1e-4,
                       deadline: float | None = None,
                       log: Callable[[str], None] | None = None) -> BracketRun:
    """Bracket the optimum of the reduced lattice LP (normalised cost) to relative width
    ``tol`` or until ``time.perf_counter()`` passes ``deadline``; see the module docstring.
    Arguments are assumed checked by the caller (:func:`optmech.lattice.bound.bound_lattice`).
    """
    started = time.perf_counter()
    run = _Bracketing(classes, epsilon, weighting, regular, log)
    history = [(time.perf_counter() - started, 0, run.lower, run.upper)]
    due = {"bound": 0, "generate": 0, "polish": 0}      # main steps when next due
    share = {"bound": _BOUND_SHARE, "generate": _GENERATE_SHARE, "polish": _POLISH_SHARE}

    def width():
        return (run.upper - run.lower) / run.lower if run.lower > 0 else math.inf

    def account(name, cost):
        due[name] = run.main_steps + int(cost * (1 / share[name] - 1))

    while width() > tol and not _passed(deadline):
        run.solver.iterate(_CHUNK)
        before = (run.lower, run.upper)
        if run.main_steps >= due["bound"]:
            run.bound()
            account("bound", _SCAN_COST)
        generate = regular and run.main_steps >= due["generate"]
        polish = run.main_steps >= due["polish"]
        if (generate or polish) and run.noise() <= _SANE_VIOLATION:
            if generate:
                run.generate()
                account("generate", _SCAN_COST)
            if polish:
                account("polish", run.polish(deadline))
        if (run.lower, run.upper) != before:
            steps = run.main_steps + run.polish_steps
            history.append((time.perf_counter() - started, steps, run.lower, run.upper))
            if log is not None:
                log(f"{history[-1][0]:8.1f} s  {steps:7d} steps  L {run.lower:.10g}  "
                    f"U {run.upper:.10g}  width {width():.2e}  rows {run.pairs[0].size}")
    return BracketRun(lower=run.lower, dual=run.dual, upper=run.upper, point=run.point,
                      steps=run.main_steps + run.polish_steps,
                      seconds=time.perf_counter() - started,
                      converged=width() <= tol, rows_generated=int(run.pairs[0].size),
                      history=history)
