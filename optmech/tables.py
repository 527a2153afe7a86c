"""The one table renderer: aligned text tables for the terminal, Markdown tables for files.

Every table optmech prints or writes goes through here, so cells are formatted and escaped
in one place:

* :func:`cell_text` turns a value into its cell: ``None`` -> ``—`` (undefined for this row),
  :data:`~optmech.unbounded.UNBOUNDED` -> ``∞``, floats with a given number of significant
  digits, numpy scalars as Python numbers;
* :func:`markdown_table` writes a GitHub-flavoured Markdown table whose every row has as
  many cells as its header: a ``|`` inside a cell is escaped (``\\|``) and line breaks are
  folded into spaces, so no cell text can shift the columns;
* :func:`text_table` is the aligned plain-text table of the command line (``tabulate``'s
  "simple" style): numbers to the right, text to the left; beyond :data:`TABLE_ROWS` rows it
  shows the first and last :data:`TABLE_ENDS` around a row of dots;
* :func:`bracket_text` prints a certified bracket rounded outward, so that the printed ends
  are still bounds.
"""

from __future__ import annotations

import math
from decimal import ROUND_CEILING, ROUND_FLOOR, Decimal
from typing import Any, Sequence

import numpy as np

from optmech.unbounded import Unbounded

__all__ = ["TABLE_ENDS", "TABLE_ROWS", "NumberText", "bracket_text", "cell_text", "markdown_cell",
           "markdown_table", "text_table"]

# A text table longer than this shows its first and last rows only (``--json`` has them all).
TABLE_ROWS = 1000
TABLE_ENDS = 20


def cell_text(value: Any, digits: int = 6) -> str:
    """``value`` as table text: floats with ``digits`` significant digits, ``None`` as
    ``—``, an unbounded result as ``∞``, anything else as ``str``."""
    if isinstance(value, (np.generic, np.ndarray)):
        value = value.tolist()
    if value is None:
        return "—"
    if isinstance(value, Unbounded):
        return "∞"
    if isinstance(value, float):
        return f"{value:.{digits}g}"
    return str(value)


class NumberText(str):
    """A number already printed (:func:`bracket_text`): a table aligns it as a number."""


def bracket_text(lower: float, upper: float, digits: int = 8) -> tuple[str, str]:
    """The ends of a certified bracket ``[lower, upper]`` with ``digits`` significant digits,
    ``lower`` rounded down and ``upper`` up (from their exact binary values), so the text
    still brackets what the numbers do; rounding to nearest printed a lower bound above
    itself.  Both are :class:`NumberText`."""
    return _rounded(lower, digits, ROUND_FLOOR), _rounded(upper, digits, ROUND_CEILING)


def _rounded(value: float, digits: int, rounding: str) -> NumberText:
    value = float(value)
    if value == 0 or not math.isfinite(value):
        return NumberText(f"{value:.{digits}g}")
    exact = Decimal(value)
    quantum = Decimal(1).scaleb(exact.adjusted() - digits + 1)
    rounded = exact.quantize(quantum, rounding=rounding)
    # printed from the decimal itself (its nearest double may be on the wrong side of the
    # value: subnormals keep a few digits), laid out as float's 'g' lays it out
    power = rounded.adjusted()
    if -4 <= power < digits:
        mantissa, exponent = f"{rounded:f}", ""
    else:
        mantissa = f"{rounded.scaleb(-power):f}"
        exponent = f"e{'-' if power < 0 else '+'}{abs(power):02d}"
    if "." in mantissa:
        mantissa = mantissa.rstrip("0").rstrip(".")
    return NumberText(mantissa + exponent)


def markdown_cell(value: Any, digits: int = 6) -> str:
    """:func:`cell_text`, escaped for a Markdown table cell (``|`` -> ``\\|``, line breaks
    folded)."""
    text = cell_text(value, digits)
    return " ".join(text.split()).replace("\\|", "|").replace("|", "\\|")


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], *,
                   align: Sequence[str] | None = None, digits: int = 6) -> list[str]:
    """The lines of a Markdown table (header, rule, one line per row).

    ``align`` gives each column ``"left"``, ``"right"`` or ``"center"`` (default: none
    stated).  Every row must have as many cells as ``headers`` (``ValueError`` otherwise).
    """
    width = len(headers)
    if align is not None and len(align) != width:
        raise ValueError(f"align has {len(align)} entries for {width} columns")
    rules = {"left": ":---", "right": "---:", "center": ":---:", None: "---"}
    rule = [rules[a] for a in align] if align is not None else ["---"] * width
    lines = ["| " + " | ".join(markdown_cell(h) for h in headers) + " |",
             "|" + "|".join(rule) + "|"]
    for row in rows:
        if len(row) != width:
            raise ValueError(f"a row has {len(row)} cells for {width} columns: {row!r}")
        lines.append("| " + " | ".join(markdown_cell(v, digits) for v in row) + " |")
    return lines


def text_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """An aligned text table (``tabulate``, "simple" style): text columns to the left,
    numbers to the right, floats with 10 significant digits.  Beyond ``TABLE_ROWS`` rows,
    the first and last ``TABLE_ENDS`` are shown around a row of dots, and a last line says
    how many there are."""
    from tabulate import tabulate

    total = len(rows)
    shown = rows if total <= TABLE_ROWS else [*rows[:TABLE_ENDS], *rows[total - TABLE_ENDS:]]
    body = [[cell_text(v, 10) for v in row] for row in shown]
    if total > TABLE_ROWS:
        body.insert(TABLE_ENDS, ["..."] * len(headers))
    table = tabulate(body, headers=list(headers), tablefmt="simple", disable_numparse=True,
                     colalign=_alignments(shown, len(headers)))
    if total > TABLE_ROWS:
        table += f"\n({total} rows, {2 * TABLE_ENDS} shown; --json prints every one)"
    return table


def _alignments(rows: Sequence[Sequence[Any]], width: int) -> tuple[str, ...]:
    """Right for a column of numbers, left otherwise."""
    def numeric(v):
        return isinstance(v, (int, float, np.integer, np.floating, NumberText)) \
            and not isinstance(v, bool)

    return tuple("right" if len(rows) and all(numeric(row[i]) for row in rows) else "left"
                 for i in range(width))
