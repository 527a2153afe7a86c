"""The optimal top-k LP at scale, and the optimality ratios of the top-k mechanisms.

Table ``benchmarks/results/topk_lp.md``, two parts:

1. Sizes.  For T = 2 and T = 3 and a frontier of ``(n, k)`` (per ``n`` the depths around
   10 CPU minutes), the LP's variables, rows and nonzeros and one certified solve
   (``optmech.topk.solve_topk``, eps = 0.5, ordered tuples, regular constraints, method
   "auto": HiGHS's interior point with crossover) in its own process: CPU seconds
   (``time.process_time``, all threads), wall seconds, peak RSS, certified gap.  One run per
   cell (a solve takes minutes at the large sizes); a cell whose HiGHS time limit
   (``--time-limit``, wall seconds) runs out is reported as such.  Each cell is appended to
   ``benchmarks/results/topk_lp.jsonl`` (with the commit measured) when it ends, and the
   table is rebuilt from the newest record of every cell, so cells can be run on their own
   (``--cells 3:6:6,2:8:5``) and join it.
2. Ratios (``topk_lp_ratios.md``).  The optimality ratio of every mechanism of
   ``optmech.topk.TOPK_MECHANISMS`` (calibrated for the general relation) at n = 4 and 5,
   k = 4, T = 2 and eps in {0.1, 0.25, 0.5, 1, 2, 4}, against the regular LP over ordered
   tuples (monotonicity rows), the private LP over ordered tuples (every symmetric eps-DP
   mechanism) and the private LP over sets; a mechanism outside the regular LP's class (not
   monotonic) is marked with an asterisk there.

Run: ``python -m benchmarks.topk_lp [--quick] [--only sizes|ratios] [--cells T:N:K,...]
[--table-only] [--time-limit S]`` (the full sizes take hours of wall time on a shared 2-core
machine).
"""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

from benchmarks._report import (
    load_average,
    peak_rss_mib,
    results_folder,
    run_isolated,
    start,
    write_table,
)
from benchmarks._timing import SYSTEM_CLOCK

FULL_SIZES = {2: [(4, 4), (5, 6), (6, 6), (6, 7), (7, 5), (8, 4), (9, 4), (10, 3)],
              3: [(4, 4), (5, 6), (6, 4), (6, 5), (5, 7), (7, 4), (8, 3)]}
QUICK_SIZES = {2: [(4, 4), (5, 5)], 3: [(4, 3), (5, 4)]}
RATIO_NS = (4, 5)
RATIO_K, RATIO_TOP = 4, 2
RATIO_EPSILONS = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0)
SIZE_EPSILON = 0.5
LIMIT_CPU = 600.0
RECORDS = "topk_lp.jsonl"


def worker(top: int, n: int, k: int, time_limit: float) -> dict:
    """One certified solve in this process: its size, times, peak memory and certificate."""
    from lp_models.program import SolverError
    from optmech.topk import solve_topk

    wall, cpu = SYSTEM_CLOCK.wall(), SYSTEM_CLOCK.cpu()
    record = {"top": top, "n": n, "k": k, "load": load_average()}
    try:
        optimum = solve_topk(n, k, SIZE_EPSILON, top, time_limit=time_limit)
    except SolverError as error:
        record.update(status=error.status, variables=error.num_cols, rows=error.num_rows,
                      nonzeros=error.num_nonzeros, gap=None)
    else:
        record.update(status=optimum.status, variables=optimum.num_variables,
                      rows=optimum.num_constraints, nonzeros=optimum.num_nonzeros,
                      gap=optimum.gap, refined=optimum.refined,
                      total_error=optimum.total_error)
    record.update(cpu=SYSTEM_CLOCK.cpu() - cpu, wall=SYSTEM_CLOCK.wall() - wall,
                  peak_mib=peak_rss_mib())
    return record


def _commit() -> str:
    """The commit measured (``+`` when the tree has uncommitted changes)."""
    root = Path(__file__).resolve().parent.parent
    done = subprocess.run(["git", "describe", "--always", "--dirty=+"], cwd=root, text=True,
                          capture_output=True)
    return done.stdout.strip() or "—"


def measure_cells(cells: list[tuple[int, int, int]], time_limit: float, quick: bool) -> None:
    """Measure each ``(T, n, k)`` (in its own process unless quick) and append its record."""
    path = results_folder(quick) / RECORDS
    path.parent.mkdir(parents=True, exist_ok=True)
    for top, n, k in cells:
        if quick:
            record = worker(top, n, k, time_limit)
        else:
            out = run_isolated("benchmarks.topk_lp", "--worker", str(top), str(n), str(k),
                               repr(time_limit))
            record = json.loads(out.strip().splitlines()[-1])
        record["commit"] = _commit()
        with path.open("a") as records:
            records.write(json.dumps(record) + "\n")
        print(json.dumps(record), flush=True)


def size_rows(quick: bool) -> list[tuple]:
    """One row per cell of the records file: its newest record."""
    path = results_folder(quick) / RECORDS
    newest = {}
    for line in (path.read_text().splitlines() if path.exists() else []):
        record = json.loads(line)
        newest[(record["top"], record["n"], record["k"])] = record
    rows = []
    for key in sorted(newest):
        record = newest[key]
        solved = record["gap"] is not None
        rows.append((*key, record["variables"], record["rows"], record["nonzeros"],
                     f"{record['cpu']:.1f}" + ("" if solved else f" ({record['status']})"),
                     f"{record['wall']:.0f}", f"{record['peak_mib']:.0f}",
                     "—" if not solved else f"{record['gap']:.1e}",
                     "yes" if solved and record["cpu"] <= LIMIT_CPU else "no",
                     f"{record['load']:.1f}", record.get("commit", "—")))
    return rows


# (constraints, ordered) of the ratio table's LPs
RATIO_LPS = (("regular", True), ("private", True), ("private", False))


def ratio_rows(ns=RATIO_NS, epsilons=RATIO_EPSILONS) -> tuple[list[str], list[tuple]]:
    from optmech.topk import TOPK_MECHANISMS, solve_topk, topk_ratios

    rows = []
    for n in ns:
        for constraints, ordered in RATIO_LPS:
            for eps in epsilons:
                optimum = solve_topk(n, RATIO_K, eps, RATIO_TOP, ordered=ordered,
                                     constraints=constraints)
                cells = [f"{r.ratio:.4f}" + ("" if r.feasible else "*")
                         for r in topk_ratios(optimum)]
                rows.append((n, f"{constraints}, {'tuples' if ordered else 'sets'}", eps,
                             f"{optimum.total_error:.6g}", *cells))
                print(" | ".join(map(str, rows[-1])), flush=True)
    return list(TOPK_MECHANISMS), rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("sizes", "ratios"), default=None)
    parser.add_argument("--time-limit", type=float, default=4 * 3600.0,
                        help="HiGHS wall-clock limit per solve (default 4 h)")
    parser.add_argument("--cells", default=None, metavar="T:N:K,...",
                        help="measure only these cells (default: the frontier)")
    parser.add_argument("--table-only", action="store_true",
                        help="rebuild the sizes table from the records, measure nothing")
    parser.add_argument("--worker", nargs=4, default=None,
                        metavar=("TOP", "N", "K", "TIME_LIMIT"))
    args = start(parser, argv)
    if args.worker:
        top, n, k, limit = args.worker
        print(json.dumps(worker(int(top), int(n), int(k), float(limit))))
        return
    if args.only != "ratios":
        sizes = QUICK_SIZES if args.quick else FULL_SIZES
        cells = ([tuple(int(v) for v in cell.split(":")) for cell in args.cells.split(",")]
                 if args.cells else [(top, n, k) for top, pairs in sizes.items()
                                     for n, k in pairs])
        if not args.table_only:
            measure_cells(cells, args.time_limit, args.quick)
        rows = size_rows(args.quick)
        write_table(
            "topk_lp", "Optimal top-k LP: sizes solved exactly",
            ["T", "n", "k", "variables", "rows", "nonzeros", "CPU s", "wall s", "peak MiB",
             "gap", f"within {LIMIT_CPU / 60:g} CPU min", "load", "commit"], rows,
            notes=(f"One certified solve per cell (solve_topk(n, k, {SIZE_EPSILON}, T): "
                   "ordered tuples, regular constraints, l1 objective; method auto = HiGHS "
                   "interior point with crossover, primal and dual tolerances 1e-10), in its "
                   "own process: CPU seconds of the process (all threads) for enumerating, "
                   "building, solving, refining and certifying; wall seconds; peak RSS; the "
                   "certified relative gap.  'load': the 1-minute load average when the "
                   "cell started (the machine is shared; wall time is not comparable "
                   "between cells, CPU time is).  The frontier is per n the depths k around "
                   f"{LIMIT_CPU / 60:g} CPU minutes.  Records: {RECORDS} in this folder."))
    if args.only != "sizes":
        mechanisms, rows = ratio_rows((4,) if args.quick else RATIO_NS,
                                      RATIO_EPSILONS[::2] if args.quick else RATIO_EPSILONS)
        write_table(
            "topk_lp_ratios", f"Optimality ratios of the top-k mechanisms (k = {RATIO_K}, "
            f"T = {RATIO_TOP})", ["n", "LP", "eps", "optimum's total error", *mechanisms],
            rows,
            notes=("Ratio = the mechanism's expected l1 error summed over the bounded "
                   "lattice / the certified optimum's (exact: pmfs of every class, weighted "
                   "by its multiplicity).  Ordered outputs, compared position by position "
                   "(the canonical Lipschitz mechanism releases a set, there in random "
                   "order).  Every mechanism is calibrated for the general relation (every "
                   "score moves by at most 1).  'regular': the LP with the monotonicity "
                   "rows (for T = 1 the permute-and-flip paper's regular LP); '*': the "
                   "mechanism is not monotonic in that sense (raising another item can "
                   "bring an item into the first i outputs more often), so it is outside "
                   "that LP's class.  'private': the optimum over every symmetric eps-DP "
                   "mechanism, a lower bound for every shift-invariant eps-DP mechanism.  "
                   "'sets': the LP over T-subsets, every mechanism's output read as a set "
                   "and compared in decreasing order of its scores (the canonical Lipschitz "
                   "mechanism's own comparison)."))


if __name__ == "__main__":
    main()
