"""Selection mechanisms: exact PF pmf and PF/EM sampling at up to 10^6 candidates.

Tables (``selection_pmf.md``, ``selection_pmf_mpmath.md`` and ``selection_sampling.md``):

* PF pmf by the cancellation-free integral against the paper's O(n^2) dynamic programme
  (Appendix E, alternating signs, float64) in the same process: time ratio and the
  dynamic programme's loss of accuracy;
* the same against a 50-digit mpmath evaluation (time ratio and agreement);
* one PF / EM draw at n candidates against OpenDP ``make_noisy_max`` (exact rational
  sampler; max-divergence = PF, zCDP = EM) and diffprivlib ``PermuteAndFlip`` when the
  ``peers`` extra is installed.

The pmf's time depends on the number of BLAS threads (a matrix product per block of
candidates; on a shared 2-core machine a second thread mostly waits), so both pmf tables
are measured with BLAS pinned to one thread (threadpoolctl).  The peers' samplers have a
random running time: they are timed as the mean over many single draws.

Run: ``python -m benchmarks.selection [--quick]``.
"""

from __future__ import annotations

import argparse

import numpy as np

from benchmarks._report import (
    blas_threads,
    claim,
    measure,
    measure_draws,
    measure_interleaved,
    ratio,
    start,
    write_table,
)
from optmech import ExponentialMechanism, PermuteAndFlip
from optmech.selection.pf_probabilities import pf_probabilities

EPSILON = 1.0
DIFFPRIVLIB_DRAWS = 10      # its draws at 10^6 candidates take about 35 s each
MPMATH_SIZES = [20, 50]     # n = 100 takes about 35 s per call


def appendix_e_probabilities(scores: np.ndarray, exponent: float) -> np.ndarray:
    """The paper's O(n^2) dynamic programme in float64 (vectorised over r).

    ``S(k)`` are the elementary symmetric sums of all coin probabilities, ``T(k, r) =
    S(k) - p_r T(k-1, r)`` those without ``r``; ``Pr[r] = p_r sum_k (-1)^k T(k, r)/(k+1)``.
    The signs alternate, so digits cancel as n grows: this is the baseline, not a method.
    """
    p = np.exp(exponent * (scores - scores.max()))
    n = p.size
    elementary = np.zeros(n + 1)
    elementary[0] = 1.0
    for ps in p:
        elementary[1:] = elementary[1:] + ps * elementary[:-1]
    t = np.ones(n)
    total = np.ones(n)
    for k in range(1, n):
        t = elementary[k] - p * t
        total += (-1) ** k * t / (k + 1)
    return p * total


def pmf_rows(sizes, dp_limit, claims: list):
    rows = []
    rng = np.random.default_rng(0)
    for n in sizes:
        scores = rng.normal(size=n) * 3
        calls = {"optmech": lambda: pf_probabilities(scores, EPSILON / 2)}
        if n <= dp_limit:
            calls["Appendix E"] = lambda: appendix_e_probabilities(scores, EPSILON / 2)
        timings = measure_interleaved(calls)
        ours = timings["optmech"]
        probs = ours.result
        claims.append(claim(f"selection.pmf.{n}", f"PF pmf (integral form), n = {n}",
                            ours.cpu))
        row = [n, ours.cpu, ours.wall]
        if "Appendix E" in timings:
            base = timings["Appendix E"]
            speedup = ratio(base.cpu, ours.cpu)
            claims.append(claim(f"selection.pmf_vs_appendix_e.{n}",
                                f"PF pmf, speed-up over the O(n^2) recurrence, n = {n}",
                                speedup))
            row += [base.cpu, speedup, f"{np.abs(base.result - probs).max():.1e}"]
        else:
            row += ["not run (O(n^2))", "", ""]
        rows.append(row + [f"{abs(probs.sum() - 1):.1e}"])
        print(" | ".join(map(str, rows[-1])), flush=True)
    return rows


def mpmath_probabilities(scores: np.ndarray, exponent: float, dps: int = 50) -> list:
    """The integral ``p_r * int_0^1 prod_{s != r}(1 - p_s t) dt`` by mpmath quadrature at
    ``dps`` digits (tanh-sinh, the polynomial integrand split at 8 points)."""
    import mpmath as mp

    with mp.workdps(dps):
        p = [mp.exp(mp.mpf(exponent) * (mp.mpf(float(v)) - mp.mpf(float(scores.max()))))
             for v in scores]
        full = lambda t: mp.fprod(1 - ps * t for ps in p)  # noqa: E731
        return [pr * mp.quad(lambda t, pr=pr: full(t) / (1 - pr * t), mp.linspace(0, 1, 9))
                for pr in p]


def mpmath_rows(sizes, claims: list):
    rows = []
    rng = np.random.default_rng(2)
    for n in sizes:
        scores = rng.normal(size=n) * 3
        timings = measure_interleaved(
            {"optmech": lambda: pf_probabilities(scores, EPSILON / 2),
             "mpmath": lambda: mpmath_probabilities(scores, EPSILON / 2)})
        ours, reference = timings["optmech"], timings["mpmath"]
        speedup = ratio(reference.cpu, ours.cpu)
        claims.append(claim(f"selection.mpmath.{n}", f"PF pmf by 50-digit mpmath, n = {n}",
                            reference.cpu))
        claims.append(claim(f"selection.pmf_vs_mpmath.{n}",
                            f"PF pmf, speed-up over 50-digit mpmath, n = {n}", speedup))
        error = max(abs(float(a) - float(b)) for a, b in zip(ours.result, reference.result))
        rows.append((n, ours.cpu, reference.cpu, reference.wall, speedup, f"{error:.1e}"))
        print(" | ".join(map(str, rows[-1])), flush=True)
    return rows


def peer_samplers(scores_int: np.ndarray):
    """Named one-draw samplers of the peers that are installed."""
    samplers = {}
    try:
        import opendp.prelude as dp

        dp.enable_features("contrib")
        domain = dp.vector_domain(dp.atom_domain(T="i64"))
        for label, divergence in (("pf", dp.max_divergence()),
                                  ("em", dp.zero_concentrated_divergence())):
            meas = dp.m.make_noisy_max(domain, dp.linf_distance(T="i64"), divergence,
                                       scale=2.0 / EPSILON)
            samplers[(label, "OpenDP make_noisy_max")] = lambda meas=meas: meas(scores_int)
    except ImportError:
        samplers[("pf", "OpenDP make_noisy_max")] = None
        samplers[("em", "OpenDP make_noisy_max")] = None
    try:
        from diffprivlib.mechanisms import PermuteAndFlip as DiffprivlibPF

        utility = scores_int.astype(float).tolist()

        def diffprivlib_pf():
            return DiffprivlibPF(epsilon=EPSILON, sensitivity=1.0, utility=utility).randomise()

        samplers[("pf", "diffprivlib PermuteAndFlip")] = diffprivlib_pf
    except ImportError:
        samplers[("pf", "diffprivlib PermuteAndFlip")] = None
    return samplers


def sampling_rows(n, claims: list):
    rng = np.random.default_rng(1)
    scores_int = rng.integers(0, 10_000, n).astype(np.int64)
    scores = scores_int.astype(float)
    ours = {label: measure(lambda m=mech: m.sample(scores, rng=rng))
            for label, mech in (("pf", PermuteAndFlip(EPSILON)),
                                ("em", ExponentialMechanism(EPSILON)))}
    rows = [(label.upper(), "optmech (floating point)", n, timing.cpu, timing.wall, "1")
            for label, timing in ours.items()]
    for (label, peer), draw in peer_samplers(scores_int).items():
        if draw is None:
            rows.append((label.upper(), peer, n, "not installed", "", ""))
            continue
        diffprivlib = "diffprivlib" in peer
        theirs = measure_draws(draw, **({"min_draws": DIFFPRIVLIB_DRAWS, "budget": 0.0}
                                        if diffprivlib and n > 10**5 else {}))
        slower = ratio(theirs.cpu, ours[label].cpu)
        key = f"{label}.{'diffprivlib' if diffprivlib else 'opendp'}.{n}"
        claims.append(claim(f"selection.sample.{key}", f"one {label.upper()} draw by {peer}, "
                                                        f"n = {n}", theirs.cpu))
        claims.append(claim(f"selection.sample_ratio.{key}",
                            f"{peer} time / optmech time, one {label.upper()} draw, n = {n}",
                            slower))
        rows.append((label.upper(), peer, n, theirs.cpu, theirs.wall, slower))
        print(" | ".join(map(str, rows[-1])), flush=True)
    claims[:0] = [claim(f"selection.sample.{label}.optmech.{n}",
                        f"one {label.upper()} draw by optmech (floating point), n = {n}",
                        timing.cpu) for label, timing in ours.items()]
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args = start(parser, argv)
    sizes = [10**3, 10**4] if args.quick else [10**3, 10**4, 10**5, 10**6]
    with blas_threads(1) as pinned:
        how = ("BLAS pinned to one thread (threadpoolctl)" if pinned else
               "BLAS threads NOT pinned (threadpoolctl is not installed)")
        claims: list[str] = []
        write_table(
            "selection_pmf", "Exact PF pmf: integral form vs the paper's O(n^2) recurrence",
            ["n", "optmech CPU s", "optmech wall s", "Appendix E CPU s", "speed-up (CPU)",
             "Appendix E max abs error", "|sum - 1|"],
            pmf_rows(sizes, 10**4, claims), claims=claims,
            notes=f"Random N(0, 9) scores, epsilon = 1; {how}.  Seconds per call, median "
                  "[min, max] over at least 5 runs, the two methods in alternating runs.  The "
                  "recurrence's error is its distance from the integral form (itself within "
                  "1e-13 of mpmath in the tests).")
        claims = []
        write_table(
            "selection_pmf_mpmath", "Exact PF pmf: float64 integral vs mpmath at 50 digits",
            ["n", "optmech CPU s", "mpmath CPU s", "mpmath wall s", "speed-up (CPU)",
             "max abs difference"],
            mpmath_rows([10] if args.quick else MPMATH_SIZES, claims), claims=claims,
            notes=f"Random N(0, 9) scores, epsilon = 1; {how}.  Seconds per call, median "
                  "[min, max] over at least 5 runs in alternating runs.  The difference is "
                  "the float64 result's error (the mpmath value is exact to ~1e-40).  "
                  "n = 100 (about 35 s per mpmath call, 0.5 ms for optmech) is left out of "
                  "the full table to keep it within minutes.")
    n = 10**4 if args.quick else 10**6
    claims = []
    write_table(
        "selection_sampling", f"One PF / EM draw at n = {n} (integer scores in [0, 10^4))",
        ["mechanism", "implementation", "n", "CPU s per draw", "wall s per draw",
         "time / optmech (CPU)"],
        sampling_rows(n, claims), claims=claims,
        notes="optmech (floating-point fast path, deterministic running time): median [min, "
              "max] over at least 5 runs.  OpenDP (exact, from rationals) and diffprivlib "
              "(whose running time is random: it visits candidates in random order until a "
              "coin accepts, removing each from a Python list): mean ± standard error over "
              f"single draws (diffprivlib at n > 10^5: {DIFFPRIVLIB_DRAWS} draws).  The "
              "ratio's spread divides the extremes (means -/+ 2 standard errors).")


if __name__ == "__main__":
    main()
