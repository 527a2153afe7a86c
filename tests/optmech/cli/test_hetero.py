"""`optmech hetero run`: JSON contract, table, plot, and one-line errors with exit status 2."""

import json
import subprocess
import sys

import pytest

from optmech.heterogeneous import MECHANISM_NAMES
from optmech.heterogeneous.scenarios import run_scenario, scenario
from tests.cli_helpers import run_cli as run
from tests.cli_helpers import run_cli_error


def test_json_contract_and_values(capsys):
    code, out, _ = run(capsys, "hetero", "run", "--scenario", "1", "--eps", "0.1:10:3", "--json")
    assert code == 0
    payload = json.loads(out)
    rows = payload["results"]
    assert {r["mechanism"] for r in rows} == set(MECHANISM_NAMES)
    assert sorted({r["epsilon"] for r in rows}) == [0.1, 5.05, 10.0]
    assert all(set(r) == {"mechanism", "epsilon", "mse", "ci_low", "ci_high"} for r in rows)
    reference = run_scenario(scenario(1), [0.1, 5.05, 10.0])
    for r in rows:
        assert r["mse"] == reference.mse(r["mechanism"], r["epsilon"])
        assert r["ci_low"] == r["mse"] == r["ci_high"]          # deterministic: exact


def test_random_scenario_with_trials_subset_and_plot(capsys, tmp_path):
    plot = tmp_path / "s5.png"
    code, out, _ = run(capsys, "hetero", "run", "--scenario", "5", "--eps", "0.5,2",
                       "--trials", "3", "--mechanisms", "gem,uniform", "--plot", str(plot),
                       "--json")
    payload = json.loads(out)
    assert code == 0 and payload["trials"] == 3 and payload["spearman"] == [pytest.approx(-1)]
    assert [r["mechanism"] for r in payload["results"]] == ["gem", "gem", "uniform", "uniform"]
    assert all(r["ci_low"] <= r["mse"] <= r["ci_high"] for r in payload["results"])
    assert plot.stat().st_size > 10_000


def test_table_and_sweep(capsys):
    code, out, _ = run(capsys, "hetero", "run", "--scenario", "sweep:-0.8", "--eps", "1",
                       "--trials", "2", "--mechanisms", "rnm")
    assert code == 0
    assert out.splitlines()[0].startswith("scenario sweep:-0.8")
    assert "mechanism" in out.splitlines()[1]


@pytest.mark.parametrize("argv, fragment", [
    (["--scenario", "9", "--eps", "1"], "argument --scenario: 1..8 or sweep:T"),
    (["--scenario", "1", "--eps=-1"], "--eps must be"),
    (["--scenario", "1", "--eps", "1", "--mechanisms", "rnmh"], "unknown mechanism"),
    (["--scenario", "1", "--eps", "1", "--trials", "0"], "--trials"),
    (["--scenario", "1"], "--eps"),
])
def test_bad_input_is_one_line_exit_2(capsys, argv, fragment):
    code, out, err = run_cli_error(capsys, "hetero", "run", *argv)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and fragment in err
    assert err.startswith("optmech: error:")


def test_bad_input_from_the_shell_has_no_traceback():
    done = subprocess.run([sys.executable, "-m", "optmech", "hetero", "run", "--scenario",
                           "sweep:x", "--eps", "1"], capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == ("optmech: error: optmech hetero run: argument --scenario: "
                                   "1..8 or sweep:T with a number T; got 'sweep:x'")


def test_process_pool_dask_and_cache_give_the_same_json(capsys, tmp_path):
    """`--workers`, `--dask-scheduler` and `--cache` (resume) change nothing in the output."""
    distributed = pytest.importorskip("distributed")
    argv = ["hetero", "run", "--scenario", "4", "--eps", "0.5,2", "--trials", "3",
            "--mechanisms", "rnm,gem,uniform", "--json"]
    _, serial, _ = run(capsys, *argv)
    _, pooled, _ = run(capsys, *argv, "--workers", "2", "--cache", str(tmp_path / "c"))
    _, resumed, _ = run(capsys, *argv, "--cache", str(tmp_path / "c"))
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  protocol="tcp://", host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        _, on_dask, _ = run(capsys, *argv, "--dask-scheduler", cluster.scheduler_address)
    assert serial == pooled == resumed == on_dask
    assert len(list((tmp_path / "c").glob("*.json"))) == 2
