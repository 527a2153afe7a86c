"""Mechanisms as scipy.stats users expect them: eval-able repr, equality and hashing by
constructor arguments, and rvs(..., random_state=)."""

from fractions import Fraction

import numpy as np
import pytest

import optmech.selection.mechanisms as mechanisms
from optmech.selection.mechanisms import (
    ExponentialMechanism,
    PermuteAndFlip,
    PmfMechanism,
    RandomizedResponse,
    ReportNoisyMax,
    UniformSelection,
    make_mechanism,
)
from optmech.validation import InvalidArgumentError

BUILT = [PermuteAndFlip(1.3), PermuteAndFlip(1, 2.0, True), ExponentialMechanism(0.5),
         ReportNoisyMax(1.3), ReportNoisyMax(2.0, noise="gumbel", monotonic=True),
         RandomizedResponse(Fraction(1, 3)), UniformSelection()]


def test_the_repr_is_the_constructor_call():
    assert repr(PermuteAndFlip(1.3)) == \
        "PermuteAndFlip(epsilon=1.3, sensitivity=1.0, monotonic=False)"
    assert repr(ReportNoisyMax(1.0, noise="gumbel")) == \
        "ReportNoisyMax(epsilon=1.0, sensitivity=1.0, monotonic=False, noise='gumbel')"
    assert repr(PermuteAndFlip(np.float64(0.5))) == \
        "PermuteAndFlip(epsilon=0.5, sensitivity=1.0, monotonic=False)"


@pytest.mark.parametrize("mechanism", BUILT, ids=repr)
def test_eval_of_the_repr_rebuilds_an_equal_mechanism(mechanism):
    rebuilt = eval(repr(mechanism), {**vars(mechanisms), "Fraction": Fraction})
    assert rebuilt == mechanism and hash(rebuilt) == hash(mechanism)
    scores = [0.0, -1.0, -2.5]
    assert rebuilt.pmf(scores).tolist() == mechanism.pmf(scores).tolist()


def test_equality_follows_the_constructor_arguments():
    assert PermuteAndFlip(1.3) == PermuteAndFlip(1.3, 1.0, False) == make_mechanism("pf", 1.3)
    assert PermuteAndFlip(1) == PermuteAndFlip(1.0)              # equal numbers
    assert PermuteAndFlip(1.3) != PermuteAndFlip(1.3, monotonic=True)
    assert PermuteAndFlip(1.3) != ExponentialMechanism(1.3)      # same pmf? no: another class
    assert ReportNoisyMax(1.3, noise="exponential") != PermuteAndFlip(1.3)
    # an exact epsilon is another mechanism for sample(exact=True)
    assert PermuteAndFlip(Fraction(13, 10)) != PermuteAndFlip(1.3)
    assert len({PermuteAndFlip(1.3), PermuteAndFlip(1.3), ExponentialMechanism(1.3)}) == 2
    cache = {PermuteAndFlip(2.0): "pf"}
    assert cache[make_mechanism("pf", 2.0)] == "pf"


def test_pmf_mechanisms_compare_by_function_and_declaration():
    def uniform(q):
        return np.full(len(q), 1 / len(q))

    assert PmfMechanism(uniform, epsilon=1) == PmfMechanism(uniform, epsilon=1.0)
    assert PmfMechanism(uniform, epsilon=1) != PmfMechanism(uniform, epsilon=2)
    assert PmfMechanism(uniform) != PmfMechanism(lambda q: uniform(q))
    assert repr(PmfMechanism(uniform, name="u")).startswith("PmfMechanism(pmf=<function ")


def test_rvs_is_sample_under_scipy_names():
    pf = PermuteAndFlip(1.3)
    scores = [0.0, -1.0, -3.0]
    assert pf.rvs(scores, size=50, random_state=7).tolist() == \
        pf.sample(scores, size=50, rng=7).tolist()
    assert pf.rvs(scores, size=(2, 3), random_state=np.random.default_rng(1)).shape == (2, 3)
    assert isinstance(pf.rvs(scores, random_state=3), int)


def test_rvs_draws_from_the_pmf():
    """Chi-square-free check with a tolerance from the sample size: each frequency within
    5 standard errors of its probability (binomial, 20000 draws, seed 11)."""
    em = ExponentialMechanism(1.0)
    scores = [0.0, -1.0, -2.0, -2.0]
    draws = em.rvs(scores, size=20_000, random_state=11)
    p = em.pmf(scores)
    freq = np.bincount(draws, minlength=4) / draws.size
    assert np.all(np.abs(freq - p) <= 5 * np.sqrt(p * (1 - p) / draws.size))


def test_a_legacy_random_state_is_refused_with_what_to_pass():
    with pytest.raises(InvalidArgumentError, match="default_rng") as info:
        PermuteAndFlip(1.0).rvs([0.0, 1.0], random_state=np.random.RandomState(0))
    assert info.value.argument == "random_state"
    with pytest.raises(InvalidArgumentError) as info:
        PermuteAndFlip(1.0).rvs([0.0, 1.0], random_state="0")
    assert info.value.argument == "random_state"
