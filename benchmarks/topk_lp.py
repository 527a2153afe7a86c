"""The optimal top-k LP at scale, and the optimality ratios of the top-k mechanisms.

Table ``benchmarks/results/topk_lp.md``, two parts:

1. Sizes.  For T = 2 and T = 3 and a frontier of ``(n, k)`` (per ``n`` the depths around
   10 CPU minutes), the LP's variables, rows and nonzeros and one certified solve
   (``optmech.topk.solve_topk``, eps = 0.5, ordered tuples, regular constraints, method
   "auto": HiGHS's interior point with crossover) in its own process: CPU seconds
   (``time.process_time``, all threads), wall seconds, peak RSS, certified gap.  One run per
   cell (a solve takes minutes at the large sizes); a cell whose HiGHS time limit
   (``--time-limit``, wall seconds) runs out is reported as such.
2. Ratios.  The optimality ratio of every mechanism of ``optmech.topk.TOPK_MECHANISMS``
   (calibrated for the general relation) at n = 4 and 5, k = 4, T = 2 and eps in {0.1,
   0.25, 0.5, 1, 2, 4}, against the regular LP (monotonicity rows) and the private LP
   (every symmetric eps-DP mechanism); a mechanism outside the regular LP's class (not
   monotonic) is marked with an asterisk there.

Run: ``python -m benchmarks.topk_lp [--quick] [--only sizes|ratios] [--time-limit S]``
(the full sizes take hours of wall time on a shared 2-core machine).
"""

from __future__ import annotations

import argparse
import json
import time

from benchmarks._report import load_average, peak_rss_mib, run_isolated, start, write_table

FULL_SIZES = {2: [(4, 4), (5, 6), (6, 6), (6, 8), (7, 6), (8, 5), (9, 4), (10, 3)],
              3: [(4, 4), (5, 6), (6, 5), (5, 9), (6, 6), (7, 4), (8, 4), (9, 3)]}
QUICK_SIZES = {2: [(4, 4), (5, 5)], 3: [(4, 3), (5, 4)]}
RATIO_NS = (4, 5)
RATIO_K, RATIO_TOP = 4, 2
RATIO_EPSILONS = (0.1, 0.25, 0.5, 1.0, 2.0, 4.0)
SIZE_EPSILON = 0.5
LIMIT_CPU = 600.0


def worker(top: int, n: int, k: int, time_limit: float) -> dict:
    """One certified solve in this process: its size, times, peak memory and certificate."""
    from lp_models.program import SolverError
    from optmech.topk import solve_topk

    wall, cpu = time.perf_counter(), time.process_time()
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
    record.update(cpu=time.process_time() - cpu, wall=time.perf_counter() - wall,
                  peak_mib=peak_rss_mib())
    return record


def size_rows(sizes: dict, time_limit: float, isolated: bool) -> list[tuple]:
    rows = []
    for top, pairs in sizes.items():
        for n, k in pairs:
            if isolated:
                out = run_isolated("benchmarks.topk_lp", "--worker", str(top), str(n), str(k),
                                   repr(time_limit))
                record = json.loads(out.strip().splitlines()[-1])
            else:
                record = worker(top, n, k, time_limit)
            solved = record["gap"] is not None
            within = "yes" if solved and record["cpu"] <= LIMIT_CPU else "no"
            row = (top, n, k, record["variables"], record["rows"], record["nonzeros"],
                   f"{record['cpu']:.1f}" + ("" if solved else f" ({record['status']})"),
                   f"{record['wall']:.0f}", f"{record['peak_mib']:.0f}",
                   "—" if not solved else f"{record['gap']:.1e}", within,
                   f"{record['load']:.1f}")
            rows.append(row)
            print(" | ".join(map(str, row)), flush=True)
    return rows


def ratio_rows(ns=RATIO_NS, epsilons=RATIO_EPSILONS) -> tuple[list[str], list[tuple]]:
    from optmech.topk import TOPK_MECHANISMS, solve_topk, topk_ratios

    rows = []
    for n in ns:
        for constraints in ("regular", "private"):
            for eps in epsilons:
                optimum = solve_topk(n, RATIO_K, eps, RATIO_TOP, constraints=constraints)
                cells = [f"{r.ratio:.4f}" + ("" if r.feasible else "*")
                         for r in topk_ratios(optimum)]
                rows.append((n, constraints, eps, f"{optimum.total_error:.6g}", *cells))
                print(" | ".join(map(str, rows[-1])), flush=True)
    return list(TOPK_MECHANISMS), rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", choices=("sizes", "ratios"), default=None)
    parser.add_argument("--time-limit", type=float, default=4 * 3600.0,
                        help="HiGHS wall-clock limit per solve (default 4 h)")
    parser.add_argument("--worker", nargs=4, default=None,
                        metavar=("TOP", "N", "K", "TIME_LIMIT"))
    args = start(parser, argv)
    if args.worker:
        top, n, k, limit = args.worker
        print(json.dumps(worker(int(top), int(n), int(k), float(limit))))
        return
    if args.only != "ratios":
        rows = size_rows(QUICK_SIZES if args.quick else FULL_SIZES, args.time_limit,
                         not args.quick)
        write_table(
            "topk_lp", "Optimal top-k LP: sizes solved exactly",
            ["T", "n", "k", "variables", "rows", "nonzeros", "CPU s", "wall s", "peak MiB",
             "gap", f"within {LIMIT_CPU / 60:g} CPU min", "load"], rows,
            notes=(f"One certified solve per cell (solve_topk(n, k, {SIZE_EPSILON}, T): "
                   "ordered tuples, regular constraints, l1 objective; method auto = HiGHS "
                   "interior point with crossover, primal and dual tolerances 1e-10), in its "
                   "own process: CPU seconds of the process (all threads) for enumerating, "
                   "building, solving, refining and certifying; wall seconds; peak RSS; the "
                   "certified relative gap.  'load': the 1-minute load average when the "
                   "cell started (the machine is shared; wall time is not comparable "
                   "between cells, CPU time is).  The frontier is per n the depths k around "
                   f"{LIMIT_CPU / 60:g} CPU minutes."))
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
                   "(the canonical Lipschitz mechanism releases a set, here in random "
                   "order).  Every mechanism is calibrated for the general relation (every "
                   "score moves by at most 1).  'regular': the LP with the monotonicity "
                   "rows (for T = 1 the permute-and-flip paper's regular LP); '*': the "
                   "mechanism is not monotonic in that sense (raising another item can "
                   "bring an item into the first i outputs more often), so it is outside "
                   "that LP's class.  'private': the optimum over every symmetric eps-DP "
                   "mechanism, a lower bound for every shift-invariant eps-DP mechanism."))


if __name__ == "__main__":
    main()
