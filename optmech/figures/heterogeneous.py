"""Figures 2, 8, 10 and 12 of the heterogeneous-sensitivities paper (which scenarios each
shows: :data:`optmech.heterogeneous.scenarios.FIGURE_SCENARIOS`).

Each figure has one column per scenario: on top the candidates (mean score as a dot, the
10th-90th percentile range of its score, whose length is ``Δ_a``, as a vertical line; the
two user groups of scenarios 7-8 in two colours), below the mean squared error against ε
of every mechanism with its 95% confidence band (log-scaled axes).
"""

from __future__ import annotations

import numpy as np

from optmech.figures import new_figure, save_figure
from optmech.heterogeneous.scenarios import ScenarioResult

__all__ = ["plot_scenario_results"]

_STYLE = {
    "rnm": ("RNM", "black", "-"),
    "gem": ("GEM", "tab:purple", "-"),
    "mgem": ("mGEM", "tab:pink", "-"),
    "combined_gem": ("combined GEM", "tab:green", "-"),
    "rs_gamma": ("RS$_\\gamma$", "tab:orange", "--"),
    "rs_gamma_tnb": ("RS$_\\gamma$ (TNB, $\\eta=0$)", "tab:brown", "--"),
    "uniform": ("uniform", "grey", ":"),
}


def _draw_candidates(ax, result: ScenarioResult) -> None:
    scen = result.scenario
    index = np.arange(scen.sensitivities.size)
    centre = scen.means.mean(axis=0)
    finite = np.isfinite(scen.low)
    low = np.where(finite, scen.low, centre - scen.sensitivities / 2)
    high = np.where(finite, scen.high, centre + scen.sensitivities / 2)
    ax.vlines(index, low, high, color="tab:blue", alpha=0.35, linewidth=1.5,
              label="score range (length $\\Delta_a$)")
    for c, (means, colour) in enumerate(zip(scen.means, ("tab:red", "tab:purple"))):
        label = "mean score" if scen.means.shape[0] == 1 else f"mean score, group {c}"
        ax.plot(index, means, "o", color=colour, markersize=2.5, label=label)
    rho = ", ".join(f"{r:+.2f}" for r in scen.correlations)
    ax.set_title(f"scenario {scen.key}: Spearman {rho}", fontsize=9)
    ax.set_xlabel("candidate")
    ax.set_ylabel("score")
    ax.legend(fontsize=6, loc="best")


def _draw_errors(ax, result: ScenarioResult) -> None:
    names = dict.fromkeys(p.mechanism for p in result.points)
    for name in names:
        eps, mse, lo, hi = result.curve(name)
        label, colour, line = _STYLE.get(name, (name, None, "-"))
        ax.plot(eps, mse, line, color=colour, label=label, linewidth=1.3)
        if np.any(hi > lo):
            ax.fill_between(eps, lo, hi, color=colour, alpha=0.15, linewidth=0)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("$\\epsilon$")
    ax.set_ylabel("mean squared error")
    exact = "exact" if result.trials == 1 else f"{result.trials} trials, 95% CI"
    ax.set_title(f"scenario {result.scenario.key} ({exact})", fontsize=9)
    ax.legend(fontsize=6, loc="lower left")


def plot_scenario_results(results: list[ScenarioResult], path, title: str = ""):
    """Candidates (top) and MSE curves (bottom) for each scenario; writes a PNG."""
    fig, axes = new_figure(ncols=len(results), nrows=2, width=4.2, height=3.4)
    for column, result in enumerate(results):
        _draw_candidates(axes[0, column], result)
        _draw_errors(axes[1, column], result)
    if title:
        fig.suptitle(title)
    return save_figure(fig, path)
