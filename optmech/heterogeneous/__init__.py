"""Private selection when candidates have different sensitivities.

D. Antonova, A. Laro, A. McMillan and L. Wolf, *Private Selection with Heterogeneous
Sensitivities*, SaTML 2025, arXiv:2501.05309.  Mechanisms (Sections IV and VII), each
built with its privacy budget and parameters and applied to ``(scores, sensitivities)``:

=======================  ============================================  ==================
name                     class                                         privacy
=======================  ============================================  ==================
``rnm``                  :class:`GlobalNoisyMax` (PF at ``max Δ``)     ε-DP
``gem``                  :class:`GeneralisedExponentialMechanism`      ε-DP
``mgem``                 :class:`ModifiedGEM`                          ε-DP
``combined_gem``         :class:`CombinedGEM`                          ε-DP
``rs_gamma``             :class:`RandomStopping` (geometric)           ε-DP
``rs_gamma_tnb``         :class:`RandomStopping` (``eta=0``)           ε-DP
``uniform``              :class:`UniformChoice`                        0-DP
(reference only)         :class:`HeterogeneousNoisyMax` (RNMH)         exponential: not DP;
                                                                       Laplace: mε-DP
=======================  ============================================  ==================

:func:`gem_scores` is the O(n log n) GEM score transform; :func:`make_heterogeneous` builds
a mechanism from its name.  The synthetic scenario study (Sections VI-VII, scenarios 1-8
and the correlation sweep) is :mod:`~optmech.heterogeneous.scenarios`.
"""

from optmech._lazy import lazy_exports as _lazy_exports

__all__, __getattr__, __dir__ = _lazy_exports(__name__, {
    "optmech.heterogeneous.base": ("HeterogeneousMechanism",),
    "optmech.heterogeneous.gem": (
        "CombinedGEM", "GeneralisedExponentialMechanism", "ModifiedGEM", "spearman_correlation",
    ),
    "optmech.heterogeneous.gem_transform": ("gem_scores", "gem_scores_reference"),
    "optmech.heterogeneous.inputs": ("check_scores_and_sensitivities",),
    "optmech.heterogeneous.noisy_max": ("GlobalNoisyMax", "HeterogeneousNoisyMax", "UniformChoice"),
    "optmech.heterogeneous.random_stopping": (
        "RandomStopping", "StoppingDistribution", "random_stopping_pmf",
    ),
    "optmech.heterogeneous.registry": ("MECHANISM_NAMES", "make_heterogeneous"),
    "optmech.heterogeneous.scenarios": (
        "FIGURE_SCENARIOS", "SCENARIOS", "Scenario", "ScenarioResult", "correlation_scenario",
        "run_scenario", "scenario", "scenario_from_key",
    ),
})
