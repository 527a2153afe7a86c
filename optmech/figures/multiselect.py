"""Figures of the multi-selection paper: its Figure 2 (line) and Figure 4 (ring).

* :func:`laplace_offsets_figure` -- Figure 2: the Laplace density ``rho(t) = eps/2 e^{-eps|t|}``
  for each eps with the optimal server offsets (``k = 5`` in the paper) as dots on the curve;
  the server answers ``s + a_i`` to the signal ``s``.
* :func:`ring_noise_figure` -- Figure 4: on the ring, the optimal noise found by the
  discretised DILP against the ring's Laplace noise, each with its offsets as dots.  The
  LP's curve is the density of ``u - s`` (user minus signal; a result ``s + a_i`` is exact
  where the curve is at ``a_i``), which for symmetric noise is the noise density.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

from optmech.figures import new_figure
from optmech.multiselect.dilp import DilpResult
from optmech.multiselect.offsets import optimal_response
from optmech.multiselect.ring import TruncatedLaplace

__all__ = ["dual_ode_figure", "laplace_offsets_figure", "ring_noise_figure"]


def laplace_offsets_figure(k: int = 5, epsilons: Sequence[float] = (0.3, 0.5, 1.0), h=None,
                           half_width: float | None = None):
    """Figure 2 of the paper: Laplace densities and the optimal offsets for ``k`` results."""
    responses = [optimal_response(k, eps, h) for eps in epsilons]
    if half_width is None:
        half_width = 1.15 * max(float(np.abs(r.offsets).max()) for r in responses) + 1.0
    t = np.linspace(-half_width, half_width, 2001)
    fig, axes = new_figure(1, 1, width=6.4, height=4.0)
    ax = axes[0, 0]
    for r in responses:
        density = 0.5 * r.epsilon * np.exp(-r.epsilon * np.abs(t))
        (line,) = ax.plot(t, density, label=f"ε = {r.epsilon:g}  (cost {r.cost:.4g})")
        ax.plot(r.offsets, 0.5 * r.epsilon * np.exp(-r.epsilon * np.abs(r.offsets)), "o",
                color=line.get_color())
    ax.set_xlabel("t")
    ax.set_ylabel("ρ(t)")
    ax.set_title(f"Laplace noise and optimal offsets, k = {k}")
    ax.legend()
    return fig


def ring_noise_figure(results: Sequence[DilpResult]):
    """Figure 4 of the paper: one panel per solved ring DILP (optimal vs Laplace noise)."""
    fig, axes = new_figure(len(results), 1, width=5.2, height=3.8)
    x = np.linspace(-math.pi, math.pi, 1001)
    for ax, r in zip(axes[0], results):
        if r.geometry != "ring":
            raise ValueError("ring_noise_figure needs ring DILP results")
        noise = TruncatedLaplace(r.epsilon)
        (opt,) = ax.plot(r.user_offset, r.user_offset_density,
                         label=f"optimal (LP), cost {r.primal:.4f}")
        ax.plot(r.offsets, np.interp(r.offsets, r.user_offset, r.user_offset_density), "o",
                color=opt.get_color())
        (lap,) = ax.plot(x, noise.pdf(x), "--", label=f"Laplace, cost {r.laplace_cost:.4f}")
        ax.plot(r.laplace_offsets, noise.pdf(r.laplace_offsets), "s", color=lap.get_color())
        ax.set_xlim(-math.pi, math.pi)
        ax.set_ylim(bottom=0)
        ax.set_xlabel("t")
        ax.set_ylabel("ρ(t)")
        ax.set_title(f"ring, k = {r.k}, ε = {r.epsilon:g} (grid {r.grid})")
        ax.legend(fontsize=8, loc="lower center")
    return fig


def dual_ode_figure(curves: dict[str, tuple[np.ndarray, np.ndarray]], title: str):
    """Figure 3 of the paper: solutions ``nu(r)`` of the dual differential equation (18), one
    panel per curve (label -> (r, nu))."""
    fig, axes = new_figure(ncols=len(curves))
    for ax, (label, (r, nu)) in zip(axes[0], curves.items()):
        ax.plot(r, nu)
        ax.axhline(0.0, color="k", lw=0.6)
        ax.set(xlabel="r", ylabel="nu(r)", title=label)
        ax.set_xlim(-8, 8)
        ax.set_ylim(-0.3, 0.3)
    fig.suptitle(title, fontsize=10)
    return fig
