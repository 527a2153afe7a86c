"""The stopping-rule LP: structure, the rank recursion against the binomial formula, optima
against the classical secretary problem, cvxpy, and the exact dual."""

import math
from fractions import Fraction

import numpy as np
import pytest

from lp_models.program import InvalidModelError, dual_objective, solve, to_cvxpy
from lp_models.stopping import (
    full_duals,
    full_primal,
    mixture_lp,
    payoff_values,
    privacy_pairs,
    privacy_relaxation_lp,
    propagate_ranks,
    rank_payoff,
    split_solution,
    stopping_lp,
    triangle_index,
)


def binomial_law(n, i, r):
    """P(absolute rank k | relative rank r at time i) = C(k-1,r-1) C(n-k,i-r) / C(n,i)."""
    return [Fraction(math.comb(k - 1, r - 1) * math.comb(n - k, i - r), math.comb(n, i))
            for k in range(1, n + 1)]


def test_recursion_reproduces_the_binomial_formula_for_every_stop():
    n = 9
    for i in range(1, n + 1):
        for r in range(1, i + 1):
            joint = np.zeros((n, n))
            joint[i - 1, r - 1] = 1.0
            exact = np.array([float(v) for v in binomial_law(n, i, r)])
            np.testing.assert_allclose(propagate_ranks(joint), exact, rtol=0, atol=2e-16)


def test_sizes_and_quadratic_nonzeros():
    for n, l in ((10, 1), (40, 3)):
        lp = stopping_lp(n, 0.5, 0.01, l, rank_payoff(n))
        size = n * (n + 1) // 2
        pairs = 2 * sum(n - d for d in range(1, l + 1))
        assert lp.num_cols == 2 * size + n
        assert lp.num_rows == 2 * size + n + pairs
        # at most 4 + 2 + 1 per triangle cell, 2 per s, 2 per privacy row: O(n^2)
        assert lp.num_nonzeros <= 7 * size + 2 * n + 2 * pairs
    assert stopping_lp(10, math.inf, 0.0, 1, rank_payoff(10)).num_rows == 2 * 55 + 10


def test_privacy_pairs_are_all_close_ordered_pairs():
    a, b = privacy_pairs(6, 2)
    got = sorted(zip(a.tolist(), b.tolist()))
    want = sorted((i, j) for i in range(6) for j in range(6) if 0 < abs(i - j) <= 2)
    assert got == want


def test_without_privacy_the_lp_is_the_classical_secretary_problem():
    """n = 10: the optimum is 2761/6930 (stop at the first relative best from time 4 on:
    (3/10)(1/3 + ... + 1/9))."""
    n = 10
    lp = stopping_lp(n, math.inf, 0.0, 1, rank_payoff(n))
    sol = solve(lp, "simplex")
    best = Fraction(3, 10) * sum(Fraction(1, j) for j in range(3, 10))
    assert sol.objective == pytest.approx(float(best), abs=1e-12)
    parts = split_solution(lp, sol.x)
    assert parts.rank_distribution.sum() == pytest.approx(1, abs=1e-12)
    assert parts.running[0] == 1.0


@pytest.mark.parametrize("payoff, m", [("best", None), ("top-m", 2), ("rank", None)])
def test_backward_induction_value_equals_the_lp_optimum(payoff, m):
    n = 8
    weights = rank_payoff(n, payoff, m)
    sol = solve(stopping_lp(n, math.inf, 0.0, 1, weights), "simplex")
    assert payoff_values(weights).value == pytest.approx(sol.objective, abs=1e-12)


def test_private_optimum_agrees_with_cvxpy_and_respects_privacy():
    n, eps, delta, l = 7, 0.3, 0.02, 2
    lp = stopping_lp(n, eps, delta, l, rank_payoff(n))
    sol = solve(lp, "simplex")
    model = to_cvxpy(lp)
    model.problem.solve()
    assert sol.objective == pytest.approx(model.problem.value, abs=1e-6)
    q = split_solution(lp, sol.x).rank_distribution
    a, b = privacy_pairs(n, l)
    assert (q[a] - math.exp(eps) * q[b] <= delta + 1e-9).all()


def test_full_duals_certify_the_highs_optimum():
    n, eps, delta, l = 12, 0.5, 0.01, 2
    lp = stopping_lp(n, eps, delta, l, rank_payoff(n))
    sol = solve(lp, "simplex")
    y = np.maximum(sol.row_duals[lp.metadata["privacy_row"]:], 0.0)
    value, infeasibility = dual_objective(lp, full_duals(lp, y))
    assert infeasibility < 1e-12
    assert value == pytest.approx(sol.objective, abs=1e-9)
    # any multipliers give an upper bound
    for scale in (0.0, 0.5, 3.0):
        assert dual_objective(lp, full_duals(lp, scale * y))[0] >= sol.objective - 1e-12


def test_full_primal_of_the_solution_is_the_solution():
    n = 9
    lp = stopping_lp(n, 0.4, 0.0, 1, rank_payoff(n, "rank"))
    sol = solve(lp, "simplex")
    point = full_primal(lp, split_solution(lp, sol.x).joint)
    np.testing.assert_allclose(point, sol.x, atol=1e-9)
    assert lp.max_violation(point) < 1e-9


def test_mixture_lp_of_the_blind_choice_and_classical_rule():
    """Mixing M* (n = 10) with the uniform blind choice: the largest private weight is
    Corollary 3's p, found here by the LP."""
    n, eps, delta = 10, 0.5, 0.01
    classical = payoff_values(rank_payoff(n)).stop
    times, ranks = triangle_index(n)
    joint = np.zeros((n, n))
    # M* as a joint law: stop at relative best from t = 4, forced at n
    s = 1.0
    for i in range(1, n + 1):
        row = classical[times == i].astype(float) if i < n else np.ones(n)
        joint[i - 1, :i] = s / i * row
        s -= joint[i - 1].sum()
    r = propagate_ranks(joint)
    Q = np.vstack([np.full(n, 1 / n), r])
    a, b = privacy_pairs(n, 1)
    sol = solve(mixture_lp(Q, rank_payoff(n), eps, delta, (a, b)), "simplex")
    grow = math.exp(eps)
    p = (delta + (grow - 1) / n) / (r[0] - grow * r[1] + (grow - 1) / n)
    assert sol.x[1] == pytest.approx(p, abs=1e-9)


def test_privacy_relaxation_geometric_bound_in_exact_fractions():
    """δ = 0, l = 1, best choice, e^ε = 2: the relaxation's optimum is q[1] of the geometric
    law, 2^(n-1) / (2^n - 1), exactly; the optimal q is that law."""
    n = 12
    sol = solve(privacy_relaxation_lp(n, math.log(2), 0.0, 1, rank_payoff(n)), "simplex",
                options={"primal_feasibility_tolerance": 1e-10})
    exact = [Fraction(2 ** (n - k), 2 ** n - 1) for k in range(1, n + 1)]
    np.testing.assert_allclose(sol.x, [float(v) for v in exact], rtol=1e-12, atol=0)
    assert sol.objective == pytest.approx(float(exact[0]), rel=1e-13)
    assert sol.gap < 1e-12


@pytest.mark.parametrize("eps, delta, l, payoff, m", [
    (0.5, 0.01, 1, "best", None), (0.3, 0.0, 2, "best", None), (1.0, 0.05, 1, "top-m", 3),
    (0.4, 0.02, 2, "rank", None), (0.05, 0.0, 1, "best", None)])
def test_privacy_relaxation_bounds_the_stopping_lp(eps, delta, l, payoff, m):
    """Independent reference: HiGHS on the full stopping LP.  The relaxation's optimum and
    the Lagrangian bound (full_duals) of its privacy duals are both >= that optimum, and
    the full LP's optimal q is feasible for the relaxation."""
    n = 14
    weights = rank_payoff(n, payoff, m)
    full = stopping_lp(n, eps, delta, l, weights)
    full_sol = solve(full, "simplex")
    relaxation = privacy_relaxation_lp(n, eps, delta, l, weights)
    relaxed = solve(relaxation, "simplex")
    assert relaxed.objective >= full_sol.objective - 1e-9
    bound, _ = dual_objective(full, full_duals(full, np.maximum(relaxed.row_duals[:-1], 0)))
    assert full_sol.objective - 1e-9 <= bound <= relaxed.objective + 1e-9
    assert relaxation.max_violation(split_solution(full, full_sol.x).rank_distribution) < 1e-9


def test_privacy_relaxation_without_privacy_puts_everything_on_the_best_payoff():
    n = 6
    lp = privacy_relaxation_lp(n, math.inf, 0.0, 1, rank_payoff(n, "rank"))
    assert lp.num_rows == 1
    assert solve(lp, "simplex").objective == pytest.approx(-1.0, abs=1e-12)


@pytest.mark.parametrize("kwargs, match", [
    (dict(n=1), "n must be an integer >= 2"),
    (dict(l=0), "l must be an integer in"),
    (dict(l=10), "l must be an integer in"),
    (dict(epsilon=-0.1), "epsilon must be"),
    (dict(delta=1.5), "delta must be"),
    (dict(delta=-0.1), "delta must be"),
])
def test_bad_input_is_rejected(kwargs, match):
    args = dict(n=10, epsilon=0.5, delta=0.01, l=1)
    args.update(kwargs)
    with pytest.raises(InvalidModelError, match=match):
        stopping_lp(payoff=np.ones(max(args["n"], 2)), **args)
    with pytest.raises(InvalidModelError, match=match):
        privacy_relaxation_lp(payoff=np.ones(max(args["n"], 2)), **args)
    with pytest.raises(InvalidModelError, match="payoff"):
        rank_payoff(5, "worst")
    with pytest.raises(InvalidModelError, match="m must be"):
        rank_payoff(5, "top-m", 6)
