"""Benchmark: the optimal (ε, δ)-DP stopping rule (the LP of ``lp_models.stopping``).

Claims measured, each against a baseline run in this process:

* column generation solves (and certifies) the stopping LP at n = 1000 in seconds for the
  paper's parameters; baseline: HiGHS dual simplex on the full LP (1.0e6 columns at
  n = 1000), run with a time limit (once: a run that hits the limit is not repeated), and
  timed in full, in alternating runs with column generation, at the sizes it manages;
* the certificate of every n = 1000 solution is checked on the full LP itself
  (``lp.max_violation`` of the rule, ``dual_objective`` of ``full_duals``);
* the rank distribution of M* by the difference recurrence at n = 10^6, against the
  paper's binomial sum (log-gamma, O(n^2)) at n = 10^4.

Run ``python -m benchmarks.stopping [--quick]``; writes ``stopping.md`` (the full run also
lists the ratio optimal / best p-mix over a grid of n, ε, δ and l).
"""

from __future__ import annotations

import argparse

import numpy as np
from scipy.special import gammaln

from benchmarks._report import (
    claim,
    format_number,
    measure,
    measure_interleaved,
    peak_rss_mib,
    ratio,
    start,
    write_table,
)
from lp_models.program import SolverError, dual_objective
from lp_models.stopping import full_duals, full_primal, rank_payoff, stopping_lp
from optmech.secretary import ConvergenceError, optimal_private_rule, rank_distribution, threshold
from optmech.tables import markdown_table

PAPER_CASES = [(0.5, 0.01, 1), (0.5, 0.05, 2), (1.0, 0.01, 1), (0.1, 0.05, 1),
               (0.1, 0.01, 2), (1.0, 0.0, 2), (0.1, 0.0, 1)]


def _solve(method, n, eps, delta, l, time_limit):
    """(result or None, note) of one solve."""
    try:
        return optimal_private_rule(n, eps, delta, l, method=method, time_limit=time_limit), ""
    except ConvergenceError as stop:
        return None, (f"limit {time_limit:g} s: value in [{stop.lower:.6g}, "
                      f"{stop.upper:.6g}]")
    except SolverError as error:
        return None, f"HiGHS: {error.status}"


def _finished(outcome) -> bool:
    return outcome[0] is not None


def _certificate_gap(result) -> tuple[float, float]:
    """(max bound violation of the rule, dual bound - value) on the full LP."""
    lp = stopping_lp(result.n, result.epsilon, result.delta, result.l, rank_payoff(result.n))
    point = full_primal(lp, result.rule.joint())
    bound, _ = dual_objective(lp, full_duals(lp, result.multipliers))
    return lp.max_violation(point), bound - lp.objective_value(point)


def _seconds(timing) -> str:
    """CPU seconds of a timing, or, when its one run hit the (wall-clock) time limit, the
    CPU seconds it had used then: a lower bound."""
    if timing.complete:
        return str(timing.cpu)
    return (f"> {format_number(timing.cpu.center)} (limit hit after "
            f"{format_number(timing.wall.center)} s wall)")


def _solver_rows(quick: bool, claims: list):
    rows = []
    # Both solvers where HiGHS manages the full LP: the speed-up is a same-process ratio.
    for n in ((40, 80) if quick else (50, 100, 150)):
        timings = measure_interleaved(
            {"highs": lambda: _solve("highs", n, 0.5, 0.01, 1, 300),
             "column-generation": lambda: _solve("column-generation", n, 0.5, 0.01, 1, 300)},
            complete=_finished)
        full, cg = timings["highs"], timings["column-generation"]
        (full_result, note_full), (cg_result, _) = full.result, cg.result
        speedup = ratio(full.cpu, cg.cpu)
        claims.append(claim(f"stopping.cg_vs_highs.{n}", f"stopping LP, column generation vs "
                            f"HiGHS on the full LP, n = {n}, eps 0.5, delta 0.01, l 1",
                            speedup))
        diff = abs(full_result.expected_payoff - cg_result.expected_payoff)
        rows.append(("highs (full LP)", n, 0.5, 0.01, 1, _seconds(full),
                     full_result.iterations, full_result.expected_payoff, "1",
                     note_full or "-"))
        rows.append(("column generation", n, 0.5, 0.01, 1, _seconds(cg), cg_result.iterations,
                     cg_result.expected_payoff, speedup, f"value difference {diff:.1e}"))
    # n = 1000 (quick: 200): the baseline gets a time limit, column generation all cases.
    n = 150 if quick else 1000
    limit = 3.0 if quick else 60.0
    full = measure(lambda: _solve("highs", n, 0.5, 0.01, 1, limit), complete=_finished)
    full_result, note_full = full.result
    rows.append(("highs (full LP)", n, 0.5, 0.01, 1, _seconds(full),
                 full_result.iterations if full_result else "-",
                 full_result.expected_payoff if full_result else "-", "1", note_full or "-"))
    for eps, delta, l in (PAPER_CASES[:2] if quick else PAPER_CASES):
        limit = 30.0 if quick else 120.0
        cg = measure(lambda: _solve("column-generation", n, eps, delta, l, limit),
                     complete=_finished)
        result, note = cg.result
        if result is None:
            rows.append(("column generation", n, eps, delta, l, _seconds(cg), "-", "-", "-",
                         note))
            continue
        claims.append(claim(f"stopping.cg.{n}.eps{eps:g}.delta{delta:g}.l{l}",
                            f"stopping LP by column generation, n = {n}, eps {eps:g}, delta "
                            f"{delta:g}, l {l}", cg.cpu))
        violation, gap = _certificate_gap(result)
        speed = "-"
        if (eps, delta, l) == (0.5, 0.01, 1):
            speed = (str(ratio(full.cpu, cg.cpu)) if full.complete
                     else f"> {format_number(full.cpu.center / cg.cpu.high)}")
        rows.append(("column generation", n, eps, delta, l, _seconds(cg), result.iterations,
                     result.expected_payoff, speed,
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


def _rank_rows(quick: bool, claims: list):
    n = 3000 if quick else 10**4
    timings = measure_interleaved({"sum": lambda: _binomial_sum(n),
                                   "recurrence": lambda: rank_distribution(n)})
    slow, fast = timings["sum"], timings["recurrence"]
    error = float(np.max(np.abs(fast.result / slow.result - 1)))
    speedup = ratio(slow.cpu, fast.cpu)
    claims.append(claim(f"stopping.rank_recurrence_vs_sum.{n}", "rank distribution of M*, "
                        f"difference recurrence vs the binomial sum, n = {n}", speedup))
    big = 10**5 if quick else 10**6
    large = measure(lambda: rank_distribution(big))
    claims.append(claim(f"stopping.rank_recurrence.{big}", "rank distribution of M* by the "
                        f"difference recurrence, n = {big}", large.cpu))
    return [
        ("binomial sum (log-gamma)", n, slow.cpu, "1", "-"),
        ("difference recurrence", n, fast.cpu, speedup, f"max rel. diff {error:.1e}"),
        ("difference recurrence", big, large.cpu, "-", f"sum - 1 = {large.result.sum() - 1:.1e}"),
    ]


def _ratio_notes() -> str:
    from optmech.reproduce.secretary import ratio_markdown, ratio_table

    return "### Ratio optimal / best p-mix, P(select the best)\n\n" + ratio_markdown(
        ratio_table())


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args = start(parser, argv)
    claims: list[str] = []
    solver_rows = _solver_rows(args.quick, claims)
    rank_rows = _rank_rows(args.quick, claims)
    notes = [("CPU seconds per solve, median [min, max] over at least 5 runs ('> s': one run "
              "that hit its time limit, not repeated).  Speed-up: HiGHS time / "
              "column-generation time in the same process, in alternating runs ('>' when "
              "HiGHS hit its time limit).  Certificates: the returned rule is a point of the "
              "full LP (bound violation) and the multipliers give a dual bound on it (gap), "
              "both by lp_models.program."),
             "", "### Rank distribution of M*", "",
             *markdown_table(["method", "n", "CPU s", "speed-up (CPU)", "accuracy"],
                             rank_rows)]
    if not args.quick:
        notes += ["", _ratio_notes()]
    notes += ["", f"Peak memory of the benchmark process: {peak_rss_mib():.0f} MiB."]
    write_table("stopping", "Optimal private stopping rule: stopping LP",
                ["solver", "n", "ε", "δ", "l", "CPU s", "iterations", "P(best)",
                 "speed-up (CPU)", "check"], solver_rows, "\n".join(notes), claims)


if __name__ == "__main__":
    main()
