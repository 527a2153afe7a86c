"""Plain JSON values from the numpy-laden results of optmech (for ``--json`` and the caches).

Non-finite floats stay floats: the CLI refuses to print them (exit status 1) and the sweep
cache refuses to store them, so neither ``"inf"`` strings nor ``null`` stand for a number.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["to_jsonable"]


def to_jsonable(value: Any) -> Any:
    """Convert numpy scalars/arrays and tuples inside ``value`` to plain JSON types."""
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return to_jsonable(value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    return value
