"""Checks of the secretary paper's claims themselves (the claims inventory cites them): Facts 4
and 5 of version 4, and version 1's Section 3.1 theorems, Lemma 1, the remark after
Corollary 2, Corollary 5 and Lemma 6 (version 4 dropped or replaced them)."""

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from optmech.secretary import (
    blind_choice,
    blind_choice_rule,
    classical_rule,
    delta_for_epsilon,
    enumerate_rank_distribution,
    epsilon_for_delta,
    mix,
    mix_rules,
    optimal_rule_for_payoff,
    pmix_rank_distribution,
    rank_distribution,
    rank_distribution_as_printed,
    rank_distribution_exact,
    threshold,
)
from optmech.secretary.rules import StoppingRule
from tests.optmech.secretary.test_privacy import brute_delta  # Definition 5 by brute force


def test_blind_choice_is_zero_zero_private_for_every_metric():
    """Fact 4: for every qualification order σ, the blind choice (stop at time 1) selects each
    candidate with probability exactly 1/n (all n! arrival orders), so any two σ, ρ -- at any
    distance, hence under every metric -- give the same law: (0, 0)-DP."""
    for n in (3, 4, 5):
        laws = set()
        for sigma in itertools.permutations(range(n)):      # sigma[i] = rank of candidate i
            chosen = [0] * n
            for tau in itertools.permutations(range(n)):
                chosen[tau[0]] += 1                          # the blind choice takes tau_1
            laws.add(tuple(Fraction(c, math.factorial(n)) for c in chosen))
        assert laws == {(Fraction(1, n),) * n}
        rule_law = enumerate_rank_distribution(blind_choice_rule(n), exact=True)
        assert rule_law == [Fraction(1, n)] * n
        for l in range(1, n):
            assert brute_delta([float(v) for v in rule_law], 0.0, l) == 0.0


def _random_rule(n, seed):
    rng = np.random.default_rng(seed)
    stop = np.tril(rng.random((n, n)) ** 3)
    stop[-1] = 1.0
    return StoppingRule(stop)


@pytest.mark.parametrize("n", [4, 5, pytest.param(6, marks=pytest.mark.slow)])
def test_pmix_succeeds_with_at_least_p_times_the_optimal_probability(n):
    """Fact 5: for the optimal rule of a problem D (the best candidate; the top two) and any
    other rule M', the p-mix (played as one rule, all n! arrival orders, exact fractions)
    selects a candidate of D with probability >= p Pr[M_opt selects one].  (n = 6 plays
    720 orders 40 times: the slow step runs it; n = 4 and 5 check the same in the default
    run.)"""
    top_two = np.r_[1.0, 1.0, np.zeros(n - 2)]
    for optimal, desired in ((classical_rule(n), 1), (optimal_rule_for_payoff(top_two)[0], 2)):
        best = sum(enumerate_rank_distribution(optimal, exact=True)[:desired])
        others = [blind_choice_rule(n), *(_random_rule(n, seed) for seed in range(3))]
        for other, p in itertools.product(others, (0.0, 0.25, 0.5, 0.9, 1.0)):
            law = enumerate_rank_distribution(mix_rules(p, optimal, other), exact=True)
            assert sum(law[:desired]) >= Fraction(p) * best - Fraction(1, 10 ** 12)


def _second_rules(n, epsilon, l, rng):
    """Rank distributions q' with q'_k <= e^eps q'_m whenever |k - m| <= l (Theorems 1-2 of
    version 1): uniform, the steepest geometric, random walks of log-step <= eps / l."""
    yield blind_choice(n)
    for steps in (np.full(n - 1, -epsilon / l), rng.uniform(-1, 1, (3, n - 1)) * epsilon / l):
        for row in np.atleast_2d(steps):
            q = np.exp(np.r_[0.0, np.cumsum(row)])
            yield q / q.sum()


CASES = [(n, l, eps, p) for n in (3, 5, 6, 9) for l in (1, 2, n - 1)
         for eps in (0.0, 0.3, 1.0) for p in (0.0, 0.3, 0.7, 1.0)]


def test_version_1_theorem_1_mix_keeps_epsilon_and_scales_delta():
    """Version 1, Theorem 1: if M_opt is (ε, δ)-DP under d_l and the other rule's ranks satisfy
    q'_k <= e^ε q'_m for |k - m| <= l, the p-mix is (ε, p δ)-DP (δ = M_opt's tight δ(ε);
    brute force over events for n <= 6).  Without the condition on q' it can fail (M' = M_opt
    itself, p < 1)."""
    rng = np.random.default_rng(1)
    for n, l, eps, p in CASES:
        r = rank_distribution(n)
        delta = delta_for_epsilon(r, eps, l)
        for second in _second_rules(n, eps, l, rng):
            q = mix(p, r, second)
            tight = brute_delta(q, eps, l) if n <= 6 else delta_for_epsilon(q, eps, l)
            assert tight <= p * delta + 1e-12, (n, l, eps, p)
    r = rank_distribution(6)
    assert delta_for_epsilon(mix(0.5, r, r), 0.3, 1) > 0.5 * delta_for_epsilon(r, 0.3, 1) + 0.01


def test_version_1_theorem_2_mix_lowers_epsilon_at_the_same_delta():
    """Version 1, Theorem 2: under the same condition, if p >= 1 - (e^ε - 1)/δ the p-mix is
    (ln(e^ε - (1 - p) δ), δ)-DP."""
    rng = np.random.default_rng(2)
    checked = 0
    for n, l, eps, p in CASES:
        r = rank_distribution(n)
        delta = delta_for_epsilon(r, eps, l)
        if delta == 0 or p < 1 - math.expm1(eps) / delta:
            continue
        smaller = math.log(math.exp(eps) - (1 - p) * delta)
        for second in _second_rules(n, eps, l, rng):
            q = mix(p, r, second)
            tight = brute_delta(q, smaller, l) if n <= 6 else delta_for_epsilon(q, smaller, l)
            assert tight <= delta + 1e-12, (n, l, eps, p)
            checked += 1
    assert checked > 50


def test_version_1_lemma_1_epsilon_grows_when_l_grows():
    """Version 1, Lemma 1: with l = n - 1 (l -> ∞) the p-mix (p = 1/2, δ = 0.01) needs an ε that
    grows without bound, about ln n - 1.37 for n = 10 ... 3000."""
    sizes = (10, 100, 1000, 3000)
    eps = [epsilon_for_delta(pmix_rank_distribution(n, 0.5), 0.01, n - 1) for n in sizes]
    assert all(a < b for a, b in itertools.pairwise(eps))
    assert all(-1.5 < e - math.log(n) < -1.0 for e, n in zip(eps, sizes))


@pytest.mark.parametrize("n", [7, 10, 30, 100])
def test_version_1_remark_after_corollary_2(n):
    """Version 1, §3.2 after Corollary 2: with δ~ = r_1 - e^ε r_{l+1} (ε < ln(r_1/r_{l+1})),
    the p-mix is exactly (ε, p δ~ - (1-p)(e^ε - 1)/n)-DP, tighter than Theorem 1's p δ~."""
    r = rank_distribution(n)
    for l, eps, p in itertools.product((1, 2), (0.1, 0.5), (0.2, 0.6, 1.0)):
        if eps >= math.log(r[0] / r[l]):
            continue
        tilde = r[0] - math.exp(eps) * r[l]
        predicted = p * tilde - (1 - p) * math.expm1(eps) / n
        exact = delta_for_epsilon(mix(p, r, blind_choice(n)), eps, l)
        assert exact == pytest.approx(max(predicted, 0.0), abs=1e-14)
        assert predicted <= p * tilde


def test_version_1_corollary_5_holds_for_the_printed_formula_only():
    """Version 1, Corollary 5: r_k = r_1 - (t-1)/n sum_{s<k} (1/s) C(n-t+1, s)/C(n-1, s).  An
    identity of Theorem 4's printed formula; the true probabilities (equal to the rule played
    on every arrival order) miss it by (t-1)/(n(n-1)) for every k >= 2."""
    for n in range(3, 41):
        t = threshold(n)
        printed, true = rank_distribution_as_printed(n), rank_distribution_exact(n)
        steps = [Fraction(t - 1, n * s) * Fraction(math.comb(n - t + 1, s), math.comb(n - 1, s))
                 for s in range(1, n)]
        for k in range(2, n + 1):
            assert printed[k - 1] == printed[0] - sum(steps[:k - 1])
            assert true[k - 1] - (true[0] - sum(steps[:k - 1])) == Fraction(t - 1, n * (n - 1))
    for n in range(3, 8):
        assert enumerate_rank_distribution(classical_rule(n), exact=True) == \
            rank_distribution_exact(n)


def test_version_1_lemma_6_bound_in_the_limit():
    """Version 1, Lemma 6: lim r_{k,n} / ((1 - 1/e)^k + 1/(e n)) <= 1.  At finite n the ratio
    exceeds 1 by at most 2/n (at large k, the forced-stop floor), and for fixed k the limit
    is a_k e^{-1} / (1 - 1/e)^k < 1 (mpmath, k <= 300)."""
    for n in (10 ** 3, 10 ** 4, 10 ** 5, 10 ** 6):
        k = np.arange(1, n + 1)
        ratio = rank_distribution(n) / ((1 - 1 / math.e) ** k + 1 / (math.e * n))
        assert ratio.max() <= 1 + 2 / n
    with mpmath.workdps(30):
        x = 1 - 1 / mpmath.e
        # a_k = sum_{s >= k} x^s / s, from k = 300 down by a_k = a_{k+1} + x^k / k (positive
        # terms only); a_301 summed to s = 900, the rest below x^900 relative.  (mpmath's
        # nsum per k took 250x the CPU and missed 1% of a_k from k = 200 on.)
        a_k = mpmath.fsum(x ** s / s for s in range(301, 901))
        for k in range(300, 0, -1):
            a_k += x ** k / k
            assert a_k / mpmath.e < x ** k
        assert mpmath.almosteq(a_k, -mpmath.log(1 - x), 1e-28)    # a_1 = -log(1 - x) = 1
