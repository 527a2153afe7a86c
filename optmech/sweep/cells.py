"""One cell of a sweep: its cache key, its run under the caller's warning policy, and its
result's JSON form (the same Python objects on every executor)."""

from __future__ import annotations

import hashlib
import json
import warnings
from typing import Any, Callable, Mapping

from optmech._version import __version__
from optmech.jsonable import from_json, to_jsonable
from optmech.validation import InvalidArgumentError, NonFiniteResultError

__all__ = ["cell_key"]


def _qualified_name(fn: Callable) -> str:
    name = f"{fn.__module__}.{fn.__qualname__}"
    if "<" in fn.__qualname__:
        raise InvalidArgumentError("fn", name, "a module-level function (picklable by name)")
    return name


def _canonical(value) -> str:
    """The JSON text of a value (sorted keys; NaN and infinity refused, UNBOUNDED encoded)."""
    return json.dumps(to_jsonable(value), sort_keys=True, allow_nan=False)


def cell_key(fn: Callable, params: Mapping[str, Any]) -> str:
    """The cache key of one cell: sha256 of function name, parameters and optmech version."""
    payload = json.dumps({"function": _qualified_name(fn), "params": to_jsonable(dict(params)),
                          "version": __version__}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()


def _warning_policy() -> list[tuple]:
    """The caller's warning filters, as picklable tuples (shipped with every cell)."""
    def text(pattern) -> str:              # a compiled pattern, a string, or None
        return getattr(pattern, "pattern", pattern) or ""
    return [(action, text(message), category, text(module), lineno)
            for action, message, category, module, lineno in warnings.filters]


def _call(fn: Callable, params: Mapping[str, Any], policy: list[tuple] | None = None):
    """Run one cell under the caller's warning ``policy`` and normalise its result through
    JSON (same types on every executor)."""
    with warnings.catch_warnings():
        if policy is not None:
            warnings.resetwarnings()
            for action, message, category, module, lineno in reversed(policy):
                warnings.filterwarnings(action, message, category, module, lineno)
        value = fn(**params)
    try:
        return from_json(_canonical(value))
    except ValueError:
        raise NonFiniteResultError(f"the sweep cell {dict(params)} returned a value that is "
                                   "not finite") from None
