"""
Multiple selections under geographic DP: the cost of k results
===============================================================

A user reports a location with local noise and the server returns k results around it
(Goel et al. 2025, *Differential Privacy Under Multiple Selections*, arXiv:2407.14641), under
geographic differential privacy.  :class:`optmech.multiselect.protocol.MultiSelection` computes the
optimal server offsets and the exact expected cost (the distance to the nearest result)
for Laplace noise, where they are optimal, and the quantile offsets of Appendix A.3 for
Gaussian and logistic noise.  With Laplace noise and optimal offsets the cost falls like
``2/(εk)``; the quantile offsets of the other two fall more slowly.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np

from optmech.multiselect.protocol import MultiSelection

ks = np.unique(np.geomspace(1, 256, 17).round().astype(int))
fig, ax = plt.subplots(figsize=(6.5, 4), layout="constrained")
for noise, marker in (("laplace", "o"), ("gaussian", "s"), ("logistic", "^")):
    costs = [MultiSelection(int(k), 1.0, "identity", noise).cost for k in ks]
    ax.plot(ks, costs, marker=marker, markersize=4, label=f"{noise} noise")
ax.plot(ks, 2 / ks, "k:", label="2/k")
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("k, results returned")
ax.set_ylabel("expected cost (ε = 1, h = identity)")
ax.legend()
plt.show()

# %%
# For an even k at ε = 1 the optimal cost is ``ln(1 + 2/k)``: ln 2 for two results.
for k in (2, 4, 64):
    print(f"k = {k}: {MultiSelection(k, 1.0, 'identity', 'laplace').cost:.12f}, "
          f"ln(1 + 2/k) = {np.log(1 + 2 / k):.12f}")
