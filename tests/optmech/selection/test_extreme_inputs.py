"""Every selection mechanism at extreme inputs: a valid pmf, or one clear error.

Properties (hypothesis, derandomised): for scores from tiny to huge magnitudes, with ties
and wide gaps, and epsilon / sensitivity over the whole double range, each call either
raises :class:`InvalidArgumentError` (bad input) or an ``ArithmeticError`` (a result that
cannot be represented), or returns probabilities that are finite, non-negative and sum to
1 within 1e-12, that are permutation equivariant (exactly: the same multiset of scores),
and shift invariant for shifts that keep the scores exact (integer scores, integer
shifts below 2^40).  The expected error is finite and non-negative, or refused.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optmech.selection.mechanisms import (
    ExponentialMechanism,
    PermuteAndFlip,
    PmfMechanism,
    RandomizedResponse,
    ReportNoisyMax,
    UniformSelection,
)
from optmech.validation import InvalidArgumentError

MAGNITUDES = st.sampled_from([0.0, 5e-324, 1e-300, 1e-12, 1.0, 1e6, 1e9, 1e300, 1e308,
                              1.7976931348623157e308])
SCORES = st.lists(st.one_of(st.floats(-1e3, 1e3, allow_nan=False),
                            MAGNITUDES, MAGNITUDES.map(lambda x: -x)),
                  min_size=1, max_size=12)
PARAMETER = st.one_of(st.floats(1e-3, 1e3), MAGNITUDES.filter(lambda x: x > 0))
FACTORIES = {
    "pf": lambda eps, delta: PermuteAndFlip(eps, delta),
    "em": lambda eps, delta: ExponentialMechanism(eps, delta),
    "pf monotonic": lambda eps, delta: PermuteAndFlip(eps, delta, monotonic=True),
    "rnm-gumbel": lambda eps, delta: ReportNoisyMax(eps, delta, noise="gumbel"),
    "rnm-exponential": lambda eps, delta: ReportNoisyMax(eps, delta, noise="exponential"),
    "rr": lambda eps, delta: RandomizedResponse(eps),
    "uniform": lambda eps, delta: UniformSelection(),
    "pmf mechanism": lambda eps, delta: PmfMechanism(ExponentialMechanism(eps, delta).pmf,
                                                     epsilon=eps, sensitivity=delta),
}
SETTINGS = settings(max_examples=60, deadline=None, derandomize=True, database=None)


def pmf_or_refusal(mechanism, scores):
    """The pmf, or None when the mechanism refuses the input with a clear error."""
    try:
        return mechanism.pmf(scores)
    except (InvalidArgumentError, ArithmeticError):
        return None


def build(name, eps, delta):
    try:
        return FACTORIES[name](eps, delta)
    except InvalidArgumentError:
        return None


@pytest.mark.parametrize("name", FACTORIES)
@SETTINGS
@given(scores=SCORES, eps=PARAMETER, delta=PARAMETER, seed=st.integers(0, 2**32 - 1))
def test_probabilities_are_a_distribution_and_permute_with_the_scores(name, scores, eps,
                                                                       delta, seed):
    mechanism = build(name, eps, delta)
    if mechanism is None:
        return
    p = pmf_or_refusal(mechanism, scores)
    if p is None:
        return
    assert p.shape == (len(scores),)
    assert np.isfinite(p).all() and (p >= 0).all()
    assert abs(p.sum() - 1.0) <= 1e-12
    order = np.random.default_rng(seed).permutation(len(scores))
    permuted = mechanism.pmf(np.asarray(scores)[order])
    np.testing.assert_allclose(permuted, p[order], rtol=1e-13, atol=1e-15)
    try:
        error = mechanism.expected_error(scores)
    except ArithmeticError:
        return
    assert math.isfinite(error) and error >= 0


@pytest.mark.parametrize("name", FACTORIES)
@SETTINGS
@given(scores=st.lists(st.integers(-2**20, 2**20), min_size=1, max_size=10),
       shift=st.one_of(st.integers(-2**40, 2**40), st.sampled_from([2**40, -2**40])),
       eps=PARAMETER, delta=st.floats(1e-2, 1e2))
def test_probabilities_are_shift_invariant(name, scores, shift, eps, delta):
    mechanism = build(name, eps, delta)
    if mechanism is None:
        return
    p = pmf_or_refusal(mechanism, scores)
    if p is None:
        return
    shifted = mechanism.pmf([s + shift for s in scores])      # exact: integers below 2^53
    np.testing.assert_allclose(shifted, p, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", ["pf", "em", "rnm-gumbel", "rnm-exponential", "uniform"])
def test_scores_spanning_the_double_range(name):
    """Gaps beyond the double range (q* - q_r > 1.8e308) are computed from half gaps: tiny
    epsilon sees two candidates 2e308 apart as nearly tied, as it should."""
    mechanism = build(name, 1e-308, 1.0)
    p = mechanism.pmf([1e308, -1e308])
    # PF/EM: coin exp(-eps * 2e308 / 2) = exp(-1): EM picks the lower one w.p. 1/(1 + e)
    # and PF w.p. e^-1/2; RNM with exponential/Gumbel noise equals PF/EM.
    expected = {"pf": math.exp(-1) / 2, "em": 1 / (1 + math.e),
                "rnm-gumbel": 1 / (1 + math.e), "rnm-exponential": math.exp(-1) / 2,
                "uniform": 0.5}[name]
    assert p[1] == pytest.approx(expected, rel=1e-12)
    assert mechanism.expected_error([1e308, -1e308]) == pytest.approx(2 * (1e308 * expected),
                                                                      rel=1e-12)


def test_an_expected_error_beyond_the_double_range_is_refused():
    with pytest.raises(ArithmeticError):
        UniformSelection().expected_error([1.7976931348623157e308, -1.7976931348623157e308,
                                           -1.7976931348623157e308])


def test_log_expected_error_is_exact_where_the_error_underflows():
    """PF and EM on (0, -5000) at epsilon 1: both errors underflow to 0, their logs do not:
    log E = log(5000) + log Pr[second] with Pr_EM = p/(1+p), Pr_PF = p/2 + O(p^2), p = e^-2500."""
    scores = [0.0, -5000.0]
    assert PermuteAndFlip(1.0).expected_error(scores) == 0.0
    assert PermuteAndFlip(1.0).log_expected_error(scores) == pytest.approx(
        math.log(5000) - 2500 - math.log(2), rel=1e-14)
    assert ExponentialMechanism(1.0).log_expected_error(scores) == pytest.approx(
        math.log(5000) - 2500, rel=1e-14)
    assert PermuteAndFlip(1.0).log_expected_error([3.0, 3.0]) == -math.inf
