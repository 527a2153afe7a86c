"""`optmech lattice solve|ratio`: JSON contract, table, plot, one-line errors."""

import json
import subprocess
import sys

import pytest

from optmech.lattice.optimum import solve_lattice
from optmech.lattice.ratios import optimality_ratio
from optmech.selection.mechanisms import PermuteAndFlip
from tests.cli_helpers import STATUS_LINE, run_cli_error, without_status
from tests.cli_helpers import run_cli as run

KEYS = {"n", "k", "epsilon", "variables", "constraints", "total_error", "ratios",
        "solve_seconds", "status"}


def test_solve_json_contract(capsys):
    code, out, _ = run(capsys, "lattice", "solve", "--n", "4", "--k", "4", "--eps", "0.5",
                       "--json")
    assert code == 0
    payload = json.loads(out)
    assert KEYS <= set(payload)
    assert set(payload["ratios"]) == {"pf", "em", "rnm_laplace"}
    assert (payload["n"], payload["k"], payload["epsilon"]) == (4, 4, 0.5)
    assert payload["variables"] == 95
    assert payload["status"] == "Optimal" and payload["gap"] <= 1e-7
    optimum = solve_lattice(4, 4, 0.5)
    assert payload["total_error"] == pytest.approx(optimum.total_error, rel=1e-12)
    assert payload["ratios"]["pf"] == pytest.approx(
        optimality_ratio(PermuteAndFlip(0.5), optimum), rel=1e-12)


def test_solve_options_and_table(capsys):
    code, out, _ = run(capsys, "lattice", "solve", "--n", "3", "--k", "3", "--eps", "0.4",
                       "--method", "ipm", "--weighting", "cube", "--constraints", "paper",
                       "--mechanisms", "pf")
    assert code == 0
    assert "optimality ratio pf" in out and "cube / paper" in out and "em" not in out


def test_solve_probabilities_are_the_optimal_mechanism(capsys):
    """--probabilities: at eps = 1 (PF optimal for k = 3) every row's pmf is PF's own pmf;
    the multiplicities add up to |Q| = (k + 1)^n - k^n and the errors to total_error."""
    code, out, _ = run(capsys, "lattice", "solve", "--n", "3", "--k", "3", "--eps", "1",
                       "--probabilities", "--json")
    assert code == 0
    payload = json.loads(out)
    rows = payload["probabilities"]
    assert len(rows) == 10 and sum(r["multiplicity"] for r in rows) == 4 ** 3 - 3 ** 3
    for row in rows:
        assert row["pmf"] == pytest.approx(PermuteAndFlip(1.0).pmf(row["scores"]), abs=1e-12)
    assert sum(r["multiplicity"] * r["expected_error"] for r in rows) == pytest.approx(
        payload["total_error"], rel=1e-12)
    code, text, _ = run(capsys, "lattice", "solve", "--n", "3", "--k", "3", "--eps", "1",
                        "--probabilities")
    assert "multiplicity" in text and "0.7649883273" in text     # p0 of (0, -2, -4)
    code, plain, _ = run(capsys, "lattice", "solve", "--n", "3", "--k", "3", "--eps", "1",
                         "--json")
    assert "probabilities" not in json.loads(plain)


def test_ratio_sweep_json_and_plot(capsys, tmp_path):
    plot = tmp_path / "ratios.png"
    code, out, _ = run(capsys, "lattice", "ratio", "--n", "3,4", "--k", "3", "--eps",
                       "0.1:2:4", "--plot", str(plot), "--json")
    assert code == 0 and plot.stat().st_size > 1000
    payload = json.loads(out)
    assert [(c["n"], c["k"]) for c in payload["curves"]] == [(3, 3), (4, 3)]
    assert len(payload["curves"][0]["ratios"]["pf"]) == 4
    assert payload["curves"][0]["ratios"]["pf"][-1] == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize("argv", [
    ["lattice", "solve", "--n", "4", "--k", "4", "--eps", "-1"],
    ["lattice", "solve", "--n", "1", "--k", "4", "--eps", "1"],
    ["lattice", "solve", "--n", "4", "--k", "0", "--eps", "1"],
    ["lattice", "solve", "--n", "4", "--k", "-2", "--eps", "1"],
    ["lattice", "solve", "--n", "40", "--k", "40", "--eps", "1"],
    ["lattice", "solve", "--n", "4", "--k", "4", "--eps", "1", "--mechanisms", "pf,xx"],
    ["lattice", "ratio", "--n", "3", "--k", "3", "--eps", "1", "--plot", "out.pdf"],
    ["lattice", "ratio", "--n", "3,0", "--k", "3", "--eps", "1"],
])
def test_bad_input_is_one_line_exit_2(argv):
    done = subprocess.run([sys.executable, "-m", "optmech", *argv], capture_output=True,
                          text=True)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_ratio_sweep_on_a_process_pool_with_cache_matches_serial(capsys, tmp_path):
    argv = ["lattice", "ratio", "--n", "3,4", "--k", "3", "--eps", "0.3,0.8", "--json",
            "--mechanisms", "pf,em"]
    _, serial, _ = run(capsys, *argv)
    cache = tmp_path / "cache"
    _, pooled, _ = run(capsys, *argv, "--workers", "2", "--cache", str(cache))
    assert len(list(cache.glob("*.json"))) == 4
    _, resumed, _ = run(capsys, *argv, "--cache", str(cache))
    expected = json.loads(serial)["curves"]
    for text in (pooled, resumed):
        for got, want in zip(json.loads(text)["curves"], expected):
            assert got["total_error"] == pytest.approx(want["total_error"], rel=1e-12)
            for name in ("pf", "em"):
                assert got["ratios"][name] == pytest.approx(want["ratios"][name], rel=1e-12)


BOUND_KEYS = {"n", "k", "epsilon", "tol", "lower", "upper", "relative_width", "ratios",
              "iterations", "seconds", "status"}


def test_bound_json_contract(capsys):
    code, out, _ = run(capsys, "lattice", "bound", "--n", "5", "--k", "5", "--eps", "0.5",
                       "--tol", "1e-5", "--json")
    assert code == 0
    payload = json.loads(out)
    assert BOUND_KEYS <= set(payload)
    assert (payload["n"], payload["k"], payload["epsilon"], payload["tol"]) == (5, 5, 0.5, 1e-5)
    assert payload["status"] == "converged" and payload["relative_width"] <= 1e-5
    optimum = solve_lattice(5, 5, 0.5)
    assert payload["lower"] <= optimum.total_error <= payload["upper"]
    assert set(payload["ratios"]) == {"pf", "em", "rnm_laplace"}
    lo, hi = payload["ratios"]["pf"]
    assert lo <= optimality_ratio(PermuteAndFlip(0.5), optimum) <= hi


def test_bound_time_limit_and_table(capsys):
    code, out, _ = run(capsys, "lattice", "bound", "--n", "7", "--k", "7", "--eps", "0.5",
                       "--tol", "1e-9", "--time-limit", "0.2", "--mechanisms", "pf",
                       "--json")
    assert code == 0
    payload = json.loads(out)
    assert payload["status"] == "time_limit" and set(payload["ratios"]) == {"pf"}
    assert "null" not in out and "inf" not in out.lower() and "nan" not in out.lower()
    code, out, _ = run(capsys, "lattice", "bound", "--n", "4", "--k", "4", "--eps", "1.0")
    assert code == 0 and "converged" in out and "optimality ratio pf" in out


def test_bound_defaults_are_the_library_defaults():
    from optmech.cli import build_parser
    from optmech.cli.lattice import DEFAULT_TIME_LIMIT, DEFAULT_TOL
    from optmech.lattice import bound

    assert (DEFAULT_TOL, DEFAULT_TIME_LIMIT) == (bound.DEFAULT_TOL, bound.DEFAULT_TIME_LIMIT)
    args = build_parser().parse_args(["lattice", "bound", "--n", "4", "--k", "4", "--eps", "1"])
    assert args.time_limit == 600.0


def test_bound_with_an_unreachable_tol_ends_at_the_time_limit(capsys):
    code, out, err = run(capsys, "lattice", "bound", "--n", "7", "--k", "7", "--eps", "0.5",
                         "--tol", "1e-15", "--time-limit", "1", "--json")
    payload = json.loads(out)
    assert code == 0 and payload["status"] == "time_limit"
    assert payload["lower"] <= solve_lattice(7, 7, 0.5).total_error <= payload["upper"]
    assert without_status(err) == []


def test_bound_reports_the_current_bracket_on_stderr(capsys, monkeypatch):
    monkeypatch.setenv("OPTMECH_PROGRESS_SECONDS", "0.2")
    code, _, err = run(capsys, "lattice", "bound", "--n", "8", "--k", "8", "--eps", "0.5",
                       "--tol", "1e-15", "--time-limit", "3", "--mechanisms", "pf", "--json")
    assert code == 0 and without_status(err) == []
    lines = [line for line in err.splitlines() if "lattice bound n=8 k=8 eps=0.5" in line]
    assert lines and all(STATUS_LINE.match(line) for line in lines)
    assert "lower " in lines[-1] and "upper " in lines[-1] and "width " in lines[-1]


def test_ratio_bound_has_a_time_limit_per_point(capsys, monkeypatch):
    import optmech.lattice.bound as bound

    seen = []

    def fake(*args, **kwargs):
        seen.append(kwargs["time_limit"])
        raise bound.SolverError("stop", status="test", num_rows=1, num_cols=1,
                                num_nonzeros=None, method="test")

    monkeypatch.setattr(bound, "bound_sweep", fake)
    code, _, err = run(capsys, "lattice", "ratio", "--n", "4", "--k", "3", "--eps", "0.5",
                       "--bound")
    assert code == 1 and seen == [600.0] and "model: 1 rows x 1 columns; method" in err


@pytest.mark.parametrize("argv", [
    ["lattice", "bound", "--n", "4", "--k", "4", "--eps", "0.5", "--tol", "0"],
    ["lattice", "bound", "--n", "4", "--k", "4", "--eps", "0.5", "--tol", "1"],
    ["lattice", "bound", "--n", "4", "--k", "4", "--eps", "0.5", "--tol", "1e-16"],
    ["lattice", "bound", "--n", "12", "--k", "12", "--eps", "0.5", "--time-limit", "10"],
    ["lattice", "bound", "--n", "4", "--k", "4", "--eps", "0.5", "--time-limit", "-1"],
    ["lattice", "bound", "--n", "1", "--k", "4", "--eps", "0.5"],
    ["lattice", "bound", "--n", "40", "--k", "40", "--eps", "0.5"],
    ["lattice", "ratio", "--n", "3", "--k", "3", "--eps", "1", "--bound", "--tol", "2"],
])
def test_bound_bad_input_is_one_line_exit_2(capsys, argv):
    code, _, err = run_cli_error(capsys, *argv)
    assert code == 2
    assert err.count("\n") == 1 and "Traceback" not in err
    if "1e-16" in argv:
        assert "--tol" in err and "1e-15" in err
    if "10" in argv:
        assert "--time-limit" in err


def test_bound_exact_finishes_the_bracket(capsys):
    code, out, _ = run(capsys, "lattice", "bound", "--n", "5", "--k", "5", "--eps", "0.5",
                       "--exact", "--mechanisms", "pf", "--json")
    assert code == 0
    payload = json.loads(out)
    optimum = solve_lattice(5, 5, 0.5)
    assert payload["status"] == "exact" and payload["relative_width"] <= 1e-9
    assert payload["upper"] == pytest.approx(optimum.total_error, rel=1e-9)
    lo, hi = payload["ratios"]["pf"]            # PF's total over OPT, OPT in solve's bracket
    pf_total = optimality_ratio(PermuteAndFlip(0.5), optimum) * optimum.total_error
    assert lo <= pf_total / optimum.lower_bound and pf_total / optimum.total_error <= hi


def test_bound_time_limit_covers_the_ratios(capsys, monkeypatch):
    """The exact errors of the mechanisms are computed first, within --time-limit: when it
    passes during them the command stops there (exit 1, one line) instead of running on."""
    import optmech.lattice.ratios as ratios

    monkeypatch.setattr(ratios, "_LAPLACE_CLASSES", 1)
    real = ratios.laplace_level_probabilities

    def slow(*args, **kwargs):        # a work limit, not a clock: the deadline has passed
        monkeypatch.setattr(ratios.time, "perf_counter", lambda: float("inf"))
        return real(*args, **kwargs)

    monkeypatch.setattr(ratios, "laplace_level_probabilities", slow)
    code, out, err = run(capsys, "lattice", "bound", "--n", "4", "--k", "4", "--eps", "0.5",
                         "--time-limit", "60")
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "time limit reached" in err and "rnm_laplace" in err


def test_ratio_bound_gives_pairs_and_a_band_plot(capsys, tmp_path):
    plot = tmp_path / "bands.png"
    code, out, _ = run(capsys, "lattice", "ratio", "--n", "4", "--k", "3", "--eps",
                       "0.3,0.5", "--bound", "--tol", "1e-5", "--plot", str(plot), "--json")
    assert code == 0 and plot.stat().st_size > 1000
    payload = json.loads(out)
    assert payload["bound"] is True
    (curve,) = payload["curves"]
    assert curve["status"] == ["converged", "converged"]
    for i, eps in enumerate((0.3, 0.5)):
        lo, hi = curve["ratios"]["pf"][i]
        exact = optimality_ratio(PermuteAndFlip(eps), solve_lattice(4, 3, eps))
        assert lo <= exact <= hi and hi / lo - 1 <= 1e-5
    code, out, _ = run(capsys, "lattice", "ratio", "--n", "4", "--k", "3", "--eps", "0.5",
                       "--bound")
    assert code == 0 and "converged" in out and "[" in out


@pytest.mark.parametrize("argv", [
    ["solve", "--n", "3", "{}", "2", "--eps", "0.5"],
    ["bound", "--n", "3", "{}", "2", "--eps", "0.5", "--tol", "1e-3"],
    ["ratio", "--n", "3", "{}", "1,2", "--eps", "0.5,1"],
], ids=["solve", "bound", "ratio"])
def test_depth_keeps_its_old_spelling_k(capsys, argv):
    """``--depth`` (the lattice's k; ``--k`` read as top-k's k) and the old ``--k`` give the
    same result; ``--help`` shows both in its first words."""
    outputs = []
    for option in ("--depth", "--k"):
        code, out, _ = run(capsys, "lattice", *[option if a == "{}" else a for a in argv],
                           "--json")
        assert code == 0
        outputs.append({key: value for key, value in json.loads(out).items()
                        if not key.endswith("seconds") and key not in ("curves", "history")})
    assert outputs[0] == outputs[1]
    from optmech.cli import _leaf_parsers, build_parser

    (leaf,) = [p for p in _leaf_parsers(build_parser()) if p.prog == f"optmech lattice {argv[0]}"]
    assert "--depth K, --k K depth of the lattice (not a top-k's k)" in " ".join(
        leaf.format_help().split())


def test_a_refusal_names_depth(capsys):
    code, _, err = run_cli_error(capsys, "lattice", "solve", "--n", "8", "--k", "8", "--eps",
                                 "0.5", "--max-work", "1s", "--max-memory", "1TB")
    assert code == 2 and "optmech: error: --n, --depth must be small enough" in err
    code, _, err = run_cli_error(capsys, "lattice", "ratio", "--n", "3", "--k", "0,2", "--eps",
                                 "1")
    assert code == 2 and "optmech: error: --depth must be an integer in [1, inf]; got 0" in err
