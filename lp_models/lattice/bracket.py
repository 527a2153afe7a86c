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
  :func:`lp_models.lattice.dual_repair.repair_dual`, and
  :func:`lp_models.lattice.certificates.lagrangian_bound` — valid for any multipliers, and
  for the full regular LP because a missing row has multiplier 0 — gives ``L``.
* **Upper bound.**  PF is feasible, so ``U <= PF's value`` from the start.  From time to
  time the primal iterate is *polished* (PDLP's feasibility polishing): PDHG with cost 0
  from the iterate, for 200 steps, on the class and privacy rows, the generated
  monotonicity rows and every other monotonicity row the iterate violates or holds with a
  relative slack below :data:`_POLISH_SLACK` (1e-3); the polished point is checked against
  every row, the rows it violates join the polishing LP and the polish goes on (up to four
  rounds).  Then :func:`lp_models.lattice.certificates.repair_primal` renormalises each
  class and mixes with the strictly feasible ``(uniform + PF) / 2`` just enough to satisfy
  every row, and :func:`lp_models.lattice.certificates.primal_violation` checks the result
  against every row.  ``U`` is its value when no row is violated by more than 1e-12.
  The polishing LP leaves out the rows with a larger slack, which a 200-step polish does not
  move across: at n = k = 10 it holds some 3 % of the 3.0 million monotonicity rows, and the
  run to width 1e-4 took 194 CPU s and 474 MiB against 197 CPU s and 884 MiB polishing
  against every row (one run each, beside other jobs); without the rows of small slack (the
  violated ones only) the polished point violated rows never polished against, the repair
  mixed in 75 to 99 % of the anchor, and ``U`` stayed PF's value at n = k = 11.
* **Row generation.**  When the primal iterate violates a monotonicity row that is not in
  the restricted LP by more than it violates the rows it has, the row is added and PDHG
  starts again on the enlarged LP from the current iterate (new rows get multiplier 0),
  rescaled from scratch (keeping the old scales for the old rows took 2.7 times as long to
  width 1e-4 at n = k = 9).

Rows are generated and points polished only once the iterate satisfies the restricted LP's
rows to 1e-3 (earlier iterates would add rows that never bind), and a point is polished
only after PDHG made 200 steps since the last polish (the first iterates are PF, whose
polish is PF).  Each kind of work is due again when it has used less than a fixed share of
the work so far (bounds 5 %, row generation 10 %, polishing 10 %, or 25 % while ``U`` lags:
while the iterate's value is closer to ``L`` than to ``U``); these shares took n = k = 10 to
width 1e-4 in 145 CPU s (289 with a fixed 10 % for polishing and a second PDHG sequence for
``L``), counted as below in 108 CPU s (115 timed, the same day).  BLAS is held to one
thread inside the loop (``threadpoolctl``): an idle OpenBLAS worker spinning beside each
step cost about 25 % CPU.

**Work is counted, not timed.**  The shares are of *estimated* CPU seconds (:data:`_COSTS`:
a fixed cost per operation and a cost per entry it touches, fitted to measured runs), not of
measured CPU time: measured time made the schedule, and with it the iterates at which
bounds were taken, depend on the machine's load, so the same call gave different brackets
and step counts (n = 3, k = 2, eps = 8.88e-6, width 1e-4: 651, 721, 15,510 and 18,963 steps
in four runs, and in one run of ``solve_lattice(method="pdhg", time_limit=20)`` no bracket
narrower than 1.3e-3 in 303,236 steps, the time limit reached).  Counted, a run does the
same steps and returns the same bracket whatever the load; only a deadline, which cuts the
run short, still depends on it.

**Single precision.**  For ``tol >= SINGLE_PRECISION_TOL`` and ``eps >=
SINGLE_PRECISION_EPSILON`` PDHG iterates in ``float32``
(:meth:`lp_models.pdhg.ScaledProblem.from_lp`): half the memory traffic, and a step at
n = k = 10 costs 12.0 ms instead of 23.8.  Nothing certified depends on it — ``L`` is
recomputed in double from the multipliers and ``U`` from a point checked in double — but
single-precision iterates stop narrowing the bracket somewhere between 2e-7 and 1e-4
(measured at n = k = 4 and 6 for eps from 1e-6 to 0.5), hence double below that tolerance,
and a single-precision run whose bracket is narrower than 1e-3 but has stopped narrowing
goes on in double from the iterate of its best bound (at n = k = 5, eps = 0.1, asked for
1e-5: 2.1 CPU s; no convergence in single precision alone).  Below eps = 1e-2 double
precision is used throughout: single precision rounds the privacy coefficient ``e^-eps``
by up to 3e-8 (half a unit in the last place below 1), 3e-6 of eps at eps = 1e-2 and a
larger share below, and iterates on another LP than the one bracketed: at n = 3, k = 2,
eps = 3.2e-7 its iterate stopped at a fixed point with the bracket at width 2.3e-3, where
no stall is detected, for good, and at eps = 1e-7, 1e-6 and 1e-4 it took 15 to 22 times
the steps of double precision (20,000 against 900 to 1,700).  Polishing always runs in
double: a point polished in single precision violates rows by some 1e-7, and the repair
then mixed in enough of the anchor to leave ``U`` 3.5e-4 above the optimum at n = k = 8.

The loop stops when ``(U - L) / L <= tol`` or at the deadline; every bound it returns is
certified, the bracket is just wider when time runs out.  The run also returns PDHG's last
point (primal and row values on the restricted LP): the start of the exact finish
(:func:`optmech.lattice.solve_loop.finish_with_highs`).  Measured times and earlier designs:
``benchmarks/results/lattice_bound.md`` and the changelog.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
from threadpoolctl import threadpool_limits

from lp_models.lattice.certificates import (
    LatticeDual,
    LatticeUnits,
    lagrangian_bound,
    primal_violation,
    repair_primal,
)
from lp_models.lattice.classes import LatticeClasses
from lp_models.lattice.dual_repair import repair_dual
from lp_models.lattice.model import (
    monotonicity_pair_blocks,
    monotonicity_row_count,
    reduced_lattice_lp,
)
from lp_models.lattice.recurrences import chain_dual, pf_lattice_probabilities
from lp_models.pdhg import RestartedPDHG, ScaledProblem

__all__ = ["SINGLE_PRECISION_EPSILON", "SINGLE_PRECISION_TOL", "BracketRun",
           "bracket_lattice_lp"]

# A point counts as exactly feasible when no row is violated by more than this (absolute;
# the values are probabilities).  Repaired points have violations of order 1e-16.
FEASIBILITY_TOLERANCE = 1e-12
# PDHG iterates in single precision for a relative width of at least this, in double below
# it (single-precision brackets stopped narrowing at widths of 2e-7 to 1e-4, measured at
# n = k = 4 and 6 for eps from 1e-6 to 0.5; a run that stops above ``tol`` goes on in double).
SINGLE_PRECISION_TOL = 1e-4
# ... and for an eps of at least this (module docstring: below, float32's e^-eps is off by
# up to 3e-8, over 3e-6 of eps, and the iterates can stop at a fixed point of another LP).
SINGLE_PRECISION_EPSILON = 1e-2
# A single-precision run goes on in double when its bracket, narrower than _STALL_WIDTH
# (relative; wider ones are far from single precision's limit and stall for other reasons:
# a polish to come, rows to generate), has not narrowed by a tenth for half the work so far
# and at least _STALL_SECONDS of it (estimated CPU seconds, module docstring).
_STALL_WIDTH, _STALL_SECONDS = 1e-3, 0.5
# Monotonicity rows violated by more than this (relative to x[a]) are generated.
_GENERATE_TOLERANCE = 1e-9
# Rows are generated and points polished only from iterates that satisfy the restricted
# LP's rows to this (absolute) level: the first iterates violate them by up to 0.4 and would
# add tens of thousands of rows that never bind.
_SANE_VIOLATION = 1e-3
# Polishing holds the monotonicity rows the iterate holds with a relative slack below this
# (or violates), not all of them: at n = k = 10 some 3 % of them (see the module docstring).
_POLISH_SLACK = 1e-3
_SHARES = {"bound": 0.05, "generate": 0.1, "polish": 0.1}
_LAGGING_POLISH_SHARE = 0.25
_POLISH_STEPS, _POLISH_ROUNDS = 200, 4
_CHUNK = 10
# Estimated CPU seconds of each operation of the loop (module docstring), ``(per call, per
# entry)``: a PDHG step per nonzero, row and column of its LP (in single or double
# precision); a bound per variable, privacy row and generated monotonicity row; a scan of
# the monotonicity rows per row of the full LP; a restart (restricted LP built, rescaled,
# PDHG started) per nonzero, row and column; a point repaired and checked per monotonicity
# row and variable.  Fitted to CPU times measured in runs to width 1e-4 at eps = 0.5 and
# n = k = 3, 5, 7, 8, 9 (per entry, n = k = 7 to 9: steps 1.7-2.7 ns in single and 2.6-5.0
# ns in double precision, bounds 104-165 ns, scans 35-45 ns, restarts 107-117 ns, points
# 56-63 ns; per call, n = k = 3: 20-22 us a step, 0.44 ms a bound, 0.16 ms a scan, 1.8 ms
# a restart, 0.25 ms a point).
_COSTS = {"step32": (22e-6, 2.5e-9), "step64": (20e-6, 4e-9), "bound": (4.5e-4, 1.5e-7),
          "scan": (1.6e-4, 4e-8), "restart": (1.8e-3, 1.12e-7), "point": (2.5e-4, 6e-8)}


def _cost(kind: str, entries: int, times: int = 1) -> float:
    """Estimated CPU seconds of ``times`` operations ``kind`` on ``entries`` entries each
    (:data:`_COSTS`)."""
    per_call, per_entry = _COSTS[kind]
    return times * (per_call + per_entry * entries)


def _size(problem) -> int:
    """Nonzeros, rows and columns of a :class:`~lp_models.pdhg.ScaledProblem`'s matrix."""
    return problem.a.nnz + sum(problem.a.shape)


def _iterate(solver: RestartedPDHG, steps: int) -> float:
    """Run ``steps`` accepted PDHG steps; their estimated CPU seconds (every step tried,
    a rejected one too)."""
    before = solver.iterations
    solver.iterate(steps)
    kind = "step32" if solver.a.dtype == np.float32 else "step64"
    return _cost(kind, _size(solver.problem), solver.iterations - before)


@dataclass
class BracketRun:
    """What :func:`bracket_lattice_lp` found, in the LP's normalised units."""

    #: The best certified lower bound on the optimum.
    lower: float
    #: The multipliers ``lower`` was computed from (recompute it with
    #: :func:`~lp_models.lattice.certificates.lagrangian_bound`).
    dual: LatticeDual
    #: The best certified upper bound: the value of ``point``.
    upper: float
    #: A point satisfying every row of the LP to 1e-12 (PF when nothing better was found).
    point: np.ndarray
    #: PDHG steps, polishing included.
    steps: int
    #: Wall-clock seconds of the run.
    seconds: float
    #: Whether the relative width ``(upper - lower) / lower`` reached the tolerance.
    converged: bool
    #: Monotonicity rows in the restricted LP at the end.
    rows_generated: int
    #: ``(x, y)``: PDHG's last primal point and row multipliers on the restricted LP at the
    #: end (Appendix D's rows and the monotonicity rows ``pairs``), in double precision: the
    #: start of an exact finish (:func:`optmech.lattice.solve_loop.finish_with_highs`).
    iterate: tuple
    #: ``(a, b)``: the monotonicity rows ``x[a] >= x[b]`` of that restricted LP.
    pairs: tuple
    #: ``(seconds, steps, lower, upper)`` whenever a bound improved.
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


def _rows_short(units: LatticeUnits, x: np.ndarray, pairs, noise: float, relative: float):
    """Monotonicity rows ``x[a] >= x[b]`` not among ``pairs`` whose shortfall
    ``x[b] - x[a]`` exceeds both ``noise`` and ``relative * |x[a]|``: the rows ``x`` violates
    (``relative > 0``) or holds with a relative slack below ``-relative`` (``relative < 0``),
    generated block by block."""
    classes = units.classes
    a, b = pairs
    firsts, seconds = [], []
    for first, second in monotonicity_pair_blocks(classes):
        excess = x[second] - x[first]
        bad = (excess > noise) & (excess > relative * np.abs(x[first]))
        firsts.append(first[bad])
        seconds.append(second[bad])
    first, second = np.concatenate(firsts), np.concatenate(seconds)
    present = np.sort(a * classes.num_variables + b)
    if present.size == 0:
        return first, second
    keys = first * classes.num_variables + second
    new = present[np.minimum(np.searchsorted(present, keys), present.size - 1)] != keys
    return first[new], second[new]


def _joined(pairs, more):
    return np.concatenate([pairs[0], more[0]]), np.concatenate([pairs[1], more[1]])


class _Ledger:
    """The work of ``run`` spent on each kind (its estimated CPU seconds, ``run.work``), and
    whether a kind is due (it has used less than its share of all the work so far)."""

    def __init__(self, run: _Bracketing):
        self.run = run
        self.spent = dict.fromkeys(_SHARES, 0.0)

    def due(self, kind: str, share: float | None = None) -> bool:
        share = _SHARES[kind] if share is None else share
        return self.spent[kind] <= share * self.run.work

    @contextmanager
    def charged(self, kind: str):
        """Charge the work of the block to ``kind``."""
        since = self.run.work
        try:
            yield
        finally:
            self.spent[kind] += self.run.work - since


class _Bracketing:
    """State of one bracketing run (see the module docstring)."""

    def __init__(self, classes, epsilon, weighting, regular, dtype):
        self.classes, self.epsilon, self.regular = classes, epsilon, regular
        self.dtype = dtype
        self.weighting = weighting
        self.units = LatticeUnits(classes, epsilon)
        self.monotone_rows = monotonicity_row_count(classes) if regular else 0
        #: Estimated CPU seconds of the work so far (module docstring).
        self.work = 0.0
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
        self.best_iterate = None       # PDHG's (x, y) at the best bound from its multipliers
        self._offer_dual(lam, np.zeros(self.pairs[0].size))
        y0 = np.concatenate([lam, np.maximum(mu[lp.metadata["privacy_source"]], 0.0),
                             np.zeros(self.pairs[0].size)])
        self.solver = RestartedPDHG(ScaledProblem.from_lp(lp, self.dtype), self.pf, y0)
        self.work += _cost("restart", _size(self.solver.problem))
        self.steps_before = 0          # steps of the solvers replaced so far
        self.polish_steps = 0
        self.polished_at = 0           # PDHG steps when the last polish started

    @property
    def pdhg_steps(self) -> int:
        """Steps of the PDHG sequence so far (its solvers replaced or current)."""
        return self.steps_before + self.solver.iterations

    @property
    def steps(self) -> int:
        """PDHG steps so far (the sequence and polishing)."""
        return self.pdhg_steps + self.polish_steps

    def _restricted_lp(self, pairs):
        c = self.classes
        return reduced_lattice_lp(c.n, c.k, self.epsilon, self.weighting, "paper", classes=c,
                                  monotone_pairs=pairs)

    def iterate(self, steps: int) -> None:
        """``steps`` more PDHG steps."""
        self.work += _iterate(self.solver, steps)

    def _scan(self, x, pairs, noise: float, relative: float):
        """:func:`_rows_short`, its work counted."""
        self.work += _cost("scan", self.monotone_rows)
        return _rows_short(self.units, x, pairs, noise, relative)

    def _offer_dual(self, y, nu) -> bool:
        self.work += _cost("bound", self.classes.num_variables + self.num_privacy_rows
                           + self.pairs[0].size)
        dual = repair_dual(self.units, self.cost, y, self.pairs, nu)
        value = lagrangian_bound(self.units, self.cost, dual)
        if value > self.lower:
            self.lower, self.dual = value, dual
            return True
        return False

    def _offer_point(self, x) -> None:
        self.work += _cost("point", self.monotone_rows + self.classes.num_variables)
        point = repair_primal(self.units, x, self.anchor, self.regular)
        if point is not None and primal_violation(self.units, point,
                                                  self.regular) <= FEASIBILITY_TOLERANCE:
            value = float(self.cost @ point)
            if value < self.upper:
                self.upper, self.point = value, point

    def bound(self) -> None:
        """``L`` from the current multipliers."""
        y = self.solver.y
        if self._offer_dual(y[:self.num_class_rows],
                            y[self.num_class_rows + self.num_privacy_rows:]):
            self.best_iterate = (self.solver.x, y)

    def upper_lags(self) -> bool:
        """Whether ``U`` is farther from the current iterate's value than ``L`` is."""
        value = float(self.cost @ self.solver.x)
        return self.upper - value > value - self.lower

    def noise(self) -> float:
        """How far the primal iterate is from satisfying the restricted LP's rows."""
        return self._noise(self.solver.x, self.pairs)

    def _noise(self, x, pairs) -> float:
        a, b = pairs
        return max(primal_violation(self.units, x, regular=False),
                   float((x[b] - x[a]).max(initial=0.0)))

    def polish(self, deadline: float | None) -> None:
        """``U`` from the current primal iterate (see the module docstring)."""
        self.polished_at = self.pdhg_steps
        x = self.solver.x
        pairs = self.pairs
        if self.regular:
            pairs = _joined(pairs, self._scan(x, pairs, -np.inf, -_POLISH_SLACK))
        for round_index in range(_POLISH_ROUNDS):
            problem = ScaledProblem.from_lp(self._restricted_lp(pairs)).without_cost()
            self.work += _cost("restart", _size(problem))
            polisher = RestartedPDHG(problem, x)
            del problem
            for _ in range(_POLISH_STEPS // _CHUNK):
                self.work += _iterate(polisher, _CHUNK)
                if _passed(deadline):
                    break
            x = polisher.x
            self.polish_steps += polisher.iterations
            del polisher
            if not self.regular or round_index == _POLISH_ROUNDS - 1 or _passed(deadline):
                break
            more = self._violated(x, pairs, 0.0)
            if more[0].size == 0:
                break
            pairs = _joined(pairs, more)
        self._offer_point(x)

    def _violated(self, x: np.ndarray, pairs, noise: float):
        """Monotonicity rows not among ``pairs`` that ``x`` violates by more than ``noise``
        (how far ``x`` is from the rows it is meant to satisfy: violations below that are
        noise of the method, not information) and by more than a relative
        ``_GENERATE_TOLERANCE``."""
        return self._scan(x, pairs, noise, _GENERATE_TOLERANCE)

    def generate(self) -> bool:
        """Add the monotonicity rows the primal iterate violates; True if any."""
        x = self.solver.x
        a, b = self._violated(x, self.pairs, self._noise(x, self.pairs))
        if a.size == 0:
            return False
        self.pairs = _joined(self.pairs, (a, b))
        self._restart()
        return True

    def to_double(self) -> None:
        """Go on in double precision from the iterate whose multipliers gave the best bound
        (the current one if none did): single precision's iterate can have drifted far from
        any useful one (n = 4, k = 3, eps = 1e-4, in single precision as it ran before
        SINGLE_PRECISION_EPSILON: multipliers of 3.9e6 by step 11,000, against 0.7 at the
        best bound), and from there double precision never narrowed the bracket again
        (width 1.2e-4 after 168,000 steps)."""
        self.dtype = np.float64
        self._restart(self.best_iterate)

    def _restart(self, iterate: tuple | None = None) -> None:
        """PDHG on the enlarged restricted LP (rescaled from scratch: measured at n = k = 9,
        keeping the old scales for the old rows and scaling only the new ones took 2.7 times
        as long to width 1e-4), from the current iterate or ``iterate`` (``(x, y)``, its
        multipliers on the first rows; new rows get multiplier 0), with the step size and
        primal weight.  The old solver is released first (at n = k = 12 it holds some 2 GB)."""
        x, y = (self.solver.x, self.solver.y) if iterate is None else iterate
        omega, eta = self.solver.omega, self.solver.eta
        self.steps_before += self.solver.iterations
        self.solver = None
        lp = self._restricted_lp(self.pairs)
        y = np.concatenate([y, np.zeros(lp.num_rows - y.size)])
        self.solver = RestartedPDHG(ScaledProblem.from_lp(lp, self.dtype), x, y)
        self.solver.omega, self.solver.eta = omega, eta
        self.work += _cost("restart", _size(self.solver.problem))


def _stalled(run: _Bracketing, narrowed: float) -> bool:
    """Whether the bracket has not narrowed by a tenth since the work was ``narrowed``, for
    half the work so far (and at least :data:`_STALL_SECONDS` of it)."""
    return run.work - narrowed >= max(_STALL_SECONDS, 0.5 * run.work)


def _passed(deadline: float | None) -> bool:
    return deadline is not None and time.perf_counter() >= deadline


def bracket_lattice_lp(classes: LatticeClasses, epsilon: float, weighting: str = "lattice",
                       regular: bool = True, *, tol: float = 1e-4,
                       deadline: float | None = None,
                       callback: Callable[[float, int, float, float], None] | None = None
                       ) -> BracketRun:
    """Bracket the optimum of the reduced lattice LP (normalised cost) to relative width
    ``tol`` or until ``time.perf_counter()`` passes ``deadline``; see the module docstring.
    ``callback(seconds, steps, lower, upper)`` is called whenever a bound improved.
    Arguments are assumed checked by the caller (:func:`optmech.lattice.bound.bound_lattice`).
    A ``KeyboardInterrupt`` in the loop (Ctrl-C) propagates with the run so far as its
    ``bracket_run`` attribute: its bounds were each certified when found.
    """
    started = time.perf_counter()
    with threadpool_limits(limits=1):
        single = tol >= SINGLE_PRECISION_TOL and epsilon >= SINGLE_PRECISION_EPSILON
        dtype = np.float32 if single else np.float64
        run = _Bracketing(classes, epsilon, weighting, regular, dtype)
        history = [(time.perf_counter() - started, 0, run.lower, run.upper)]
        try:
            if callback is not None:
                callback(*history[-1])
            _loop(run, tol, deadline, history, started, callback)
        except KeyboardInterrupt as stop:
            stop.bracket_run = _result(run, tol, started, history)
            raise
    return _result(run, tol, started, history)


def _result(run: _Bracketing, tol, started, history) -> BracketRun:
    """The :class:`BracketRun` of ``run`` as it stands."""
    width = run.upper - run.lower
    return BracketRun(lower=run.lower, dual=run.dual, upper=run.upper, point=run.point,
                      steps=run.steps, seconds=time.perf_counter() - started,
                      converged=run.lower > 0 and width <= tol * run.lower,
                      rows_generated=int(run.pairs[0].size),
                      iterate=(run.solver.x, run.solver.y), pairs=run.pairs, history=history)


def _loop(run: _Bracketing, tol, deadline, history, started, callback) -> None:
    """The bracketing loop: PDHG steps, then whatever work is due (module docstring)."""
    ledger = _Ledger(run)
    # the work when the bracket last narrowed by a tenth, and its width then
    narrowed, marked = run.work, math.inf
    while not (run.lower > 0 and run.upper - run.lower <= tol * run.lower) \
            and not _passed(deadline):
        run.iterate(_CHUNK)
        before = (run.lower, run.upper)
        if ledger.due("bound"):
            with ledger.charged("bound"):
                run.bound()
        generate = run.regular and ledger.due("generate")
        polish = (run.pdhg_steps - run.polished_at >= _POLISH_STEPS
                  and ledger.due("polish", _LAGGING_POLISH_SHARE)
                  and (ledger.due("polish") or run.upper_lags()))
        if (generate or polish) and run.noise() <= _SANE_VIOLATION:
            if generate:
                with ledger.charged("generate"):
                    run.generate()
            if polish:
                with ledger.charged("polish"):
                    run.polish(deadline)
        width = run.upper - run.lower
        if width <= 0.9 * marked:
            narrowed, marked = run.work, width
        elif (run.dtype != np.float64 and width <= _STALL_WIDTH * run.lower
              and _stalled(run, narrowed)):
            run.to_double()
        if (run.lower, run.upper) == before:
            continue
        history.append((time.perf_counter() - started, run.steps, run.lower, run.upper))
        if callback is not None:
            callback(*history[-1])
