"""Figures of the top-k reproduction (:mod:`optmech.reproduce.topk`).

* :func:`utility_class_figure`: Shekelyan & Loukides' evaluation (arXiv:2201.13376; their
  code github.com/shekelyan/dptopk, eval.py): the probability that a mechanism's set is
  the top-k (solid) or "good-k" (dotted) against epsilon, one panel per dataset and k;
* :func:`error_sweep_figure`: Gillenwater et al.'s metrics (arXiv:2201.12333) against T at
  one epsilon: the median over trials (line) and the quartiles (band), one row per dataset
  and one column per error measure.
"""

from __future__ import annotations

import numpy as np

from optmech.figures import new_figure, save_figure

__all__ = ["MECHANISM_COLOURS", "error_sweep_figure", "utility_class_figure"]

#: One colour per mechanism, the same in every figure.
MECHANISM_COLOURS = {"peel-em": "tab:orange", "gumbel": "tab:orange", "peel-pf": "tab:purple",
                     "joint-em": "tab:red", "joint-pf": "tab:pink",
                     "canonical-lipschitz": "tab:blue"}


def utility_class_figure(path, curves: dict) -> None:
    """``curves[(dataset, k)][mechanism] = (epsilons, Pr[TOP-k], Pr[GOOD-k])``: one panel
    per ``(dataset, k)``, epsilon on a log scale."""
    panels = list(curves)
    columns = min(4, len(panels))
    rows = -(-len(panels) // columns)
    fig, axes = new_figure(columns, rows, width=3.6, height=2.8)
    for ax, key in zip(axes.ravel(), panels):
        for name, (eps, top, good) in curves[key].items():
            colour = MECHANISM_COLOURS[name]
            ax.plot(eps, top, color=colour, lw=1.8, label=f"{name}: TOP")
            ax.plot(eps, good, color=colour, lw=1.2, ls=":", label=f"{name}: GOOD")
        ax.set_xscale("log")
        ax.set_ylim(-0.02, 1.02)
        ax.set_title(f"{key[0]}, k = {key[1]}", fontsize=9)
        ax.set_xlabel("epsilon", fontsize=8)
        ax.tick_params(labelsize=7)
    for ax in axes.ravel()[len(panels):]:
        ax.axis("off")
    axes[0, 0].set_ylabel("probability", fontsize=8)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=4, fontsize=7)
    save_figure(fig, path)


def error_sweep_figure(path, sweep: dict, tops, measures: dict, epsilon: float) -> None:
    """``sweep[dataset][mechanism][measure]`` an array ``(len(tops), 3)`` of the 25 %, 50 %
    and 75 % quantiles of the error over trials; ``measures`` maps a measure to its axis
    label.  Errors are plotted plus one on a log scale (Gillenwater et al.'s plots)."""
    datasets = list(sweep)
    fig, axes = new_figure(len(measures), len(datasets), width=3.6, height=2.6)
    for row, dataset in zip(axes, datasets):
        for ax, (measure, label) in zip(row, measures.items()):
            for name, errors in sweep[dataset].items():
                q = np.asarray(errors[measure]) + 1.0
                colour = MECHANISM_COLOURS[name]
                ax.plot(tops, q[:, 1], color=colour, lw=1.6, label=name)
                ax.fill_between(tops, q[:, 0], q[:, 2], color=colour, alpha=0.2, lw=0)
            ax.set_yscale("log")
            ax.set_title(f"{dataset}: {label}", fontsize=9)
            ax.set_xlabel("T", fontsize=8)
            ax.tick_params(labelsize=7)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncol=len(labels), fontsize=8,
               title=f"epsilon = {epsilon:g} (add/remove); median and quartiles of error + 1",
               title_fontsize=8)
    save_figure(fig, path)
