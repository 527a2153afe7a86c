"""
Selection with heterogeneous sensitivities: one scenario
========================================================

When candidates have different sensitivities, the mechanisms of Antonova et al. 2025
(*Private selection with heterogeneous sensitivities*, arXiv:2501.05309) trade accuracy
differently: report-noisy-max with per-candidate noise, the generalised exponential
mechanism (GEM), its modification mGEM, the combined GEM and random stopping (RS_γ).
:func:`optmech.heterogeneous.scenarios.run_scenario` measures the mean squared error of
the selected score over random score vectors of a scenario; here scenario 4 of the paper
(spreads increasing with the sensitivity), 20 trials per ε with 95% confidence intervals.
"""

# %%
import matplotlib.pyplot as plt
import numpy as np

from optmech.heterogeneous.scenarios import run_scenario, scenario_from_key

scenario = scenario_from_key("4", seed=0)
result = run_scenario(scenario, np.geomspace(0.1, 10, 9), trials=20,
                      rng=np.random.default_rng(1))
print(scenario.title, "- Spearman(score, sensitivity):",
      ", ".join(f"{r:+.2f}" for r in scenario.correlations))

# %%
fig, ax = plt.subplots(figsize=(7, 4), layout="constrained")
for mechanism in dict.fromkeys(point.mechanism for point in result.points):
    points = [p for p in result.points if p.mechanism == mechanism]
    eps = [p.epsilon for p in points]
    line, = ax.plot(eps, [p.mse for p in points], marker="o", markersize=3, label=mechanism)
    ax.fill_between(eps, [p.ci_low for p in points], [p.ci_high for p in points],
                    color=line.get_color(), alpha=0.2)
ax.set_xscale("log")
ax.set_yscale("log")
ax.set_xlabel("ε")
ax.set_ylabel("mean squared error")
ax.set_title(f"scenario {scenario.key}: {scenario.title} ({result.trials} trials)")
ax.legend(fontsize="small", ncols=2)
plt.show()
