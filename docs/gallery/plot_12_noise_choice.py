"""
The noise choice: expected error against zCDP ρ, one line per noise
====================================================================

Which noise should report-noisy-max add under zero-concentrated DP?  Each mechanism is
calibrated to the same *proven* ρ (:func:`optmech.privacy.noise_choice.epsilon_for_rho`: the
exponential mechanism, which is report-noisy-max with Gumbel noise, at ε = sqrt(8ρ);
permute-and-flip, which is exponential noise, and Laplace noise at the ε where the Laplace
pair's certified ρ is ρ; Gaussian noise at σ = Δ sqrt(c(n)/(2ρ)),
:class:`optmech.selection.GaussianGuarantee`), and its exact expected error is computed from
its pmf on ten candidates, one best and nine 4 below it.  Gumbel noise wins at every ρ: its
ρ is ε²/8 where the Laplace pair's is about ε²/2, and the Gaussian's grows with the number
of candidates that may move.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np

from optmech.selection import GaussianNoisyMax, make_mechanism
from optmech.privacy.noise_choice import epsilon_for_rho

scores = np.array([0.0] + [-4.0] * 9)
rhos = np.geomspace(1e-3, 3.0, 13)
lines = {"Gumbel (exponential mechanism)": [], "exponential (permute-and-flip)": [],
         "Laplace": [], "Gaussian": []}
for rho in rhos:
    for label, name in (("Gumbel (exponential mechanism)", "em"),
                        ("exponential (permute-and-flip)", "pf"), ("Laplace", "rnm_laplace")):
        mechanism = make_mechanism(name, epsilon_for_rho(name, rho))
        lines[label].append(mechanism.expected_error(scores))
    lines["Gaussian"].append(GaussianNoisyMax.for_rho(rho, scores.size).expected_error(scores))
for label, errors in lines.items():
    print(f"{label}: error {errors[0]:.4f} at rho = {rhos[0]:g}, {errors[-1]:.4g} at "
          f"rho = {rhos[-1]:g}")

# %%
fig, ax = plt.subplots(figsize=(7, 4.2), layout="constrained")
for label, errors in lines.items():
    ax.plot(rhos, errors, marker="o", markersize=3, linewidth=2, label=label)
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("proven zCDP ρ")
ax.set_ylabel("exact expected error")
ax.set_title("report-noisy-max on (0, -4 × 9): every noise at the same proven ρ")
ax.legend(fontsize="small")
plt.show()
