"""The Δ-lattice builder and the minimax / weighted objectives (lp_models.lattice,
lp_models.lattice.objectives, lp_models.scaling).

Independent references: the unreduced LP over every vector of Q (a different builder, one
row per (q, r) pair, solved directly with lp_models.program.solve), brute-force moves of
integer score vectors, cvxpy with its own solver, and closed forms for n = 2.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from lp_models.lattice import (
    delta_lattice_lp,
    full_lattice_lp,
    level_error,
    privacy_pairs,
    reduced_lattice_lp,
)
from lp_models.lattice.classes import lattice_classes
from lp_models.lattice.objectives import (
    class_error_matrix,
    vector_error_matrix,
    with_max_objective,
    with_weighted_objective,
)
from lp_models.lattice.recurrences import pf_lattice_probabilities
from lp_models.program import dual_objective, solve, to_cvxpy
from lp_models.scaling import original_duals, scaled_program

TIGHT = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


def _solve(lp):
    return solve(lp, "simplex", options=TIGHT)


def _class_of(levels, classes):
    counts = np.bincount(levels, minlength=classes.k + 1)
    return int(classes.find(np.array([counts @ classes.radix]))[0])


@pytest.mark.parametrize("n, k", [(2, 3), (3, 3), (4, 2)])
def test_delta_rows_raise_the_item_by_two_steps_of_delta(n, k):
    """Every Δ privacy row links (q, r) to q + 2Δ e_r, found here by moving an integer score
    vector and normalising it, and rows exist exactly when q + 2Δ e_r stays in Q."""
    classes = lattice_classes(n, k)
    source, target = privacy_pairs(classes, "delta")
    rows = dict(zip(source.tolist(), target.tolist()))
    for v in range(classes.num_variables):
        counts = classes.counts[classes.var_class[v]]
        levels = np.repeat(np.arange(k + 1), counts)
        r = int(np.flatnonzero(levels == classes.var_level[v])[0])
        scores = -levels.astype(int)
        scores[r] += 2
        moved = scores.max() - scores
        if moved.max() > k:
            assert v not in rows
            continue
        expected = classes.variable(np.array([_class_of(moved, classes)]),
                                    np.array([moved[r]]))[0]
        assert rows[v] == expected


@pytest.mark.parametrize("n, k", [(2, 1), (2, 4), (3, 2), (3, 3), (4, 2)])
@pytest.mark.parametrize("eps", [0.2, 1.0, 3.0])
def test_delta_reduced_lp_equals_the_full_lp(n, k, eps):
    reduced = _solve(delta_lattice_lp(n, k, eps, normalise=False))
    full = _solve(full_lattice_lp(n, k, eps, lattice="delta", normalise=False))
    assert reduced.objective == pytest.approx(full.objective, rel=1e-9)


@pytest.mark.parametrize("eps", [0.3, 1.0, 4.0])
def test_delta_lattice_n2_k1_is_randomised_response(eps):
    """Class (1, 1): the lower item needs x >= e^-eps (1 - x), so the optimum is
    randomised response, total error 2 / (1 + e^eps) over the two vectors."""
    value = _solve(delta_lattice_lp(2, 1, eps, normalise=False)).objective
    assert value == pytest.approx(2 / (1 + math.exp(eps)), rel=1e-12)


def test_pf_is_feasible_but_not_optimal_on_the_delta_lattice():
    lp = delta_lattice_lp(3, 3, 1.0, normalise=False)
    classes = lp.metadata["classes"]
    pf = pf_lattice_probabilities(classes, 0.5)        # coins e^{-eps j / 2}
    assert lp.max_violation(pf) < 1e-15
    assert lp.objective_value(pf) > _solve(lp).objective * (1 + 1e-3)


def test_level_error_and_bad_lattice():
    assert (level_error("2delta"), level_error("delta")) == (2.0, 1.0)
    with pytest.raises(ValueError, match="lattice"):
        level_error("hex")
    with pytest.raises(ValueError, match="regular"):
        full_lattice_lp(2, 2, 1.0, constraints="paper", lattice="delta")


@pytest.mark.parametrize("lattice", ["2delta", "delta"])
@pytest.mark.parametrize("n, k, eps", [(2, 3, 0.3), (3, 2, 0.5), (3, 3, 1.0), (4, 2, 0.2)])
def test_minimax_reduced_equals_full(lattice, n, k, eps):
    """The largest expected error over Q: class rows of the reduced LP against one row per
    vector of the full LP."""
    build = delta_lattice_lp if lattice == "delta" else reduced_lattice_lp
    reduced = build(n, k, eps, normalise=False)
    full = full_lattice_lp(n, k, eps, lattice=lattice, normalise=False)
    upper = level_error(lattice) * k
    a = _solve(with_max_objective(reduced, class_error_matrix(reduced.metadata["classes"],
                                                              lattice), upper))
    b = _solve(with_max_objective(full, vector_error_matrix(full.metadata["levels"], lattice),
                                  upper))
    assert a.objective == pytest.approx(b.objective, rel=1e-9)
    assert a.gap < 1e-9 and b.gap < 1e-9


@pytest.mark.parametrize("rate", [0.3, 1.0, 2.0])
def test_weighted_reduced_equals_full_and_rate_one_is_the_sum(rate):
    n, k, eps = 3, 3, 0.4
    reduced = reduced_lattice_lp(n, k, eps, normalise=False)
    classes = reduced.metadata["classes"]
    full = full_lattice_lp(n, k, eps, normalise=False)
    levels = full.metadata["levels"]
    class_w = classes.multiplicity * rate ** classes.depth
    vector_w = rate ** levels.max(axis=1)
    a = _solve(with_weighted_objective(reduced, class_error_matrix(classes), class_w))
    b = _solve(with_weighted_objective(full, vector_error_matrix(levels), vector_w))
    assert a.objective == pytest.approx(b.objective, rel=1e-9)
    if rate == 1.0:
        total = _solve(reduced).objective
        assert a.objective * class_w.sum() == pytest.approx(total, rel=1e-10)


def test_minimax_n2_is_the_chain_lower_bound():
    """n = 2: every privacy chain starts at 1/2, so x_j >= e^{-eps j} / 2 on every vector
    and PF meets it; the minimax value is max_j j e^{-eps j} (2Δ-lattice)."""
    k, eps = 6, 0.3
    reduced = reduced_lattice_lp(2, k, eps, normalise=False)
    value = _solve(with_max_objective(reduced, class_error_matrix(reduced.metadata["classes"]),
                                      2.0 * k)).objective
    assert value == pytest.approx(max(j * math.exp(-eps * j) for j in range(k + 1)),
                                  rel=1e-12)


def test_minimax_against_cvxpy():
    reduced = reduced_lattice_lp(3, 3, 0.5, normalise=False)
    lp = with_max_objective(reduced, class_error_matrix(reduced.metadata["classes"]), 6.0)
    model = to_cvxpy(lp)
    model.problem.solve()
    assert model.problem.value == pytest.approx(_solve(lp).objective, rel=1e-6)


def test_objective_builders_reject_bad_input():
    reduced = reduced_lattice_lp(2, 2, 1.0)
    errors = class_error_matrix(reduced.metadata["classes"])
    with pytest.raises(ValueError, match="weights"):
        with_weighted_objective(reduced, errors, -np.ones(errors.shape[0]))
    with pytest.raises(ValueError, match="upper"):
        with_max_objective(reduced, errors, np.inf)
    with pytest.raises(ValueError, match="columns"):
        with_max_objective(reduced, errors[:, :-1], 4.0)


def test_scaled_program_has_the_same_optimum_and_dual_bound():
    lp = delta_lattice_lp(3, 3, 2.0)
    classes = lp.metadata["classes"]
    pf = pf_lattice_probabilities(classes, 1.0)
    cost_scale = lp.objective_value(pf)
    scaled, rows = scaled_program(lp, pf, cost_scale)
    assert np.abs(scaled.matrix).max(axis=1).toarray().ravel() == pytest.approx(1.0)
    plain, small = _solve(lp), _solve(scaled)
    assert small.objective * cost_scale == pytest.approx(plain.objective, rel=1e-9)
    assert np.abs(pf * small.x - plain.x).max() < 1e-9
    y = original_duals(small.row_duals, rows, cost_scale)
    bound, infeasibility = dual_objective(lp, y)
    assert bound == pytest.approx(plain.objective, rel=1e-9) and infeasibility < 1e-9
    with pytest.raises(ValueError, match="col_scale"):
        scaled_program(lp, -pf)
