"""``LatticeOptimum.lp``: the LP the certified optimum was checked against, returned as built.

Independent references: cvxpy (Clarabel, an interior-point solver unrelated to HiGHS) on
the returned LP, and the unreduced LP over every score vector (a different builder).
"""

from __future__ import annotations

import pytest

from lp_models.lattice import full_lattice_lp
from lp_models.program import solve, to_cvxpy
from optmech.lattice.optimum import solve_lattice

CASES = [
    ({}, 0.5, "highs-simplex"),                 # HiGHS with row generation
    ({}, 1.0, "pf-chain-dual"),                 # no LP solved: Appendix D's LP, PF certified
    ({"constraints": "paper"}, 0.5, "highs-simplex"),
    ({"objective": "max"}, 0.5, "highs-simplex"),
    ({"objective": "weighted", "weights": "geometric:0.5"}, 0.5, "highs-simplex"),
    ({"lattice": "delta"}, 0.8, "highs-simplex"),
]


@pytest.mark.parametrize("options, eps, method", CASES,
                         ids=["sum", "chain-dual", "paper", "max", "weighted", "delta"])
def test_the_returned_lp_reproduces_the_optimum(options, eps, method):
    opt = solve_lattice(3, 3, eps, **options)
    lp = opt.lp
    assert opt.method == method
    assert lp.metadata["classes"] is opt.classes                     # built once, not copied
    point = opt.lp_point()
    assert lp.max_violation(point) <= 1e-12
    assert lp.objective_in_units(lp.objective_value(point)) == pytest.approx(
        opt.objective_value, rel=1e-14)
    assert lp.num_rows <= opt.num_constraints
    assert "row" not in {kind for kind, _, _ in lp.row_layout()}     # every row labelled
    assert lp.objective_in_units(solve(lp).objective) == pytest.approx(opt.objective_value,
                                                                        rel=1e-9)
    model = to_cvxpy(lp)
    model.problem.solve(solver="CLARABEL")
    assert lp.objective_in_units(model.problem.value) == pytest.approx(opt.objective_value,
                                                                        rel=1e-6)


@pytest.mark.parametrize("lattice", ["2delta", "delta"])
def test_the_regular_optimum_equals_the_full_lp(lattice):
    opt = solve_lattice(3, 3, 0.5, lattice=lattice)
    full = full_lattice_lp(3, 3, 0.5, lattice=lattice)
    assert full.objective_in_units(solve(full).objective) == pytest.approx(
        opt.lp.objective_in_units(solve(opt.lp).objective), rel=1e-9)
