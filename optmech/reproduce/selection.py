"""Permute-and-flip paper, Section 4.1: EM vs PF on worst-case vectors (Figure 1,
Proposition 5)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from optmech.figures import save_figure
from optmech.figures.selection import figure_1
from optmech.reproduce import Result, compare
from optmech.selection.worst_case import em_error_on_step, pf_error_on_step

AREA = "selection (permute-and-flip §4)"
SOURCE = "permute-and-flip.txt"


def run(quick: bool, out: Path) -> list[Result]:
    ns = [2, 3, 5, 10, 30, 100, 1000] if quick else None
    fig, data = figure_1(ns_worst=ns)
    save_figure(fig, out / "pf_figure1.png")
    ratio = data["em_worst"] / data["pf_worst"]
    results = [
        Result(AREA, "worst-case EM/PF ratio is largest at n = 2 and decays towards 1",
               f"{SOURCE} §4.1, Figure 1(c)", "largest at n = 2, decays to 1",
               f"{ratio[0]:.4f} at n = {data['n'][0]}, {ratio[-1]:.4f} at n = {data['n'][-1]}",
               None, "match" if ratio[0] == ratio.max() and np.all(np.diff(ratio) < 0)
               else "differs", figure="pf_figure1.png"),
        compare(AREA, "EM/PF error ratio as p -> 0 (n = 2, p = 1e-9)",
                f"{SOURCE} §4.1, Figure 1(b)", 2.0,
                float(em_error_on_step(2, 1e-9, 1.0) / pf_error_on_step(2, 1e-9, 1.0)), 1e-6,
                figure="pf_figure1.png"),
    ]
    # Proposition 5: at c = -(2Δ/ε) log n, PF's error is at least (Δ/(2ε)) log n.
    worst_margin = min(float(pf_error_on_step(n, 1.0 / n, 1.0)) / (math.log(n) / 2)
                       for n in range(2, 10_001 if not quick else 2_001))
    results.append(Result(AREA, "Proposition 5: PF error at p = 1/n over (Δ/2ε) log n, "
                          "minimum over n >= 2", f"{SOURCE} Proposition 5", ">= 1",
                          worst_margin, None, "match" if worst_margin >= 1 - 1e-12 else "differs"))
    return results
