"""Certified brackets on the lattice LP below the chain-dual threshold: width reached vs time.

Table ``benchmarks/results/lattice_bound.md``: for each ``(n, k, eps)`` the relative width
``(U - L) / L`` that :func:`optmech.lattice.bound.bound_lattice` (restarted PDHG, no LP solver)
reached, its wall and CPU seconds, peak memory, PDHG steps and PF's optimality-ratio bracket
``[T_PF / U, T_PF / L]``; against the exact path in the same run where it is attempted
(:func:`optmech.lattice.optimum.solve_lattice`, HiGHS, with a time limit): its seconds, and
whether its certified optimum lies in the bracket.

Each measurement runs in its own process (its own peak memory), once: the large cells take
minutes on a shared 2-core machine, so the table reports single runs with the load average at
the start of each, not medians.  Every cell is appended to
``benchmarks/results/lattice_bound.jsonl`` (one JSON object per line) and the table is
rebuilt from the newest record of each cell, so a long cell can be run on its own (``--sizes
12 --eps 0.5``, e.g. in the background) and joins the table.

Run: ``python -m benchmarks.lattice_bound [--quick] [--sizes 8,9,10] [--eps 0.5,0.3,0.1]
[--time-limit S] [--exact-max N] [--tol T]``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from benchmarks._report import peak_rss_mib, results_folder, run_isolated, start, write_table
from benchmarks._timing import SYSTEM_CLOCK

RECORDS = "lattice_bound.jsonl"       # every run, in the results folder of the run
FULL_SIZES = (8, 9, 10)
QUICK_SIZES = (5, 6)
EPSILONS = (0.5, 0.3, 0.1)


def bound_worker(n: int, eps: float, tol: float, time_limit: float) -> dict:
    from optmech.lattice.bound import bound_lattice, bracket_ratios

    load = os.getloadavg()[0]
    wall, cpu = SYSTEM_CLOCK.wall(), SYSTEM_CLOCK.cpu()
    bracket = bound_lattice(n, n, eps, tol=tol, time_limit=time_limit,
                            log=lambda line: print(line, file=sys.stderr, flush=True))
    wall, cpu = SYSTEM_CLOCK.wall() - wall, SYSTEM_CLOCK.cpu() - cpu
    pf_lo, pf_hi = bracket_ratios(bracket, ["pf"])["pf"]
    return {"kind": "bound", "n": n, "k": n, "epsilon": eps, "tol": tol,
            "time_limit": time_limit, "lower": bracket.lower, "upper": bracket.upper,
            "relative_width": bracket.relative_width, "status": bracket.status,
            "iterations": bracket.iterations, "seconds": wall, "cpu_seconds": cpu,
            "pf_ratio": [pf_lo, pf_hi], "variables": bracket.num_variables,
            "rows": bracket.num_constraints, "peak_mib": peak_rss_mib(), "load": load}


def exact_worker(n: int, eps: float, time_limit: float) -> dict:
    from lp_models.program import SolverError
    from optmech.lattice.optimum import solve_lattice

    load = os.getloadavg()[0]
    wall, cpu = SYSTEM_CLOCK.wall(), SYSTEM_CLOCK.cpu()
    try:
        total, status = solve_lattice(n, n, eps, time_limit=time_limit).total_error, "optimal"
    except SolverError as error:
        total, status = None, error.status
    return {"kind": "exact", "n": n, "k": n, "epsilon": eps, "time_limit": time_limit,
            "total_error": total, "status": status, "seconds": SYSTEM_CLOCK.wall() - wall,
            "cpu_seconds": SYSTEM_CLOCK.cpu() - cpu, "peak_mib": peak_rss_mib(),
            "load": load}


def _measure(records: Path, *args: str) -> dict:
    record = json.loads(run_isolated("benchmarks.lattice_bound", "--worker", *args
                                     ).strip().splitlines()[-1])
    with records.open("a") as out:
        out.write(json.dumps(record) + "\n")
    return record


def _newest(path: Path) -> dict:
    """The newest record of each (kind, n, epsilon) in the records file."""
    records = {}
    if path.exists():
        for line in path.read_text().splitlines():
            r = json.loads(line)
            records[r["kind"], r["n"], r["epsilon"]] = r
    return records


def table(path: Path) -> None:
    records = _newest(path)
    rows = []
    for (kind, n, eps), r in sorted(records.items(), key=lambda item: item[0][1:]):
        if kind != "bound":
            continue
        exact = records.get(("exact", n, eps))
        if exact is None:
            exact_cell, inside = "not run", "—"
        elif exact["total_error"] is None:
            exact_cell, inside = f">{exact['seconds']:.0f} ({exact['status']})", "—"
        else:
            exact_cell = f"{exact['seconds']:.3g} ({exact['cpu_seconds']:.3g} CPU)"
            inside = "yes" if r["lower"] <= exact["total_error"] <= r["upper"] else "NO"
        rows.append((n, n, eps, r["variables"], f"{r['tol']:g}", r["status"],
                     f"{r['relative_width']:.2e}", f"{r['seconds']:.3g}",
                     f"{r['cpu_seconds']:.3g}", r["iterations"], f"{r['peak_mib']:.0f}",
                     f"[{r['pf_ratio'][0]:.6f}, {r['pf_ratio'][1]:.6f}]", exact_cell, inside,
                     f"{r['load']:.1f}"))
    notes = (
        "One run per cell on a shared 2-core machine (other engineers' jobs running; 'load' "
        "is the 1-minute load average when the cell started), so wall seconds include waiting "
        "for a core; CPU seconds are this process's.  'bound' = bound_lattice(n, n, eps, "
        "tol, time_limit) with the regular constraint set and lattice weighting, including "
        "the class table and the certificates (L recomputed from the dual point, U's point "
        "checked against every row including every monotonicity row).  status 'time_limit': "
        "the width reached when the cell's time limit ran out (the bracket is still "
        "certified).  'PF ratio' is [T_PF / U, T_PF / L].  'exact s' = solve_lattice(n, n, "
        "eps) (HiGHS) with the same time limit, in its own process in the same run; 'in "
        "bracket': whether its certified optimum lies in [L, U].  A cell run again shows its newest "
        "run; every run is kept in lattice_bound.jsonl.")
    write_table("lattice_bound", "Lattice LP below the PF threshold: certified brackets by "
                "restarted PDHG",
                ["n", "k", "eps", "variables", "tol", "status", "width reached", "wall s",
                 "CPU s", "PDHG steps", "peak MiB", "PF ratio", "exact s", "in bracket",
                 "load"], rows, notes)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=None, help="comma list of n = k")
    parser.add_argument("--eps", default=",".join(map(str, EPSILONS)))
    parser.add_argument("--tol", type=float, default=1e-4)
    parser.add_argument("--time-limit", type=float, default=300.0, help="per cell")
    parser.add_argument("--exact-max", type=int, default=8,
                        help="largest n = k at which the exact path is run as the baseline")
    parser.add_argument("--table-only", action="store_true",
                        help="rebuild the table from the records file")
    parser.add_argument("--worker", nargs="+", default=None)
    args = start(parser, argv)                      # --quick: n = k = 5, 6 only
    records = results_folder(args.quick) / RECORDS
    if args.worker:
        kind, n, eps, *rest = args.worker
        record = (bound_worker(int(n), float(eps), float(rest[0]), float(rest[1]))
                  if kind == "bound" else exact_worker(int(n), float(eps), float(rest[0])))
        print(json.dumps(record))
        return
    if not args.table_only:
        sizes = ([int(v) for v in args.sizes.split(",")] if args.sizes
                 else QUICK_SIZES if args.quick else FULL_SIZES)
        for n in sizes:
            for eps in (float(v) for v in args.eps.split(",")):
                _measure(records, "bound", str(n), repr(eps), repr(args.tol),
                         repr(args.time_limit))
                if n <= args.exact_max:
                    _measure(records, "exact", str(n), repr(eps), repr(args.time_limit))
    table(records)


if __name__ == "__main__":
    main()
