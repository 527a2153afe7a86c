"""Optimality-ratio curves of the top-k mechanisms against the optimal top-k mechanism
(:mod:`optmech.topk.ratios`): one line per mechanism, ε on a log axis."""

from __future__ import annotations

from optmech.figures import new_figure, save_figure
from optmech.validation import check_choice

__all__ = ["YSCALES", "plot_topk_ratios", "save_figure"]

YSCALES = ("linear", "log")
_STYLES = ("-", "--", "-.", ":")


def plot_topk_ratios(curve, yscale: str = "linear"):
    """A figure with one line per mechanism of a :class:`~optmech.topk.ratios.TopKRatioCurve`
    (its optimality ratio against ε), the ratio 1 of the optimum marked; line styles
    alternate so that equal curves (peeling EM and its one-shot Gumbel form) both show."""
    check_choice(yscale, "yscale", YSCALES)
    fig, axes = new_figure(width=6.0, height=4.0)
    ax = axes[0][0]
    for index, (name, values) in enumerate(curve.ratios.items()):
        ax.plot(curve.epsilons, values, linewidth=1.8, marker="o", markersize=3, label=name,
                linestyle=_STYLES[index % len(_STYLES)])
    ax.axhline(1.0, color="grey", linestyle=":", linewidth=1)
    ax.set_xscale("log")
    ax.set_yscale(yscale)
    ax.set_xlabel("epsilon (whole output)")
    ax.set_ylabel(f"optimality ratio ({curve.objective})")
    kind = "ordered tuples" if curve.ordered else "subsets"
    ax.set_title(f"top-{curve.top} of n={curve.n}, k={curve.k}: {kind}, "
                 f"{curve.constraint_set} LP", fontsize="medium")
    ax.legend(fontsize="small")
    return fig
