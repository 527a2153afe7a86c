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

__all__ = ["new_figure", "save_figure"]


def new_figure(ncols: int = 1, nrows: int = 1, width: float = 5.0, height: float = 3.6):
    """A figure with a grid of axes (``squeeze=False``: always a 2-D array of axes)."""
    fig, axes = plt.subplots(nrows, ncols, figsize=(width * ncols, height * nrows),
                             squeeze=False, constrained_layout=True)
    return fig, axes


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
