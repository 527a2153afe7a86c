"""The one table renderer: Markdown cells escaped, every row as wide as its header."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from optmech.tables import (
    TABLE_ENDS,
    TABLE_ROWS,
    bracket_text,
    cell_text,
    markdown_table,
    text_table,
)
from optmech.unbounded import UNBOUNDED
from tools.markdown_tables import cells as _cells
from tools.markdown_tables import table_problems


def test_pipes_and_line_breaks_in_cells_cannot_shift_the_columns():
    rows = [("largest |ratio - 1|", 5.55e-16, "match"), ("a\nb", None, "x | y"),
            ("already \\| escaped", UNBOUNDED, "`code | span`")]
    lines = markdown_table(["check", "value", "outcome"], rows)
    assert [len(_cells(line)) for line in lines] == [3] * 5
    assert _cells(lines[2]) == ["largest |ratio - 1|", "5.55e-16", "match"]
    assert _cells(lines[3]) == ["a b", "—", "x | y"]
    assert _cells(lines[4]) == ["already | escaped", "∞", "`code | span`"]


def test_the_table_checker_finds_a_row_whose_pipe_was_not_escaped():
    good = "\n".join(markdown_table(["check", "outcome"], [("largest |ratio - 1|", "match")]))
    assert table_problems(good) == []
    bad = "| check | outcome |\n|---|---|\n| largest |ratio - 1| | match |\n"
    assert table_problems(bad) == ["line 3: 4 cells, the header has 2"]


def test_a_row_of_the_wrong_width_is_an_error():
    with pytest.raises(ValueError, match="2 cells for 3 columns"):
        markdown_table(["a", "b", "c"], [(1, 2)])


def test_alignment_rule():
    assert markdown_table(["a", "b"], [], align=["left", "right"])[1] == "|:---|---:|"


@pytest.mark.parametrize("value, text", [
    (None, "—"), (UNBOUNDED, "∞"), (0.1 + 0.2, "0.3"), (np.float64(2.5), "2.5"),
    (np.int64(3), "3"), ("x", "x"), (1e-300, "1e-300")])
def test_cell_text(value, text):
    assert cell_text(value) == text


def test_cell_text_digits():
    assert cell_text(math.pi, 10) == "3.141592654"


def test_long_text_tables_show_their_ends():
    rows = [(i, float(i)) for i in range(TABLE_ROWS + 5)]
    text = text_table(["i", "x"], rows)
    body = text.splitlines()
    assert body[-1] == f"({TABLE_ROWS + 5} rows, {2 * TABLE_ENDS} shown; --json prints every one)"
    assert len(body) == 2 + 2 * TABLE_ENDS + 1 + 1



@given(st.floats(allow_nan=False, allow_infinity=False),
       st.floats(allow_nan=False, allow_infinity=False), st.integers(1, 15))
def test_a_bracket_is_printed_outward(a, b, digits):
    """Exactly (fractions of the printed decimals and of the doubles): the printed lower
    end is at most the lower value and the upper end at least the upper one, each within
    one unit of its last printed digit."""
    lower, upper = min(a, b), max(a, b)
    texts = bracket_text(lower, upper, digits)
    assert Fraction(texts[0]) <= Fraction(lower) and Fraction(texts[1]) >= Fraction(upper)
    for value, text in zip((lower, upper), texts):
        assert abs(Fraction(text) - Fraction(value)) <= abs(Fraction(value)) * Fraction(
            10) ** (1 - digits)


def test_a_bracket_reads_like_the_numbers():
    assert bracket_text(467.51789414, 467.53206581) == ("467.51789", "467.53207")
    assert bracket_text(0.99999999999, 9.9999999999) == ("0.99999999", "10")
    assert bracket_text(-1.23456789, 1e300) == ("-1.2345679", "1.0000001e+300")
    assert bracket_text(0.0, 2.0) == ("0", "2")
    # laid out as float's 'g': scientific below 1e-4 and from 10^digits
    for value in (9.689412983e-06, 0.000123456, 1234567.25, 1e-320, 123.0):
        for text in bracket_text(value, value, 6):
            assert ("e" in text) == ("e" in f"{value:.6g}"), (value, text)
