"""The GEM score transform: O(n log n) (upper hull + tangent queries) against the O(n^2)
definition, up to 10^6 candidates.

Table ``gem.md``: for random inputs (few hull vertices) and inputs whose points all lie on
the upper hull (the worst case for the tangent search), the time of
:func:`optmech.heterogeneous.gem_scores` against, in the same process and in alternating
runs,

* the definition (eqn 7) in pure Python, as in the public reference implementations
  (up to n = 2000), and
* the definition vectorised with numpy in blocks of rows
  (:func:`~optmech.heterogeneous.gem_scores_reference`, up to n = 2*10^4),

with the largest difference between the results; and the full GEM pmf (transform plus the
exact permute-and-flip pmf) at the largest size.

Run: ``python -m benchmarks.gem [--quick]``.
"""

from __future__ import annotations

import argparse

import numpy as np

from benchmarks._report import (
    claim,
    measure,
    measure_interleaved,
    peak_rss_mib,
    ratio,
    start,
    write_table,
)
from optmech.heterogeneous import GeneralisedExponentialMechanism, gem_scores, gem_scores_reference

FULL_SIZES = [10**3, 2 * 10**3, 10**4, 2 * 10**4, 10**5, 10**6]
FULL_LIMITS = {"pure Python": 2_000, "numpy": 20_000}     # largest n of each baseline
QUICK_SIZES = [10**3, 2 * 10**3, 10**4]
QUICK_LIMITS = {"pure Python": 1_000, "numpy": 2_000}


def python_definition(q, d, t):
    """Eqn (7) with two Python loops (the baseline of the public implementations)."""
    return [min(((qa - qb) - t * (da - db)) / (da + db) for qb, db in zip(q, d))
            for qa, da in zip(q, d)]


def instance(kind: str, n: int, rng: np.random.Generator):
    d = rng.uniform(0.05, 2.0, n)
    if kind == "random":
        return rng.normal(size=n), d, 2 * np.log(n / 0.05)
    return np.sqrt(d), d, 0.0          # "all on hull": u = sqrt(Δ) is concave in x = -Δ


def rows_for(kind: str, sizes, limits, rng, claims: list):
    rows = []
    for n in sizes:
        q, d, t = instance(kind, n, rng)
        calls = {"optmech": lambda: gem_scores(q, d, t)}
        if n <= limits["pure Python"]:
            calls["pure Python"] = lambda: python_definition(q.tolist(), d.tolist(), t)
        if n <= limits["numpy"]:
            calls["numpy"] = lambda: gem_scores_reference(q, d, t)
        timings = measure_interleaved(calls)
        ours = timings["optmech"]
        cells = [kind, n, ours.cpu, ours.wall]
        for label in ("pure Python", "numpy"):
            if label in timings:
                base = timings[label]
                speedup = ratio(base.cpu, ours.cpu)
                diff = float(np.abs(np.asarray(base.result) - ours.result).max())
                cells += [base.cpu, speedup, f"{diff:.1e}"]
                key = f"{'python' if label == 'pure Python' else 'numpy'}." \
                      f"{'random' if kind == 'random' else 'hull'}.{n}"
                claims.append(claim(f"gem.{key}",
                                    f"GEM transform, speed-up over the {label} O(n^2) "
                                    f"definition, {kind} inputs, n = {n}", speedup))
            else:
                cells += ["not run", "", ""]
        rows.append(tuple(cells))
        print(" | ".join(map(str, cells)), flush=True)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args = start(parser, argv)
    sizes, limits = (QUICK_SIZES, QUICK_LIMITS) if args.quick else (FULL_SIZES, FULL_LIMITS)
    rng = np.random.default_rng(0)
    claims: list[str] = []
    rows = (rows_for("random", sizes, limits, rng, claims)
            + rows_for("all on hull", sizes, limits, rng, claims))
    n = sizes[-1]
    q, d, _ = instance("random", n, rng)
    pmf = measure(lambda: GeneralisedExponentialMechanism(1.0).pmf(q, d))
    claims.append(claim(f"gem.pmf.{n}", f"full GEM pmf (transform + exact PF pmf), random "
                                        f"inputs, n = {n}", pmf.cpu))
    write_table(
        "gem", "GEM score transform: O(n log n) vs the O(n^2) definition",
        ["input", "n", "optmech CPU s", "optmech wall s", "pure Python CPU s",
         "speed-up (CPU)", "max abs diff", "numpy O(n^2) CPU s", "speed-up (CPU)",
         "max abs diff"],
        rows, claims=claims,
        notes=f"Random: q ~ N(0, 1), Δ ~ U(0.05, 2), t = 2 log(n/0.05) (GEM, ε = 1).  All on "
              f"hull: q = sqrt(Δ), t = 0 (every candidate is an upper-hull vertex).  Times: "
              f"seconds per call, median [min, max] over at least 5 runs, the implementations "
              f"of a row measured in alternating runs; speed-ups divide the CPU medians.  "
              f"Full GEM pmf at n = {n}: CPU {pmf.cpu} s, wall {pmf.wall} s.  Peak RSS "
              f"{peak_rss_mib():.0f} MiB.")


if __name__ == "__main__":
    main()
