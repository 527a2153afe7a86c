"""Benchmark: the optimal (ε, δ)-DP stopping rule (the LP of ``lp_models.stopping``).

Claims measured, each against a baseline run in this process:

* column generation solves (and certifies) the stopping LP at n = 1000 in seconds for the
  paper's parameters; baseline: HiGHS dual simplex on the full LP (1.0e6 columns at
  n = 1000), run with a time limit, and timed in full at the sizes it manages;
* the certificate of every n = 1000 solution is checked on the full LP itself
  (``lp.max_violation`` of the rule, ``dual_objective`` of ``full_duals``);
* the rank distribution of M* by the difference recurrence at n = 10^6, against the
  paper's binomial sum (log-gamma, O(n^2)) at n = 10^4.

Run ``python -m benchmarks.stopping [--quick]``; writes ``benchmarks/results/stopping.md``
(the full run also lists the ratio optimal / best p-mix over the issue's grid).
Timings on a shared machine are indicative only.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
from scipy.special import gammaln

from benchmarks._report import best_time, peak_rss_mib, write_table
from lp_models.program import SolverError, dual_objective
from lp_models.stopping import full_duals, full_primal, rank_payoff, stopping_lp
from optmech.secretary import ConvergenceError, optimal_private_rule, rank_distribution, threshold

PAPER_CASES = [(0.5, 0.01, 1), (0.5, 0.05, 2), (1.0, 0.01, 1), (0.1, 0.05, 1),
               (0.1, 0.01, 2), (1.0, 0.0, 2), (0.1, 0.0, 1)]


def _timed(method, n, eps, delta, l, time_limit):
    """(seconds, result or None, note) of one solve."""
    started = time.perf_counter()
    try:
        result = optimal_private_rule(n, eps, delta, l, method=method, time_limit=time_limit)
        return time.perf_counter() - started, result, ""
    except ConvergenceError as stop:
        return (time.perf_counter() - started, None,
                f"limit {time_limit:g} s: value in [{stop.lower:.6g}, {stop.upper:.6g}]")
    except SolverError as error:
        return time.perf_counter() - started, None, f"HiGHS: {error.status}"


def _certificate_gap(result) -> tuple[float, float]:
    """(max bound violation of the rule, dual bound - value) on the full LP."""
    lp = stopping_lp(result.n, result.epsilon, result.delta, result.l, rank_payoff(result.n))
    point = full_primal(lp, result.rule.joint())
    bound, _ = dual_objective(lp, full_duals(lp, result.multipliers))
    return lp.max_violation(point), bound - lp.objective_value(point)


def _solver_rows(quick: bool):
    rows = []
    # Both solvers where HiGHS manages the full LP: the speed-up is a same-process ratio.
    for n in ((40, 80) if quick else (50, 100, 150)):
        t_full, full, note_full = _timed("highs", n, 0.5, 0.01, 1, 300)
        t_cg, cg, _ = _timed("column-generation", n, 0.5, 0.01, 1, 300)
        diff = abs(full.expected_payoff - cg.expected_payoff) if full else math.nan
        rows.append(("highs (full LP)", n, 0.5, 0.01, 1, t_full,
                     full.iterations if full else "-", full.expected_payoff if full else "-",
                     "1", note_full or "-"))
        rows.append(("column generation", n, 0.5, 0.01, 1, t_cg, cg.iterations,
                     cg.expected_payoff, f"{t_full / t_cg:.3g}", f"value difference {diff:.1e}"))
    # n = 1000 (quick: 200): the baseline gets a time limit, column generation all cases.
    n = 200 if quick else 1000
    limit = 10.0 if quick else 60.0
    t_full, full, note_full = _timed("highs", n, 0.5, 0.01, 1, limit)
    rows.append(("highs (full LP)", n, 0.5, 0.01, 1, t_full, full.iterations if full else "-",
                 full.expected_payoff if full else "-", "1", note_full or "-"))
    cases = PAPER_CASES[:3] if quick else PAPER_CASES
    for eps, delta, l in cases:
        t_cg, cg, note = _timed("column-generation", n, eps, delta, l, 30.0 if quick else 120.0)
        if cg is None:
            rows.append(("column generation", n, eps, delta, l, t_cg, "-", "-", "-", note))
            continue
        violation, gap = _certificate_gap(cg)
        speed = f"> {t_full / t_cg:.3g}" if full is None else f"{t_full / t_cg:.3g}"
        rows.append(("column generation", n, eps, delta, l, t_cg, cg.iterations,
                     cg.expected_payoff, speed if (eps, delta, l) == (0.5, 0.01, 1) else "-",
                     f"full-LP certificate: violation {violation:.1e}, gap {gap:.1e}"))
    return rows


def _binomial_sum(n: int) -> np.ndarray:
    """Fact 2 (corrected) as the paper writes it, every term through log-gamma: O(n^2)."""
    t = threshold(n)
    i = np.arange(t, n + 1, dtype=float)
    out = np.empty(n)
    for k in range(1, n + 1):
        ii = i[i <= n - k + 1]
        log_ratio = (gammaln(n - k + 1) - gammaln(ii) - gammaln(n - k - ii + 2)
                     - gammaln(n) + gammaln(ii) + gammaln(n - ii + 1))
        out[k - 1] = (t - 1) / n * (np.exp(log_ratio) / (ii - 1)).sum() \
            + ((t - 1) / (n * (n - 1)) if k >= 2 else 0.0)
    return out


def _rank_rows(quick: bool):
    n = 3000 if quick else 10**4
    t_sum, reference = best_time(lambda: _binomial_sum(n), repeat=1)
    t_rec, fast = best_time(lambda: rank_distribution(n), repeat=5)
    error = float(np.max(np.abs(fast / reference - 1)))
    big = 10**6
    t_big, r = best_time(lambda: rank_distribution(big), repeat=3)
    return [
        ("binomial sum (log-gamma)", n, t_sum, "1", "-"),
        ("difference recurrence", n, t_rec, f"{t_sum / t_rec:.3g}",
         f"max rel. diff {error:.1e}"),
        ("difference recurrence", big, t_big, "-", f"sum - 1 = {r.sum() - 1:.1e}"),
    ]


def _ratio_notes() -> str:
    from optmech.reproduce.secretary import ratio_table

    rows = ratio_table()
    lines = ["### Ratio optimal / best p-mix, P(select the best)", "",
             "| n | ε | δ | l | optimal | best p | p-mix | ratio | seconds |",
             "|---|---|---|---|---|---|---|---|---|"]
    lines += [f"| {n} | {e:g} | {d:g} | {l} | {o:.6f} | {p:.6f} | {m:.6f} | {r:.4f} | {s:.2f} |"
              for n, e, d, l, o, p, m, r, s in rows]
    return "\n".join(lines)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, a few seconds")
    args = parser.parse_args(argv)

    solver_rows = _solver_rows(args.quick)
    rank_rows = _rank_rows(args.quick)
    notes = ["Speed-up: HiGHS time / column-generation time in the same process "
             "('>' when HiGHS hit its time limit). Certificates: the returned rule is a "
             "point of the full LP (bound violation) and the multipliers give a dual bound "
             "on it (gap), both by lp_models.program.",
             "", "### Rank distribution of M*", "",
             "| method | n | seconds | speed-up | accuracy |", "|---|---|---|---|---|"]
    notes += [f"| {m} | {n} | {t:.4g} | {s} | {a} |" for m, n, t, s, a in rank_rows]
    if not args.quick:
        notes += ["", _ratio_notes()]
    notes += ["", f"Peak memory of the benchmark process: {peak_rss_mib():.0f} MiB."]
    write_table("stopping", "Optimal private stopping rule: stopping LP",
                ["solver", "n", "ε", "δ", "l", "seconds", "iterations", "P(best)",
                 "speed-up", "check"], solver_rows, "\n".join(notes))


if __name__ == "__main__":
    main()
