"""Exact-arithmetic PF / EM sampling against OpenDP, and the fast path before/after.

Tables (``exact_sampling.md`` and ``exact_sampling_fast_path.md``):

* one exact-mode draw (``sample(..., exact=True)``, OS CSPRNG; mean over many single
  draws) at n = 10^3, 10^5, 10^6 against OpenDP's exact ``make_noisy_max``
  (max-divergence = PF, zCDP = EM, ``scale = 2 sensitivity / epsilon``) on the same int64
  scores, in the same process.
  Two regimes: epsilon = 1 on integer scores in [0, 10^4) (a few hundred candidates within
  reach of the maximum), and epsilon = 0.001 (every candidate within 5 nats of it, the
  hardest case for the exact sampler: each one needs its full coin).
* the fast path (``exact=False``) against the ``sample`` body as it was before the
  ``exact`` keyword existed (:func:`sample_before`), in alternating runs in one process.

Run: ``python -m benchmarks.exact_sampling [--quick]`` (OpenDP from the ``peers`` extra).
"""

from __future__ import annotations

import argparse

import numpy as np

from benchmarks._report import (
    claim,
    measure,
    measure_draws,
    measure_interleaved,
    ratio,
    start,
    write_table,
)
from optmech import ExponentialMechanism, PermuteAndFlip
from optmech.selection.samplers import sample_shape, shaped
from optmech.validation import check_rng, check_scores

MECHANISMS = {"PF": PermuteAndFlip, "EM": ExponentialMechanism}


def sample_before(mech, scores, size=None, rng=None):
    """``SelectionMechanism.sample`` before the ``exact`` keyword (commit 9f0ca61)."""
    q = check_scores(scores)
    shape, count = sample_shape(size)
    return shaped(mech._draw(q, count, check_rng(rng)), shape)


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


def exact_rows(sizes, epsilons, claims: list):
    rows = []
    rng = np.random.default_rng(1)
    for epsilon in epsilons:
        peers = opendp_samplers(epsilon)
        for n in sizes:
            scores = rng.integers(0, 10_000, n).astype(np.int64)
            for label, mechanism in MECHANISMS.items():
                mech = mechanism(epsilon)
                ours = measure_draws(lambda: mech.sample(scores, exact=True))
                fast = measure(lambda: mech.sample(scores))
                key = f"{label.lower()}.eps{epsilon:g}.{n}"
                claims.append(claim(f"exact_sampling.exact.{key}", f"one exact {label} draw, "
                                    f"epsilon {epsilon:g}, n = {n}", ours.cpu))
                claims.append(claim(f"exact_sampling.fast.{key}", f"one fast-path {label} "
                                    f"draw, epsilon {epsilon:g}, n = {n}", fast.cpu))
                if label in peers:
                    theirs = measure_draws(lambda: peers[label](scores))
                    slower = ratio(theirs.cpu, ours.cpu)
                    claims.append(claim(f"exact_sampling.opendp_ratio.{key}",
                                        f"OpenDP time / optmech time, one exact {label} draw, "
                                        f"epsilon {epsilon:g}, n = {n}", slower))
                    rows.append((label, epsilon, n, ours.cpu, theirs.cpu, slower, fast.cpu))
                else:
                    rows.append((label, epsilon, n, ours.cpu, "not installed", "", fast.cpu))
                print(" | ".join(map(str, rows[-1])), flush=True)
    return rows


def fast_path_rows(sizes, claims: list):
    rows = []
    rng = np.random.default_rng(2)
    for n in sizes:
        scores = rng.normal(size=n) * 3
        for label, mechanism in MECHANISMS.items():
            mech = mechanism(1.0)
            timings = measure_interleaved({"before": lambda: sample_before(mech, scores),
                                           "after": lambda: mech.sample(scores)})
            change = ratio(timings["after"].cpu, timings["before"].cpu)
            claims.append(claim(f"exact_sampling.after_before.{label.lower()}.{n}",
                                f"fast-path {label} draw after / before the exact keyword, "
                                f"n = {n}", change))
            rows.append((label, n, timings["before"].cpu, timings["after"].cpu, change))
            print(" | ".join(map(str, rows[-1])), flush=True)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args = start(parser, argv)
    sizes = [10**3, 10**4] if args.quick else [10**3, 10**5, 10**6]
    claims: list[str] = []
    write_table(
        "exact_sampling", "One exact-mode PF / EM draw: optmech vs OpenDP make_noisy_max",
        ["mechanism", "epsilon", "n", "optmech exact CPU s", "OpenDP CPU s",
         "OpenDP / optmech (CPU)", "optmech fast path CPU s"],
        exact_rows(sizes, [1.0, 0.001], claims), claims=claims,
        notes="Integer scores in [0, 10^4), sensitivity 1.  Exact samplers (optmech with its "
              "default OS CSPRNG, OpenDP): their running time is random (geometric numbers "
              "of coins or attempts, heavy-tailed for OpenDP), so each is the mean ± standard "
              "error over at least 20 single draws (more while a 2 s budget lasts).  Both "
              "sample exactly from rationals; the last column is optmech's floating-point "
              "path (median [min, max] over at least 5 runs).")
    claims = []
    write_table(
        "exact_sampling_fast_path", "Fast path (exact=False) before and after the exact keyword",
        ["mechanism", "n", "before CPU s", "after CPU s", "after / before (CPU)"],
        fast_path_rows(sizes, claims), claims=claims,
        notes="N(0, 9) float scores, epsilon 1, one draw per call; median [min, max] over at "
              "least 5 runs of batched calls, before and after in alternating runs.  'before' "
              "is the pre-change sample body.")


if __name__ == "__main__":
    main()
