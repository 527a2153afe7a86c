"""``emit``: the one place a command's result is printed, refused when not finite."""

import argparse
import json
import re

import numpy as np
import pytest

from optmech.cli._common import emit
from optmech.validation import NonFiniteResultError


def _emit(payload, capsys, json_output=True):
    emit(argparse.Namespace(json=json_output), payload, lambda p: "table")
    return capsys.readouterr().out


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
