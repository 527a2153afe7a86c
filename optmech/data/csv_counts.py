"""Histogram counts from a ``.csv`` file, in the three shapes a spreadsheet or a script writes.

Accepted (comma-separated, UTF-8 with or without a byte-order mark, blank lines ignored):

1. one count per line, optionally under a one-field header line (``count``, ``n``, ...)::

       count
       3
       0
       9

2. all counts on one line: ``3,0,9,4``;
3. a table whose header line names a column ``count`` (any case), one row per bin; the
   other columns (bin labels, edges) are ignored::

       bin,count
       0-10,3
       10-20,0

A first line is a header when one of its fields is not a number.  Anything else -- several
numeric columns without a header, a header without a ``count`` column, rows of different
lengths, a field that is not a number -- is refused with one
:class:`~optmech.validation.InvalidArgumentError` naming the file and the line.  The counts
themselves (non-negative integers, positive total) are validated by
:func:`optmech.data.datasets.check_histogram`.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from optmech.validation import InvalidArgumentError

__all__ = ["CSV_SHAPES", "read_csv_counts"]

CSV_SHAPES = ("a .csv with one count per line (optionally under a one-field header line), "
              "the counts on one comma-separated line, or a header line naming a 'count' "
              "column")
COUNT_COLUMN = "count"


def _number(field: str) -> float | None:
    """``float(field)``, or None when the field is not a number."""
    try:
        return float(field)
    except ValueError:
        return None


def _refuse(path: Path, why: str) -> InvalidArgumentError:
    return InvalidArgumentError("dataset", str(path), f"{CSV_SHAPES} ({why})")


def _rows(path: Path) -> list[tuple[int, list[str]]]:
    """Non-blank rows as (line number, stripped fields)."""
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:
            rows = [(number, [field.strip() for field in row])
                    for number, row in enumerate(csv.reader(handle), start=1)]
    except (OSError, UnicodeDecodeError, csv.Error) as error:
        raise _refuse(path, f"unreadable: {error}") from None
    return [(number, fields) for number, fields in rows if any(fields)]


def _header_column(path: Path, header: list[str], width: int) -> int:
    """The column holding the counts, given a header line of ``width`` fields."""
    if width == 1:
        return 0
    names = [name.lower() for name in header]
    if names.count(COUNT_COLUMN) != 1:
        raise _refuse(path, f"the header line {','.join(header)!r} has no single "
                            f"{COUNT_COLUMN!r} column")
    return names.index(COUNT_COLUMN)


def read_csv_counts(path) -> np.ndarray:
    """The counts of a ``.csv`` file in one of the shapes of the module docstring, as a float
    array (validated as a histogram by the caller)."""
    path = Path(path)
    rows = _rows(path)
    if not rows:
        return np.zeros(0)
    first_line, first = rows[0]
    has_header = any(_number(field) is None for field in first)
    data = rows[1:] if has_header else rows
    widths = {len(fields) for _, fields in data}
    if len(widths) > 1:
        raise _refuse(path, "rows of different lengths")
    width = widths.pop() if widths else len(first)
    if has_header:
        if len(first) != width:
            raise _refuse(path, f"line {first_line}: the header has {len(first)} fields, the "
                                f"rows {width}")
        column = _header_column(path, first, width)
        cells = [(number, fields[column]) for number, fields in data]
    elif width == 1:
        cells = [(number, fields[0]) for number, fields in data]
    elif len(data) == 1:
        cells = [(first_line, field) for field in first]
    else:
        raise _refuse(path, f"{len(data)} rows of {width} numbers and no header line naming "
                            f"the {COUNT_COLUMN!r} column")
    values = []
    for number, field in cells:
        value = _number(field)
        if value is None:
            raise _refuse(path, f"line {number}: {field!r} is not a number")
        values.append(value)
    return np.array(values, dtype=float)
