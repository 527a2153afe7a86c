"""M* of the classical secretary problem: threshold, exact and float rank distributions
against enumeration, exact fractions, high-precision sums; the k = 1 erratum; a_k."""

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from optmech.secretary import (
    a_coefficients,
    asymptotic_rank_distribution,
    classical_rule,
    enumerate_rank_distribution,
    rank_distribution,
    rank_distribution_as_printed,
    rank_distribution_exact,
    success_probability,
    threshold,
)
from optmech.validation import InvalidArgumentError


def brute_threshold(n):
    """Smallest t with 1/t + ... + 1/(n-1) <= 1, in exact fractions."""
    total = Fraction(0)
    for t in range(n - 1, 0, -1):
        total += Fraction(1, t)
        if total > 1:
            return t + 1
    return 1


def test_threshold_against_exact_fractions():
    ns = list(range(2, 200)) + [500, 1001, 2718]
    assert [threshold(n) for n in ns] == [brute_threshold(n) for n in ns]
    assert threshold(10) == 4 and threshold(100) == 38


def test_threshold_at_large_n_is_near_n_over_e():
    for n in (10**5, 10**6, 10**9):
        t = threshold(n)
        with mpmath.workdps(50):
            assert mpmath.digamma(n) - mpmath.digamma(t) <= 1 < \
                mpmath.digamma(n) - mpmath.digamma(t - 1)
        assert abs(t - n / math.e) < 2


# n = 8: 8! orders, 5.8 s
@pytest.mark.parametrize("n", [*range(2, 8), pytest.param(8, marks=pytest.mark.slow)])
def test_exact_distribution_equals_enumeration_of_all_arrival_orders(n):
    assert enumerate_rank_distribution(classical_rule(n), exact=True) == \
        rank_distribution_exact(n)


def test_erratum_printed_formula_overcounts_by_the_forced_stop_term():
    for n in (3, 5, 10, 37):
        t = threshold(n)
        printed = rank_distribution_as_printed(n)
        corrected = rank_distribution_exact(n)
        assert sum(corrected) == 1
        assert sum(printed) == 1 + Fraction(t - 1, n * (n - 1))
        assert printed[0] - corrected[0] == Fraction(t - 1, n * (n - 1))
        assert printed[1:] == corrected[1:]
        # the separately printed win probability (t-1)/n sum_{i=t}^{n} 1/(i-1)
        win = Fraction(t - 1, n) * sum(Fraction(1, i - 1) for i in range(t, n + 1))
        assert corrected[0] == win


def test_lemma_3_recurrence_in_fractions_with_the_k1_correction():
    n = 40
    t = threshold(n)
    r = rank_distribution_exact(n)
    assert r[0] - r[1] == Fraction((t - 1) * (n - t), n * (n - 1))
    for k in range(2, n):
        step = Fraction(t - 1, n * k) * Fraction(math.comb(n - t + 1, k), math.comb(n - 1, k))
        assert r[k - 1] - r[k] == step


@pytest.mark.parametrize("n", [2, 3, 7, 50, 300])
def test_float_distribution_matches_exact_fractions(n):
    exact = np.array([float(v) for v in rank_distribution_exact(n)])
    np.testing.assert_allclose(rank_distribution(n), exact, rtol=1e-14, atol=0)


def test_float_distribution_at_one_million_against_long_double_binomial_sums():
    """The paper's binomial sum (Theorem 5.1, corrected), evaluated independently in
    extended precision with the ratio C(n-i, k-1)/C(n-1, k-1) as a product."""
    n = 10**6
    t = threshold(n)
    r = rank_distribution(n)
    assert r.sum() == pytest.approx(1, abs=1e-12)
    assert (np.diff(r) <= 0).all()                         # Corollary 4
    i = np.arange(t, n + 1, dtype=np.longdouble)
    scale = np.longdouble(t - 1) / n
    for k in (1, 2, 3, 6, 25):
        ratio = np.ones_like(i)
        for j in range(k - 1):
            ratio *= (n - i - j) / np.longdouble(n - 1 - j)
        ratio[i > n - k + 1] = 0
        ref = scale * np.sum(ratio / (i - 1)) + (scale / (n - 1) if k >= 2 else 0)
        assert float(r[k - 1]) == pytest.approx(float(ref), rel=1e-12)
    assert r[-1] == pytest.approx((t - 1) / (n * (n - 1)), rel=1e-14)


def test_success_probability_is_r1_and_tends_to_one_over_e():
    for n in (3, 10, 100, 10**4):
        assert success_probability(n) == pytest.approx(rank_distribution(n)[0], rel=1e-14)
    assert success_probability(10**7) == pytest.approx(1 / math.e, abs=1e-7)


def test_a_coefficients_against_mpmath():
    x = 1 - mpmath.exp(-1)
    k = np.array([1, 2, 3, 7, 40])
    got = a_coefficients(k)
    with mpmath.workdps(40):
        for kk, value in zip(k, got):
            ref = mpmath.nsum(lambda s: x**s / s, [int(kk), mpmath.inf])
            assert value == pytest.approx(float(ref), rel=1e-14)
    assert got[0] == pytest.approx(1, rel=1e-15) and got[1] == pytest.approx(1 / math.e, rel=1e-15)


def test_asymptotic_rank_probabilities_theorem_5_2():
    r = rank_distribution(10**6)
    np.testing.assert_allclose(r[:8], asymptotic_rank_distribution(np.arange(1, 9)), atol=3e-6)


@pytest.mark.parametrize("bad", [1, 0, -3, 2.5, "ten", True])
def test_bad_n(bad):
    with pytest.raises(InvalidArgumentError, match="n must be"):
        rank_distribution(bad)
    with pytest.raises(InvalidArgumentError, match="n must be"):
        threshold(bad)
