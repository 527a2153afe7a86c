"""Benchmark the discretised multi-selection DILP (``python -m benchmarks.dilp [--quick]``).

Three tables in ``benchmarks/results/dilp.md``:

1. scale -- the issue's sizes (k = 2 line and ring with >= 400 grid points per axis, k = 3
   line with >= 100) and larger ones, solved chain by chain (primal and dual LPs, HiGHS);
2. speed-ups measured against baselines in the same process: chain by chain against the
   whole LP in one HiGHS solve, and the translation-invariant ring LP against the per-user
   LP (12) with its epigraph variable;
3. convergence of primal and dual to the closed forms as the grid is refined.
"""

from __future__ import annotations

import argparse
import time

from benchmarks._report import best_time, peak_rss_mib, write_table
from lp_models.dilp import ring_dilp, ring_dilp_per_user
from lp_models.program import solve
from optmech.multiselect.dilp import solve_dilp


def _timed(fn):
    started = time.perf_counter()
    result = fn()
    return time.perf_counter() - started, result


def scale_rows(quick: bool):
    cases = [("line", 2, 1.0, 401), ("ring", 2, 0.375, 400), ("line", 3, 1.0, 101)]
    if not quick:
        cases += [("line", 2, 1.0, 1001), ("line", 3, 1.0, 201)]
    rows = []
    for geometry, k, eps, grid in cases:
        seconds, r = _timed(lambda: solve_dilp(k, eps, grid, ring=geometry == "ring"))
        rows.append([f"{geometry} k={k} eps={eps:g}", r.grid, r.num_chains, r.num_cols,
                     r.num_rows, f"{r.primal:.6f}", f"{r.dual:.6f}", f"{r.gap:.1e}",
                     f"{r.laplace_cost:.6f}", round(r.solve_seconds, 2), round(seconds, 2)])
    return rows


def speedup_rows(quick: bool):
    rows = []
    for geometry, k, eps, grid in ([("line", 2, 1.0, 101), ("ring", 2, 1.0, 80)] if quick else
                                   [("line", 2, 1.0, 201), ("ring", 2, 1.0, 160),
                                    ("line", 3, 1.0, 61)]):
        ring = geometry == "ring"
        chains_t, fast = best_time(lambda: solve_dilp(k, eps, grid, ring=ring), repeat=1)
        joint_t, slow = best_time(lambda: solve_dilp(k, eps, grid, ring=ring, method="joint"),
                                  repeat=1)
        rows.append([f"{geometry} k={k} grid {fast.grid}: chains vs one LP", fast.num_cols,
                     round(fast.solve_seconds, 3), round(slow.solve_seconds, 3),
                     f"{slow.solve_seconds / fast.solve_seconds:.1f}x",
                     f"{abs(fast.primal - slow.primal):.1e}"])
    grid = 12 if quick else 20
    per_user_t, per_user = best_time(lambda: solve(ring_dilp_per_user(2, 1.0, grid)), repeat=1)
    invariant_t, invariant = best_time(lambda: solve(ring_dilp(2, 1.0, grid).primal), repeat=3)
    rows.append([f"ring k=2 grid {grid}: invariant vs per-user LP (12)",
                 ring_dilp_per_user(2, 1.0, grid).num_cols, round(invariant_t, 3),
                 round(per_user_t, 3), f"{per_user_t / invariant_t:.0f}x",
                 f"{abs(per_user.objective - invariant.objective):.1e}"])
    return rows


def convergence_rows(quick: bool):
    rows = []
    grids = {2: (51, 101, 201) if quick else (51, 101, 201, 401, 801),
             3: (41, 61) if quick else (41, 61, 101, 201)}
    for k, sizes in grids.items():
        for grid in sizes:
            r = solve_dilp(k, 1.0, grid)
            rows.append([f"line k={k} eps=1", r.grid, f"{r.spacing:.4f}", f"{r.primal:.8f}",
                         f"{r.dual:.8f}", f"{r.laplace_cost:.8f}",
                         f"{r.laplace_cost - r.primal:.2e}"])
    for grid in ((60, 120) if quick else (100, 200, 400, 800)):
        r = solve_dilp(2, 0.375, grid, ring=True)
        rows.append(["ring k=2 eps=3/8 (target 0.708734, antipodal mechanism)", r.grid,
                     f"{r.spacing:.4f}", f"{r.primal:.8f}", f"{r.dual:.8f}",
                     f"{r.laplace_cost:.8f}", f"{0.7087341303419541 - r.primal:.2e}"])
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes only")
    quick = parser.parse_args(argv).quick
    scale = scale_rows(quick)
    speed = speedup_rows(quick)
    convergence = convergence_rows(quick)

    def table(headers, rows):
        return "\n".join(["| " + " | ".join(headers) + " |",
                          "|" + "|".join("---" for _ in headers) + "|"]
                         + ["| " + " | ".join(str(c) for c in row) + " |" for row in rows])

    notes = "\n\n".join([
        "Speed-ups (same process, same model; HiGHS dual simplex per chain, HiGHS default "
        "for the whole LP):",
        table(["case", "columns", "fast (s)", "baseline (s)", "ratio", "|value difference|"],
              speed),
        "Convergence (primal = dual to 1e-9 in every row; error = closed form - primal, "
        "O((eps spacing)^2) up to grid-alignment effects):",
        table(["case", "grid", "spacing", "primal", "dual", "Laplace (continuous)", "error"],
              convergence),
        "Times were taken on a shared 2-core machine under load from other jobs. "
        f"Peak RSS of the run: {peak_rss_mib():.0f} MiB. `solve` = HiGHS time for all chain "
        "LPs (primal and dual); `total` adds building, the Laplace baselines and the "
        "feasibility checks of the assembled points on the whole LPs."
        + (" (--quick: small sizes)" if quick else ""),
    ])
    write_table("dilp", "Discretised multi-selection DILP: scale",
                ["case", "grid", "chains", "columns", "rows", "primal", "dual", "gap",
                 "Laplace", "solve (s)", "total (s)"], scale, notes)


if __name__ == "__main__":
    main()
