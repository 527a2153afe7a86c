"""The output space: every ordered tuple / set, in itertools order, and its limit."""

import itertools
import math

import numpy as np
import pytest

from optmech.resources import memory_budget
from optmech.topk import MAX_OUTCOMES, make_topk_mechanism, outcome_count, outcomes
from optmech.validation import InvalidArgumentError


@pytest.mark.parametrize("n, top", [(1, 1), (3, 1), (4, 2), (5, 3), (6, 6), (7, 4)])
@pytest.mark.parametrize("ordered", [True, False])
def test_outcomes_are_itertools_order(n, top, ordered):
    generate = itertools.permutations if ordered else itertools.combinations
    expected = np.array(list(generate(range(n), top)))
    got = outcomes(n, top, ordered)
    assert np.array_equal(got, expected)
    assert len(got) == outcome_count(n, top, ordered) == (math.perm(n, top) if ordered
                                                          else math.comb(n, top))
    assert not got.flags.writeable


@pytest.mark.parametrize("arguments", [(0, 1), (3, 0), (3, 4), (2.5, 1), (3, True)])
def test_bad_sizes_are_refused_naming_the_argument(arguments):
    with pytest.raises(InvalidArgumentError, match=r"^(n|top) must be"):
        outcomes(*arguments)


def test_enumeration_beyond_the_limit_is_refused_up_front():
    assert outcome_count(40, 5) > MAX_OUTCOMES
    with pytest.raises(InvalidArgumentError, match="at most 33554432 ordered outcomes"):
        make_topk_mechanism("joint-em", 1.0, 5).pmf(np.arange(40.0))
    with memory_budget(10_000), pytest.raises(InvalidArgumentError, match="memory"):
        make_topk_mechanism("peel-pf", 1.0, 3).expected_error(np.arange(12.0))
