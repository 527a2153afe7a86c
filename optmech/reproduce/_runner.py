"""Run the area modules of :mod:`optmech.reproduce` and write ``report.md``."""

from __future__ import annotations

import importlib
import pkgutil
import time
from dataclasses import dataclass
from pathlib import Path

import optmech.reproduce as package
from optmech.progress import progress
from optmech.reproduce import Result

__all__ = ["AreaRun", "areas", "render_report", "run_areas"]


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
    for name in progress(names, desc="reproduce"):
        module = importlib.import_module(f"optmech.reproduce.{name}")
        start = time.perf_counter()
        results = list(module.run(quick=quick, out=out))
        runs.append(AreaRun(name, results, time.perf_counter() - start))
    return runs


def _value(v) -> str:
    if v is None:
        return "—"
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


def _status(r: Result) -> str:
    if r.status == "differs":
        return f"differs (explained: {r.explanation})" if r.explanation else "**differs (unexplained)**"
    return r.status


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
    for run in runs:
        lines += [f"## {run.area}", "",
                  "| result | source | paper | ours | tolerance | outcome | figure |",
                  "|---|---|---|---|---|---|---|"]
        for r in run.results:
            figure = f"[{r.figure}]({r.figure})" if r.figure else ""
            lines.append(f"| {r.name} | {r.source} | {_value(r.paper)} | {_value(r.ours)} | "
                         f"{_value(r.tolerance)} | {_status(r)} | {figure} |")
        lines.append("")
    return "\n".join(lines)
