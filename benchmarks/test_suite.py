"""How long README's two commands take as a new user runs them: the test suite (``python -m
pytest -n 2``) and the quick reproduction (``optmech reproduce --quick``), on this machine
under the load it has.

Each run appends one record per command to ``results/test_suite.jsonl``: the command, its
wall and CPU seconds (every process it started: ``RUSAGE_CHILDREN``), the 1-minute load
average before and after, the exit status, the tests passed and failed, and the lines the
command wrote on stderr (a green test run writes none: a ``KeyboardInterrupt`` traceback
there after the summary was a fault); then ``results/test_suite.md`` is rewritten from all
records, newest last (through :func:`benchmarks._report.write_table`).  A shared
machine's load changes a run's wall time (the changelog measured the suite at about 4
minutes on an idle machine, a new user at 12.6 minutes at a load of 9 to 19, README said
8), so README states the CPU time and the wall time of the newest run with the load it
met, and ``tests/benchmarks/test_durations.py`` holds README's figures to that record.

``--quick``: one small test file and one area of the reproduction, into
``results/quick/`` (the machinery only; its times say nothing about README's).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks import _report
from benchmarks._timing import CHILDREN_CLOCK
from lp_models.atomic import write_text

ROOT = Path(__file__).resolve().parent.parent
RECORDS = "test_suite.jsonl"
# README's two commands after the install, as a new user runs them from the checkout
# (the test of README's figures against these records is left out of the run that makes one)
DESELECT = ["--deselect", "tests/benchmarks/test_durations.py"]
FULL = {"tests": [sys.executable, "-m", "pytest", "-n", "2", *DESELECT],
        "reproduce": [sys.executable, "-m", "optmech", "reproduce", "--quick"]}
QUICK = {"tests": [sys.executable, "-m", "pytest", "-n", "2", *DESELECT,
                   "tests/test_citation.py"],
         "reproduce": [sys.executable, "-m", "optmech", "reproduce", "--quick", "--only",
                       "beyond"]}
_PASSED = re.compile(r"(\d+) passed")
_FAILED = re.compile(r"^FAILED (\S+)", re.M)
STATUS_LINE = re.compile(r"^optmech: .*, \d+ s$")      # a progress line (optmech.progress)


def measure(name: str, argv: list[str], folder: Path) -> dict:
    """Run ``argv`` from the checkout (``reproduce`` writes into ``folder``, not the
    checkout's ``reproduce-out``) and return its record."""
    extra = ["--out", str(folder / "reproduce-out")] if name == "reproduce" else []
    load_before = _report.load_average()
    cpu_before, wall_before = CHILDREN_CLOCK.cpu(), CHILDREN_CLOCK.wall()
    done = subprocess.run([*argv, *extra], cwd=ROOT, capture_output=True, text=True)
    wall, cpu = CHILDREN_CLOCK.wall() - wall_before, CHILDREN_CLOCK.cpu() - cpu_before
    passed = _PASSED.findall(done.stdout)
    # the tests write nothing on stderr; the reproduction its status lines (not counted)
    stderr = [line for line in done.stderr.splitlines()
              if line.strip() and not (name == "reproduce" and STATUS_LINE.match(line))]
    return {"date": _dt.date.today().isoformat(),
            "command": name, "argv": " ".join(Path(argv[0]).name if i == 0 else a
                                              for i, a in enumerate(argv)),
            "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
            "load_before": round(load_before, 2), "load_after": round(_report.load_average(), 2),
            "status": done.returncode, "passed": int(passed[-1]) if passed else None,
            "failed": _FAILED.findall(done.stdout),
            "stderr_lines": len(stderr), "stderr_tail": stderr[-5:]}


def read_records(folder: Path) -> list[dict]:
    """The records of ``folder``'s ``test_suite.jsonl`` (none if it does not exist)."""
    path = folder / RECORDS
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} min"


HEADERS = ["date", "command", "as run", "wall", "CPU", "load", "exit status", "tests passed",
           "tests failed", "stderr lines"]
NOTES = ("Wall and CPU time of README's test command and of its quick reproduction, run from "
         "the checkout on a shared 2-core machine, one row per run (the line under the title "
         "is the newest run's machine and load); the load is the 1-minute average before and "
         "after (other users' jobs included; README quotes the larger).  CPU time counts "
         "every process the command started.  `stderr lines`: what the command wrote on "
         "stderr, progress lines aside (a green test run writes none).  README's figures are "
         "those of the newest run (`tests/benchmarks/test_durations.py`); the records are in "
         "`test_suite.jsonl`.")


def rows(records: list[dict]) -> list[tuple]:
    """The table's rows: one per record, newest last."""
    return [(r["date"], r["command"], f"`{r['argv']}`", _minutes(r["wall_s"]),
             _minutes(r["cpu_s"]), f"{r['load_before']:.1f} → {r['load_after']:.1f}",
             r["status"], "—" if r["passed"] is None else r["passed"],
             ", ".join(f"`{name}`" for name in r["failed"]) or "—", r["stderr_lines"])
            for r in records]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args = _report.start(parser, argv)
    folder = _report.results_folder(args.quick)
    folder.mkdir(parents=True, exist_ok=True)
    records = read_records(folder)
    with tempfile.TemporaryDirectory(prefix="optmech-durations-") as scratch:
        for name, command in (QUICK if args.quick else FULL).items():
            records.append(measure(name, command, Path(scratch)))
    write_text(folder / RECORDS, "".join(json.dumps(r) + "\n" for r in records))
    _report.write_table("test_suite", "README's commands, timed", HEADERS, rows(records),
                        notes=NOTES)
    return 0


if __name__ == "__main__":
    sys.exit(main())
