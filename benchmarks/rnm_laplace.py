"""Report-noisy-max with Laplace noise: the exact pmf at 10^3 to 10^6 candidates.

Tables (``rnm_laplace.md`` and ``rnm_laplace_data.md``):

* scale: :func:`optmech.selection.laplace_noisy_max.laplace_noisy_max_pmf` (what
  ``ReportNoisyMax(noise="laplace").pmf`` runs) on n distinct scores and on one tied case:
  wall and CPU seconds (median, min and max of repeated runs), peak traced memory, against
  the implementation it replaces (optmech 0.2.0's quadrature with a panel edge at every
  score, copied below as :func:`previous_pmf`) run in the same process where it finishes,
  and their largest difference;
* shipped data: ``optmech data error`` (in process, ``--json``) on every DPBench dataset at
  1024 bins and at full size, mode (``--monotonic``) and median, at 9 log-spaced epsilon
  from 1e-4 to 10: exit status, finite output, the RNM-Laplace pmf's distance of its sum
  from 1, CPU seconds of each cell.

Run: ``python -m benchmarks.rnm_laplace [--quick]`` (``--quick``: n up to 10^4, the previous
implementation at n = 10^3 only, three epsilon on the first dataset).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math

import numpy as np

from benchmarks._report import (
    claim,
    measure,
    measure_interleaved,
    peak_rss_mib,
    ratio,
    start,
    traced_peak_mib,
    write_table,
)
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
    for first in range(0, values.size, rows):
        block = slice(first, first + rows)
        log_g += counts[block] @ log_cdf("laplace", (x[None, :] - values[block, None]) / scale)
    group = np.empty(values.size)
    for first in range(0, values.size, rows):
        block = slice(first, first + rows)
        y = (x[None, :] - values[block, None]) / scale
        group[block] = np.exp(log_hazard("laplace", y) - math.log(scale) + log_g) @ w
    probs = np.zeros(n)
    probs[kept] = group[inverse.ravel()]
    if not abs(probs.sum() - 1.0) <= 1e-10:
        raise ArithmeticError(f"previous pmf sums to {probs.sum()!r}")
    return probs


def scale_rows(cases, previous_limit: int, claims: list):
    rows = []
    for label, scores in cases:
        n = scores.size
        distinct = np.unique(scores).size
        calls = {"new": lambda s=scores: laplace_noisy_max_pmf(s, SCALE)}
        if distinct <= previous_limit:
            calls["previous"] = lambda s=scores: previous_pmf(s, SCALE)
        timings = measure_interleaved(calls)
        new = timings["new"]
        probs = new.result
        memory = traced_peak_mib(lambda s=scores: laplace_noisy_max_pmf(s, SCALE))
        key = f"{n}.{'tied' if distinct < n else 'distinct'}"
        claims.append(claim(f"rnm_laplace.pmf.{key}", f"RNM-Laplace pmf, {label}", new.cpu))
        row = [label, n, distinct, new.cpu, new.wall, f"{memory:.0f}"]
        if "previous" in timings:
            old = timings["previous"]
            old_memory = (f"{traced_peak_mib(lambda s=scores: previous_pmf(s, SCALE)):.0f}"
                          if distinct <= 1000 else "")
            speedup = ratio(old.cpu, new.cpu)
            claims.append(claim(f"rnm_laplace.previous_ratio.{key}",
                                f"RNM-Laplace pmf, speed-up over the previous quadrature, "
                                f"{label}", speedup))
            row += [old.cpu, old.wall, old_memory, speedup,
                    f"{np.abs(old.result - probs).max():.1e}"]
        else:
            row += ["not run (quadratic)", "", "", "", ""]
        rows.append(row + [f"{abs(probs.sum() - 1):.1e}"])
        print(" | ".join(map(str, rows[-1])), flush=True)
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


def data_cell(dataset: str, bins: int | None, task: str, epsilons) -> tuple:
    """One cell: ``optmech data error`` at every epsilon and the pmf's distance of its sum
    from 1; (exit statuses, RNM-Laplace errors, worst distance)."""
    statuses, errors, worst_sum = [], [], 0.0
    q = get_task(task, monotonic=(task == "mode")).scores(load_histogram(dataset, bins))
    for eps in epsilons:
        status, payload = cli_error(dataset, bins, task, float(eps))
        statuses.append(status)
        value = payload.get("rnm_laplace", float("nan"))
        errors.append(value if math.isfinite(value) else float("nan"))
        probs = ReportNoisyMax(float(eps), monotonic=(task == "mode")).pmf(q)
        worst_sum = max(worst_sum, abs(float(probs.sum()) - 1))
    return statuses, errors, worst_sum


def data_rows(datasets, epsilons):
    rows = []
    for dataset in datasets:
        full = load_histogram(dataset).size
        for bins in (1024, None):
            if bins and full % bins:
                rows.append((dataset, bins, "mode, median", "-", "-", "-", "-", "-", "-",
                             f"1024 does not divide {full}: exit 2 by design"))
                continue
            for task in ("mode", "median"):
                timing = measure(lambda: data_cell(dataset, bins, task, epsilons))
                statuses, errors, worst_sum = timing.result
                ok = sum(s == 0 for s in statuses)
                finite = sum(math.isfinite(e) for e in errors)
                rows.append((dataset, bins or full, task, f"{ok}/{len(epsilons)}",
                             f"{finite}/{len(epsilons)}", f"{errors[0]:.6g}",
                             f"{errors[len(errors) // 2]:.6g}", f"{errors[-1]:.6g}",
                             f"{worst_sum:.1e}", timing.cpu))
                print(" | ".join(map(str, rows[-1])), flush=True)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args = start(parser, argv)
    sizes = [10**3, 10**4] if args.quick else [10**3, 10**4, 10**5, 10**6]
    rng = np.random.default_rng(0)
    cases = [(f"N(0, 9), n = {n}", rng.normal(size=n) * 3) for n in sizes]
    tied_n = sizes[-1]
    cases.append((f"integers in [0, 1000), n = {tied_n}",
                  rng.integers(0, 1000, tied_n).astype(float)))
    claims: list[str] = []
    rows = scale_rows(cases, previous_limit=10**3 if args.quick else 10**4, claims=claims)
    write_table(
        "rnm_laplace",
        "Exact RNM-Laplace pmf: head/bulk quadrature vs the previous per-score panels",
        ["scores", "n", "distinct", "CPU s", "wall s", "peak MiB", "previous CPU s",
         "previous wall s", "previous peak MiB", "speed-up (CPU)", "max abs difference",
         "abs(sum - 1)"],
        rows, claims=claims,
        notes=f"epsilon = {EPSILON:g}, sensitivity 1 (noise scale {SCALE:g}).  Seconds per "
              "call, median [min, max] over at least 5 runs, new and previous in alternating "
              "runs.  The previous implementation is run up to "
              f"{10**3 if args.quick else 10**4} distinct scores (its cost grows like the "
              "square of the distinct scores: 10^5 did not return within 12 minutes).  Peak "
              "MiB: tracemalloc peak of one more call (previous: at most 10^3 distinct "
              f"scores).  Process peak RSS {peak_rss_mib():.0f} MiB.")
    epsilons = np.logspace(-4, 1, 3 if args.quick else 9)
    datasets = list(DATASETS)[:1] if args.quick else list(DATASETS)
    return write_table(
        "rnm_laplace_data",
        "`optmech data error` on every shipped dataset (RNM-Laplace pmf at full size)",
        ["dataset", "bins", "task", "exit 0", "finite", f"RNM error eps={epsilons[0]:g}",
         f"eps={epsilons[len(epsilons) // 2]:.3g}", f"eps={epsilons[-1]:g}",
         "max abs(sum - 1) of the pmf", "CPU s per cell"],
        data_rows(datasets, epsilons),
        notes=f"{len(epsilons)} epsilon, log-spaced from 1e-4 to 10; mode with "
              "--monotonic (scale 1/eps), median without (scale 2/eps).  Each cell runs "
              "`optmech data error ... --json` in this process (PF, EM and RNM-Laplace) at "
              "every epsilon and the RNM-Laplace pmf once more for its sum; its CPU seconds "
              "are the median [min, max] over at least 5 runs of the whole cell.")


if __name__ == "__main__":
    main()
