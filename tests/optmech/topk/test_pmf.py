"""Exact pmfs of the top-T mechanisms against 50-digit brute-force references
(tests/optmech/topk/references.py), the T = 1 reductions to the selection mechanisms, and
the bookkeeping (batches, logs, sets)."""

import itertools
import math

import numpy as np
import pytest

from optmech.selection.mechanisms import ExponentialMechanism, PermuteAndFlip
from optmech.topk import TOPK_MECHANISMS, make_topk_mechanism, outcomes
from tests.optmech.topk.references import reference_pmf

# a vector with a tie, a near-tie and a far candidate, and one with integer counts
VECTORS = [(0.0, -0.4, 1.3, 1.3, -2.0), (3.0, 1.0, 2.0, 0.0)]
# (joint PF's reference at 60 tuples of 30 distinct utilities would need 2^30 terms of the
# alternating sum: that case is left out)
CASES = [(name, q, top, monotonic) for name in TOPK_MECHANISMS for q in VECTORS
         for top in (2, 3) for monotonic in (False, True)
         if not (name == "joint-pf" and q == VECTORS[0] and top == 3)]


@pytest.mark.parametrize("name, q, top, monotonic", CASES)
def test_pmf_matches_the_brute_force_reference(name, q, top, monotonic):
    mechanism = make_topk_mechanism(name, 1.7, top, 0.8, monotonic)
    reference = reference_pmf(name, q, top, mechanism.exponent)
    expected = np.array([float(reference[tuple(s)]) for s in outcomes(len(q), top)])
    pmf = mechanism.pmf(np.array(q))
    assert np.abs(pmf - expected).max() < 1e-13
    assert abs(pmf.sum() - 1) < 1e-12
    assert np.abs(mechanism.logpmf(np.array(q)) - np.log(expected)).max() < 1e-12


def test_gumbel_has_the_pmf_of_peeling_em():
    q = np.array(VECTORS[0])
    for monotonic in (False, True):
        gumbel = make_topk_mechanism("gumbel", 0.9, 3, 1.0, monotonic)
        peel = make_topk_mechanism("peel-em", 0.9, 3, 1.0, monotonic)
        assert np.array_equal(gumbel.pmf(q), peel.pmf(q))


@pytest.mark.parametrize("name", TOPK_MECHANISMS)
@pytest.mark.parametrize("monotonic", [False, True])
def test_top_one_is_the_selection_mechanism(name, monotonic):
    """T = 1: peel-em, gumbel, joint-em and canonical-lipschitz are EM; peel-pf and
    joint-pf are PF, with the same epsilon, sensitivity and relation (to 1e-12)."""
    q = np.array([0.3, -1.2, 2.5, 2.5, 0.0, -7.0])
    selection = (PermuteAndFlip if name.endswith("pf") else ExponentialMechanism)(
        1.3, 0.7, monotonic)
    topk = make_topk_mechanism(name, 1.3, 1, 0.7, monotonic)
    assert np.abs(topk.pmf(q) - selection.pmf(q)).max() < 1e-12
    assert np.abs(topk.logpmf(q) - selection.logpmf(q)).max() < 1e-12


@pytest.mark.parametrize("name", TOPK_MECHANISMS)
def test_a_batch_row_equals_the_single_call(name):
    rows = np.array([[0.0, 1.0, 2.0, 3.0], [5.0, 5.0, 0.0, 1.0], [0.1, 0.2, 0.3, 0.4]])
    mechanism = make_topk_mechanism(name, 2.0, 2)
    batch = mechanism.pmf(rows)
    assert batch.shape == (3, 12)
    for row, probabilities in zip(rows, batch):
        assert np.allclose(probabilities, mechanism.pmf(row), rtol=1e-14, atol=0)
    assert np.allclose(mechanism.expected_error(rows), [mechanism.expected_error(r)
                                                       for r in rows], rtol=1e-14)


@pytest.mark.parametrize("name", TOPK_MECHANISMS)
def test_subset_pmf_sums_the_orders(name):
    q = np.array(VECTORS[0])
    mechanism = make_topk_mechanism(name, 1.1, 3, monotonic=True)
    ordered = dict(zip(map(tuple, outcomes(5, 3)), mechanism.pmf(q)))
    sets = mechanism.subset_pmf(q)
    for subset, probability in zip(itertools.combinations(range(5), 3), sets):
        total = sum(ordered[s] for s in itertools.permutations(subset))
        assert probability == pytest.approx(total, rel=1e-13)


def test_the_canonical_mechanism_spreads_a_set_over_its_orders():
    q = np.array(VECTORS[1])
    mechanism = make_topk_mechanism("canonical-lipschitz", 1.0, 3)
    by_set = {}
    for s, p in zip(map(tuple, outcomes(4, 3)), mechanism.pmf(q)):
        by_set.setdefault(tuple(sorted(s)), []).append(p)
    assert all(np.ptp(p) < 1e-17 and len(p) == math.factorial(3) for p in by_set.values())


def test_logpmf_stays_finite_where_the_pmf_underflows():
    q = np.array([0.0, 500.0, 1000.0, 1000.5])
    for name in TOPK_MECHANISMS:
        mechanism = make_topk_mechanism(name, 10.0, 2)
        pmf, logpmf = mechanism.pmf(q), mechanism.logpmf(q)
        assert (pmf == 0).any() and np.isfinite(logpmf).all(), name
        live = pmf > 1e-300
        assert np.allclose(logpmf[live], np.log(pmf[live]), rtol=1e-12, atol=1e-12)
