"""The certified accountant (``optmech privacy account``): what a deployer reports, and its cost.

Tables:

* ``accountant_table.md``: for the exponential mechanism (EM), permute-and-flip (PF),
  report-noisy-max with Laplace noise and peeling top-3 with EM, at (ε, k) in {(0.05, 1000),
  (0.1, 100), (0.5, 50), (1, 10)} and δ = 1e-6: ε′ of the fallbacks (naive kε, randomised
  response composed exactly, the summed zCDP bounds, the summed published Rényi curves),
  optmech's certified upper and attained lower ε′, and the saving against the best fallback
  (the table of ``docs/guide/accounting.md``);
* ``accountant_cost.md``: CPU and wall seconds of the certified composition of 1,000 mixed
  steps (500 EM at 0.1, 300 PF at 1, 200 report-noisy-max at 0.5), against its estimate;
  the memory estimate against the peak traced by tracemalloc at three sizes.

Run: ``python -m benchmarks.accountant [--quick]`` (``--quick``: a tenth of the counts).
"""

from __future__ import annotations

import argparse

from benchmarks._report import claim, measure, start, traced_peak_mib, write_table
from optmech.privacy.accountant import Accountant
from optmech.topk.mechanisms import make_topk_mechanism

ROWS = [(0.05, 1000), (0.1, 100), (0.5, 50), (1.0, 10)]
MECHANISMS = [("em", "exponential mechanism"), ("pf", "permute-and-flip"),
              ("rnm_laplace", "report-noisy-max, Laplace"), ("peel-em", "peeling top-3 (EM)")]
MIXED = ["em:0.1:500", "pf:1:300", "rnm_laplace:0.5:200"]


def _accountant(name: str, eps: float, count: int) -> Accountant:
    if name == "peel-em":
        return Accountant([(make_topk_mechanism("peel-em", eps, 3), count)], top=3, n=4)
    return Accountant([f"{name}:{eps:g}:{count}"])


def table(quick: bool) -> None:
    rows = []
    for name, label in MECHANISMS:
        for eps, count in ROWS:
            count = max(1, count // 10) if quick else count
            p = _accountant(name, eps, count).report(1e-6).payload
            f = p["fallbacks"]
            rows.append([label, eps, count, f["naive"]["eps"], f["randomised_response"]["eps"],
                         f["zcdp"]["eps"], f["rdp"]["eps"], p["upper"]["eps"],
                         p["lower"]["eps"], p["saving"]["fallback"],
                         f"{100 * p['saving']['relative']:.1f} %"])
    write_table("accountant_table", "eps' at delta = 1e-6: fallbacks, certified, attained",
                ["mechanism", "eps", "k", "naive", "randomised response", "zCDP", "RDP",
                 "certified upper", "attained lower", "best fallback", "saving"], rows,
                notes="Certified upper: the adaptive composition of each step's dominating "
                      "pair (optmech.privacy.adaptive), or the best fallback where that is "
                      "as good.  Attained lower: one explicit pair per step, composed "
                      "exactly (two candidates; four for top-3).")


def cost(quick: bool) -> None:
    steps = [s.rsplit(":", 1)[0] + f":{int(s.rsplit(':', 1)[1]) // 10}" for s in MIXED] \
        if quick else MIXED
    accountant = Accountant(steps)
    estimate = accountant.estimate(1e-6)
    runs = measure(lambda: accountant.upper(1e-6), min_runs=3, budget=0.0)
    rows = [["1,000 mixed steps" if not quick else "100 mixed steps", " + ".join(steps),
             accountant.resolution_for(1e-6), runs.cpu, runs.wall, estimate.seconds]]
    write_table("accountant_cost", "the certified composition of mixed steps: CPU and wall "
                "seconds (median [min, max]) against the estimate",
                ["sequence", "steps", "resolution", "CPU s", "wall s", "estimated CPU s"],
                rows, claims=[claim("accountant.mixed", "certified composition of the "
                                    "mixed steps", runs.cpu)])
    memory = []
    for sizes in (["em:0.1:100"], ["em:0.05:1000"], MIXED):
        sizes = [s.rsplit(":", 1)[0] + f":{max(1, int(s.rsplit(':', 1)[1]) // 10)}"
                 for s in sizes] if quick else sizes
        a = Accountant(sizes)
        estimate = a.estimate(1e-6).nbytes / 2 ** 20
        peak = traced_peak_mib(lambda: a.upper(1e-6))
        memory.append([" + ".join(sizes), estimate, peak, estimate / peak])
    write_table("accountant_memory", "the memory estimate against the traced peak (MiB)",
                ["steps", "estimate", "peak (tracemalloc)", "estimate / peak"], memory)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args = start(parser, argv)
    table(args.quick)
    cost(args.quick)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
