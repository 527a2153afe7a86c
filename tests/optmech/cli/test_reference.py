"""docs/cli.md documents every command and every option (it cannot fall behind the parser)."""

import re
from pathlib import Path

import pytest

from optmech.cli import _leaf_parsers, build_parser

REFERENCE = Path(__file__).resolve().parents[3] / "docs" / "cli.md"


def _section(text: str, prog: str) -> str:
    """The part of docs/cli.md under the heading that names ``prog`` (headings that follow
    each other with nothing between them share the section after the last one)."""
    match = re.search(rf"^#+ {re.escape(prog)}$", text, re.M)
    assert match, f"docs/cli.md has no heading '{prog}'"
    rest = text[match.end():]
    while (grouped := re.match(r"\s*\n#+ optmech [^\n]*$", rest, re.M)):
        rest = rest[grouped.end():]
    following = re.search(r"^#{1,3} optmech ", rest, re.M)
    return rest[:following.start()] if following else rest


@pytest.mark.parametrize("leaf", list(_leaf_parsers(build_parser())), ids=lambda p: p.prog)
def test_every_option_is_documented_under_its_command(leaf):
    section = _section(REFERENCE.read_text(), leaf.prog)
    for action in leaf._actions:
        for option in action.option_strings:
            if option.startswith("--") and option != "--help":
                assert f"`{option}`" in section, f"{leaf.prog}: {option} is not documented"


@pytest.mark.parametrize("leaf", list(_leaf_parsers(build_parser())), ids=lambda p: p.prog)
def test_help_text_renders_as_written(leaf):
    """argparse %-formats option help but not descriptions: a doubled ``%%`` or a stray
    ``%(...)s`` must not reach the user."""
    text = leaf.format_help()
    assert "%%" not in text and "%(" not in text, text
