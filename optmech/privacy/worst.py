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
* **Growth** (permute-and-flip, the exponential mechanism and report-noisy-max, one
  sensitivity): a pair on ``n - 1`` candidates is a pair on ``n`` with one more candidate so
  far below that it changes nothing in double precision (weight ``e^-840``,
  :func:`_padding_gap`), so the worst on ``n`` is at least the worst on ``n - 1``.  The search
  runs from scratch (grid and local) only up to :data:`BASE_SIZE` candidates, each size seeded
  with the one before, then grows its best pair one candidate at a time to ``n``: the pair
  as it was (with a neutral candidate), or the new candidate joining one of its groups of
  equal score and move (alone, or with one candidate moved over from another group), or a
  new one just below them moving either way; from the two best of these, L-BFGS-B moves the
  (at most :data:`MAX_CLUSTERS`) highest groups' scores and moves.  So the worst found never
  decreases with ``n`` (up to the rounding of the recomputed curves, 1e-15 relative), every
  step is cheap whatever ``n`` (a handful of variables; the neutral candidates are left out
  until the end), and structures with tied top scores are reached (two candidates at the top
  moving down, three just below moving up: report-noisy-max with Laplace noise, ``delta(1)``
  at ε = 2, n = 5, 0.240465, which random starts missed in 5 of 27 runs by up to 1.1 %).
  Randomised response is left out: it spreads ``1 / (e^ε + k - 1)`` over every candidate,
  however low, and its curves do fall with ``n`` (zCDP ρ at ε = 1: 0.462, 0.364, 0.256 at
  n = 2, 3, 5).

All of it runs with BLAS on one thread (``threadpoolctl``): thousands of small matrix
products, beside each of which an idle OpenBLAS worker spun, cost 10 times the CPU (PF at
n = 3: 1.1 CPU s before, 0.11 after).  At n = 50 with the defaults: report-noisy-max with
Laplace noise 11 to 18 CPU s (it was refused: estimated 3.75 h), the others below 1.5 s.

Costs are estimated from the number of pmf evaluations before the search starts
(:func:`search_estimate`, what ``optmech privacy worst`` checks before it runs) and refused
beyond the work and memory budgets (:func:`~optmech.resources.require`).  The estimate is
within a factor of about 1.3 to 4 of the measured CPU time for every mechanism at n = 2 ...
50 (it counts at most 40 L-BFGS-B evaluations a start where 12 to 35 were measured).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field

import numpy as np
from threadpoolctl import threadpool_limits

from lp_models.display import Tabular
from optmech.privacy.bounds import ProvenBound, proven_bound
from optmech.privacy.curves import PairCurves, curves_of, default_eps_prime
from optmech.privacy.divergences import DEFAULT_ORDERS, hockey_stick, max_loss, renyi
from optmech.privacy.loss import log_probabilities, pair_distribution, sensitivities
from optmech.progress import progress
from optmech.resources import Estimate, require
from optmech.selection.mechanisms import (
    ExponentialMechanism,
    PermuteAndFlip,
    RandomizedResponse,
    ReportNoisyMax,
    SelectionMechanism,
    UniformSelection,
)
from optmech.validation import InvalidArgumentError, check_choice, check_integer, check_rng

__all__ = ["OBJECTIVES", "SEARCH_ORDERS", "WorstPair", "pair_objective",
           "search_cost", "search_estimate", "worst_over_pairs", "worst_pair"]

OBJECTIVES = ("zcdp_rho", "max_loss", "delta", "renyi")
#: Orders of the search's zCDP objective (the reported curves use the full default grid).
SEARCH_ORDERS = np.concatenate([[1.0], 1.0 + np.geomspace(1e-2, 1e3, 40)])
_STEP = 1e-6            # central-difference step, relative to the variable's scale

# CPU seconds of one batch of pmf evaluations: (per call, per row, per row and candidate),
# 1.5 to 3 times the measured on a 2-core machine with BLAS on one thread: PF 0.23 ms for 22
# rows of 3 candidates, 12 ms for 398 rows of 50; EM about half of that; report-noisy-max
# with Laplace noise row by row, 0.45 ms a row of 5 candidates in two groups, 2.7 ms of 50
# distinct ones; with Gaussian noise 1.2, 3.2 and 26 ms a row of 2, 10 and 50 scores within
# 40 scales (a log-space quadrature per tiny level): 0.5 ms a row and a candidate, the
# margin from the 40 evaluations a start; a mechanism of your own:
# 1 ms a row.
_SECONDS_PER_CALL = {"fast": (3e-4, 2e-6, 8e-7), "softmax": (1e-4, 5e-7, 3e-7),
                     "laplace": (3e-4, 3e-4, 3e-5), "gaussian": (3e-4, 5e-4, 5e-4),
                     "other": (3e-4, 1e-3, 1e-4)}
# L-BFGS-B evaluations per start (measured: 12 to 35 for the searches from scratch at n = 2
# and 3, about 8 for a growth step's groups), capped by 1.3 per iteration allowed; 3 where
# the objective is flat in the scores (randomised response, uniform: one gradient, zero).
_EVALUATIONS, _GROWTH_EVALUATIONS, _FLAT_EVALUATIONS = 40, 12, 3
#: Sizes searched from scratch (grid and local starts) before growth takes over.
BASE_SIZE = 3
#: A padding candidate's gap in units of ``1 / exponent``: ``e^-840 < 1e-364``.
FAR_EXPONENT = 840.0
#: Groups of candidates the growth step's local search moves (the highest ones).
MAX_CLUSTERS = 3
#: L-BFGS-B iterations of a growth step, from each of its best ``GROWTH_STARTS`` options.
GROWTH_ITERATIONS = 15
GROWTH_STARTS = 2
#: Candidates within this many Δ (scores and moves) form one group.
CLUSTER_TOLERANCE = 0.02


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
        # log(sum p e^(h L)) / h as max y + log(sum e^(h (y - max y))) / h, y = log p / h + L:
        # no h L is formed (a loss near 1e308 at huge epsilon)
        y = np.where(np.isneginf(log_p)[..., None], -np.inf,
                     log_p[..., None] / h + loss[..., None])
        top = y.max(axis=-2, keepdims=True)
        scaled = np.log(np.exp(h * (y - top)).sum(axis=-2)) / h + top[..., 0, :]
    return np.concatenate([kl[..., None], scaled], axis=-1)


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
    with np.errstate(over="ignore"):
        levels = -(unit / mechanism.scale) * np.arange(index.max() + 1)
    if not np.isfinite(levels).all():
        return None                     # gaps beyond the double range in scale units
    counts = np.zeros((rows.shape[0], levels.size), dtype=np.int64)
    np.add.at(counts, (np.arange(rows.shape[0])[:, None], index), 1)
    probabilities = laplace_level_probabilities(levels, counts, show_progress=False)
    with np.errstate(divide="ignore"):
        return np.log(np.take_along_axis(probabilities, index, axis=1))


def _laplace(mechanism) -> bool:
    return isinstance(mechanism, ReportNoisyMax) and mechanism.noise == "laplace"


def _cost_class(mechanism) -> str:
    """Which row of :data:`_SECONDS_PER_CALL` prices ``mechanism``'s pmf evaluations;
    repeat-and-select (:mod:`optmech.privacy.repeat`) costs about as much as its base, row by
    row ("other") for report-noisy-max with Laplace noise."""
    base = getattr(mechanism, "base", mechanism)
    if base is not mechanism and _laplace(base):
        return "other"
    if isinstance(base, ReportNoisyMax):
        return {"laplace": "laplace", "gaussian": "gaussian",
                "gumbel": "softmax"}.get(base.noise, "fast")
    if isinstance(base, PermuteAndFlip):
        return "fast"
    if isinstance(base, (ExponentialMechanism, RandomizedResponse, UniformSelection)):
        return "softmax"
    return "fast" if isinstance(base, SelectionMechanism) else "other"


def _evaluations(mechanism, iterations: int, cap: int) -> int:
    """L-BFGS-B evaluations to expect from one start: ``min(1.3 iterations, cap)``, or
    :data:`_FLAT_EVALUATIONS` for a mechanism whose output ignores the scores' values
    beyond their order (its objective is flat: the first gradient is zero)."""
    if isinstance(mechanism, (RandomizedResponse, UniformSelection)):
        return _FLAT_EVALUATIONS
    return min(math.ceil(1.3 * iterations), cap)


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
    """What a search will evaluate: the neighbour relation, the grid, and whether pairs on
    fewer candidates are grown into it (module docstring)."""

    n: int
    delta: np.ndarray
    monotonic: bool
    symmetric: bool
    grid_size: int
    exhaustive: bool
    #: The score gap of a neutral padding candidate (None: no growth from smaller n).
    far: float | None
    depth: int
    exhaustive_limit: int

    def base_sizes(self) -> range:
        """The sizes searched from scratch: all of them without growth, else up to
        :data:`BASE_SIZE`."""
        return range(2 if self.far is not None else self.n,
                     (min(self.n, BASE_SIZE) if self.far is not None else self.n) + 1)

    def at(self, m: int) -> _Plan:
        """The plan of the same search on ``m`` candidates."""
        grid_size = _grid_size(m, self.depth, self.monotonic, self.symmetric)
        return _Plan(m, np.full(m, float(self.delta.max())), self.monotonic, self.symmetric,
                     grid_size, grid_size <= self.exhaustive_limit, self.far, self.depth,
                     self.exhaustive_limit)

    def estimate(self, mechanism, starts: int, polish: int, iterations: int) -> Estimate:
        """CPU seconds (:func:`search_cost` of every size searched, and the growth steps)
        and the largest grid's memory, naming ``n``."""
        seconds, grid_bytes = 0.0, 0.0
        for m in self.base_sizes():
            plan = self if m == self.n else self.at(m)
            local_starts = starts + (polish if plan.exhaustive else 0)
            grid = plan.grid_size if plan.exhaustive else 0
            seconds += search_cost(mechanism, m, grid, local_starts, iterations)
            grid_bytes = max(grid_bytes, 48.0 * m * grid)
        if self.far is not None:
            seconds += sum(_growth_cost(mechanism, m) for m in range(3, self.n + 1))
        return Estimate(seconds, grid_bytes, "n", self.n)


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
    far = _padding_gap(mechanism) if symmetric else None
    return _Plan(n, delta, monotonic, symmetric, grid_size, grid_size <= exhaustive_limit,
                 far, depth, exhaustive_limit)


def _padding_gap(mechanism) -> float | None:
    """The score gap at which an added candidate changes nothing in double precision: its
    weight ``e^-840`` (in units of the exponent) is below 1e-364, beneath the smallest
    double beside 1 (permute-and-flip, the exponential mechanism, report-noisy-max with
    each noise: a candidate that far below leaves every other probability as it was).
    None for other mechanisms (randomised response spreads ``1 / (e^ε + k - 1)`` over every
    candidate, however low: its curves fall with ``n``), or where the gap overflows."""
    if not isinstance(mechanism, (PermuteAndFlip, ExponentialMechanism, ReportNoisyMax)):
        return None
    with np.errstate(over="ignore"):
        gap = FAR_EXPONENT / mechanism.exponent
    return gap if math.isfinite(gap) and math.isfinite(2 * gap) else None


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


def _batch_seconds(mechanism, n: int, pairs: float) -> float:
    """CPU seconds of one :func:`pair_objective` call on ``pairs`` pairs of ``n``
    candidates (:data:`_SECONDS_PER_CALL`)."""
    call, row, candidate = _SECONDS_PER_CALL[_cost_class(mechanism)]
    return call + 2 * pairs * (row + candidate * n)


def search_cost(mechanism, n: int, grid_pairs: int, starts: int, iterations: int) -> float:
    """Estimated CPU seconds of a search from scratch on ``n`` candidates: the grid's pairs
    (report-noisy-max with Laplace noise: one quadrature for all, about 2 % of the rows' cost;
    with Gaussian noise, row by row, the pairs there are, not whole blocks of 4096) and
    ``starts`` L-BFGS-B runs of ``min(1.3 iterations, 40)`` evaluations of ``2 (2n - 1) + 1``
    pairs (:data:`_EVALUATIONS`)."""
    cost_class = _cost_class(mechanism)
    block = (min(grid_pairs, 4096) if cost_class == "gaussian"
             else 4096 * (0.02 if cost_class == "laplace" else 1.0))
    grid = math.ceil(grid_pairs / 4096) * _batch_seconds(mechanism, n, block) \
        if grid_pairs else 0.0
    evaluations = _evaluations(mechanism, iterations, _EVALUATIONS)
    return grid + starts * evaluations * _batch_seconds(mechanism, n, 2 * (2 * n - 1) + 1)


def _growth_cost(mechanism, n: int) -> float:
    """Estimated CPU seconds of one growth step to ``n`` candidates: its options (at most
    ``MAX_CLUSTERS^2 + 2``) and ``GROWTH_STARTS`` group searches of
    :data:`_GROWTH_EVALUATIONS` evaluations of at most ``2 (2 MAX_CLUSTERS - 1) + 1``
    pairs."""
    options = MAX_CLUSTERS ** 2 + 2
    stencil = 2 * (2 * MAX_CLUSTERS - 1) + 1
    evaluations = _evaluations(mechanism, GROWTH_ITERATIONS, _GROWTH_EVALUATIONS)
    return _batch_seconds(mechanism, n, options) \
        + GROWTH_STARTS * evaluations * _batch_seconds(mechanism, n, stencil)


class _Local:
    """L-BFGS-B over the variables ``x`` of a parametrisation ``x -> (q, q')`` of pairs
    (``to_pairs`` maps a batch of rows of ``x``), within ``bounds``; gradients by central
    differences of relative step ``_STEP * scale``, all of one step in one batch."""

    def __init__(self, mechanism, objective, at, bounds, scale, to_pairs):
        self.mechanism, self.objective, self.at = mechanism, objective, at
        self.bounds, self.scale, self.to_pairs = bounds, np.asarray(scale), to_pairs
        self.evaluations = 0

    def pairs(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.to_pairs(np.atleast_2d(x))

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
        with np.errstate(over="ignore", invalid="ignore"):   # objectives near 1e308
            gradient = (values[1:x.size + 1] - values[x.size + 1:]) / width
        return -values[0], -np.where(np.isfinite(gradient), gradient, 0.0)

    def run(self, x0: np.ndarray, iterations: int) -> tuple[np.ndarray, float]:
        from scipy.optimize import minimize

        lo = [b[0] for b in self.bounds]
        hi = [b[1] for b in self.bounds]
        result = minimize(self.value_and_gradient, np.clip(x0, lo, hi), jac=True,
                          method="L-BFGS-B", bounds=self.bounds,
                          options={"maxiter": iterations})
        x = np.clip(result.x, lo, hi)
        return x, float(self.values(x)[0])


def _move_bounds(sign: int) -> tuple[float, float]:
    """The range of a move in units of Δ: ``[-1, 1]``, or one sign (monotonic)."""
    return (0.0, 1.0) if sign > 0 else (-1.0, 0.0) if sign < 0 else (-1.0, 1.0)


def _coordinates(mechanism, objective, at, delta: np.ndarray, span: float, sign: int
                 ) -> _Local:
    """Every score and move free: ``x = (q_1 .. q_{n-1}, u_0 .. u_{n-1})``, ``q_0 = 0``,
    neighbour ``q + Δ ⊙ u``, scores in ``[-span, span]``."""
    n = delta.size

    def to_pairs(x):
        q = np.concatenate([np.zeros((x.shape[0], 1)), x[:, :n - 1]], axis=1)
        return q, q + x[:, n - 1:] * delta

    return _Local(mechanism, objective, at, [(-span, span)] * (n - 1) + [_move_bounds(sign)] * n,
                  [max(span, 1.0)] * (n - 1) + [1.0] * n, to_pairs)


def _groups(q: np.ndarray, other: np.ndarray, unit: float, far: float) -> list[list[int]]:
    """The candidates within ``far / 2`` of the top, grouped by score and move (equal within
    ``CLUSTER_TOLERANCE Δ``), highest group first."""
    near = np.flatnonzero(q >= q.max() - far / 2)
    move = (other - q) / unit
    order = near[np.lexsort((move[near], -q[near]))]
    groups: list[list[int]] = []
    for r in order:
        if groups and abs(q[r] - q[groups[-1][0]]) <= CLUSTER_TOLERANCE * unit \
                and abs(move[r] - move[groups[-1][0]]) <= CLUSTER_TOLERANCE:
            groups[-1].append(int(r))
        else:
            groups.append([int(r)])
    return sorted(groups, key=lambda g: -q[g[0]])


def _clusters(mechanism, objective, at, q: np.ndarray, other: np.ndarray, unit: float,
              span: float, far: float, sign: int) -> tuple[_Local, np.ndarray] | None:
    """The candidates of ``(q, q')`` within ``far / 2`` of the top grouped by (score, move)
    within ``CLUSTER_TOLERANCE Δ``, the :data:`MAX_CLUSTERS` highest groups free: a level
    for each but the top one (within ``span`` of it) and a move for each (in units of
    ``Δ = unit``); the other candidates fixed.  ``(local search, x0)``, or None when no
    group has a free variable."""
    top = float(q.max())
    move = (other - q) / unit
    groups = _groups(q, other, unit, far)[:MAX_CLUSTERS]
    t = len(groups)
    if t == 0:
        return None
    x0 = np.concatenate([[q[g[0]] - top for g in groups[1:]], [move[g[0]] for g in groups]])

    def to_pairs(x):
        scores = np.broadcast_to(q, (x.shape[0], q.size)).copy()
        moves = np.broadcast_to(move, (x.shape[0], q.size)).copy()
        for i, members in enumerate(groups):
            scores[:, members] = top if i == 0 else top + x[:, i - 1:i]
            moves[:, members] = x[:, t - 1 + i:t + i]
        return scores, scores + moves * unit

    local = _Local(mechanism, objective, at, [(-span, span)] * (t - 1)
                   + [_move_bounds(sign)] * t, [max(span, 1.0)] * (t - 1) + [1.0] * t,
                   to_pairs)
    return local, x0


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
    distribution = pair_distribution(mechanism, np.asarray(scores, dtype=float),
                                     np.asarray(neighbour, dtype=float))
    if eps_prime is None:
        eps_prime = default_eps_prime(getattr(mechanism, "epsilon", None) or 1.0)
    curves = curves_of(distribution, eps_prime, orders)
    if bound is None:
        bound = proven_bound(mechanism, distribution.scores.size)
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
    if callable(getattr(mechanism, "neighbour_pairs", None)):
        # a mechanism on a finite domain (the optimal lattice mechanism): all its pairs
        scores, neighbours = mechanism.neighbour_pairs()
        moved = np.abs(neighbours - scores).max(axis=1) > 0
        if n != scores.shape[1]:
            raise InvalidArgumentError("n", n, f"{scores.shape[1]}, the mechanism's number "
                                       "of candidates")
        return worst_over_pairs(mechanism, scores[moved], neighbours[moved],
                                objective=objective, at=at, eps_prime=eps_prime, orders=orders,
                                bound=bound, name=name,
                                method="every pair of neighbours of its finite domain")
    depth = check_integer(depth, "depth", minimum=1, maximum=64)
    starts = check_integer(starts, "starts", minimum=0, maximum=10_000)
    polish = check_integer(polish, "polish", minimum=0, maximum=1000)
    iterations = check_integer(iterations, "iterations", minimum=1, maximum=100_000)
    generator = check_rng(rng)
    epsilon = getattr(mechanism, "epsilon", None)
    at = _objective_parameter(objective, at, epsilon)
    plan = _plan(mechanism, n, depth, sensitivity, monotonic, exhaustive_limit)
    unit = float(plan.delta.max())
    if span is None:
        span = max(depth * unit, 40.0 * unit / epsilon if epsilon else 8.0 * depth * unit)
    if not (math.isfinite(span) and span > 0):
        raise InvalidArgumentError("span", span, "a number > 0")
    if starts == 0 and not any((plan if m == n else plan.at(m)).exhaustive
                               for m in plan.base_sizes()):
        raise InvalidArgumentError("starts", starts, "at least 1 when the grid is skipped")
    require(plan.estimate(mechanism, starts, polish, iterations))
    search = _Search(mechanism, objective, at, span, starts, polish, iterations, generator)
    # one BLAS thread: the search makes thousands of small matrix products, beside each of
    # which an idle OpenBLAS worker spun (PF at n = 3: 1.1 CPU s in 2.9 s, 0.11 in 0.38).
    # scipy's L-BFGS-B (with its own OpenBLAS) is loaded first, so that the limit reaches
    # it: loaded inside, it kept its threads (PF at n = 20 from the CLI: 3.5 CPU s, 0.3).
    import scipy.optimize  # noqa: F401

    with threadpool_limits(limits=1):
        best, evaluated, method = _searched(search, plan, n, unit)
    _, q_best, other_best = best
    return _result(mechanism, q_best, other_best, objective, at, eps_prime, orders, bound,
                   name, method, evaluated)


def _searched(search: _Search, plan: _Plan, n: int, unit: float) -> tuple[tuple, int, str]:
    """The search of the module docstring: ``(best (value, q, q'), evaluations, method)``.
    While it grows, a pair keeps only its active candidates: the neutral ones far below
    change no curve, and cost most of a report-noisy-max row (each needs its own log-space
    quadrature: 2.2 ms a row against 0.45 ms); they are added back at the end."""
    best, evaluated, method = None, 0, ""
    for m in plan.base_sizes():
        found, count, method = search.from_scratch(plan if m == n else plan.at(m))
        evaluated += count
        if best is not None:                 # the smaller size's best, as it is and grown
            grown, count = search.grow(best, plan.far, unit, plan.monotonic)
            found += [best, grown]
            evaluated += count
        best = max(found, key=lambda c: c[0])
    sizes = range(max(plan.base_sizes()) + 1, n + 1)
    for _ in progress(sizes, desc="growing"):
        best, count = search.grow(best, plan.far, unit, plan.monotonic)
        evaluated += count
    if len(sizes):
        method += (f"; grown to n = {n} one candidate at a time (joining a group of "
                   f"candidates, with one moved over from another, a new one below, or "
                   f"{plan.far:g} below the top: a neutral one), each step's two best "
                   f"options' groups moved by L-BFGS-B")
    while len(best[1]) < n:
        best = _padded(best, plan.far)
    return best, evaluated, method


def _padded(candidate: tuple, far: float) -> tuple:
    """A found pair with one more candidate ``far`` below its top, unmoved: the same
    curves (:func:`_padding_gap`: a neutral candidate)."""
    value, q, other = candidate
    low = float(q.max()) - far
    return value, np.append(q, low), np.append(other, low)


@dataclass
class _Search:
    """One search's fixed arguments, and its two steps: from scratch on ``m`` candidates,
    and one candidate more."""

    mechanism: object
    objective: str
    at: float | None
    span: float
    starts: int
    polish: int
    iterations: int
    generator: np.random.Generator

    def from_scratch(self, plan: _Plan) -> tuple[list, int, str]:
        """The grid (where exhaustive) and L-BFGS-B from its best pairs and from random
        starts (module docstring): ``(candidates (value, q, q'), evaluations, method)``."""
        n, delta, monotonic = plan.n, plan.delta, plan.monotonic
        unit = float(delta.max())
        candidates: list[tuple[float, np.ndarray, np.ndarray]] = []
        evaluated = 0
        seeds = []
        if plan.exhaustive:
            q, other = _grid_pairs(n, delta, plan.depth, monotonic, plan.symmetric)
            values = np.concatenate([
                pair_objective(self.mechanism, q[s:s + 4096], other[s:s + 4096],
                               self.objective, self.at, unit)
                for s in progress(range(0, q.shape[0], 4096), desc="grid pairs")])
            evaluated += q.shape[0]
            order = np.argsort(-values, kind="stable")
            candidates += [(float(values[i]), q[i], other[i])
                           for i in order[:max(self.polish, 1)]]
            seeds = [(c[1], c[2]) for c in candidates[:self.polish]]
        method = (f"grid: levels 0..-{plan.depth}·Δ, moves in {{-Δ, 0, +Δ}}"
                  f"{' (one sign)' if monotonic else ''}, {plan.grid_size} pairs"
                  + (" up to order" if plan.symmetric else "") if plan.exhaustive
                  else f"grid of {plan.grid_size} pairs skipped (> {plan.exhaustive_limit})")
        for _ in range(self.starts):
            x = self.generator.uniform(-self.span / 4, 0.0, n - 1)
            u = self.generator.choice([-1.0, 1.0], n) * self.generator.uniform(0.5, 1.0, n)
            q0 = np.concatenate([[0.0], x])
            seeds.append((q0, q0 + u * delta))
        for q0, other0 in progress(seeds, desc="local searches"):
            sign = (1 if (other0 - q0).sum() >= 0 else -1) if monotonic else 0
            local = _coordinates(self.mechanism, self.objective, self.at, delta, self.span,
                                 sign)
            x0 = np.concatenate([q0[1:] - q0[0],
                                 (other0 - q0) / np.where(delta > 0, delta, 1)])
            # a small seeded jitter: a grid pair can sit on a symmetric saddle (scores
            # swapped by the move, where both directions tie) that L-BFGS-B would not leave
            x0 = x0 + self.generator.normal(0.0, 1e-3, x0.size) * local.scale
            x, value = local.run(x0, self.iterations)
            evaluated += local.evaluations
            q, other = local.pairs(x)
            candidates.append((value, q[0], other[0]))
        method += (f"; L-BFGS-B from {len(seeds)} starts over scores in "
                   f"[-{self.span:g}, {self.span:g}]")
        return candidates, evaluated, method

    def grow(self, best: tuple, far: float, unit: float, monotonic: bool
             ) -> tuple[tuple, int]:
        """The best pair on one candidate more (module docstring), as its active
        candidates: ``best`` itself (padded with a neutral candidate: the same value, so
        nothing is lost); the new candidate joining one of ``best``'s highest
        groups (same score and move), or that and one candidate of another group moved
        into it too, or a new candidate just below the lowest group moving either way;
        then L-BFGS-B over the groups of the best of these (:func:`_clusters`)."""
        _, q, other = best
        groups = _groups(q, other, unit, far)[:MAX_CLUSTERS]
        low = float(min(q[g].min() for g in groups)) - unit
        scores, neighbours = [], []

        def option(base_q, base_other, level, step):
            scores.append(np.append(base_q, level))
            neighbours.append(np.append(base_other, level + step))

        for h in groups:
            level, step = float(q[h[0]]), float(other[h[0]] - q[h[0]])
            option(q, other, level, step)
            for g in groups:
                if g is not h and len(g) > 1:            # one of g moves over to h too
                    moved_q, moved_other = q.copy(), other.copy()
                    moved_q[g[-1]], moved_other[g[-1]] = level, level + step
                    option(moved_q, moved_other, level, step)
        for step in (unit, -unit):
            option(q, other, low, step)
        scores, neighbours = np.array(scores), np.array(neighbours)
        if monotonic:
            direction = 1.0 if (other - q).sum() >= 0 else -1.0
            keep = ((neighbours - scores) * direction >= 0).all(axis=1)
            scores, neighbours = scores[keep], neighbours[keep]
        values = pair_objective(self.mechanism, scores, neighbours, self.objective, self.at)
        evaluated = len(values)
        options = [best]                         # with a neutral candidate: the same curves
        for i in np.argsort(-values, kind="stable")[:GROWTH_STARTS]:
            options.append((float(values[i]), scores[i], neighbours[i]))
            sign = (1 if (neighbours[i] - scores[i]).sum() >= 0 else -1) if monotonic else 0
            clusters = _clusters(self.mechanism, self.objective, self.at, scores[i],
                                 neighbours[i], unit, self.span, far, sign)
            if clusters is not None:
                local, x0 = clusters
                x, value = local.run(x0, GROWTH_ITERATIONS)
                evaluated += local.evaluations
                q1, other1 = local.pairs(x)
                options.append((value, q1[0], other1[0]))
        return max(options, key=lambda c: c[0]), evaluated


def _reported_value(curves: PairCurves, objective: str, at: float | None) -> float:
    if objective == "max_loss":
        return float(curves.max_loss)
    forward = np.stack([curves.distribution.log_p, curves.distribution.log_q])
    if objective == "delta":
        return float(hockey_stick(forward, forward[::-1], [at])[:, 0].max())
    if objective == "renyi":
        return float(renyi(forward, forward[::-1], [at])[:, 0].max())
    return float(curves.zcdp_rho)
