"""
The privacy profile of the private secretary rule
=================================================

The p-mix of the optimal secretary rule with a blind choice (Grining, Klonowski &
Sulkowska, *What Do Our Choices Say About Our Preferences?*, arXiv:2005.01586) is
(ε, δ)-DP under the metric d_l on arrival orders.
:func:`optmech.secretary.pmix_epsilon` gives the tight ε for each δ: exactly (all pairs of
ranks, Theorem 3.2), by the closed form of Theorem 4.2, and as n → ∞.  ``optmech
secretary profile`` prints the same numbers.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np

from optmech.secretary import pmix_epsilon

deltas = np.linspace(0.0, 0.3, 61)
fig, axes = plt.subplots(1, 2, figsize=(10, 3.6), layout="constrained", sharey=True)
for ax, n in zip(axes, (10, 1000)):
    for p in (0.25, 0.5, 1.0):
        bounds = [pmix_epsilon(n, p, delta, l=1) for delta in deltas]
        line, = ax.plot(deltas, [b.exact for b in bounds], linewidth=2,
                        label=f"p = {p:g}, exact")
        ax.plot(deltas, [b.asymptotic for b in bounds], ":", color=line.get_color(),
                label=f"p = {p:g}, n → ∞")
    ax.set_title(f"n = {n}, l = 1")
    ax.set_xlabel("δ")
axes[0].set_ylabel("smallest ε with (ε, δ)-DP")
axes[1].legend(fontsize="small")
plt.show()

# %%
# The closed form agrees with the exact value over the grid:
worst = max(abs(pmix_epsilon(1000, p, delta).closed_form - pmix_epsilon(1000, p, delta).exact)
            for p in (0.25, 0.5, 1.0) for delta in deltas)
print(f"largest |closed form - exact| at n = 1000: {worst:.1e}")
