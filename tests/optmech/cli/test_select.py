"""`optmech select`: JSON contract, tables, and one-line errors with exit status 2."""

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from tests.cli_helpers import run_cli as run
from tests.cli_helpers import run_cli_error


def test_pmf_json_is_the_exact_pmf(capsys):
    code, out, _ = run(capsys, "select", "pmf", "--mechanism", "em", "--scores", "0,-1,-3",
                       "--eps", "1.3", "--json")
    assert code == 0
    weights = np.exp(0.65 * np.array([0.0, -1.0, -3.0]))
    np.testing.assert_allclose(json.loads(out)["pmf"], weights / weights.sum(), rtol=1e-15)


def test_error_json(capsys):
    code, out, _ = run(capsys, "select", "error", "--mechanism", "pf", "--scores=-1,0",
                       "--eps", "2", "--sensitivity", "0.5", "--json")
    # n = 2: Pr[loser] = p/2, p = exp(2 * (-1) / (2 * 0.5)); error = 1 * p / 2
    assert code == 0
    assert json.loads(out)["expected_error"] == pytest.approx(math.exp(-2) / 2, rel=1e-15)


def test_sample_json_is_reproducible(capsys):
    argv = ("select", "sample", "--mechanism", "rnm-laplace", "--scores", "0,-1,-3", "--eps",
            "1.3", "--size", "25", "--seed", "7", "--json")
    _, first, _ = run(capsys, *argv)
    _, second, _ = run(capsys, *argv)
    samples = json.loads(first)["samples"]
    assert first == second and len(samples) == 25 and set(samples) <= {0, 1, 2}


def test_table_output(capsys):
    code, out, _ = run(capsys, "select", "pmf", "--mechanism", "uniform", "--scores", "1,2",
                       "--eps", "1")
    assert code == 0 and "probability" in out and "0.5" in out


@pytest.mark.parametrize("bad, argument", [
    (["--eps", "0"], "--eps"),
    (["--eps", "-1"], "--eps"),
    (["--eps", "nan"], "--eps"),
    (["--eps", "inf"], "--eps"),
    (["--scores="], "--scores"),
    (["--scores", "0,nan"], "--scores"),
    (["--scores", "0,inf"], "--scores"),
    (["--sensitivity", "0"], "--sensitivity"),
    (["--mechanism", "foo"], "--mechanism"),
])
def test_bad_input_is_one_line_with_status_2(capsys, bad, argument):
    defaults = {"--mechanism": "pf", "--scores": "0,-1", "--eps": "1"}
    overridden = {token.split("=")[0] for token in bad if token.startswith("--")}
    args = ["select", "pmf"]
    for key, value in defaults.items():
        if key not in overridden:
            args += [key, value]
    args += bad
    code, _, err = run_cli_error(capsys, *args)
    assert code == 2
    assert err.count("\n") == 1 and argument in err and "Traceback" not in err


def test_console_script_end_to_end():
    done = subprocess.run([sys.executable, "-m", "optmech", "select", "pmf", "--mechanism",
                           "pf", "--scores", "0,-1,-3", "--eps", "1.3", "--json"],
                          capture_output=True, text=True, check=True)
    probs = json.loads(done.stdout)["pmf"]
    assert len(probs) == 3 and abs(sum(probs) - 1) < 1e-12
    bad = subprocess.run([sys.executable, "-m", "optmech", "select", "pmf", "--mechanism",
                          "pf", "--scores", "0,1", "--eps", "-2"], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and bad.stdout == ""


def test_mechanism_names_in_either_spelling(capsys):
    """rnm_laplace names the same mechanism as rnm-laplace, in select and in lattice, where
    the JSON keeps its own key; a name that is neither is refused on one line."""
    pmfs = [json.loads(run(capsys, "select", "pmf", "--mechanism", name, "--scores",
                           "0,-1,-3", "--eps", "1.3", "--json")[1])["pmf"]
            for name in ("rnm-laplace", "rnm_laplace")]
    assert pmfs[0] == pmfs[1]
    code, out, _ = run(capsys, "lattice", "solve", "--n", "2", "--k", "1", "--eps", "1",
                       "--mechanisms", "rnm-laplace,pf", "--json")
    assert code == 0 and set(json.loads(out)["ratios"]) == {"rnm_laplace", "pf"}
    code, _, err = run_cli_error(capsys, "select", "pmf", "--mechanism", "rnm", "--scores",
                                 "0,-1", "--eps", "1")
    assert code == 2 and "--mechanism" in err and "unknown mechanism" in err
    assert len(err.strip().splitlines()) == 1
