"""`optmech multiselect`: the JSON contract, tables, and one-line errors with exit 2."""

import json
import math
import subprocess
import sys

import pytest

from tests.cli_helpers import run_cli, run_cli_error


def run(capsys, *argv):
    return run_cli(capsys, "multiselect", *argv)


def test_cost_json_contract(capsys):
    code, out, _ = run(capsys, "cost", "--k", "4", "--eps", "1", "--json")
    payload = json.loads(out)
    assert code == 0
    assert {"cost", "offsets"} <= payload.keys()
    assert payload["cost"] == pytest.approx(math.log(1.5), rel=1e-15)
    b = 2
    right = [math.log1p(1 / b) + 2 * math.log(b / (b - i)) for i in range(b)]
    assert payload["offsets"] == pytest.approx([-x for x in right[::-1]] + right, rel=1e-14)


def test_cost_with_another_h_and_noise(capsys):
    _, out, _ = run(capsys, "cost", "--k", "3", "--eps", "2", "--h", "square", "--json")
    payload = json.loads(out)
    assert payload["method"] == "recurrence"
    assert payload["offsets"] == pytest.approx([-1.0, 0.0, 1.0], abs=1e-9)  # +-2/eps
    _, out, _ = run(capsys, "cost", "--k", "5", "--eps", "1", "--noise", "gaussian", "--json")
    payload = json.loads(out)
    assert payload["cost"] < payload["bound"]
    code, out, _ = run(capsys, "cost", "--k", "2", "--eps", "1")
    assert code == 0 and "0.69314718056" in out and "offset" in out


def test_dilp_json_contract(capsys):
    code, out, _ = run(capsys, "dilp", "--k", "2", "--eps", "0.375", "--ring", "--grid", "60",
                       "--json")
    payload = json.loads(out)
    assert code == 0
    assert {"primal", "dual", "gap", "laplace_cost", "grid"} <= payload.keys()
    assert payload["grid"] == 60
    assert payload["gap"] < 1e-9
    assert payload["primal"] < payload["laplace_cost"] - 0.03
    code, out, _ = run(capsys, "dilp", "--k", "2", "--eps", "1", "--grid", "100")
    assert code == 0 and "primal" in out and "grid 101" in out


def test_dilp_plot(capsys, tmp_path):
    path = tmp_path / "ring.png"
    code, out, _ = run(capsys, "dilp", "--k", "2", "--eps", "1", "--ring", "--grid", "40",
                       "--plot", str(path), "--json")
    assert code == 0 and path.stat().st_size > 1000
    assert json.loads(out)["plot"] == str(path)


def test_sample_json(capsys):
    argv = ("sample", "--k", "3", "--eps", "1", "--size", "50000", "--seed", "4", "--json")
    _, first, _ = run(capsys, *argv)
    _, second, _ = run(capsys, *argv)
    payload = json.loads(first)
    assert first == second
    assert payload["exact"] == pytest.approx(0.5, rel=1e-14)
    assert abs(payload["mean"] - payload["exact"]) <= 5 * payload["standard_error"]


@pytest.mark.parametrize("argv,word", [
    (["cost", "--k", "0", "--eps", "1"], "--k"),
    (["cost", "--k", "2", "--eps", "0"], "--eps"),
    (["cost", "--k", "2", "--eps", "-1"], "--eps"),
    (["cost", "--k", "2", "--eps", "1", "--h", "cosh"], "--h"),
    (["dilp", "--k", "2", "--eps", "1", "--grid", "11"], "grid"),
    (["dilp", "--k", "2", "--eps", "1", "--ring", "--grid", "9"], "grid"),
    (["dilp", "--k", "2", "--eps", "1", "--grid", "41", "--plot", "x.png"], "--plot"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, word):
    code, _, err = run_cli_error(capsys, "multiselect", *argv)
    assert code == 2
    assert err.count("\n") == 1 and word in err and "Traceback" not in err


def test_bad_input_from_a_real_shell():
    done = subprocess.run([sys.executable, "-m", "optmech", "multiselect", "dilp", "--k", "3",
                           "--eps", "1", "--grid", "15"], capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.startswith("optmech: error: --grid must be at least")
    assert done.stderr.count("\n") == 1 and done.stdout == ""
