"""Batch pmf: ``pmf`` over a 2-D array of score vectors (one per row) against a batched
softmax and against a Python loop over the rows.

Table ``batch_pmf.md``: for ``m`` score vectors of ``n`` scores (1000 x 200; quick: 200 x
200), drawn i.i.d. normal with standard deviation ``spread`` at epsilon = 1, the CPU time
of

* ``scipy.special.softmax(z, axis=1)`` on the log weights ``z`` (the baseline: the
  cheapest vectorised pmf there is);
* ``ExponentialMechanism(1).pmf(scores)`` and ``PermuteAndFlip(1).pmf(scores)`` on the
  whole 2-D array;
* the same mechanisms called once per row (``[pmf(row) for row in scores]``), what a user
  pays without the batch call;

all measured in the same process, their runs interleaved (a change of load falls on all
alike), and the ratios batch / softmax and loop / batch.  The spreads cover the cases the
PF kernel distinguishes: close scores (many coins near 1, the integral cut short, about 30
nodes) and spread ones (a few coins near 1, about 10 nodes).  The batch PF kernel
multiplies matrices, so BLAS is pinned to one thread (threadpoolctl).

Run: ``python -m benchmarks.batch_pmf [--quick]``.
"""

from __future__ import annotations

import argparse

import numpy as np

from benchmarks._report import blas_threads, claim, measure_interleaved, ratio, start, write_table
from optmech import ExponentialMechanism, PermuteAndFlip

EPSILON = 1.0
N_SCORES = 200
SPREADS = (1.0, 3.0, 30.0)


def batch_rows(vectors: int, claims: list) -> list:
    from scipy.special import softmax

    rows = []
    rng = np.random.default_rng(0)
    mechanisms = {"em": ExponentialMechanism(EPSILON), "pf": PermuteAndFlip(EPSILON)}
    for spread in SPREADS:
        scores = rng.normal(size=(vectors, N_SCORES)) * spread
        z = (EPSILON / 2) * (scores - scores.max(axis=1, keepdims=True))
        calls = {"softmax": lambda: softmax(z, axis=1)}
        for name, mechanism in mechanisms.items():
            calls[f"{name} batch"] = lambda m=mechanism: m.pmf(scores)
            calls[f"{name} loop"] = lambda m=mechanism: [m.pmf(row) for row in scores]
        timings = measure_interleaved(calls)
        base = timings["softmax"].cpu
        for name in mechanisms:
            batch, loop = timings[f"{name} batch"], timings[f"{name} loop"]
            versus_softmax = ratio(batch.cpu, base)
            speedup = ratio(loop.cpu, batch.cpu)
            same = max(float(np.max(np.abs(a / b - 1))) for a, b in
                       zip(batch.result, loop.result))
            key = f"{name}.spread_{spread:g}"
            claims.append(claim(f"batch_pmf.{key}.vs_softmax",
                                f"{name.upper()} batch pmf / batched softmax, {vectors} x "
                                f"{N_SCORES}, spread {spread:g}", versus_softmax))
            claims.append(claim(f"batch_pmf.{key}.vs_loop",
                                f"{name.upper()} row loop / batch pmf, {vectors} x {N_SCORES}, "
                                f"spread {spread:g}", speedup))
            rows.append((name.upper(), spread, batch.cpu, base, versus_softmax, loop.cpu,
                         speedup, f"{same:.0e}"))
            print(" | ".join(map(str, rows[-1])), flush=True)
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args = start(parser, argv)
    vectors = 200 if args.quick else 1000
    claims: list = []
    with blas_threads(1):
        rows = batch_rows(vectors, claims)
        write_table(
            "batch_pmf", f"Batch pmf: {vectors} score vectors of {N_SCORES} at epsilon = 1",
            ["mechanism", "spread", "batch CPU s", "softmax CPU s", "batch / softmax",
             "row loop CPU s", "loop / batch", "max rel. diff batch vs loop"], rows,
            notes="Times are CPU seconds per call of the whole batch: median [min, max] of at "
                  "least 5 runs, the calls' runs interleaved.  Scores i.i.d. normal with the "
                  "given standard deviation (units of the sensitivity).  The last column "
                  "compares every batch row with the 1-D call on it (same kernel: 0 expected).",
            claims=claims)


if __name__ == "__main__":
    main()
