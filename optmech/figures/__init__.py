"""Figures: one module per area, each function returns a matplotlib Figure or writes a PNG.

Plotting never needs a display: the Agg backend is selected here, before pyplot loads.
A PNG is written by :func:`save_figure` only, through :mod:`lp_models.atomic` (whole or
not at all; a link at the path is replaced, never followed).
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

from lp_models.atomic import atomic_write

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402

__all__ = ["RATIO_YSCALES", "new_figure", "ratio_yscale", "save_figure", "set_ratio_yscale"]

#: The y axes of the optimality-ratio figures: ``"auto"`` is log where the ratios span a
#: decade (:func:`ratio_yscale`), linear otherwise.
RATIO_YSCALES = ("auto", "linear", "log")
# A decade: on a linear axis a curve reaching 10 leaves the ones near 1 in the bottom
# tenth (topk lp --n 4 --depth 4 --top 2 --eps 0.1:4:9:log --plot: the canonical
# Lipschitz mechanism reaches 64.6, and below eps = 0.4 every curve, 1.04 to 1.41, was
# drawn within 3 pixels of the line at 1).
_DECADE = 10.0


def new_figure(ncols: int = 1, nrows: int = 1, width: float = 5.0, height: float = 3.6):
    """A figure with a grid of axes (``squeeze=False``: always a 2-D array of axes)."""
    fig, axes = plt.subplots(nrows, ncols, figsize=(width * ncols, height * nrows),
                             squeeze=False, constrained_layout=True)
    return fig, axes


def ratio_yscale(ratios, yscale: str = "auto") -> str:
    """The y scale of a ratio figure: ``yscale`` itself unless ``"auto"``, which is
    ``"log"`` when the largest finite positive ratio drawn is at least ten times the
    smallest, else ``"linear"``.  ``ratios``: an iterable of arrays (one per curve)."""
    from optmech.validation import check_choice

    check_choice(yscale, "yscale", RATIO_YSCALES)
    if yscale != "auto":
        return yscale
    import numpy as np

    values = np.concatenate([np.ravel(np.asarray(r, dtype=float)) for r in ratios] or [[]])
    values = values[np.isfinite(values) & (values > 0)]
    return "log" if values.size and values.max() >= _DECADE * values.min() else "linear"


def set_ratio_yscale(ax, yscale: str) -> None:
    """Put ``ax``'s y axis on ``yscale`` (``"linear"`` or ``"log"``); a log axis of ratios
    is labelled 1, 2, 5, 10, 20, ... (its default labels only the powers of ten, so a
    figure of ratios from 1 to 65 had two labels)."""
    ax.set_yscale(yscale)
    if yscale == "log":
        from matplotlib.ticker import FormatStrFormatter, LogLocator, NullFormatter

        ax.yaxis.set_major_locator(LogLocator(base=10.0, subs=(1.0, 2.0, 5.0)))
        ax.yaxis.set_major_formatter(FormatStrFormatter("%g"))
        ax.yaxis.set_minor_formatter(NullFormatter())


def save_figure(fig, path) -> Path:
    """Write ``fig`` as PNG (150 dpi) atomically (:mod:`lp_models.atomic`), create the
    parent folder, close the figure (also when the write fails)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        with atomic_write(path, "wb") as out:
            fig.savefig(out, format="png", dpi=150)
    finally:
        plt.close(fig)
    return path
