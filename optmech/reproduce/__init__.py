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
import operator
from dataclasses import dataclass

import numpy as np

from lp_models.display import ResultList, Tabular

__all__ = ["Result", "ResultList", "claim_result", "compare", "inequality", "margin_text",
           "median_interval", "new_result", "sampled_text"]

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


_RELATIONS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


def margin_text(value: float, bound: float) -> str:
    """``value`` with its shortest round-trip digits (which never round onto ``bound``
    unless it is ``bound``) and its distance from ``bound``: ``1.999999999999813 (2 -
    1.9e-13)``, ``1 (= 1)``.  A row comparing a number with a bound prints this, not the
    number to a few digits: ``2.000000000000`` against ``< 2`` read as a contradiction."""
    value, bound = float(value), float(bound)
    gap = value - bound
    if gap == 0:
        return f"{value!r} (= {bound:g})"
    return f"{value!r} ({bound:g} {'+' if gap > 0 else '-'} {abs(gap):.2g})"


def inequality(area: str, name: str, source: str, value: float, relation: str,
               bound: float, *, slack: float = 0.0, why_not: str = "",
               figure: str | None = None, key: str = "") -> Result:
    """A claim ``value <relation> bound`` (``"<"``, ``"<="``, ``">"``, ``">="``) as a row
    that says what was compared: paper ``"< 2"``, ours ``"1.999999999999813 (2 - 1.9e-13):
    < 2 holds"`` (:func:`margin_text`).  ``match`` when it holds, or holds once ``value``
    moves towards the bound by ``slack`` (rounding; the row then says "holds to rounding"
    and gives ``slack`` as its tolerance); else ``differs`` with ``why_not``."""
    if relation not in _RELATIONS:
        raise ValueError(f"relation must be one of {sorted(_RELATIONS)}, got {relation!r}")
    value = float(value)
    strictly = _RELATIONS[relation](value, bound)
    eased = value - slack if relation in ("<", "<=") else value + slack
    holds = strictly or _RELATIONS[relation](eased, bound)
    verdict = ("holds" if strictly else f"holds to rounding ({slack:g})" if holds
               else "does not hold")
    return Result(area, name, source, f"{relation} {bound:g}",
                  f"{margin_text(value, bound)}: {relation} {bound:g} {verdict}",
                  slack or None, "match" if holds else "differs", "" if holds else why_not,
                  figure, key)


def sampled_text(successes: int, draws: int, digits: int = 3, level: float = 0.99) -> str:
    """A proportion estimated from ``draws`` samples with its Wilson score interval at
    ``level`` (99% by default, as the report's other sampled numbers): ``0.745 [0.66,
    0.82]``.  Every sampled number a row prints carries its interval (the row says how many
    draws): a bare 0.745 from 200 draws (a quick run) read as exact beside the 0.678 of
    20,000."""
    from scipy import stats

    if not 0 <= successes <= draws or draws < 1:
        raise ValueError(f"need 0 <= successes <= draws and draws >= 1, got {successes}, "
                         f"{draws}")
    z = float(stats.norm.ppf(0.5 + level / 2))
    p = successes / draws
    scale = 1 + z * z / draws
    centre = (p + z * z / (2 * draws)) / scale
    half = z * math.sqrt(p * (1 - p) / draws + z * z / (4 * draws * draws)) / scale
    low, high = max(0.0, centre - half), min(1.0, centre + half)
    return f"{p:.{digits}f} [{low:.2f}, {high:.2f}]"


def median_interval(values, level: float = 0.99) -> tuple[float, float]:
    """A distribution-free interval for the median of the distribution ``values`` were
    drawn from: the order statistics ``(x_(j), x_(n+1-j))`` with the largest ``j`` whose
    coverage ``1 - 2 P[Binomial(n, 1/2) <= j - 1]`` is at least ``level`` (with 10 values
    and 99%, the smallest and the largest)."""
    from scipy import stats

    x = np.sort(np.asarray(values, dtype=float))
    n = x.size
    j = 1
    while j + 1 <= n // 2 and 1 - 2 * stats.binom.cdf(j, n, 0.5) >= level:
        j += 1
    return float(x[j - 1]), float(x[n - j])
