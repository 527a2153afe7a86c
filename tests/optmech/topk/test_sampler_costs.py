"""The samplers' work and memory are estimated and refused up front
(optmech/topk/sampler_costs.py), and the LP's variables are bounded before they are
counted: the sizes of the issue refuse at once, naming their arguments, and the memory
estimate of the joint classes holds the peak that tracemalloc measures."""

import math
import tracemalloc

import numpy as np
import pytest

from lp_models.topk.model import topk_lp
from lp_models.topk.orbits import orbit_count, orbit_count_exceeds
from optmech.resources import memory_budget
from optmech.topk import PeelingEM, make_topk_mechanism, solve_topk, topk_lp_size
from optmech.validation import ResourceLimitError


def test_peeling_a_million_candidates_a_million_times_is_refused():
    """1e6 rounds over 1e6 near candidates: 1e12 race cells (5.6 h estimated)."""
    with pytest.raises(ResourceLimitError, match="scores, top, size") as error:
        PeelingEM(1.0, top=10**6).sample(np.arange(1e6), size=1)
    assert "CPU time" in str(error.value)


def test_the_joint_classes_beyond_the_memory_budget_are_refused():
    """40,000 scores, top 4000: 1.6e8 entries of D, about 18 GiB (5.6 GB was reached and
    then 'out of memory' at 30,000 x 3000 before)."""
    mechanism = make_topk_mechanism("joint-em", 1.0, 4000)
    with memory_budget(3 * 2**30), pytest.raises(ResourceLimitError, match="memory"):
        mechanism.sample(np.arange(40_000.0), size=1)


@pytest.mark.parametrize("name", ["joint-em", "joint-pf", "canonical-lipschitz", "gumbel"])
def test_the_memory_estimate_holds_the_measured_peak(name):
    """n = 3000, T = 200, 100 draws: the estimate is at least tracemalloc's peak (numpy's
    arrays included) and within a factor of 8 of it."""
    q = np.random.default_rng(3).poisson(50, 3000).astype(float)
    mechanism = make_topk_mechanism(name, 1.0, 200)
    estimate = mechanism.sample_estimate(q, 100)
    tracemalloc.start()
    try:
        mechanism.sample(q, size=100, rng=1)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak <= estimate.nbytes <= 8 * peak + 2 * 24 * 2**22


def test_the_lp_of_a_million_items_is_refused_before_it_is_counted():
    """n = k = 10^6: the exact count has some 600,000 digits (math.comb took minutes)."""
    with pytest.raises(ValueError, match="more than"):
        topk_lp(10**6, 10**6, 1.0, 3)
    with pytest.raises(ValueError, match="n, k, top"):
        topk_lp_size(10**6, 10**6, 3)
    with pytest.raises(ValueError, match="n, k, top|epsilon"):
        solve_topk(10**6, 10**6, 1e-5, 3)


def test_the_bounded_count_agrees_with_the_exact_one():
    for n, k, top, ordered in [(n, k, t, o) for n in range(2, 9) for k in range(1, 6)
                               for t in range(1, n) for o in (True, False)]:
        exact = orbit_count(n, k, top, ordered)
        for limit in (1, exact - 1, exact, exact + 1, 10**6):
            if limit >= 1:
                assert orbit_count_exceeds(n, k, top, ordered, limit) == (exact > limit)
    assert orbit_count_exceeds(40, 30, 20, True, 10**300) == (
        orbit_count(40, 30, 20, True) > 10**300)
    assert math.log10(orbit_count(40, 30, 20, True)) > 10
