"""``optmech.reproduce.topk``: the quick run's rows and figures, and its exact helpers
(peeling EM's Pr[TOP-k], the canonical mechanism's class probabilities) against the exact
pmfs of optmech.topk at small sizes."""

import itertools
import re

import numpy as np
import pytest

from optmech.reproduce.topk import (
    canonical_class_probabilities,
    class_bounds,
    class_probabilities_of_draws,
    peeling_top_probability,
)
from optmech.topk import make_topk_mechanism, outcomes

Q = np.array([9.0, 2.0, 7.0, 7.0, 4.0, 0.0, 5.0, 1.0])


def _classes_by_loop(positions, k):
    """S&L's getutilityclass, cumulative: [TOP, GREAT or better, GOOD or better]."""
    s = sorted(positions)
    leading = next((i for i in range(k) if s[i] != i), k)
    return [leading >= h and s[-1] + 1 <= t for h, t in class_bounds(k).values()]


def test_quick_reproduction(quick_run):
    results, out = quick_run("topk")
    assert all(r.ok for r in results), [r.name for r in results if not r.ok]
    assert {r.status for r in results} <= {"match", "new"}
    keyed = {r.key: r for r in results if r.key}
    assert keyed["sl-canonical-beats-peeling"].status == "match"
    # sampled probabilities carry their interval, exact ones do not (the canonical
    # mechanism's, and peeling EM's Pr[TOP] from its integral)
    exact, peeling = keyed["sl-classes-hepth-k10"].ours.split("; ")
    assert "[" not in exact and "draws" in keyed["sl-classes-hepth-k10"].name
    sampled = r"\d\.\d+ \[\d\.\d+, \d\.\d+\]"
    assert re.fullmatch(rf"peel-em: \d\.\d+, {sampled}, {sampled}", peeling), peeling
    for r in results:
        if r.key.startswith(("sweep-median-", "sweep-classes-")):
            assert r.ours.count("[") == r.ours.count("]") >= 15, r.ours     # one per number
    for r in results:
        if r.figure:
            assert (out / r.figure).stat().st_size > 10_000


def test_class_bounds_are_those_of_their_code():
    """eval.py's own asserts on utilityclasses(10 / 100 / 1000)."""
    assert [class_bounds(k)["GREAT"] for k in (10, 100, 1000)] == [(1, 11), (10, 110),
                                                                   (100, 1100)]
    assert [class_bounds(k)["GOOD"] for k in (10, 100, 1000)] == [(1, 15), (1, 150),
                                                                  (10, 1500)]


@pytest.mark.parametrize("eps", [0.3, 2.0])
def test_peeling_top_probability_is_the_pmf_of_the_top_set(eps):
    k = 3
    mechanism = make_topk_mechanism("peel-em", eps, k, monotonic=True)
    order = np.argsort(-Q, kind="stable")
    top_set = set(order[:k].tolist())
    pmf = mechanism.pmf(Q)
    expected = sum(p for s, p in zip(outcomes(Q.size, k).tolist(), pmf) if set(s) == top_set)
    got = peeling_top_probability(Q[order], k, mechanism.exponent)
    assert got == pytest.approx(expected, abs=1e-10)


@pytest.mark.parametrize("k", [1, 3])
def test_canonical_class_probabilities_sum_the_subset_pmf(k):
    mechanism = make_topk_mechanism("canonical-lipschitz", 0.7, k, monotonic=True)
    rank = np.argsort(np.argsort(-Q, kind="stable"))
    expected = np.zeros(3)
    for subset, p in zip(itertools.combinations(range(Q.size), k), mechanism.subset_pmf(Q)):
        expected += p * np.array(_classes_by_loop(rank[list(subset)], k))
    got = canonical_class_probabilities(-np.sort(-Q), k, mechanism.exponent)
    assert np.allclose(got, expected, rtol=1e-12, atol=1e-15)


def test_class_probabilities_of_draws_are_the_loop_definition():
    draws = np.array([np.random.default_rng(i).permutation(12)[:4] for i in range(300)])
    draws[:40] = np.arange(4)            # some TOP sets
    expected = np.mean([_classes_by_loop(row, 4) for row in draws], axis=0)
    assert np.allclose(class_probabilities_of_draws(draws, 4), expected)
