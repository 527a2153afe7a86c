"""The mechanisms of the scenario study by name (the CLI's and the JSON's names)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from optmech.validation import check_choice, check_positive

if TYPE_CHECKING:
    from optmech.heterogeneous.base import HeterogeneousMechanism

__all__ = ["MECHANISM_NAMES", "make_heterogeneous"]

MECHANISM_NAMES = ("rnm", "gem", "mgem", "combined_gem", "rs_gamma", "rs_gamma_tnb", "uniform")


def make_heterogeneous(name: str, epsilon: float) -> HeterogeneousMechanism:
    """The mechanism ``name`` at budget ``epsilon`` with the paper's default parameters
    (β = 0.05, γ = 0.05, η = 0 for the TNB variant, ε_c = 0.6 ε); ``uniform`` ignores
    ``epsilon``."""
    # The classes are imported here, not at the top: the CLI reads MECHANISM_NAMES at start-up.
    from optmech.heterogeneous.gem import CombinedGEM, GeneralisedExponentialMechanism, ModifiedGEM
    from optmech.heterogeneous.noisy_max import GlobalNoisyMax, UniformChoice
    from optmech.heterogeneous.random_stopping import RandomStopping

    check_choice(name, "mechanism", MECHANISM_NAMES)
    epsilon = check_positive(epsilon, "epsilon")
    builders = {
        "rnm": lambda: GlobalNoisyMax(epsilon),
        "gem": lambda: GeneralisedExponentialMechanism(epsilon),
        "mgem": lambda: ModifiedGEM(epsilon),
        "combined_gem": lambda: CombinedGEM(epsilon),
        "rs_gamma": lambda: RandomStopping(epsilon),
        "rs_gamma_tnb": lambda: RandomStopping(epsilon, eta=0.0),
        "uniform": UniformChoice,
    }
    return builders[name]()
