"""The display helper: short reprs, HTML tables, records to pandas and CSV."""

import csv
import math
import sys
from dataclasses import dataclass

import numpy as np
import pytest

from lp_models.display import (
    Displayed,
    ResultList,
    Tabular,
    data_frame,
    html_table,
    joined,
    short_repr,
    value_text,
    write_csv,
)


@dataclass(frozen=True, repr=False)
class Point(Displayed, Tabular):
    name: str
    values: np.ndarray
    score: float

    _display = ("name", "score", "values")

    def records(self):
        return [{"name": self.name, "index": i, "value": float(v)}
                for i, v in enumerate(self.values)]


def test_short_repr_summarises_arrays_and_numpy_scalars():
    assert short_repr(np.float64(0.5)) == "0.5"
    assert short_repr(np.arange(3.0)) == "[0.0, 1.0, 2.0]"
    assert short_repr(np.arange(10**6)) == "[0, 1, 2, ..., 999999]"
    assert short_repr(np.zeros((2, 3))) == "<array of shape (2, 3)>"
    assert short_repr({"pf": np.ones(2)}) == "{'pf': [1.0, 1.0]}"
    assert short_repr("a'b") == repr("a'b")


def test_value_text_formats_for_tables():
    assert value_text(None) == "—"
    assert value_text(math.inf) == "∞"
    assert value_text(1 / 3) == "0.33333333"
    assert value_text(True) == "True"
    assert value_text(list(range(10))) == "[0, 1, 2, ..., 9]"


def test_repr_and_html_come_from_the_declaration():
    p = Point("a<b>", np.arange(100.0), 0.25)
    assert repr(p) == "Point(name='a<b>', score=0.25, values=[0.0, 1.0, 2.0, ..., 99.0])"
    html = p._repr_html_()
    assert html.startswith("<table>") and html.endswith("</table>")
    assert "a&lt;b&gt;" in html and "a<b>" not in html        # escaped
    assert html.count("<tr>") == 1 + 3                           # heading + one row per item


def test_html_table_escapes_names_and_values():
    text = html_table("T & U", [("x<y", "<script>")])
    assert "T &amp; U" in text and "x&lt;y" in text and "&lt;script&gt;" in text


def test_records_to_csv_round_trip_exact_doubles(tmp_path):
    values = np.array([0.1, 1 / 3, 2.0 ** -1074, 1e308, -0.0])
    path = Point("p", values, 1.0).to_csv(tmp_path / "p.csv")
    with open(path, newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["name"] for r in rows] == ["p"] * values.size
    assert [float(r["value"]) for r in rows] == values.tolist()       # bit for bit
    assert [int(r["index"]) for r in rows] == list(range(values.size))


def test_write_csv_unions_columns_and_leaves_missing_cells_empty(tmp_path):
    path = write_csv(tmp_path / "t.csv", [{"a": 1}, {"b": "x", "a": None}])
    assert path.read_text().splitlines() == ["a,b", "1,", ",x"]


def test_result_list_is_one_table():
    curves = ResultList([Point("p", np.arange(2.0), 0), Point("q", np.arange(3.0), 0)])
    records = curves.records()
    assert [r["name"] for r in records] == ["p", "p", "q", "q", "q"]
    frame = curves.to_frame()
    assert list(frame.columns) == ["name", "index", "value"]
    assert frame["value"].tolist() == [0.0, 1.0, 0.0, 1.0, 2.0]


def test_result_list_shows_as_an_html_table_of_its_rows():
    curves = ResultList([Point("p<", np.arange(2.0), 0), Point("q", np.arange(3.0), 0)])
    html = curves._repr_html_()
    assert "2 × Point (5 rows)" in html
    assert html.count("<tr>") == 2 + 5 and html.count("<th") == 1 + 3   # title, header, rows
    assert "p&lt;" in html and "p<" not in html
    long = ResultList([Point("r", np.arange(25.0), 0)])._repr_html_()
    assert "(25 rows)" in long and "…" in long
    assert ">24<" in long and ">9<" in long and ">10<" not in long      # first 10, last 10


def test_missing_pandas_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)          # import pandas -> ImportError
    with pytest.raises(ImportError, match=r"optmech\[pandas\]"):
        data_frame([{"a": 1}])


def test_joined_refuses_a_column_named_twice():
    assert joined({"a": 1}, {"b": 2}) == {"a": 1, "b": 2}
    with pytest.raises(ValueError, match="'a'"):
        joined({"a": 1}, {"a": 2})
