"""
Optimality ratios of the top-k mechanisms against the optimal top-k mechanism
=============================================================================

For T = 2 outputs, how far are peeling EM (and its one-shot Gumbel form), peeling PF,
joint EM and PF (Gillenwater et al., arXiv:2201.12333) and the canonical Lipschitz
mechanism (Shekelyan & Loukides, arXiv:2201.13376) from the best possible mechanism?
:func:`optmech.topk.topk_ratio_sweep` solves the top-k LP on the bounded 2Δ-lattice (the
permute-and-flip paper's optimal-mechanism LP for T outputs, arXiv:2010.12603) at every ε,
certifies its optimum, and divides each mechanism's exact expected ℓ1 error, summed over the
lattice, by the optimum's.  Every mechanism is calibrated for the general relation (every
score moves by at most Δ = 1) and ε is the budget of the whole pair.
"""

# %%
# Against every ε-DP mechanism
# ----------------------------
# ``constraints="private"``: the optimum over every symmetric ε-DP mechanism, a lower
# bound for every shift-invariant one, so every ratio is at least 1.
import numpy as np

from optmech.figures.topk_ratios import plot_topk_ratios
from optmech.topk import topk_ratio_sweep

epsilons = np.geomspace(0.1, 4, 9)
private = topk_ratio_sweep(4, 3, 2, epsilons, constraints="private")
for name, ratios in private.ratios.items():
    print(f"{name:>20}: ratio from {ratios.min():.3f} to {ratios.max():.3f}")
plot_topk_ratios(private)

# %%
# Against the best monotonic mechanism
# ------------------------------------
# ``constraints="regular"`` adds the top-k form of the paper's regularity: raising an item
# never makes it less often among the first i outputs.  For T = 1 this is the paper's LP;
# for T = 2 the joint mechanisms (and peeling PF at larger ε) break it, which
# ``feasible`` reports: their ratios here compare them with a class they are not in.
regular = topk_ratio_sweep(4, 3, 2, epsilons)
outside = sorted({r.mechanism for results in regular.results for r in results
                  if not r.feasible})
print("not monotonic at some eps:", ", ".join(outside))
plot_topk_ratios(regular)
