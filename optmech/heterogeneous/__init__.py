"""Private selection when candidates have different sensitivities.

Mechanisms (heterogeneous-sensitivities paper, Sections IV and VII), each built with its
privacy budget and parameters and applied to ``(scores, sensitivities)``:

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
a mechanism from its name.
"""

from optmech.heterogeneous.base import HeterogeneousMechanism
from optmech.heterogeneous.gem import (CombinedGEM, GeneralisedExponentialMechanism,
                                       ModifiedGEM, spearman_correlation)
from optmech.heterogeneous.gem_transform import gem_scores, gem_scores_reference
from optmech.heterogeneous.inputs import check_scores_and_sensitivities
from optmech.heterogeneous.noisy_max import GlobalNoisyMax, HeterogeneousNoisyMax, UniformChoice
from optmech.heterogeneous.random_stopping import (RandomStopping, StoppingDistribution,
                                                   random_stopping_pmf)
from optmech.heterogeneous.registry import MECHANISM_NAMES, make_heterogeneous

__all__ = [
    "CombinedGEM",
    "GeneralisedExponentialMechanism",
    "GlobalNoisyMax",
    "HeterogeneousMechanism",
    "HeterogeneousNoisyMax",
    "MECHANISM_NAMES",
    "ModifiedGEM",
    "RandomStopping",
    "StoppingDistribution",
    "UniformChoice",
    "check_scores_and_sensitivities",
    "gem_scores",
    "gem_scores_reference",
    "make_heterogeneous",
    "random_stopping_pmf",
    "spearman_correlation",
]
