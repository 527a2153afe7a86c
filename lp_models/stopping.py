"""The LP of the optimal (ε, δ)-differentially private stopping rule, and its exact dual.

Model (the private secretary paper, Grining et al., arXiv:2005.01586v4): n candidates
arrive in uniformly random order, the selector sees only relative ranks, and privacy is Definition 5
under the metric ``d_l`` of Definition 6.  A rank-based randomised stopping rule is given by

    x[i, r] = P(stop at time i and the current candidate has relative rank r),  1 <= r <= i <= n,
    s[i]    = P(the rule is still running when candidate i arrives),  s[1] = 1.

Relative ranks are independent and uniform on {1..i}, so x is realised by a rule exactly
when ``x[i, r] <= s[i] / i`` for every (i, r) and the rule stops by time n (stopping at
(i, r) with probability ``x[i, r] / (s[i] / i)`` realises it).  The running probability is
carried by the auxiliary variables s, one row per time,

    s[i + 1] = s[i] - sum_r x[i, r]          (no s[n + 1]: everything stops by time n),

so the cumulative constraint costs O(n^2) nonzeros instead of the O(n^3) of writing
``1 - sum_{j<i} sum_r x[j, r]`` into every row.

Absolute rank.  ``P(absolute rank k | relative rank r at time i) = C(k-1, r-1) C(n-k, i-r)
/ C(n, i)`` makes the rank distribution q linear in x, but written out it has about n^3/6
nonzeros.  The model propagates the selected candidate's rank instead: ``z[i, r]`` is the
probability that the rule has stopped by time i and the selected candidate ranks r among
the first i.  A new arrival (relative rank uniform on {1..i}) beats a candidate of rank r
among the first i-1 with probability r / i, hence

    z[i, r] = x[i, r] + (i - r) / i * z[i-1, r] + (r - 1) / i * z[i-1, r-1],

and ``q[k] = z[n, k]``.  Unrolling the recursion gives the binomial formula; every
coefficient lies in [0, 1], so nothing overflows at any n.

Privacy (Theorem 3.2 of the paper, tight): swapping the candidates of ranks a and b,
``|a - b| <= l``, exchanges q[a] and q[b] and changes nothing else, so a rule is
(ε, δ)-DP under d_l exactly when ``q[a] <= e^ε q[b] + δ`` for all a != b, ``|a - b| <= l``.

Objective: maximise ``sum_k payoff[k] q[k]`` for any rank payoff (:func:`rank_payoff`).

Dual.  For multipliers y >= 0 on the privacy rows, the rest of the dual is the optimal
stopping recursion for the Lagrangian payoff ``g = payoff - A^T y`` (:func:`payoff_values`):
the duals of the propagation rows are ``G[i, r]``, the expected payoff of holding a
candidate of rank r among the first i; of the running rows the continuation values; of the
feasibility rows ``max(G[i, r] - continuation[i], 0)``.  :func:`full_duals` assembles them
so that :func:`lp_models.program.dual_objective` certifies any solution found by another
method (column generation in :mod:`optmech.secretary.optimal`).

Size: n(n+1) + n columns, n(n+1) + n rows plus at most 2 l n privacy rows, about 3.5 n^2
nonzeros (n = 1000: 1.0e6 columns, 3.5e6 nonzeros).  HiGHS's simplex solves it directly
up to n of about 150 in seconds (time growing roughly like n^3; on small-ε, δ = 0
instances at n = 200 it stalls numerically); beyond that use the column generation of
:mod:`optmech.secretary.optimal`, which solves the same LP and certifies the result on it.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from lp_models.labels import LabelBlock, PairLabels
from lp_models.program import InvalidModelError, LinearProgram

__all__ = [
    "PAYOFFS",
    "PayoffValues",
    "StoppingSolution",
    "full_duals",
    "full_primal",
    "mixture_lp",
    "payoff_values",
    "privacy_pairs",
    "privacy_relaxation_lp",
    "propagate_ranks",
    "rank_payoff",
    "rank_transition",
    "split_solution",
    "stopping_lp",
    "triangle_index",
]

PAYOFFS = ("best", "top-m", "rank")
PAYOFF_UNITS = "expected payoff sum_k payoff[k] q[k] (payoff 'best': P(the best is selected))"
PRIVACY_RELATION = "privacy[{a} <= e^eps {b} + delta]"


def _fail(argument: str, value, allowed: str):
    raise InvalidModelError(f"{argument} must be {allowed}; got {value!r}")


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _check_size(n) -> int:
    if not _is_int(n) or n < 2:
        _fail("n", n, "an integer >= 2")
    return int(n)


def _check_privacy(n: int, epsilon, delta, l) -> tuple[float, float, int]:
    if not _is_int(l) or not 1 <= l <= n - 1:
        _fail("l", l, f"an integer in [1, {n - 1}]")
    if not isinstance(epsilon, (int, float, np.number)) or not (
            0 <= epsilon <= 700 or epsilon == math.inf):
        _fail("epsilon", epsilon, "a number in [0, 700], or inf (no privacy rows)")
    if not isinstance(delta, (int, float, np.number)) or not 0 <= delta <= 1:
        _fail("delta", delta, "a number in [0, 1]")
    return float(epsilon), float(delta), int(l)


def _check_payoff(payoff, n: int) -> np.ndarray:
    payoff = np.asarray(payoff, dtype=float)
    if payoff.shape != (n,) or not np.isfinite(payoff).all():
        _fail("payoff", payoff.shape, f"a finite vector of length {n}")
    return payoff


def rank_payoff(n: int, payoff: str = "best", m: int | None = None) -> np.ndarray:
    """Payoff of selecting the candidate of absolute rank k = 1..n (rank 1 is the best).

    ``"best"``: 1 for rank 1 (expected payoff = probability of choosing the best, the
    classical secretary problem); ``"top-m"``: 1 for ranks 1..m (Gusein-Zade's problem);
    ``"rank"``: ``-k`` (maximising it minimises the expected rank, Chow et al.).
    """
    n = _check_size(n)
    if payoff not in PAYOFFS:
        _fail("payoff", payoff, "one of " + ", ".join(PAYOFFS))
    ranks = np.arange(1, n + 1)
    if payoff == "best":
        return (ranks == 1).astype(float)
    if payoff == "rank":
        return -ranks.astype(float)
    if not _is_int(m) or not 1 <= m <= n:
        _fail("m", m, f"an integer in [1, {n}] for the top-m payoff")
    return (ranks <= m).astype(float)


def rank_transition(i: int) -> tuple[np.ndarray, np.ndarray]:
    """Coefficients carrying a selected candidate's rank from time i-1 to time i.

    For r = 1..i: ``stay[r-1] = (i - r) / i`` is the probability that a candidate of rank r
    among the first i-1 keeps rank r among the first i, ``up[r-1] = (r - 1) / i`` the
    probability that a candidate of rank r-1 becomes rank r.
    """
    r = np.arange(1, i + 1, dtype=float)
    return (i - r) / i, (r - 1) / i


def triangle_index(n: int) -> tuple[np.ndarray, np.ndarray]:
    """Time i and relative rank r (1-based) of each flat index of the triangle
    1 <= r <= i <= n, time-major: flat index ``i (i - 1) / 2 + r - 1``."""
    times = np.repeat(np.arange(1, n + 1), np.arange(1, n + 1))
    return times, np.arange(times.size) - times * (times - 1) // 2 + 1


def triangle_position(flat: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Time i and relative rank r (1-based) of flat triangle indices (the inverse of the
    layout of :func:`triangle_index`, computed without it)."""
    flat = np.asarray(flat, dtype=np.int64)
    i = ((1 + np.sqrt(1 + 8 * flat.astype(float))) // 2).astype(np.int64)
    i = np.where(i * (i - 1) // 2 > flat, i - 1, i)        # guard the square root's rounding
    i = np.where(i * (i + 1) // 2 <= flat, i + 1, i)
    return i, flat - i * (i - 1) // 2 + 1


@dataclass(frozen=True, eq=False)
class TriangleLabels:
    """Labels of a block laid out like the triangle ``1 <= r <= i <= n``: ``template`` with
    ``{i}`` and ``{r}``."""

    template: str

    def __call__(self, flat: np.ndarray) -> list[str]:
        times, ranks = triangle_position(flat)
        return [self.template.format(i=i, r=r) for i, r in zip(times.tolist(), ranks.tolist())]


@dataclass(frozen=True, eq=False)
class _RunningLabels:
    """Labels of the running rows ``s[i+1] = s[i] - sum_r x[i, r]`` (at i = n the rule has
    stopped: ``0 = s[n] - sum_r x[n, r]``)."""

    n: int

    def __call__(self, local: np.ndarray) -> list[str]:
        return [f"running[{f's[time {i + 1}]' if i < self.n else '0'} = s[time {i}] - "
                f"sum_r x[time {i}, r]]" for i in (local + 1).tolist()]


@dataclass(frozen=True, eq=False)
class IndexLabels:
    """``template`` with ``{i}`` = ``index + start`` (e.g. 1-based times and ranks)."""

    template: str
    start: int = 1

    def __call__(self, local: np.ndarray) -> list[str]:
        return [self.template.format(i=i + self.start) for i in local.tolist()]


_RANK = IndexLabels("q[rank {i}]")


def _privacy_block(first: np.ndarray, second: np.ndarray) -> LabelBlock:
    return LabelBlock("privacy", first.size, "priv",
                      PairLabels(PRIVACY_RELATION, first, second, _RANK))


def privacy_pairs(n: int, l: int) -> tuple[np.ndarray, np.ndarray]:
    """All ordered pairs (a, b), 0-based, with ``0 < |a - b| <= l``: one privacy row each."""
    a = np.concatenate([np.arange(n - d) for d in range(1, l + 1)])
    b = np.concatenate([np.arange(d, n) for d in range(1, l + 1)])
    return np.concatenate([a, b]), np.concatenate([b, a])


def _propagate(x: np.ndarray, n: int) -> np.ndarray:
    """z[i, r] for all (i, r) (flat triangle) from x[i, r] (flat triangle)."""
    z = np.empty_like(x)
    z[:1] = x[:1]
    for i in range(2, n + 1):
        stay, up = rank_transition(i)
        start, prev = i * (i - 1) // 2, (i - 1) * (i - 2) // 2
        block = x[start:start + i].copy()
        block[:-1] += stay[:-1] * z[prev:start]
        block[1:] += up[1:] * z[prev:start]
        z[start:start + i] = block
    return z


def propagate_ranks(joint: np.ndarray) -> np.ndarray:
    """Rank distribution ``q[k-1] = P(absolute rank k)`` of the stops ``joint[i-1, r-1] =
    x[i, r]`` (a nonnegative n x n array, zero above the diagonal), by the forward
    recursion of the module docstring.  O(n^2) operations, coefficients in [0, 1]."""
    joint = np.asarray(joint, dtype=float)
    n = joint.shape[0]
    times, ranks = triangle_index(n)
    return _propagate(joint[times - 1, ranks - 1], n)[-n:]


@dataclass(frozen=True)
class PayoffValues:
    """The optimal-stopping recursion for a rank payoff g (the dual of :func:`stopping_lp`).

    ``held[flat]`` is ``G[i, r] = E[g(absolute rank) | the candidate at time i has relative
    rank r]`` (flat triangle layout of :func:`triangle_index`), ``continuation[i-1]`` the
    value of rejecting the candidate at time i and playing on optimally (``-inf`` at i = n),
    ``value`` the optimal expected payoff ``max_rules E[g]``, and ``stop[flat]`` the optimal
    deterministic rule: stop iff ``G[i, r] > continuation[i]``.
    """

    #: ``G[i, r]``, the expected payoff of stopping on the candidate of relative rank ``r`` at time
    #: ``i``, in the flat triangle layout of :func:`triangle_index` (units of the payoff ``g``).
    held: np.ndarray
    #: ``continuation[i-1]``: the optimal expected payoff of rejecting the candidate at time ``i``
    #: and playing on (length n; ``-inf`` at ``i = n``, where the rule must stop).
    continuation: np.ndarray
    #: The optimal expected payoff ``max_rules E[g(absolute rank)]`` (no privacy constraint; units
    #: of ``g``).
    value: float
    #: The optimal deterministic rule in the flat triangle layout: True where it stops at (time
    #: ``i``, relative rank ``r``), i.e. ``held`` exceeds the continuation value (always at
    #: ``i = n``).
    stop: np.ndarray


def payoff_values(g: np.ndarray) -> PayoffValues:
    """Backward induction for the payoff ``g[k-1]`` of absolute rank k (any real vector).

    ``G[n, k] = g[k]``; ``G[i-1, r] = r / i * G[i, r+1] + (i - r) / i * G[i, r]`` (the
    transpose of the forward rank recursion); ``V[i] = mean_r max(G[i, r], V[i+1])`` with
    ``V[n] = mean_r G[n, r]``.  O(n^2) operations; the result is exact up to rounding
    (every step is a convex combination).
    """
    g = np.asarray(g, dtype=float)
    n = g.size
    held = np.empty(n * (n + 1) // 2)
    stop = np.empty(held.size, dtype=bool)
    continuation = np.empty(n)
    start = n * (n - 1) // 2
    held[start:] = g
    stop[start:] = True
    continuation[n - 1] = -np.inf
    arrive = g.mean()                     # V[n]: value when candidate n arrives
    current = g
    for i in range(n - 1, 0, -1):
        r = np.arange(1, i + 1, dtype=float)
        current = (r / (i + 1)) * current[1:] + ((i + 1 - r) / (i + 1)) * current[:-1]
        start = i * (i - 1) // 2
        held[start:start + i] = current
        continuation[i - 1] = arrive
        stop[start:start + i] = current > arrive
        arrive = np.maximum(current, arrive).mean()
    return PayoffValues(held=held, continuation=continuation, value=float(arrive), stop=stop)


def stopping_lp(n: int, epsilon: float, delta: float, l: int,
                payoff: np.ndarray) -> LinearProgram:
    """The LP of the best rank-based stopping rule that is (ε, δ)-DP under d_l.

    ``payoff`` is a length-n vector (payoff of absolute rank 1..n, e.g. from
    :func:`rank_payoff`); ``epsilon = inf`` drops the privacy rows (the classical optimal
    stopping problem).  Columns: x (flat triangle, time-major), z (same layout), s (times
    1..n).  Rows: propagation (flat triangle), feasibility (flat triangle), running (n),
    privacy (pairs of :func:`privacy_pairs`).  Map a solution back with
    :func:`split_solution`.
    """
    n = _check_size(n)
    epsilon, delta, l = _check_privacy(n, epsilon, delta, l)
    payoff = _check_payoff(payoff, n)

    size = n * (n + 1) // 2
    x_col, z_col, s_col = 0, size, 2 * size
    times, ranks = triangle_index(n)
    flat = np.arange(size)
    rows, cols, vals = [], [], []

    def add(row, col, val):
        rows.append(np.asarray(row))
        cols.append(np.asarray(col))
        vals.append(np.broadcast_to(np.asarray(val, dtype=float), np.shape(row)))

    # Propagation rows 0..size-1:  z[i,r] - x[i,r] - stay z[i-1,r] - up z[i-1,r-1] = 0.
    add(flat, z_col + flat, 1.0)
    add(flat, x_col + flat, -1.0)
    stays = ranks < times                   # z[i-1, r] exists
    add(flat[stays], z_col + flat[stays] - (times[stays] - 1),
        -(times[stays] - ranks[stays]) / times[stays])
    ups = ranks > 1                         # z[i-1, r-1] exists
    add(flat[ups], z_col + flat[ups] - times[ups], -(ranks[ups] - 1) / times[ups])

    # Feasibility rows size..2 size-1:  x[i,r] - s[i] / i <= 0.
    add(size + flat, x_col + flat, 1.0)
    add(size + flat, s_col + times - 1, -1.0 / times)

    # Running rows 2 size..2 size+n-1:  sum_r x[i,r] - s[i] + s[i+1] = 0.
    run_row = 2 * size
    add(run_row + times - 1, x_col + flat, 1.0)
    add(run_row + np.arange(n), s_col + np.arange(n), -1.0)
    add(run_row + np.arange(n - 1), s_col + np.arange(1, n), 1.0)

    # Privacy rows: q[a] - e^eps q[b] <= delta (q = z[n, .]).
    num_rows = 2 * size + n
    if math.isfinite(epsilon):
        first, second = privacy_pairs(n, l)
        pair_rows = num_rows + np.arange(first.size)
        q_col = z_col + size - n
        add(pair_rows, q_col + first, 1.0)
        add(pair_rows, q_col + second, -math.exp(epsilon))
        num_rows += first.size
    num_privacy = num_rows - (2 * size + n)

    matrix = sp.csc_matrix(
        (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
        shape=(num_rows, 2 * size + n))
    row_lower = np.concatenate([np.zeros(size), np.full(size, -np.inf), np.zeros(n),
                                np.full(num_privacy, -np.inf)])
    row_upper = np.concatenate([np.zeros(2 * size + n), np.full(num_privacy, delta)])
    col_lower = np.zeros(2 * size + n)
    col_upper = np.full(2 * size + n, np.inf)
    col_lower[s_col] = col_upper[s_col] = 1.0   # s[1] = 1: every rule sees candidate 1
    cost = np.zeros(2 * size + n)
    cost[z_col + size - n:z_col + size] = payoff
    rows = [LabelBlock("propagation", size, "prop",
                       TriangleLabels("propagation[z[time {i}, rank {r}]]")),
            LabelBlock("feasibility", size, "feas",
                       TriangleLabels("feasibility[x[time {i}, relative rank {r}] <= "
                                      "s[time {i}] / {i}]")),
            LabelBlock("running", n, "run", _RunningLabels(n))]
    if num_privacy:
        rows.append(_privacy_block(first, second))
    columns = (LabelBlock("stop", size, "x", TriangleLabels("x[time {i}, relative rank {r}]")),
               LabelBlock("stopped-rank", size, "z", TriangleLabels("z[time {i}, rank {r}]")),
               LabelBlock("running", n, "s", IndexLabels("s[time {i}]")))
    return LinearProgram(
        cost=cost, matrix=matrix, row_lower=row_lower, row_upper=row_upper,
        col_lower=col_lower, col_upper=col_upper, sense="max",
        name=f"private stopping rule n={n} eps={epsilon:g} delta={delta:g} l={l}",
        col_blocks=columns, row_blocks=tuple(rows), objective_units=PAYOFF_UNITS,
        metadata={"n": n, "epsilon": epsilon, "delta": delta, "l": l, "payoff": payoff,
                  "x_col": x_col, "z_col": z_col, "s_col": s_col,
                  "privacy_row": 2 * size + n, "num_privacy_rows": num_privacy})


@dataclass(frozen=True)
class StoppingSolution:
    """A point of :func:`stopping_lp` by meaning: ``joint[i-1, r-1] = x[i, r]`` (zero where
    r > i), ``running[i-1] = s[i]``, ``rank_distribution[k-1] = q[k] = z[n, k]``."""

    #: ``joint[i-1, r-1] = x[i, r]``, the probability of stopping at time ``i`` on relative rank
    #: ``r`` (n x n, zero above the diagonal).
    joint: np.ndarray
    #: ``running[i-1] = s[i]``, the probability that the rule is still running when candidate ``i``
    #: arrives (length n, ``running[0] = 1``).
    running: np.ndarray
    #: ``rank_distribution[k-1] = q[k] = z[n, k]``, the probability that the selected candidate has
    #: absolute rank ``k`` (rank 1 is the best; length n).
    rank_distribution: np.ndarray


def split_solution(lp: LinearProgram, x: np.ndarray) -> StoppingSolution:
    """Split a solution vector of :func:`stopping_lp` into x[i, r], s[i] and q[k]."""
    meta = lp.metadata
    n = meta["n"]
    size = n * (n + 1) // 2
    x = np.asarray(x, dtype=float)
    times, ranks = triangle_index(n)
    joint = np.zeros((n, n))
    joint[times - 1, ranks - 1] = x[meta["x_col"]:meta["x_col"] + size]
    return StoppingSolution(joint=joint,
                            running=x[meta["s_col"]:meta["s_col"] + n].copy(),
                            rank_distribution=x[meta["z_col"] + size - n:
                                                meta["z_col"] + size].copy())


def full_primal(lp: LinearProgram, joint: np.ndarray) -> np.ndarray:
    """The column vector of :func:`stopping_lp` for the stops ``joint`` (x, and the z and s
    they imply), e.g. to check a rule found by another method with ``lp.max_violation``."""
    n = lp.metadata["n"]
    joint = np.asarray(joint, dtype=float)
    times, ranks = triangle_index(n)
    x = joint[times - 1, ranks - 1]
    z = _propagate(x, n)
    running = 1.0 - np.concatenate([[0.0], np.cumsum(joint.sum(axis=1))[:-1]])
    return np.concatenate([x, z, running])


def full_duals(lp: LinearProgram, privacy_duals: np.ndarray) -> np.ndarray:
    """Row duals of :func:`stopping_lp` (HiGHS's sign convention) completing the privacy
    multipliers ``privacy_duals`` (>= 0, one per privacy row) to a dual feasible point.

    ``dual_objective(lp, full_duals(lp, y))`` is then the Lagrangian bound
    ``max_rules E[payoff - A^T y] + delta * sum(y)`` on the LP optimum, whatever y >= 0 is.
    """
    meta = lp.metadata
    n = meta["n"]
    size = n * (n + 1) // 2
    y = np.asarray(privacy_duals, dtype=float)
    if y.shape != (meta["num_privacy_rows"],) or not (y >= 0).all():
        _fail("privacy_duals", y.shape,
              f"{meta['num_privacy_rows']} nonnegative multipliers")
    g = meta["payoff"].copy()
    if y.size:
        first, second = privacy_pairs(n, meta["l"])
        np.subtract.at(g, first, y)
        np.add.at(g, second, math.exp(meta["epsilon"]) * y)
    values = payoff_values(g)
    times, _ = triangle_index(n)
    level = values.continuation.copy()
    level[n - 1] = values.held[size - n:].min()     # any level <= min_r G[n, r] works
    feasibility = np.maximum(values.held - level[times - 1], 0.0)
    return np.concatenate([values.held, feasibility, level, y])


def privacy_relaxation_lp(n: int, epsilon: float, delta: float, l: int,
                          payoff: np.ndarray) -> LinearProgram:
    """The best rank distribution q (any, not necessarily a stopping rule's) that is
    (ε, δ)-DP under d_l: maximise ``payoff @ q`` over ``q >= 0``, ``sum q = 1``,
    ``q[a] - e^ε q[b] <= δ`` for the pairs of :func:`privacy_pairs` (those rows first, in
    that order, then the sum row).  A relaxation of :func:`stopping_lp` (module docstring):
    its optimum, and the Lagrangian bound of its privacy row duals, are upper bounds on the
    stopping LP's optimum.  ``epsilon = inf`` leaves only the sum row.
    """
    n = _check_size(n)
    epsilon, delta, l = _check_privacy(n, epsilon, delta, l)
    payoff = _check_payoff(payoff, n)
    pairs = privacy_pairs(n, l) if math.isfinite(epsilon) else (np.zeros(0, int),) * 2
    # the mixture LP over the n point masses: any q is a mixture of them
    lp = mixture_lp(np.eye(n), payoff, epsilon, delta, pairs)
    return dataclasses.replace(
        lp, name=f"privacy relaxation n={n} eps={epsilon:g} delta={delta:g} l={l}",
        col_blocks=(LabelBlock("rank-probability", n, "q", _RANK),),
        metadata={"n": n, "epsilon": epsilon, "delta": delta, "l": l})


def mixture_lp(distributions: np.ndarray, payoff: np.ndarray, epsilon: float, delta: float,
               pairs: tuple[np.ndarray, np.ndarray]) -> LinearProgram:
    """Best mixture of given rules (the column-generation master of :func:`stopping_lp`).

    Column m is the weight of the rule with rank distribution ``distributions[m]``; rows:
    ``sum_m w_m (q_m[a] - e^ε q_m[b]) <= delta`` for each pair (a, b) in ``pairs`` (0-based,
    a subset of :func:`privacy_pairs`), then ``sum_m w_m = 1`` (last row).
    """
    Q = np.asarray(distributions, dtype=float)
    if Q.ndim != 2:
        _fail("distributions", Q.shape, "a 2-D array (one rank distribution per row)")
    payoff = _check_payoff(payoff, Q.shape[1])
    first, second = (np.asarray(p, dtype=int) for p in pairs)
    block = Q[:, first] - math.exp(epsilon) * Q[:, second]
    matrix = sp.csc_matrix(np.vstack([block.T, np.ones((1, Q.shape[0]))]))
    return LinearProgram(
        cost=Q @ payoff, matrix=matrix,
        row_lower=np.concatenate([np.full(first.size, -np.inf), [1.0]]),
        row_upper=np.concatenate([np.full(first.size, float(delta)), [1.0]]),
        sense="max", name=f"stopping-rule mixture ({Q.shape[0]} rules, {first.size} pairs)",
        col_blocks=(LabelBlock("rule-weight", Q.shape[0], "w", IndexLabels("w[rule {i}]", 0)),),
        row_blocks=tuple(b for b in (_privacy_block(first, second),
                                     LabelBlock("sum-to-one", 1, "sum")) if b.size),
        objective_units=PAYOFF_UNITS)
