"""
Privacy curves: one pair's curve per mechanism against the proven bounds
========================================================================

How private is a selection mechanism by the measure a privacy accountant composes, the
hockey-stick divergence δ(ε′)?  :func:`optmech.privacy.worst_pair` searches pairs of
neighbouring score vectors (every score moves by at most 1) for the largest δ at one ε′;
each pair it reports is explicit, so its whole curve is a certified lower bound on the
mechanism's curve.  It is the worst pair found *at that ε′* only: elsewhere another pair
can be worse, and the pair's curve may fall far below the mechanism's (the exponential
mechanism's pair worst at ε′ = 0.5 has δ(0.75) = 1.6e-6, where its bound, which it
attains, is 0.022).  So each curve is drawn as that pair's, beside the bound its mechanism
is proven to meet (:attr:`~optmech.privacy.WorstPair.bound`): randomised response's curve
for every ε-DP mechanism (Kairouz, Oh & Viswanath, arXiv:1311.0776) and the bounded-range
curve for the exponential mechanism (Dong, Durfee & Rogers, arXiv:1909.13830).  At ε′ =
0.5 the exponential mechanism's pair reaches its bound; permute-and-flip's comes close to
randomised response's.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np

from optmech import make_mechanism
from optmech.figures.privacy import plot_delta_curves
from optmech.privacy import worst_pair

eps, n = 1.0, 3
at = eps / 2
grid = np.linspace(0.0, eps, 21)
curves = []
for name in ("em", "pf", "rnm_laplace"):
    found = worst_pair(make_mechanism(name, eps), n, objective="delta", at=at, depth=2,
                       starts=0, polish=1, iterations=30, eps_prime=grid)
    bound = found.bound
    curves.append((f"{name}: the pair worst at ε′ = {at:g}", grid, found.curves.delta,
                   (f"proven bound ({bound.kind})", bound.delta(grid))))
    print(f"{name}: delta({at:g}) = {found.value:.6f} (bound {found.bound_value:.6f}) at "
          f"scores {np.round(found.curves.scores, 3).tolist()}, neighbour "
          f"{np.round(found.curves.neighbour, 3).tolist()}")

# %%
fig = plot_delta_curves(curves, title=f"one pair's δ(ε′) per mechanism, {n} candidates, "
                                      f"ε = {eps:g}", chosen_at=at)
plt.show()
