"""Beyond the permute-and-flip paper's setting: its Section 8 question 3 (other aggregates,
other domains) and the open question of its Section 4 (can EM be more than twice as bad as
PF?).  Every row is this toolkit's own (``new``), from certified LP optima
(:func:`optmech.lattice.optimum.solve_lattice`), an explicit improving step
(:mod:`optmech.lattice.delta`), the ratio search (:mod:`optmech.selection.em_pf_search`) and
the identity ``permute_flip.em_pf_ratio_below_two``.

Rows:

* minimax (``objective="max"``): PF is minimax-optimal among regular mechanisms for n = 2 and
  not for n >= 3; the largest margin on the grid; how the optimum depends on the depth k.
* a prior decaying geometrically in depth (``objective="weighted"``);
* the Δ-lattice: PF is never optimal (improving step), the optimum is ε-DP;
* EM/PF: the largest ratio found, below the proven supremum 2.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from optmech.lattice.aggregate_ratios import objective_ratios
from optmech.lattice.delta import pf_improving_step
from optmech.lattice.optimum import realised_privacy_loss, solve_lattice
from optmech.reproduce import Result, new_result
from optmech.selection.em_pf_search import search_em_pf_ratio
from proofs.registry import check_one, identities

AREA = "beyond the paper (permute-and-flip §4, §8)"
# These rows answer the paper's open questions; no claim of a paper cites them.
KEYS = frozenset({
    "minimax-n2-pf-optimal", "minimax-n3-pf-beaten", "minimax-depth", "weighted-prior",
    "delta-pf-never-optimal", "delta-n2-randomised-response", "delta-ratios-n4",
    "delta-privacy-loss", "em-pf-largest-ratio", "em-pf-bound-excess", "em-pf-sup-two",
})
FULL_ONLY_KEYS = frozenset()
QUESTION = "permute-and-flip paper §8, question 3"
# PF counts as beaten where its largest error exceeds a certified optimum's by this much
_RESOLVED = 1e-9
OPEN = "permute-and-flip paper §4 (open question after Figure 1)"


def _pf_max_ratios(ns, ks, epsilons) -> list[tuple[int, int, float, float]]:
    """``(n, k, eps, PF's largest error / certified minimax optimum)`` over the grid."""
    rows = []
    for n in ns:
        for k in ks:
            for eps in epsilons:
                optimum = solve_lattice(n, k, eps, objective="max")
                rows.append((n, k, eps, objective_ratios(optimum, ["pf"])["pf"]))
    return rows


def _minimax(quick: bool) -> list[Result]:
    epsilons = [0.1, 0.3, 1.0, 3.0] if quick else [0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 1.0, 1.5,
                                                   2.0, 3.0, 4.0]
    ks = [1, 2, 3] if quick else [1, 2, 3, 4, 5]
    pair = _pf_max_ratios([2], ks, epsilons)
    results = [new_result(
        AREA, "n = 2: PF's largest expected error over Q / certified minimax optimum, "
              f"k = {ks[0]}..{ks[-1]}, {len(epsilons)} eps in [{epsilons[0]}, {epsilons[-1]}]",
        f"max |ratio - 1| = {max(abs(r - 1) for *_, r in pair):.1e} (PF is minimax-optimal: "
        "its errors are the chain's lower bounds on every vector)", source=QUESTION,
        key="minimax-n2-pf-optimal")]
    many = _pf_max_ratios([3, 4] if quick else [3, 4, 5, 6], ks, epsilons)
    n, k, eps, worst = max(many, key=lambda row: row[3])
    unresolved = [e for *_, e, r in many if r <= 1 + _RESOLVED]
    rest = (f"; the others (eps <= {max(unresolved):g}) by less" if unresolved else "")
    results.append(new_result(
        AREA, f"n >= 3: PF's largest expected error / certified minimax optimum over "
              f"{len(many)} (n, k, eps)", f"largest {worst:.6f} at n = {n}, k = {k}, eps = "
        f"{eps:g}; the optimum beats PF by more than {_RESOLVED:g} at "
        f"{len(many) - len(unresolved)} of {len(many)} points{rest}", source=QUESTION,
        key="minimax-n3-pf-beaten"))
    depth = [solve_lattice(3, k, 0.2, objective="max").objective_value
             for k in range(1, 6 if quick else 9)]
    results.append(new_result(
        AREA, "minimax optimum, n = 3, eps = 0.2, k = 1, 2, ...: value grows while the "
              "worst vector sits at depth k, then stays", ", ".join(f"{v:.5f}" for v in depth),
        source=QUESTION, key="minimax-depth"))
    return results


def _weighted() -> list[Result]:
    optimum = solve_lattice(4, 4, 0.5, objective="weighted", weights="geometric:0.5")
    ratio = objective_ratios(optimum, ["pf", "em"])
    return [new_result(
        AREA, "prior 0.5^depth over Q, n = k = 4, eps = 0.5: weighted error of the optimum; "
              "PF and EM ratios", f"{optimum.objective_value:.6f}; PF {ratio['pf']:.6f}, EM "
        f"{ratio['em']:.6f} (gap {optimum.gap:.0e})", source=QUESTION, key="weighted-prior")]


def _delta(quick: bool) -> list[Result]:
    grid = [(n, k, eps) for n in (2, 3, 5) for k in (1, 3) for eps in (0.1, 1.0, 10.0)]
    if not quick:
        grid += [(n, k, eps) for n in (4, 8) for k in (2, 6) for eps in (0.3, 3.0, 30.0)]
    steps = [pf_improving_step(n, k, eps) for n, k, eps in grid]
    shown = sum(s.slack > 0 and s.gain > 0 for s in steps)
    results = [new_result(
        AREA, f"Δ-lattice: PF is never optimal (explicit improving step at {len(grid)} "
              "(n, k, eps), checked against every row)",
        f"step feasible with positive slack and gain at {shown} of {len(grid)}; gain between "
        f"{min(s.gain for s in steps):.1e} and {max(s.gain for s in steps):.1e} steps of Δ",
        source=QUESTION, key="delta-pf-never-optimal")]
    pair = solve_lattice(2, 1, 1.0, lattice="delta")
    results.append(new_result(
        AREA, "Δ-lattice n = 2, k = 1, eps = 1: certified optimum vs randomised response "
              "2/(1 + e^eps), and PF's e^(-eps/2)",
        f"{pair.total_error:.12f} vs {2 / (1 + np.e):.12f}; PF {np.exp(-0.5):.6f}",
        source=QUESTION, key="delta-n2-randomised-response"))
    optimum = solve_lattice(4, 4, 1.0, lattice="delta")
    ratio = objective_ratios(optimum, ["pf", "em"])
    results.append(new_result(
        AREA, "Δ-lattice n = k = 4, eps = 1: optimality ratios of PF and EM (sum over Q)",
        f"PF {ratio['pf']:.6f}, EM {ratio['em']:.6f} (gap {optimum.gap:.0e})",
        source=QUESTION, key="delta-ratios-n4"))
    small = solve_lattice(3, 3, 0.7, lattice="delta")
    results.append(new_result(
        AREA, "Δ-lattice n = k = 3, eps = 0.7: realised privacy loss of the optimum over "
              "every neighbour in the lattice", realised_privacy_loss(small), source=QUESTION,
        key="delta-privacy-loss"))
    return results


def _em_pf(quick: bool) -> list[Result]:
    ns = [2, 10] if quick else [2, 3, 10, 30, 100]
    epsilons = [0.5, 2.0] if quick else [0.1, 0.5, 1.0, 2.0, 8.0]
    searches = search_em_pf_ratio(ns, epsilons, starts=2 if quick else 10, seed=0)
    best = max(searches, key=lambda r: r.ratio)
    excess = max(r.ratio - r.bound for r in searches)
    status = check_one(identities(["permute_flip.em_pf_ratio_below_two"])[0]).status
    return [
        new_result(AREA, f"largest E[err EM]/E[err PF] found, n in {ns}, eps in {epsilons} "
                   "(structured families + multistart)",
                   f"{best.ratio:.15f} (2 - {best.deficit:.2e}) at n = {best.n}, "
                   f"q = (0, {best.scores[1]:g}, ...) x Δ, eps = {best.epsilon:g}, "
                   f"by {best.family}", source=OPEN, key="em-pf-largest-ratio"),
        new_result(AREA, "search: largest excess of a found ratio over the bound "
                   "2 - 2 min p / sum p (must be <= rounding)", f"{excess:.1e}", source=OPEN,
                   key="em-pf-bound-excess"),
        new_result(AREA, "sup E[err EM]/E[err PF] = 2, never attained (identity "
                   "permute_flip.em_pf_ratio_below_two)", status, source=OPEN,
                   key="em-pf-sup-two"),
    ]


def run(quick: bool, out: Path) -> list[Result]:
    return _minimax(quick) + _weighted() + _delta(quick) + _em_pf(quick)
