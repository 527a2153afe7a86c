"""Report-noisy-max with i.i.d. Gaussian noise: the exact pmf and log-pmf against independent
references.

References: the 50-digit mpmath quadrature of :mod:`optmech.selection.gaussian_reference`
(itself checked here against the two-candidate closed form ``Phi(-g / sqrt 2)`` and ties);
mpmath's ``ncdf`` at 50 digits for the two-candidate log-probabilities at gaps up to 1e150
scales; the general quadrature of :mod:`optmech.selection.noisy_max` (a second method: a
panel edge at every score); exact invariances (shift, unit, permutation).
"""

from __future__ import annotations

import math
from functools import lru_cache

import mpmath as mp
import numpy as np
import pytest

from optmech.selection.gaussian_noisy_max import (
    gaussian_hazard,
    gaussian_log_cdf,
    gaussian_log_hazard,
    gaussian_noisy_max_logpmf,
    gaussian_noisy_max_pmf,
)
from optmech.selection.gaussian_reference import gaussian_log_pmf_mp
from optmech.selection.mechanisms import GaussianNoisyMax
from optmech.selection.noisy_max import noisy_max_pmf
from optmech.validation import InvalidArgumentError

# Vectors of 2 to 5 scores: spread, far below (probabilities down to 1e-176 and 1e-900 in log
# space), ties, a near tie; each with its noise scale.
CASES = [
    ((0.0, -1.0, -3.0), 1.0),
    ((0.0, -0.5, -3.0, -7.0, -1.2), 2.0),
    ((0.0, -40.0), 1.0),
    ((0.0, 0.0, 0.0, -45.0), 1.0),
    ((0.0, -1e-3, -30.0, -30.5), 1.0),
    ((3.0, -8.0, -15.0, -11.0, -20.0), 0.7),
    ((0.0, -12.0, -60.0), 0.3),
    ((5.0, 5.0, 2.0, 2.0, -1.0), 3.0),
]


@lru_cache(maxsize=None)
def reference(scores: tuple, sigma: float) -> tuple:
    """The 50-digit log-pmf, rounded to doubles."""
    return tuple(float(v) for v in gaussian_log_pmf_mp([repr(s) for s in scores], repr(sigma)))


def test_reference_matches_the_two_candidate_closed_form_and_ties():
    with mp.workdps(60):
        for gap in (0, 1, 5, 40, 300):
            logs = gaussian_log_pmf_mp(["0", str(-gap)])
            exact = mp.log(mp.ncdf(-mp.mpf(gap) / mp.sqrt(2)))
            assert abs(logs[1] - exact) <= mp.mpf(10) ** -45 * abs(exact)
            assert abs(logs[0] - mp.log(mp.ncdf(mp.mpf(gap) / mp.sqrt(2)))) <= mp.mpf(10) ** -45
        for value in gaussian_log_pmf_mp(["0"] * 4):
            assert abs(value + mp.log(4)) <= mp.mpf(10) ** -45


@pytest.mark.parametrize(("scores", "sigma"), CASES)
def test_pmf_matches_fifty_digits(scores, sigma):
    ours = gaussian_noisy_max_pmf(np.array(scores), sigma)
    for p, log_ref in zip(ours, reference(scores, sigma)):
        exact = math.exp(log_ref)
        if exact > 1e-200:
            # 1e-14, plus the rounding of log G at the integrand's mode (|log p| ulps)
            assert abs(p - exact) <= (1e-14 + 4e-16 * abs(log_ref)) * exact, (scores, p, exact)
        else:
            assert p <= 1e-240
    assert abs(ours.sum() - 1.0) <= 1e-14


@pytest.mark.parametrize(("scores", "sigma"), CASES)
def test_logpmf_matches_fifty_digits_within_its_stated_error(scores, sigma):
    mechanism = GaussianNoisyMax(sigma)
    ours = mechanism.logpmf(np.array(scores))
    bound = mechanism.logpmf_error(ours)
    exact = np.array(reference(scores, sigma))
    error = np.abs(ours - exact)
    assert np.isfinite(ours).all()
    # the stated bound holds with a margin (as for the other mechanisms: two thirds)
    assert (error <= bound * 2 / 3).all(), (scores, error, bound)


@pytest.mark.parametrize("gap", [30.0, 100.0, 1e3, 1e5, 5e8, 1e12, 1e150])
def test_two_candidate_log_probabilities_at_far_gaps(gap):
    logs = gaussian_noisy_max_logpmf(np.array([0.0, -gap]), 1.0)
    with mp.workdps(50):
        exact = float(mp.log(mp.ncdf(-mp.mpf(gap) / mp.sqrt(2))))
    assert abs(logs[1] - exact) <= 4e-16 * abs(exact) + 1e-13, (logs[1], exact)
    assert logs[0] == pytest.approx(math.log1p(-math.exp(exact)), abs=1e-300)


def test_log_probabilities_beyond_the_double_range_are_minus_infinity():
    assert gaussian_noisy_max_logpmf(np.array([0.0, -3e154]), 1.0)[1] == -math.inf
    assert gaussian_noisy_max_logpmf(np.array([1e308, -1e308]), 1.0).tolist() == [0.0, -math.inf]
    # just inside: -g^2/4 = -1.69e308 is a double
    assert gaussian_noisy_max_logpmf(np.array([0.0, -2.6e154]), 1.0)[1] == pytest.approx(
        -(2.6e154 / 2) ** 2, rel=1e-12)


def test_logpmf_of_a_far_level_among_many_candidates():
    # two at the top, one at -1e9: its integrand's mode is at -1e9/3 (three factors)
    logs = gaussian_noisy_max_logpmf(np.array([0.0, 0.0, -1e9, -1e9 - 1.0]), 1.0)
    assert logs[2] == pytest.approx(-3e18 / 9 * 1.0, rel=1e-8)
    assert logs[3] < logs[2]


def test_agrees_with_the_general_quadrature():
    rng = np.random.default_rng(3)
    for _ in range(40):
        q = rng.normal(0.0, 4.0, int(rng.integers(2, 30)))
        scale = float(rng.uniform(0.3, 3.0))
        np.testing.assert_allclose(gaussian_noisy_max_pmf(q, scale),
                                   noisy_max_pmf(q, scale, "gaussian"), rtol=0, atol=2e-15)


def test_shift_unit_and_permutation_invariance():
    rng = np.random.default_rng(5)
    q = rng.normal(0.0, 3.0, 40)
    base = gaussian_noisy_max_pmf(q, 1.5)
    for power in (-3, 0, 4):
        moved = q * 2.0 ** power + 1e3 * 2.0 ** power
        np.testing.assert_allclose(gaussian_noisy_max_pmf(moved, 1.5 * 2.0 ** power), base,
                                   rtol=1e-13, atol=1e-16)
    perm = rng.permutation(q.size)
    np.testing.assert_array_equal(gaussian_noisy_max_pmf(q[perm], 1.5), base[perm])


def test_large_inputs_sum_to_one():
    rng = np.random.default_rng(0)
    for q in (np.zeros(10**5), rng.integers(0, 1000, 10**5).astype(float),
              rng.normal(0.0, 3.0, 2000), np.arange(1e4)):
        probs = gaussian_noisy_max_pmf(q, 2.0)
        assert abs(probs.sum() - 1.0) <= 1e-13
        assert (probs >= 0).all()
    assert (gaussian_noisy_max_pmf(np.zeros(10**5), 1.0) == 1e-5).all()


def test_single_candidate_and_bad_input():
    assert gaussian_noisy_max_pmf([7.0], 1.0).tolist() == [1.0]
    for scale in (0.0, -1.0, math.inf, math.nan):
        with pytest.raises(InvalidArgumentError, match="scale"):
            gaussian_noisy_max_pmf([0.0, 1.0], scale)
    with pytest.raises(InvalidArgumentError, match="scores"):
        gaussian_noisy_max_pmf([0.0, math.inf], 1.0)


def test_log_cdf_and_hazard_against_mpmath():
    z = np.concatenate([-np.geomspace(1e-3, 1e5, 40), [0.0], np.geomspace(1e-3, 38.0, 40)])
    log_cdf, hazard, log_hazard = gaussian_log_cdf(z), gaussian_hazard(z), gaussian_log_hazard(z)
    with mp.workdps(50):
        for i, x in enumerate(z):
            cdf = mp.ncdf(mp.mpf(float(x)))
            # log Phi from the upper tail where Phi is near 1 (50 digits of 1 - 1e-64 are 1)
            exact = float(mp.log1p(-mp.ncdf(-mp.mpf(float(x)))) if x > 0 else mp.log(cdf))
            h = mp.npdf(mp.mpf(float(x))) / cdf
            # a few roundings of the value (erfcx, exp, the products, log1p), and e^(-z^2/2)
            # carries the rounding of z^2: relative 2^-53 z^2 / 2 (as z itself, a difference
            # of two doubles, carries 2^-53 |z|)
            squared = 1.2e-16 * float(x) ** 2
            assert abs(log_cdf[i] - exact) <= (1.2e-15 + squared) * abs(exact) + 1e-320, x
            assert abs(log_hazard[i] - float(mp.log(h))) <= 8e-16 * abs(float(mp.log(h))) + 8e-16
            if float(h) > 1e-300:
                assert abs(hazard[i] - float(h)) <= (8e-16 + squared) * float(h)


def test_a_hundred_thousand_candidates_on_eight_levels_against_fifty_digits():
    """n = 10^5 at the size of the brief: one candidate per level from the pmf, against
    ``integral phi(x - y_r) Phi(x - y_r)^(c_r - 1) prod_u Phi(x - y_u)^(c_u) dx`` at 50 digits
    (split at the levels and around the top)."""
    levels = [0.0, -0.3, -1.0, -2.0, -3.5, -6.0, -9.0, -14.0]
    counts = [1, 3, 30, 300, 3000, 30000, 36666, 30000]
    probs = gaussian_noisy_max_pmf(np.repeat(levels, counts), 1.0)
    first = np.cumsum([0, *counts[:-1]])
    with mp.workdps(60):
        ys = [mp.mpf(v) for v in levels]
        points = sorted({-mp.inf, mp.inf, *ys, *(mp.mpf(k) for k in (-40, -20, -10, -5, -2,
                                                                       0, 2, 4, 6, 8, 10, 15))})
        for r, yr in enumerate(ys):
            def integrand(x, r=r, yr=yr):
                value = mp.npdf(x - yr) * mp.ncdf(x - yr) ** (counts[r] - 1)
                for u, yu in enumerate(ys):
                    if u != r:
                        value *= mp.ncdf(x - yu) ** counts[u]
                return value

            exact = float(mp.quad(integrand, points))
            assert abs(probs[first[r]] - exact) <= 1e-14 * exact, (r, probs[first[r]], exact)
