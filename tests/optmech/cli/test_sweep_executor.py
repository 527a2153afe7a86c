"""``--executor MODULE:FUNCTION``: a sweep command runs its cells on the executor the
function returns, with the serial run's output byte for byte; what is wrong with the option
is one line (2: a name that does not import, a function that returns no executor, a second
place to run the cells; 1: a function that fails)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from tests.cli_helpers import run_cli, run_cli_error, without_status

REPO = Path(__file__).resolve().parents[3]
SWEEP = ["hetero", "run", "--scenario", "1", "--eps", "0.5,1,2", "--trials", "2", "--json",
         "--quiet"]
MODULE = """
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

def processes():
    return ProcessPoolExecutor(max_workers=2)

def threads():
    return ThreadPoolExecutor(max_workers=2)

def failing():
    raise OSError("no cluster today")

def not_an_executor():
    return 3
"""


@pytest.fixture
def executors(tmp_path, monkeypatch, request):
    """The name of an importable module (in ``tmp_path``) with the functions of MODULE."""
    name = f"optmech_test_executors_{request.node.name.split('[')[0][-20:]}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(MODULE))
    monkeypatch.syspath_prepend(str(tmp_path))
    return name


def test_a_sweep_on_a_process_pool_of_your_own_prints_the_serial_bytes(executors, tmp_path):
    """As a user runs it: the command in a process of its own, which exits (no hang)
    once the pool it made is shut down."""
    def optmech(*extra):
        return subprocess.run([sys.executable, "-m", "optmech", *SWEEP, *extra], cwd=REPO,
                              capture_output=True, text=True, timeout=600,
                              env={**os.environ, "PYTHONPATH": str(tmp_path)})

    serial = optmech()
    pooled = optmech("--executor", f"{executors}:processes", "--cache", str(tmp_path / "c"))
    assert serial.returncode == 0 and pooled.returncode == 0, pooled.stderr
    assert pooled.stdout == serial.stdout and without_status(pooled.stderr) == []
    assert len(list((tmp_path / "c").glob("*.json"))) == 3


def test_threads_give_the_same_bytes_in_process(executors, capsys):
    code, serial, _ = run_cli(capsys, *SWEEP)
    code_threads, threads, err = run_cli(capsys, *SWEEP, "--executor", f"{executors}:threads")
    assert code == code_threads == 0 and threads == serial and without_status(err) == []


@pytest.mark.parametrize("extra, words", [
    (["--executor", "no_such_module_here:f"], "cannot import 'no_such_module_here'"),
    (["--executor", "a b"], "expected MODULE:FUNCTION"),
    (["--executor", "{m}:missing"], "has no function 'missing'"),
    (["--executor", "{m}:not_an_executor"], "returning an executor"),
    (["--executor", "{m}:threads", "--workers", "2"], "used without --workers"),
    (["--executor", "{m}:threads", "--dask-scheduler", "127.0.0.1:1"],
     "used without --dask-scheduler"),
])
def test_a_wrong_executor_is_one_line_exit_2(executors, capsys, extra, words):
    argv = [*SWEEP, *(word.format(m=executors) for word in extra)]
    code, out, err = run_cli_error(capsys, *argv)
    (line,) = without_status(err)
    assert code == 2 and out == "" and "--executor" in line and words in line, line


def test_an_executor_function_that_fails_is_one_line_exit_1(executors, capsys):
    code, out, err = run_cli(capsys, *SWEEP, "--executor", f"{executors}:failing")
    assert code == 1 and out == ""
    assert without_status(err) == ["optmech: error: --executor "
                                   f"{executors}:failing failed (OSError: no cluster today)"]
