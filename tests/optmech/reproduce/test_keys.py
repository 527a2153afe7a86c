"""The stable keys of the reproduce rows: every row has one (the report's first column), each
area declares its keys (``KEYS``, and ``FULL_ONLY_KEYS`` for rows of the full run only), a
quick run produces exactly the declared quick keys, and every full-only key is written in the
module's source."""

import ast
import importlib
import inspect

import pytest

from optmech.reproduce._runner import areas
from tests.optmech.reproduce import SLOW_AREAS


@pytest.mark.parametrize("area", [pytest.param(a, marks=[pytest.mark.slow] if a in SLOW_AREAS
                                               else []) for a in areas()])
def test_quick_run_produces_exactly_the_declared_keys(area, quick_run):
    module = importlib.import_module(f"optmech.reproduce.{area}")
    results, _ = quick_run(area)
    assert [r.name for r in results if not r.key] == [], "a row without a key"
    produced = [r.key for r in results]
    assert len(produced) == len(set(produced)), "a key is used twice"
    assert module.FULL_ONLY_KEYS <= module.KEYS
    assert set(produced) == module.KEYS - module.FULL_ONLY_KEYS


@pytest.mark.parametrize("area", areas())
def test_full_only_keys_are_spelled_in_the_source(area):
    module = importlib.import_module(f"optmech.reproduce.{area}")
    constants = {node.value for node in ast.walk(ast.parse(inspect.getsource(module)))
                 if isinstance(node, ast.Constant) and isinstance(node.value, str)}
    templated = {key for key in module.FULL_ONLY_KEYS if key not in constants}
    # keys built in a loop (e.g. "tight-threshold-k{k}") must at least share a literal prefix
    for key in templated:
        assert any(key.startswith(c) and len(c) >= 8 for c in constants), key
