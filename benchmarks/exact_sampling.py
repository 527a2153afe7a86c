"""Exact-arithmetic PF / EM sampling against OpenDP, and the fast path before/after.

Tables (``benchmarks/results/exact_sampling.md`` and ``exact_sampling_fast_path.md``):

* one exact-mode draw (``sample(..., exact=True)``, OS CSPRNG; mean over many single
  draws) at n = 10^3, 10^5, 10^6 against OpenDP's exact ``make_noisy_max`` (max-divergence = PF, zCDP = EM,
  ``scale = 2 sensitivity / epsilon``) on the same int64 scores, in the same process.
  Two regimes: epsilon = 1 on integer scores in [0, 10^4) (a few hundred candidates within
  reach of the maximum), and epsilon = 0.001 (every candidate within 5 nats of it, the
  hardest case for the exact sampler: each one needs its full coin).
* the fast path (``exact=False``) against the ``sample`` body as it was before the
  ``exact`` keyword existed (:func:`sample_before`), interleaved in the same process.

Run: ``python -m benchmarks.exact_sampling [--quick]`` (OpenDP from the ``peers`` extra).
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from benchmarks._report import best_time, write_table
from optmech import ExponentialMechanism, PermuteAndFlip
from optmech.selection.samplers import sample_shape, shaped
from optmech.validation import check_rng, check_scores

MECHANISMS = {"PF": PermuteAndFlip, "EM": ExponentialMechanism}


def sample_before(mech, scores, size=None, rng=None):
    """``SelectionMechanism.sample`` before the ``exact`` keyword (commit 9f0ca61)."""
    q = check_scores(scores)
    shape, count = sample_shape(size)
    return shaped(mech._draw(q, count, check_rng(rng)), shape)


def mean_time(fn, calls: int) -> float:
    """Mean wall time of ``calls`` calls after one warm-up call.  The exact samplers'
    running time is random (geometric numbers of coins or attempts, heavy-tailed for
    OpenDP), so a best-of-few time would compare lucky draws."""
    fn()
    start = time.perf_counter()
    for _ in range(calls):
        fn()
    return (time.perf_counter() - start) / calls


def opendp_samplers(epsilon: float):
    """OpenDP's exact PF and EM samplers, or {} when OpenDP is not installed."""
    try:
        import opendp.prelude as dp
    except ImportError:
        return {}
    dp.enable_features("contrib")
    domain = dp.vector_domain(dp.atom_domain(T="i64"))
    return {label: dp.m.make_noisy_max(domain, dp.linf_distance(T="i64"), divergence,
                                       scale=2.0 / epsilon)
            for label, divergence in (("PF", dp.max_divergence()),
                                      ("EM", dp.zero_concentrated_divergence()))}


def exact_rows(sizes, epsilons):
    rows = []
    rng = np.random.default_rng(1)
    for epsilon in epsilons:
        peers = opendp_samplers(epsilon)
        for n in sizes:
            scores = rng.integers(0, 10_000, n).astype(np.int64)
            calls = max(5, min(200, 2 * 10**6 // n))
            for label, mechanism in MECHANISMS.items():
                mech = mechanism(epsilon)
                ours = mean_time(lambda: mech.sample(scores, exact=True), calls)
                fast, _ = best_time(lambda: mech.sample(scores), repeat=5)
                if label in peers:
                    theirs = mean_time(lambda: peers[label](scores), calls)
                    rows.append((label, epsilon, n, ours, theirs, f"{theirs / ours:.1f}", fast))
                else:
                    rows.append((label, epsilon, n, ours, "not installed", "", fast))
    return rows


def fast_path_rows(sizes):
    rows = []
    rng = np.random.default_rng(2)
    for n in sizes:
        scores = rng.normal(size=n) * 3
        repeat = 200 if n <= 10**3 else 5
        for label, mechanism in MECHANISMS.items():
            mech = mechanism(1.0)
            before = after = float("inf")
            for _ in range(5):          # interleaved, so that load changes hit both alike
                before = min(before, best_time(lambda: sample_before(mech, scores), repeat)[0])
                after = min(after, best_time(lambda: mech.sample(scores), repeat)[0])
            rows.append((label, n, before, after, f"{after / before:.3f}"))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="n up to 10^5 only")
    args = parser.parse_args(argv)
    sizes = [10**3, 10**5] if args.quick else [10**3, 10**5, 10**6]
    write_table(
        "exact_sampling", "One exact-mode PF / EM draw: optmech vs OpenDP make_noisy_max",
        ["mechanism", "epsilon", "n", "optmech exact s", "OpenDP s", "OpenDP / optmech",
         "optmech fast path s"],
        exact_rows(sizes, [1.0, 0.001]),
        notes="Integer scores in [0, 10^4), sensitivity 1; mean time of one draw over 200 "
              "(n = 10^3), 20 (10^5) or 5 (10^6) single draws, optmech with its default OS "
              "CSPRNG (the running times are random: a best-of-few time would compare lucky "
              "draws).  Both sample exactly from rationals; the last column is optmech's "
              "floating-point path (best of 5).")
    write_table(
        "exact_sampling_fast_path", "Fast path (exact=False) before and after the exact keyword",
        ["mechanism", "n", "before s", "after s", "after / before"],
        fast_path_rows(sizes),
        notes="N(0, 9) float scores, epsilon 1, one draw; best of 5 interleaved rounds of "
              "200 (n = 10^3) or 5 calls.  'before' is the pre-change sample body.")


if __name__ == "__main__":
    main()
