"""``PrivateStoppingRule.lp``: the LP HiGHS solved last, returned with the rule.

Independent references: the rule as a point of the stopping LP (``full_primal``: its z and s
recomputed by the forward recursion) and cvxpy (Clarabel) on the returned LP.
"""

from __future__ import annotations

import math

import pytest

from lp_models.program import solve, to_cvxpy
from lp_models.stopping import full_primal
from optmech.secretary.optimal import optimal_private_rule


def test_highs_returns_the_stopping_lp():
    rule = optimal_private_rule(20, 0.5, 0.01, 2, method="highs")
    lp = rule.lp
    assert lp.num_cols == 20 * 21 + 20 and lp.sense == "max" and lp.objective_scale == 1.0
    point = full_primal(lp, rule.rule.joint())
    assert lp.max_violation(point) <= 1e-9
    assert lp.objective_value(point) == pytest.approx(rule.expected_payoff, abs=1e-14)
    model = to_cvxpy(lp)
    model.problem.solve(solver="CLARABEL")
    assert model.problem.value == pytest.approx(rule.expected_payoff, abs=1e-7)


def test_column_generation_returns_its_last_master():
    rule = optimal_private_rule(40, 0.5, 0.01, 1, method="column-generation")
    master = rule.lp
    assert master.column_labels()[0] == "w[rule 0]"
    assert master.row_labels()[-1] == "sum-to-one[0]"
    assert solve(master).objective == pytest.approx(rule.expected_payoff, abs=1e-9)
    assert optimal_private_rule(10, math.inf, 0.0).lp is None
