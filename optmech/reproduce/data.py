"""Permute-and-flip paper, Section 6 and Appendix G: mode and median on DPBench histograms.

The paper quotes, for HEPTH coarsened to 1024 bins: the EM/PF error ratio (1.84 for the
mode at epsilon = 0.04, 1.93 for the median at epsilon = 0.01), PF's error there (about 5.4
and 13.7), and the privacy budget EM needs to match PF (1.27x and 1.19x).  We recompute
each exactly at the stated epsilon, then at the epsilon the authors actually evaluated.

What we found (the reasons the rows at the stated epsilon can differ):

* The authors' notebook (github.com/ryan112358/permute-and-flip, experimental-plots.ipynb)
  evaluates on the plotting grid ``linspace(1e-4, eps_1, 100)``, ``eps_1`` the epsilon
  where EM's error is 1 (in its units).  Every quoted number is that of the grid's 51st
  point: epsilon = 0.03976 for the mode (quoted as 0.04) and 0.01066 for the median
  (quoted as 0.01).  For the median this matters (PF's error falls from 17.2 to 13.7
  between 0.01 and 0.01066); for the mode it moves PF's error from 5.32 to 5.40.
* The mode is scored as ``q = 2 h`` with exponent epsilon / 2, i.e. the monotonic variant
  on the counts ``h``, and its errors are in units of 2 individuals.  We report errors in
  individuals and convert (factor 2) only to compare with the paper.
* Coarsening to 1024 bins and monotonicity change the numbers a lot (rows marked ``new``
  below: 4096 bins, non-monotonic mode); the median score agrees bin for bin with the
  authors' ``median_quality`` (see :mod:`optmech.data.tasks`), so its definition is not the cause.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from optmech.data.datasets import PAPER_DATASETS, load_histogram
from optmech.data.tasks import TASKS, budget_ratio, expected_errors
from optmech.figures.data import (
    BAR_ERROR,
    bar_values,
    epsilon_grid,
    experiment,
    figure_3,
    figure_5,
    figure_6,
    figure_7,
)
from optmech.reproduce import Result, claim_result, compare, new_result
from proofs.papers import cite

AREA = "data"  # the module name: `optmech reproduce` tallies results by it
SOURCE = cite("permute-and-flip")
KEYS = frozenset({
    "hepth-mode-ratio-grid", "hepth-mode-pf-error-grid", "hepth-mode-budget-grid",
    "hepth-median-ratio-grid", "hepth-median-pf-error-grid", "hepth-median-budget-grid",
    "hepth-mode-ratio-stated", "hepth-median-ratio-stated",
    "figure-7a-mode-factor-two", "figure-3c-median-factor-two", "figures-5-6-ratio-rises",
    "section-6-exponential-decay", "section-6-additive-savings",
    "hepth-mode-pf-error-stated", "hepth-mode-budget-stated", "hepth-median-pf-error-stated",
    "hepth-median-budget-stated", "hepth-mode-errors", "hepth-mode-4096-bins",
    "hepth-mode-non-monotonic", "hepth-median-errors", "hepth-median-4096-bins",
    *(f"bars-{name.lower()}-{task}" for name in PAPER_DATASETS for task in ("mode", "median")),
    "figures-redrawn",
})
FULL_ONLY_KEYS = frozenset()
# "close to a factor of two": within 10% of 2
CLOSE_TO_TWO = 1.8
# Section 6's quoted values: (epsilon, EM/PF ratio, PF error, EM budget / PF budget).
PAPER = {"mode": (0.04, 1.84, 5.4, 1.27), "median": (0.01, 1.93, 13.7, 1.19)}
# The authors score the mode as 2 * count, so their errors are ours times this factor.
PAPER_SCALE = {"mode": 2.0, "median": 1.0}
GRID_POINTS, GRID_INDEX = 100, 50
RATIO_TOL, BUDGET_TOL, ERROR_TOL = 0.005, 0.005, 0.05  # half a unit of the last digit quoted

_GRID_NOTE = ("the authors' notebook (github.com/ryan112358/permute-and-flip, "
              "experimental-plots.ipynb) evaluates on linspace(1e-4, eps_1, 100), eps_1 where "
              "EM's error is 1 in its units, and the quoted values are those of its 51st "
              "point, eps = {eps:.5g} (rows 'at the authors' grid point' match); coarsening, "
              "monotonicity and the median score's definition do not explain the gap (rows "
              "marked new, optmech.data.tasks)")
_UNIT_NOTE = ("; the paper's mode error is in units of 2 individuals (it scores q = 2 count "
              "with exponent eps/2, the monotonic mechanism on counts): ours is {ind:.4g} "
              "individuals = {paper:.4g} in its units")


def _headline(task: str, eps: float, label: str, note: str | None,
              keys: tuple[str, str, str]) -> list[Result]:
    """Ratio, PF error (paper's units) and budget ratio for HEPTH ``task`` at ``eps``."""
    exp = experiment("HEPTH", task)
    _, ratio_paper, pf_paper, budget_paper = PAPER[task]
    errors = exp.errors(eps, ("pf", "em"))
    pf_units = errors["pf"] * PAPER_SCALE[task]
    budget = budget_ratio(exp.scores, eps, sensitivity=exp.sensitivity,
                          monotonic=exp.monotonic)
    why = ""
    if note is not None:
        why = note + (_UNIT_NOTE.format(ind=errors["pf"], paper=pf_units)
                      if task == "mode" else "")
    where = f"HEPTH {task}, 1024 bins, eps = {eps:.5g} ({label})"
    src = cite("permute-and-flip", f"§6 ({task})")
    return [
        compare(AREA, f"{where}: EM/PF expected-error ratio", src, ratio_paper,
                errors["em"] / errors["pf"], RATIO_TOL, why, "pf_figure3.png", key=keys[0]),
        compare(AREA, f"{where}: PF expected error (paper's units)", src, pf_paper, pf_units,
                ERROR_TOL, why, "pf_figure3.png", key=keys[1]),
        compare(AREA, f"{where}: budget EM needs to match PF (x eps)", src, budget_paper,
                budget, BUDGET_TOL, why, key=keys[2]),
    ]


def _authors_grid_point(task: str) -> float:
    """The 51st point of the authors' grid, EM's error floor 1 in the paper's units."""
    exp = experiment("HEPTH", task)
    return float(epsilon_grid(exp, GRID_POINTS, floor=1.0 / PAPER_SCALE[task])[GRID_INDEX])


def _context(task: str, eps: float) -> list[Result]:
    """New rows: RNM-Laplace, PF in individuals, and the variants the paper did not use."""
    exp = experiment("HEPTH", task)
    errors = exp.errors(eps)
    where = f"HEPTH {task}, eps = {eps:g}"
    rows = [new_result(AREA, f"{where}: expected error in individuals, PF / EM / RNM-Laplace",
                       f"{errors['pf']:.6g} / {errors['em']:.6g} / {errors['rnm_laplace']:.6g}",
                       key=f"hepth-{task}-errors")]
    fine = TASKS[task].scores(load_histogram("HEPTH"))
    e = expected_errors(fine, eps, monotonic=exp.monotonic, mechanisms=("pf", "em"))
    rows.append(new_result(AREA, f"{where}, 4096 bins (no coarsening): PF error, EM/PF ratio",
                           f"{e['pf']:.6g}, {e['em'] / e['pf']:.6g}",
                           key=f"hepth-{task}-4096-bins"))
    if task == "mode":
        e = expected_errors(exp.scores, eps, monotonic=False, mechanisms=("pf", "em"))
        rows.append(new_result(AREA, f"{where}, non-monotonic variant: PF error, EM/PF ratio",
                               f"{e['pf']:.6g}, {e['em'] / e['pf']:.6g}",
                               key="hepth-mode-non-monotonic"))
    return rows


def _bars(task: str, values: dict) -> list[Result]:
    figure = "pf_figure3.png" if task == "median" else "pf_figure7.png"
    return [new_result(AREA, f"{name} {task}: eps where EM's error is {BAR_ERROR:g}; "
                       "PF and RNM-Laplace error there",
                       f"eps {v['epsilon']:.5g}; PF {v['pf']:.4g}, RNM {v['rnm_laplace']:.4g}",
                       figure, cite("permute-and-flip", "Figure 3(c), Figure 7"),
                       key=f"bars-{name.lower()}-{task}")
            for name, v in values.items()]


def run(quick: bool, out: Path) -> list[Result]:
    out = Path(out)
    results: list[Result] = []
    for task, (eps, *_rest) in PAPER.items():
        grid_eps = _authors_grid_point(task)
        results += _headline(task, eps, "as stated", _GRID_NOTE.format(eps=grid_eps),
                             tuple(f"hepth-{task}-{what}-stated"
                                   for what in ("ratio", "pf-error", "budget")))
        results += _headline(task, grid_eps, "at the authors' grid point", None,
                             tuple(f"hepth-{task}-{what}-grid"
                                   for what in ("ratio", "pf-error", "budget")))
        results += _context(task, eps)
    bars = {task: bar_values(task, PAPER_DATASETS) for task in ("mode", "median")}
    for task in ("mode", "median"):
        results += _bars(task, bars[task])

    points, rnm_every = (12, None) if quick else (60, 4)
    figure_3(out / "pf_figure3.png", points, rnm_every, bars["median"])
    figure_7(out / "pf_figure7.png", bars)
    drawn = "3, 7"
    if not quick:
        figure_5(out / "pf_figure5.png", points, rnm_every)
        figure_6(out / "pf_figure6.png", points, rnm_every)
        drawn = "3, 5, 6, 7"
    results.append(new_result(
        AREA, f"Figures {drawn} redrawn (errors in individuals, so the mode panels sit a "
        "factor 2 below the paper's; RNM-Laplace added" + ("; Figures 5-6 and the RNM "
                                                           "curves in the full run only)"
                                                           if quick else ")"),
        f"{points} epsilons per curve", "pf_figure3.png",
        cite("permute-and-flip", "Figures 3, 5, 6, 7"), key="figures-redrawn"))
    results += [_factor_two(task) for task in ("mode", "median")]
    results.append(_ratio_rises(8 if quick else 30))
    results += _asymptotics()
    return results


def _factor_two(task: str) -> Result:
    """Figure 3(c) (median) and Figure 7 (mode): the EM/PF ratio on each of the paper's five
    datasets at the epsilon where EM's expected error is 50 *in the paper's units* (units of
    2 individuals for the mode)."""
    values = {}
    for name in PAPER_DATASETS:
        exp = experiment(name, task)
        eps = exp.epsilon_for_error(BAR_ERROR / PAPER_SCALE[task])
        errors = exp.errors(eps, ("pf", "em"))
        values[name] = (eps, errors["em"] / errors["pf"])
    far = [name for name, (_, ratio) in values.items() if ratio < CLOSE_TO_TWO]
    figure, where = (("pf_figure3.png", "Figure 3(c)") if task == "median"
                     else ("pf_figure7.png", "Figure 7(a)"))
    return claim_result(
        AREA, f"{where} ({task}): EM/PF ratio at the eps where EM's error is 50 in the paper's "
        f"units ({'2 individuals' if task == 'mode' else 'individuals'}), the five datasets",
        cite("permute-and-flip", f"§6 and Appendix G, {where}"),
        f"close to 2 (>= {CLOSE_TO_TWO}) for all datasets",
        "; ".join(f"{name}: eps {eps:.5g}, ratio {ratio:.4f}"
                  for name, (eps, ratio) in values.items()),
        not far,
        f"holds for {', '.join(n for n in values if n not in far)} but not for "
        f"{', '.join(far)} (ratio {', '.join(f'{values[n][1]:.2f}' for n in far)}, far from 2)",
        figure, key=f"figure-{'3c-median' if task == 'median' else '7a-mode'}-factor-two")


def _ratio_rises(points: int) -> Result:
    """Appendix G (Figures 5 and 6): on each of the paper's five datasets and both tasks the
    EM/PF ratio rises with epsilon over the authors' plotting grid, from about 1 to about 2."""
    lows, highs, rising = [], [], True
    for task in ("mode", "median"):
        for name in PAPER_DATASETS:
            exp = experiment(name, task)
            grid = epsilon_grid(exp, points, floor=1.0 / PAPER_SCALE[task])
            ratios = np.array([(lambda e: e["em"] / e["pf"])(exp.errors(eps, ("pf", "em")))
                               for eps in grid])
            rising &= bool(np.all(np.diff(ratios) > 0))
            lows.append(float(ratios[0]))
            highs.append(float(ratios[-1]))
    return claim_result(
        AREA, f"Figures 5-6: EM/PF ratio rises with eps on each dataset and task ({points}-point "
        "authors' grid, EM error from large to 1 in the paper's units)",
        cite("permute-and-flip", "Appendix G, Figures 5-6"), "rises from ~1 to ~2",
        f"rising on all {len(lows)} curves: {rising}; first points "
        f"{min(lows):.3f}..{max(lows):.3f}, "
        f"last points {min(highs):.3f}..{max(highs):.3f}", rising and max(lows) < 1.4
        and min(highs) > CLOSE_TO_TWO, key="figures-5-6-ratio-rises")


def _decay_rate(exp) -> float:
    """The rate ``a`` of ``error ~ c e^{-a eps}`` as eps grows: the gap from the top score to
    the runner-up, times the exponent's factor (``1/Δ`` for the monotonic mode, ``1/(2Δ)``
    otherwise); the runner-up's term dominates every mechanism's error."""
    q = np.sort(exp.scores)[::-1]
    gap = float(q[0] - q[q < q[0]][0])
    return gap / exp.sensitivity / (1.0 if exp.monotonic else 2.0)


def _asymptotics(points: int = GRID_POINTS, tail: int = 10) -> list[Result]:
    """§6 after Figures 3(a)-(b): the error curves become parallel lines on the log scale,
    'approximately c exp(-eps)', and PF saves a constant additive amount of privacy budget.
    Over the last ``tail`` points of the authors' grid (EM's error falling to 1 in the
    paper's units) on each of the five datasets and both tasks: the fitted slope of
    log(error) against eps, over the rate ``a`` of :func:`_decay_rate`, and the budget EM
    needs beyond PF's, over its limit ``ln 2 / a`` and as a share of the grid's last eps."""
    slopes, savings, shares, rates = [], [], [], []
    for task in ("mode", "median"):
        for name in PAPER_DATASETS:
            exp = experiment(name, task)
            grid = epsilon_grid(exp, points, floor=1.0 / PAPER_SCALE[task])[-tail:]
            rate = _decay_rate(exp)
            logs = np.log([[e["pf"], e["em"]] for e in (exp.errors(x, ("pf", "em"))
                                                        for x in grid)])
            slopes += [-np.polyfit(grid, logs[:, m], 1)[0] / rate for m in (0, 1)]
            extra = grid[-1] * (budget_ratio(exp.scores, grid[-1], sensitivity=exp.sensitivity,
                                             monotonic=exp.monotonic) - 1)
            savings.append(extra * rate / math.log(2))
            shares.append(extra / grid[-1])
            rates.append(rate)
    src = cite("permute-and-flip", "§6, after Figures 3(a)-(b)")
    parallel = max(slopes) < 1.15 and min(slopes) > 0.95
    return [
        claim_result(
            AREA, "§6: errors decay 'approximately as c exp(-eps)', parallel on the log scale "
            f"(slope of log error over the last {tail} points of the authors' grid, divided by "
            "the rate a = gap to the runner-up x eps factor; 5 datasets x 2 tasks, PF and EM)",
            src, "c exp(-eps): slope 1", f"slope / a: {min(slopes):.3f}..{max(slopes):.3f}; "
            f"rates a from {min(rates):.4g} to {max(rates):.4g}", False,
            "holds in part: both errors do decay exponentially and in parallel, as c e^(-a eps), "
            "but at the rate a set by the score gap between the top bin and the runner-up, "
            f"from {min(rates):.4g} to {max(rates):.4g} here, not 1" if parallel else "",
            key="section-6-exponential-decay"),
        claim_result(
            AREA, "§6: PF's asymptotic factor of two is a constant additive saving of privacy "
            "budget (EM's extra eps at the grid's last point, over its limit ln 2 / a, and "
            "as a share of that eps)", src, "constant additive saving, a meaningful share",
            f"extra eps / (ln 2 / a): {min(savings):.3f}..{max(savings):.3f}; share of eps: "
            f"{min(shares):.1%}..{max(shares):.1%}",
            0.85 < min(savings) <= max(savings) < 1.01 and min(shares) > 0.03,
            key="section-6-additive-savings"),
    ]
