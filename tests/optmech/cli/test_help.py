"""Every ``--help`` page (the top level, each area, each command): fits in 80 columns and
ends with an example that parses to a command of that page; the light examples run (exit
status 0, no error on stderr)."""

import shlex

import pytest

from optmech.cli import _all_parsers, build_parser
from optmech.cli._common import example_lines
from tests.cli_helpers import run_cli, without_status

# Examples cheap enough to run here (under a second each); the others are only parsed here
# (a reproduction, the benchmarks, LP sweeps; select em-pf-search and proofs check run with
# the same arguments in test_schemas.py).  An area page's example is named by the area.
RUN = {"optmech", "optmech select", "optmech select pmf", "optmech select error",
       "optmech select sample", "optmech lattice", "optmech lattice solve", "optmech topk",
       "optmech multiselect cost", "optmech multiselect sample", "optmech secretary",
       "optmech secretary profile", "optmech data"}
def _all_pages(monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")          # argparse wraps to the terminal's width
    return list(_all_parsers(build_parser()))


def _example(page) -> list[str]:
    assert page.epilog and page.epilog.startswith("example: optmech "), page.prog
    return shlex.split(page.epilog.removeprefix("example: "))


def test_every_page_has_an_example_of_a_command_under_it(monkeypatch):
    parser = build_parser()
    pages = _all_pages(monkeypatch)
    assert len(pages) > 30 and {p.prog for p in pages} >= {"optmech", "optmech select"}
    for page in pages:
        argv = _example(page)
        args = parser.parse_args(argv[1:])
        assert (args._prog + " ").startswith(page.prog + " "), (page.prog, argv)


def test_every_page_fits_in_80_columns(monkeypatch):
    """Every line, the example included: a long example is broken between options into
    lines ending in `` \\``, which a shell reads as the one command of the epilog."""
    for page in _all_pages(monkeypatch):
        text = page.format_help()
        too_wide = [line for line in text.splitlines() if len(line) > 80]
        assert too_wide == [], (page.prog, too_wide)
        if page.epilog:
            shown = text[text.index("example: "):]
            assert shlex.split(shown.replace("\\\n", " ")) == shlex.split(page.epilog), \
                page.prog


def test_a_long_example_breaks_between_options_only():
    text = ("example: optmech topk sample --mechanism gumbel --scores 3,1,2 --top 2 --eps 1 "
            "--size 5")
    lines = example_lines(text, 78)
    assert lines == ["example: optmech topk sample --mechanism gumbel --scores 3,1,2 --top 2 \\",
                     "    --eps 1 --size 5"]
    assert example_lines("example: optmech data", 78) == ["example: optmech data"]
    # an option wider than the line stays whole, on a line of its own
    wide = example_lines("example: optmech x --scores " + "1," * 50 + "1 --eps 1", 40)
    assert wide[1] == "    --scores " + "1," * 50 + "1 \\" and wide[2] == "    --eps 1"


@pytest.mark.parametrize("prog", sorted(RUN))
def test_light_examples_run(prog, capsys, monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    (page,) = [page for page in _all_pages(monkeypatch) if page.prog == prog]
    code, out, err = run_cli(capsys, *_example(page)[1:], "--quiet")
    assert code == 0 and out and without_status(err) == [], (prog, err)
