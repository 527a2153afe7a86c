"""
Optimality ratios of PF, EM, report-noisy-max and your own mechanism
====================================================================

The optimality ratio of a mechanism is its total expected error over the bounded
2Δ-lattice divided by that of the optimal regular mechanism (McKenna & Sheldon 2020,
arXiv:2010.12603, Figure 2).  :func:`optmech.lattice.ratio_sweep` computes it over a grid
of ε for the built-in mechanisms and for any mechanism you pass as a function of ε.

A mechanism far from the optimum flattens the others on a linear axis: ``yscale="log"``
in :func:`optmech.figures.lattice.plot_ratio_curves` keeps every curve readable.
"""

# %%
# The sweep
# ---------
import numpy as np

from optmech import PermuteAndFlip, PmfMechanism
from optmech.figures.lattice import plot_ratio_curves
from optmech.lattice import ratio_sweep


def pf_or_uniform_at(eps):
    """PF that picks uniformly with probability 1/4: ε-DP, but its error never vanishes."""
    pf = PermuteAndFlip(eps)
    return PmfMechanism(lambda q: 0.75 * pf.pmf(q) + 0.25 / len(q), epsilon=eps,
                        name="pf-or-uniform")


epsilons = np.geomspace(0.05, 5, 15)
mechanisms = {"pf": "pf", "em": "em", "rnm_laplace": "rnm_laplace",
              "pf-or-uniform": pf_or_uniform_at}
curves = ratio_sweep([3, 4, 5], [4], epsilons, mechanisms=mechanisms)
for curve in curves:
    print(f"n = {curve.n}: largest ratio "
          + ", ".join(f"{name} {curve.ratios[name].max():.3g}" for name in mechanisms))

# %%
# On a log y axis
# ---------------
# One panel per mechanism, one curve per ``(n, k)``; the dotted line is the paper's
# sufficient threshold ε = ln((3 + √5)/2) above which PF is optimal.
fig = plot_ratio_curves(curves, list(mechanisms), yscale="log")
fig.set_size_inches(16, 3.6)
