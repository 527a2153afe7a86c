"""Certified brackets on the lattice LP below the chain-dual threshold: width reached vs time.

Table ``benchmarks/results/lattice_bound.md``: for each ``(n, k, eps, tol)`` the relative width
``(U - L) / L`` that :func:`optmech.lattice.bound.bound_lattice` (restarted PDHG, no LP solver)
reached, its CPU and wall seconds (median [min, max] over the runs), peak memory, PDHG steps
and PF's optimality-ratio bracket ``[T_PF / U, T_PF / L]``; runs with ``--extra-load 2`` have
two busy Python processes (``while True: pass``) running beside them, as a loaded machine
would.  Baseline rows, on the same LP (the reduced regular LP with every monotonicity row):
HiGHS's own first-order method PDLP to its default tolerances (``--pdlp``), with its CPU
seconds, the relative gap of its objective to the bracket and its largest row violation
(a point with any violation is not a private mechanism), and the exact path
(:func:`optmech.lattice.optimum.solve_lattice`, HiGHS simplex; ``--exact-max``).

Each measurement runs in its own process (its own peak memory) and is appended to
``benchmarks/results/lattice_bound.jsonl`` (one JSON object per line, with ``revision``: the
last commit that changed ``lp_models/`` or ``optmech/``, ``+`` when they had uncommitted
changes); the table is rebuilt from the newest ``--keep`` records of each cell measured with
the code of its newest record, so long cells can be run on their own (``--sizes 12 --eps 0.5
--tol 1e-3 --time-limit 1800``) and join the table, and older code's runs leave its medians.

Run: ``python -m benchmarks.lattice_bound [--quick] [--sizes 8,9,10] [--eps 0.5,0.3,0.1]
[--tol T] [--time-limit S] [--repeats R] [--extra-load N] [--pdlp] [--exact-max N]
[--table-only]``.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

from benchmarks._report import (
    load_average,
    peak_rss_mib,
    results_folder,
    run_isolated,
    start,
    write_table,
)
from benchmarks._timing import SYSTEM_CLOCK, Runs, format_number
from lp_models.atomic import write_text

RECORDS = "lattice_bound.jsonl"       # every run, in the results folder of the run
FULL_SIZES = (8, 9, 10)
QUICK_SIZES = (5, 6)
EPSILONS = (0.5, 0.3, 0.1)
KEEP = 5                               # newest runs of a cell shown in the table


def _clocks():
    return SYSTEM_CLOCK.wall(), SYSTEM_CLOCK.cpu(), load_average()


def bound_worker(n: int, eps: float, tol: float, time_limit: float, extra: int) -> dict:
    from optmech.lattice.bound import bound_lattice, bracket_ratios

    with _busy(extra):
        wall, cpu, load = _clocks()
        bracket = bound_lattice(n, n, eps, tol=tol, time_limit=time_limit,
                                log=lambda line: print(line, file=sys.stderr, flush=True))
        wall, cpu = SYSTEM_CLOCK.wall() - wall, SYSTEM_CLOCK.cpu() - cpu
    pf_lo, pf_hi = bracket_ratios(bracket, ["pf"])["pf"]
    return {"kind": "bound", "n": n, "k": n, "epsilon": eps, "tol": tol, "extra_load": extra,
            "time_limit": time_limit, "lower": bracket.lower, "upper": bracket.upper,
            "relative_width": bracket.relative_width, "status": bracket.status,
            "iterations": bracket.iterations, "seconds": wall, "cpu_seconds": cpu,
            "pf_ratio": [pf_lo, pf_hi], "variables": bracket.num_variables,
            "rows": bracket.num_constraints, "peak_mib": peak_rss_mib(), "load": load}


def finish_worker(n: int, eps: float, tol: float, time_limit: float) -> dict:
    """The bracket to ``tol`` and then its exact finish (HiGHS's simplex from the basis its
    PDHG point gives, row generation), each phase's CPU seconds apart, within one time
    limit: what ``bound_lattice(..., exact=True)`` runs."""
    from lp_models.lattice.bracket import bracket_lattice_lp
    from lp_models.lattice.certificates import LatticeUnits
    from lp_models.program import SolverError
    from optmech.lattice.inputs import lattice_table
    from optmech.lattice.optimum import EXACT_GAP, finish_bracket

    wall, cpu, load = _clocks()
    deadline = wall + time_limit
    classes = lattice_table(n, n, "bound")
    run = bracket_lattice_lp(classes, eps, tol=tol, deadline=deadline,
                             callback=lambda seconds, steps, lower, upper: print(
                                 f"{seconds:8.1f} s {steps:7d} steps [{lower!r}, {upper!r}]",
                                 file=sys.stderr, flush=True))
    bracket_wall, bracket_cpu = SYSTEM_CLOCK.wall() - wall, SYSTEM_CLOCK.cpu() - cpu
    scale = float(classes.multiplicity.sum())
    total = lower_bound = None
    try:
        optimum, _ = finish_bracket(run, LatticeUnits(classes, eps), "lattice", "regular",
                                    deadline)
        total, lower_bound = optimum.total_error, optimum.lower_bound
        status = "exact" if total - lower_bound <= EXACT_GAP * lower_bound else "converged"
    except SolverError as error:
        status = error.status
    return {"kind": "finish", "n": n, "k": n, "epsilon": eps, "tol": tol, "extra_load": 0,
            "time_limit": time_limit, "lower": run.lower * scale, "upper": run.upper * scale,
            "relative_width": run.relative_width, "status": status,
            "total_error": total, "lower_bound": lower_bound,
            "bracket_cpu_seconds": bracket_cpu, "bracket_seconds": bracket_wall,
            "seconds": SYSTEM_CLOCK.wall() - wall, "cpu_seconds": SYSTEM_CLOCK.cpu() - cpu,
            "variables": classes.num_variables, "peak_mib": peak_rss_mib(), "load": load}


def pdlp_worker(n: int, eps: float, time_limit: float) -> dict:
    """HiGHS's PDLP on the reduced regular LP with every monotonicity row."""
    from lp_models.lattice import reduced_lattice_lp
    from lp_models.program import SolverError, solve

    lp = reduced_lattice_lp(n, n, eps, constraints="regular")
    wall, cpu, load = _clocks()
    try:
        sol = solve(lp, "pdlp", time_limit=time_limit, feasibility_tolerance=1.0)
        total, status = lp.objective_in_units(sol.objective), sol.status
        violation = lp.max_violation(sol.x)
    except SolverError as error:
        total, status, violation = None, error.status, None
    return {"kind": "pdlp", "n": n, "k": n, "epsilon": eps, "time_limit": time_limit,
            "total_error": total, "status": status, "max_violation": violation,
            "seconds": SYSTEM_CLOCK.wall() - wall, "cpu_seconds": SYSTEM_CLOCK.cpu() - cpu,
            "peak_mib": peak_rss_mib(), "load": load, "extra_load": 0}


def exact_worker(n: int, eps: float, time_limit: float) -> dict:
    from lp_models.program import SolverError
    from optmech.lattice.optimum import solve_lattice

    wall, cpu, load = _clocks()
    try:
        total, status = solve_lattice(n, n, eps, time_limit=time_limit).total_error, "optimal"
    except SolverError as error:
        total, status = None, error.status
    return {"kind": "exact", "n": n, "k": n, "epsilon": eps, "time_limit": time_limit,
            "total_error": total, "status": status, "seconds": SYSTEM_CLOCK.wall() - wall,
            "cpu_seconds": SYSTEM_CLOCK.cpu() - cpu, "peak_mib": peak_rss_mib(),
            "load": load, "extra_load": 0}


class _busy:
    """``count`` busy Python processes (``while True: pass``) for the duration of a block."""

    def __init__(self, count: int):
        self.count = count
        self.processes = []

    def __enter__(self):
        self.processes = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                          for _ in range(self.count)]
        return self

    def __exit__(self, *exc):
        for process in self.processes:
            process.kill()
            process.wait()


def _measure(records: Path, *args: str) -> dict:
    record = json.loads(run_isolated("benchmarks.lattice_bound", "--worker", *args
                                     ).strip().splitlines()[-1])
    record["revision"] = _revision()
    records.parent.mkdir(parents=True, exist_ok=True)
    earlier = records.read_text() if records.is_file() else ""
    write_text(records, earlier + json.dumps(record) + "\n")   # whole, never through a link
    return record


MEASURED_CODE = ("lp_models", "optmech")     # the packages whose commit a record names


def _revision() -> str | None:
    """The last commit that changed the measured code (``+`` when it has uncommitted
    changes), or None outside a git checkout."""
    root = Path(__file__).resolve().parent.parent

    def git(*args: str) -> str:
        return subprocess.run(["git", *args, "--", *MEASURED_CODE], cwd=root, text=True,
                              capture_output=True, check=True).stdout.strip()

    try:
        commit = git("log", "-1", "--format=%h")
        dirty = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.CalledProcessError):
        return None
    return (commit + ("+" if dirty else "")) or None


def _cells(path: Path, keep: int) -> dict:
    """The newest ``keep`` records of each cell (kind, n, epsilon, tol, extra load) measured
    with the code of its newest record (records before revisions were kept count as one)."""
    cells: dict = {}
    if path.exists():
        for line in path.read_text().splitlines():
            r = json.loads(line)
            key = (r["kind"], r["n"], r["epsilon"], r.get("tol"), r.get("extra_load", 0))
            cells.setdefault(key, []).append(r)
    return {key: [r for r in runs if r.get("revision") == runs[-1].get("revision")][-keep:]
            for key, runs in cells.items()}


def _finish_note(run: dict) -> str:
    """What a finish run's value is against its own bracket: exact (certified to
    EXACT_GAP), a certified bracket of its own (a looser finish), or missing."""
    total, lower = run["total_error"], run["lower_bound"]
    if total is None:
        return "no exact value"
    if not run["lower"] <= total <= run["upper"]:
        return "OUTSIDE its bracket"
    if run["status"] == "exact":
        return "exact value in its own bracket"
    return (f"finish certified [{lower:,.3f}, {total:,.3f}] (gap "
            f"{(total - lower) / lower:.2g}: not exact) in its own bracket")


def _spread(values) -> str:
    """One value as it is, several as the other tables print repeated runs (median [min,
    max])."""
    values = tuple(values)
    return format_number(values[0]) if len(values) == 1 else str(Runs(values))


def table(path: Path, keep: int = KEEP) -> None:
    cells = _cells(path, keep)
    brackets = {(n, eps): runs for (kind, n, eps, _, _), runs in cells.items()
                if kind == "bound"}
    rows = []
    for (kind, n, eps, tol, extra), runs in sorted(cells.items(),
                                                     key=lambda c: (c[0][1], -c[0][2], c[0][0])):
        statuses = sorted({r["status"] for r in runs})
        common = [n, n, eps, kind, runs[-1].get("revision") or "—", extra, len(runs),
                  _spread(r["cpu_seconds"] for r in runs),
                  _spread(r["seconds"] for r in runs), f"{max(r['peak_mib'] for r in runs):.0f}",
                  _spread(r["load"] for r in runs)]
        if kind == "bound":
            best = min(runs, key=lambda r: r["relative_width"])
            rows.append(common + [f"{tol:g}", ", ".join(statuses),
                                  _spread(r["relative_width"] for r in runs),
                                  f"[{best['pf_ratio'][0]:.6f}, {best['pf_ratio'][1]:.6f}]",
                                  "—"])
            continue
        if kind == "finish":
            last = runs[-1]
            own = _finish_note(last)
            bracket = _spread(r["bracket_cpu_seconds"] for r in runs)
            finish = _spread(r["cpu_seconds"] - r["bracket_cpu_seconds"] for r in runs)
            rows.append(common + [f"{tol:g}", ", ".join(statuses),
                                  _spread(r["relative_width"] for r in runs), "—",
                                  f"bracket {bracket} + finish {finish} CPU s; {own}"])
            continue
        reference = brackets.get((n, eps))
        detail = "—"
        if runs[-1]["total_error"] is not None and reference:
            lower = max(r["lower"] for r in reference)
            upper = min(r["upper"] for r in reference)
            total = runs[-1]["total_error"]
            inside = "in bracket" if lower <= total <= upper else (
                f"{(total - upper) / upper:+.2e} vs upper" if total > upper
                else f"{(total - lower) / lower:+.2e} vs lower")
            violation = runs[-1].get("max_violation")
            detail = inside + ("" if violation is None else f"; violation {violation:.1e}")
        rows.append(common + ["—", ", ".join(statuses), "—", "—", detail])
    notes = (
        "Shared 2-core machine (other engineers' jobs running); 'load avg' is the 1-minute load "
        "average when each run started, 'extra load' the busy processes this benchmark ran "
        "beside it; CPU seconds are the measured process's own (medians [min, max] over the "
        "runs listed), wall seconds include waiting for a core; 'code' is the last commit "
        "that changed the measured packages (a cell shows the runs of its newest one; '—': "
        "before commits were recorded).  'bound' = bound_lattice(n, n, "
        "eps, tol, time_limit) with the regular constraint set and lattice weighting, including "
        "the class table and the certificates (L recomputed from the dual point, U's point "
        "checked against every row including every monotonicity row); status 'time_limit': "
        "the width reached when the run's time limit ran out (the bracket is still "
        "certified).  'PF ratio' is [T_PF / U, T_PF / L] of the narrowest run.  'pdlp' = "
        "HiGHS's PDLP on the reduced regular LP with every monotonicity row, to its default "
        "tolerances; 'exact' = solve_lattice (HiGHS simplex, certified to 1e-7); their value "
        "is compared with the bracket of the same cell.  'finish' = the bracket to tol, then "
        "its exact finish (optmech.lattice.optimum.finish_bracket: HiGHS's primal simplex from "
        "the basis of a forest of the rows tight at the PDHG point, row generation), both "
        "within the time limit; its status is 'exact' (certified to 1e-9), 'converged' (a finish certified only to 1e-7, reported as its bracket) or HiGHS's status "
        "when it did not finish, and its value is compared with its own bracket.  Every run "
        "is kept in "
        "lattice_bound.jsonl.")
    write_table("lattice_bound", "Lattice LP below the PF threshold: certified brackets by "
                "restarted PDHG",
                ["n", "k", "eps", "method", "code", "extra load", "runs", "CPU s", "wall s",
                 "peak MiB", "load avg", "tol", "status", "width reached", "PF ratio",
                 "value vs bracket"], rows, notes)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=None, help="comma list of n = k")
    parser.add_argument("--eps", default=",".join(map(str, EPSILONS)))
    parser.add_argument("--tol", type=float, default=1e-4)
    parser.add_argument("--time-limit", type=float, default=600.0, help="per run")
    parser.add_argument("--repeats", type=int, default=3, help="runs per bracket cell")
    parser.add_argument("--extra-load", type=int, default=0,
                        help="busy processes running beside each bracket run")
    parser.add_argument("--finish", action="store_true",
                        help="also run the bracket with its exact finish (once per cell)")
    parser.add_argument("--pdlp", action="store_true",
                        help="also run HiGHS's PDLP on the same LP (once per cell)")
    parser.add_argument("--exact-max", type=int, default=0,
                        help="largest n = k at which the exact path is run as a baseline")
    parser.add_argument("--keep", type=int, default=KEEP)
    parser.add_argument("--table-only", action="store_true",
                        help="rebuild the table from the records file")
    parser.add_argument("--worker", nargs="+", default=None)
    args = start(parser, argv)                      # --quick: n = k = 5, 6 only
    records = results_folder(args.quick) / RECORDS
    if args.worker:
        kind, n, eps, *rest = args.worker
        if kind == "bound":
            record = bound_worker(int(n), float(eps), float(rest[0]), float(rest[1]),
                                  int(rest[2]))
        elif kind == "finish":
            record = finish_worker(int(n), float(eps), float(rest[0]), float(rest[1]))
        elif kind == "pdlp":
            record = pdlp_worker(int(n), float(eps), float(rest[0]))
        else:
            record = exact_worker(int(n), float(eps), float(rest[0]))
        print(json.dumps(record))
        return
    if not args.table_only:
        sizes = ([int(v) for v in args.sizes.split(",")] if args.sizes
                 else QUICK_SIZES if args.quick else FULL_SIZES)
        for n in sizes:
            for eps in (float(v) for v in args.eps.split(",")):
                for _ in range(args.repeats):
                    _measure(records, "bound", str(n), repr(eps), repr(args.tol),
                             repr(args.time_limit), str(args.extra_load))
                if args.finish:
                    _measure(records, "finish", str(n), repr(eps), repr(args.tol),
                             repr(args.time_limit))
                if args.pdlp:
                    _measure(records, "pdlp", str(n), repr(eps), repr(args.time_limit))
                if n <= args.exact_max:
                    _measure(records, "exact", str(n), repr(eps), repr(args.time_limit))
    table(records, args.keep)


if __name__ == "__main__":
    main()
