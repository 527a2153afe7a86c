"""Heterogeneous mechanisms as values: eval-able repr, equality, hashing and rvs."""

from fractions import Fraction

import numpy as np
import pytest

import optmech.heterogeneous as heterogeneous
from optmech.heterogeneous import MECHANISM_NAMES, make_heterogeneous
from optmech.heterogeneous.gem import CombinedGEM, GeneralisedExponentialMechanism
from optmech.heterogeneous.noisy_max import HeterogeneousNoisyMax
from optmech.validation import InvalidArgumentError

NAMESPACE = {**{name: getattr(heterogeneous, name) for name in dir(heterogeneous)},
             "HeterogeneousNoisyMax": HeterogeneousNoisyMax, "Fraction": Fraction}


@pytest.mark.parametrize("name", MECHANISM_NAMES)
def test_eval_of_the_repr_rebuilds_an_equal_mechanism(name):
    mechanism = make_heterogeneous(name, 1.5)
    rebuilt = eval(repr(mechanism), NAMESPACE)
    assert rebuilt == mechanism and hash(rebuilt) == hash(mechanism)
    scores, sensitivities = [0.0, -1.0, -2.0], [1.0, 2.0, 0.5]
    assert np.array_equal(rebuilt.pmf(scores, sensitivities), mechanism.pmf(scores, sensitivities))


def test_equality_follows_the_constructor_arguments():
    assert GeneralisedExponentialMechanism(1.0) == GeneralisedExponentialMechanism(1.0, 0.05)
    assert GeneralisedExponentialMechanism(1.0) != GeneralisedExponentialMechanism(1.0, t=2.0)
    assert CombinedGEM(1.0) == CombinedGEM(1.0, epsilon_c=0.6)
    assert HeterogeneousNoisyMax(1.0) != HeterogeneousNoisyMax(1.0, noise="laplace")
    assert repr(HeterogeneousNoisyMax(1.0, noise="laplace")) == \
        "HeterogeneousNoisyMax(epsilon=1.0, noise='laplace')"
    assert make_heterogeneous("rnm", 1.0) != make_heterogeneous("gem", 1.0)


def test_rvs_matches_sample_and_refuses_a_legacy_random_state():
    gem = make_heterogeneous("gem", 1.0)
    scores, sensitivities = [0.0, -1.0, -2.0], [1.0, 2.0, 0.5]
    assert gem.rvs(scores, sensitivities, size=20, random_state=4).tolist() == \
        gem.sample(scores, sensitivities, size=20, rng=4).tolist()
    with pytest.raises(InvalidArgumentError) as info:
        gem.rvs(scores, sensitivities, random_state=np.random.RandomState(1))
    assert info.value.argument == "random_state"
