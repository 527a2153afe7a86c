"""Stopping rules: rank distributions against enumeration, the binomial formula and Monte
Carlo simulation on random arrival orders; mixes; classical optima by backward induction."""

import math
from fractions import Fraction

import numpy as np
import pytest

from optmech.secretary import (
    StoppingRule,
    absolute_rank_probabilities,
    blind_choice_rule,
    classical_rule,
    enumerate_rank_distribution,
    mix_rules,
    optimal_rule_for_payoff,
    pmix_rank_distribution,
    rank_distribution,
    simulate_ranks,
)
from optmech.validation import InvalidArgumentError


def random_rule(n, seed):
    rng = np.random.default_rng(seed)
    stop = np.tril(rng.random((n, n)) ** 3)
    stop[-1] = 1.0
    return StoppingRule(stop)


def within_five_standard_errors(ranks, q):
    size = ranks.size
    freq = np.bincount(ranks, minlength=q.size + 1)[1:] / size
    se = np.sqrt(q * (1 - q) / size)
    return np.abs(freq - q) <= 5 * se + 1e-12


@pytest.mark.parametrize("n, seed", [(3, 0), (5, 1), (7, 2)])
def test_rank_distribution_of_random_rules_equals_enumeration(n, seed):
    rule = random_rule(n, seed)
    exact = enumerate_rank_distribution(rule, exact=True)
    assert sum(exact) == 1
    np.testing.assert_allclose(rule.rank_distribution(), [float(v) for v in exact],
                               rtol=1e-13, atol=1e-16)


def test_rank_distribution_equals_the_binomial_formula_sum():
    """sum_{i,r} x[i,r] C(k-1,r-1) C(n-k,i-r)/C(n,i) with log-gamma binomials."""
    n = 25
    rule = random_rule(n, 3)
    joint = rule.joint()
    dense = sum(joint[i - 1, r - 1] * absolute_rank_probabilities(n, i, r)
                for i in range(1, n + 1) for r in range(1, i + 1))
    np.testing.assert_allclose(rule.rank_distribution(), dense, rtol=1e-11, atol=1e-17)


def test_absolute_rank_probabilities_exact_and_at_large_n():
    n, i, r = 12, 5, 2
    exact = [Fraction(math.comb(k - 1, r - 1) * math.comb(n - k, i - r), math.comb(n, i))
             for k in range(1, n + 1)]
    np.testing.assert_allclose(absolute_rank_probabilities(n, i, r), [float(v) for v in exact],
                               rtol=1e-13)
    big = absolute_rank_probabilities(10**6, 400_000, 3)   # no overflow
    assert np.isfinite(big).all() and big.sum() == pytest.approx(1, abs=1e-9)


def test_joint_law_is_a_probability_and_feasible():
    rule = random_rule(30, 4)
    joint, s = rule.joint(), rule.running()
    assert joint.sum() == pytest.approx(1, abs=1e-14)
    assert (joint <= (s / np.arange(1, 31))[:, None] + 1e-17).all()
    assert rule.stopping_time_distribution().sum() == pytest.approx(1, abs=1e-14)


def test_from_joint_round_trip():
    rule = random_rule(12, 5)
    again = StoppingRule.from_joint(rule.joint())
    reach = rule.running() > 1e-12
    np.testing.assert_allclose(again.stop[reach], rule.stop[reach], atol=1e-12)


def test_classical_rule_is_m_star_and_the_backward_induction_optimum():
    for n in (3, 10, 57):
        rule, value = optimal_rule_for_payoff(np.eye(n)[0])
        assert np.array_equal(rule.stop, classical_rule(n).stop)
        assert value == pytest.approx(rank_distribution(n)[0], rel=1e-14)
        np.testing.assert_allclose(classical_rule(n).rank_distribution(), rank_distribution(n),
                                   rtol=1e-12)


def test_expected_rank_optimum_matches_chow_et_al_small_n():
    """Minimal expected rank (Chow, Moriguti, Robbins, Samuels 1964): 1 for n = 1,
    3/2 for n = 2, 5/3 for n = 3, 15/8 for n = 4."""
    for n, value in ((2, 1.5), (3, 5 / 3), (4, 15 / 8)):
        assert -optimal_rule_for_payoff(-np.arange(1.0, n + 1))[1] == pytest.approx(value)


def test_pmix_rule_has_the_pmix_distribution():
    n, p = 20, 0.3
    rule = mix_rules(p, classical_rule(n), blind_choice_rule(n))
    np.testing.assert_allclose(rule.rank_distribution(), pmix_rank_distribution(n, p),
                               rtol=1e-12)


@pytest.mark.parametrize("rule_of, n", [(classical_rule, 30), (blind_choice_rule, 9)])
def test_simulation_on_random_orders_confirms_exact_distributions(rule_of, n):
    rule = rule_of(n)
    ranks = simulate_ranks(rule, 100_000, np.random.default_rng(11))
    assert within_five_standard_errors(ranks, rule.rank_distribution()).all()


def test_simulation_of_a_random_rule_and_reproducibility():
    rule = random_rule(15, 6)
    ranks = simulate_ranks(rule, 100_000, np.random.default_rng(12))
    assert within_five_standard_errors(ranks, rule.rank_distribution()).all()
    again = simulate_ranks(rule, 1000, np.random.default_rng(3), batch=300)
    assert np.array_equal(again, simulate_ranks(rule, 1000, np.random.default_rng(3), batch=300))


@pytest.mark.parametrize("stop", [
    np.ones((1, 1)),
    np.ones((3, 2)),
    np.array([[1.0, 0.0], [0.5, 0.5]]),        # last row not all ones
    np.array([[0.5, 0.2], [1.0, 1.0]]),        # nonzero above the diagonal
    np.array([[1.5, 0.0], [1.0, 1.0]]),
])
def test_bad_rules_are_rejected(stop):
    with pytest.raises(InvalidArgumentError, match="stop must be"):
        StoppingRule(stop)


def test_enumeration_refuses_large_n():
    with pytest.raises(InvalidArgumentError, match="rule"):
        enumerate_rank_distribution(classical_rule(9))
