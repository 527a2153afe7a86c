"""A result that is truly +infinity, as a value: :data:`UNBOUNDED`.

Some quantities are legitimately unbounded: the realised privacy loss of a mechanism that
is not ε'-DP for any ε' (an output that one input can produce and a neighbouring input
cannot) is +∞, and that is the right answer, not an overflow.  optmech returns such a
quantity as :data:`UNBOUNDED`, a ``float`` equal to ``math.inf`` (so comparisons and
``math.isinf`` work as for any float) that every output of optmech recognises:

* JSON (``--json``, the sweep cache): the object ``{"unbounded": true}`` — never the bare
  ``Infinity`` or ``NaN`` of Python's ``json`` module, which are not JSON;
* text and Markdown tables: ``∞``.

A non-finite float that is *not* :data:`UNBOUNDED` is still an error wherever a finite
number is expected (the CLI exits with status 1 naming the value), so an overflow can
never pass for an unbounded result.  Arithmetic on :data:`UNBOUNDED` gives plain floats:
mark a value where it is produced, with :func:`unbounded_if_infinite`.
"""

from __future__ import annotations

import math

__all__ = ["JSON_ENCODING", "UNBOUNDED", "Unbounded", "decode_unbounded",
           "unbounded_if_infinite"]

#: How :data:`UNBOUNDED` appears in JSON output.
JSON_ENCODING = {"unbounded": True}


class Unbounded(float):
    """+∞ as a result (see the module docstring); use the singleton :data:`UNBOUNDED`."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls, math.inf)
        return cls._instance

    def __repr__(self) -> str:
        return "UNBOUNDED"

    def __str__(self) -> str:
        return "∞"

    def __reduce__(self):           # pickles (process pools, Dask) as the singleton
        return (Unbounded, ())

    def __format__(self, spec: str) -> str:
        return "∞"


UNBOUNDED = Unbounded()


def unbounded_if_infinite(value):
    """:data:`UNBOUNDED` for ``+inf`` (a quantity known to be legitimately unbounded), else
    ``value`` unchanged (``nan`` and ``-inf`` stay errors)."""
    return UNBOUNDED if isinstance(value, float) and value == math.inf else value


def decode_unbounded(obj: dict):
    """``json.loads`` object hook: :data:`UNBOUNDED` for ``{"unbounded": true}``."""
    return UNBOUNDED if obj == JSON_ENCODING else obj
