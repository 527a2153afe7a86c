"""Every example in the user guide runs and prints what the guide says (doctest)."""

import doctest
from pathlib import Path

import pytest

GUIDES = sorted((Path(__file__).resolve().parent.parent / "docs" / "guide").glob("*.md"))


@pytest.mark.parametrize("guide", GUIDES, ids=[g.stem for g in GUIDES])
def test_guide_examples(guide):
    result = doctest.testfile(str(guide), module_relative=False, verbose=False,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{guide.name} has no examples"
    assert result.failed == 0, f"{result.failed} example(s) in {guide.name} failed"
