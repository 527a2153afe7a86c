"""Run the area modules of :mod:`optmech.reproduce` and write ``report.md``.

The report has one table per area (one row per result, its claims-inventory key in the
first column) and a coverage section: per paper, how many claims of the inventory
(:mod:`proofs.claims`) are covered and with which outcome, the claims that are not
checkable here with the reason, and any claim whose rows in this run are missing or do not
match.

A table row stays within :data:`ROW_CHARACTERS` characters, so that it reads as one row in
an editor and on a narrow screen: its longest cells (an explanation, our value, the
source, the description) are cut to their first clause with a pointer ``(note N)``, and
their whole text is note N under the area's table (46 rows of a quick run ran past 400
characters, one to 837).  The JSON output keeps every field whole.
"""

from __future__ import annotations

import importlib
import pkgutil
import time
from dataclasses import dataclass
from pathlib import Path

import optmech.reproduce as package
from optmech.progress import progress
from optmech.reproduce import Result
from optmech.tables import markdown_cell, markdown_table

__all__ = ["AREA_SECONDS", "ROW_CHARACTERS", "AreaRun", "areas", "coverage_section",
           "render_report", "run_areas"]

#: The longest table row of the report, in characters (longer cells go to notes).
ROW_CHARACTERS = 400
HEADERS = ("key", "result", "source", "paper", "ours", "tolerance", "outcome", "figure")
# The columns whose text may move to a note, and the shortest lead a cell keeps there.
_MOVABLE = ("result", "source", "paper", "ours", "outcome")
_LEAD = 80
_EXPLAINED = "differs (explained: "

#: CPU seconds of each area's ``run`` (quick, full): upper estimates, about three times the
#: CPU time measured on a loaded 2-core machine (``--quick`` about 15 s an area).
AREA_SECONDS = {"beyond": (60, 300), "data": (30, 120), "heterogeneous": (60, 300),
                "lattice": (60, 300), "multiselect": (60, 300), "privacy": (45, 300),
                "secretary": (90, 300), "selection": (60, 300), "topk": (30, 300)}


def areas() -> list[str]:
    """Names of the area modules (``optmech/reproduce/<area>.py``), sorted."""
    return sorted(m.name for m in pkgutil.iter_modules(package.__path__)
                  if not m.name.startswith("_"))


@dataclass(frozen=True)
class AreaRun:
    """The results of one area module and the seconds it took."""

    area: str
    results: list[Result]
    seconds: float


def run_areas(names: list[str], quick: bool, out: Path) -> list[AreaRun]:
    """Run each area's ``run(quick, out)`` in turn."""
    out.mkdir(parents=True, exist_ok=True)
    runs = []
    bar = progress(names, desc="area")
    for name in bar:
        bar.set_postfix_str(name)
        module = importlib.import_module(f"optmech.reproduce.{name}")
        start = time.perf_counter()
        results = list(module.run(quick=quick, out=out))
        runs.append(AreaRun(name, results, time.perf_counter() - start))
    return runs


def _status(r: Result) -> str:
    if r.status == "differs":
        return (f"{_EXPLAINED}{r.explanation})" if r.explanation
                else "**differs (unexplained)**")
    return r.status


def coverage_section(runs: list[AreaRun], quick: bool) -> list[str]:
    """Markdown lines: the claims coverage per paper and the checks of this run's rows."""
    from proofs.claims import claims
    from proofs.claims.report import coverage_table
    from proofs.papers import PAPERS

    inventory = claims()
    lines = ["## Coverage of the papers' claims", "",
             "Every checkable claim of the four papers is listed in `docs/claims.md` with the "
             "rows, identities and tests that check it.  Per paper:", "",
             *coverage_table(inventory), ""]
    produced = {f"{run.area}:{r.key}": r for run in runs for r in run.results if r.key}
    ran = {run.area for run in runs}
    full_only = set()
    for area in ran & set(areas()):
        module = importlib.import_module(f"optmech.reproduce.{area}")
        full_only |= {f"{area}:{key}" for key in getattr(module, "FULL_ONLY_KEYS", ())}
    missing, failing, skipped = [], [], 0
    for c in inventory:
        for ref in c.rows:
            if ref.split(":")[0] not in ran:
                continue
            if ref not in produced:
                if quick and ref in full_only:
                    skipped += 1
                else:
                    missing.append(f"`{c.id}`: row `{ref}` was not produced")
            elif not produced[ref].ok:
                failing.append(f"`{c.id}`: row `{ref}` differs without an explanation")
    checked = sum(ref in produced for c in inventory for ref in c.rows)
    lines.append(f"This run produced {checked} of the rows the inventory cites"
                 + (f" ({skipped} more are produced by the full run only)" if skipped else "")
                 + (f"; {len(missing) + len(failing)} problem(s):" if missing or failing
                    else "; every one of them is present and matches or is explained."))
    lines += [f"* {line}" for line in missing + failing]
    for paper in dict.fromkeys(c.paper for c in inventory):
        absent = [c for c in inventory if c.paper == paper and not c.covered]
        if absent:
            lines += ["", f"Not checkable here ({PAPERS[paper].short}):", ""]
            lines += [f"* `{c.id}` ({c.location}): {c.note}" for c in absent]
    return lines + [""]


def render_report(runs: list[AreaRun], quick: bool) -> str:
    """The markdown report: one table per area, one row per result, figures linked."""
    results = [r for run in runs for r in run.results]
    mode = "quick" if quick else "full"
    lines = [f"# optmech reproduce ({mode} run)", "",
             "Each row: the paper's value, ours, the tolerance of the comparison, and the "
             "outcome (`match`, `differs (explained: …)`, or `new` for results that are this "
             "toolkit's own).", ""]
    bad = [r for r in results if not r.ok]
    lines += [f"**{len(results)} results: {sum(r.status == 'match' for r in results)} match, "
              f"{sum(r.status == 'differs' and r.ok for r in results)} differ with an "
              f"explanation, {sum(r.status == 'new' for r in results)} new, {len(bad)} "
              f"unexplained.**", ""]
    notes: list[str] = []
    for run in runs:
        rows, first = [], len(notes)
        for r in run.results:
            row = (f"`{run.area}:{r.key}`" if r.key else "", r.name, r.source, r.paper,
                   r.ours, r.tolerance, _status(r),
                   f"[{r.figure}]({r.figure})" if r.figure else "")
            rows.append(_within_limit([markdown_cell(value) for value in row], notes))
        lines += [f"## {run.area}", "", *markdown_table(HEADERS, rows), ""]
        if len(notes) > first:
            lines += ["Notes:", "", *notes[first:], ""]
    lines += coverage_section(runs, quick)
    return "\n".join(lines)


def _row_length(cells: list[str]) -> int:
    """Characters of the Markdown row of ``cells`` (``| a | b |``)."""
    return sum(len(cell) for cell in cells) + 3 * len(cells) + 1


def _within_limit(cells: list[str], notes: list[str]) -> list[str]:
    """``cells`` (Markdown cell texts) with their longest movable cells cut to a lead and
    a pointer to a new note in ``notes`` (numbered across the report), until the row fits
    in :data:`ROW_CHARACTERS` (a cell already cut is cut to a shorter lead)."""
    cells = list(cells)
    movable = [HEADERS.index(column) for column in _MOVABLE]
    moved: dict[int, tuple[str, str, int, int]] = {}    # index: prefix, text, note, room
    while _row_length(cells) > ROW_CHARACTERS:
        index = max(movable, key=lambda i: len(cells[i]))
        if index in moved:
            prefix, text, number, room = moved[index]
            if room <= 10:
                break       # every movable cell is down to a word and its pointer
            room //= 2
        else:
            prefix, text = "", cells[index]
            if HEADERS[index] == "outcome" and text.startswith(_EXPLAINED):
                prefix, text = _EXPLAINED, text[len(_EXPLAINED):-1]
            number, room = len(notes) + 1, _LEAD
            column = "why it differs" if prefix else HEADERS[index]
            notes.append(f"{number}. {cells[0] or 'a row'}, {column}: {text}")
        moved[index] = prefix, text, number, room
        cells[index] = f"{prefix}{_lead(text, room)} (note {number}){')' if prefix else ''}"
    return cells


def _lead(text: str, room: int) -> str:
    """The start of ``text``: up to its last clause break (``; ``, ``: ``, ``, ``) within
    ``room`` characters, else its last word within them, with ``…`` when cut."""
    if len(text) <= room:
        return text
    head = text[:room]
    for mark in ("; ", ": ", ", "):
        cut = head.rfind(mark)
        if cut >= room // 3:
            return head[:cut] + " …"
    cut = head.rfind(" ")
    return (head[:cut] if cut > 0 else head) + " …"
