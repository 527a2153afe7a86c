"""The rule returned by the stopping LP, played on random arrival orders, selects ranks with
the LP's rank distribution (Monte Carlo, 5 standard errors)."""

import math

import numpy as np

from lp_models.program import solve
from lp_models.stopping import privacy_pairs, rank_payoff, split_solution, stopping_lp
from optmech.secretary import StoppingRule, enumerate_rank_distribution, simulate_ranks


def test_simulated_lp_rule_recovers_the_lp_rank_distribution():
    n, eps, delta, l, size = 15, 0.3, 0.01, 1, 200_000
    lp = stopping_lp(n, eps, delta, l, rank_payoff(n))
    parts = split_solution(lp, solve(lp, "simplex").x)
    rule = StoppingRule.from_joint(np.maximum(parts.joint, 0.0))
    ranks = simulate_ranks(rule, size, np.random.default_rng(20240601))
    freq = np.bincount(ranks, minlength=n + 1)[1:] / size
    q = parts.rank_distribution
    se = np.sqrt(q * (1 - q) / size)
    assert (np.abs(freq - q) <= 5 * se + 1e-12).all()
    # the LP rule is private (Theorem 3.2 rows on its exact law)
    a, b = privacy_pairs(n, l)
    assert (q[a] - math.exp(eps) * q[b] <= delta + 1e-9).all()


def test_enumerated_lp_rule_matches_exactly_for_small_n():
    n = 6
    lp = stopping_lp(n, 0.2, 0.0, 2, rank_payoff(n, "top-m", 2))
    parts = split_solution(lp, solve(lp, "simplex").x)
    rule = StoppingRule.from_joint(np.maximum(parts.joint, 0.0))
    np.testing.assert_allclose(enumerate_rank_distribution(rule), parts.rank_distribution,
                               atol=1e-9)
