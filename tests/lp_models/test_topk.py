"""lp_models.topk: the reduced top-k LP against brute force.

Independent references (``tests/topk_reference.py``): enumeration of every lattice vector,
output and neighbour pair from the definitions, and the unreduced LP (no symmetry, every
neighbour pair a row) solved by scipy's ``linprog``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from lp_models.lattice import reduced_lattice_lp
from lp_models.program import solve
from lp_models.topk import (
    neighbour_pairs,
    orbit_count,
    privacy_row_bound,
    topk_lp,
    topk_orbits,
)
from tests.topk_reference import error, full_lp_optimum, lattice_vectors, neighbours, outputs

TIGHT = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


def _optimum(lp) -> float:
    return lp.objective_in_units(solve(lp, "ipm", options=TIGHT).objective)


def _variables(orbits, levels, outs):
    """The LP variable of (lattice vector, output) for every output in ``outs`` (a list of
    tuples), found through the vector's class."""
    c = orbits.classes
    counts = np.bincount(np.asarray(levels), minlength=c.k + 1)
    owner = c.find(np.array([counts @ c.radix]))[0]
    return orbits.find(owner, np.asarray(levels)[np.array(outs)]).tolist()


@pytest.mark.parametrize("n, k, top", [(3, 1, 2), (4, 3, 2), (5, 2, 3), (6, 4, 1), (6, 2, 5),
                                       (7, 3, 4)])
@pytest.mark.parametrize("ordered", [True, False])
def test_orbit_count_closed_form_equals_enumeration(n, k, top, ordered):
    assert orbit_count(n, k, top, ordered) == topk_orbits(n, k, top, ordered).num_variables


@pytest.mark.parametrize("n, k, top, ordered", [(4, 2, 2, True), (4, 2, 2, False),
                                                (4, 1, 3, True), (5, 1, 2, False)])
def test_orbits_partition_every_output_of_every_vector(n, k, top, ordered):
    """Every (vector, output) pair has a variable; an orbit's size is the number of outputs
    of its class representative mapped to it; its error is the brute-force error."""
    orbits = topk_orbits(n, k, top, ordered)
    errors = {kind: orbits.errors(kind) for kind in ("l1", "l_inf", "k_relative")}
    outs = outputs(n, top, ordered)
    seen = np.zeros(orbits.num_variables)
    for levels in lattice_vectors(n, k):
        variables = _variables(orbits, levels, outs)
        assert min(variables) >= 0
        for kind, values in errors.items():
            assert values[variables].tolist() == [error(levels, o, kind, ordered) for o in outs]
        if list(levels) == sorted(levels):                # a class representative
            np.add.at(seen, variables, 1)
    np.testing.assert_array_equal(seen, orbits.size)


@pytest.mark.parametrize("n, k, top, ordered", [(3, 2, 2, True), (4, 2, 2, True),
                                                (4, 2, 3, False), (4, 1, 2, False)])
def test_neighbour_pairs_are_every_lattice_neighbour_pair(n, k, top, ordered):
    orbits = topk_orbits(n, k, top, ordered)
    outs = outputs(n, top, ordered)
    expected = {pair for v in lattice_vectors(n, k) for w in neighbours(v, k)
                for pair in zip(_variables(orbits, v, outs), _variables(orbits, w, outs))}
    source, target = neighbour_pairs(orbits)
    assert set(zip(source.tolist(), target.tolist())) == expected
    assert source.size == len(expected) <= privacy_row_bound(orbits)


def test_scaled_privacy_coefficients_stay_within_two_epsilon():
    """The distance d changes by at most 1 between neighbours, so every privacy coefficient
    of the scaled LP lies in [e^-2eps, 1]."""
    eps = 3.0
    lp = topk_lp(5, 4, eps, 3, scaled=True, constraints="private")
    rows = lp.matrix.tocsr()[lp.metadata["num_class_rows"]:]
    negative = -rows.data[rows.data < 0]
    assert negative.min() >= math.exp(-2 * eps) * (1 - 1e-15) and negative.max() <= 1 + 1e-15
    d = lp.metadata["orbits"].distance
    source, target = lp.metadata["privacy_source"], lp.metadata["privacy_target"]
    assert np.abs(d[source] - d[target]).max() <= 1


@pytest.mark.parametrize("n, k, top, ordered", [(3, 1, 2, True), (3, 2, 2, True),
                                                (4, 1, 2, True), (4, 1, 3, True),
                                                (3, 2, 2, False), (4, 1, 2, False)])
@pytest.mark.parametrize("constraints", ["private", "regular"])
def test_reduced_optimum_equals_the_unreduced_lp(n, k, top, ordered, constraints):
    eps = 0.7
    lp = topk_lp(n, k, eps, top, ordered=ordered, constraints=constraints, scaled=True)
    assert _optimum(lp) == pytest.approx(
        full_lp_optimum(n, k, eps, top, ordered, constraints), rel=1e-9)


@pytest.mark.parametrize("objective", ["l_inf", "k_relative"])
def test_other_objectives_equal_the_unreduced_lp(objective):
    lp = topk_lp(3, 2, 0.4, 2, objective=objective, constraints="private")
    assert _optimum(lp) == pytest.approx(
        full_lp_optimum(3, 2, 0.4, 2, objective=objective), rel=1e-9)


def test_top_one_regular_rows_are_the_lattice_lp():
    """For T = 1 the variables are the lattice LP's (same order), the objective too, and the
    optimum is the same."""
    lp = topk_lp(4, 3, 0.3, 1)
    lattice = reduced_lattice_lp(4, 3, 0.3)
    np.testing.assert_allclose(lp.cost, lattice.cost, rtol=1e-15, atol=0)
    assert _optimum(lp) == pytest.approx(_optimum(lattice), rel=1e-12)


def test_monotonicity_changes_the_optimum_already_for_top_one():
    """The counterexample: at n = 3, k = 4, eps = 0.3 the optimum over every symmetric
    eps-DP mechanism is below the regular one, confirmed by the unreduced LP."""
    private = _optimum(topk_lp(3, 4, 0.3, 1, constraints="private"))
    regular = _optimum(topk_lp(3, 4, 0.3, 1))
    assert private == pytest.approx(full_lp_optimum(3, 4, 0.3, 1), rel=1e-9)
    assert private == pytest.approx(93.12646207, rel=1e-9)
    assert regular == pytest.approx(93.18547540, rel=1e-9)


def test_labels_name_the_two_variables_of_a_privacy_row():
    lp = topk_lp(3, 2, 0.5, 2)
    row = lp.metadata["num_class_rows"]
    a, b = lp.metadata["privacy_source"][0], lp.metadata["privacy_target"][0]
    label = lp.row_label(row)
    assert label == f"privacy[{lp.column_label(a)} >= e^-eps {lp.column_label(b)}]"
    assert lp.column_label(0).startswith("x[class 0: m=(3,0,0), levels (0,0)]")
    assert lp.row_label(lp.num_rows - 1).startswith("monotone[first 2: P(item at x[class")
    assert [kind for kind, _, _ in lp.row_layout()] == ["sum-to-one", "privacy", "monotone"]


@pytest.mark.parametrize("kwargs", [dict(n=1), dict(k=0), dict(top=3), dict(top=0),
                                    dict(epsilon=-1.0), dict(constraints="paper"),
                                    dict(objective="l2")])
def test_bad_arguments_are_refused(kwargs):
    arguments = dict(n=3, k=2, epsilon=0.5, top=2) | kwargs
    with pytest.raises(ValueError):
        topk_lp(**arguments)
