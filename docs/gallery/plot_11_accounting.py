"""
Accounting for 100 runs: the certified curve beside the fallbacks
=================================================================

What (ε′, δ) does a team report after running the exponential mechanism 100 times at
ε = 0.1 and permute-and-flip 20 times at ε = 0.5 on the same data?
:class:`optmech.privacy.Accountant` composes what dominates each run (the bounded-range
pairs of Dong, Durfee & Rogers, arXiv:1909.13830, and the Laplace pair for permute-and-flip,
proved in :mod:`optmech.privacy.dominating`) into a certified upper curve of δ(ε′), valid
when each run's inputs are chosen from the outputs before it, and composes explicit pairs of
score vectors into a curve that is attained.  Beside them the fallbacks published formulas
give: every run as a black-box ε-DP mechanism (randomised response, what ``dp_accounting``'s
PLD accountant reports for the exponential mechanism), the summed zCDP bounds and the summed
Rényi curves.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np

from optmech.privacy import Accountant

grid = list(np.linspace(0.0, 14.0, 57))
report = Accountant(["em:0.1:100", "pf:0.5:20"]).report(None, grid)
payload = report.payload
at = Accountant(["em:0.1:100", "pf:0.5:20"]).report(1e-6).payload
print("eps' at delta = 1e-6: certified "
      f"{at['upper']['eps']:.3f}, attained {at['lower']['eps']:.3f}; "
      + ", ".join(f"{name} {value['eps']:.3f}" for name, value in at["fallbacks"].items()))

# %%
fig, ax = plt.subplots(figsize=(7, 4.2), layout="constrained")
for key, label, style in (("upper", "certified upper (adaptive)", "-"),
                          ("lower", "attained lower (explicit pairs)", "-")):
    delta = np.array(payload[key]["delta"]["delta"])
    shown = delta > 0
    ax.plot(np.array(grid)[shown], delta[shown], style, linewidth=2, label=label)
for name in ("randomised_response", "zcdp", "rdp"):
    delta = np.array(payload["fallbacks"][name]["delta"]["delta"])
    shown = (delta > 0) & (delta < 1)
    ax.plot(np.array(grid)[shown], delta[shown], "--", linewidth=1.5,
            label=f"fallback: {name.replace('_', ' ')}")
ax.axhline(1e-6, color="grey", linewidth=0.8)
ax.set_yscale("log")
ax.set_ylim(1e-12, 1.2)
ax.set_xlabel("ε′")
ax.set_ylabel("δ(ε′)")
ax.set_title("100 × EM at ε = 0.1, then 20 × PF at ε = 0.5")
ax.legend(fontsize="small")
plt.show()
