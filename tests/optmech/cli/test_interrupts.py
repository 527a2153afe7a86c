"""Ctrl-C during a sweep: exit status 130, one line, and a cache that a rerun can trust."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from optmech.sweep import CACHE_FORMAT
from tests.cli_helpers import without_status

REPO = Path(__file__).resolve().parents[3]


def _valid_entries(cache: Path) -> int:
    """Number of cache entries, after checking that each one is whole and validly signed."""
    from optmech.sweep import _Cache

    entries = list(cache.glob("*.json"))
    reader = _Cache(cache)
    for path in entries:
        entry = json.loads(path.read_text())
        assert entry["format"] == CACHE_FORMAT and entry["key"] == path.stem
        assert reader.load(path.stem)[0]
    assert not [p.name for p in cache.iterdir() if p.name.startswith(".optmech-")]
    return len(entries)


def _start(argv, **kwargs) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "optmech", *argv], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"}, **kwargs)


def _wait_until(process: subprocess.Popen, ready) -> None:
    """Poll ``ready()`` until it holds (a readiness signal, not a duration); fail at once,
    with the command's stderr, if the command ends first."""
    while not ready():
        if process.poll() is not None:
            pytest.fail(f"the command ended before it was ready: {process.stderr.read()}")
        time.sleep(0.05)


@pytest.mark.parametrize("workers", ["1", "2"])
def test_ctrl_c_exits_130_with_one_line_and_a_consistent_cache(tmp_path, workers):
    cache = tmp_path / "cache"
    # 400 cells, about 40 CPU s: still running when the signal comes after the first two (60
    # cells took 0.6 s, and a sweep that had ended by then exited 0)
    argv = ["lattice", "ratio", "--n", "5,6", "--k", "5", "--eps", "0.05:0.6:200", "--cache",
            str(cache), "--workers", workers, "--json"]
    process = _start(argv)
    _wait_until(process, lambda: len(list(cache.glob("*.json"))) >= 2)
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=600)     # guards a hang only
    assert process.returncode == 130, err
    assert out == "" and without_status(err) == ["optmech: interrupted"]
    done = _valid_entries(cache)
    assert 2 <= done < 400
    # The rerun computes only what is missing and never trips over a half-written entry.
    finished = subprocess.run([sys.executable, "-m", "optmech", *argv[:argv.index("--eps")],
                               "--eps", "0.05:0.6:2", *argv[argv.index("--cache"):]],
                              cwd=REPO, capture_output=True, text=True, timeout=600)
    assert finished.returncode == 0 and without_status(finished.stderr) == []


def test_ctrl_c_outside_a_sweep_is_one_line_too():
    """Ctrl-C during a long LP solve: the command's first status line (written at once for
    work estimated at a second or more) says the work has started."""
    process = _start(["secretary", "optimal", "--n", "400", "--eps", "0.1", "--delta", "0"])
    first = process.stderr.readline()
    assert first.startswith("optmech: secretary optimal"), first
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=600)     # guards a hang only
    assert process.returncode == 130 and out == ""
    assert without_status(first + err) == ["optmech: interrupted"]


def test_ctrl_c_while_the_pool_forks_is_not_lost():
    """A Ctrl-C that lands while the pool's workers are being forked (inside the fork
    handlers, where Python drops exceptions) is held and raised once they are."""
    from optmech.sweep.pool import _sigint_held

    reached = []
    with pytest.raises(KeyboardInterrupt):
        with _sigint_held():
            os.kill(os.getpid(), signal.SIGINT)
            pid = os.fork()
            if pid == 0:                    # pragma: no cover - the child exits at once
                os._exit(0)
            os.waitpid(pid, 0)
            reached.append("the block went on")
    assert reached == ["the block went on"]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_ctrl_c_while_the_parser_imports_the_commands_is_one_line(capsys, monkeypatch):
    """From the first instruction of ``main``: Ctrl-C while the commands are imported (the
    first second of a run) is exit 130 and one line, not a traceback."""
    import optmech.cli

    def interrupted(*_):
        raise KeyboardInterrupt

    monkeypatch.setattr(optmech.cli, "build_parser", interrupted)
    assert optmech.cli.main(["select", "pmf"]) == 130
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err == "optmech: interrupted\n"


def test_ctrl_c_after_the_result_is_ignored_by_the_program(capsys, monkeypatch):
    """Run as the program, ``main`` ignores Ctrl-C once its status is known: the
    interpreter's teardown restores the default handler, and a Ctrl-C there killed the
    process by signal (status -2) after the whole result was printed.  Called with
    arguments (as a library), it leaves the caller's handler alone."""
    import optmech.cli

    monkeypatch.setattr(sys, "argv", ["optmech", "select", "pmf", "--mechanism", "em",
                                      "--scores", "0,-1", "--eps", "1", "--json"])
    try:
        assert optmech.cli.main() == 0
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    assert json.loads(capsys.readouterr().out)["schema"] == "optmech.select.pmf/1"
    assert optmech.cli.main(sys.argv[1:]) == 0
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
