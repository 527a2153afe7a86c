"""Progress off a terminal: status lines from the command, nothing from a library call,
nothing with --quiet, and stdout untouched.  No test waits a duration for the background
thread: they write a line on demand, or wait for the lines themselves."""

import json
import os
import subprocess
import sys
import threading

from optmech import progress as progress_module
from optmech.progress import progress, reporting
from tests.cli_helpers import without_status


def test_a_library_call_off_a_terminal_writes_nothing(capsys):
    for _ in progress(range(3), desc="quiet by default"):
        assert isinstance(progress_module._REPORTER.stack, list)
    assert capsys.readouterr().err == ""


def test_status_lines_name_the_nested_loops_and_the_current_item(capsys):
    with reporting(lines=True, quiet=False, interval=3600):
        outer = progress(["a", "b"], desc="outer")
        for name in outer:
            outer.set_postfix_str(name)
            for _ in progress(range(3), desc="inner"):
                progress_module._REPORTER.write_now()
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 6
    assert all(line.startswith("optmech: outer ") and line.endswith(" s") for line in err)
    assert err[-1].startswith("optmech: outer 1/2 (b) > inner 2/3, ")


class _Lines:
    """A stderr that records what is written and says when ``count`` lines have come."""

    def __init__(self, count: int):
        self.text, self.count, self.arrived = "", count, threading.Event()

    def write(self, text: str) -> int:
        self.text += text
        if self.text.count("\n") >= self.count:
            self.arrived.set()
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False


def test_a_single_long_step_still_gets_status_lines(monkeypatch):
    """The background thread writes while one step runs: the step waits until two lines
    have come (a readiness signal; the bound only turns a broken thread into a failure)."""
    stream = _Lines(2)
    monkeypatch.setattr(sys, "stderr", stream)
    with reporting(lines=True, quiet=False, interval=0.01):
        with progress(desc="one long step") as bar:
            bar.set_postfix_str("lower 0.4, upper 0.5")
            assert stream.arrived.wait(600), "no status line from the background thread"
    err = stream.text.splitlines()
    assert err[0].startswith("optmech: one long step (lower 0.4, upper 0.5), ")


def test_the_first_line_of_long_work_comes_at_once(capsys):
    from optmech.progress import activity

    with reporting(lines=True, quiet=False, interval=3600):
        with activity("lattice ratio", at_once=True):
            assert capsys.readouterr().err.startswith("optmech: lattice ratio, ")
        with activity("select pmf"):
            assert capsys.readouterr().err == ""


def test_quiet_wins(capsys):
    with reporting(lines=True, quiet=True, interval=0.01):
        for _ in progress(range(3), desc="x", enabled=True):
            assert progress_module._REPORTER.stack == []        # nothing to report
    assert capsys.readouterr().err == ""


def test_a_forked_child_reports_nothing():
    with reporting(lines=True, interval=0.01):
        pid = os.fork()
        if pid == 0:                                  # pragma: no cover - the child
            os._exit(0 if progress_module._REPORTER.lines is False else 1)
        _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def _command(*extra):
    env = dict(os.environ, OPTMECH_PROGRESS_SECONDS="0.2")
    return subprocess.run([sys.executable, "-m", "optmech", "select", "em-pf-search",
                           "--n", "2,5,20", "--eps", "0.5,1", "--starts", "3", "--seed", "0",
                           "--json", *extra], capture_output=True, text=True, env=env,
                          timeout=300)


def test_the_command_reports_off_a_terminal_and_keeps_stdout_clean():
    done = _command()
    assert done.returncode == 0, done.stderr
    json.loads(done.stdout)
    err = done.stderr.splitlines()
    assert err and all(line.startswith("optmech: select em-pf-search") for line in err), err
    assert without_status(done.stderr) == []
    assert any(" > EM/PF ratio search " in line for line in err), err


def test_quiet_silences_the_command():
    done = _command("--quiet")
    assert done.returncode == 0 and done.stderr == ""
    json.loads(done.stdout)


def test_settings_come_back_after_the_block():
    with reporting(lines=True, quiet=True, interval=1.0):
        pass
    assert (progress_module._REPORTER.lines, progress_module._REPORTER.quiet) == (False, False)
