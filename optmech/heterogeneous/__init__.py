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

from optmech.heterogeneous.base import HeterogeneousMechanism
from optmech.heterogeneous.gem import (
                                       CombinedGEM,
                                       GeneralisedExponentialMechanism,
                                       ModifiedGEM,
                                       spearman_correlation,
)
from optmech.heterogeneous.gem_transform import gem_scores, gem_scores_reference
from optmech.heterogeneous.inputs import check_scores_and_sensitivities
from optmech.heterogeneous.noisy_max import GlobalNoisyMax, HeterogeneousNoisyMax, UniformChoice
from optmech.heterogeneous.random_stopping import (
                                       RandomStopping,
                                       StoppingDistribution,
                                       random_stopping_pmf,
)
from optmech.heterogeneous.registry import MECHANISM_NAMES, make_heterogeneous
from optmech.heterogeneous.scenarios import (
                                       FIGURE_SCENARIOS,
                                       SCENARIOS,
                                       Scenario,
                                       ScenarioResult,
                                       correlation_scenario,
                                       run_scenario,
                                       scenario,
                                       scenario_from_key,
)

__all__ = [
    "CombinedGEM",
    "FIGURE_SCENARIOS",
    "GeneralisedExponentialMechanism",
    "GlobalNoisyMax",
    "HeterogeneousMechanism",
    "HeterogeneousNoisyMax",
    "MECHANISM_NAMES",
    "ModifiedGEM",
    "RandomStopping",
    "SCENARIOS",
    "Scenario",
    "ScenarioResult",
    "StoppingDistribution",
    "UniformChoice",
    "check_scores_and_sensitivities",
    "correlation_scenario",
    "gem_scores",
    "gem_scores_reference",
    "make_heterogeneous",
    "random_stopping_pmf",
    "run_scenario",
    "scenario",
    "scenario_from_key",
    "spearman_correlation",
]
