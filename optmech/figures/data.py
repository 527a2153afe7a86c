"""Figures of the permute-and-flip paper's data experiments (Section 6, Appendix G).

* :func:`figure_3`: (a) mode and (b) median, expected error against epsilon on HEPTH;
  (c) median on every dataset at the epsilon where the exponential mechanism's expected
  error is 50.
* :func:`figure_5` / :func:`figure_6`: mode / median, error against epsilon, every dataset.
* :func:`figure_7`: (c) for both tasks.

Set-up as in the paper (:func:`experiment`): histograms coarsened to 1024 bins (NETFLIX,
17770 bins, kept whole), the mode scored with the monotonic variant and the median without
it, sensitivity 1.  Errors are exact (:mod:`optmech.data.tasks`), never sampled, and in counts
of individuals; the paper's mode panels are in units of 2 counts (its notebook scores
``q = 2 h``), so they sit a factor 2 above ours.  Epsilon runs over the paper's grid
``linspace(1e-4, eps_1, points)`` with ``eps_1`` the epsilon where EM's error is 1
(:func:`epsilon_grid`).  Report-noisy-max with Laplace noise, which the paper leaves out of
these figures, is drawn dashed on every ``rnm_every``-th grid point, ending at the last
(its pmf costs 0.1-30 s per epsilon here, against milliseconds for PF and EM).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from optmech.data.datasets import DATASETS, PAPER_BINS, PAPER_DATASETS, coarsen, load_histogram
from optmech.data.tasks import TASKS, epsilon_for_error, error_curves, expected_errors
from optmech.figures import new_figure, save_figure

__all__ = [
    "BAR_ERROR",
    "Experiment",
    "bar_values",
    "epsilon_grid",
    "experiment",
    "figure_3",
    "figure_5",
    "figure_6",
    "figure_7",
]

BAR_ERROR = 50.0
GRID_START = 1e-4
LABELS = {"pf": "PF", "em": "EM", "rnm_laplace": "RNM-Laplace"}
STYLES = {"pf": dict(color="m", lw=2.5), "em": dict(color="g", lw=2.5),
          "rnm_laplace": dict(color="tab:blue", lw=1.5, ls="--", marker=".")}


@dataclass(frozen=True)
class Experiment:
    """One dataset and task as the paper sets them up."""

    #: The dataset's name in upper case, as the paper writes it (e.g. ``"HEPTH"``).
    dataset: str
    #: The selection task, a key of ``optmech.data.tasks.TASKS`` (``"mode"`` or ``"median"``).
    task: str
    #: Number of histogram bins after coarsening: 1024, or the native count where it does not divide
    #: into 1024 (NETFLIX: 17770).
    bins: int
    #: The task's score of every bin (units of individuals; higher is better).
    scores: np.ndarray
    #: Whether the mechanisms use their monotonic variant (True for the mode, False for the median).
    monotonic: bool

    @property
    def sensitivity(self) -> float:
        return TASKS[self.task].sensitivity

    def errors(self, epsilon: float, mechanisms=("pf", "em", "rnm_laplace")) -> dict:
        return expected_errors(self.scores, epsilon, sensitivity=self.sensitivity,
                               monotonic=self.monotonic, mechanisms=mechanisms)

    def epsilon_for_error(self, target: float, mechanism: str = "em") -> float:
        return epsilon_for_error(self.scores, target, mechanism=mechanism,
                                 sensitivity=self.sensitivity, monotonic=self.monotonic)


def experiment(dataset: str, task: str) -> Experiment:
    """The paper's set-up: 1024 bins when the histogram divides into them (4096-bin files),
    else the native bins; monotonic mechanisms exactly when the task's scores are."""
    histogram = load_histogram(dataset)
    if histogram.size % PAPER_BINS == 0:
        histogram = coarsen(histogram, PAPER_BINS)
    spec = TASKS[task]
    return Experiment(dataset.upper(), task, histogram.size, spec.scores(histogram),
                      spec.monotonic)


def epsilon_grid(exp: Experiment, points: int, floor: float = 1.0) -> np.ndarray:
    """The paper's grid ``linspace(1e-4, eps_floor, points)``, ``eps_floor`` the epsilon at
    which EM's expected error is ``floor`` (authors' notebook ``get_lines``).

    When ``eps_floor < 1e-3`` the grid starts at ``eps_floor / 10`` instead of 1e-4 (INCOME's
    mode, whose top bin outnumbers the next by 2.4 million, has ``eps_1 = 7e-6``); this never
    happens for the paper's datasets."""
    end = exp.epsilon_for_error(floor)
    return np.linspace(min(GRID_START, end / 10), end, points)


def _curves(exp: Experiment, points: int, rnm_every: int | None):
    grid = epsilon_grid(exp, points)
    curves = {name: (grid, err) for name, err in error_curves(
        exp.scores, grid, sensitivity=exp.sensitivity, monotonic=exp.monotonic,
        mechanisms=("pf", "em"), desc=f"{exp.dataset} {exp.task}").items()}
    if rnm_every:
        sub = grid[rnm_every - 1::rnm_every]
        err = error_curves(exp.scores, sub, sensitivity=exp.sensitivity,
                           monotonic=exp.monotonic, mechanisms=("rnm_laplace",),
                           desc=f"{exp.dataset} {exp.task} RNM")["rnm_laplace"]
        curves["rnm_laplace"] = (sub, err)
    return curves


def _plot_curves(ax, exp: Experiment, points: int, rnm_every: int | None) -> None:
    for name, (eps, err) in _curves(exp, points, rnm_every).items():
        ax.plot(eps, err, label=LABELS[name], **STYLES[name])
    ax.set_yscale("log")
    ax.set_ylim(bottom=1.0)
    ax.set_xlabel("epsilon")
    ax.set_ylabel("expected error (individuals)")
    ax.ticklabel_format(axis="x", style="sci", scilimits=(0, 0))
    ax.set_title(f"{exp.dataset} {exp.task} ({exp.bins} bins"
                 f"{', monotonic' if exp.monotonic else ''})", fontsize=10)
    ax.legend()


def bar_values(task: str, datasets=PAPER_DATASETS, error: float = BAR_ERROR,
               rnm: bool = True) -> dict[str, dict[str, float]]:
    """Per dataset: the epsilon where EM's expected error is ``error``, and every
    mechanism's expected error there (Figure 3(c), Figure 7)."""
    out = {}
    for name in datasets:
        exp = experiment(name, task)
        eps = exp.epsilon_for_error(error)
        mechanisms = ("pf", "em", "rnm_laplace") if rnm else ("pf", "em")
        out[name] = {"epsilon": eps, **exp.errors(eps, mechanisms)}
    return out


def _plot_bars(ax, task: str, values: dict[str, dict[str, float]], error: float) -> None:
    names = list(values)
    mechanisms = [m for m in ("em", "pf", "rnm_laplace") if m in values[names[0]]]
    width = 0.8 / len(mechanisms)
    x = np.arange(len(names))
    for i, m in enumerate(mechanisms):
        ax.bar(x + (i - (len(mechanisms) - 1) / 2) * width, [values[n][m] for n in names],
               width, label=LABELS[m], color=STYLES[m]["color"])
    ax.set_xticks(x)
    ax.set_xticklabels([f"{n}\neps={values[n]['epsilon']:.3g}" for n in names], fontsize=8)
    ax.set_ylabel("expected error (individuals)")
    ax.set_title(f"{task}: epsilon where EM's error is {error:g}", fontsize=10)
    # the legend in one row above the tallest bar (in the corner it hid one: ADULTFRANK's
    # and PATENT's RNM-Laplace bars reach about twice EM's 50)
    tallest = max(values[n][m] for n in names for m in mechanisms)
    ax.set_ylim(0, 1.3 * tallest)
    ax.legend(loc="upper center", ncol=len(mechanisms), fontsize=8)


def figure_3(path, points: int = 60, rnm_every: int | None = 4, bars=None) -> Path:
    """Figure 3: (a) HEPTH mode, (b) HEPTH median, (c) median bars on every paper dataset.

    ``bars``: precomputed :func:`bar_values` for the median (computed if None)."""
    fig, axes = new_figure(3, 1)
    for ax, task in zip(axes[0], ("mode", "median")):
        _plot_curves(ax, experiment("HEPTH", task), points, rnm_every)
    _plot_bars(axes[0, 2], "median", bars or bar_values("median"), BAR_ERROR)
    return save_figure(fig, path)


def _all_datasets(path, task: str, points: int, rnm_every: int | None, datasets) -> Path:
    cols = 3
    rows = -(-len(datasets) // cols)
    fig, axes = new_figure(cols, rows)
    for ax, name in zip(axes.ravel(), datasets):
        _plot_curves(ax, experiment(name, task), points, rnm_every)
    for ax in axes.ravel()[len(datasets):]:
        ax.set_visible(False)
    return save_figure(fig, path)


def figure_5(path, points: int = 60, rnm_every: int | None = 4, datasets=DATASETS) -> Path:
    """Figure 5: mode, expected error against epsilon on every dataset."""
    return _all_datasets(path, "mode", points, rnm_every, datasets)


def figure_6(path, points: int = 60, rnm_every: int | None = 4, datasets=DATASETS) -> Path:
    """Figure 6: median, expected error against epsilon on every dataset."""
    return _all_datasets(path, "median", points, rnm_every, datasets)


def figure_7(path, bars: dict | None = None) -> Path:
    """Figure 7: (a) mode and (b) median bars at the epsilon where EM's error is 50.

    ``bars``: ``{task: bar_values(task)}`` if already computed."""
    bars = bars or {}
    fig, axes = new_figure(2, 1)
    for ax, task in zip(axes[0], ("mode", "median")):
        _plot_bars(ax, task, bars.get(task) or bar_values(task), BAR_ERROR)
    return save_figure(fig, path)
