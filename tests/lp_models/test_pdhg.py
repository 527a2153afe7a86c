"""Restarted PDHG (lp_models.pdhg): converges to the optimum HiGHS certifies, on random boxed
LPs and on a hand-solved one; its building blocks against plain scipy."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from lp_models.pdhg import RestartedPDHG, ScaledProblem, _equilibrate, _product
from lp_models.program import InvalidModelError, LinearProgram, dual_objective, solve

INF = np.inf
# Steps for the random LPs below: measured on seeds 0-2, double precision is at 1e-14 of
# HiGHS's optimum (objective, bound and rows) after 5,000 steps and single precision on its
# own floor (objective 1e-7, rows 2e-5) after 2,000; 6,000 keeps a margin, and more steps
# change nothing the assertions see.
STEPS = 6000


def random_boxed_lp(seed: int, rows: int = 30, cols: int = 40) -> LinearProgram:
    """A feasible LP (a random box point satisfies every row) with equality and >= rows,
    entries over four orders of magnitude (so the scaling matters)."""
    rng = np.random.default_rng(seed)
    matrix = sp.random(rows, cols, density=0.2, random_state=seed, format="csr")
    matrix.data = rng.choice([-1, 1], matrix.nnz) * 10.0 ** rng.uniform(-2, 2, matrix.nnz)
    hi = rng.uniform(0.5, 2.0, cols)
    point = rng.uniform(0, 1, cols) * hi
    activity = matrix @ point
    equal = np.arange(rows) < rows // 3
    lower = np.where(equal, activity, activity - rng.uniform(0, 1, rows))
    upper = np.where(equal, activity, INF)
    return LinearProgram(cost=rng.normal(size=cols), matrix=matrix.tocsc(), row_lower=lower,
                         row_upper=upper, col_lower=np.zeros(cols), col_upper=hi)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_converges_to_the_highs_optimum(seed):
    lp = random_boxed_lp(seed)
    exact = solve(lp, "simplex")
    pdhg = RestartedPDHG(lp)
    pdhg.iterate(STEPS)
    assert lp.objective_value(pdhg.x) == pytest.approx(exact.objective, rel=1e-6, abs=1e-6)
    assert lp.max_violation(pdhg.x) <= 1e-6
    # its multipliers give a Lagrangian bound (lp_models.program.dual_objective) as tight
    y = np.where(np.isinf(lp.row_upper), np.maximum(pdhg.y, 0.0), pdhg.y)
    bound, _ = dual_objective(lp, y)
    assert bound <= exact.objective + 1e-9
    assert bound == pytest.approx(exact.objective, rel=1e-6, abs=1e-6)
    assert pdhg.restarts > 0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_single_precision_reaches_its_own_accuracy(seed):
    """In float32 the iterates stay float32 inside, come out in double, and reach the optimum
    HiGHS certifies to single precision's accuracy (not double's)."""
    lp = random_boxed_lp(seed)
    exact = solve(lp, "simplex")
    pdhg = RestartedPDHG(ScaledProblem.from_lp(lp, np.float32))
    pdhg.iterate(STEPS)
    assert pdhg._x.dtype == pdhg._y.dtype == np.float32
    assert pdhg.x.dtype == pdhg.y.dtype == np.float64
    # measured: objective and bound within 2e-7 relative, rows (entries up to 100) 2e-5
    assert lp.objective_value(pdhg.x) == pytest.approx(exact.objective, rel=1e-6)
    assert lp.max_violation(pdhg.x) <= 1e-4
    y = np.where(np.isinf(lp.row_upper), np.maximum(pdhg.y, 0.0), pdhg.y)
    bound, _ = dual_objective(lp, y)
    assert bound <= exact.objective + 1e-9
    assert bound == pytest.approx(exact.objective, rel=1e-6)


def test_hand_solved_covering_lp():
    """min x + y s.t. x + 2y >= 2, 3x + y >= 3, 0 <= x, y <= 10: optimum (4/5, 3/5), value
    7/5, duals (2/5, 1/5) (both rows active, y solves A.T y = c)."""
    lp = LinearProgram(cost=[1.0, 1.0], matrix=sp.csc_matrix([[1.0, 2.0], [3.0, 1.0]]),
                       row_lower=[2.0, 3.0], row_upper=[INF, INF], col_lower=[0.0, 0.0],
                       col_upper=[10.0, 10.0])
    pdhg = RestartedPDHG(lp)
    pdhg.iterate(3000)
    assert np.allclose(pdhg.x, [0.8, 0.6], atol=1e-9)
    assert np.allclose(pdhg.y, [0.4, 0.2], atol=1e-9)


def test_warm_start_and_feasibility_problem():
    lp = random_boxed_lp(3)
    exact = solve(lp, "simplex")
    cold = RestartedPDHG(lp)
    warm = RestartedPDHG(lp, exact.x, exact.row_duals)
    cold.iterate(50)
    warm.iterate(50)
    assert abs(lp.objective_value(warm.x) - exact.objective) < abs(
        lp.objective_value(cold.x) - exact.objective)
    feasibility = RestartedPDHG(ScaledProblem.from_lp(lp).without_cost(), cold.x)
    feasibility.iterate(5000)
    assert lp.max_violation(feasibility.x) <= 1e-8


def test_product_into_a_buffer_matches_scipy():
    matrix = sp.random(50, 70, density=0.1, random_state=4, format="csr")
    vector = np.random.default_rng(4).normal(size=70)
    out = np.full(50, 123.0)                  # stale contents must not leak in
    _product(matrix, vector, out)
    assert np.allclose(out, matrix @ vector, rtol=1e-15, atol=1e-15)


def test_equilibration_is_a_diagonal_rescaling_of_norm_at_most_one():
    """The last pass is Pock and Chambolle's (alpha = 1), whose rescaled matrix has spectral
    norm <= 1 whatever came before (their Lemma 2)."""
    matrix = random_boxed_lp(5).matrix.tocsr()
    scaled, row_scale, col_scale = _equilibrate(matrix)
    expected = sp.diags(row_scale) @ matrix @ sp.diags(col_scale)
    assert abs(scaled - expected).max() <= 1e-14 * abs(expected).max()
    assert np.linalg.norm(scaled.toarray(), 2) <= 1 + 1e-12
    assert np.linalg.norm(matrix.toarray(), 2) > 10           # it did rescale


def test_rejects_what_it_cannot_solve():
    base = {"cost": [1.0], "matrix": sp.csc_matrix([[1.0]]), "row_lower": [1.0], "row_upper": [INF]}
    with pytest.raises(InvalidModelError, match="finite"):
        RestartedPDHG(LinearProgram(**base))                        # x <= inf
    with pytest.raises(InvalidModelError, match=">= row"):
        RestartedPDHG(LinearProgram(**{**base, "row_upper": [2.0]}, col_upper=[3.0]))
    with pytest.raises(InvalidModelError, match="minimisation"):
        RestartedPDHG(LinearProgram(**base, col_upper=[3.0], sense="max"))
