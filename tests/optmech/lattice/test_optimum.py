"""optmech.lattice.optimum: the certified lattice optimum.

Independent references: the reduced LP solved directly by the foundation's ``solve``; the
privacy check of ``optmech.selection.privacy`` on every lattice neighbour; the paper's own
dual recurrence (Appendix D).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from lp_models.lattice import reduced_lattice_lp
from lp_models.program import SolverError, solve
from optmech.lattice.optimum import realised_privacy_loss, solve_lattice
from optmech.validation import InvalidArgumentError

PAPER_THRESHOLD = math.log((3 + math.sqrt(5)) / 2)
TIGHT = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


@pytest.mark.parametrize("constraints", ["regular", "paper"])
def test_certified_optimum_matches_a_direct_solve(constraints):
    for n, k, eps in [(4, 4, 0.5), (5, 3, 0.2), (3, 5, 1.5), (6, 2, 0.05)]:
        optimum = solve_lattice(n, k, eps, constraints=constraints)
        lp = reduced_lattice_lp(n, k, eps, constraints=constraints)
        # Tight tolerances: with HiGHS's default 1e-7 the direct point violates rows by ~4e-8
        # and its objective is ~2e-9 too low (n=6, k=2, eps=0.05).
        direct = solve(lp, "simplex", options=TIGHT, feasibility_tolerance=1e-12)
        assert optimum.total_error == pytest.approx(lp.objective_in_units(direct.objective),
                                                    rel=1e-9)
        assert optimum.gap <= 1e-9
        assert optimum.lower_bound <= optimum.total_error * (1 + 1e-12)
        assert lp.max_violation(optimum.probabilities) <= 1e-12   # every row, checked apart
        assert optimum.num_constraints == lp.num_rows


@pytest.mark.parametrize("n, k, eps", [(5, 5, 0.5), (6, 4, 0.3), (5, 3, 0.2)])
def test_paper_optimum_trades_level_zero_rows_for_climbing_rows(n, k, eps):
    """Counting at a vertex of Appendix D's LP with every probability positive: V variables,
    C sum-to-one rows and one privacy row per variable except the chain ends (the classes
    with an item at level k), so exactly as many privacy rows are slack as there are classes
    without an item at level k.  PF leaves the level-0 rows slack; below the chain-dual
    threshold the optimum makes some level-0 rows tight and as many climbing rows slack."""
    optimum = solve_lattice(n, k, eps, constraints="paper")
    classes, x = optimum.classes, optimum.probabilities
    assert x.min() > 0
    source = np.flatnonzero(classes.var_next >= 0)
    slack = x[source] - math.exp(-eps) * x[classes.var_next[source]] > 1e-9 * x[source]
    assert slack.sum() == (classes.counts[:, k] == 0).sum()
    climbing = classes.var_level[source] >= 1
    assert 0 < slack[climbing].sum() == (~slack[~climbing]).sum()


@pytest.mark.parametrize("eps", [0.4, 0.1])
def test_methods_agree(eps):
    optima = {m: solve_lattice(4, 4, eps, method=m) for m in ("auto", "simplex", "ipm")}
    assert optima["auto"].method == "highs-simplex"     # interior point only on big models
    value = optima["auto"].total_error
    assert optima["ipm"].total_error == pytest.approx(value, rel=1e-8)
    assert optima["simplex"].total_error == pytest.approx(value, rel=1e-10)


@pytest.mark.parametrize("n,k,eps", [(4, 4, 0.5), (3, 5, 0.2), (5, 3, 0.35), (4, 3, 1.2)])
def test_regular_optimum_is_differentially_private(n, k, eps):
    optimum = solve_lattice(n, k, eps, constraints="regular")
    assert realised_privacy_loss(optimum) <= eps * (1 + 1e-9)


def test_paper_lp_optimum_is_not_private():
    """Appendix D's LP without monotonicity rows: its optimum leaks more than eps."""
    optimum = solve_lattice(4, 4, 0.5, constraints="paper")
    assert realised_privacy_loss(optimum) > 0.6


def test_solution_mechanism_pmf():
    optimum = solve_lattice(3, 2, 0.4)
    mechanism = optimum.mechanism()
    p = mechanism.pmf([5.0, 3.0, 1.0])            # a shifted lattice vector
    assert p.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.allclose(mechanism.pmf([1.0, 3.0, 5.0]), p[::-1])
    for bad in ([0.0, 0.5, -2.0], [0.0, -10.0, -2.0], [0.0, -2.0]):
        with pytest.raises(InvalidArgumentError):
            mechanism.pmf(bad)


def test_gap_tolerance_is_enforced():
    with pytest.raises(SolverError):
        solve_lattice(4, 4, 2.0, method="pdlp", gap_tolerance=1e-15)


@pytest.mark.parametrize("bad", [dict(n=1), dict(k=0), dict(epsilon=-1.0),
                                 dict(epsilon=float("nan")), dict(weighting="box"),
                                 dict(constraints="dp"), dict(method="magic"),
                                 dict(n=30, k=30)])
def test_bad_arguments_name_the_argument(bad):
    args = dict(n=3, k=2, epsilon=0.5)
    args.update(bad)
    n, k, eps = args.pop("n"), args.pop("k"), args.pop("epsilon")
    with pytest.raises(InvalidArgumentError):
        solve_lattice(n, k, eps, **args)


def test_paper_recurrence_dual_is_an_independent_certificate():
    above = solve_lattice(4, 4, PAPER_THRESHOLD + 1e-6)
    assert above.relaxed_dual_bound == pytest.approx(above.total_error, rel=1e-12)
    between = solve_lattice(4, 4, 0.8)      # PF optimal, but the paper's recurrence fails
    assert between.pf_optimal and between.relaxed_dual_bound is None


def test_optimum_class_errors_sum_to_the_total():
    optimum = solve_lattice(4, 3, 0.3, weighting="cube")
    from lp_models.lattice import class_weights

    weights = class_weights(optimum.classes, "cube")
    assert weights @ optimum.class_errors() == pytest.approx(optimum.total_error, rel=1e-12)


# n = k = 5, eps = 0.5 takes the path n = k = 6 took (crossover, no row added after it;
# measured), and its direct solve costs 0.05 CPU s instead of 1.4
@pytest.mark.parametrize("n, k, eps, constraints, start", [
    (5, 5, 0.5, "regular", "crossover"), (6, 4, 0.3, "regular", "forest"),
    (5, 5, 0.2, "paper", "crossover"), (5, 5, 0.2, "paper", "forest")])
def test_the_exact_finish_from_the_bracket_matches_a_direct_solve(monkeypatch, n, k, eps,
                                                                  constraints, start):
    """method="pdhg": the certified bracket's PDHG point, HiGHS's simplex from the basis its
    crossover or the forest of its tight rows gives, row generation; the optimum of the
    whole LP solved directly by ``solve``."""
    import optmech.lattice.solve_loop as solve_loop

    if start == "forest":
        monkeypatch.setattr(solve_loop, "CROSSOVER_MAX_VARIABLES", 0)
    optimum = solve_lattice(n, k, eps, constraints=constraints, method="pdhg")
    assert optimum.method == f"pdhg-{start}" and optimum.status == "Optimal"
    lp = reduced_lattice_lp(n, k, eps, constraints=constraints)
    direct = solve(lp, "simplex", options=TIGHT, feasibility_tolerance=1e-12)
    assert optimum.total_error == pytest.approx(lp.objective_in_units(direct.objective),
                                                rel=1e-9)
    assert optimum.gap <= 1e-9 and lp.max_violation(optimum.probabilities) <= 1e-12


@pytest.mark.parametrize("eps", [4.049868530863594e-09, 8.150070916407448e-09])
def test_the_lower_bound_is_rounded_down_and_the_value_up(eps):
    """n = 3, k = 2 at the tiny eps of the documented grid: the lower bound came out one ulp
    above the value (both summed in plain double); both are now rounded the safe way."""
    optimum = solve_lattice(3, 2, eps)
    assert optimum.lower_bound <= optimum.objective_value
    lp = reduced_lattice_lp(3, 2, eps)
    assert optimum.objective_value >= lp.objective_in_units(lp.objective_value(
        optimum.probabilities))


def test_the_exact_finish_is_for_the_sum_objective():
    with pytest.raises(InvalidArgumentError, match="method"):
        solve_lattice(3, 3, 0.5, objective="max", method="pdhg")
