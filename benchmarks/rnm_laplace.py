"""Report-noisy-max with Laplace noise: the exact pmf at 10^3 to 10^6 candidates.

Tables (``benchmarks/results/rnm_laplace.md``):

* scale: :func:`optmech.selection.laplace_noisy_max.laplace_noisy_max_pmf` (what
  ``ReportNoisyMax(noise="laplace").pmf`` runs) on n distinct scores and on one tied case:
  wall and CPU seconds (median, min and max of repeated runs), peak traced memory, against
  the implementation it replaces (optmech 0.2.0's quadrature with a panel edge at every
  score, copied below as :func:`previous_pmf`) run in the same process where it finishes,
  and their largest difference;
* shipped data: ``optmech data error`` (in process, ``--json``) on every DPBench dataset at
  1024 bins and at full size, mode (``--monotonic``) and median, at 9 log-spaced epsilon
  from 1e-4 to 10: exit status, finite output, the RNM-Laplace pmf's distance of its sum
  from 1, seconds.

Run: ``python -m benchmarks.rnm_laplace [--quick]`` (``--quick``: n up to 10^5, the previous
implementation at n = 10^3 only, three epsilon per dataset).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import os
import statistics
import time
import tracemalloc

import numpy as np

from benchmarks._report import peak_rss_mib, write_table
from optmech.cli import main as optmech_main
from optmech.data.datasets import DATASETS, load_histogram
from optmech.data.tasks import get_task
from optmech.selection.laplace_noisy_max import laplace_noisy_max_pmf
from optmech.selection.mechanisms import ReportNoisyMax
from optmech.selection.noisy_max import log_cdf, log_hazard, quadrature_panels

EPSILON = 1.0
SCALE = 2.0 / EPSILON          # report-noisy-max, sensitivity 1
PREVIOUS_TAIL = 1e-17
PREVIOUS_CELLS = 1 << 21


def previous_pmf(scores: np.ndarray, scale: float) -> np.ndarray:
    """The RNM-Laplace pmf of optmech 0.2.0 (``noisy_max_pmf(q, scale, "laplace")``, one
    scale, no point masses), kept here as the baseline only.

    Window ``[x_lo, x_hi]`` with ``x_lo`` the second largest ``q + b log(2 tail)`` and
    ``x_hi = max q - b log(2 tail)``; every distinct score in it is a panel edge, panels at
    most ``b/2`` long with 16/8/4 Gauss–Legendre nodes: the cost grows like the square of
    the number of distinct scores near the top.  Sum checked to 1e-10.
    """
    q = np.asarray(scores, dtype=float)
    n = q.size
    lows = np.sort(q + scale * math.log(2 * PREVIOUS_TAIL))
    lo = lows[-2]
    hi = float(q.max() - scale * math.log(2 * PREVIOUS_TAIL))
    kept = np.flatnonzero(q - scale * math.log(2 * PREVIOUS_TAIL / n) > lo)
    values, inverse, counts = np.unique(q[kept], return_inverse=True, return_counts=True)
    x, w = quadrature_panels(lo, hi, values, scale / 2)
    rows = max(1, PREVIOUS_CELLS // x.size)
    log_g = np.zeros_like(x)
    for start in range(0, values.size, rows):
        block = slice(start, start + rows)
        log_g += counts[block] @ log_cdf("laplace", (x[None, :] - values[block, None]) / scale)
    group = np.empty(values.size)
    for start in range(0, values.size, rows):
        block = slice(start, start + rows)
        y = (x[None, :] - values[block, None]) / scale
        group[block] = np.exp(log_hazard("laplace", y) - math.log(scale) + log_g) @ w
    probs = np.zeros(n)
    probs[kept] = group[inverse.ravel()]
    if not abs(probs.sum() - 1.0) <= 1e-10:
        raise ArithmeticError(f"previous pmf sums to {probs.sum()!r}")
    return probs


def timed(fn, repeat: int) -> tuple[list[float], list[float], np.ndarray]:
    """Wall and CPU seconds of ``repeat`` calls, and the last result."""
    walls, cpus, result = [], [], None
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        result = fn()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return walls, cpus, result


def traced_peak_mib(fn) -> float:
    """Peak memory allocated during one call (tracemalloc, numpy buffers included)."""
    tracemalloc.start()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2 ** 20


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.3g} ({min(values):.3g}-{max(values):.3g})"


def scale_rows(cases, previous_limit: int, repeat: int):
    rows = []
    for label, scores in cases:
        n = scores.size
        walls, cpus, probs = timed(lambda s=scores: laplace_noisy_max_pmf(s, SCALE), repeat)
        memory = traced_peak_mib(lambda s=scores: laplace_noisy_max_pmf(s, SCALE))
        distinct = np.unique(scores).size
        row = [label, n, distinct, spread(walls), spread(cpus), f"{memory:.0f}"]
        if distinct <= previous_limit:
            runs = 3 if distinct <= 1000 else 1
            old_walls, old_cpus, old = timed(lambda s=scores: previous_pmf(s, SCALE), runs)
            old_memory = traced_peak_mib(lambda s=scores: previous_pmf(s, SCALE)) \
                if distinct <= 1000 else float("nan")
            ratio = statistics.median(old_walls) / statistics.median(walls)
            row += [spread(old_walls), spread(old_cpus),
                    "" if math.isnan(old_memory) else f"{old_memory:.0f}", f"{ratio:.0f}x",
                    f"{np.abs(old - probs).max():.1e}"]
        else:
            row += ["not run (quadratic)", "", "", "", ""]
        rows.append(row + [f"{abs(probs.sum() - 1):.1e}"])
        print(row, flush=True)
    return rows


def cli_error(dataset: str, bins: int | None, task: str, eps: float) -> tuple[int, dict]:
    """``optmech data error ... --json`` in this process: exit status and payload."""
    argv = ["data", "error", "--dataset", dataset, "--task", task, "--eps", repr(eps),
            "--json"]
    argv += ["--bins", str(bins)] if bins else []
    argv += ["--monotonic"] if task == "mode" else []
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        try:
            status = optmech_main(argv)
        except SystemExit as exit_:
            status = int(exit_.code or 0)
    return status, (json.loads(out.getvalue()) if status == 0 else {})


def data_rows(epsilons):
    rows = []
    for dataset in DATASETS:
        full = load_histogram(dataset).size
        for bins in (1024, None):
            if bins and full % bins:
                rows.append((dataset, bins, "mode, median", "-", "-", "-", "-", "-", "-",
                             f"1024 does not divide {full}: exit 2 by design"))
                continue
            for task in ("mode", "median"):
                start = time.perf_counter()
                statuses, errors, worst_sum = [], [], 0.0
                t = get_task(task, monotonic=(task == "mode"))
                q = t.scores(load_histogram(dataset, bins))
                for eps in epsilons:
                    status, payload = cli_error(dataset, bins, task, float(eps))
                    statuses.append(status)
                    value = payload.get("rnm_laplace", float("nan"))
                    errors.append(value if math.isfinite(value) else float("nan"))
                    probs = ReportNoisyMax(float(eps), monotonic=(task == "mode")).pmf(q)
                    worst_sum = max(worst_sum, abs(float(probs.sum()) - 1))
                ok = sum(s == 0 for s in statuses)
                finite = sum(math.isfinite(e) for e in errors)
                rows.append((dataset, bins or full, task, f"{ok}/{len(epsilons)}",
                             f"{finite}/{len(epsilons)}", f"{errors[0]:.6g}",
                             f"{errors[len(errors) // 2]:.6g}", f"{errors[-1]:.6g}",
                             f"{worst_sum:.1e}", f"{time.perf_counter() - start:.1f}"))
                print(rows[-1], flush=True)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    args = parser.parse_args(argv)
    sizes = [10**3, 10**4, 10**5] if args.quick else [10**3, 10**4, 10**5, 10**6]
    rng = np.random.default_rng(0)
    cases = [(f"N(0, 9), n = {n}", rng.normal(size=n) * 3) for n in sizes]
    tied_n = sizes[-1]
    cases.append((f"integers in [0, 1000), n = {tied_n}",
                  rng.integers(0, 1000, tied_n).astype(float)))
    load = os.getloadavg()
    rows = scale_rows(cases, previous_limit=10**3 if args.quick else 10**4,
                      repeat=5 if args.quick else 7)
    load_after = os.getloadavg()
    write_table(
        "rnm_laplace",
        "Exact RNM-Laplace pmf: head/bulk quadrature vs the previous per-score panels",
        ["scores", "n", "distinct", "wall s median (min-max)", "CPU s median (min-max)",
         "peak MiB", "previous wall s", "previous CPU s", "previous peak MiB", "speed-up",
         "max abs difference", "abs(sum - 1)"],
        rows,
        notes=f"epsilon = {EPSILON:g}, sensitivity 1 (noise scale {SCALE:g}).  New: "
              f"{5 if args.quick else 7} runs per size; previous implementation: 3 runs at "
              "10^3 distinct scores, 1 at 10^4, not run above (its cost grows like the "
              "square of the distinct scores: 10^5 did not return within 12 minutes before "
              "this change).  Peak MiB: tracemalloc peak of one more call.  Load average "
              f"(1, 5, 15 min) {load[0]:.2f}, {load[1]:.2f}, {load[2]:.2f} before and "
              f"{load_after[0]:.2f}, {load_after[1]:.2f}, {load_after[2]:.2f} after, on a "
              f"machine of {os.cpu_count()} cores shared with other jobs.  Process peak "
              f"RSS {peak_rss_mib():.0f} MiB.")
    epsilons = np.logspace(-4, 1, 3 if args.quick else 9)
    start = time.perf_counter()
    data = data_rows(epsilons)
    path = write_table(
        "rnm_laplace_data",
        "`optmech data error` on every shipped dataset (RNM-Laplace pmf at full size)",
        ["dataset", "bins", "task", "exit 0", "finite", f"RNM error eps={epsilons[0]:g}",
         f"eps={epsilons[len(epsilons) // 2]:.3g}", f"eps={epsilons[-1]:g}",
         "max abs(sum - 1) of the pmf", "seconds"],
        data,
        notes=f"{len(epsilons)} epsilon, log-spaced from 1e-4 to 10; mode with "
              "--monotonic (scale 1/eps), median without (scale 2/eps).  Each cell runs "
              "`optmech data error ... --json` in this process (PF, EM and RNM-Laplace) "
              f"and the RNM-Laplace pmf once more for its sum.  Total "
              f"{time.perf_counter() - start:.0f} s.")
    return path


if __name__ == "__main__":
    main()
