"""Every Python example in README.md and the user guide runs and prints what the document
says (doctest)."""

import doctest
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GUIDES = [ROOT / "README.md", *sorted((ROOT / "docs" / "guide").glob("*.md"))]


@pytest.mark.parametrize("guide", GUIDES, ids=[g.stem for g in GUIDES])
def test_guide_examples(guide):
    result = doctest.testfile(str(guide), module_relative=False, verbose=False,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{guide.name} has no examples"
    assert result.failed == 0, f"{result.failed} example(s) in {guide.name} failed"
