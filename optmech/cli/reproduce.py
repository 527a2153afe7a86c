"""``optmech reproduce``: rerun the papers' quantitative results and figures."""

from __future__ import annotations

import argparse
from pathlib import Path

from lp_models.atomic import write_text
from optmech.cli._common import add_json_flag, emit, output_dir
from optmech.resources import Estimate
from optmech.tables import text_table


def register(subparsers) -> None:
    from optmech.reproduce._runner import areas

    parser = subparsers.add_parser(
        "reproduce", help="rerun the papers' numbers and figures; write DIR/report.md",
        description="Recompute every quantitative result and figure of the four papers from "
                    "the built-in defaults and write a report comparing ours with the "
                    "papers'.  Exit status 1 if a result that should match does not.",
        epilog="example: optmech reproduce --quick --only selection")
    parser.add_argument("--quick", action="store_true",
                        help="smaller sweeps (under 2 minutes on 2 cores)")
    parser.add_argument("--only", choices=areas(), action="append", metavar="AREA",
                        help=f"run only this area (repeatable): {', '.join(areas())}")
    parser.add_argument("--out", type=output_dir, default=Path("reproduce-out"),
                        help="output folder for report.md and figures (default reproduce-out)")
    add_json_flag(parser)
    parser.set_defaults(func=run, estimate=estimate)


def estimate(args: argparse.Namespace) -> Estimate:
    """The chosen areas' CPU time (:data:`optmech.reproduce._runner.AREA_SECONDS`) and the
    memory of the largest (about 1 GiB, the lattice's LPs and figures)."""
    from optmech.reproduce._runner import AREA_SECONDS, areas

    chosen = args.only or areas()
    seconds = sum(AREA_SECONDS[name][0 if args.quick else 1] for name in chosen)
    return Estimate(seconds, 2**30, "--only", ",".join(chosen) if args.only
                    else f"all {len(chosen)} areas" + ("" if args.quick else " (no --quick)"))


def run(args: argparse.Namespace) -> int:
    from optmech.reproduce._runner import areas, render_report, run_areas

    runs = run_areas(args.only or areas(), args.quick, args.out)
    report = args.out / "report.md"
    write_text(report, render_report(runs, args.quick))
    failures = [r for run in runs for r in run.results if not r.ok]
    payload = {"report": str(report),
               # "id": the row's key in the report and the claims inventory (area:key)
               "results": [{"id": f"{run.area}:{r.key}" if r.key else None, **vars(r),
                            "ok": r.ok} for run in runs for r in run.results],
               "seconds": {run.area: run.seconds for run in runs},
               "failures": len(failures)}

    def table(_payload):
        rows = [(run.area, len(run.results),
                 *(sum(r.status == s for r in run.results) for s in ("match", "differs", "new")),
                 round(run.seconds, 1)) for run in runs]
        text = text_table(["area", "results", "match", "differs", "new", "seconds"], rows)
        text += f"\n\nreport: {report}"
        if failures:
            text += f"\n{len(failures)} unexplained difference(s):\n" + "\n".join(
                f"  {r.area}: {r.name} (paper {r.paper}, ours {r.ours})" for r in failures)
        return text

    emit(args, payload, table)
    return 1 if failures else 0
