"""Optimality-ratio curves on the bounded 2Δ-lattice (permute-and-flip paper, Figure 2).

:func:`plot_ratio_curves` draws one panel per mechanism and one curve per ``(n, k)``
(a log y axis where the ratios span a decade, where a mechanism far from the optimum
would flatten the others on a linear one; ``yscale`` to choose);
:func:`figure2` recomputes the three panels of the paper's Figure 2 — (a) PF at ``k = 4``
for several ``n``, (b) PF at ``n = 4`` for several ``k``, (c) EM at ``n = 4`` for several
``k`` — with the eps grid of the authors' notebook (``logspace(-2, 1)``) and the
paper's threshold ``ln((3 + sqrt 5)/2)`` marked.
"""

from __future__ import annotations

import math

import numpy as np

from optmech.figures import (
    RATIO_YSCALES,
    new_figure,
    ratio_yscale,
    save_figure,
    set_ratio_yscale,
)

__all__ = ["FIGURE2_PANELS", "PAPER_THRESHOLD", "YSCALES", "figure2", "plot_ratio_bands",
           "plot_ratio_curves", "save_figure"]

PAPER_THRESHOLD = math.log((3 + math.sqrt(5)) / 2)
LABELS = {"pf": "permute-and-flip", "em": "exponential mechanism",
          "rnm_laplace": "report-noisy-max (Laplace)"}
YSCALES = RATIO_YSCALES
# (panel title, mechanism, ns, ks) as in Figure 2 (a), (b), (c).
FIGURE2_PANELS = (("(a) PF, k = 4", "pf", (2, 3, 4, 5, 6), (4,)),
                  ("(b) PF, n = 4", "pf", (4,), (2, 4, 6, 8)),
                  ("(c) EM, n = 4", "em", (4,), (2, 4, 6, 8)))


def _draw(ax, curves, mechanism, title, yscale="linear"):
    for curve in curves:
        ax.plot(curve.epsilons, curve.ratios[mechanism], linewidth=1.8,
                label=f"n={curve.n}, k={curve.k}")
    _frame(ax, title, yscale)


def _frame(ax, title, yscale="linear"):
    ax.axvline(PAPER_THRESHOLD, color="grey", linestyle=":", linewidth=1)
    ax.set_xscale("log")
    set_ratio_yscale(ax, yscale)
    ax.set_xlabel("epsilon")
    ax.set_ylabel("optimality ratio")
    ax.set_title(title)
    ax.legend(fontsize="small")


def plot_ratio_curves(curves, mechanisms, yscale: str = "auto"):
    """A figure with one panel per mechanism name, one line per
    :class:`~optmech.lattice.ratios.RatioCurve`; epsilon on a log x axis, the ratio on a
    ``yscale`` y axis: ``"auto"`` (log where the ratios of all panels span a decade, one
    scale for every panel), ``"linear"`` or ``"log"``."""
    yscale = ratio_yscale([c.ratios[name] for c in curves for name in mechanisms], yscale)
    fig, axes = new_figure(ncols=len(mechanisms))
    for ax, name in zip(axes[0], mechanisms):
        _draw(ax, curves, name, LABELS.get(name, name), yscale)
    return fig


def plot_ratio_bands(bands, mechanisms, yscale: str = "auto"):
    """A figure with one panel per mechanism name and one band per
    :class:`~optmech.lattice.bound.RatioBands`: the certified bracket ``[lo, hi]`` of the
    optimality ratio at each epsilon, filled between its edges; the y axis as in
    :func:`plot_ratio_curves`."""
    yscale = ratio_yscale([b.ratios[name] for b in bands for name in mechanisms], yscale)
    fig, axes = new_figure(ncols=len(mechanisms))
    for ax, name in zip(axes[0], mechanisms):
        for band in bands:
            lo, hi = band.ratios[name][:, 0], band.ratios[name][:, 1]
            line, = ax.plot(band.epsilons, lo, linewidth=1.0,
                            label=f"n={band.n}, k={band.k} (bracket)")
            ax.plot(band.epsilons, hi, linewidth=1.0, color=line.get_color())
            ax.fill_between(band.epsilons, lo, hi, color=line.get_color(), alpha=0.3)
        _frame(ax, LABELS.get(name, name), yscale)
    return fig


def figure2(epsilons=None, weighting: str = "cube", constraints: str = "paper",
            show_progress: bool | None = None):
    """Recompute Figure 2 (a, b, c); returns ``(figure, {panel title: [RatioCurve]})``.

    Defaults reproduce the authors' setting (cube weighting, Appendix D constraints, 250
    values of eps from 0.01 to 10 on a log scale); pass ``weighting="lattice"``,
    ``constraints="regular"`` for the corrected definition.
    """
    from optmech.lattice.ratios import ratio_sweep

    eps = np.logspace(-2, 1, 250) if epsilons is None else np.asarray(epsilons, dtype=float)
    fig, axes = new_figure(ncols=3)
    panels = {}
    for ax, (title, mechanism, ns, ks) in zip(axes[0], FIGURE2_PANELS):
        curves = ratio_sweep(ns, ks, eps, mechanisms=(mechanism,), weighting=weighting,
                             constraints=constraints, show_progress=show_progress)
        _draw(ax, curves, mechanism, f"{title} [{weighting}, {constraints}]")
        panels[title] = curves
    return fig, panels
