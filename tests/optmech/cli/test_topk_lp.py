"""`optmech topk lp`: the JSON contract, top 1 against `lattice solve`, the default LP (the
comparison of record) and the line that names it, the old spelling --k, lists of epsilon,
plot and CSV, one-line refusals."""

import json
from pathlib import Path

import pytest

import optmech
from optmech.topk import solve_topk, topk_ratios
from tests.cli_helpers import run_cli as run
from tests.cli_helpers import run_cli_error, without_status

KEYS = {"total_error", "status", "variables", "ratios"}


def test_top_one_is_lattice_solve(capsys):
    code, out, _ = run(capsys, "topk", "lp", "--n", "4", "--k", "3", "--top", "1", "--eps",
                       "0.3", "--constraints", "regular", "--json")
    assert code == 0
    ours = json.loads(out)
    code, out, _ = run(capsys, "lattice", "solve", "--n", "4", "--k", "3", "--eps", "0.3",
                       "--json")
    lattice = json.loads(out)
    assert ours["total_error"] == pytest.approx(lattice["total_error"], rel=1e-12)
    assert ours["variables"] == lattice["variables"]
    assert ours["ratios"]["peel-pf"] == pytest.approx(lattice["ratios"]["pf"], rel=1e-11)
    assert ours["ratios"]["peel-em"] == pytest.approx(lattice["ratios"]["em"], rel=1e-11)


def test_json_contract_is_the_library_result(capsys):
    code, out, err = run(capsys, "topk", "lp", "--n", "4", "--k", "2", "--top", "2", "--eps",
                         "0.7", "--json")
    assert code == 0 and without_status(err) == []
    payload = json.loads(out)
    assert KEYS <= set(payload) and payload["schema"] == "optmech.topk.lp/1"
    optimum = solve_topk(4, 2, 0.7, 2, constraints="private")     # the default
    assert payload["constraint_set"] == "private"
    assert payload["total_error"] == pytest.approx(optimum.total_error, rel=1e-12)
    assert payload["status"] == "Optimal" and payload["variables"] == optimum.num_variables
    assert payload["ratios"] == pytest.approx({r.mechanism: r.ratio
                                               for r in topk_ratios(optimum)}, rel=1e-12)
    assert all(payload["feasible"].values())


def test_the_default_is_the_comparison_of_record_and_the_first_line_says_so(capsys):
    """The default LP is the private one, the guide's comparison of record: no mechanism
    is marked 'not feasible' (the regular LP, the default before, marked 4 of 6 at these
    arguments: canonical Lipschitz, joint EM, joint PF and peeling PF), every ratio >= 1,
    and the first line of the table names the LP, for either constraint set."""
    argv = ["topk", "lp", "--n", "4", "--depth", "4", "--top", "2", "--eps", "2"]
    code, out, _ = run(capsys, *argv)
    assert code == 0 and out.splitlines()[0].startswith("LP: private, every symmetric")
    assert "comparison of record" in out.splitlines()[0] and "not feasible" not in out
    code, out, _ = run(capsys, *argv, "--constraints", "regular")
    first = out.splitlines()[0]
    assert code == 0 and first.startswith("LP: regular") and "not the comparison" in first
    assert out.count("(not feasible)") == 4
    code, out, _ = run(capsys, *argv[:-2], "--eps", "0.5,1", "--top", "1", "--constraints",
                       "regular")
    assert code == 0 and out.splitlines()[0] == ("LP: regular, the paper's LP for T = 1 (as "
                                                 "'lattice solve')")


def test_the_old_spelling_k_is_the_depth(capsys):
    outputs = []
    for option in ("--k", "--depth"):
        code, out, _ = run(capsys, "topk", "lp", "--n", "3", option, "2", "--top", "2",
                           "--eps", "0.5", "--json")
        assert code == 0
        outputs.append({key: value for key, value in json.loads(out).items()
                        if key != "cpu_seconds"})
    assert outputs[0] == outputs[1] and outputs[0]["k"] == 2


def test_a_list_of_epsilon_gives_points_a_plot_and_a_table(capsys, tmp_path):
    plot, table = tmp_path / "ratios.png", tmp_path / "ratios.csv"
    code, out, _ = run(capsys, "topk", "lp", "--n", "3", "--k", "2", "--top", "2", "--eps",
                       "0.25:2:3:log", "--subsets", "--constraints", "private", "--plot",
                       str(plot), "--csv", str(table), "--json")
    assert code == 0 and plot.stat().st_size > 1000
    payload = json.loads(out)
    assert [round(p["epsilon"], 12) for p in payload["points"]] == [0.25, 0.707106781187, 2.0]
    assert payload["ordered"] is False and "total_error" not in payload
    assert all(r >= 1 for p in payload["points"] for r in p["ratios"].values())
    assert len(table.read_text().splitlines()) == 4
    code, out, _ = run(capsys, "topk", "lp", "--n", "3", "--k", "2", "--top", "2", "--eps",
                       "0.5,1", "--mechanisms", "peel-pf,joint-em")
    assert code == 0 and "peel-pf" in out and "canonical" not in out


def test_table_names_the_mechanisms_outside_the_regular_class(capsys):
    code, out, _ = run(capsys, "topk", "lp", "--n", "4", "--k", "2", "--top", "2", "--eps",
                       "0.6", "--constraints", "regular")
    assert code == 0 and "optimality ratio joint-em (not feasible)" in out
    assert "not feasible for this LP" in out


@pytest.mark.parametrize("argv", [
    ["--n", "4", "--k", "2", "--top", "4", "--eps", "1"],
    ["--n", "4", "--k", "2", "--top", "0", "--eps", "1"],
    ["--n", "1", "--k", "2", "--top", "1", "--eps", "1"],
    ["--n", "4", "--k", "0", "--top", "2", "--eps", "1"],
    ["--n", "4", "--k", "2", "--top", "2", "--eps", "-1"],
    ["--n", "4", "--k", "2", "--top", "2", "--eps", "0.5,0"],
    ["--n", "4", "--k", "2", "--top", "2", "--eps", "10.5"],
    ["--n", "4", "--k", "2", "--top", "2", "--eps", "1", "--mechanisms", "peel-em,xx"],
    ["--n", "4", "--k", "2", "--top", "2", "--eps", "1", "--objective", "l2"],
    ["--n", "40", "--k", "40", "--top", "3", "--eps", "1"],
    ["--n", "6", "--k", "6", "--top", "2", "--eps", "1", "--max-work", "60s"],
])
def test_bad_input_is_one_line_exit_2(capsys, argv):
    code, out, err = run_cli_error(capsys, "topk", "lp", *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "Traceback" not in err


def test_refusals_name_the_option(capsys):
    _, _, err = run_cli_error(capsys, "topk", "lp", "--n", "4", "--k", "2", "--top", "5",
                              "--eps", "1")
    assert "--top must be an integer in [1, n - 1] = [1, 3]; got 5" in err
    _, _, err = run_cli_error(capsys, "topk", "lp", "--n", "6", "--k", "6", "--top", "2",
                              "--eps", "1", "--max-work", "60s")
    assert "--n, --depth, --top" in err and "CPU time" in err


def test_an_uncertified_optimum_is_one_line_exit_1(capsys, monkeypatch):
    import optmech.topk.optimum as module

    monkeypatch.setattr(module, "_lower_bound", lambda lp, duals: -1.0)
    code, out, err = run(capsys, "topk", "lp", "--n", "3", "--k", "1", "--top", "2", "--eps",
                         "0.5", "--json")
    assert code == 1 and out == ""
    assert without_status(err) == [next(line for line in err.splitlines()
                                        if line.startswith("optmech: error: certified gap"))]
    assert "method: simplex" in err            # auto tried the interior point, then simplex


def test_the_cli_lists_are_the_library_lists():
    """The CLI spells the choices out (it imports the library lazily): they must agree."""
    from lp_models.topk import CONSTRAINTS, ERRORS
    from optmech.cli import _topk_lp
    from optmech.topk import TOPK_MECHANISMS
    from optmech.topk.optimum import METHODS

    assert _topk_lp.MECHANISMS == TOPK_MECHANISMS
    assert _topk_lp.CONSTRAINTS == CONSTRAINTS and _topk_lp.METHODS == METHODS
    assert set(_topk_lp.OBJECTIVES) == set(ERRORS) | {"l_1"}


@pytest.mark.parametrize("action", ["pmf", "error", "sample", "lp"])
def test_every_json_key_of_the_schema_is_documented(action):
    """docs/cli.md names every key of ``optmech.topk.<action>/1`` under its own heading (the
    schema's properties, read from the shipped file, not from the code that emits them)."""
    from tests.optmech.cli.test_reference import REFERENCE, _section

    schema = json.loads((Path(optmech.__file__).parent / "schemas"
                         / f"topk.{action}.schema.json").read_text())
    section = _section(REFERENCE.read_text(), f"optmech topk {action}")
    keys = set(schema["properties"]) - {"optmech_version", "schema"}
    assert keys and not {key for key in keys if f'"{key}"' not in section}
