"""Lattice LP builders (lp_models.lattice*): classes, reduced vs full LP, recurrences.

Independent references: brute-force enumeration of Q, the unreduced LP (a different builder,
solved separately), cvxpy with another solver, and the foundation's PF pmf
(cancellation-free integral, itself checked against mpmath).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np
import pytest

from lp_models.lattice import (
    class_weights,
    full_lattice_lp,
    monotonicity_pairs,
    monotonicity_row_count,
    reduced_lattice_lp,
    relaxed_lattice_lp,
)
from lp_models.lattice.classes import class_count, lattice_classes
from lp_models.lattice.recurrences import (
    chain_dual,
    chain_dual_threshold,
    pf_lattice_probabilities,
    reduced_row_duals,
    relaxed_dual,
    relaxed_to_chain_multipliers,
)
from lp_models.program import dual_objective, solve, to_cvxpy

PAPER_THRESHOLD = math.log((3 + math.sqrt(5)) / 2)


def brute_force_classes(n, k):
    """Count vectors of every q in Q by direct enumeration."""
    counter = Counter()
    for levels in itertools.product(range(k + 1), repeat=n):
        if min(levels) == 0:
            counter[tuple(np.bincount(levels, minlength=k + 1))] += 1
    return counter


@pytest.mark.parametrize("n,k", [(1, 0), (1, 3), (2, 2), (3, 1), (4, 4), (3, 5), (5, 2)])
def test_classes_match_brute_force_enumeration(n, k):
    classes = lattice_classes(n, k)
    expected = brute_force_classes(n, k)
    assert classes.num_classes == len(expected) == class_count(n, k)
    got = {tuple(int(v) for v in row): mult
           for row, mult in zip(classes.counts, classes.multiplicity)}
    assert got == {key: float(val) for key, val in expected.items()}
    assert classes.num_variables == sum(sum(1 for c in key if c) for key in expected)


def test_design_fact_95_variables_and_cube_weights():
    classes = lattice_classes(4, 4)
    assert (classes.num_classes, classes.num_variables) == (35, 95)
    assert class_weights(classes, "lattice").sum() == 5 ** 4 - 4 ** 4
    # Every vector of the cube {0..k}^n is counted once after shifting its max to 0.
    assert class_weights(classes, "cube").sum() == 5 ** 4


def test_privacy_chains_are_disjoint_paths():
    classes = lattice_classes(5, 4)
    position = classes.chain_position
    has_next = classes.var_next >= 0
    assert (position[classes.var_next[has_next]] == position[has_next] + 1).all()
    nxt = classes.var_next
    targets = nxt[nxt >= 0]
    assert np.unique(targets).size == targets.size          # at most one row points at a var
    ends = np.flatnonzero(nxt < 0)
    # Rows are dropped exactly at the top variables of classes with an item at level k.
    assert (classes.var_level[ends] == 0).all()
    assert (classes.counts[classes.var_class[ends], classes.k] > 0).all()
    starts = np.flatnonzero(classes.var_prev < 0)
    assert (classes.var_level[starts] == classes.k).all()


@pytest.mark.parametrize("n, k", [(4, 3), (6, 5), (7, 2)])
def test_privacy_rows_have_unit_coefficients_in_mass_variables(n, k):
    """With ``p[m, j] = multinomial(m) m_j x[m, j]`` (the mass of the whole class on its
    level-``j`` items), every privacy row ``x[v] >= e^-eps x[next(v)]`` is
    ``p[v] >= e^-eps p[next(v)]``: both sides carry the same ``multinomial(m) m_j``, in
    exact integers.  So the class rows read ``sum_j p[m, j] = multinomial(m)`` and the set of
    feasible dual multipliers does not depend on the multiplicities at all."""
    classes = lattice_classes(n, k)
    counts = classes.counts.astype(int)

    def mass(v):
        m = counts[classes.var_class[v]]
        return math.factorial(n) // math.prod(math.factorial(c) for c in m) * int(
            m[classes.var_level[v]])

    for v in np.flatnonzero(classes.var_next >= 0):
        assert mass(v) == mass(classes.var_next[v])


def test_chain_rows_follow_the_worst_case_neighbour():
    """Level j >= 1: the item climbs; level 0: the others sink (Appendix D's q')."""
    classes = lattice_classes(4, 3)
    for v in range(classes.num_variables):
        w = classes.var_next[v]
        if w < 0:
            continue
        m = classes.counts[classes.var_class[v]].astype(int)
        j = classes.var_level[v]
        target = m.copy()
        if j >= 1:
            target[j] -= 1
            target[j - 1] += 1
            assert classes.var_level[w] == j - 1
        else:
            target = np.concatenate([[1, m[0] - 1], m[1:-1]])
            assert classes.var_level[w] == 0
        assert (classes.counts[classes.var_class[w]] == target).all()


@pytest.mark.parametrize("constraints", ["paper", "regular"])
@pytest.mark.parametrize("weighting", ["lattice", "cube"])
def test_reduced_equals_full_for_all_small_sizes(constraints, weighting):
    """The paper's symmetry reduction loses nothing: equal optima for every n, k <= 4."""
    for n, k in itertools.product(range(1, 5), range(0, 5)):
        for eps in (0.3, 1.1):
            reduced = solve(reduced_lattice_lp(n, k, eps, weighting, constraints), "simplex")
            full = solve(full_lattice_lp(n, k, eps, weighting, constraints), "simplex")
            assert reduced.objective == pytest.approx(full.objective, rel=1e-9, abs=1e-12), \
                (n, k, eps)


def test_reduced_lp_against_cvxpy():
    lp = reduced_lattice_lp(4, 3, 0.4, constraints="regular")
    model = to_cvxpy(lp)
    model.problem.solve(solver="CLARABEL")
    assert model.problem.value == pytest.approx(solve(lp, "simplex").objective, rel=1e-7)


def test_pf_recurrence_matches_pf_pmf():
    from optmech.selection.pf_probabilities import pf_probabilities

    for n, k, eps in [(3, 4, 0.3), (5, 3, 1.7), (6, 2, 0.05)]:
        classes = lattice_classes(n, k)
        x = pf_lattice_probabilities(classes, eps)
        scores = classes.scores(np.arange(classes.num_classes))
        for c, q in enumerate(scores):
            p = pf_probabilities(q, eps / 2)
            levels = np.rint(-q / 2).astype(int)
            for v in np.flatnonzero(classes.var_class == c):
                item = np.flatnonzero(levels == classes.var_level[v])[0]
                assert x[v] == pytest.approx(p[item], abs=1e-15)


def test_pf_is_feasible_and_strictly_monotone():
    classes = lattice_classes(5, 4)
    x = pf_lattice_probabilities(classes, 0.7)
    lp = reduced_lattice_lp(5, 4, 0.7, constraints="regular", classes=classes)
    assert lp.max_violation(x) < 1e-15
    a, b = monotonicity_pairs(classes)
    assert (x[a] - x[b] > 0).all()


@pytest.mark.parametrize("n, k", [(2, 1), (2, 5), (3, 3), (5, 2), (6, 6)])
def test_monotonicity_rows_are_counted_without_finding_them(n, k):
    """Against the pairs themselves, and against the rows of the reduced regular LP."""
    classes = lattice_classes(n, k)
    count = monotonicity_row_count(classes)
    assert count == monotonicity_pairs(classes)[0].size
    lp = reduced_lattice_lp(n, k, 0.5, constraints="regular", classes=classes)
    assert count == lp.num_rows - classes.num_classes - lp.metadata["num_privacy_rows"]


@pytest.mark.parametrize("k", [2, 3, 5])
def test_chain_dual_certifies_pf_exactly_above_its_threshold(k):
    """PF is optimal iff sum_{t<=k} e^{-eps t} <= 1 (lattice weighting, n >= 3)."""
    threshold = chain_dual_threshold(k)
    u = math.exp(-threshold)
    assert sum(u ** t for t in range(1, k + 1)) == pytest.approx(1.0, abs=1e-12)
    n = 4
    for eps, pf_optimal in ((threshold * 1.02, True), (threshold * 0.98, False)):
        lp = reduced_lattice_lp(n, k, eps, constraints="paper")
        classes = lp.metadata["classes"]
        x = pf_lattice_probabilities(classes, eps)
        lam, mu = chain_dual(classes, eps, lp.cost)
        climbing = classes.var_level >= 1
        assert (mu[climbing].min() >= -1e-12) == pf_optimal
        optimum = solve(lp, "simplex").objective
        if pf_optimal:
            bound, _ = dual_objective(lp, reduced_row_duals(lp, lam, mu))
            assert bound == pytest.approx(lp.objective_value(x), rel=1e-12)
            assert optimum == pytest.approx(lp.objective_value(x), rel=1e-12)
        else:
            assert lp.objective_value(x) > optimum * (1 + 1e-9)


def test_chain_threshold_tends_to_ln2():
    assert chain_dual_threshold(1) == 0.0
    values = [chain_dual_threshold(k) for k in (2, 4, 8, 16, 40)]
    assert values == sorted(values)
    assert values[0] == pytest.approx(math.log((1 + math.sqrt(5)) / 2))  # u + u^2 = 1
    assert values[-1] == pytest.approx(math.log(2), abs=1e-10)


def test_relaxed_dual_recurrence_above_paper_threshold():
    """Appendix D: above ln((3+sqrt5)/2) the recurrence dual is feasible and PF optimal,
    for the relaxed LP and (after telescoping the rows) for the reduced LP."""
    for n, k in [(3, 3), (4, 4), (5, 2)]:
        eps = PAPER_THRESHOLD + 1e-3
        relaxed = relaxed_lattice_lp(n, k, eps)
        classes = relaxed.metadata["classes"]
        x = pf_lattice_probabilities(classes, eps)
        lam, nu = relaxed_dual(classes, eps, relaxed.cost)
        rows = relaxed.metadata["relaxed_source"]
        assert nu[rows].min() >= 0
        y = np.concatenate([lam, nu[rows]])
        bound, infeasibility = dual_objective(relaxed, y)
        assert infeasibility < 1e-12
        assert bound == pytest.approx(relaxed.objective_value(x), rel=1e-12)
        assert solve(relaxed, "simplex").objective == pytest.approx(bound, rel=1e-10)
        assert relaxed.max_violation(x) < 1e-15           # PF meets every relaxed row
        reduced = reduced_lattice_lp(n, k, eps, constraints="regular", classes=classes)
        mu = relaxed_to_chain_multipliers(classes, eps, nu)
        full_bound, _ = dual_objective(reduced, reduced_row_duals(reduced, lam, mu))
        assert full_bound == pytest.approx(reduced.objective_value(x), rel=1e-12)


def test_relaxed_lp_is_a_strict_relaxation_below_threshold():
    eps = 0.3
    relaxed = relaxed_lattice_lp(4, 4, eps)
    classes = relaxed.metadata["classes"]
    _, nu = relaxed_dual(classes, eps, relaxed.cost)
    assert nu[relaxed.metadata["relaxed_source"]].min() < 0
    low = solve(relaxed, "simplex").objective
    paper = solve(reduced_lattice_lp(4, 4, eps, constraints="paper"), "simplex").objective
    regular = solve(reduced_lattice_lp(4, 4, eps), "simplex").objective
    assert low < paper <= regular


def test_paper_lp_is_a_relaxation_of_the_regular_lp():
    """Appendix D omits monotonicity: its optimum can be strictly lower (n = k = 4)."""
    paper = solve(reduced_lattice_lp(4, 4, 0.5, constraints="paper"), "simplex").objective
    regular = solve(reduced_lattice_lp(4, 4, 0.5, constraints="regular"), "simplex").objective
    assert paper < regular * (1 - 1e-3)


@pytest.mark.parametrize("bad", [dict(n=0), dict(k=-1), dict(epsilon=0.0),
                                 dict(weighting="box"), dict(constraints="dp")])
def test_builder_rejects_bad_arguments(bad):
    args = dict(n=3, k=2, epsilon=0.5, weighting="lattice", constraints="regular")
    args.update(bad)
    with pytest.raises(ValueError):
        reduced_lattice_lp(**args)


def test_full_builder_refuses_large_sizes():
    with pytest.raises(ValueError, match="reduced_lattice_lp"):
        full_lattice_lp(8, 8, 0.5)

