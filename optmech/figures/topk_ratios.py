"""Optimality-ratio curves of the top-k mechanisms against the optimal top-k mechanism
(:mod:`optmech.topk.ratios`): one line per mechanism, ε on a log axis, the ratio on a log
axis where the ratios span a decade (:func:`optmech.figures.ratio_yscale`)."""

from __future__ import annotations

from optmech.figures import (
    RATIO_YSCALES,
    new_figure,
    ratio_yscale,
    save_figure,
    set_ratio_yscale,
)

__all__ = ["YSCALES", "plot_topk_ratios", "save_figure"]

YSCALES = RATIO_YSCALES
_STYLES = ("-", "--", "-.", ":")


def plot_topk_ratios(curve, yscale: str = "auto"):
    """A figure with one line per mechanism of a :class:`~optmech.topk.ratios.TopKRatioCurve`
    (its optimality ratio against ε), the ratio 1 of the optimum marked; line styles
    alternate so that equal curves (peeling EM and its one-shot Gumbel form) both show.
    ``yscale``: ``"auto"`` (log where the ratios span a decade), ``"linear"`` or ``"log"``."""
    yscale = ratio_yscale(curve.ratios.values(), yscale)
    fig, axes = new_figure(width=6.0, height=4.0)
    ax = axes[0][0]
    for index, (name, values) in enumerate(curve.ratios.items()):
        ax.plot(curve.epsilons, values, linewidth=1.8, marker="o", markersize=3, label=name,
                linestyle=_STYLES[index % len(_STYLES)])
    ax.axhline(1.0, color="grey", linestyle=":", linewidth=1)
    ax.set_xscale("log")
    set_ratio_yscale(ax, yscale)
    ax.set_xlabel("epsilon (whole output)")
    ax.set_ylabel(f"optimality ratio ({curve.objective})")
    kind = "ordered tuples" if curve.ordered else "subsets"
    ax.set_title(f"top-{curve.top} of n={curve.n}, k={curve.k}: {kind}, "
                 f"{curve.constraint_set} LP", fontsize="medium")
    ax.legend(fontsize="small")
    return fig
