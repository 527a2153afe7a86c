"""Reproduction of the papers' quantitative results, one module per area.

Each module ``optmech/reproduce/<area>.py`` defines ``run(quick: bool, out: Path) ->
list[Result]``: it recomputes the area's numbers from the built-in defaults, writes the
figures it refers to into ``out`` (PNG), and returns one :class:`Result` per number.
``quick=True`` must finish within about 15 seconds on 2 cores.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

__all__ = ["Result", "compare", "new_result"]

STATUSES = ("match", "differs", "new")


@dataclass(frozen=True)
class Result:
    """One reproduced quantity.

    ``paper`` is the paper's printed value (None for results that are this toolkit's own);
    ``ours`` our value; ``tolerance`` the absolute tolerance of the comparison; ``status``
    ``match``, ``differs`` or ``new``; ``explanation`` says why a ``differs`` differs (empty:
    unexplained, which fails the run); ``figure`` the file name of a PNG in the output
    folder, if any.
    """

    area: str
    name: str
    source: str
    paper: float | str | None
    ours: float | str
    tolerance: float | None
    status: str
    explanation: str = ""
    figure: str | None = None

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {self.status!r}")

    @property
    def ok(self) -> bool:
        """False only for a result that should match and does not (unexplained)."""
        return self.status != "differs" or bool(self.explanation)


def compare(area: str, name: str, source: str, paper: float, ours: float, tolerance: float,
            explanation_if_differs: str = "", figure: str | None = None) -> Result:
    """A :class:`Result` that matches when ``|ours - paper| <= tolerance``.

    When it does not match, ``explanation_if_differs`` (a known, documented reason) makes it
    ``differs (explained: ...)``; without one it is an unexplained difference, and
    ``optmech reproduce`` exits non-zero.
    """
    matches = math.isfinite(ours) and abs(ours - paper) <= tolerance
    if matches:
        return Result(area, name, source, paper, ours, tolerance, "match", figure=figure)
    return Result(area, name, source, paper, ours, tolerance, "differs",
                  explanation_if_differs, figure)


def new_result(area: str, name: str, ours: float | str, figure: str | None = None,
               source: str = "optmech") -> Result:
    """A result that is this toolkit's own (no paper value to compare with)."""
    return Result(area, name, source, None, ours, None, "new", figure=figure)
