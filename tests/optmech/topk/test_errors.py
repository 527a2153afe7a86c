"""Error measures against their definitions written as loops, exact expectations against
the 50-digit references, and the Monte Carlo estimates against the exact values."""

import mpmath
import numpy as np
import pytest

from optmech.topk import MEASURES, TOPK_MECHANISMS, make_topk_mechanism, outcomes
from optmech.topk.utilities import error_rows
from tests.optmech.topk.references import reference_pmf

Q = (4.0, 1.0, 3.0, 3.0, 0.0)


def loop_error(q, s, measure, ordered=True):
    """Gillenwater et al.'s definitions (dp_topk/experiment.py), one output at a time."""
    leaders = sorted(q, reverse=True)[:len(s)]
    chosen = [q[j] for j in s]
    if not ordered:
        chosen = sorted(chosen, reverse=True)
    gaps = [abs(c - x) for c, x in zip(leaders, chosen)]
    return {"l1": sum(gaps), "l_inf": max(gaps),
            "k_relative": max(leaders[-1] - x for x in chosen)}[measure]


@pytest.mark.parametrize("measure", MEASURES)
@pytest.mark.parametrize("ordered", [True, False])
def test_error_rows_are_the_definitions(measure, ordered):
    tuples = outcomes(5, 3)
    got = error_rows(np.array([Q]), tuples, measure, ordered)[0]
    assert got.tolist() == [loop_error(Q, s, measure, ordered) for s in tuples.tolist()]
    assert (got >= 0).all()


def test_l_1_is_the_json_spelling_of_l1():
    mechanism = make_topk_mechanism("joint-em", 1.0, 2)
    assert mechanism.expected_error(Q, "l_1") == mechanism.expected_error(Q, "l1")


@pytest.mark.parametrize("name", TOPK_MECHANISMS)
@pytest.mark.parametrize("measure", MEASURES)
def test_expected_error_is_the_reference_expectation(name, measure):
    mechanism = make_topk_mechanism(name, 1.3, 2, 1.0, True)
    reference = reference_pmf(name, Q, 2, mechanism.exponent)
    expected = mpmath.fsum(p * loop_error(Q, s, measure, mechanism.ordered)
                           for s, p in reference.items())
    assert mechanism.expected_error(np.array(Q), measure) == pytest.approx(float(expected),
                                                                           rel=1e-12)


def test_a_set_is_scored_in_decreasing_order():
    """For the canonical mechanism (it releases a set) the positional errors are those of
    the set's scores sorted; the same expectation from its subset pmf."""
    mechanism = make_topk_mechanism("canonical-lipschitz", 0.8, 3)
    sets = outcomes(5, 3, ordered=False)
    by_set = sum(p * loop_error(Q, s, "l1", ordered=False)
                 for s, p in zip(sets.tolist(), mechanism.subset_pmf(np.array(Q))))
    assert mechanism.expected_error(np.array(Q), "l1") == pytest.approx(by_set, rel=1e-13)


def test_monte_carlo_intervals_cover_the_exact_value():
    """40 independent 95 % intervals (seeds 0..39): at least 33 cover the exact expected
    error (Binomial(40, 0.95) falls below 33 with probability 8e-4)."""
    mechanism = make_topk_mechanism("joint-pf", 1.0, 3)
    exact = mechanism.expected_error(np.array(Q), "l_inf")
    estimates = [mechanism.estimate_error(Q, "l_inf", draws=2000, rng=seed)
                 for seed in range(40)]
    covered = sum(e.interval[0] <= exact <= e.interval[1] for e in estimates)
    assert covered >= 33
    first = estimates[0]
    assert (first.measure, first.draws, first.seed, first.confidence) == ("l_inf", 2000, 0, 0.95)
    assert first.interval[1] - first.interval[0] == pytest.approx(
        2 * 1.959963984540054 * first.standard_error)


def test_an_estimate_is_reproducible_from_its_seed():
    mechanism = make_topk_mechanism("peel-pf", 1.0, 2)
    assert mechanism.estimate_error(Q, "l1", 500, rng=3) == \
        mechanism.estimate_error(Q, "l1", 500, rng=3)
    assert mechanism.estimate_error(Q, "l1", 500, rng=np.random.default_rng(3)).seed is None


def test_k_relative_is_never_negative_and_the_norms_are_ordered():
    q = np.random.default_rng(1).normal(size=6)
    tuples = outcomes(6, 3)
    l1, linf, krel = (error_rows(q[None], tuples, m)[0] for m in ("l1", "l_inf", "k_relative"))
    assert (krel >= 0).all() and (linf <= l1 + 1e-15).all() and (l1 <= 3 * linf + 1e-15).all()
