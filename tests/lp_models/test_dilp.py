"""The discretised DILP builders: layout, closed forms of small cases, exact tails, the
invariance reduction against the per-user LP, strong duality, and a cvxpy cross-check."""

import itertools
import math

import numpy as np
import pytest

from lp_models.dilp import (
    canonical_chains,
    line_dilp,
    ring_dilp,
    ring_dilp_per_user,
    sorted_vectors,
)
from lp_models.program import LinearProgram, solve, to_cvxpy


def test_sorted_vectors_enumerates_every_monotone_vector_once():
    for length, upper in ((0, 4), (1, 5), (2, 4), (3, 6)):
        rows = sorted_vectors(length, upper)
        expected = list(itertools.combinations_with_replacement(range(upper + 1), length))
        assert [tuple(r) for r in rows] == expected


def _orbit_count(k, max_spread=None, period=None):
    """Brute force: multisets of k grid points up to translation (rotation) and reflection."""
    if period is None:
        points = range(max_spread + 1)
        shapes = set()
        for combo in itertools.combinations_with_replacement(points, k):
            if max(combo) - min(combo) > max_spread:
                continue
            base = tuple(sorted(c - min(combo) for c in combo))
            mirror = tuple(sorted(max(base) - c for c in base))
            shapes.add(min(base, mirror))
        return len(shapes)
    shapes = set()
    for combo in itertools.combinations_with_replacement(range(period), k):
        variants = [tuple(sorted((s * (c - a)) % period for c in combo))
                    for a in combo for s in (1, -1)]
        shapes.add(min(variants))
    return len(shapes)


@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_one_chain_per_orbit(k):
    for spread in (0, 3, 7):
        chains = canonical_chains(k, max_spread=spread)
        assert len(chains) == _orbit_count(k, max_spread=spread)
        assert (chains[:, 0] == 0).all() and (np.diff(chains, axis=1) >= 0).all()
    for period in (5, 8):
        assert len(canonical_chains(k, period=period)) == _orbit_count(k, period=period)


@pytest.mark.parametrize("eps,spacing", [(1.3, 0.05), (0.4, 0.3)])
def test_one_result_on_the_line_is_the_discrete_laplace(eps, spacing):
    """k = 1: the LP optimum is the geometric mechanism, cost spacing / sinh(eps spacing)."""
    model = line_dilp(1, eps, spacing, max_spread=0, margin=int(3 / (eps * spacing)) + 2)
    primal, dual = solve(model.primal), solve(model.dual)
    exact = spacing / math.sinh(eps * spacing)
    assert primal.objective == pytest.approx(exact, rel=1e-11)
    assert dual.objective == pytest.approx(exact, rel=1e-11)
    q = math.exp(-eps * spacing)
    np.testing.assert_allclose(primal.x / primal.x.max(), q ** np.abs(model.position), rtol=1e-8)


def test_tails_are_exact_a_wider_window_changes_nothing():
    """With the tails in closed form, the value does not depend on the margin (once the
    cost beyond the window exceeds the value), to rounding.  Spacing 0.2: the windows
    reach 1.4, 3.2 and 7.2 as at spacing 0.1 (1.8 CPU s there, 0.1 s here); whether the
    tails are exact does not depend on the spacing."""
    values = []
    for margin in (6, 15, 35):
        model = line_dilp(2, 1.0, 0.2, max_spread=12, margin=margin)
        values.append(solve(model.primal).objective)
        assert model.first_tail_cost > values[-1]
    assert max(values) - min(values) < 1e-12


def test_cutting_the_chains_instead_lets_the_lp_cheat():
    """Why the tails matter: keep the same window but drop the tails (end columns with
    mass weight 1 and their window cost only) and the value falls far below ln 2."""
    model = line_dilp(2, 1.0, 0.1, max_spread=25, margin=4)
    exact = solve(model.primal).objective
    lp = model.primal
    window_cost = (np.abs(model.position[:, None] + model.chains[model.chain]).min(axis=1)
                   * model.spacing)
    matrix = lp.matrix.tolil()
    matrix[0, :] = 1.0
    cut = LinearProgram(cost=window_cost, matrix=matrix.tocsc(), row_lower=lp.row_lower,
                        row_upper=lp.row_upper)
    assert exact == pytest.approx(math.log(2), abs=2e-3)
    assert solve(cut).objective < exact - 0.1


def test_strong_duality_and_the_dual_is_the_transposed_program():
    model = line_dilp(2, 0.8, 0.15, max_spread=20, margin=10)
    primal, dual = solve(model.primal), solve(model.dual)
    assert primal.objective == pytest.approx(dual.objective, abs=1e-10)
    # HiGHS's multiplier of sum p = 1 in the primal is the dual LP's w
    assert primal.row_duals[0] == pytest.approx(dual.x[0], abs=1e-10)
    difference = model.dual.matrix - model.primal.matrix.T
    assert abs(difference).max() == 0
    np.testing.assert_array_equal(model.dual.row_upper, model.primal.cost)


def test_chain_decomposition_equals_the_whole_program():
    model = ring_dilp(2, 0.7, 24)
    whole = solve(model.primal).objective
    chains = [solve(model.chain_lps(j)[0]) for j in range(model.num_chains)]
    duals = [solve(model.chain_lps(j)[1]) for j in range(model.num_chains)]
    best = int(np.argmin([c.objective for c in chains]))
    assert chains[best].objective == pytest.approx(whole, abs=1e-12)
    x = model.embed_primal(best, chains[best].x)
    w = min(d.objective for d in duals)
    y = model.embed_dual(w, [d.x for d in duals])
    assert model.primal.max_violation(x) < 1e-9 and model.dual.max_violation(y) < 1e-9
    assert model.primal.objective_value(x) == pytest.approx(whole, abs=1e-12)
    assert model.dual.objective_value(y) == pytest.approx(whole, abs=1e-12)
    assert model.chain_mass(x)[best] == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("k,eps,grid", [(1, 0.5, 12), (2, 1.0, 10), (2, 0.375, 9),
                                        (3, 0.7, 7)])
def test_invariant_ring_lp_equals_the_per_user_lp(k, eps, grid):
    """The per-user LP (12) with an epigraph variable and no symmetry assumed has the same
    optimum as the translation-invariant chain LP: the reduction loses nothing."""
    per_user = solve(ring_dilp_per_user(k, eps, grid))
    invariant = solve(ring_dilp(k, eps, grid).primal)
    assert per_user.objective == pytest.approx(invariant.objective, abs=1e-10)


def test_cvxpy_agrees_on_a_small_model():
    import cvxpy as cp

    model = ring_dilp(2, 0.5, 14)
    cvx = to_cvxpy(model.primal)
    cvx.problem.solve(solver=cp.CLARABEL)
    assert cvx.problem.value == pytest.approx(solve(model.primal).objective, abs=1e-6)


def _value(model):
    """The whole LP's value as the least chain value."""
    return min(solve(model.chain_lps(j)[0]).objective for j in range(model.num_chains))


def test_ring_at_three_eighths_approaches_the_antipodal_mechanism():
    """eps = 3/8: results s, s + pi with noise ∝ e^{-eps min(|x|, pi-|x|)} cost
    (1 - (1 + a) e^{-a}) / (eps (1 - e^{-a})), a = eps pi / 2; the discrete LP value tends
    to it from below as the grid is refined (error O(spacing^2): the error ratios are
    3.995 and 3.999 from grid 20 to 40 to 80, and 4.000 from 80 to 160)."""
    eps = 0.375
    a = eps * math.pi / 2
    target = (1 - (1 + a) * math.exp(-a)) / (eps * -math.expm1(-a))
    errors = [target - _value(ring_dilp(2, eps, grid)) for grid in (20, 40, 80)]
    assert all(e > 0 for e in errors)
    assert 3.5 < errors[0] / errors[1] < 4.5 and 3.5 < errors[1] / errors[2] < 4.5


def test_builders_reject_bad_input():
    with pytest.raises(ValueError, match="k"):
        ring_dilp(0, 1.0, 10)
    with pytest.raises(ValueError, match="epsilon"):
        line_dilp(2, -1.0, 0.1, 5, 5)
    with pytest.raises(ValueError, match="spacing"):
        line_dilp(2, 1.0, 0.0, 5, 5)
    with pytest.raises(ValueError, match="margin"):
        line_dilp(2, 1.0, 0.1, 5, 0)
    with pytest.raises(ValueError, match="grid"):
        ring_dilp(2, 1.0, 2)
    with pytest.raises(ValueError, match="h grows too fast"):
        line_dilp(1, 1.0, 0.1, 0, 5, h=lambda t: np.exp(2 * t))


@pytest.mark.parametrize("build", [lambda: line_dilp(2, 1.0, 0.5, 2, 2).primal,
                                   lambda: ring_dilp(2, 1.0, 8).primal,
                                   lambda: ring_dilp_per_user(2, 1.0, 6)])
def test_the_two_privacy_blocks_are_labelled_by_direction(build):
    """``privacy-up`` rows read ``e^a p[tail] - p[head] >= 0`` and ``privacy-down`` rows
    ``e^a p[head] - p[tail] >= 0``: checked on the matrix, independently of the labels'
    code: the row's coefficient e^a sits on the column its label names first."""
    lp = build()
    kinds = [kind for kind, _, _ in lp.row_layout()]
    assert kinds[-2:] == ["privacy-up", "privacy-down"] and "privacy" not in kinds
    growth = math.exp(lp.metadata["epsilon"] * lp.metadata["spacing"])
    rows = lp.matrix.tocsr()
    (_, up, mid), (_, _, stop) = lp.row_layout()[-2:]
    for first, last in ((up, mid), (mid, stop)):
        for i in (first, last - 1):
            cols = rows.indices[rows.indptr[i]:rows.indptr[i + 1]]
            vals = rows.data[rows.indptr[i]:rows.indptr[i + 1]]
            big = cols[np.isclose(vals, growth)][0]
            small = cols[np.isclose(vals, -1.0)][0]
            assert lp.row_label(i) == (f"privacy[e^(eps*spacing) {lp.column_label(big)} "
                                       f">= {lp.column_label(small)}]")
    # the up row of an edge and its down row link the same two columns, the other way round
    for i in (up, mid - 1):
        j = i + (mid - up)
        assert set(rows.indices[rows.indptr[i]:rows.indptr[i + 1]]) == \
            set(rows.indices[rows.indptr[j]:rows.indptr[j + 1]])
