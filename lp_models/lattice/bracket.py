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
polish is PF).  Work is charged by its measured CPU time (``time.process_time``): each kind
is due again when it has used less than a fixed share of the CPU since the start (bounds
5 %, row generation 10 %, polishing 10 %, or 25 % while ``U`` lags: while the iterate's value
is closer to ``L`` than to ``U``), so that a run on a loaded machine divides its CPU the same
way as on a quiet one; these shares took n = k = 10 to width 1e-4 in 145 CPU s (289 with a
fixed 10 % for polishing and a second PDHG sequence for ``L``).  BLAS is held to one thread
inside the loop (``threadpoolctl``): an idle OpenBLAS worker spinning beside each step cost
about 25 % CPU.

**Single precision.**  For ``tol >= SINGLE_PRECISION_TOL`` PDHG iterates in ``float32``
(:meth:`lp_models.pdhg.ScaledProblem.from_lp`): half the memory traffic, and a step at
n = k = 10 costs 12.0 ms instead of 23.8.  Nothing certified depends on it — ``L`` is
recomputed in double from the multipliers and ``U`` from a point checked in double — but
single-precision iterates stop narrowing the bracket somewhere between 2e-7 and 1e-4
(measured at n = k = 4 and 6 for eps from 1e-6 to 0.5), hence double below that tolerance,
and a single-precision run whose bracket is narrower than 1e-3 but has stopped narrowing
goes on in double from its iterate (at n = k = 5, eps = 0.1, asked for 1e-5: 2.1 CPU s; no
convergence in single precision alone).  Polishing always runs in double: a point polished
in single precision violates rows by some 1e-7, and the repair then mixed in enough of the
anchor to leave ``U`` 3.5e-4 above the optimum at n = k = 8.

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
from lp_models.lattice.model import monotonicity_pair_blocks, reduced_lattice_lp
from lp_models.lattice.recurrences import chain_dual, pf_lattice_probabilities
from lp_models.pdhg import RestartedPDHG, ScaledProblem

__all__ = ["SINGLE_PRECISION_TOL", "BracketRun", "bracket_lattice_lp"]

# A point counts as exactly feasible when no row is violated by more than this (absolute;
# the values are probabilities).  Repaired points have violations of order 1e-16.
FEASIBILITY_TOLERANCE = 1e-12
# PDHG iterates in single precision for a relative width of at least this, in double below
# it (single-precision brackets stopped narrowing at widths of 2e-7 to 1e-4, measured at
# n = k = 4 and 6 for eps from 1e-6 to 0.5; a run that stops above ``tol`` goes on in double).
SINGLE_PRECISION_TOL = 1e-4
# A single-precision run goes on in double when its bracket, narrower than _STALL_WIDTH
# (relative; wider ones are far from single precision's limit and stall for other reasons:
# a polish to come, rows to generate), has not narrowed by a tenth for half the CPU time so
# far and at least _STALL_SECONDS.
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


def _violated_rows(units: LatticeUnits, x: np.ndarray, pairs, noise: float):
    """Monotonicity rows not among ``pairs`` that ``x`` violates by more than ``noise`` (how
    far ``x`` is from the rows it is meant to satisfy: violations below that are noise of
    the method, not information) and by more than a relative ``_GENERATE_TOLERANCE``."""
    return _rows_short(units, x, pairs, noise, _GENERATE_TOLERANCE)


def _joined(pairs, more):
    return np.concatenate([pairs[0], more[0]]), np.concatenate([pairs[1], more[1]])


class _Ledger:
    """CPU time spent on each kind of work since the start, and whether a kind is due (it
    has used less than its share of all the CPU so far)."""

    def __init__(self):
        self.start = time.process_time()
        self.spent = dict.fromkeys(_SHARES, 0.0)

    def due(self, kind: str, share: float | None = None) -> bool:
        share = _SHARES[kind] if share is None else share
        return self.spent[kind] <= share * (time.process_time() - self.start)

    @contextmanager
    def charged(self, kind: str):
        """Charge the CPU time of the block to ``kind``."""
        since = time.process_time()
        try:
            yield
        finally:
            self.spent[kind] += time.process_time() - since


class _Bracketing:
    """State of one bracketing run (see the module docstring)."""

    def __init__(self, classes, epsilon, weighting, regular, dtype):
        self.classes, self.epsilon, self.regular = classes, epsilon, regular
        self.dtype = dtype
        self.weighting = weighting
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
        self.solver = RestartedPDHG(ScaledProblem.from_lp(lp, self.dtype), self.pf, y0)
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
        self._offer_dual(y[:self.num_class_rows],
                         y[self.num_class_rows + self.num_privacy_rows:])

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
            pairs = _joined(pairs, _rows_short(self.units, x, pairs, -np.inf, -_POLISH_SLACK))
        for round_index in range(_POLISH_ROUNDS):
            problem = ScaledProblem.from_lp(self._restricted_lp(pairs)).without_cost()
            polisher = RestartedPDHG(problem, x)
            del problem
            for _ in range(_POLISH_STEPS // _CHUNK):
                polisher.iterate(_CHUNK)
                if _passed(deadline):
                    break
            x = polisher.x
            self.polish_steps += polisher.iterations
            del polisher
            if not self.regular or round_index == _POLISH_ROUNDS - 1 or _passed(deadline):
                break
            more = _violated_rows(self.units, x, pairs, 0.0)
            if more[0].size == 0:
                break
            pairs = _joined(pairs, more)
        self._offer_point(x)

    def generate(self) -> bool:
        """Add the monotonicity rows the primal iterate violates; True if any."""
        x = self.solver.x
        a, b = _violated_rows(self.units, x, self.pairs, self._noise(x, self.pairs))
        if a.size == 0:
            return False
        self.pairs = _joined(self.pairs, (a, b))
        self._restart()
        return True

    def to_double(self) -> None:
        """Go on in double precision from the current iterate."""
        self.dtype = np.float64
        self._restart()

    def _restart(self) -> None:
        """PDHG on the enlarged restricted LP (rescaled from scratch: measured at n = k = 9,
        keeping the old scales for the old rows and scaling only the new ones took 2.7 times
        as long to width 1e-4), from the current iterate (new rows get multiplier 0), with
        its step size and primal weight.  The old solver is released first (at n = k = 12 it
        holds some 2 GB)."""
        x, y = self.solver.x, self.solver.y
        omega, eta = self.solver.omega, self.solver.eta
        self.steps_before += self.solver.iterations
        self.solver = None
        lp = self._restricted_lp(self.pairs)
        y = np.concatenate([y, np.zeros(lp.num_rows - y.size)])
        self.solver = RestartedPDHG(ScaledProblem.from_lp(lp, self.dtype), x, y)
        self.solver.omega, self.solver.eta = omega, eta


def _stalled(start: float, narrowed: float) -> bool:
    """Whether the bracket has not narrowed by a tenth for half the CPU time since ``start``
    (and for at least :data:`_STALL_SECONDS`)."""
    now = time.process_time()
    return now - narrowed >= max(_STALL_SECONDS, 0.5 * (now - start))


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
        dtype = np.float32 if tol >= SINGLE_PRECISION_TOL else np.float64
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
    ledger = _Ledger()
    # CPU time when the bracket last narrowed by a tenth, and its width then
    narrowed, marked = ledger.start, math.inf
    while not (run.lower > 0 and run.upper - run.lower <= tol * run.lower) \
            and not _passed(deadline):
        run.solver.iterate(_CHUNK)
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
            narrowed, marked = time.process_time(), width
        elif (run.dtype != np.float64 and width <= _STALL_WIDTH * run.lower
              and _stalled(ledger.start, narrowed)):
            run.to_double()
        if (run.lower, run.upper) == before:
            continue
        history.append((time.perf_counter() - started, run.steps, run.lower, run.upper))
        if callback is not None:
            callback(*history[-1])
