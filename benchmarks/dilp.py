"""Benchmark the discretised multi-selection DILP (``python -m benchmarks.dilp [--quick]``).

Three tables in ``dilp.md``:

1. scale -- k = 2 line and ring with >= 400 grid points per axis, k = 3 line with >= 100,
   and larger ones, solved chain by chain (primal and dual LPs, HiGHS);
2. speed-ups measured against baselines in the same process: chain by chain against the
   whole LP in one HiGHS solve, and the translation-invariant ring LP against the per-user
   LP (12) with its epigraph variable;
3. convergence of primal and dual to the closed forms as the grid is refined.
"""

from __future__ import annotations

import argparse

from benchmarks._report import (
    claim,
    measure,
    measure_interleaved,
    peak_rss_mib,
    ratio,
    start,
    write_table,
)
from lp_models.dilp import ring_dilp, ring_dilp_per_user
from lp_models.program import solve
from optmech.multiselect.dilp import solve_dilp
from optmech.tables import markdown_table


def scale_rows(quick: bool, claims: list):
    cases = ([("line", 2, 1.0, 101), ("ring", 2, 0.375, 100), ("line", 3, 1.0, 41)] if quick
             else [("line", 2, 1.0, 401), ("ring", 2, 0.375, 400), ("line", 3, 1.0, 101),
                   ("line", 2, 1.0, 1001), ("line", 3, 1.0, 201)])
    rows = []
    for geometry, k, eps, grid in cases:
        timing = measure(lambda: solve_dilp(k, eps, grid, ring=geometry == "ring"))
        r = timing.result
        claims.append(claim(f"dilp.solve.{geometry}.k{k}.grid{grid}",
                            f"solve_dilp, {geometry}, k = {k}, eps = {eps:g}, grid {r.grid} "
                            f"({r.num_cols} columns)", timing.cpu))
        rows.append([f"{geometry} k={k} eps={eps:g}", r.grid, r.num_chains, r.num_cols,
                     r.num_rows, f"{r.primal:.6f}", f"{r.dual:.6f}", f"{r.gap:.1e}",
                     f"{r.laplace_cost:.6f}", timing.cpu, timing.wall])
        print(" | ".join(map(str, rows[-1])), flush=True)
    return rows


def speedup_rows(quick: bool, claims: list):
    rows = []
    for geometry, k, eps, grid in ([("line", 2, 1.0, 101), ("ring", 2, 1.0, 80)] if quick else
                                   [("line", 2, 1.0, 201), ("ring", 2, 1.0, 160),
                                    ("line", 3, 1.0, 61)]):
        ring = geometry == "ring"
        timings = measure_interleaved(
            {"chains": lambda: solve_dilp(k, eps, grid, ring=ring),
             "joint": lambda: solve_dilp(k, eps, grid, ring=ring, method="joint")})
        fast, slow = timings["chains"], timings["joint"]
        speedup = ratio(slow.cpu, fast.cpu)
        claims.append(claim(f"dilp.chains_vs_joint.{geometry}.k{k}.grid{grid}",
                            f"solve_dilp chain by chain vs one LP, {geometry}, k = {k}, grid "
                            f"{fast.result.grid}", speedup))
        rows.append([f"{geometry} k={k} grid {fast.result.grid}: chains vs one LP",
                     fast.result.num_cols, fast.cpu, slow.cpu, speedup,
                     f"{abs(fast.result.primal - slow.result.primal):.1e}"])
    grid = 12 if quick else 20
    timings = measure_interleaved(
        {"invariant": lambda: solve(ring_dilp(2, 1.0, grid).primal),
         "per-user": lambda: solve(ring_dilp_per_user(2, 1.0, grid))})
    invariant, per_user = timings["invariant"], timings["per-user"]
    speedup = ratio(per_user.cpu, invariant.cpu)
    claims.append(claim(f"dilp.invariant_vs_per_user.ring.k2.grid{grid}",
                        f"translation-invariant ring LP vs the per-user LP (12), k = 2, grid "
                        f"{grid} (build + HiGHS)", speedup))
    rows.append([f"ring k=2 grid {grid}: invariant vs per-user LP (12)",
                 ring_dilp_per_user(2, 1.0, grid).num_cols, invariant.cpu, per_user.cpu,
                 speedup,
                 f"{abs(per_user.result.objective - invariant.result.objective):.1e}"])
    return rows


def convergence_rows(quick: bool):
    rows = []
    grids = {2: (51, 101) if quick else (51, 101, 201, 401, 801),
             3: (41,) if quick else (41, 61, 101, 201)}
    for k, sizes in grids.items():
        for grid in sizes:
            r = solve_dilp(k, 1.0, grid)
            rows.append([f"line k={k} eps=1", r.grid, f"{r.spacing:.4f}", f"{r.primal:.8f}",
                         f"{r.dual:.8f}", f"{r.laplace_cost:.8f}",
                         f"{r.laplace_cost - r.primal:.2e}"])
    for grid in ((60,) if quick else (100, 200, 400, 800)):
        r = solve_dilp(2, 0.375, grid, ring=True)
        rows.append(["ring k=2 eps=3/8 (target 0.708734, antipodal mechanism)", r.grid,
                     f"{r.spacing:.4f}", f"{r.primal:.8f}", f"{r.dual:.8f}",
                     f"{r.laplace_cost:.8f}", f"{0.7087341303419541 - r.primal:.2e}"])
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    quick = start(parser, argv).quick
    claims: list[str] = []
    scale = scale_rows(quick, claims)
    speed = speedup_rows(quick, claims)
    convergence = convergence_rows(quick)

    def table(headers, rows):
        return "\n".join(markdown_table(headers, rows))

    notes = "\n\n".join([
        ("Speed-ups (same process, same model, alternating runs; CPU seconds of the whole "
         "call: building, HiGHS (dual simplex per chain, default for the whole LP), the "
         "certificate and the feasibility checks):"),
        table(["case", "columns", "fast CPU s", "baseline CPU s", "speed-up (CPU)",
               "|value difference|"], speed),
        ("Convergence (one solve each; primal = dual to 1e-9 in every row; error = closed "
         "form - primal, O((eps spacing)^2) up to grid-alignment effects):"),
        table(["case", "grid", "spacing", "primal", "dual", "Laplace (continuous)", "error"],
              convergence),
        ("Times: seconds of the whole solve_dilp call (building, the chain LPs' primal and "
         "dual solves, the Laplace baselines and the feasibility checks of the assembled "
         "points on the whole LPs), median [min, max] over at least 5 runs.  Peak RSS of "
         f"the run: {peak_rss_mib():.0f} MiB."),
    ])
    write_table("dilp", "Discretised multi-selection DILP: scale",
                ["case", "grid", "chains", "columns", "rows", "primal", "dual", "gap",
                 "Laplace", "CPU s", "wall s"], scale, notes, claims)


if __name__ == "__main__":
    main()
