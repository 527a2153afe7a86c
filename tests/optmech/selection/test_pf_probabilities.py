"""Permute-and-flip probabilities against independent high-precision references."""

import itertools
import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest

from optmech.selection.pf_probabilities import MAX_NODES, pf_probabilities

EXPONENT = 0.65  # epsilon = 1.3, sensitivity = 1


def coin_probabilities(scores, exponent, dps):
    with mp.workdps(dps):
        top = max(scores)
        return [mp.exp(mp.mpf(exponent) * (mp.mpf(s) - mp.mpf(top))) for s in scores]


def by_enumeration(scores, exponent):
    """Algorithm 1 literally: average over all n! orders of the chance to stop at r (50 digits)."""
    with mp.workdps(50):
        p = coin_probabilities(scores, exponent, 50)
        n = len(p)
        probs = [mp.mpf(0)] * n
        for order in itertools.permutations(range(n)):
            survive = mp.mpf(1)
            for r in order:
                probs[r] += survive * p[r]
                survive *= 1 - p[r]
        return [x / math.factorial(n) for x in probs]


def by_polynomial_coefficients(scores, exponent):
    """``p_r * sum_k e_k(-p_{-r}) / (k + 1)`` from polynomial algebra in binary fixed point.

    This is the alternating-sign form (the paper's Lemma 2 / Appendix E) that loses digits in
    floating point. Here every number is an integer multiple of ``2**-bits``, each product
    rounded down by at most one unit. The coefficients of ``prod_s (1 - p_s t)`` are bounded by
    ``prod_s (1 + p_s) <= 2**n`` and an error grows by the same factor, so the result is off by
    at most ``n**2 * 2**n`` units; ``bits = n + 2 log2(n) + 100`` leaves an absolute error below
    ``2**-100``. (Python integers instead of 600-digit mpmath numbers: 20x less CPU; both
    agreed to 1e-150 at n = 400.)
    """
    n = len(scores)
    bits = n + 2 * n.bit_length() + 100
    dps = int(bits * math.log10(2)) + 20
    with mp.workdps(dps):
        p = [int(mp.floor(mp.ldexp(x, bits))) for x in coin_probabilities(scores, exponent, dps)]
    full = [1 << bits]  # coefficients of prod_s (1 - p_s t)
    for ps in p:
        full = [a - ((ps * b) >> bits) for a, b in zip(full + [0], [0] + full)]
    out = []
    for pr in p:
        # divide by (1 - p_r t): c_k = a_k + p_r c_{k-1}, and integrate t^k over [0, 1]
        carry = total = 0
        for k, a in enumerate(full[:-1]):
            carry = a + ((pr * carry) >> bits)
            total += carry // (k + 1)
        out.append(Fraction(pr * total, 1 << (2 * bits)))
    return out


def assert_close(ours, reference, atol):
    diff = max(abs(float(a) - float(b)) for a, b in zip(ours, reference))
    assert diff <= atol, diff


@pytest.mark.parametrize("scores", [
    [0.0, -1.0, -3.0],
    [0.0, 0.0, -1.0, -2.5],
    [2.0, 2.0, 2.0],
    [0.0, -0.3, -0.3, -7.0, 4.0, 1.0],
])
def test_matches_algorithm_1_by_enumerating_orders(scores):
    assert_close(pf_probabilities(np.array(scores), EXPONENT), by_enumeration(scores, EXPONENT),
                 1e-15)


@pytest.mark.parametrize("n, spread", [(10, 1.0), (60, 5.0), (200, 0.2), (200, 30.0)])
def test_exact_gauss_rule_against_mpmath(n, spread):
    scores = np.random.default_rng(n).normal(size=n) * spread
    probs = pf_probabilities(scores, EXPONENT)
    assert_close(probs, by_polynomial_coefficients(scores.tolist(), EXPONENT), 1e-12)


@pytest.mark.parametrize("spread", [0.05, 3.0])
def test_truncated_rule_for_many_candidates_against_mpmath(spread):
    """n = 400 > 2 * MAX_NODES uses the cut-off interval [0, T] with 96 nodes."""
    n = 400
    assert (n + 1) // 2 > MAX_NODES
    scores = np.random.default_rng(1).normal(size=n) * spread
    probs = pf_probabilities(scores, EXPONENT)
    assert_close(probs, by_polynomial_coefficients(scores.tolist(), EXPONENT), 1e-13)


def test_ties_share_probability_and_sum_to_one():
    scores = np.array([0, -1, -1, -1, 0, -5.0])
    probs = pf_probabilities(scores, 0.5)
    assert probs[0] == probs[4] and probs[1] == probs[2] == probs[3]
    assert abs(probs.sum() - 1) < 1e-14


def test_single_candidate_and_all_equal():
    assert pf_probabilities(np.array([3.0]), 1.0).tolist() == [1.0]
    np.testing.assert_allclose(pf_probabilities(np.zeros(1000), 1.0), 1e-3, rtol=1e-12)


def test_million_candidates_sum_to_one_and_match_a_closed_form_case():
    """n = 10^6 with a two-level vector (one at 0, the rest at c): the closed form is
    Pr[top] = integral_0^1 (1 - p t)^(n-1) dt = (1 - (1 - p)^n) / (n p)."""
    n, c = 10**6, -20.0
    scores = np.full(n, c)
    scores[0] = 0.0
    probs = pf_probabilities(scores, EXPONENT)
    p = math.exp(EXPONENT * c)
    top = -math.expm1(n * math.log1p(-p)) / (n * p)
    assert probs[0] == pytest.approx(top, rel=1e-12)
    assert abs(probs.sum() - 1) < 1e-12


@pytest.mark.parametrize("count", [1, 2, 3, 7, 30, 96, 300])
def test_gauss_legendre_rule_integrates_monomials_exactly(count):
    """The rule (computed without numpy.polynomial) integrates x^j for j <= 2 count - 1
    exactly: closed form 2 / (j + 1) for even j, 0 for odd j; and its nodes agree with
    numpy's leggauss (companion-matrix eigenvalues, a different algorithm)."""
    from optmech.selection.pf_probabilities import _legendre

    x, w = _legendre(count)
    for j in range(2 * count):
        exact = 2.0 / (j + 1) if j % 2 == 0 else 0.0
        assert w @ x ** j == pytest.approx(exact, rel=1e-13, abs=1e-15), j
    reference_x, reference_w = np.polynomial.legendre.leggauss(count)
    assert np.abs(x - reference_x).max() <= 4e-16
    assert np.abs(w - reference_w).max() <= 1e-14
