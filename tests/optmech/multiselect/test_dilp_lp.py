"""``DilpResult.model``: the discretised DILP that was solved, and its primal and dual LPs.

Independent reference: cvxpy (Clarabel) on the returned primal and dual LPs.
"""

from __future__ import annotations

import pytest

from lp_models.program import to_cvxpy
from optmech.multiselect.dilp import solve_dilp


@pytest.mark.parametrize("ring, grid", [(False, 41), (True, 24)], ids=["line", "ring"])
def test_the_returned_lps_carry_the_certified_values(ring, grid):
    result = solve_dilp(2, 1.0, grid=grid, ring=ring)
    assert result.lp is result.model.primal and result.dual_lp is result.model.dual
    assert result.lp.num_cols == result.num_cols and result.lp.num_rows == result.num_rows
    for lp, value in ((result.lp, result.primal), (result.dual_lp, result.dual)):
        model = to_cvxpy(lp)
        model.problem.solve(solver="CLARABEL")
        assert model.problem.value == pytest.approx(value, abs=1e-6)
    assert result.lp.column_label(0).startswith("p[chain 0: d=(0,")
