"""
Certified brackets where the exact solve is out of reach
========================================================

:func:`optmech.lattice.bound_lattice` brackets the optimum of the lattice LP,
``lower <= OPT <= upper``, without an LP solver (restarted PDHG with independently checked
certificates), so every optimality ratio becomes a certified interval
``[ratio / upper, ratio / lower]``.  :func:`optmech.lattice.bound_sweep` does it over a
grid of ε and :func:`optmech.figures.lattice.plot_ratio_bands` draws the bands.

The size here is small (n = k = 6) so the page builds in seconds, and the exact ratios
(:func:`optmech.lattice.ratio_sweep`) are drawn on top: they lie inside the bands.  A loose
target width (``tol=0.02``) makes the bands visible; they are certified whatever the width.
"""

# %%
import numpy as np

from optmech.figures.lattice import plot_ratio_bands
from optmech.lattice import bound_sweep, ratio_sweep

epsilons = np.geomspace(0.1, 2, 10)
bands = bound_sweep([6], [6], epsilons, mechanisms=["pf", "em"], tol=0.02)
exact = ratio_sweep([6], [6], epsilons, mechanisms=["pf", "em"])
for name in ("pf", "em"):
    inside = np.all((bands[0].ratios[name][:, 0] <= exact[0].ratios[name] * (1 + 1e-9))
                    & (exact[0].ratios[name] <= bands[0].ratios[name][:, 1] * (1 + 1e-9)))
    print(f"{name}: exact ratios inside the certified bands: {inside}")
print("status per ε:", ", ".join(bands[0].status))

# %%
fig = plot_ratio_bands(bands, ["pf", "em"])
for ax, name in zip(fig.axes, ["pf", "em"]):
    ax.plot(exact[0].epsilons, exact[0].ratios[name], "k.", label="exact (LP solve)")
    ax.legend(fontsize="small")
