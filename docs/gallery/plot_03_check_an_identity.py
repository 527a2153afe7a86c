"""
Check an identity of your own
=============================

A :class:`proofs.Registry` checks and reports your own identities with the machinery that
checks the papers' closed forms.  The identity here: with two candidates at gap ``d``,
permute-and-flip returns the runner-up with probability ``exp(−εd/2)/2`` (it is drawn first
with probability 1/2 and then accepted with probability ``exp(−εd/2)``).  The check
re-derives it in SymPy from the mechanism's definition and compares it with the toolkit's
pmf at 50 digits (mpmath).
"""

# %%
# Register and check
# ------------------
import itertools

import matplotlib.pyplot as plt
import mpmath
import numpy as np
import sympy as sp

from optmech import PermuteAndFlip
from proofs import Registry, verified_if
from proofs.report import summary

registry = Registry()
eps_, d_ = sp.symbols("epsilon d", positive=True)


def pf_pmf_symbolic(coins):
    """PF's pmf from its definition (Algorithm 1): every order of the candidates is equally
    likely, and candidate ``r`` is kept, when its turn comes, with probability
    ``coins[r]``."""
    orders = list(itertools.permutations(range(len(coins))))
    pmf = [sp.Integer(0)] * len(coins)
    for order in orders:
        reach = sp.Integer(1)                  # probability that this turn comes
        for r in order:
            pmf[r] += reach * coins[r] / len(orders)
            reach *= 1 - coins[r]
    return pmf


@registry.identity("mine.pf_two_candidates", paper="my-paper",
                   source="My notes (2026), eq. (3)",
                   statement="Pr[PF = runner-up] = exp(-eps d / 2) / 2 for two candidates "
                             "at gap d.",
                   methods=("symbolic simplification", "mpmath at 50 digits"))
def check_two_candidates():
    runner_up = pf_pmf_symbolic([sp.Integer(1), sp.exp(-eps_ * d_ / 2)])[1]
    symbolic = sp.simplify(runner_up - sp.exp(-eps_ * d_ / 2) / 2) == 0
    with mpmath.workdps(50):
        worst = max(abs(PermuteAndFlip(eps).pmf([0.0, -d])[1]
                        - float(mpmath.exp(-mpmath.mpf(eps) * d / 2) / 2))
                    for eps in (0.1, 1.0, 3.0) for d in (0.0, 0.5, 2.0, 40.0))
    return verified_if(symbolic and worst < 1e-15,
                       f"SymPy, from Algorithm 1: {runner_up}; largest difference from "
                       f"the pmf {worst:.1e}")


outcomes = registry.check()
print(summary(outcomes))
print(outcomes[0].result.evidence)

# %%
# The closed form against the pmf
# -------------------------------
gaps = np.linspace(0, 8, 81)
fig, ax = plt.subplots(figsize=(6, 3.6), layout="constrained")
for eps in (0.25, 1.0, 3.0):
    pmf = [PermuteAndFlip(eps).pmf([0.0, -d])[1] for d in gaps]
    line, = ax.plot(gaps, pmf, linewidth=3, alpha=0.4, label=f"pmf, ε = {eps:g}")
    ax.plot(gaps, np.exp(-eps * gaps / 2) / 2, ":", color=line.get_color(),
            label="exp(−εd/2)/2")
ax.set_xlabel("gap d between the two scores")
ax.set_ylabel("Pr[PF returns the runner-up]")
ax.legend(fontsize="small")
plt.show()
