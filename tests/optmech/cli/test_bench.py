"""`optmech bench`: forwards to `python -m benchmarks` of the source checkout."""

import json
import subprocess
import sys
from pathlib import Path

import optmech
from optmech.cli import main
from tests.cli_helpers import run_cli_error

REPO = Path(__file__).resolve().parents[3]


def test_unknown_module_is_refused_before_the_benchmarks_run():
    done = subprocess.run([sys.executable, "-m", "optmech", "bench", "--only", "no_such"],
                          cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith("optmech: error: --only must be one of ")
    assert "gem" in done.stderr and "'no_such'" in done.stderr


def test_options_are_forwarded(monkeypatch):
    calls = []

    def fake_run(command, cwd):
        calls.append((command, cwd))
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.chdir(REPO)
    monkeypatch.setattr(subprocess, "run", fake_run)       # run_bench imports it when run
    assert main(["bench", "--quick", "--only", "gem", "--only", "dilp"]) == 0
    (command, cwd), = calls
    assert command[1:] == ["-m", "benchmarks", "--quick", "--only", "gem", "--only", "dilp"]
    assert Path(cwd) == REPO


def test_outside_a_checkout_is_a_one_line_error(monkeypatch, tmp_path, capsys):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(optmech, "__file__", str(tmp_path / "site" / "optmech" / "__init__.py"))
    code, _, err = run_cli_error(capsys, "bench")
    assert code == 2
    assert err.count("\n") == 1 and "source checkout" in err


def test_json_is_the_runners_object_printed_once(monkeypatch, capsys):
    payload = {"quick": True, "modules": ["gem"], "seconds": {"gem": 1.5},
               "tables": {"gem": ["benchmarks/results/quick/gem.md"]},
               "results": "benchmarks/results/quick/RESULTS.md"}
    calls = []

    def fake_run(command, cwd, stdout, text):
        calls.append(command)
        return subprocess.CompletedProcess(command, 0, stdout=json.dumps(payload) + "\n")

    monkeypatch.chdir(REPO)
    monkeypatch.setattr(subprocess, "run", fake_run)       # run_bench imports it when run
    assert main(["bench", "--quick", "--only", "gem", "--json"]) == 0
    out = capsys.readouterr().out
    envelope = {"optmech_version": optmech.__version__, "schema": "optmech.bench/1"}
    assert out.count("\n") == 1 and json.loads(out) == envelope | payload
    assert calls[0][-1] == "--json" and "--quick" in calls[0]
