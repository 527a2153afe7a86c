"""The GEM score transform: O(n log n) (upper hull + tangent queries) against the O(n^2)
definition, up to 10^6 candidates.

Table ``benchmarks/results/gem.md``: for random inputs (few hull vertices) and inputs whose
points all lie on the upper hull (the worst case for the tangent search), the time of
:func:`optmech.heterogeneous.gem_scores` against, in the same process,

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
import time

import numpy as np

from benchmarks._report import best_time, peak_rss_mib, write_table
from optmech.heterogeneous import GeneralisedExponentialMechanism, gem_scores, gem_scores_reference

PYTHON_LIMIT = 2_000
NUMPY_LIMIT = 20_000


def python_definition(q, d, t):
    """Eqn (7) with two Python loops (the baseline of the public implementations)."""
    return [min(((qa - qb) - t * (da - db)) / (da + db) for qb, db in zip(q, d))
            for qa, da in zip(q, d)]


def cpu_seconds(fn) -> float:
    """Process CPU time of one call (less sensitive than wall time to a busy machine)."""
    start = time.process_time()
    fn()
    return time.process_time() - start


def instance(kind: str, n: int, rng: np.random.Generator):
    d = rng.uniform(0.05, 2.0, n)
    if kind == "random":
        return rng.normal(size=n), d, 2 * np.log(n / 0.05)
    return np.sqrt(d), d, 0.0          # "all on hull": u = sqrt(Δ) is concave in x = -Δ


def rows_for(kind: str, sizes, rng):
    rows = []
    for n in sizes:
        q, d, t = instance(kind, n, rng)
        ours, fast = best_time(lambda: gem_scores(q, d, t), repeat=3 if n < 10**6 else 2)
        cells = [kind, n, ours, cpu_seconds(lambda: gem_scores(q, d, t))]
        for limit, baseline in ((PYTHON_LIMIT, lambda: python_definition(q.tolist(),
                                                                         d.tolist(), t)),
                                (NUMPY_LIMIT, lambda: gem_scores_reference(q, d, t))):
            if n <= limit:
                seconds, slow = best_time(baseline, repeat=1)
                diff = float(np.abs(np.asarray(slow) - fast).max())
                cells += [seconds, f"{seconds / ours:.0f}x", f"{diff:.1e}"]
            else:
                cells += ["not run", "", ""]
        rows.append(tuple(cells))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="sizes up to 10^5")
    args = parser.parse_args(argv)
    sizes = [10**3, 2 * 10**3, 10**4, 2 * 10**4, 10**5]
    if not args.quick:
        sizes.append(10**6)
    rng = np.random.default_rng(0)
    rows = rows_for("random", sizes, rng) + rows_for("all on hull", sizes, rng)
    n = sizes[-1]
    q, d, _ = instance("random", n, rng)
    pmf_seconds, _ = best_time(lambda: GeneralisedExponentialMechanism(1.0).pmf(q, d),
                               repeat=1)
    write_table(
        "gem", "GEM score transform: O(n log n) vs the O(n^2) definition",
        ["input", "n", "optmech s", "optmech CPU s", "pure Python s", "speed-up",
         "max abs diff", "numpy O(n^2) s", "speed-up", "max abs diff"],
        rows,
        notes=f"Random: q ~ N(0, 1), Δ ~ U(0.05, 2), t = 2 log(n/0.05) (GEM, ε = 1).  All on "
              f"hull: q = sqrt(Δ), t = 0 (every candidate is an upper-hull vertex).  Wall time: "
              f"best of 3 runs (2 at 10^6); CPU time of one more run beside it; speed-ups are "
              f"wall-time ratios in this process.  Full GEM pmf (transform + exact PF pmf) at "
              f"n = {n}: "
              f"{pmf_seconds:.2f} s.  Peak RSS {peak_rss_mib():.0f} MiB.")


if __name__ == "__main__":
    main()
