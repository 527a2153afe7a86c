"""
Rate your own mechanism against the optimum
===========================================

Anything with a ``pmf(scores)`` method, or a plain function of the scores wrapped in
:class:`optmech.PmfMechanism`, is accepted wherever a mechanism is.  Here: permute-and-flip
that, with probability λ, ignores the data and picks uniformly.  Mixing with a
data-independent choice keeps ε-DP, and the total error is linear in the pmf, so its
optimality ratio must be the same mixture of PF's ratio and the uniform choice's — a check
you can read off the figure.
"""

# %%
# One mechanism, one optimum
# --------------------------
import matplotlib.pyplot as plt
import numpy as np

from optmech import PermuteAndFlip, PmfMechanism
from optmech.lattice import optimality_ratio, optimality_ratios, solve_lattice
from optmech.selection import realised_epsilon

eps = 0.5
pf = PermuteAndFlip(eps)


def pf_or_uniform(weight):
    """PF, except that with probability ``weight`` it picks uniformly."""
    return PmfMechanism(lambda q: (1 - weight) * pf.pmf(q) + weight / len(q), epsilon=eps,
                        name=f"pf-or-uniform({weight:g})")


opt = solve_lattice(4, 4, eps)
mine = pf_or_uniform(0.25)
print(f"optimality ratio {optimality_ratio(mine, opt):.6f}")

# %%
# The declared ε is a claim, not a check: measure the privacy loss on the worst-case and
# lattice neighbours of a score vector.
print(realised_epsilon(mine, [0.0, -1.0, -3.0]).satisfies(eps))

# %%
# The ratio along the mixing weight
# ---------------------------------
uniform = PmfMechanism(lambda q: np.full(len(q), 1 / len(q)), epsilon=eps, name="uniform")
pf_ratio = optimality_ratios(opt, ["pf"])["pf"]
uniform_ratio = optimality_ratio(uniform, opt)
weights = np.linspace(0, 1, 11)
ratios = [optimality_ratio(pf_or_uniform(w), opt) for w in weights]
worst = max(abs(r - ((1 - w) * pf_ratio + w * uniform_ratio)) for w, r in zip(weights, ratios))
print(f"largest distance from the straight line: {worst:.1e}")

fig, ax = plt.subplots(figsize=(6, 3.6), layout="constrained")
ax.plot(weights, ratios, "o", label="optimality_ratio(mechanism, optimum)")
ax.plot([0, 1], [pf_ratio, uniform_ratio], "-", linewidth=1, label="(1 − λ)·PF + λ·uniform")
ax.set_xlabel("λ, the probability of a uniform pick")
ax.set_ylabel("optimality ratio")
ax.set_title("n = k = 4, ε = 0.5")
ax.legend()
plt.show()
