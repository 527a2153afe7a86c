"""Every command's ``--help``: fits in 80 columns and ends with an example that parses to
that command; the light examples run (exit status 0, no error on stderr)."""

import shlex

import pytest

from optmech.cli import _leaf_parsers, build_parser
from tests.cli_helpers import run_cli, without_status

# Examples cheap enough to run here (under a second each); the others are only parsed here
# (a reproduction, the benchmarks, LP sweeps; select em-pf-search and proofs check run with
# the same arguments in test_schemas.py).
RUN = {"optmech select pmf", "optmech select error", "optmech select sample",
       "optmech lattice solve", "optmech multiselect cost", "optmech multiselect sample",
       "optmech secretary profile", "optmech data"}


def _leaves(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")          # argparse wraps to the terminal's width
    return list(_leaf_parsers(build_parser()))


def _example(leaf) -> list[str]:
    assert leaf.epilog and leaf.epilog.startswith("example: optmech "), leaf.prog
    return shlex.split(leaf.epilog.removeprefix("example: "))


def test_every_command_has_an_example_of_itself(monkeypatch):
    parser = build_parser()
    for leaf in _leaves(monkeypatch):
        argv = _example(leaf)
        args = parser.parse_args(argv[1:])
        assert args._prog == leaf.prog, (leaf.prog, argv)


def test_help_fits_in_80_columns(monkeypatch):
    """Every line but the example, which is one unbroken line to copy (an example that
    fits: ``privacy pair``'s shortest, with its four required options, is 81 characters)."""
    for leaf in _leaves(monkeypatch):
        text = leaf.format_help()
        too_wide = [line for line in text.splitlines()
                    if len(line) > 80 and line != leaf.epilog]
        assert too_wide == [], (leaf.prog, too_wide)
        assert leaf.epilog in text.splitlines(), leaf.prog
        assert len(leaf.epilog) <= 88, leaf.prog


@pytest.mark.parametrize("prog", sorted(RUN))
def test_light_examples_run(prog, capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    (leaf,) = [leaf for leaf in _leaves(monkeypatch) if leaf.prog == prog]
    code, out, err = run_cli(capsys, *_example(leaf)[1:], "--quiet")
    assert code == 0 and out and without_status(err) == [], (prog, err)
