"""Playing a stopping rule on actual arrival orders: Monte Carlo and exhaustive enumeration.

Both work from permutations of the absolute ranks (rank 1 the best), compute each arrival's
relative rank by direct comparison with the earlier arrivals, and apply the rule's stopping
probabilities: nothing here uses the rank-distribution formulas, so they are independent
checks of :meth:`optmech.secretary.rules.StoppingRule.rank_distribution`,
:func:`optmech.secretary.classical.rank_distribution` and the LP solutions.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np

from optmech.secretary.rules import StoppingRule
from optmech.validation import InvalidArgumentError, check_integer

__all__ = ["ENUMERATION_MAX_N", "enumerate_rank_distribution", "simulate_ranks"]

ENUMERATION_MAX_N = 8


def _check_rule(rule) -> StoppingRule:
    if not isinstance(rule, StoppingRule):
        raise InvalidArgumentError("rule", rule, "a StoppingRule")
    return rule


def simulate_ranks(rule: StoppingRule, size: int, rng: np.random.Generator | None = None,
                   batch: int = 20_000) -> np.ndarray:
    """Absolute ranks (1..n) of the candidates selected by ``rule`` in ``size`` independent
    games on uniformly random arrival orders.

    Vectorised over games: per time step, the relative rank of the arrival in each running
    game is one plus the number of earlier arrivals that beat it, and a uniform draw decides
    the stop.  Cost O(size * n^2) comparisons at worst (games that run to the end).
    """
    rule = _check_rule(rule)
    size = check_integer(size, "size", minimum=1)
    batch = check_integer(batch, "batch", minimum=1)
    rng = np.random.default_rng() if rng is None else rng
    n = rule.n
    dtype = np.int16 if n < 2 ** 15 else np.int32
    chosen = np.empty(size, dtype=np.int64)
    for start in range(0, size, batch):
        games = min(batch, size - start)
        order = rng.permuted(np.tile(np.arange(1, n + 1, dtype=dtype), (games, 1)), axis=1)
        running = np.arange(games)
        picked = np.empty(games, dtype=np.int64)
        for i in range(n):
            arrival = order[running, i]
            relative = 1 + (order[running, :i] < arrival[:, None]).sum(axis=1)
            stops = rng.random(running.size) < rule.stop[i, relative - 1]
            picked[running[stops]] = arrival[stops]
            running = running[~stops]
            if running.size == 0:
                break
        chosen[start:start + games] = picked
    return chosen


def enumerate_rank_distribution(rule: StoppingRule, exact: bool = False):
    """Rank distribution of ``rule`` from all n! equally likely arrival orders (n <= 8).

    For every order the probability of stopping at time i is
    ``stop[i, R_i] * prod_{j<i} (1 - stop[j, R_j])`` with relative ranks R_j computed from
    the order.  ``exact=True`` does the arithmetic in fractions (each stopping probability
    taken as the exact value of its float) and returns a list of Fractions; otherwise a
    float array.
    """
    rule = _check_rule(rule)
    n = rule.n
    if n > ENUMERATION_MAX_N:
        raise InvalidArgumentError("rule", f"a rule for n = {n}",
                                   f"a rule for n <= {ENUMERATION_MAX_N}")
    orders = np.array(list(itertools.permutations(range(1, n + 1))))
    relative = np.stack([1 + (orders[:, :i] < orders[:, i:i + 1]).sum(axis=1)
                         for i in range(n)], axis=1)
    stop = rule.stop
    if exact:
        stop = np.vectorize(Fraction, otypes=[object])(stop)
    chance = stop[np.arange(n), relative - 1]            # (n!, n): stop prob at each time
    alive = np.ones(len(orders), dtype=stop.dtype)
    totals = [Fraction(0) if exact else 0.0 for _ in range(n)]
    for i in range(n):
        here = alive * chance[:, i]
        for k in range(1, n + 1):
            totals[k - 1] += here[orders[:, i] == k].sum()
        alive = alive * (1 - chance[:, i])
    count = math.factorial(n)
    if exact:
        return [Fraction(v) / count for v in totals]
    return np.array(totals, dtype=float) / count
