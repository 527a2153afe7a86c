"""How long README's two commands take as a new user runs them: the test suite (``python -m
pytest -n 2``) and the quick reproduction (``optmech reproduce --quick``), on this machine
under the load it has.

Each run appends one record per command to ``results/test_suite.jsonl``: the command, its
wall and CPU seconds (every process it started: ``RUSAGE_CHILDREN``), the 1-minute load
average before and after, the exit status, the tests passed, and the lines the command
wrote on stderr (a green test run writes none: a ``KeyboardInterrupt`` traceback there
after the summary was a fault); then ``results/test_suite.md`` is rewritten from all
records, newest last.  A shared machine's load changes a run's wall time (the same suite
took 4.5 minutes alone and 12.6 beside other jobs), so README states the CPU time and the
wall time with the load it was measured at, and ``tests/benchmarks/test_durations.py``
holds README's figures to these records.

``--quick``: one small test file and one area of the reproduction, into
``results/quick/`` (the machinery only; its times say nothing about README's).
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import _report
from lp_models.atomic import write_text
from optmech.tables import markdown_table

ROOT = Path(__file__).resolve().parent.parent
RECORDS = "test_suite.jsonl"
# README's two commands after the install, as a new user runs them from the checkout
FULL = {"tests": [sys.executable, "-m", "pytest", "-n", "2"],
        "reproduce": [sys.executable, "-m", "optmech", "reproduce", "--quick", "--quiet"]}
QUICK = {"tests": [sys.executable, "-m", "pytest", "-n", "2", "tests/test_citation.py"],
         "reproduce": [sys.executable, "-m", "optmech", "reproduce", "--quick", "--quiet",
                       "--only", "beyond"]}
_PASSED = re.compile(r"(\d+) passed")


def _cpu_of_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(name: str, argv: list[str], folder: Path) -> dict:
    """Run ``argv`` from the checkout (``reproduce`` writes into ``folder``) and return its
    record."""
    if name == "reproduce":
        argv = [*argv, "--out", str(folder / "reproduce-out")]
    load_before, cpu_before, start = _report.load_average(), _cpu_of_children(), \
        time.monotonic()
    done = subprocess.run(argv, cwd=ROOT, capture_output=True, text=True)
    wall, cpu = time.monotonic() - start, _cpu_of_children() - cpu_before
    passed = _PASSED.findall(done.stdout)
    stderr = [line for line in done.stderr.splitlines() if line.strip()]
    return {"date": _dt.date.today().isoformat(), "machine": _report.machine_line(),
            "command": name, "argv": " ".join(Path(argv[0]).name if i == 0 else a
                                              for i, a in enumerate(argv)),
            "wall_s": round(wall, 1), "cpu_s": round(cpu, 1),
            "load_before": round(load_before, 2), "load_after": round(_report.load_average(), 2),
            "status": done.returncode, "passed": int(passed[-1]) if passed else None,
            "stderr_lines": len(stderr), "stderr_tail": stderr[-5:]}


def read_records(folder: Path) -> list[dict]:
    """The records of ``folder``'s ``test_suite.jsonl`` (none if it does not exist)."""
    path = folder / RECORDS
    if not path.is_file():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _minutes(seconds: float) -> str:
    return f"{seconds / 60:.1f} min"


def render(records: list[dict]) -> str:
    """The Markdown page of ``records``: one row per record, newest last."""
    rows = [(r["date"], r["command"], f"`{r['argv']}`", _minutes(r["wall_s"]),
             _minutes(r["cpu_s"]), f"{r['load_before']:.1f} → {r['load_after']:.1f}",
             r["status"], "—" if r["passed"] is None else r["passed"], r["stderr_lines"])
            for r in records]
    machines = sorted({r["machine"] for r in records})
    return "\n".join([
        "## README's commands, timed", "",
        "Wall and CPU time of README's test command and of its quick reproduction, run "
        "from the checkout on a shared 2-core machine; the load is the 1-minute average "
        "before and after (other users' jobs included).  CPU time counts every process "
        "the command started.  `stderr lines`: what the command wrote on stderr (a green "
        "test run writes none).  Written by `python -m benchmarks.test_suite`, one row per "
        "run; README's figures are checked against these rows "
        "(`tests/benchmarks/test_durations.py`).", "",
        *(f"_{machine}_" for machine in machines), "",
        *markdown_table(["date", "command", "as run", "wall", "CPU", "load", "exit status",
                         "tests passed", "stderr lines"], rows), ""])


def main(argv=None) -> int:
    args = _report.start(argparse.ArgumentParser(description=__doc__.splitlines()[0]), argv)
    folder = _report.results_folder(args.quick)
    folder.mkdir(parents=True, exist_ok=True)
    records = read_records(folder)
    with tempfile.TemporaryDirectory(prefix="optmech-durations-") as scratch:
        for name, command in (QUICK if args.quick else FULL).items():
            record = measure(name, command, Path(scratch))
            records.append(record)
            print(json.dumps(record), flush=True)
    write_text(folder / RECORDS, "".join(json.dumps(r) + "\n" for r in records))
    write_text(folder / "test_suite.md", render(records))
    return 0


if __name__ == "__main__":
    sys.exit(main())
