"""``emit``: the one place a command's result is printed, refused when not finite."""

import argparse
import json
import re

import numpy as np
import pytest

import optmech
from optmech.cli._common import emit
from optmech.unbounded import UNBOUNDED
from optmech.validation import NonFiniteResultError

ENVELOPE = {"optmech_version": optmech.__version__, "schema": "optmech.select.error/1"}


def _emit(payload, capsys, json_output=True):
    """What ``emit`` prints for ``payload`` as ``optmech select error`` would, the JSON
    object without the envelope every command's JSON starts with."""
    emit(argparse.Namespace(json=json_output, command="select", action="error"), payload,
         lambda p: "table")
    out = capsys.readouterr().out
    if not json_output:
        return out
    document = json.loads(out)
    assert list(document.items())[:2] == list(ENVELOPE.items())
    return json.dumps({key: value for key, value in document.items() if key not in ENVELOPE})


@pytest.mark.parametrize("payload, where", [
    ({"pmf": np.array([0.5, np.nan])}, "pmf[1]"),
    ({"grid": np.array([[1.0, 2.0], [3.0, -np.inf]])}, "grid[1][1]"),
    ({"rows": [{"x": 1.0}, {"x": float("inf")}]}, "rows[1].x"),
    ({"pair": (1.0, np.float64("nan"))}, "pair[1]"),
    ({"values": [1.0, None]}, "values[1]"),
    ({"mixed": np.array([1.0, None], dtype=object)}, "mixed[1]"),
])
def test_a_non_finite_value_anywhere_is_refused_with_its_path(payload, where, capsys):
    for json_output in (True, False):
        with pytest.raises(NonFiniteResultError, match=f"the result {re.escape(where)} "):
            _emit(payload, capsys, json_output)


def test_arrays_print_as_lists_and_undefined_keys_are_left_out(capsys):
    payload = {"pmf": np.array([0.25, 0.75]), "n": np.int64(2), "flags": np.array([True, False]),
               "bound": None, "nested": {"paper": None, "value": np.float32(0.5)}}
    assert json.loads(_emit(payload, capsys)) == {
        "pmf": [0.25, 0.75], "n": 2, "flags": [True, False], "nested": {"value": 0.5}}
    assert _emit(payload, capsys, json_output=False) == "table\n"


def test_an_unbounded_result_is_a_value_in_json_and_in_tables(capsys):
    payload = {"loss": UNBOUNDED, "rows": [{"key": "a", "ours": UNBOUNDED}]}
    assert json.loads(_emit(payload, capsys)) == {
        "loss": {"unbounded": True}, "rows": [{"key": "a", "ours": {"unbounded": True}}]}
    emit(argparse.Namespace(json=False, command="select", action="error"), payload,
         lambda p: f"{p['loss']}")
    assert capsys.readouterr().out == "∞\n"


@pytest.mark.parametrize("payload, where", [
    ({"results": [{"area": "a", "key": "ok", "ours": 1.0},
                  {"area": "heterogeneous", "key": "rnmh-exp-loss", "ours": float("inf")}]},
     "results[heterogeneous:rnmh-exp-loss].ours"),
    ({"identities": [{"name": "x.y", "value": np.nan}]}, "identities[x.y].value"),
    ({"claims": [{"id": "pf.fig2", "ratio": -np.inf}]}, "claims[pf.fig2].ratio"),
])
def test_a_non_finite_value_in_a_named_row_is_refused_with_the_row_name(payload, where, capsys):
    with pytest.raises(NonFiniteResultError, match=f"the result {re.escape(where)} "):
        _emit(payload, capsys)
