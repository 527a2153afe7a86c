"""Running the ``optmech`` command in-process from the tests."""

from optmech.cli import main


def run_cli(capsys, *argv):
    """``(exit status, stdout, stderr)`` of ``optmech ARGV...`` run in this process."""
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err
