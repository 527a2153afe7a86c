"""Selection mechanisms: exact PF pmf and PF/EM sampling at up to 10^6 candidates.

Tables (``benchmarks/results/selection_pmf.md`` and ``selection_sampling.md``):

* PF pmf by the cancellation-free integral against the paper's O(n^2) dynamic programme
  (Appendix E, alternating signs, float64) in the same process: time ratio and the
  dynamic programme's loss of accuracy;
* the same against a 50-digit mpmath evaluation (time ratio and agreement);
* one PF / EM draw at n candidates against OpenDP ``make_noisy_max`` (exact rational
  sampler; max-divergence = PF, zCDP = EM) and diffprivlib ``PermuteAndFlip`` when the
  ``peers`` extra is installed.

Run: ``python -m benchmarks.selection [--quick]``.
"""

from __future__ import annotations

import argparse

import numpy as np

from benchmarks._report import best_time, write_table
from optmech import ExponentialMechanism, PermuteAndFlip
from optmech.selection.pf_probabilities import pf_probabilities

EPSILON = 1.0


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


def pmf_rows(sizes, dp_limit):
    rows = []
    rng = np.random.default_rng(0)
    for n in sizes:
        scores = rng.normal(size=n) * 3
        ours, probs = best_time(lambda: pf_probabilities(scores, EPSILON / 2),
                                repeat=3 if n < 10**6 else 1)
        if n <= dp_limit:
            baseline, dp_probs = best_time(lambda: appendix_e_probabilities(scores, EPSILON / 2),
                                           repeat=1)
            dp_error = float(np.abs(dp_probs - probs).max())
            rows.append((n, ours, baseline, baseline / ours, f"{dp_error:.1e}",
                         f"{abs(probs.sum() - 1):.1e}"))
        else:
            rows.append((n, ours, "not run (O(n^2))", "", "", f"{abs(probs.sum() - 1):.1e}"))
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


def mpmath_rows(sizes):
    rows = []
    rng = np.random.default_rng(2)
    for n in sizes:
        scores = rng.normal(size=n) * 3
        ours, probs = best_time(lambda: pf_probabilities(scores, EPSILON / 2), repeat=5)
        reference_time, reference = best_time(
            lambda: mpmath_probabilities(scores, EPSILON / 2), repeat=1)
        error = max(abs(float(a) - float(b)) for a, b in zip(probs, reference))
        rows.append((n, ours, reference_time, reference_time / ours, f"{error:.1e}"))
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
        pass
    try:
        from diffprivlib.mechanisms import PermuteAndFlip as DiffprivlibPF

        utility = scores_int.astype(float).tolist()

        def diffprivlib_pf():
            return DiffprivlibPF(epsilon=EPSILON, sensitivity=1.0, utility=utility).randomise()

        samplers[("pf", "diffprivlib PermuteAndFlip")] = diffprivlib_pf
    except ImportError:
        pass
    return samplers


def sampling_rows(n):
    rng = np.random.default_rng(1)
    scores_int = rng.integers(0, 10_000, n).astype(np.int64)
    scores = scores_int.astype(float)
    ours = {"pf": PermuteAndFlip(EPSILON), "em": ExponentialMechanism(EPSILON)}
    our_time = {label: best_time(lambda m=mech: m.sample(scores, rng=rng), repeat=5)[0]
                for label, mech in ours.items()}
    rows = [(label.upper(), "optmech", n, our_time[label], "1.0") for label in ours]
    for (label, peer), draw in peer_samplers(scores_int).items():
        seconds, _ = best_time(draw, repeat=1 if "diffprivlib" in peer else 3)
        rows.append((label.upper(), peer, n, seconds, f"{seconds / our_time[label]:.1f}"))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes")
    args = parser.parse_args(argv)
    sizes = [10**3, 10**4, 10**5] if args.quick else [10**3, 10**4, 10**5, 10**6]
    write_table(
        "selection_pmf", "Exact PF pmf: integral form vs the paper's O(n^2) recurrence",
        ["n", "optmech s", "Appendix E s", "speed-up", "Appendix E max abs error",
         "|sum - 1|"],
        pmf_rows(sizes, dp_limit=10**4),
        notes="Random N(0, 9) scores, epsilon = 1.  The recurrence's error is its distance "
              "from the integral form (itself within 1e-13 of mpmath in the tests).")
    write_table(
        "selection_pmf_mpmath", "Exact PF pmf: float64 integral vs mpmath at 50 digits",
        ["n", "optmech s", "mpmath s", "speed-up", "max abs difference"],
        mpmath_rows([20, 50] if args.quick else [20, 50, 100]),
        notes="Random N(0, 9) scores, epsilon = 1.  The difference is the float64 result's "
              "error (the mpmath value is exact to ~1e-40).")
    n = 10**5 if args.quick else 10**6
    write_table(
        "selection_sampling", f"One PF / EM draw at n = {n} (integer scores in [0, 10^4))",
        ["mechanism", "implementation", "n", "seconds per draw", "time / optmech"],
        sampling_rows(n),
        notes="Best of 5 (optmech), 3 (OpenDP) or 1 (diffprivlib) draws.  OpenDP samples "
              "exactly from rationals; optmech's fast path uses floating-point noise.")


if __name__ == "__main__":
    main()
