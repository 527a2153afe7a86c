"""``python -m benchmarks [--quick] [--only NAME ...] [--json]``: run every benchmark module in
its own process and collect their tables.

A full run writes the tables into ``benchmarks/results/`` and collects them, with every
claim at the top, in ``benchmarks/RESULTS.md``.  A quick run (``--quick``: small sizes, a
few minutes) writes into ``benchmarks/results/quick/`` and collects them in
``benchmarks/results/quick/RESULTS.md``; it never writes over the full-size tables.

With ``--json`` the modules' tables go to stderr and stdout is one JSON object: ``quick``,
``modules`` (the modules run, in order), ``seconds`` (wall seconds of each), ``tables``
(the table files each wrote) and ``results`` (the collected file).  A module that fails
stops the run with one line on stderr and exit status 1 (``OPTMECH_DEBUG=1`` shows its
whole error output); an interrupt exits 130.
"""

from __future__ import annotations

import argparse
import json
import os
import pkgutil
import subprocess
import sys
from pathlib import Path

from benchmarks import _report
from benchmarks._claims import CLAIM_LINE
from benchmarks._timing import SYSTEM_CLOCK
from lp_models.atomic import write_text

HERE = Path(__file__).resolve().parent

READING = (
    "Every time is seconds per call on one clock: CPU time (`time.process_time`, all "
    "threads of the process) or wall time, as `median [min, max]` over at least 5 runs "
    "(short calls are batched; more runs while a time budget lasts), or for samplers whose "
    "running time is random `mean ± standard error` over many single draws.  A speed-up "
    "divides the medians (or means) of two implementations measured in the same process; "
    "its spread `[low, high]` divides their extremes (slowest over fastest and back; for "
    "means, -/+ 2 standard errors).  Claims use CPU time unless they say otherwise: the "
    "machine is shared.  The line under each table gives the machine, the BLAS threads "
    "(pinned where a claim depends on them), the load average while the table was "
    "measured, and whether the run was quick.  `python -m benchmarks._claims FIRST SECOND` "
    "checks whether a second run's claims lie within the first's spreads.")


def modules() -> list[str]:
    """The benchmark modules: every ``benchmarks/<name>.py`` not starting with ``_``."""
    return sorted(m.name for m in pkgutil.iter_modules([str(HERE)])
                  if not m.name.startswith("_"))


def _tables(folder: Path) -> dict[Path, int]:
    return {path: path.stat().st_mtime_ns for path in folder.glob("*.md")
            if path.name != "RESULTS.md"}


def _fail(message: str, status: int) -> int:
    print(f"benchmarks: error: {' '.join(message.split())}", file=sys.stderr)
    return status


def run_module(name: str, quick: bool, json_mode: bool) -> tuple[int, str]:
    """Run ``python -m benchmarks.<name>`` (its stdout to ours, or to stderr with
    ``--json``); its exit status and error output."""
    done = subprocess.run([sys.executable, "-m", f"benchmarks.{name}",
                           *(["--quick"] if quick else [])],
                          cwd=HERE.parent, stdout=sys.stderr if json_mode else None,
                          stderr=subprocess.PIPE, text=True)
    return done.returncode, done.stderr


def collect(folder: Path, target: Path, names: list[str], seconds: dict[str, float],
            quick: bool) -> int:
    """Write ``target``: the run's summary, every claim, then every table of ``folder``."""
    tables = sorted(_tables(folder))
    earlier = ("; the other tables are from earlier runs (see the line under each title)"
               if set(names) != set(modules()) else "")
    lines = ["# optmech benchmarks" + (" (quick run: small sizes)" if quick else ""), "",
             f"_{_report.machine_line()}_ — {'quick' if quick else 'full'} run of "
             f"{', '.join(names)} ({sum(seconds.values()):.0f} s){earlier}.", "",
             READING, "", "## Claims", ""]
    for table in tables:
        claims = [line for line in table.read_text().splitlines() if CLAIM_LINE.match(line)]
        if claims:
            lines += [f"From `{table.name}`:", "", *claims, ""]
    for table in tables:
        lines += [table.read_text().rstrip(), ""]
    write_text(target, "\n".join(lines))
    return len(tables)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="small sizes; tables go to benchmarks/results/quick/")
    parser.add_argument("--only", action="append", choices=modules(), metavar="NAME",
                        help=f"run only these modules: {', '.join(modules())}")
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object (modules, seconds, tables) on stdout")
    args = parser.parse_args(argv)
    names = list(dict.fromkeys(args.only or modules()))
    folder = _report.results_folder(args.quick)
    folder.mkdir(parents=True, exist_ok=True)
    seconds: dict[str, float] = {}
    written: dict[str, list[str]] = {}
    try:
        for name in names:
            print(f"== benchmarks.{name}", file=sys.stderr, flush=True)
            before = _tables(folder)
            started = SYSTEM_CLOCK.wall()
            status, errors = run_module(name, args.quick, args.json)
            seconds[name] = round(SYSTEM_CLOCK.wall() - started, 3)
            if status != 0:
                if os.environ.get("OPTMECH_DEBUG"):
                    print(errors, file=sys.stderr, end="")
                last = next((line for line in reversed(errors.splitlines()) if line.strip()),
                            "no error output")
                return _fail(f"benchmarks.{name} exited with status {status}: {last}", 1)
            print(errors, file=sys.stderr, end="")
            written[name] = [str(path) for path, stamp in sorted(_tables(folder).items())
                             if before.get(path) != stamp]
    except KeyboardInterrupt:
        return _fail("interrupted", 130)
    target = folder / "RESULTS.md" if args.quick else _report.RESULTS.parent / "RESULTS.md"
    count = collect(folder, target, names, seconds, args.quick)
    if args.json:
        print(json.dumps({"quick": args.quick, "modules": names, "seconds": seconds,
                          "tables": written, "results": str(target)}))
    else:
        print(f"wrote {target} ({count} tables)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
