"""Reproduction of the papers' quantitative results, one module per area.

Each module ``optmech/reproduce/<area>.py`` defines ``run(quick: bool, out: Path) ->
list[Result]``: it recomputes the area's numbers from the built-in defaults, writes the
figures it refers to into ``out`` (PNG), and returns one :class:`Result` per number.
``quick=True`` must finish within about 15 seconds on 2 cores.

Every row carries a ``key``, stable across runs and modes (the report's first column, and
what the claims inventory, :mod:`proofs.claims`, cites as ``"area:key"``); each area module
lists its keys in ``KEYS`` (and those produced only by the full run in ``FULL_ONLY_KEYS``), so
the inventory's references can be resolved without running the reproduction.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from lp_models.display import ResultList, Tabular

__all__ = ["Result", "ResultList", "claim_result", "compare", "new_result"]

STATUSES = ("match", "differs", "new")


@dataclass(frozen=True)
class Result(Tabular):
    """One reproduced quantity.

    ``paper`` is the paper's printed value (None for results that are this toolkit's own);
    ``ours`` our value; ``tolerance`` the absolute tolerance of the comparison; ``status``
    ``match``, ``differs`` or ``new``; ``explanation`` says why a ``differs`` differs (empty:
    unexplained, which fails the run); ``figure`` the file name of a PNG in the output
    folder, if any; ``key`` the row's stable id within its area (every area gives each of
    its rows one; tests check it).  :meth:`records` is its one row (with ``ok``);
    ``ResultList(rows).to_frame()`` makes one table of a list of them.
    """

    #: The area whose module computed the row (e.g. ``"secretary"`` for
    #: :mod:`optmech.reproduce.secretary`).
    area: str
    #: What the row compares, in words.
    name: str
    #: Where the paper states it (citation and location), or ``"optmech"`` for the toolkit's own
    #: results.
    source: str
    #: The paper's printed value: a number, a quoted statement for a qualitative claim, or None for
    #: the toolkit's own results.
    paper: float | str | None
    #: The toolkit's value: a number, or a statement for a qualitative claim.
    ours: float | str
    #: Absolute tolerance of the comparison ``|ours - paper| <= tolerance``, in the units of the
    #: value (None for qualitative claims and the toolkit's own results).
    tolerance: float | None
    #: ``"match"``, ``"differs"`` or ``"new"`` (no paper value).
    status: str
    #: Why a ``"differs"`` row differs (a known, documented reason); empty for the others, and an
    #: empty one on a ``"differs"`` row fails the run.
    explanation: str = ""
    #: File name of a PNG the row refers to, in the output folder, or None.
    figure: str | None = None
    #: The row's stable id within its area (cited as ``"area:key"`` by :mod:`proofs.claims`;
    #: every row of the built-in areas has one).
    key: str = ""

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {self.status!r}")

    @property
    def ok(self) -> bool:
        """False only for a result that should match and does not (unexplained)."""
        return self.status != "differs" or bool(self.explanation)

    def records(self) -> list[dict]:
        return [{**dataclasses.asdict(self), "ok": self.ok}]


def compare(area: str, name: str, source: str, paper: float, ours: float, tolerance: float,
            explanation_if_differs: str = "", figure: str | None = None,
            key: str = "") -> Result:
    """A :class:`Result` that matches when ``|ours - paper| <= tolerance``.

    When it does not match, ``explanation_if_differs`` (a known, documented reason) makes it
    ``differs (explained: ...)``; without one it is an unexplained difference, and
    ``optmech reproduce`` exits non-zero.
    """
    matches = math.isfinite(ours) and abs(ours - paper) <= tolerance
    if matches:
        return Result(area, name, source, paper, ours, tolerance, "match", figure=figure,
                      key=key)
    return Result(area, name, source, paper, ours, tolerance, "differs",
                  explanation_if_differs, figure, key)


def new_result(area: str, name: str, ours: float | str, figure: str | None = None,
               source: str = "optmech", key: str = "") -> Result:
    """A result that is this toolkit's own (no paper value to compare with)."""
    return Result(area, name, source, None, ours, None, "new", figure=figure, key=key)


def claim_result(area: str, name: str, source: str, paper: str, ours: str, holds: bool,
                 why_not: str = "", figure: str | None = None, key: str = "") -> Result:
    """A qualitative claim of a paper: ``match`` when ``holds``, else ``differs`` with the
    known reason ``why_not`` (empty: unexplained, which fails the run)."""
    return Result(area, name, source, paper, ours, None, "match" if holds else "differs",
                  "" if holds else why_not, figure, key)
