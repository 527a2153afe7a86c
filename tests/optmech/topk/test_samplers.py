"""The samplers against the exact pmfs (chi-square, fixed seeds, 2 x 10^4 draws, p-value
threshold 1e-4), their rare paths forced, and the class structures they draw from against
brute-force enumeration."""

import itertools
import math

import numpy as np
import pytest

from optmech.topk import TOPK_MECHANISMS, make_topk_mechanism, outcomes
from optmech.topk.samplers import (
    canonical_log_weights,
    joint_classes,
    sample_one_shot_gumbel,
    sample_peeling,
)
from tests.stats_helpers import chi_square_pvalue

DRAWS = 20_000
# ties (2.0 twice), a far candidate under large epsilon
SCORES = np.array([3.0, 1.0, 2.0, 0.5, 2.0])


def outcome_index(draws: np.ndarray, n: int) -> np.ndarray:
    """The row of ``outcomes(n, T)`` of each drawn tuple (refusing a tuple not there)."""
    top = draws.shape[1]
    place = n ** np.arange(top - 1, -1, -1)
    keys = outcomes(n, top) @ place
    index = np.searchsorted(keys, draws @ place)
    assert np.array_equal(keys[np.minimum(index, len(keys) - 1)], draws @ place)
    return index


@pytest.mark.parametrize("name", TOPK_MECHANISMS)
@pytest.mark.parametrize("monotonic", [False, True])
def test_sampler_follows_the_exact_pmf(name, monotonic):
    mechanism = make_topk_mechanism(name, 2.0, 3, 1.0, monotonic)
    seed = 1000 + 10 * TOPK_MECHANISMS.index(name) + monotonic
    draws = mechanism.sample(SCORES, size=DRAWS, rng=seed)
    assert chi_square_pvalue(outcome_index(draws, 5), mechanism.pmf(SCORES)) > 1e-4


def test_one_shot_gumbel_samples_have_the_peeling_em_pmf():
    """Durfee & Rogers' identity, by samples: noise added once, top 3 kept in order."""
    peel = make_topk_mechanism("peel-em", 3.0, 3)
    draws = sample_one_shot_gumbel(SCORES, peel.exponent, 3, DRAWS, np.random.default_rng(7))
    assert chi_square_pvalue(outcome_index(draws, 5), peel.pmf(SCORES)) > 1e-4


@pytest.mark.parametrize("race, name", [("em", "peel-em"), ("pf", "peel-pf")])
def test_peeling_is_exact_when_far_candidates_compete(race, name):
    """A far threshold of 1.5 (instead of 40) makes the rare far path frequent: candidate 3
    is far and is drawn in about 10 % of the outputs; the distribution must not change."""
    mechanism = make_topk_mechanism(name, 4.0, 3, monotonic=True)
    z = mechanism.exponent * (SCORES - SCORES.max())
    far = np.flatnonzero(z <= np.sort(z)[-3] - 1.5)
    assert far.tolist() == [3]
    draws = sample_peeling(SCORES, mechanism.exponent, 3, DRAWS, np.random.default_rng(11), race,
                           far_below=1.5)
    index = outcome_index(draws, 5)
    assert np.isin(draws, far).any(axis=1).sum() > 1000
    assert chi_square_pvalue(index, mechanism.pmf(SCORES)) > 1e-4


def _sorted_positions(q):
    order = np.argsort(-q, kind="stable")
    return order, np.argsort(order)


@pytest.mark.parametrize("q", [np.array([4.0, 1.0, 3.0, 3.0, 0.0]),
                               np.array([0.3, -1.0, 2.2, 0.9, 1.7, 0.0])])
@pytest.mark.parametrize("top", [1, 2, 3])
def test_joint_classes_count_the_tuples_of_each_entry(q, top):
    """Each ordered tuple belongs to the entry (i, position of s_i) largest in the order
    (D, then the later row, then the column); count them by brute force."""
    classes = joint_classes(q, top)
    order, rank = _sorted_positions(q)
    c = q[order]
    counts = {}
    for s in itertools.permutations(range(q.size), top):
        entry = max(((c[i] - c[rank[j]], -i, rank[j]), i, rank[j]) for i, j in enumerate(s))
        counts[entry[1:]] = counts.get(entry[1:], 0) + 1
        assert entry[0][0] == (c[:top] - q[list(s)]).max()      # the entry's D is -u(s)
    for row, column, log_count in zip(classes.row, classes.column, classes.log_count):
        expected = counts.get((row, column), 0)
        assert (math.exp(log_count) if np.isfinite(log_count) else 0) == \
            pytest.approx(expected, rel=1e-12)
    assert sum(counts.values()) == math.perm(q.size, top)


def test_canonical_classes_hold_their_sets_and_losses():
    q = np.array([5.0, 2.0, 4.0, 4.0, 1.0, 0.0])
    top, a = 3, 0.8
    order, rank = _sorted_positions(q)
    x = q[order]
    weights = np.zeros((top, q.size - top))
    top_set = 0.0
    for subset in itertools.combinations(range(q.size), top):
        positions = sorted(rank[list(subset)])
        loss = max(0.0, max(q[j] for j in range(q.size) if j not in subset)
                   - min(q[list(subset)]))
        if positions == list(range(top)):
            top_set += math.exp(-a * loss)
            continue
        h = next(k for k in range(top) if positions[k] != k)
        t = positions[-1]
        assert loss == pytest.approx(x[h] - x[t])
        weights[h, t - top] += math.exp(-a * loss)
    assert top_set == 1.0
    assert np.allclose(np.exp(canonical_log_weights(x, top, a)), weights, rtol=1e-12)


@pytest.mark.parametrize("name", TOPK_MECHANISMS)
def test_samples_at_dpbench_size_are_distinct_candidates(name):
    """n = 4096 (a DPBench histogram's size), T = 50: the samplers run (no exact pmf at this
    size) and every draw is T distinct candidates among the ones that could win."""
    q = np.random.default_rng(5).poisson(200, 4096).astype(float)
    draws = make_topk_mechanism(name, 1.0, 50, monotonic=True).sample(q, size=4, rng=2)
    assert draws.shape == (4, 50)
    assert all(np.unique(row).size == 50 for row in draws)
    assert ((draws >= 0) & (draws < 4096)).all()


def test_shapes_seeds_and_rvs():
    mechanism = make_topk_mechanism("joint-pf", 1.0, 2)
    one = mechanism.sample(SCORES, rng=3)
    assert one.shape == (2,) and one.dtype == np.int64
    assert mechanism.sample(SCORES, size=(2, 3), rng=3).shape == (2, 3, 2)
    assert np.array_equal(mechanism.rvs(SCORES, size=5, random_state=4),
                          mechanism.sample(SCORES, size=5, rng=4))
    assert np.array_equal(mechanism.sample(SCORES, 5, rng=np.random.default_rng(9)),
                          mechanism.sample(SCORES, 5, rng=9))
