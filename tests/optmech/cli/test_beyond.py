"""`optmech lattice solve --objective/--weights/--lattice` and `optmech select em-pf-search`:
JSON contract, agreement with the library, one-line errors with exit status 2."""

import json
import subprocess
import sys

import pytest

from optmech.lattice.optimum import solve_lattice
from tests.cli_helpers import run_cli as run
from tests.cli_helpers import run_cli_error

KEYS = {"n", "k", "epsilon", "variables", "constraints", "total_error", "ratios",
        "solve_seconds", "status", "weighting", "constraint_set", "lower_bound", "gap",
        "method", "pf_optimal", "max_violation", "rows_generated", "relaxed_dual_bound",
        "objective", "objective_value", "lattice", "aggregates", "optmech_version", "schema"}


def _solve(capsys, *extra):
    code, out, _ = run(capsys, "lattice", "solve", "--n", "3", "--k", "3", "--eps", "0.5",
                       *extra, "--json")
    assert code == 0
    return json.loads(out)


def test_sum_objective_value_is_the_total_error(capsys):
    payload = _solve(capsys)
    # relaxed_dual_bound is left out where the paper's dual recurrence is infeasible
    assert KEYS - {"relaxed_dual_bound"} <= set(payload) <= KEYS
    assert payload["objective"] == "sum" and payload["lattice"] == "2delta"
    assert payload["objective_value"] == payload["total_error"]


def test_max_objective_json(capsys):
    payload = _solve(capsys, "--objective", "max")
    optimum = solve_lattice(3, 3, 0.5, objective="max")
    assert payload["objective"] == "max"
    assert payload["objective_value"] == pytest.approx(optimum.objective_value, rel=1e-12)
    assert payload["objective_value"] == pytest.approx(optimum.class_errors().max(), rel=1e-12)
    assert payload["gap"] <= 1e-7 and payload["pf_optimal"] is False
    assert payload["ratios"]["pf"] == pytest.approx(1.0387573596558, rel=1e-9)


def test_weighted_objective_and_delta_lattice(capsys):
    weighted = _solve(capsys, "--objective", "weighted", "--weights", "geometric:0.5")
    assert weighted["objective_value"] == pytest.approx(solve_lattice(
        3, 3, 0.5, objective="weighted", weights="geometric:0.5").objective_value, rel=1e-12)
    delta = _solve(capsys, "--lattice", "delta")
    assert delta["lattice"] == "delta" and delta["ratios"]["pf"] > 1.001
    assert delta["objective_value"] == pytest.approx(
        solve_lattice(3, 3, 0.5, lattice="delta").total_error, rel=1e-12)


def test_table_names_the_objective(capsys):
    code, out, _ = run(capsys, "lattice", "solve", "--n", "3", "--k", "2", "--eps", "1",
                       "--objective", "max", "--mechanisms", "pf")
    assert code == 0 and "max / 2delta" in out and "max ratio pf" in out


@pytest.mark.parametrize("argv", [
    ["--objective", "median"],
    ["--objective", "weighted"],
    ["--weights", "geometric:0.5"],
    ["--objective", "weighted", "--weights", "geometric:-1"],
    ["--objective", "weighted", "--weights", "depth:1"],
    ["--lattice", "hex"],
    ["--lattice", "delta", "--constraints", "paper"],
])
def test_bad_lattice_options_are_one_line_exit_2(capsys, argv):
    code, _, err = run_cli_error(capsys, "lattice", "solve", "--n", "3", "--k", "2", "--eps",
                                 "1", *argv)
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err


def test_search_json_is_seeded_and_below_two(capsys):
    argv = ("select", "em-pf-search", "--n", "2,4", "--eps", "1,3", "--starts", "1",
            "--seed", "5", "--json")
    code, first, _ = run(capsys, *argv)
    _, second, _ = run(capsys, *argv)
    assert code == 0 and first == second
    payload = json.loads(first)
    assert len(payload["searches"]) == 4 and payload["supremum"] == 2.0
    assert 1.99 < payload["largest_ratio"] < 2.0
    assert {"n", "epsilon", "ratio", "deficit", "bound", "family", "scores"} <= set(
        payload["searches"][0])


def test_search_table(capsys):
    code, out, _ = run(capsys, "select", "em-pf-search", "--n", "3", "--eps", "1",
                       "--starts", "0")
    assert code == 0 and "largest ratio found" in out and "supremum" in out


@pytest.mark.parametrize("argv", [
    ["select", "em-pf-search", "--eps", "1"],
    ["select", "em-pf-search", "--n", "1", "--eps", "1"],
    ["select", "em-pf-search", "--n", "3", "--eps", "1,-1"],
    ["select", "em-pf-search", "--n", "3", "--eps", "1", "--starts", "-2"],
    ["select", "pmf", "--scores", "0,1", "--eps", "1"],
    ["select", "pmf", "--mechanism", "pf", "--scores", "0,1", "--eps", "1,2"],
])
def test_bad_search_input_is_one_line_exit_2(capsys, argv):
    code, _, err = run_cli_error(capsys, *argv)
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err


def test_search_console_script_end_to_end():
    done = subprocess.run([sys.executable, "-m", "optmech", "select", "em-pf-search", "--n",
                           "1", "--eps", "1"], capture_output=True, text=True, check=False)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
