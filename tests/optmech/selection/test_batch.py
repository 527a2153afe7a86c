"""Batch pmf, logpmf and expected_error over 2-D arrays of score vectors.

Every row must equal the 1-D call on that vector (1e-15 relative), and the rows must agree
with independent references: 50-digit mpmath softmax for EM, the PF integral expanded as a
polynomial in 400-digit mpmath arithmetic (and, at n <= 6, Algorithm 1 run over every
order).
"""

import math

import mpmath as mp
import numpy as np
import pytest

from optmech.selection.mechanisms import (
    ExponentialMechanism,
    PermuteAndFlip,
    PmfMechanism,
    RandomizedResponse,
    ReportNoisyMax,
    UniformSelection,
)
from optmech.selection.pf_probabilities import BATCH_MAX
from optmech.validation import InvalidArgumentError
from tests.optmech.selection.test_pf_probabilities import (
    by_enumeration,
    by_polynomial_coefficients,
)

MECHANISMS = [
    PermuteAndFlip(1.3), PermuteAndFlip(0.4, sensitivity=2.0, monotonic=True),
    ExponentialMechanism(1.3), ReportNoisyMax(1.3, noise="exponential"),
    ReportNoisyMax(1.3, noise="gumbel"), RandomizedResponse(1.3), UniformSelection(),
    PmfMechanism(lambda q: np.exp(q - q.max()) / np.exp(q - q.max()).sum(), epsilon=2.0),
]


def batch(rows: int, n: int, seed: int = 0) -> np.ndarray:
    """Rows of very different spreads (so PF needs different node counts) and ties."""
    rng = np.random.default_rng(seed)
    spreads = np.geomspace(0.01, 100.0, rows)[:, None]
    scores = np.round(rng.normal(size=(rows, n)) * spreads, 1)
    scores[0] = 0.0                                          # every candidate tied
    return scores


def assert_rows_equal(batched, single, rtol=1e-15):
    single = np.asarray(single)
    assert batched.shape == single.shape
    scale = np.maximum(np.abs(single), np.finfo(float).tiny)
    both_inf = np.isneginf(batched) & np.isneginf(single)
    assert np.all(both_inf | (np.abs(batched - single) <= rtol * scale))


@pytest.mark.parametrize("mechanism", MECHANISMS, ids=[type(m).__name__ for m in MECHANISMS])
@pytest.mark.parametrize("n", [1, 2, 7, 60, 200, 300])
def test_every_row_equals_the_one_dimensional_call(mechanism, n):
    scores = batch(12, n)
    assert_rows_equal(mechanism.pmf(scores), [mechanism.pmf(q) for q in scores])
    assert_rows_equal(mechanism.logpmf(scores), [mechanism.logpmf(q) for q in scores])
    assert_rows_equal(mechanism.expected_error(scores),
                      [mechanism.expected_error(q) for q in scores])


def test_rnm_laplace_batches_row_by_row():
    rnm = ReportNoisyMax(1.0)
    scores = batch(3, 5)
    assert_rows_equal(rnm.pmf(scores), [rnm.pmf(q) for q in scores])


def test_pf_rows_beyond_the_kernel_size_use_the_grouped_rule_per_row():
    scores = np.round(np.random.default_rng(3).normal(size=(2, BATCH_MAX + 10)), 2)
    pf = PermuteAndFlip(1.0)
    assert_rows_equal(pf.pmf(scores), [pf.pmf(q) for q in scores])
    assert np.abs(pf.pmf(scores).sum(axis=1) - 1).max() < 1e-12


@pytest.mark.parametrize("n, rows", [(3, 6), (12, 8), (40, 6),
                                     pytest.param(200, 4, marks=pytest.mark.slow)])   # 6.9 s
def test_pf_batch_against_the_polynomial_form_in_400_digits(n, rows):
    exponent = 0.65                                           # epsilon = 1.3
    scores = batch(rows, n, seed=n)
    probs = PermuteAndFlip(1.3).pmf(scores)
    for q, p in zip(scores, probs):
        reference = by_polynomial_coefficients(q.tolist(), exponent)
        assert max(abs(float(a) - float(b)) for a, b in zip(p, reference)) < 1e-13


def test_pf_batch_against_algorithm_1_over_every_order():
    scores = np.array([[0.0, -1.0, -3.0, -0.5, 2.0, 2.0], [1.0, 1.0, 1.0, 0.0, -7.0, 0.3]])
    for q, p in zip(scores, PermuteAndFlip(1.3).pmf(scores)):
        reference = by_enumeration(q.tolist(), 0.65)
        assert max(abs(float(a) - float(b)) for a, b in zip(p, reference)) < 1e-15


def test_em_batch_and_its_errors_against_mpmath():
    scores = batch(6, 30, seed=5)
    em = ExponentialMechanism(1.3)
    probs, errors = em.pmf(scores), em.expected_error(scores)
    with mp.workdps(50):
        for q, p, err in zip(scores, probs, errors):
            w = [mp.exp(mp.mpf(0.65) * (mp.mpf(float(v)) - mp.mpf(float(q.max())))) for v in q]
            total = mp.fsum(w)
            reference = [x / total for x in w]
            # rounding: the exponent 0.65 (q_r - q*) carries a relative error of a few ulps,
            # so exp() a relative error of about |exponent| ulps; the sum about n ulps
            for a, b, v in zip(p, reference, q):
                bound = 2.0 ** -52 * (0.65 * abs(v - q.max()) + q.size + 2)
                assert abs(float(a) / float(b) - 1) <= bound
            expected = mp.fsum(r * (mp.mpf(float(q.max())) - mp.mpf(float(v)))
                               for r, v in zip(reference, q))
            assert err == pytest.approx(float(expected), rel=1e-13, abs=1e-300)


def test_batch_shapes_and_one_score_per_vector():
    pf = PermuteAndFlip(1.0)
    assert pf.pmf([[0.0, -1.0]]).shape == (1, 2)
    assert pf.pmf(np.zeros((4, 1))).tolist() == [[1.0]] * 4
    assert pf.expected_error([[0.0, -1.0], [0.0, 0.0]]).shape == (2,)
    assert pf.expected_error([[0.0, 0.0]])[0] == 0.0
    assert isinstance(pf.expected_error([0.0, -1.0]), float)


@pytest.mark.parametrize("bad", [[[[0.0]]], [[0.0, 1.0], [0.0]], np.zeros((0, 3)),
                                 np.zeros((2, 0)), [[0.0, math.nan]], [[True, 1.0]]])
def test_bad_batches_are_refused_naming_the_argument(bad):
    with pytest.raises(InvalidArgumentError) as info:
        PermuteAndFlip(1.0).pmf(bad)
    assert info.value.argument == "scores"
