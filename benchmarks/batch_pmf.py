"""Batch pmf: ``pmf`` over a 2-D array of score vectors (one per row) against a batched
softmax and against a Python loop over the rows, and where EM's batch time goes.

Table ``batch_pmf.md``: for ``m`` score vectors of ``n`` scores (1000 x 200; quick: 200 x
200), drawn i.i.d. normal with standard deviation ``spread`` at epsilon = 1, the CPU time
of

* ``scipy.special.softmax(z, axis=1)`` on the log weights ``z = c (q - q*)`` shifted and
  scaled beforehand, outside the timed call (the cheapest vectorised pmf there is), and
  ``softmax(c q, axis=1)`` on the raw scores (what a user writes: softmax shifts by the
  maximum itself), ``c = epsilon / (2 sensitivity)``;
* ``ExponentialMechanism(1).pmf(scores)`` and ``PermuteAndFlip(1).pmf(scores)`` on the
  whole 2-D array;
* the same mechanisms called once per row (``[pmf(row) for row in scores]``), what a user
  pays without the batch call;

all measured in the same process, their runs interleaved (a change of load falls on all
alike), and the ratios batch / softmax and loop / batch.  The spreads cover the cases the
PF kernel distinguishes: close scores (many coins near 1, the integral cut short, about 30
nodes) and spread ones (a few coins near 1, about 10 nodes).  The batch PF kernel
multiplies matrices, so BLAS is pinned to one thread (threadpoolctl).

Table ``batch_pmf_em_parts.md`` takes EM's batch call apart (spread 3), each part timed on
its own in the same interleaved rounds: the input check (the scores copied to a float
array and checked finite, :func:`~optmech.selection.scores.check_score_rows`), the log
weights (:func:`~optmech.selection.scores.log_weight_rows`: the shift by each row's maximum
and the scaling, with the guard against gaps beyond the double range) and the
exponentiation and normalisation in place, beside ``softmax(z)``.

Run: ``python -m benchmarks.batch_pmf [--quick]``.
"""

from __future__ import annotations

import argparse

import numpy as np

from benchmarks._report import blas_threads, claim, measure_interleaved, ratio, start, write_table
from optmech import ExponentialMechanism, PermuteAndFlip
from optmech.selection.scores import check_score_rows, log_weight_rows

EPSILON = 1.0
EXPONENT = EPSILON / 2          # c = epsilon / (2 sensitivity), sensitivity 1
N_SCORES = 200
SPREADS = (1.0, 3.0, 30.0)
PARTS_SPREAD = 3.0


def batch_rows(vectors: int, claims: list) -> list:
    from scipy.special import softmax

    rows = []
    rng = np.random.default_rng(0)
    mechanisms = {"em": ExponentialMechanism(EPSILON), "pf": PermuteAndFlip(EPSILON)}
    for spread in SPREADS:
        scores = rng.normal(size=(vectors, N_SCORES)) * spread
        z = EXPONENT * (scores - scores.max(axis=1, keepdims=True))
        calls = {"softmax": lambda: softmax(z, axis=1),
                 "softmax raw": lambda: softmax(EXPONENT * scores, axis=1)}
        for name, mechanism in mechanisms.items():
            calls[f"{name} batch"] = lambda m=mechanism: m.pmf(scores)
            calls[f"{name} loop"] = lambda m=mechanism: [m.pmf(row) for row in scores]
        timings = measure_interleaved(calls)
        base, raw = timings["softmax"].cpu, timings["softmax raw"].cpu
        for name in mechanisms:
            batch, loop = timings[f"{name} batch"], timings[f"{name} loop"]
            versus_softmax, versus_raw = ratio(batch.cpu, base), ratio(batch.cpu, raw)
            speedup = ratio(loop.cpu, batch.cpu)
            same = max(float(np.max(np.abs(a / b - 1))) for a, b in
                       zip(batch.result, loop.result))
            key = f"{name}.spread_{spread:g}"
            size = f"{vectors} x {N_SCORES}, spread {spread:g}"
            claims.append(claim(f"batch_pmf.{key}.vs_softmax",
                                f"{name.upper()} batch pmf / softmax of pre-shifted log "
                                f"weights, {size}", versus_softmax))
            claims.append(claim(f"batch_pmf.{key}.vs_raw_softmax",
                                f"{name.upper()} batch pmf / softmax of the raw scores, "
                                f"{size}", versus_raw))
            claims.append(claim(f"batch_pmf.{key}.vs_loop",
                                f"{name.upper()} row loop / batch pmf, {size}", speedup))
            rows.append((name.upper(), spread, batch.cpu, base, versus_softmax, raw,
                         versus_raw, loop.cpu, speedup, f"{same:.0e}"))
            print(" | ".join(map(str, rows[-1])), flush=True)
    return rows


def _exp_normalised(z: np.ndarray) -> np.ndarray:
    """EM's last step: ``exp`` and the division by the row sums, in place on a copy."""
    weights = np.exp(z)
    weights /= weights.sum(axis=1, keepdims=True)
    return weights


def em_parts(vectors: int) -> list:
    """Rows ``(part, CPU s, part / softmax(z))`` of EM's batch call (module docstring)."""
    from scipy.special import softmax

    rng = np.random.default_rng(1)
    scores = rng.normal(size=(vectors, N_SCORES)) * PARTS_SPREAD
    checked = check_score_rows(scores)[0]
    z = log_weight_rows(checked, EXPONENT)
    mechanism = ExponentialMechanism(EPSILON)
    calls = {"EM batch pmf (the whole call)": lambda: mechanism.pmf(scores),
             "input check: copy to float, all finite": lambda: check_score_rows(scores),
             "log weights: shift by the row maximum, scale": lambda: log_weight_rows(checked,
                                                                                 EXPONENT),
             "exp and normalise": lambda: _exp_normalised(z),
             "softmax(z), z pre-shifted": lambda: softmax(z, axis=1)}
    timings = measure_interleaved(calls)
    base = timings["softmax(z), z pre-shifted"].cpu
    return [(part, timing.cpu, ratio(timing.cpu, base)) for part, timing in timings.items()]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args = start(parser, argv)
    vectors = 200 if args.quick else 1000
    claims: list = []
    with blas_threads(1):
        rows = batch_rows(vectors, claims)
        write_table(
            "batch_pmf", f"Batch pmf: {vectors} score vectors of {N_SCORES} at epsilon = 1",
            ["mechanism", "spread", "batch CPU s", "softmax(z) CPU s", "batch / softmax(z)",
             "softmax(c q) CPU s", "batch / softmax(c q)", "row loop CPU s", "loop / batch",
             "max rel. diff batch vs loop"], rows,
            notes="Times are CPU seconds per call of the whole batch: median [min, max] of at "
                  "least 5 runs, the calls' runs interleaved.  Scores i.i.d. normal with the "
                  "given standard deviation (units of the sensitivity).  softmax(z) is given "
                  "the log weights z = c (q - q*) shifted and scaled outside the timed call; "
                  "softmax(c q) is given the raw scores times c and shifts them itself.  The "
                  "last column compares every batch row with the 1-D call on it (same "
                  "kernel: 0 expected).",
            claims=claims)
        parts = em_parts(vectors)
        write_table(
            "batch_pmf_em_parts",
            f"Where EM's batch pmf spends its time: {vectors} score vectors of {N_SCORES}, "
            f"spread {PARTS_SPREAD:g}",
            ["part", "CPU s", "part / softmax(z)"], parts,
            notes="Each part timed on its own, all in the same interleaved rounds (median "
                  "[min, max] of at least 5 runs).  The parts add up to about the whole call; "
                  "softmax(z) does the same passes as the last two parts together, with a "
                  "shift of its own.")


if __name__ == "__main__":
    main()
