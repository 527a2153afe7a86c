"""How results show in a notebook and leave as tables: one helper for every result class.

Two mixins, declared once per class instead of written out in each:

* :class:`Displayed` gives a short constructor-style ``repr`` and an HTML ``_repr_html_``
  (a small two-column table, the one Jupyter shows when a cell ends in the object).  A class
  declares its key numbers as attribute names in ``_display`` (properties count), e.g.
  ``_display = ("n", "k", "epsilon", "total_error", "gap", "status")``; one whose table
  shows more (computed entries) overrides :meth:`Displayed._display_items`.  Arrays are summarised
  (``[0.1, 0.2, ..., 2.0]``), never printed in full, so an LP with millions of columns
  has a repr of a few hundred characters.
* :class:`Tabular` is for results that are tables (sweeps, curves, bands, report rows):
  :meth:`Tabular.records` lists the rows as dicts, :meth:`Tabular.to_frame` makes a
  ``pandas.DataFrame`` of them and :meth:`Tabular.to_csv` writes them with the standard
  :mod:`csv` module (no pandas needed).  :class:`ResultList` is a list of such results
  that is itself one table (e.g. the curves of a sweep, one block of rows per curve), shown
  in a notebook as an HTML table of its rows (:func:`html_records`).

pandas is optional (``pip install 'optmech[pandas]'``); without it :func:`data_frame`
raises an ``ImportError`` that names the extra.  Numbers go into a CSV file as Python's
shortest round-trip text (``repr``), so reading the file back gives the same doubles.

This module sits in :mod:`lp_models`, the lowest layer, so that :class:`LinearProgram
<lp_models.program.LinearProgram>` and every result class above it share it.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Iterable, Sequence

import numpy as np

__all__ = ["Displayed", "ResultList", "Tabular", "data_frame", "html_records", "html_table",
           "joined", "short_repr", "value_text", "write_csv"]

# An array of at most this many entries is shown in full, a longer one by its ends.
_SHOWN = 6
_HTML_DIGITS = 8
# A table of records longer than twice this shows its first and last this many rows.
_HTML_ENDS = 10


def _plain(value: Any) -> Any:
    """numpy scalars as Python numbers (``np.float64(0.5)`` -> ``0.5``)."""
    return value.item() if isinstance(value, np.generic) else value


def _summary(values: Sequence, text) -> str:
    """``[a, b, c]``, or ``[a, b, c, ..., z]`` beyond ``_SHOWN`` entries."""
    items = list(values)
    if len(items) > _SHOWN:
        return "[" + ", ".join([*map(text, items[:3]), "...", text(items[-1])]) + "]"
    return "[" + ", ".join(map(text, items)) + "]"


def short_repr(value: Any) -> str:
    """``repr(value)``, with arrays and long sequences summarised by their ends and numpy
    scalars shown as Python numbers (the arguments of a short constructor-style repr)."""
    value = _plain(value)
    if isinstance(value, np.ndarray):
        if value.ndim != 1:
            return f"<array of shape {value.shape}>"
        return _summary(value.tolist(), short_repr)
    if isinstance(value, (list, tuple)) and len(value) > _SHOWN:
        return _summary(value, short_repr)
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {short_repr(v)}" for k, v in value.items()) + "}"
    return repr(value)


def value_text(value: Any, digits: int = _HTML_DIGITS) -> str:
    """A value as table text: floats with ``digits`` significant digits, ``None`` as ``—``,
    +inf as ``∞``, arrays and long sequences summarised by their ends."""
    value = _plain(value)
    if value is None:
        return "—"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        return "∞" if value == math.inf else f"{value:.{digits}g}"
    if isinstance(value, np.ndarray):
        if value.ndim != 1:
            return f"array of shape {value.shape}"
        return _summary(value.tolist(), lambda v: value_text(v, digits))
    if isinstance(value, (list, tuple)):
        return _summary(value, lambda v: value_text(v, digits))
    if isinstance(value, dict):
        return ", ".join(f"{k}: {value_text(v, digits)}" for k, v in value.items())
    return str(value)


def html_table(title: str, items: Iterable[tuple[str, Any]]) -> str:
    """A small HTML table: ``title`` as its heading, then one row per ``(name, value)``
    (values through :func:`value_text`, everything escaped)."""
    return _html_rows(title, 2, [[name, value] for name, value in items])


def html_records(title: str, records: Sequence[dict]) -> str:
    """An HTML table of ``records`` (one dict per row, columns in the order first seen):
    ``title`` and the row count as its heading, a header row, then the rows; beyond
    ``2 * _HTML_ENDS`` rows the first and last ``_HTML_ENDS`` around a row of dots."""
    columns = _columns(records)
    total = len(records)
    rows = [[record.get(c) for c in columns] for record in records]
    if total > 2 * _HTML_ENDS:
        rows = [*rows[:_HTML_ENDS], ["…"] * len(columns), *rows[total - _HTML_ENDS:]]
    return _html_rows(f"{title} ({total} rows)", max(len(columns), 1), rows, header=columns)


def _html_rows(title: str, width: int, rows: Iterable[Sequence[Any]],
               header: Sequence[str] = ()) -> str:
    """``<table>``: ``title`` across ``width`` columns, the ``header`` cells, then ``rows``
    (values through :func:`value_text`, everything escaped)."""
    # imported here, not at the top: the CLI imports this module at start-up
    import html

    left = ' style="text-align: left"'
    lines = [f"<tr><th colspan=\"{width}\"{left}>{html.escape(title)}</th></tr>"]
    if header:
        lines.append("<tr>" + "".join(f"<th{left}>{html.escape(str(name))}</th>"
                                      for name in header) + "</tr>")
    lines += ["<tr>" + "".join(f"<td{left}>{html.escape(value_text(value))}</td>"
                               for value in row) + "</tr>" for row in rows]
    return "<table>\n" + "\n".join(lines) + "\n</table>"


class Displayed:
    """Mixin: a short constructor-style ``__repr__`` from the attribute names in
    ``_display`` and a ``_repr_html_`` table of the same key numbers (a class that shows
    more in the table overrides :meth:`_display_items`).  A dataclass using it sets
    ``repr=False`` so that the dataclass does not write its own ``__repr__``."""

    _display: tuple[str, ...] = ()

    def _repr_items(self) -> list[tuple[str, Any]]:
        """``(name, value)`` of the attributes named in ``_display``, in order."""
        return [(name, getattr(self, name)) for name in self._display]

    def _display_items(self) -> list[tuple[str, Any]]:
        """The rows of the HTML table (by default those of the repr)."""
        return self._repr_items()

    def _display_title(self) -> str:
        """The heading of the HTML table: the class name."""
        return type(self).__name__

    def __repr__(self) -> str:
        arguments = ", ".join(f"{name}={short_repr(value)}"
                              for name, value in self._repr_items())
        return f"{type(self).__name__}({arguments})"

    def _repr_html_(self) -> str:
        return html_table(self._display_title(), self._display_items())


def joined(*parts: dict) -> dict:
    """The union of ``parts`` (dicts of columns), refusing a column that two parts name
    (``ValueError``): one record of a table built from several groups of columns."""
    out: dict = {}
    for part in parts:
        clash = out.keys() & part.keys()
        if clash:
            raise ValueError(f"column {sorted(clash)[0]!r} is named twice")
        out.update(part)
    return out


def _columns(records: Sequence[dict]) -> list[str]:
    """Every key of ``records``, in the order first seen."""
    return list(dict.fromkeys(key for record in records for key in record))


def data_frame(records: Sequence[dict]):
    """``pandas.DataFrame`` of ``records`` (one dict per row; columns in the order first
    seen).  Raises ``ImportError`` naming the optional extra when pandas is missing."""
    try:
        import pandas
    except ImportError:
        raise ImportError("to_frame() needs pandas, an optional dependency of optmech: "
                          "pip install 'optmech[pandas]'") from None
    records = [{key: _plain(value) for key, value in record.items()} for record in records]
    return pandas.DataFrame.from_records(records, columns=_columns(records))


def _csv_cell(value: Any) -> str:
    value = _plain(value)
    if value is None:
        return ""
    if isinstance(value, float):
        return repr(float(value))        # shortest round-trip text; +inf as "inf"
    return str(value)


def write_csv(path, records: Sequence[dict]) -> Path:
    """Write ``records`` (one dict per row) to ``path`` as CSV with a header row (columns in
    the order first seen; a key missing from a row is an empty cell), whole or not at all
    (:mod:`lp_models.atomic`).  Returns the path."""
    import csv

    from lp_models.atomic import atomic_write

    path = Path(path)
    columns = _columns(records)
    with atomic_write(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(columns)
        writer.writerows([_csv_cell(record.get(c)) for c in columns] for record in records)
    return path


class Tabular:
    """Mixin for a result that is a table: subclasses implement :meth:`records`."""

    def records(self) -> list[dict]:
        """The rows of the table, one dict per row (column name -> value)."""
        raise NotImplementedError

    def to_frame(self):
        """The table as a ``pandas.DataFrame`` (pandas: ``pip install 'optmech[pandas]'``)."""
        return data_frame(self.records())

    def to_csv(self, path) -> Path:
        """Write the table to ``path`` as CSV (standard :mod:`csv` module; no pandas)."""
        return write_csv(path, self.records())


class ResultList(list, Tabular):
    """A list of :class:`Tabular` results that is one table: its :meth:`records` are those
    of its items in order (e.g. the curves of a sweep, one block of rows per curve); in a
    notebook it shows as that table (:func:`html_records`)."""

    def records(self) -> list[dict]:
        return [record for item in self for record in item.records()]

    def _repr_html_(self) -> str:
        kinds = sorted({type(item).__name__ for item in self})
        return html_records(f"{len(self)} × {' / '.join(kinds) or 'result'}", self.records())
