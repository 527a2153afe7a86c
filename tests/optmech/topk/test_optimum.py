"""optmech.topk.optimum: the certified optimal top-k mechanism.

Independent references: the lattice area's certified optimum (``solve_lattice``, T = 1),
every lattice neighbour pair and output enumerated by brute force (``tests/topk_reference``)
for the privacy of the expanded optimum, and scipy's ``linprog`` re-solving the certified LP.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest
from scipy.optimize import linprog

from lp_models.program import SolverError
from optmech.lattice.optimum import solve_lattice
from optmech.resources import memory_budget, work_budget
from optmech.topk import solve_topk, topk_lp_size
from optmech.topk.optimum import TopKOptimum, require_topk_sweep
from optmech.validation import InvalidArgumentError, ResourceLimitError
from tests.topk_reference import lattice_vectors, outputs, worst_privacy_loss

GRID_EPSILONS = (0.01, 0.07, 0.5, 2.0, 5.0)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_top_one_is_the_lattice_optimum(n):
    """T = 1 against ``lattice solve`` on n = 2..5, k = 1..4 and eps from 0.01 to 5: within
    the lattice optimum's certified bracket everywhere, and equal to 1e-12 wherever that
    bracket is that narrow (it is wider, up to 4e-10, only at eps = 0.01 for n = 5, where
    the lattice solve's own point is that far from its bound)."""
    for k in range(1, 5):
        for eps in GRID_EPSILONS:
            ours = solve_topk(n, k, eps, 1)
            lattice = solve_lattice(n, k, eps)
            assert lattice.lower_bound * (1 - 1e-12) <= ours.total_error
            assert ours.total_error <= lattice.total_error * (1 + 1e-12)
            assert ours.total_error == pytest.approx(
                lattice.total_error, rel=max(1e-12, lattice.gap))


@pytest.mark.parametrize("n, k, top, ordered, constraints", [
    (3, 2, 2, True, "regular"), (3, 2, 2, True, "private"), (4, 1, 3, True, "regular"),
    (4, 2, 2, False, "regular"), (4, 2, 3, False, "private")])
def test_expanded_optimum_is_private_and_sums_to_one(n, k, top, ordered, constraints):
    eps = 0.8
    optimum = solve_topk(n, k, eps, top, ordered=ordered, constraints=constraints)
    rows = np.array([[-2.0 * level for level in v] for v in lattice_vectors(n, k)])
    pmf = optimum.pmf(rows)
    assert pmf.shape == (len(rows), len(outputs(n, top, ordered)))
    np.testing.assert_allclose(pmf.sum(axis=1), 1.0, rtol=0, atol=1e-12)
    assert pmf.min() >= 0
    assert worst_privacy_loss(optimum.pmf, n, k) <= eps * (1 + 1e-9)


def test_certificate_and_an_independent_resolve():
    optimum = solve_topk(4, 3, 0.4, 2)
    assert optimum.status == "Optimal" and optimum.gap <= 1e-7
    assert optimum.lower_bound <= optimum.total_error * (1 + 1e-12)
    assert optimum.max_violation <= 1e-12
    lp = optimum.lp
    assert lp.max_violation(optimum.probabilities / np.exp(lp.metadata["log_scale"])) <= 1e-12
    ineq = np.isinf(lp.row_upper)
    result = linprog(lp.cost, A_ub=-lp.matrix[ineq], b_ub=-lp.row_lower[ineq],
                     A_eq=lp.matrix[~ineq], b_eq=lp.row_lower[~ineq],
                     bounds=list(zip(lp.col_lower, lp.col_upper)), method="highs")
    assert lp.objective_in_units(result.fun) == pytest.approx(optimum.total_error, rel=1e-9)


def test_total_error_is_the_sum_over_every_lattice_vector():
    """The class errors weighted by their multiplicities equal the expected error summed
    over every vector of the lattice, from the expanded pmf and brute-force errors."""
    from tests.topk_reference import error

    n, k, top = 4, 2, 2
    optimum = solve_topk(n, k, 1.1, top)
    outs = outputs(n, top, True)
    total = 0.0
    for v in lattice_vectors(n, k):
        p = optimum.pmf([-2.0 * level for level in v])
        total += sum(pi * error(v, o, "l1", True) for pi, o in zip(p, outs))
    assert optimum.total_error == pytest.approx(total, rel=1e-12)
    weights = optimum.orbits.classes.multiplicity
    assert weights @ optimum.class_errors() == pytest.approx(total, rel=1e-12)


def test_refinement_runs_where_the_solver_point_is_loose():
    """At eps = 0.01 HiGHS's point violates rows by about 1e-11: one refinement round."""
    assert solve_topk(5, 3, 0.01, 1).refined
    assert not solve_topk(3, 2, 1.0, 2).refined


def test_private_is_below_regular_and_subsets_below_tuples():
    regular = solve_topk(4, 3, 0.5, 2)
    private = solve_topk(4, 3, 0.5, 2, constraints="private")
    subsets = solve_topk(4, 3, 0.5, 2, ordered=False)
    assert private.total_error < regular.total_error
    assert subsets.total_error < regular.total_error


def test_lp_size_bounds_the_built_lp():
    for args in [(4, 3, 2, True, "regular"), (5, 2, 3, False, "private")]:
        variables, rows, nonzeros = topk_lp_size(*args)
        optimum = solve_topk(args[0], args[1], 0.5, args[2], ordered=args[3],
                             constraints=args[4])
        assert variables == optimum.num_variables
        assert rows >= optimum.num_constraints and nonzeros >= optimum.num_nonzeros


def test_display():
    optimum = solve_topk(3, 1, 0.5, 2)
    assert isinstance(optimum, TopKOptimum)
    assert repr(optimum).startswith("TopKOptimum(n=3, k=1, epsilon=0.5, top=2")
    assert "num_nonzeros" in optimum._repr_html_()


@pytest.mark.parametrize("kwargs, argument", [
    (dict(n=1), "n"), (dict(k=0), "k"), (dict(top=3), "top"), (dict(top=0), "top"),
    (dict(epsilon=0.0), "epsilon"), (dict(epsilon=1e-7), "epsilon"),
    (dict(epsilon=10.5), "epsilon"), (dict(constraints="paper"), "constraints"),
    (dict(objective="l2"), "objective"), (dict(method="pdlp"), "method"),
    (dict(ordered="yes"), "ordered")])
def test_bad_arguments_are_refused(kwargs, argument):
    arguments = dict(n=3, k=2, epsilon=0.5, top=2) | kwargs
    with pytest.raises(InvalidArgumentError) as refused:
        solve_topk(**arguments)
    assert refused.value.argument == argument


def test_sizes_beyond_the_budgets_are_refused_before_any_work():
    with memory_budget(10**6), pytest.raises(ResourceLimitError):
        solve_topk(6, 6, 0.5, 3)
    with work_budget(1.0), pytest.raises(ResourceLimitError):
        require_topk_sweep(6, 6, 2, [0.5] * 100)
    with pytest.raises(InvalidArgumentError):
        solve_topk(40, 40, 0.5, 3)


def test_an_uncertified_gap_raises(monkeypatch):
    import optmech.topk.optimum as module

    monkeypatch.setattr(module, "_lower_bound", lambda lp, duals: -1.0)
    with pytest.raises(SolverError, match="certified gap"):
        solve_topk(3, 1, 0.5, 2)


def test_pmf_refuses_scores_off_the_lattice():
    optimum = solve_topk(3, 1, 0.5, 2)
    for scores in ([0.0, -1.0, 0.0], [0.0, -4.0, 0.0], [0.0, 0.0], [0.0, math.nan, 0.0]):
        with pytest.raises(InvalidArgumentError):
            optimum.pmf(scores)
    np.testing.assert_allclose(optimum.pmf([5.0, 3.0, 5.0]), optimum.pmf([0.0, -2.0, 0.0]))
    assert dataclasses.is_dataclass(optimum)
