"""Running the ``optmech`` command in-process from the tests."""

import re

import pytest

from optmech.cli import main


def run_cli(capsys, *argv):
    """``(exit status, stdout, stderr)`` of ``optmech ARGV...`` run in this process."""
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def run_cli_error(capsys, *argv):
    """``(exit status, stdout, stderr)`` of a run that must stop with ``SystemExit`` (the
    CLI's way out on bad input)."""
    with pytest.raises(SystemExit) as stop:
        main(list(argv))
    out = capsys.readouterr()
    return stop.value.code, out.out, out.err


# A progress status line off a terminal (optmech.progress): "optmech: <what>, 12 s".
STATUS_LINE = re.compile(r"^optmech: (?!error: |warning: |note: |interrupted$).*, \d+ s$")


def without_status(stderr: str) -> list[str]:
    """The lines of ``stderr`` that are not progress status lines."""
    return [line for line in stderr.splitlines() if not STATUS_LINE.match(line)]


def refusal(capsys, *argv) -> str:
    """The one line of a run refused as bad input: exit status 2, nothing on stdout, one
    line on stderr besides progress status lines, no traceback."""
    code, out, err = run_cli_error(capsys, *argv)
    lines = without_status(err)
    assert code == 2 and out == "" and len(lines) == 1 and "Traceback" not in err, err
    return lines[0]
