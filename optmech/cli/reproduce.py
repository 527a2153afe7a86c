"""``optmech reproduce``: rerun the papers' quantitative results and figures."""

from __future__ import annotations

import argparse
from pathlib import Path

from optmech.cli._common import add_json_flag, emit, format_table


def register(subparsers) -> None:
    from optmech.reproduce._runner import areas

    parser = subparsers.add_parser(
        "reproduce", help="rerun the papers' numbers and figures; write DIR/report.md",
        description="Recompute every quantitative result and figure of the five papers from "
                    "the built-in defaults and write a report comparing ours with the "
                    "papers'.  Exit status 1 if a result that should match does not.")
    parser.add_argument("--quick", action="store_true",
                        help="smaller sweeps (under 2 minutes on 2 cores)")
    parser.add_argument("--only", choices=areas(), action="append", metavar="AREA",
                        help=f"run only this area (repeatable): {', '.join(areas())}")
    parser.add_argument("--out", type=Path, default=Path("reproduce-out"),
                        help="output folder for report.md and figures (default reproduce-out)")
    add_json_flag(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from optmech.reproduce._runner import areas, render_report, run_areas

    names = args.only or areas()
    results, seconds = run_areas(names, args.quick, args.out)
    report = args.out / "report.md"
    report.write_text(render_report(results, args.quick))
    failures = [r for r in results if not r.ok]
    payload = {"report": str(report), "results": [vars(r) | {"ok": r.ok} for r in results],
               "seconds": seconds, "failures": len(failures)}
    emit(args, payload, lambda p: format_table(
        ["area", "results", "match", "differs", "new", "seconds"],
        [(a, sum(r.area == a for r in results),
          sum(r.area == a and r.status == "match" for r in results),
          sum(r.area == a and r.status == "differs" for r in results),
          sum(r.area == a and r.status == "new" for r in results), seconds[a])
         for a in seconds]) + f"\n\nreport: {report}" + (
            f"\n{len(failures)} unexplained difference(s)" if failures else ""))
    return 1 if failures else 0
