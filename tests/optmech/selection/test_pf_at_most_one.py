"""Permute-and-flip's probabilities stay within [0, 1] where the other coins are negligible.

Reference, from the definition: a candidate ``r`` other than the top is drawn with
probability at most its coin ``e^{c (q_r - q*)}`` (PF must accept it on its turn), so the
top candidate's probability is at least 1 minus the sum of the other coins; where that
sum is below 2^-54 the top's double is 1 to the pmf's accuracy (1e-13 absolute,
:mod:`optmech.selection.pf_probabilities`) and never above it.  Before the fix the
quadrature's weights, summing to 1 only up to rounding, gave 1.0000000000000002 (scores
3, 1, 2 from eps = 1e3 to 1e300)."""

import math

import numpy as np
import pytest

from optmech.selection.mechanisms import PermuteAndFlip
from optmech.selection.pf_probabilities import BATCH_MAX


@pytest.mark.parametrize("epsilon", [1e3, 1e20, 1e300])
@pytest.mark.parametrize("scores", [[3, 1, 2], [3, 1, 2, 0], [0, 0, 1],
                                    list(range(BATCH_MAX + 3))],   # the grouped rule
                         ids=["3", "4", "tie", "grouped"])
def test_the_top_is_exactly_one_when_the_others_underflow(scores, epsilon):
    q = np.asarray(scores, dtype=float)
    gaps = np.sort(q.max() - q)[1:]
    assert math.fsum(math.exp(-epsilon / 2 * g) for g in gaps) < 2.0 ** -54   # the premise
    p = PermuteAndFlip(epsilon).pmf(q)
    top = np.argmax(q)
    coins = np.exp(-epsilon / 2 * (q.max() - q))
    assert 1.0 - 1e-13 <= p[top] <= 1.0
    assert (np.delete(p, top) <= np.delete(coins, top)).all() and p.min() >= 0


@pytest.mark.parametrize("epsilon", [1e-300, 1e-9, 0.1, 1.0, 40.0, 1e3, 1e20, 1e300])
def test_every_probability_within_zero_and_one(epsilon):
    rows = np.array([[3, 1, 2, 0], [0, 0, 0, 1], [1e19, 1000, 0, -1], [5, 5, 5, 5]], float)
    p = PermuteAndFlip(epsilon).pmf(rows)
    assert ((p >= 0) & (p <= 1)).all()
