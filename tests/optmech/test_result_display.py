"""Result classes in a notebook: short reprs that name their key numbers, HTML tables, and
to_frame() of every result that is a table (checked against the result's own arrays)."""

import numpy as np

from optmech.lattice import bound_lattice, bound_sweep, ratio_sweep, solve_lattice


def _html_has(obj, *texts):
    html = obj._repr_html_()
    assert html.startswith("<table>")
    for text in texts:
        assert text in html, text


def test_lattice_optimum_and_bracket():
    optimum = solve_lattice(3, 2, 0.5)
    text = repr(optimum)
    assert text.startswith("LatticeOptimum(n=3, k=2, epsilon=0.5, objective='sum'")
    assert f"lower_bound={optimum.lower_bound!r}" in text and f"gap={optimum.gap!r}" in text
    assert len(text) < 400
    _html_has(optimum, "lower_bound", "num_constraints", str(optimum.num_constraints))
    bracket = bound_lattice(3, 2, 0.5)
    assert repr(bracket).startswith("LatticeBracket(n=3, k=2, epsilon=0.5, lower=")
    _html_has(bracket, "relative_width", "iterations")


def test_ratio_sweep_to_frame_is_one_row_per_point():
    curves = ratio_sweep([3, 4], [2], [0.5, 1.0], ["pf", "em"], show_progress=False)
    frame = curves.to_frame()
    assert list(frame.columns) == ["n", "k", "epsilon", "total_error", "pf", "em"]
    assert frame["n"].tolist() == [3, 3, 4, 4]
    stacked = np.concatenate([c.ratios["em"] for c in curves])
    assert np.array_equal(frame["em"].to_numpy(), stacked)
    assert np.array_equal(frame["total_error"].to_numpy(),
                          np.concatenate([c.total_errors for c in curves]))
    assert repr(curves[0]).startswith("RatioCurve(n=3, k=2, epsilons=[0.5, 1.0]")


def test_bands_to_frame_has_a_bracket_per_mechanism():
    bands = bound_sweep([3], [2], [0.5, 1.0], ["pf", "em"], show_progress=False)
    frame = bands.to_frame()
    assert list(frame.columns) == ["n", "k", "epsilon", "lower", "upper", "status", "pf_lo",
                                   "pf_hi", "em_lo", "em_hi"]
    assert np.array_equal(frame[["em_lo", "em_hi"]].to_numpy(), bands[0].ratios["em"])
    assert (frame["lower"] <= frame["upper"]).all()


def test_secretary_results():
    from optmech.secretary.optimal import compare_with_pmix, optimal_private_rule
    from optmech.secretary.privacy import pmix_epsilon
    from optmech.secretary.rules import classical_rule

    rule = optimal_private_rule(8, 1.0, 0.0)
    assert repr(rule).startswith("PrivateStoppingRule(n=8, epsilon=1.0, delta=0.0, l=1, "
                                 "payoff='best'")
    assert "rank_distribution" not in repr(rule) and len(repr(rule)) < 300
    _html_has(rule, "upper_bound", "realised_delta")
    _html_has(compare_with_pmix(8, 1.0, 0.0), "pmix_p", "ratio")
    assert repr(pmix_epsilon(8, 0.5, 0.0)).startswith("PmixBound(exact=")
    # the classical rule's table shows its win probability (closed form, Fact 2)
    from optmech.secretary.classical import success_probability

    _html_has(classical_rule(8), f"{success_probability(8):.8g}")


def test_multiselect_results():
    from optmech.multiselect.dilp import solve_dilp
    from optmech.multiselect.protocol import MultiSelection

    selection = MultiSelection(3, 1.0)
    assert repr(selection).startswith("MultiSelection(k=3, epsilon=1.0, h=None, "
                                      "noise='laplace', offsets=[")
    _html_has(selection, "cost", f"{selection.cost:.8g}")
    draws = selection.sample(size=10_000, rng=1)
    assert len(repr(draws)) < 500
    assert repr(selection.response).startswith("ServerResponse(k=3, epsilon=1.0")
    result = solve_dilp(2, 1.0, grid=41)
    assert repr(result).startswith("DilpResult(geometry='line', k=2, epsilon=1.0")
    _html_has(result, "laplace_cost", "num_rows")


def test_scenario_and_reproduce_rows_to_frame():
    from optmech.heterogeneous.scenarios import run_scenario, scenario
    from optmech.reproduce import Result, ResultList, new_result

    result = run_scenario(scenario(1), [0.5, 1.0], mechanisms=["gem", "rnm"])
    frame = result.to_frame()
    assert frame.to_dict("records") == [
        {"mechanism": p.mechanism, "epsilon": p.epsilon, "mse": p.mse, "ci_low": p.ci_low,
         "ci_high": p.ci_high} for p in result.points]
    assert repr(result).startswith("ScenarioResult(scenario_key='1', trials=1, ")
    rows = ResultList([new_result("area", "a number", 1.5, key="k"),
                       Result("area", "b", "src", 2.0, 2.0, 0.1, "match")])
    frame = rows.to_frame()
    assert frame["ok"].tolist() == [True, True] and frame["ours"].tolist() == [1.5, 2.0]
