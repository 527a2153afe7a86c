"""Solve the discretised DILP (:mod:`lp_models.dilp`) and compare it with Laplace noise.

:func:`solve_dilp` builds the translation-invariant LP on the line or the ring, solves its
primal and its dual with HiGHS, and returns a :class:`DilpResult`: the primal value (the
cost of a mechanism that is eps-geographic DP on the grid), the dual value (a lower bound
on the discretised problem), their gap, and the Laplace cost beside them.

Two ways to solve (``method``):

* ``"chains"`` (default): the LP couples its chains only through ``sum p = 1``, so its value
  is the least chain value.  Each chain's primal and dual LP is solved on its own (HiGHS
  dual simplex); the optimal chain's primal solution, padded with zeros, is a point of the
  whole primal, and every chain's dual solution with the common ``w = min_j w_j`` is a point
  of the whole dual.  Both points are checked against every row and bound of the *whole*
  LPs (:meth:`~lp_models.program.LinearProgram.max_violation`, at most 1e-7) and the
  reported values are the whole LPs' objectives at them.  3 to 11 times faster than
  ``"joint"`` at the benchmark's sizes, more as the grid grows (``benchmarks/dilp.py``).
* ``"joint"``: one HiGHS solve of the whole primal and one of the whole dual.

Line grid.  ``grid`` points per axis cover ``[-L, L]``, ``L = spread + margin``; spacing
``2 L / (grid - 1)`` (``grid`` is rounded up to odd).  Defaults: ``margin`` is where
``h`` reaches 1.25 times the one-result Laplace cost (so the tails are exact: checked after
solving, :class:`InvalidArgumentError` otherwise) and ``spread`` is the optimal offsets'
spread plus ``max(spread/2, 1/eps)`` (the LP may choose any offsets within it).  The
discrete problem is cheaper than the continuous one by ``O((eps * spacing)^2)``: exactly
``1/eps - spacing / sinh(eps spacing)`` for ``k = 1``; for ``k >= 2`` the alignment of the
grid with the optimal offsets adds an oscillating term of the same order (tests bound the
error by ``(eps spacing)^2 f``); ``benchmarks/results/dilp.md`` tabulates the convergence.

Range and budgets.  The discretised LP is solved for ``eps`` in :data:`EPSILON_RANGE` =
[1e-3, 1e3]: beyond it the costs (``h`` over a window of width ``O(1/eps)``) and the ring's
decay factors ``e^{eps spacing}`` leave the range HiGHS solves reliably (measured: solver
errors and primal/dual pairs 3x apart at ``eps = 1e4``, overflow on the ring beyond); on
the ring a grid whose spacing makes ``eps spacing`` exceed 20 is refused as too coarse.  Its
memory (the Laplace comparison holds a chain length squared of doubles) and CPU time are
estimated from the layout before anything is built (:func:`estimated_seconds`: per chain
``0.005 + 3e-7 m^2`` s for ``m`` columns with ``"chains"``, ``2.7e-9 columns^2.35`` s for
``"joint"``, fitted to timings of both methods at k = 1, 2 on 2 cores under load) and
refused, naming ``grid``, beyond the budgets of :mod:`optmech.resources`.

``laplace_cost`` (offsets ``laplace_offsets``) is the continuous Laplace cost (Theorem 19's
``f_h(eps, k)`` on the line,
:func:`~optmech.multiselect.ring.ring_laplace_response` on the ring);
``laplace_cost_discrete`` the best discrete Laplace point of the LP itself (decay
``e^{-eps spacing}`` per step about any position of any chain), an upper bound on
``primal``.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
from scipy import optimize

from lp_models.dilp import DilpModel, line_dilp, ring_dilp
from lp_models.display import Displayed
from lp_models.program import LinearProgram, solve
from optmech.multiselect.offsets import check_results, optimal_response, resolve_disutility
from optmech.multiselect.ring import ring_laplace_response, wrap
from optmech.progress import progress
from optmech.resources import Estimate, require_memory, require_work
from optmech.validation import (
    InvalidArgumentError,
    check_choice,
    check_integer,
    check_nonnegative,
    check_positive,
)

__all__ = ["DilpResult", "EPSILON_RANGE", "MAX_COLUMNS", "dilp_estimate", "estimated_seconds",
           "solve_dilp"]

#: Largest LP (primal columns) :func:`solve_dilp` accepts.
MAX_COLUMNS = 3_000_000
#: The privacy parameters the discretised LP is solved for (module docstring).
EPSILON_RANGE = (1e-3, 1e3)
_FEASIBILITY = 1e-7
# Largest eps * spacing on the ring: its LP's coefficients e^(eps spacing) stay below e^20
# (at e^40 HiGHS refused the model, at e^15 primal and dual agreed to 1e-7).
_MAX_RING_DECAY = 20.0


@dataclass(frozen=True, repr=False)
class DilpResult(Displayed):
    """A solved discretised DILP (module docstring).

    ``offsets`` (centred on the results' span) and the optimal noise are read off the chain
    carrying the most mass (``best_chain_mass`` of it): the server answers ``s + offsets``
    and ``user_offset_density`` (probability / spacing) is the density of the user's value
    relative to the signal, ``y = u - s``, at the points ``user_offset`` (result ``s + a_i``
    is exact when ``y = a_i``; for symmetric noise this is the noise density itself).  ``gap`` is
    ``|primal - dual| / max(1, |primal|)``.

    ``model`` is the discretised DILP that was solved (:class:`lp_models.dilp.DilpModel`, as
    built: its layout, and the whole primal and dual LPs the values are certified on, also
    as :attr:`lp` and :attr:`dual_lp`; ``primal`` and ``dual`` are their objective values at
    the assembled points).
    """

    #: ``"line"`` or ``"ring"``.
    geometry: str
    #: The number of results the server returns.
    k: int
    #: The privacy parameter ε (ε-geographic DP on the grid).
    epsilon: float
    #: The disutility's name.
    disutility: str
    #: Grid points per axis (odd).
    grid: int
    #: Distance between neighbouring grid points.
    spacing: float
    #: The window beyond the offsets' spread (same units as ``spacing``).
    margin: float
    #: The largest offset the LP may choose (same units).
    spread: float
    #: The primal LP's value at the assembled point: the certified expected disutility.
    primal: float
    #: The dual LP's value at the assembled point: a lower bound on the optimum.
    dual: float
    #: ``|primal - dual| / max(1, |primal|)``.
    gap: float
    #: The continuous Laplace mechanism's cost with its optimal offsets.
    laplace_cost: float
    #: The best discrete Laplace point of this LP (an upper bound on ``primal``).
    laplace_cost_discrete: float
    #: The optimal offsets for Laplace noise.
    laplace_offsets: np.ndarray
    #: The optimal server offsets, centred on the results' span.
    offsets: np.ndarray
    #: Points ``y = u - s`` (user's value relative to the signal) of the density below.
    user_offset: np.ndarray
    #: The density (probability / spacing) of ``y`` at ``user_offset``.
    user_offset_density: np.ndarray
    #: The share of the probability mass on the chain the noise is read off.
    best_chain_mass: float
    #: The number of chains of the LP.
    num_chains: int
    #: Columns of the primal LP.
    num_cols: int
    #: Rows of the primal LP.
    num_rows: int
    #: ``"chains"`` or ``"joint"`` (module docstring).
    method: str
    #: Wall-clock seconds of the solve.
    solve_seconds: float
    #: The discretised DILP that was solved (its primal and dual LPs), None if not kept.
    model: DilpModel | None = field(default=None, repr=False)

    # repr and notebook table: the problem, the certified value, the Laplace comparison
    _display = ("geometry", "k", "epsilon", "disutility", "grid", "primal", "dual", "gap",
                "laplace_cost", "offsets")

    def _display_items(self):
        return [*self._repr_items(), ("laplace_cost_discrete", self.laplace_cost_discrete),
                ("spacing", self.spacing), ("num_chains", self.num_chains),
                ("num_cols", self.num_cols), ("num_rows", self.num_rows),
                ("method", self.method), ("solve_seconds", self.solve_seconds)]

    @property
    def lp(self) -> LinearProgram:
        """The whole primal LP (:attr:`model`'s ``primal``)."""
        return self.model.primal

    @property
    def dual_lp(self) -> LinearProgram:
        """The whole dual LP (:attr:`model`'s ``dual``)."""
        return self.model.dual


def _line_layout(k, epsilon, grid, disutility, spread, margin):
    one = optimal_response(1, epsilon, disutility).cost
    target = optimal_response(k, epsilon, disutility)
    if margin is None:
        level = 1.25 * one
        hi = 1.0 / epsilon
        while disutility(np.array([hi]))[0] < level:
            hi *= 2.0
        margin = optimize.brentq(lambda r: disutility(np.array([r]))[0] - level, 0.0, hi,
                                 xtol=1e-12)
    margin = check_positive(margin, "margin")
    optimal_spread = float(np.ptp(target.offsets))
    if spread is None:
        spread = optimal_spread + max(0.5 * optimal_spread, 1.0 / epsilon)
    spread = check_nonnegative(spread, "spread")
    if spread < optimal_spread:
        raise InvalidArgumentError("spread", spread, f"at least the optimal offsets' spread "
                                                     f"{optimal_spread:.6g}")
    half = (grid - 1) // 2
    spacing = (spread + margin) / half
    margin_steps = math.ceil(margin / spacing - 1e-9)
    spread_steps = half - margin_steps
    gaps = np.diff(target.offsets)
    min_gap = float(gaps.min()) if k > 1 else 2.0 / epsilon
    needed = 2 * math.ceil(4 * (spread + margin) / min_gap) + 1
    if spacing > min_gap / 4 or spread_steps * spacing < optimal_spread or margin_steps < 2 \
            or spread_steps < 0:
        raise InvalidArgumentError(
            "grid", grid, f"at least {max(needed, 9)} points to represent the offsets "
                          f"(spacing <= smallest gap {min_gap:.4g} / 4 over a window of "
                          f"half-width {spread + margin:.4g})")
    return target, spacing, spread_steps, margin_steps


def _ring_layout(k, epsilon, grid, disutility):
    laplace = ring_laplace_response(k, epsilon, disutility)
    a = np.sort(laplace.offsets)
    min_gap = float(np.diff(np.concatenate([a, [a[0] + 2 * math.pi]])).min())
    needed = math.ceil(4 * 2 * math.pi / min_gap)
    if 2 * math.pi / grid > min_gap / 4 or grid < 8:
        raise InvalidArgumentError("grid", grid, f"at least {max(needed, 8)} points on the ring "
                                                 f"(spacing <= smallest gap {min_gap:.4g} / 4)")
    if epsilon * 2 * math.pi / grid > _MAX_RING_DECAY:
        raise InvalidArgumentError("grid", grid, f"at least "
                                   f"{math.ceil(epsilon * 2 * math.pi / _MAX_RING_DECAY)} points "
                                   f"on the ring at eps = {epsilon:g} (the LP's factors "
                                   f"e^(eps spacing) stay below e^{_MAX_RING_DECAY:g})")
    return laplace


def _estimated_chains(geometry, k, grid, spread_steps, margin_steps) -> tuple[int, int]:
    """``(chains, columns per chain)`` of the layout (upper estimates)."""
    if geometry == "ring":
        return math.comb(grid + k - 2, k - 1), grid
    return math.comb(spread_steps + k - 1, k - 1), spread_steps + 2 * margin_steps + 1


def estimated_seconds(method: str, chains: int, length: int) -> float:
    """Upper estimate of the CPU seconds of solving (primal and dual) ``chains`` chains of
    ``length`` columns each (module docstring)."""
    if method == "chains":
        return chains * (0.005 + 3e-7 * length**2)
    return 2.7e-9 * float(chains * length) ** 2.35


def dilp_estimate(k: int, grid: int | None, ring: bool, method: str) -> Estimate:
    """Upper estimate of :func:`solve_dilp`'s work and memory from its arguments alone (the
    command's estimate, before the layout): at most ``grid`` columns a chain and, on the line,
    at most ``grid / 2`` steps of spread, so ``C(grid/2 + k - 1, k - 1)`` chains; about
    ``C(grid + k - 2, k - 1)`` on the ring (:func:`estimated_seconds` per chain).  A DILP of
    more than :data:`MAX_COLUMNS` columns is refused by the solver itself."""
    grid = (400 if k <= 2 else 100) if grid is None else grid
    chains = math.comb(grid + k - 2 if ring else grid // 2 + k - 1, k - 1)
    columns = float(min(chains * grid, MAX_COLUMNS))
    return Estimate(estimated_seconds(method, chains, grid), 24 * grid**2 + 800 * columns,
                    "--grid", grid)


def _best_discrete_laplace(model: DilpModel) -> float:
    """Least cost over chains and centres of ``p_v ∝ e^{-eps spacing |t_v - c|}``."""
    q = math.exp(-model.epsilon * model.spacing)
    best = math.inf
    for j in range(model.num_chains):
        cols = slice(model.chain_start[j], model.chain_start[j + 1])
        t = model.position[cols]
        steps = np.abs(t[:, None] - t[None, :])
        if model.geometry == "ring":
            steps = np.minimum(steps, model.grid - steps)
        weights = q ** steps  # column c: Laplace centred at t[c]
        value = (model.cost[cols] @ weights) / (model.mass_weight[cols] @ weights)
        best = min(best, float(value.min()))
    return best


def _solve_chains(model: DilpModel, show_progress: bool | None):
    chain_duals, best = [], None
    for j in progress(range(model.num_chains), total=model.num_chains, desc="DILP chains",
                      enabled=show_progress):
        lp, dual_lp = model.chain_lps(j)
        p, d = solve(lp, "simplex"), solve(dual_lp, "simplex")
        chain_duals.append(d.x)
        if best is None or p.objective < best[0]:
            best = (p.objective, j, p.x)
    x = model.embed_primal(best[1], best[2])
    w = min(y[0] for y in chain_duals)
    y = model.embed_dual(w, chain_duals)
    return x, y


def _solve_joint(model: DilpModel):
    return solve(model.primal).x, solve(model.dual).x


def _certified(model: DilpModel, x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    for lp, point, what in ((model.primal, x, "primal"), (model.dual, y, "dual")):
        violation = lp.max_violation(point)
        if violation > _FEASIBILITY:
            raise ArithmeticError(f"the assembled {what} point violates the whole LP by "
                                  f"{violation:.3g}")
    return model.primal.objective_value(x), model.dual.objective_value(y)


def _centre(d: np.ndarray, geometry: str, grid: int) -> float:
    """Grid position about which the results ``d`` are centred: the middle of their span on
    the line, of the arc they occupy (the circle minus its largest gap) on the ring."""
    if geometry == "line":
        return 0.5 * (d[0] + d[-1])
    gaps = np.diff(np.concatenate([d, [d[0] + grid]]))
    i = int(gaps.argmax())  # the results occupy the arc from d[i+1] round to d[i]
    first = d[(i + 1) % d.size]
    return first + 0.5 * (grid - gaps[i])


def _optimal_noise(model: DilpModel, x: np.ndarray):
    """Offsets ``a_i`` (centred) and the density of ``y = u - s`` on the heaviest chain.

    On chain ``d`` at position ``t`` the results sit at ``u + (t + d_i) spacing``; with
    offsets ``a_i = (d_i - c) spacing`` the signal is ``s = u + (t + c) spacing`` and the
    user's value relative to it is ``y = -(t + c) spacing``; result ``s + a_i`` serves the
    user exactly when ``y = a_i``.
    """
    mass = model.chain_mass(x)
    j = int(mass.argmax())
    cols = slice(model.chain_start[j], model.chain_start[j + 1])
    d = model.chains[j]
    c = _centre(d, model.geometry, model.grid)
    offsets = (d - c) * model.spacing
    y = -(model.position[cols] + c) * model.spacing
    if model.geometry == "ring":
        offsets, y = wrap(offsets), wrap(y)
    order = np.argsort(y)
    return (np.sort(offsets), y[order], x[cols][order] / model.spacing, float(mass[j]))


def solve_dilp(k: int, epsilon: float, grid: int | None = None, ring: bool = False, h=None,
               spread: float | None = None, margin: float | None = None,
               method: str = "chains", show_progress: bool | None = None) -> DilpResult:
    """Solve the discretised DILP with ``k`` results (module docstring).

    ``grid``: points per axis (line; default 400 for k <= 2, 100 otherwise) or on the circle
    (ring).  ``spread``/``margin``: line window in units of the user's value (defaults in
    the module docstring).  ``h``: as in :func:`~optmech.multiselect.offsets.optimal_response`.
    """
    k = check_results(k)
    epsilon = check_positive(epsilon, "epsilon")
    if not EPSILON_RANGE[0] <= epsilon <= EPSILON_RANGE[1]:
        raise InvalidArgumentError("epsilon", epsilon, f"a number in [{EPSILON_RANGE[0]:g}, "
                                   f"{EPSILON_RANGE[1]:g}] for the discretised DILP (beyond "
                                   "it the LP's coefficients leave the range HiGHS solves "
                                   "reliably)")
    method = check_choice(method, "method", ("chains", "joint"))
    disutility = resolve_disutility(h, epsilon)
    grid = check_integer((400 if k <= 2 else 100) if grid is None else grid, "grid", minimum=3,
                         maximum=MAX_COLUMNS)       # a chain holds about grid columns
    if ring:
        if spread is not None or margin is not None:
            raise InvalidArgumentError("spread/margin", (spread, margin), "None on the ring")
        laplace = _ring_layout(k, epsilon, grid, disutility)
        chains, length = _estimated_chains("ring", k, grid, 0, 0)
    else:
        grid += 1 - grid % 2
        laplace, spacing, spread_steps, margin_steps = _line_layout(
            k, epsilon, grid, disutility, spread, margin)
        chains, length = _estimated_chains("line", k, grid, spread_steps, margin_steps)
    columns = chains * length
    if columns > MAX_COLUMNS:
        raise InvalidArgumentError("grid", grid, f"small enough for at most {MAX_COLUMNS} LP "
                                                 f"columns (this needs about {columns})")
    # the Laplace comparison holds three (length x length) arrays of one chain
    require_memory(24 * length**2, "grid", grid)
    require_work(estimated_seconds(method, chains, length), "grid", grid)
    h_lp = None if disutility.is_identity else disutility.function
    model = (ring_dilp(k, epsilon, grid, h_lp) if ring
             else line_dilp(k, epsilon, spacing, spread_steps, margin_steps, h_lp))
    started = time.perf_counter()
    x, y = (_solve_chains(model, show_progress) if method == "chains" else _solve_joint(model))
    seconds = time.perf_counter() - started
    primal, dual = _certified(model, x, y)
    if model.first_tail_cost < primal:
        raise InvalidArgumentError(
            "margin", margin, f"large enough that the cost beyond the window "
                              f"({model.first_tail_cost:.4g}) is at least the LP value "
                              f"({primal:.4g})")
    offsets, user_offset, density, share = _optimal_noise(model, x)
    return DilpResult(
        geometry=model.geometry, k=k, epsilon=epsilon, disutility=disutility.name,
        grid=model.grid, spacing=model.spacing, margin=model.margin * model.spacing,
        spread=float(model.chains[:, -1].max() * model.spacing), primal=primal, dual=dual,
        gap=abs(primal - dual) / max(1.0, abs(primal)), laplace_cost=laplace.cost,
        laplace_cost_discrete=_best_discrete_laplace(model), laplace_offsets=laplace.offsets,
        offsets=offsets, user_offset=user_offset, user_offset_density=density,
        best_chain_mass=share, num_chains=model.num_chains,
        num_cols=model.primal.num_cols, num_rows=model.primal.num_rows, method=method,
        solve_seconds=seconds, model=model)
