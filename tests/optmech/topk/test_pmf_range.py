"""Every top-T pmf stays within [0, 1], and the top tuple's probability is 1 (to the last
digit, never above) where the other tuples' probabilities sum to less than 2^-54.

Reference, from the definitions alone: an ordered tuple other than the top one loses at
least one round (peeling) or has a joint utility or canonical loss of at least the
smallest gap ``g``, so its probability is at most ``e^{-a g}`` with ``a`` the smallest
exponent of the calibrations (ε / (4 T Δ)); the top tuple's is then at least 1 minus their
sum.  Before the fix peeling PF gave 1.0000000000000004 at eps = 1e20 on 3, 1, 2, 0 (each
round's PF probability was 1.0000000000000002)."""

import math

import numpy as np
import pytest

from optmech.topk import TOPK_MECHANISMS, make_topk_mechanism, outcomes

SCORES = [3.0, 1.0, 2.0, 0.0]


@pytest.mark.parametrize("name", TOPK_MECHANISMS)
@pytest.mark.parametrize("top", [1, 2, 3])
@pytest.mark.parametrize("epsilon", [1e3, 1e20, 1e300])
def test_the_top_tuple_is_exactly_one(name, top, epsilon):
    tuples = outcomes(len(SCORES), top)
    bound = (len(tuples) - 1) * math.exp(-epsilon / (4 * top) * 1.0)   # smallest gap 1
    assert bound < 2.0 ** -54                                           # the premise
    p = make_topk_mechanism(name, epsilon, top).pmf(SCORES)
    best = np.argsort(SCORES)[::-1][:top]
    if name == "canonical-lipschitz":       # the top set, in each of its T! orders
        chosen = np.array([set(t) == set(best) for t in tuples.tolist()])
        assert np.allclose(p[chosen], 1.0 / math.factorial(top), rtol=0, atol=1e-16)
    else:
        chosen = (tuples == best).all(axis=1)
        assert 1.0 - 2.0 ** -52 <= p[chosen][0] <= 1.0
    assert p[~chosen].max() <= bound and p.max() <= 1.0


@pytest.mark.parametrize("name", TOPK_MECHANISMS)
@pytest.mark.parametrize("epsilon", [1e-300, 1e-9, 1.0, 40.0, 1e20, 1e300])
def test_every_probability_within_zero_and_one(name, epsilon):
    for scores in ([3, 1, 2, 0], [0, 0, 0, 1], [1e19, 1000, 0, -1]):
        p = make_topk_mechanism(name, epsilon, 2).pmf(scores)
        assert ((p >= 0) & (p <= 1)).all()
