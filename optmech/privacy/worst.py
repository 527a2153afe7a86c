"""The worst pair of neighbouring score vectors for a mechanism: a certified lower bound.

Whatever pair the search finds is explicit (its scores and neighbour are in the result), so
its curves are exact values of the mechanism's privacy curves at that pair: the mechanism's
own curve (the sup over all pairs) is at least that high.  Beside it
:func:`~optmech.privacy.bounds.proven_bound` gives the upper bound a theorem proves, so
each figure is a bracket ``[worst found, proven bound]``.

The search maximises one objective (``zcdp_rho``: ``max D_alpha / alpha`` over
:data:`SEARCH_ORDERS`; ``max_loss``; ``delta``: ``delta(eps')`` at one ``eps'``; ``renyi``:
``D_alpha`` at one order), both directions of every pair counted:

* **Grid** (exhaustive, when it has at most ``exhaustive_limit`` pairs): the first candidate
  at score 0, every other at a level ``0, -Δ, ..., -depth Δ`` (``Δ`` the largest
  sensitivity), every candidate moved by ``-Δ_r``, 0 or ``+Δ_r`` (only one sign with
  ``monotonic``).  For a mechanism of :mod:`optmech.selection` with one sensitivity
  (permutation-equivariant: relabelling candidates relabels outputs) the grid is taken up to
  order, as multisets of ``(level, move)`` with at least one candidate at level 0 (a common
  shift changes nothing): ``C(3 (depth + 1) + n - 1, n) - C(3 depth + n - 1, n)`` pairs.
  Otherwise it is the full product.
* **Local** (always): L-BFGS-B from the ``polish`` best grid pairs, and from ``starts``
  random starts (seeded), over scores in ``[-span, span]`` (first candidate at 0) and moves
  ``|d_r| <= Δ_r``; gradients by central differences, all of one step evaluated in one batch.

Costs are estimated from the number of pmf evaluations before the search starts
(:func:`search_estimate`, what ``optmech privacy worst`` checks before it runs) and refused
beyond the work and memory budgets (:func:`~optmech.resources.require`).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np

from lp_models.display import Tabular
from optmech.privacy.bounds import ProvenBound, proven_bound
from optmech.privacy.curves import PairCurves, curves_of, default_eps_prime
from optmech.privacy.divergences import DEFAULT_ORDERS, hockey_stick, max_loss, renyi
from optmech.privacy.loss import LossDistribution, log_probabilities, sensitivities
from optmech.progress import progress
from optmech.resources import Estimate, require
from optmech.selection.mechanisms import ReportNoisyMax, SelectionMechanism
from optmech.validation import InvalidArgumentError, check_choice, check_integer, check_rng

__all__ = ["OBJECTIVES", "SEARCH_ORDERS", "WorstPair", "pair_objective", "search_cost",
           "search_estimate", "worst_over_pairs", "worst_pair"]

OBJECTIVES = ("zcdp_rho", "max_loss", "delta", "renyi")
#: Orders of the search's zCDP objective (the reported curves use the full default grid).
SEARCH_ORDERS = np.concatenate([[1.0], 1.0 + np.geomspace(1e-2, 1e3, 40)])
_STEP = 1e-6            # central-difference step, relative to the variable's scale

# CPU seconds per score vector of n candidates in one pmf evaluation (upper estimates on a
# loaded 2-core machine): closed forms and PF's quadrature, and report-noisy-max with Laplace
# noise (row by row, panels at every score).
_SECONDS_PER_ROW = {"fast": 2e-6, "laplace": 4e-4, "other": 1e-3}


@dataclass(frozen=True)
class WorstPair(Tabular):
    """The worst pair found, its curves and the proven bound beside them."""

    #: The mechanism's name.
    mechanism: str
    #: Number of candidates.
    n: int
    #: What the search maximised: ``"zcdp_rho"``, ``"max_loss"``, ``"delta"`` (at ``eps'``)
    #: or ``"renyi"`` (at an order).
    objective: str
    #: The ``eps'`` of ``"delta"``, the order of ``"renyi"`` (None for the others).
    at: float | None
    #: The objective at the pair found (on the full grids of :attr:`curves`).
    value: float
    #: The pair's curves (its scores and neighbour are ``curves.scores``, ``curves.neighbour``).
    curves: PairCurves = field(repr=False)
    #: The proven upper bound, or None where no theorem gives one.
    bound: ProvenBound | None = field(repr=False)
    #: How the pair was found (the grid stated, local starts).
    method: str
    #: Pairs evaluated in total (grid pairs and local-search evaluations).
    pairs_evaluated: int

    @property
    def bound_value(self) -> float | None:
        """The proven bound on the objective (None without a bound)."""
        if self.bound is None:
            return None
        if self.objective == "max_loss":
            return self.bound.max_loss
        if self.objective == "delta":
            return float(self.bound.delta([self.at])[0])
        if self.objective == "renyi":
            return float(self.bound.renyi([self.at])[0])
        return self.bound.zcdp_rho

    def _display_items(self):
        return [("mechanism", self.mechanism), ("n", self.n), ("objective", self.objective),
                ("value", self.value), ("bound", self.bound_value),
                ("scores", self.curves.scores.tolist()),
                ("neighbour", self.curves.neighbour.tolist()), ("method", self.method)]

    def records(self) -> list[dict]:
        return [dict(self._display_items())]


def _objective_values(log_rows: np.ndarray, objective: str, at: float | None) -> np.ndarray:
    """The objective of each pair from its stacked log-pmfs (shape ``(m, 2, n)``)."""
    forward = log_rows
    backward = log_rows[:, ::-1]
    if objective == "max_loss":
        return max_loss(forward, backward).max(axis=1)
    if objective == "delta":
        return hockey_stick(forward, backward, [at])[..., 0].max(axis=1)
    if objective == "renyi":
        return renyi(forward, backward, [at])[..., 0].max(axis=1)
    return (_ranking_renyi(forward, backward) / SEARCH_ORDERS).max(axis=(1, 2))


def _ranking_renyi(log_p: np.ndarray, log_q: np.ndarray) -> np.ndarray:
    """``D_alpha`` on :data:`SEARCH_ORDERS` by the plain formulas (``sum p log(p/q)`` at 1,
    ``log sum p^alpha q^(1-alpha) / (alpha - 1)`` above), all orders in one array operation:
    ten times faster than :func:`~optmech.privacy.divergences.renyi`, and accurate to about
    1e-13 relative at these orders (the smallest is 1.01) for ranking pairs; a reported value
    is always recomputed by the stable path."""
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        loss = np.where(np.isneginf(log_p), 0.0, log_p - log_q)
        kl = (np.exp(log_p) * loss).sum(axis=-1)
        h = SEARCH_ORDERS[1:] - 1.0
        terms = np.where(np.isneginf(log_p)[..., None], -np.inf,
                         log_p[..., None] + loss[..., None] * h)
        top = terms.max(axis=-2, keepdims=True)
        log_sum = np.log(np.exp(terms - top).sum(axis=-2)) + top[..., 0, :]
    return np.concatenate([kl[..., None], log_sum / h], axis=-1)


def pair_objective(mechanism, scores: np.ndarray, neighbours: np.ndarray, objective: str,
                   at: float | None = None, unit: float | None = None) -> np.ndarray:
    """The objective of each pair ``(scores[i], neighbours[i])`` (both 2-D), evaluated in
    one batch of pmf evaluations.  ``unit``: every score lies on a lattice of this step,
    which lets report-noisy-max with Laplace noise rank the pairs from one quadrature
    (:func:`_lattice_log_probabilities`)."""
    rows = np.concatenate([scores, neighbours])
    logs = None if unit is None else _lattice_log_probabilities(mechanism, rows, unit)
    if logs is None:
        logs = log_probabilities(mechanism, rows)
    m = scores.shape[0]
    return _objective_values(np.stack([logs[:m], logs[m:]], axis=1), objective, at)


def _lattice_log_probabilities(mechanism, rows: np.ndarray, unit: float) -> np.ndarray | None:
    """Report-noisy-max with Laplace noise on rows whose scores lie on one lattice of step
    ``unit``: all rows from one quadrature grid
    (:func:`~optmech.selection.laplace_noisy_max.laplace_level_probabilities`, 1e-16
    absolute, so a probability below about 1e-15 has an inexact logarithm: good for ranking
    grid pairs, never for a reported value).  None for any other mechanism or rows."""
    if not _laplace(mechanism):
        return None
    from optmech.selection.laplace_noisy_max import laplace_level_probabilities

    steps = (rows.max(axis=1, keepdims=True) - rows) / unit
    index = np.rint(steps).astype(np.int64)
    if np.abs(steps - index).max() > 1e-9:
        return None
    levels = -(unit / mechanism.scale) * np.arange(index.max() + 1)
    counts = np.zeros((rows.shape[0], levels.size), dtype=np.int64)
    np.add.at(counts, (np.arange(rows.shape[0])[:, None], index), 1)
    probabilities = laplace_level_probabilities(levels, counts, show_progress=False)
    with np.errstate(divide="ignore"):
        return np.log(np.take_along_axis(probabilities, index, axis=1))


def _laplace(mechanism) -> bool:
    return isinstance(mechanism, ReportNoisyMax) and mechanism.noise == "laplace"


def _cost_class(mechanism) -> str:
    if _laplace(mechanism):
        return "laplace"
    # repeat-and-select (optmech.privacy.repeat) of a closed-form mechanism costs about as
    # much as its base; of report-noisy-max with Laplace noise, row by row ("other")
    base = getattr(mechanism, "base", mechanism)
    return "fast" if isinstance(base, SelectionMechanism) and not _laplace(base) else "other"


def _grid_pairs(n: int, delta: np.ndarray, depth: int, monotonic: bool,
                symmetric: bool) -> tuple[np.ndarray, np.ndarray]:
    """The grid of the module docstring as ``(scores, neighbours)``."""
    unit = float(delta.max())
    levels = -unit * np.arange(depth + 1)
    move_sets = [(-1.0, 0.0), (0.0, 1.0)] if monotonic else [(-1.0, 0.0, 1.0)]
    scores, neighbours = [], []
    for moves in move_sets:
        types = [(level, move) for level in range(depth + 1) for move in moves]
        if symmetric:
            combos = [c for c in itertools.combinations_with_replacement(range(len(types)), n)
                      if min(types[t][0] for t in c) == 0]
            chosen = np.array([[types[t] for t in c] for c in combos])
            q = levels[chosen[..., 0].astype(int)]
            d = chosen[..., 1] * delta
        else:
            level_rows = np.array([c for c in itertools.product(range(depth + 1), repeat=n)
                                   if c[0] == 0])
            move_rows = np.array(list(itertools.product(moves, repeat=n)))
            q = np.repeat(levels[level_rows], len(move_rows), axis=0)
            d = np.tile(move_rows, (len(level_rows), 1)) * delta
        scores.append(q)
        neighbours.append(q + d)
    return np.concatenate(scores), np.concatenate(neighbours)


def _grid_size(n: int, depth: int, monotonic: bool, symmetric: bool) -> int:
    moves = 2 if monotonic else 3
    sets = 2 if monotonic else 1
    if symmetric:       # multisets of (level, move) with at least one at level 0
        types = moves * (depth + 1)
        return sets * (math.comb(types + n - 1, n) - math.comb(types - moves + n - 1, n))
    return sets * (depth + 1) ** (n - 1) * moves ** n


@dataclass(frozen=True)
class _Plan:
    """What a search will evaluate: the neighbour relation and the grid."""

    n: int
    delta: np.ndarray
    monotonic: bool
    symmetric: bool
    grid_size: int
    exhaustive: bool

    def estimate(self, mechanism, starts: int, polish: int, iterations: int) -> Estimate:
        """CPU seconds (:func:`search_cost`) and the grid's memory, naming ``n``."""
        local_starts = starts + (polish if self.exhaustive else 0)
        grid = self.grid_size if self.exhaustive else 0
        return Estimate(search_cost(mechanism, self.n, grid, local_starts, iterations),
                        48.0 * self.n * grid, "n", self.n)


def _plan(mechanism, n: int, depth: int, sensitivity, monotonic, exhaustive_limit: int
          ) -> _Plan:
    """The search's plan; ``sensitivity`` and ``monotonic`` default to the mechanism's."""
    if sensitivity is None:
        sensitivity = getattr(mechanism, "sensitivity", 1.0)
    if monotonic is None:
        monotonic = bool(getattr(mechanism, "monotonic", False))
    delta = sensitivities(n, sensitivity)
    symmetric = (isinstance(mechanism, SelectionMechanism)
                 and bool(np.all(delta == float(delta.max()))))
    grid_size = _grid_size(n, depth, monotonic, symmetric)
    return _Plan(n, delta, monotonic, symmetric, grid_size, grid_size <= exhaustive_limit)


def search_estimate(mechanism, n: int, *, depth: int = 4, starts: int = 4, polish: int = 3,
                    iterations: int = 60, sensitivity=None, monotonic: bool | None = None,
                    exhaustive_limit: int = 200_000) -> Estimate:
    """The work and memory :func:`worst_pair` with these arguments needs (an
    :class:`~optmech.resources.Estimate` naming ``n``), before any of it; what
    :func:`worst_pair` refuses beyond the budgets."""
    n = check_integer(n, "n", minimum=2, maximum=10_000)
    depth = check_integer(depth, "depth", minimum=1, maximum=64)
    return _plan(mechanism, n, depth, sensitivity, monotonic, exhaustive_limit).estimate(
        mechanism, starts, polish, iterations)


def search_cost(mechanism, n: int, grid_pairs: int, starts: int, iterations: int) -> float:
    """Estimated CPU seconds of a search: pmf rows times the measured cost per row."""
    per_row = _SECONDS_PER_ROW[_cost_class(mechanism)] * max(n, 1) ** (
        1.0 if _cost_class(mechanism) == "fast" else 1.5)
    local_rows = starts * iterations * 2 * (2 * (2 * n - 1) + 1)
    grid_rows = 2 * grid_pairs * (0.02 if _cost_class(mechanism) == "laplace" else 1.0)
    return (grid_rows + local_rows) * per_row


class _Local:
    """L-BFGS-B over ``x = (q_1 .. q_{n-1}, u_0 .. u_{n-1})``: ``q_0 = 0``, neighbour
    ``q + Δ ⊙ u`` (``u`` in ``[-1, 1]``, or one sign with ``monotonic``)."""

    def __init__(self, mechanism, n, delta, span, objective, at, monotonic_sign):
        self.mechanism, self.n, self.delta = mechanism, n, delta
        self.objective, self.at = objective, at
        self.bounds = [(-span, span)] * (n - 1) + \
            [(0.0, 1.0) if monotonic_sign > 0 else (-1.0, 0.0) if monotonic_sign < 0
             else (-1.0, 1.0)] * n
        self.evaluations = 0
        self.scale = np.array([max(span, 1.0)] * (n - 1) + [1.0] * n)

    def pairs(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        x = np.atleast_2d(x)
        q = np.concatenate([np.zeros((x.shape[0], 1)), x[:, :self.n - 1]], axis=1)
        return q, q + x[:, self.n - 1:] * self.delta

    def values(self, x: np.ndarray) -> np.ndarray:
        q, other = self.pairs(x)
        self.evaluations += q.shape[0]
        return pair_objective(self.mechanism, q, other, self.objective, self.at)

    def value_and_gradient(self, x: np.ndarray):
        lo = np.array([b[0] for b in self.bounds])
        hi = np.array([b[1] for b in self.bounds])
        h = _STEP * self.scale
        plus = np.minimum(x + np.diag(h), hi)
        minus = np.maximum(x - np.diag(h), lo)
        batch = np.concatenate([x[None, :], plus, minus])
        values = self.values(batch)
        width = np.maximum(np.diag(plus - minus), 1e-300)
        gradient = (values[1:x.size + 1] - values[x.size + 1:]) / width
        return -values[0], -np.where(np.isfinite(gradient), gradient, 0.0)

    def run(self, x0: np.ndarray, iterations: int) -> tuple[np.ndarray, float]:
        from scipy.optimize import minimize

        result = minimize(self.value_and_gradient, x0, jac=True, method="L-BFGS-B",
                          bounds=self.bounds, options={"maxiter": iterations})
        x = np.clip(result.x, [b[0] for b in self.bounds], [b[1] for b in self.bounds])
        return x, float(self.values(x)[0])


def worst_over_pairs(mechanism, scores, neighbours, *, objective: str = "zcdp_rho",
                     at: float | None = None, eps_prime=None, orders=DEFAULT_ORDERS,
                     bound: ProvenBound | None = None, name: str | None = None,
                     method: str = "given pairs") -> WorstPair:
    """The worst of the given pairs (rows of ``scores`` and ``neighbours``, evaluated in
    blocks with progress on stderr): for mechanisms defined on a set of score vectors only
    (the optimal lattice mechanism), where no local search applies."""
    scores = np.atleast_2d(np.asarray(scores, dtype=float))
    neighbours = np.atleast_2d(np.asarray(neighbours, dtype=float))
    objective = check_choice(objective, "objective", OBJECTIVES)
    at = _objective_parameter(objective, at, getattr(mechanism, "epsilon", None))
    best, where = -math.inf, 0
    starts = range(0, scores.shape[0], 4096)
    for start in progress(starts, total=len(starts), desc="pairs"):
        values = pair_objective(mechanism, scores[start:start + 4096],
                                neighbours[start:start + 4096], objective, at)
        i = int(np.argmax(values))
        if values[i] > best:
            best, where = float(values[i]), start + i
    return _result(mechanism, scores[where], neighbours[where], objective, at, eps_prime,
                   orders, bound, name, method, scores.shape[0])


def _objective_parameter(objective: str, at, epsilon) -> float | None:
    """The ``eps'`` of ``"delta"`` (default half of ε) or the order of ``"renyi"``
    (default 2); None for the other objectives."""
    if objective == "delta":
        at = 0.5 * (epsilon or 1.0) if at is None else float(at)
        if not (math.isfinite(at) and at >= 0):
            raise InvalidArgumentError("at", at, "an eps' >= 0")
        return at
    if objective == "renyi":
        at = 2.0 if at is None else float(at)
        if not at >= 1:
            raise InvalidArgumentError("at", at, "a Rényi order >= 1")
        return at
    return None


def _result(mechanism, scores, neighbour, objective, at, eps_prime, orders, bound, name,
            method, evaluated) -> WorstPair:
    """The :class:`WorstPair` of one explicit pair (its curves on the full grids)."""
    distribution = _distribution(mechanism, np.asarray(scores, dtype=float),
                                 np.asarray(neighbour, dtype=float))
    if eps_prime is None:
        eps_prime = default_eps_prime(getattr(mechanism, "epsilon", None) or 1.0)
    curves = curves_of(distribution, eps_prime, orders)
    if bound is None:
        bound = proven_bound(mechanism)
    label = name or getattr(mechanism, "name", None) or type(mechanism).__name__
    return WorstPair(label, distribution.scores.size, objective, at,
                     _reported_value(curves, objective, at), curves, bound, method, evaluated)


def worst_pair(mechanism, n: int, *, objective: str = "zcdp_rho", at: float | None = None,
               sensitivity=None, monotonic: bool | None = None, depth: int = 4,
               span: float | None = None, starts: int = 4, polish: int = 3,
               iterations: int = 60, exhaustive_limit: int = 200_000, rng=0,
               eps_prime=None, orders=DEFAULT_ORDERS, bound: ProvenBound | None = None,
               name: str | None = None) -> WorstPair:
    """The worst pair found for ``mechanism`` on ``n`` candidates (module docstring).

    ``at`` is the ``eps'`` of the ``"delta"`` objective (default: half the mechanism's ε) or
    the order of ``"renyi"`` (default 2).
    ``span`` bounds the local search's scores (default ``max(depth Δ, 40 Δ / ε)``, 20 noise
    scales).  ``bound`` overrides :func:`~optmech.privacy.bounds.proven_bound` (for a
    mechanism whose guarantee the caller knows).  ``eps_prime`` and ``orders`` are the grids
    of the reported curves.
    """
    objective = check_choice(objective, "objective", OBJECTIVES)
    n = check_integer(n, "n", minimum=2, maximum=10_000)
    depth = check_integer(depth, "depth", minimum=1, maximum=64)
    starts = check_integer(starts, "starts", minimum=0, maximum=10_000)
    polish = check_integer(polish, "polish", minimum=0, maximum=1000)
    iterations = check_integer(iterations, "iterations", minimum=1, maximum=100_000)
    generator = check_rng(rng)
    epsilon = getattr(mechanism, "epsilon", None)
    at = _objective_parameter(objective, at, epsilon)
    plan = _plan(mechanism, n, depth, sensitivity, monotonic, exhaustive_limit)
    delta, monotonic, symmetric = plan.delta, plan.monotonic, plan.symmetric
    grid_size, exhaustive = plan.grid_size, plan.exhaustive
    unit = float(delta.max())
    if span is None:
        span = max(depth * unit, 40.0 * unit / epsilon if epsilon else 8.0 * depth * unit)
    if not (math.isfinite(span) and span > 0):
        raise InvalidArgumentError("span", span, "a number > 0")
    require(plan.estimate(mechanism, starts, polish, iterations))

    candidates: list[tuple[float, np.ndarray, np.ndarray]] = []
    evaluated = 0
    if exhaustive:
        q, other = _grid_pairs(n, delta, depth, monotonic, symmetric)
        values = np.concatenate([
            pair_objective(mechanism, q[s:s + 4096], other[s:s + 4096], objective, at, unit)
            for s in progress(range(0, q.shape[0], 4096), desc="grid pairs")])
        evaluated += q.shape[0]
        order = np.argsort(-values, kind="stable")
        candidates += [(float(values[i]), q[i], other[i]) for i in order[:max(polish, 1)]]
    method = (f"grid: levels 0..-{depth}·Δ, moves in {{-Δ, 0, +Δ}}"
              f"{' (one sign)' if monotonic else ''}, {grid_size} pairs"
              + (" up to order" if symmetric else "") if exhaustive
              else f"grid of {grid_size} pairs skipped (> {exhaustive_limit})")
    seeds = [(c[1], c[2]) for c in candidates[:polish]] if exhaustive else []
    for _ in range(starts):
        x = generator.uniform(-span / 4, 0.0, n - 1)
        u = generator.choice([-1.0, 1.0], n) * generator.uniform(0.5, 1.0, n)
        q0 = np.concatenate([[0.0], x])
        seeds.append((q0, q0 + u * delta))
    for start in progress(seeds, desc="local searches"):
        q0, other0 = start
        sign = 0
        if monotonic:
            sign = 1 if (other0 - q0).sum() >= 0 else -1
        local = _Local(mechanism, n, delta, span, objective, at, sign)
        shift = q0[0]
        x0 = np.concatenate([q0[1:] - shift, (other0 - q0) / np.where(delta > 0, delta, 1)])
        # a small seeded jitter: a grid pair can sit on a symmetric saddle (scores swapped
        # by the move, where both directions tie) that L-BFGS-B would not leave
        x0 = x0 + generator.normal(0.0, 1e-3, x0.size) * local.scale
        x0 = np.clip(x0, [b[0] for b in local.bounds], [b[1] for b in local.bounds])
        x, value = local.run(x0, iterations)
        evaluated += local.evaluations
        q, other = local.pairs(x)
        candidates.append((value, q[0], other[0]))
    if not candidates:
        raise InvalidArgumentError("starts", starts, "at least 1 when the grid is skipped")
    method += f"; L-BFGS-B from {len(seeds)} starts over scores in [-{span:g}, {span:g}]"
    _, q_best, other_best = max(candidates, key=lambda c: c[0])
    return _result(mechanism, q_best, other_best, objective, at, eps_prime, orders, bound,
                   name, method, evaluated)


def _distribution(mechanism, scores: np.ndarray, neighbour: np.ndarray) -> LossDistribution:
    logs = log_probabilities(mechanism, np.stack([scores, neighbour]))
    return LossDistribution(scores.copy(), neighbour.copy(), np.minimum(logs[0], 0.0),
                            np.minimum(logs[1], 0.0))


def _reported_value(curves: PairCurves, objective: str, at: float | None) -> float:
    if objective == "max_loss":
        return float(curves.max_loss)
    forward = np.stack([curves.distribution.log_p, curves.distribution.log_q])
    if objective == "delta":
        return float(hockey_stick(forward, forward[::-1], [at])[:, 0].max())
    if objective == "renyi":
        return float(renyi(forward, forward[::-1], [at])[:, 0].max())
    return float(curves.zcdp_rho)
