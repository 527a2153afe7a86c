"""Running the ``optmech`` command in-process from the tests."""

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
