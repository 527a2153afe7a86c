"""`optmech secretary profile|optimal`: JSON contract, tables, plots, one-line errors."""

import json
import subprocess
import sys

import pytest

from optmech.secretary import compare_with_pmix, pmix_delta, pmix_epsilon, rank_distribution
from tests.cli_helpers import run_cli as run
from tests.cli_helpers import run_cli_error, without_status


def test_profile_epsilon_for_delta_json(capsys):
    code, out, _ = run(capsys, "secretary", "profile", "--n", "100", "--p", "0.5", "--l", "1",
                       "--delta", "0.01", "--json")
    data = json.loads(out)
    bound = pmix_epsilon(100, 0.5, 0.01, 1)
    assert code == 0
    assert data["epsilon_exact"] == bound.exact
    assert data["epsilon_asymptotic"] == bound.asymptotic
    assert data["epsilon_closed_form"] == bound.closed_form
    assert data["binding_pair"] == [1, 2] and data["threshold"] == 38
    assert data["success"] == pytest.approx(0.5 * rank_distribution(100)[0] + 0.5 / 100)


def test_profile_delta_for_epsilon_json_and_default_delta(capsys):
    _, out, _ = run(capsys, "secretary", "profile", "--n", "100", "--p", "0.5", "--eps", "0.5",
                    "--json")
    data = json.loads(out)
    assert data["delta_exact"] == pmix_delta(100, 0.5, 0.5, 1).exact
    assert "delta_asymptotic" in data and data["epsilon"] == 0.5
    _, out, _ = run(capsys, "secretary", "profile", "--n", "50", "--p", "1", "--json")
    assert json.loads(out)["epsilon_exact"] == pmix_epsilon(50, 1.0, 0.0, 1).exact


def test_profile_table(capsys):
    code, out, _ = run(capsys, "secretary", "profile", "--n", "100", "--p", "0.5", "--delta",
                       "0.01")
    assert code == 0 and "asymptotic" in out and "Theorem 4.1" in out


def test_optimal_json_contract(capsys, tmp_path):
    plot = tmp_path / "ranks.png"
    code, out, _ = run(capsys, "secretary", "optimal", "--n", "30", "--eps", "0.5", "--delta",
                       "0.01", "--l", "1", "--rule", "--plot", str(plot), "--json")
    data = json.loads(out)
    ref = compare_with_pmix(30, 0.5, 0.01, 1)
    assert code == 0 and plot.stat().st_size > 0
    for key in ("optimal_success", "pmix_p", "pmix_success", "ratio", "rank_distribution"):
        assert key in data
    assert data["optimal_success"] == pytest.approx(ref.optimal_success, abs=1e-12)
    assert data["pmix_p"] == ref.pmix_p and data["pmix_success"] == ref.pmix_success
    assert data["ratio"] == pytest.approx(data["optimal_success"] / data["pmix_success"])
    assert len(data["rank_distribution"]) == 30
    assert sum(data["rank_distribution"]) == pytest.approx(1, abs=1e-12)
    assert [len(row) for row in data["stop_probabilities"]] == list(range(1, 31))


def test_optimal_other_payoffs_and_table(capsys):
    _, out, _ = run(capsys, "secretary", "optimal", "--n", "12", "--eps", "0.3", "--delta",
                    "0", "--payoff", "top-m", "--m", "2", "--json")
    data = json.loads(out)
    assert data["payoff"] == "top-m" and data["ratio"] >= 1
    code, out, _ = run(capsys, "secretary", "optimal", "--n", "12", "--eps", "0.3", "--delta",
                       "0", "--payoff", "rank", "--method", "highs")
    assert code == 0 and "best p-mix" in out


@pytest.mark.parametrize("argv, fragment", [
    (["profile", "--n", "1", "--p", "0.5"], "n must be"),
    (["profile", "--n", "10", "--p", "1.5"], "p must be"),
    (["profile", "--n", "10", "--p", "-0.5"], "p must be"),
    (["profile", "--n", "10", "--p", "0.5", "--l", "10"], "l must be"),
    (["profile", "--n", "10", "--p", "0.5", "--l", "0"], "l must be"),
    (["profile", "--n", "10", "--p", "0.5", "--eps", "-1"], "--eps must be"),
    (["profile", "--n", "10", "--p", "0.5", "--delta", "2"], "delta must be"),
    (["profile", "--n", "10", "--p", "0.5", "--delta", "0.1", "--eps", "1"], "not allowed"),
    (["optimal", "--n", "1", "--eps", "0.5", "--delta", "0.01"], "n must be"),
    (["optimal", "--n", "10", "--eps", "-0.5", "--delta", "0.01"], "--eps must be"),
    (["optimal", "--n", "10", "--eps", "0.5", "--delta", "-0.01"], "delta must be"),
    (["optimal", "--n", "10", "--eps", "0.5", "--delta", "0.01", "--l", "12"], "l must be"),
    (["optimal", "--n", "10", "--eps", "0.5", "--delta", "0.01", "--payoff", "top-m"],
     "m must be"),
    (["optimal", "--n", "ten", "--eps", "0.5", "--delta", "0.01"], "not an integer"),
    (["optimal", "--n", "10", "--eps", "nan", "--delta", "0.01"], "not a finite number"),
    (["profile", "--n", "10", "--p", "0.5", "--delta", "inf"], "not a finite number"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, fragment):
    code, _, err = run_cli_error(capsys, "secretary", *argv)
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and fragment in err


def test_bad_input_in_a_real_process_has_no_traceback():
    done = subprocess.run([sys.executable, "-m", "optmech", "secretary", "optimal", "--n", "10",
                           "--eps", "0.5", "--delta", "1.5"], capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "delta must be" in done.stderr
    assert "Traceback" not in done.stderr


def test_solver_time_limit_is_one_line_and_exit_1(capsys):
    code, out, err = run(capsys, "secretary", "optimal", "--n", "300", "--eps", "0.1",
                         "--delta", "0", "--time-limit", "0.2")
    assert code == 1 and out == ""
    lines = without_status(err)
    assert len(lines) == 1 and "upper bound" in lines[0]
