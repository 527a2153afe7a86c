"""Plain JSON values from the numpy-laden results of optmech (for ``--json`` and the caches).

A result that is truly unbounded (:data:`optmech.unbounded.UNBOUNDED`) becomes
``{"unbounded": true}``; :func:`from_json` turns that object back into it.  Other non-finite
floats stay floats: the CLI refuses to print them (exit status 1) and the sweep cache
refuses to store them, so neither ``"inf"`` strings nor ``null`` stand for a number.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from optmech.unbounded import JSON_ENCODING, Unbounded, decode_unbounded

__all__ = ["from_json", "to_jsonable"]


def to_jsonable(value: Any) -> Any:
    """Convert numpy scalars/arrays and tuples inside ``value`` to plain JSON types, and
    :data:`~optmech.unbounded.UNBOUNDED` to ``{"unbounded": true}``."""
    if isinstance(value, Unbounded):
        return dict(JSON_ENCODING)
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        # numbers and booleans convert in C; only object arrays need the walk
        return value.tolist() if value.dtype != object else to_jsonable(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    return value


def from_json(text: str) -> Any:
    """``json.loads`` that reads ``{"unbounded": true}`` back as
    :data:`~optmech.unbounded.UNBOUNDED` (and refuses the non-JSON ``NaN``/``Infinity``)."""
    def refuse(name: str):
        raise ValueError(f"{name} is not JSON")
    return json.loads(text, object_hook=decode_unbounded, parse_constant=refuse)
