"""Ctrl-C (SIGINT) and SIGTERM: exit status 130 / 143, one line, a cache that a rerun can
trust, no output file nor temporary file left by a write they stop (and one left by SIGKILL
removed by the next run), and ``lattice bound``'s bracket printed.

Every signal is sent after a readiness signal (a cached cell, a status line, a line the
writer prints once its file is open), never after a delay."""

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
# (signal, exit status, the one line)
STOPS = [pytest.param(signal.SIGINT, 130, "optmech: interrupted", id="SIGINT"),
         pytest.param(signal.SIGTERM, 143, "optmech: terminated", id="SIGTERM")]


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


def _start(argv, **env) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "optmech", *argv], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1", **env})


def _wait_until(process: subprocess.Popen, ready) -> None:
    """Poll ``ready()`` until it holds (a readiness signal, not a duration); fail at once,
    with the command's stderr, if the command ends first."""
    while not ready():
        if process.poll() is not None:
            pytest.fail(f"the command ended before it was ready: {process.stderr.read()}")
        time.sleep(0.05)


@pytest.mark.parametrize("workers, signum, status, line",
                         [pytest.param("1", *STOPS[0].values, id="1-SIGINT"),
                          *(pytest.param("2", *stop.values, id=f"2-{stop.id}") for stop in STOPS)])
def test_a_stopped_sweep_is_one_line_and_leaves_a_consistent_cache(tmp_path, workers, signum,
                                                                     status, line):
    cache = tmp_path / "cache"
    # 400 cells, about 40 CPU s: still running when the signal comes after the first two (60
    # cells took 0.6 s, and a sweep that had ended by then exited 0)
    argv = ["lattice", "ratio", "--n", "5,6", "--k", "5", "--eps", "0.05:0.6:200", "--cache",
            str(cache), "--workers", workers, "--json"]
    process = _start(argv)
    _wait_until(process, lambda: len(list(cache.glob("*.json"))) >= 2)
    process.send_signal(signum)
    out, err = process.communicate(timeout=600)     # guards a hang only
    assert process.returncode == status, err
    assert out == "" and without_status(err) == [line]
    done = _valid_entries(cache)
    assert 2 <= done < 400
    # The rerun computes only what is missing and never trips over a half-written entry.
    finished = subprocess.run([sys.executable, "-m", "optmech", *argv[:argv.index("--eps")],
                               "--eps", "0.05:0.6:2", *argv[argv.index("--cache"):]],
                              cwd=REPO, capture_output=True, text=True, timeout=600)
    assert finished.returncode == 0 and without_status(finished.stderr) == []


@pytest.mark.parametrize("signum, status, line", STOPS)
def test_a_stop_outside_a_sweep_is_one_line_too(signum, status, line):
    """Ctrl-C or SIGTERM during a long LP solve: the command's first status line (written at
    once for work estimated at a second or more) says the work has started."""
    process = _start(["secretary", "optimal", "--n", "400", "--eps", "0.1", "--delta", "0"])
    first = process.stderr.readline()
    assert first.startswith("optmech: secretary optimal"), first
    process.send_signal(signum)
    out, err = process.communicate(timeout=600)     # guards a hang only
    assert process.returncode == status and out == ""
    assert without_status(first + err) == [line]


# A command that writes a file, run so that its writer stops once the file is open and half
# written: it says so on stderr and waits for its stdin (which the test never closes), where
# a signal finds it.  The command is run as the console script runs it (main()).
_BLOCKING_WRITER = """
import csv, sys
from optmech.cli import main
plain = csv.writer
class Blocking:
    def __init__(self, handle):
        self.handle, self.rows = handle, plain(handle)
    def writerow(self, row):
        self.rows.writerow(row)
        self.handle.flush()
        print("test: writing", file=sys.stderr, flush=True)
        sys.stdin.read()
    def writerows(self, rows):
        self.rows.writerows(rows)
csv.writer = Blocking
sys.argv = ["optmech", *sys.argv[1:]]
sys.exit(main())
"""
_WRITES_CSV = ["lattice", "ratio", "--n", "3", "--k", "2", "--eps", "1", "--quiet", "--csv"]


def _temporaries(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(".optmech-"))


def _writer_stopped_mid_write(folder: Path, signum) -> subprocess.CompletedProcess:
    process = subprocess.Popen([sys.executable, "-c", _BLOCKING_WRITER, *_WRITES_CSV,
                                str(folder / "table.csv")], cwd=REPO, stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    ready = process.stderr.readline()
    assert ready == "test: writing\n", ready + process.stderr.read()
    assert len(_temporaries(folder)) == 1          # the half-written file, under its name
    process.send_signal(signum)
    out, err = process.communicate(timeout=600)     # guards a hang only
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


@pytest.mark.parametrize("signum, status, line", STOPS)
def test_a_file_being_written_when_stopped_does_not_appear(tmp_path, signum, status, line):
    stopped = _writer_stopped_mid_write(tmp_path, signum)
    assert stopped.returncode == status and without_status(stopped.stderr) == [line]
    assert list(tmp_path.iterdir()) == []           # neither the table nor a temporary file


def test_a_temporary_left_by_sigkill_is_removed_by_the_next_run(tmp_path):
    killed = _writer_stopped_mid_write(tmp_path, signal.SIGKILL)
    assert killed.returncode == -signal.SIGKILL
    assert len(_temporaries(tmp_path)) == 1         # what a killed writer cannot clean up
    later = subprocess.run([sys.executable, "-m", "optmech", *_WRITES_CSV,
                            str(tmp_path / "other.csv")], cwd=REPO, capture_output=True,
                           text=True, timeout=600)
    assert later.returncode == 0, later.stderr
    assert _temporaries(tmp_path) == [] and [p.name for p in tmp_path.iterdir()] == ["other.csv"]


@pytest.mark.parametrize("signum, status, line", STOPS)
def test_a_stopped_lattice_bound_prints_the_certified_bracket_it_has(signum, status, line):
    """The signal comes once a status line shows a bracket (the loop runs: --tol 1e-15 is
    never reached before the 600-s default time limit); the JSON printed is the command's,
    with status "interrupted", and its bracket holds the exact optimum."""
    from optmech.lattice.optimum import solve_lattice
    from optmech.schemas import validate

    process = _start(["lattice", "bound", "--n", "5", "--k", "5", "--eps", "0.5", "--tol",
                      "1e-15", "--json"], OPTMECH_PROGRESS_SECONDS="0.05")
    seen = ""
    while "upper" not in seen:
        more = process.stderr.readline()
        assert more, f"the command ended before a bracket was shown: {seen}"
        seen += more
    process.send_signal(signum)
    out, err = process.communicate(timeout=600)     # guards a hang only
    assert process.returncode == status and without_status(seen + err) == [line], err
    result = json.loads(out)
    validate(result)
    assert result["status"] == "interrupted"
    optimum = solve_lattice(5, 5, 0.5).total_error
    assert result["lower"] <= optimum <= result["upper"]


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_while_the_pool_forks_is_not_lost(signum):
    """A Ctrl-C or SIGTERM that lands while the pool's workers are being forked (inside the
    fork handlers, where Python drops exceptions) is held and raised once they are."""
    from optmech.cli import Terminated, _terminate
    from optmech.sweep.pool import _signals_held

    reached = []
    previous = signal.signal(signal.SIGTERM, _terminate)      # as optmech.cli.main does
    try:
        with pytest.raises(Terminated if signum == signal.SIGTERM else KeyboardInterrupt):
            with _signals_held():
                os.kill(os.getpid(), signum)
                pid = os.fork()
                if pid == 0:                    # pragma: no cover - the child exits at once
                    os._exit(0)
                os.waitpid(pid, 0)
                reached.append("the block went on")
        assert signal.getsignal(signal.SIGTERM) is _terminate
    finally:
        signal.signal(signal.SIGTERM, previous)
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


def test_signals_after_the_result_are_ignored_by_the_program(capsys, monkeypatch):
    """Run as the program, ``main`` ignores Ctrl-C and SIGTERM once its status is known: the
    interpreter's teardown restores the default handler, and a Ctrl-C there killed the
    process by signal (status -2) after the whole result was printed.  Called with
    arguments (as a library), it leaves the caller's handlers as they were."""
    import optmech.cli

    monkeypatch.setattr(sys, "argv", ["optmech", "select", "pmf", "--mechanism", "em",
                                      "--scores", "0,-1", "--eps", "1", "--json"])
    saved = signal.getsignal(signal.SIGTERM)
    try:
        assert optmech.cli.main() == 0
        assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
        assert signal.getsignal(signal.SIGTERM) is signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, saved)
    assert json.loads(capsys.readouterr().out)["schema"] == "optmech.select.pmf/1"
    assert optmech.cli.main(sys.argv[1:]) == 0
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert signal.getsignal(signal.SIGTERM) is saved


def test_sigterm_inside_a_library_call_of_main_is_status_143(capsys, monkeypatch):
    """``main(argv)`` turns SIGTERM into :class:`~optmech.cli.Terminated` while it runs: one
    line and status 143, as Ctrl-C is one line and 130."""
    import optmech.cli

    def terminated(*_):
        os.kill(os.getpid(), signal.SIGTERM)
        raise AssertionError("the signal did not stop the run")   # pragma: no cover

    monkeypatch.setattr(optmech.cli, "build_parser", terminated)
    saved = signal.getsignal(signal.SIGTERM)
    assert optmech.cli.main(["select", "pmf"]) == 143
    assert capsys.readouterr().err == "optmech: terminated\n"
    assert signal.getsignal(signal.SIGTERM) is saved
