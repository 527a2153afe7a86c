"""The discretised differential-integral LP (DILP) of multi-selection, with its dual.

Paper: Goel, Jiang, Korolova, Munagala, Sarmasarkar, *Differential Privacy Under Multiple
Selections*, FORC 2025 (arXiv:2407.14641), Section 2.2, DILP (12) and its dual (13);
Appendix A.2 for the ring.  Continuous problem: a user ``u`` receives a random vector
``x`` of ``k`` results with density ``g(u, x)``; the cost is
``sup_u int min_i h(|u - x_i|) g(u, x) dx`` (an epigraph variable ``kappa``), and
eps-geographic DP is ``|d/du g(u, x)| <= eps g(u, x)`` (Lemma 12).

Discretisation.  Users and results live on the grid ``spacing * Z`` (line) or on ``grid``
equally spaced points of a circle of circumference ``2 pi`` with distance along the circle
(ring).  A mechanism is a pmf ``g(u, .)`` per user, and privacy becomes the ratio bounds

    g(u + spacing, x) <= e^{eps spacing} g(u, x),    g(u, x) <= e^{eps spacing} g(u + spacing, x)

between neighbouring users (chaining them gives ``e^{eps |u1 - u2|}`` for all pairs, along
the shorter arc on the ring).

Translation invariance.  Averaging a mechanism over translations (rotations on the ring)
keeps it private and does not raise its worst-case cost, so ``g(u, x) = p(x - u 1)`` with
one pmf ``p`` over relative result vectors ``z``: the epigraph collapses to the single cost
``sum_z c(z) p(z)``, ``c(z) = min_i h(|z_i|)``, and the privacy bounds link ``p(z)`` with
``p(z + spacing 1)`` only.  The constraints therefore split along *chains*
``{d + t 1 : t in Z}`` (``d`` a difference vector ``0 = d_1 <= ... <= d_k`` in grid steps,
``t`` the chain position), which are coupled only through ``sum p = 1``.  Permuting the
coordinates and reflecting ``z -> -z`` (and, on the ring, re-anchoring at another point)
map chains to chains of equal cost, so one representative per orbit is kept.

Line: exact tails.  A chain is infinite.  Its window keeps ``margin`` grid steps beyond its
zero-cost points, positions ``-d_k - margin <= t <= margin``; beyond the window the cost is
``h((margin + s) spacing)`` at ``s`` steps out, at both ends.  If those costs are at least
the optimal value, the optimum decays at exactly rate ``e^{-eps spacing}`` there (replacing
any tail by that decay removes mass whose cost is at least the average, and renormalising
cannot raise the value), so each end column carries its tail in closed form:

    mass weight 1 + q/(1 - q),   cost c(end) + sum_{s >= 1} h((margin + s) spacing) q^s,

with ``q = e^{-eps spacing}``.

This is an exact restriction (every LP point is a mechanism on the infinite line); the
condition "tail cost >= value" is checked after solving by the caller
(``DilpModel.first_tail_cost``).  Cutting the chains at the window instead drops the
privacy constraints at the cut and lets the LP cheat: for k = 2, eps = 1, spacing 0.1 and
margins of 4, 10, 30 steps it gives 0.16, 0.33, 0.61 where the exact-tail LP gives 0.6928
(ln 2 = 0.6931 in the continuum).  The only truncation is the set of chains: spreads
``d_k <= max_spread`` steps (a restriction: the primal stays an achievable cost).
The response window then spans ``grid = 2 (max_spread + margin) + 1`` points per axis.

Ring: chains are cycles of ``grid`` positions; nothing is truncated.

::

    Primal (per model):   min  sum_v C_v p_v
                          s.t. sum_v M_v p_v = 1                         (multiplier w)
                               e^{a} p_tail(e) - p_head(e) >= 0            (multiplier mu_e >= 0)
                               e^{a} p_head(e) - p_tail(e) >= 0            (multiplier nu_e >= 0)
                               p >= 0,            a = eps * spacing,

over the chain positions ``v`` and the edges ``e`` between neighbouring positions.  The two
privacy row blocks are labelled by direction: ``privacy-up`` (the rise from ``tail`` to
``head`` is at most ``e^a``) and ``privacy-down`` (the fall is at most ``e^a``).

::

    Dual (built as its own LP):  max w  s.t.  for every position v
        M_v w + sum_{e: tail(e) = v} (e^{a} mu_e - nu_e)
              + sum_{e: head(e) = v} (e^{a} nu_e - mu_e) <= C_v,
        mu, nu >= 0, w free.

This corresponds to the paper's dual (13): ``w`` is ``int lambda`` (the weights
``delta(r)`` are uniform by invariance and absorbed), ``mu_e - nu_e`` is ``nu(r, v)``, and the
two edge terms are the finite-difference form of ``nu_r + eps |nu|``.

Also here: :func:`ring_dilp_per_user`, the ring LP *without* the invariance reduction (a
pmf per user, the epigraph variable, privacy between neighbouring users), for checking the
reduction on small grids.  It has no line counterpart: a finite user range on the line
changes the problem.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import Callable

import numpy as np
import scipy.sparse as sp

from lp_models.labels import LabelBlock, PairLabels, Wrapped, vector
from lp_models.program import LinearProgram

__all__ = [
    "DilpModel",
    "canonical_chains",
    "line_dilp",
    "ring_dilp",
    "ring_dilp_per_user",
    "sorted_vectors",
]

DistanceCost = Callable[[np.ndarray], np.ndarray]
COST_UNITS = "worst-case expected cost sup_u E[min_i h(|u - x_i|)], units of h"
_PRIVACY = "privacy[e^(eps*spacing) {a} >= {b}]"
# The two directions of the privacy rows of an edge tail -> head (the next chain position on
# the line, the next user on the ring): "up" bounds the rise p_head <= e^(eps*spacing) p_tail,
# "down" the fall p_tail <= e^(eps*spacing) p_head.
_UP, _DOWN = "privacy-up", "privacy-down"


def _identity(t: np.ndarray) -> np.ndarray:
    return np.asarray(t, dtype=float)


def _apply(h: DistanceCost | None, t: np.ndarray) -> np.ndarray:
    values = np.asarray((h or _identity)(t), dtype=float)
    if values.shape != t.shape or not np.isfinite(values).all():
        raise ValueError("h must map an array of distances to finite values of the same shape")
    return values


def _check(k: int, epsilon: float) -> None:
    if not (isinstance(k, (int, np.integer)) and k >= 1):
        raise ValueError(f"k must be an integer >= 1; got {k!r}")
    if not (math.isfinite(epsilon) and epsilon > 0):
        raise ValueError(f"epsilon must be a finite number > 0; got {epsilon!r}")


def sorted_vectors(length: int, upper: int) -> np.ndarray:
    """All integer vectors ``0 <= v_1 <= ... <= v_length <= upper`` (lexicographic order)."""
    rows = np.zeros((1, 0), dtype=np.int64)
    for _ in range(length):
        last = rows[:, -1] if rows.shape[1] else np.zeros(len(rows), dtype=np.int64)
        counts = upper - last + 1
        group_start = np.repeat(np.cumsum(counts) - counts, counts)
        new = np.repeat(last, counts) + np.arange(counts.sum()) - group_start
        rows = np.column_stack([np.repeat(rows, counts, axis=0), new])
    return rows


def canonical_chains(k: int, max_spread: int | None = None,
                     period: int | None = None) -> np.ndarray:
    """One difference vector ``(0, d_2, ..., d_k)`` (sorted) per chain orbit.

    Line (``max_spread`` given): spreads ``d_k <= max_spread``; orbits under reflection
    ``d -> d_k - reversed(d)``.  Ring (``period`` given): ``d_i < period``; orbits under
    re-anchoring at any point and reflection (the dihedral group acting on ``Z_period``).
    The representative is the lexicographically smallest member.
    """
    upper = max_spread if period is None else period - 1
    vectors = sorted_vectors(k - 1, upper)
    rows = np.column_stack([np.zeros(len(vectors), dtype=np.int64), vectors])
    base = upper + 1
    weights = base ** np.arange(k - 1, -1, -1, dtype=np.int64)
    if period is None:
        variants = [rows[:, -1:] - rows[:, ::-1]]
    else:
        variants = [np.sort((sign * (rows - rows[:, [i]])) % period, axis=1)
                    for i in range(k) for sign in (1, -1)]
    codes = rows @ weights
    smallest = np.min([v @ weights for v in variants] + [codes], axis=0)
    return rows[codes == smallest]


def _edge_triplets(tail: np.ndarray, head: np.ndarray, growth: float, first_row: int):
    """Rows ``growth p_tail - p_head >= 0`` then ``growth p_head - p_tail >= 0``."""
    n = tail.size
    upper = first_row + np.arange(n)
    lower = upper + n
    rows = np.concatenate([upper, upper, lower, lower])
    cols = np.concatenate([tail, head, head, tail])
    vals = np.concatenate([np.full(n, growth), np.full(n, -1.0), np.full(n, growth),
                           np.full(n, -1.0)])
    return rows, cols, vals


@dataclass(frozen=True, eq=False)
class PositionLabels:
    """Labels ``p[chain j: d=(0,...), position t]`` of primal columns ``first + v``."""

    model: "DilpModel"
    first: int = 0

    def __call__(self, local: np.ndarray) -> list[str]:
        m = self.model
        column = local + self.first
        chain = np.searchsorted(m.chain_start, column, side="right") - 1
        return [f"p[chain {j}: d={vector(m.chains[j])}, position {t}]"
                for j, t in zip(chain.tolist(), m.position[column].tolist())]


def _chain_lps(cost: np.ndarray, mass: np.ndarray, tail: np.ndarray, head: np.ndarray,
               growth: float, name: str, metadata: dict, columns
               ) -> tuple[LinearProgram, LinearProgram]:
    """Primal and dual LPs of the chain model (module docstring) from one set of triplets:
    the dual's matrix is the primal's transposed, its costs the primal's row bounds.
    ``columns`` describes the primal columns; the dual's columns are the multipliers of the
    primal's rows and its rows the dual constraints of the primal's columns."""
    n, m = cost.size, tail.size
    e_rows, e_cols, e_vals = _edge_triplets(tail, head, growth, first_row=1)
    rows = np.concatenate([np.zeros(n, dtype=np.int64), e_rows])
    cols = np.concatenate([np.arange(n), e_cols])
    vals = np.concatenate([mass, e_vals])
    shape = (1 + 2 * m, n)
    up = PairLabels(_PRIVACY, tail, head, columns)
    down = PairLabels(_PRIVACY, head, tail, columns)
    primal = LinearProgram(
        cost=cost, matrix=sp.csc_matrix((vals, (rows, cols)), shape=shape),
        row_lower=np.concatenate([[1.0], np.zeros(2 * m)]),
        row_upper=np.concatenate([[1.0], np.full(2 * m, np.inf)]),
        name=f"{name} primal", metadata=metadata, objective_units=COST_UNITS,
        col_blocks=(LabelBlock("probability", n, "p", columns),),
        row_blocks=(LabelBlock("sum-to-one", 1, "sum"), LabelBlock(_UP, m, "up", up),
                    LabelBlock(_DOWN, m, "down", down)))
    dual_cost = np.zeros(1 + 2 * m)
    dual_cost[0] = 1.0
    dual_lower = np.zeros(1 + 2 * m)
    dual_lower[0] = -np.inf
    dual = LinearProgram(
        cost=dual_cost, matrix=sp.csc_matrix((vals, (cols, rows)), shape=shape[::-1]),
        row_lower=np.full(n, -np.inf), row_upper=cost, col_lower=dual_lower,
        sense="max", name=f"{name} dual", metadata=metadata,
        objective_units="lower bound on the primal's optimum, units of h",
        col_blocks=(LabelBlock("multiplier", 1, "w", names=("w",)),
                    LabelBlock("multiplier", m, "mu", Wrapped("mu[{}]", up)),
                    LabelBlock("multiplier", m, "nu", Wrapped("nu[{}]", down))),
        row_blocks=(LabelBlock("dual", n, "dual", Wrapped("dual[{}]", columns)),))
    return primal, dual


@dataclass(frozen=True)
class DilpModel:
    """A translation-invariant discretised DILP: the layout, and its primal and dual LPs.

    Primal column ``v`` is ``p`` at position ``position[v]`` of chain ``chain[v]``; the
    result vector relative to the user is ``(position + chains[chain]) * spacing`` (mod
    ``2 pi`` on the ring).  Columns of chain ``j`` are ``chain_start[j]:chain_start[j+1]``;
    its edges (``tail -> head``, global column indices) are ``edge_start[j]:edge_start[j+1]``.
    Dual column 0 is ``w``, then ``mu`` and ``nu`` per edge.  ``first_tail_cost`` is the
    smallest cost beyond the line windows (``inf`` on the ring): the tails are exact when it
    is at least the optimal value.

    ``primal``/``dual`` are the whole LPs; ``chain_lps(j)`` the LPs of chain ``j`` alone.
    Because chains share only ``sum p = 1``, the whole LP's value is the least chain value;
    ``embed_primal``/``embed_dual`` turn chain solutions into points of the whole LPs.
    """

    geometry: str
    k: int
    epsilon: float
    spacing: float
    grid: int
    margin: int
    chains: np.ndarray
    chain_start: np.ndarray
    edge_start: np.ndarray
    position: np.ndarray
    cost: np.ndarray
    mass_weight: np.ndarray
    tail: np.ndarray
    head: np.ndarray
    first_tail_cost: float

    @property
    def growth(self) -> float:
        """The neighbour ratio bound ``e^{eps spacing}``."""
        return math.exp(self.epsilon * self.spacing)

    @property
    def num_chains(self) -> int:
        return len(self.chains)

    @property
    def chain(self) -> np.ndarray:
        """Chain index of every primal column."""
        return np.repeat(np.arange(self.num_chains), np.diff(self.chain_start))

    @property
    def metadata(self) -> dict:
        return {"geometry": self.geometry, "k": self.k, "epsilon": self.epsilon,
                "spacing": self.spacing, "grid": self.grid, "margin": self.margin}

    @cached_property
    def _whole(self) -> tuple[LinearProgram, LinearProgram]:
        return self._lps(self.cost, self.mass_weight, self.tail, self.head, "")

    @property
    def primal(self) -> LinearProgram:
        return self._whole[0]

    @property
    def dual(self) -> LinearProgram:
        return self._whole[1]

    def chain_lps(self, j: int) -> tuple[LinearProgram, LinearProgram]:
        """Primal and dual LPs of chain ``j`` alone (same form as the whole model)."""
        cols = slice(self.chain_start[j], self.chain_start[j + 1])
        edges = slice(self.edge_start[j], self.edge_start[j + 1])
        first = self.chain_start[j]
        return self._lps(self.cost[cols], self.mass_weight[cols], self.tail[edges] - first,
                         self.head[edges] - first, f" chain {j}", first)

    def _lps(self, cost, mass, tail, head, suffix, first=0):
        name = f"{self.geometry} DILP k={self.k}{suffix}"
        return _chain_lps(cost, mass, tail, head, self.growth, name, self.metadata,
                          PositionLabels(self, first))

    def embed_primal(self, j: int, p_chain: np.ndarray) -> np.ndarray:
        """The whole-model primal point with chain ``j`` at ``p_chain`` and zeros elsewhere."""
        p = np.zeros(self.cost.size)
        p[self.chain_start[j]:self.chain_start[j + 1]] = p_chain
        return p

    def embed_dual(self, w: float, chain_duals: list[np.ndarray]) -> np.ndarray:
        """The whole-model dual point ``(w, mu, nu)`` from every chain's dual LP solution
        ``(w_j, mu_j, nu_j)``: feasible whenever ``w <= min_j w_j`` (as ``M_v > 0``)."""
        edges = self.tail.size
        y = np.zeros(1 + 2 * edges)
        y[0] = w
        for j, yj in enumerate(chain_duals):
            e0, e1 = self.edge_start[j], self.edge_start[j + 1]
            n = e1 - e0
            y[1 + e0:1 + e1] = yj[1:1 + n]
            y[1 + edges + e0:1 + edges + e1] = yj[1 + n:]
        return y

    def chain_mass(self, p: np.ndarray) -> np.ndarray:
        """Total probability on each chain (tails included) of a primal point ``p``."""
        return np.bincount(self.chain, weights=self.mass_weight * p, minlength=self.num_chains)


def _tail_sums(h: DistanceCost | None, margin: int, spacing: float, epsilon: float):
    """``sum_{s>=1} q^s`` and ``sum_{s>=1} h((margin + s) spacing) q^s`` (to 1e-20 relative)."""
    a = epsilon * spacing
    terms = int(math.ceil(46.0 / a)) + 1
    s = np.arange(1, terms + 1, dtype=float)
    weights = np.exp(-a * s)
    costs = _apply(h, (margin + s) * spacing) * weights
    total = float(costs.sum())
    if not (math.isfinite(total) and costs[-1] <= 1e-16 * total):
        raise ValueError("h grows too fast: the tail sum sum_s h(s spacing) e^{-eps spacing s} "
                         "does not converge numerically")
    return 1.0 / math.expm1(a), total


def line_dilp(k: int, epsilon: float, spacing: float, max_spread: int, margin: int,
              h: DistanceCost | None = None) -> DilpModel:
    """The line DILP with exact tails (module docstring).

    ``max_spread`` and ``margin`` are in grid steps; ``h`` a vectorised increasing function
    (default the identity).  Size: about ``sum over chains of (d_k + 2 margin + 1)`` columns
    and twice as many rows.
    """
    _check(k, epsilon)
    if not (math.isfinite(spacing) and spacing > 0):
        raise ValueError(f"spacing must be a finite number > 0; got {spacing!r}")
    if not (max_spread >= 0 and margin >= 1):
        raise ValueError(f"need max_spread >= 0 and margin >= 1 grid steps; "
                         f"got {max_spread}, {margin}")
    chains = canonical_chains(k, max_spread=int(max_spread))
    spread = chains[:, -1]
    length = spread + 2 * margin + 1
    chain_start = np.concatenate([[0], np.cumsum(length)])
    chain = np.repeat(np.arange(len(chains)), length)
    position = (np.arange(chain_start[-1]) - np.repeat(chain_start[:-1], length)
                - np.repeat(spread + margin, length))
    distance = np.abs(position[:, None] + chains[chain]).min(axis=1)
    cost = _apply(h, distance * spacing)
    tail_mass, tail_cost = _tail_sums(h, margin, spacing, epsilon)
    ends = np.concatenate([chain_start[:-1], chain_start[1:] - 1])
    mass = np.ones(cost.size)
    mass[ends] += tail_mass
    cost[ends] += tail_cost
    is_last = np.zeros(cost.size, dtype=bool)
    is_last[chain_start[1:] - 1] = True
    tail = np.flatnonzero(~is_last)
    edge_start = np.concatenate([[0], np.cumsum(length - 1)])
    first_tail = float(_apply(h, np.array([(margin + 1) * spacing]))[0])
    return DilpModel("line", k, float(epsilon), float(spacing), 2 * (int(max_spread) + margin) + 1,
                     int(margin), chains, chain_start, edge_start, position, cost, mass, tail,
                     tail + 1, first_tail)


def _ring_distance(z: np.ndarray, grid: int) -> np.ndarray:
    z = np.mod(z, grid)
    return np.minimum(z, grid - z)


def ring_dilp(k: int, epsilon: float, grid: int, h: DistanceCost | None = None) -> DilpModel:
    """The ring DILP: ``grid`` points on a circle of circumference ``2 pi`` (module docstring)."""
    _check(k, epsilon)
    if not (isinstance(grid, (int, np.integer)) and grid >= 3):
        raise ValueError(f"grid must be an integer >= 3; got {grid!r}")
    spacing = 2.0 * math.pi / grid
    chains = canonical_chains(k, period=int(grid))
    m = len(chains)
    chain = np.repeat(np.arange(m), grid)
    position = np.tile(np.arange(grid), m)
    distance = _ring_distance(position[:, None] + chains[chain], grid).min(axis=1)
    cost = _apply(h, distance * spacing)
    tail = np.arange(cost.size)
    head = np.where(position == grid - 1, tail - (grid - 1), tail + 1)
    starts = grid * np.arange(m + 1)
    return DilpModel("ring", k, float(epsilon), spacing, int(grid), 0, chains, starts, starts,
                     position, cost, np.ones(cost.size), tail, head, math.inf)


@dataclass(frozen=True, eq=False)
class UserResultLabels:
    """Labels ``g[user u, results=(grid points)]`` of the per-user LP's columns ``1 + g``
    (``g``: user-major index of the pair (user, results))."""

    results: np.ndarray

    def __call__(self, g: np.ndarray) -> list[str]:
        user, result = np.divmod(g, len(self.results))
        return [f"g[user {u}, results={vector(self.results[x])}]"
                for u, x in zip(user.tolist(), result.tolist())]


@dataclass(frozen=True, eq=False)
class _UserLabels:
    template: str

    def __call__(self, local: np.ndarray) -> list[str]:
        return [self.template.format(u=u) for u in local.tolist()]


def ring_dilp_per_user(k: int, epsilon: float, grid: int,
                       h: DistanceCost | None = None) -> LinearProgram:
    """The ring DILP (12) without the invariance reduction, for cross-checks on small grids.

    Columns: ``kappa`` (column 0), then ``g(u, x)`` for every user ``u`` and every multiset
    ``x`` of ``k`` grid points (``metadata["results"]``), user-major.  Rows: the epigraph
    ``kappa >= sum_x c(u, x) g(u, x)`` per user, ``sum_x g(u, x) = 1`` per user, and the
    two ratio bounds between users ``u`` and ``u + 1`` for every ``x``.  Minimise ``kappa``.
    Restricting outputs to multisets loses nothing (the user only uses the set).
    """
    _check(k, epsilon)
    if not (isinstance(grid, (int, np.integer)) and grid >= 3):
        raise ValueError(f"grid must be an integer >= 3; got {grid!r}")
    spacing = 2.0 * math.pi / grid
    results = sorted_vectors(k, grid - 1)
    r = len(results)
    users = np.arange(grid)
    distance = _ring_distance(results[None, :, :] - users[:, None, None], grid).min(axis=2)
    c = _apply(h, (distance * spacing).ravel())
    col = 1 + np.arange(grid * r)
    user_of = np.repeat(users, r)
    epigraph = (np.concatenate([users, user_of]), np.concatenate([np.zeros(grid, int), col]),
                np.concatenate([np.ones(grid), -c]))
    normal = (grid + user_of, col, np.ones(grid * r))
    neighbour = 1 + ((user_of + 1) % grid) * r + np.tile(np.arange(r), grid)
    e_rows, e_cols, e_vals = _edge_triplets(col, neighbour, math.exp(epsilon * spacing),
                                            first_row=2 * grid)
    rows = np.concatenate([epigraph[0], normal[0], e_rows])
    cols = np.concatenate([epigraph[1], normal[1], e_cols])
    vals = np.concatenate([epigraph[2], normal[2], e_vals])
    n_rows = 2 * grid + 2 * grid * r
    cost = np.zeros(1 + grid * r)
    cost[0] = 1.0
    columns = UserResultLabels(results)
    per_user = LabelBlock("sum-to-one", grid, "sum", _UserLabels("sum-to-one[user {u}]"))
    return LinearProgram(
        cost=cost, matrix=sp.csc_matrix((vals, (rows, cols)), shape=(n_rows, 1 + grid * r)),
        row_lower=np.concatenate([np.zeros(grid), np.ones(grid), np.zeros(2 * grid * r)]),
        row_upper=np.concatenate([np.full(grid, np.inf), np.ones(grid),
                                  np.full(2 * grid * r, np.inf)]),
        col_lower=np.concatenate([[-np.inf], np.zeros(grid * r)]),
        name=f"ring DILP per user k={k}", objective_units=COST_UNITS,
        col_blocks=(LabelBlock("epigraph", 1, "kappa", names=("kappa",)),
                    LabelBlock("probability", grid * r, "g", columns)),
        row_blocks=(LabelBlock("epigraph", grid, "epi",
                               _UserLabels("epigraph[kappa >= cost of user {u}]")), per_user,
                    LabelBlock(_UP, grid * r, "up",
                               PairLabels(_PRIVACY, col - 1, neighbour - 1, columns)),
                    LabelBlock(_DOWN, grid * r, "down",
                               PairLabels(_PRIVACY, neighbour - 1, col - 1, columns))),
        metadata={"geometry": "ring", "k": k, "epsilon": epsilon, "spacing": spacing,
                  "grid": int(grid), "results": results})
