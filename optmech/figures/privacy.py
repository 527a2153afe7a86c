"""Privacy curves: ``delta(eps')`` of worst pairs found beside the proven bounds.

:func:`plot_delta_curves` draws one line per curve (a worst pair's, solid) and per bound
(dashed), ``eps'`` on the x axis and ``delta`` on a log y axis, where the bounds' gaps show
at every scale.
"""

from __future__ import annotations

import numpy as np

from optmech.figures import new_figure, save_figure

__all__ = ["plot_delta_curves", "save_figure"]


def plot_delta_curves(curves, bounds=(), title: str = "privacy curves"):
    """A figure of ``delta(eps')``: ``curves`` and ``bounds`` are ``(label, eps_prime,
    delta)`` triples (bounds drawn dashed); zero values are left out of the log axis."""
    fig, axes = new_figure(width=6.0, height=4.2)
    ax = axes[0, 0]
    for style, group in (("-", curves), ("--", bounds)):
        for label, eps_prime, delta in group:
            x, y = np.asarray(eps_prime, dtype=float), np.asarray(delta, dtype=float)
            shown = y > 0
            ax.plot(x[shown], y[shown], style, linewidth=1.8, label=label)
    ax.set_yscale("log")
    ax.set_xlabel("eps'")
    ax.set_ylabel("delta(eps')")
    ax.set_title(title)
    ax.legend(fontsize="small")
    return fig
