"""Heterogeneous-sensitivity mechanisms at extreme inputs: a valid pmf, or one clear error.

Properties (hypothesis, derandomised), for every mechanism name: with scores up to
``±1e308``, sensitivities from 1e-300 to 1e300 and epsilon from 1e-300 to 1e300, ``pmf``
either raises :class:`InvalidArgumentError` (input outside the documented range) or an
``ArithmeticError`` (a result that cannot be represented or certified), or returns
probabilities that are finite, non-negative, sum to 1 within 1e-12 and permute with the
candidates; no Python warning escapes; the expected errors are finite and >= 0 or refused;
draws are valid candidates or refused.

References at moderate extremes (where the old code overflowed or lost the answer): GEM
and mGEM against eqn (7) and the permute-and-flip integral evaluated in mpmath at 50
digits; random stopping against the closed forms of separated and point-like candidates
(pgf differences, exact) and against mpmath quadrature of the output density at 20 digits.
"""

from __future__ import annotations

import functools
import math
import warnings

import mpmath as mp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optmech.heterogeneous import (
    MECHANISM_NAMES,
    GeneralisedExponentialMechanism,
    ModifiedGEM,
    RandomStopping,
    check_scores_and_sensitivities,
    gem_scores,
    make_heterogeneous,
)
from optmech.heterogeneous.random_stopping import SUM_TOLERANCE
from optmech.validation import InvalidArgumentError

MAGNITUDES = st.sampled_from([0.0, 1e-300, 1e-12, 1.0, 1e6, 1e16, 1e100, 1e300, 1e308])
SCORES = st.lists(st.one_of(st.floats(-1e3, 1e3, allow_nan=False), MAGNITUDES,
                            MAGNITUDES.map(lambda x: -x)), min_size=1, max_size=6)
SENSITIVITIES = st.one_of(st.floats(1e-3, 1e3),
                          st.sampled_from([1e-300, 1e-100, 1e-10, 1.0, 1e10, 1e100, 1e300]))
EPSILONS = st.one_of(st.floats(1e-3, 1e3),
                     st.sampled_from([1e-300, 1e-9, 0.1, 1.0, 50.0, 700.0, 1e10, 1e300]))
REFUSALS = (InvalidArgumentError, ArithmeticError)
SETTINGS = settings(max_examples=25, deadline=None, derandomize=True, database=None)


def call(method, *args, **kwargs):
    """``method(*args)`` with every warning an error, or None for a clear refusal."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            return method(*args, **kwargs)
        except REFUSALS as error:
            message = str(error)
            assert message and "\n" not in message
            return None


def inputs(data, n):
    q = data.draw(st.lists(SCORES.map(lambda s: s[0]), min_size=n, max_size=n))
    d = data.draw(st.lists(SENSITIVITIES, min_size=n, max_size=n))
    return np.array(q), np.array(d)


@pytest.mark.parametrize("name", MECHANISM_NAMES)
@SETTINGS
@given(n=st.integers(1, 6), eps=EPSILONS, data=st.data(), seed=st.integers(0, 2**32 - 1))
def test_pmf_is_a_distribution_that_permutes_with_the_candidates(name, n, eps, data, seed):
    q, d = inputs(data, n)
    mechanism = make_heterogeneous(name, eps)
    p = call(mechanism.pmf, q, d)
    if p is None:
        return
    assert p.shape == (n,)
    assert np.isfinite(p).all() and (p >= 0).all()
    # Random stopping is a certified quadrature (its documented sum tolerance, 1e-10; about
    # 1e-12 is reached, e.g. scores (0, 0), sensitivities (1, 1), epsilon 487 for the TNB
    # variant); the others are exact up to rounding.
    assert abs(p.sum() - 1.0) <= (SUM_TOLERANCE if name.startswith("rs_") else 1e-12)
    order = np.random.default_rng(seed).permutation(n)
    permuted = call(mechanism.pmf, q[order], d[order])
    assert permuted is not None
    np.testing.assert_allclose(permuted, p[order], rtol=0, atol=1e-12)


@pytest.mark.parametrize("name", MECHANISM_NAMES)
@SETTINGS
@given(n=st.integers(1, 6), eps=EPSILONS, data=st.data())
def test_expected_errors_are_finite_or_refused(name, n, eps, data):
    q, d = inputs(data, n)
    mechanism = make_heterogeneous(name, eps)
    for method in (mechanism.expected_error, mechanism.expected_squared_error):
        value = call(method, q, d)
        if value is not None:
            assert math.isfinite(value) and value >= 0


@pytest.mark.parametrize("name", MECHANISM_NAMES)
@settings(max_examples=15, deadline=None, derandomize=True, database=None)
@given(n=st.integers(1, 6), eps=EPSILONS, data=st.data())
def test_draws_are_candidates_or_refused(name, n, eps, data):
    q, d = inputs(data, n)
    draws = call(make_heterogeneous(name, eps).sample, q, d, size=20, rng=7)
    if draws is not None:
        assert draws.shape == (20,) and ((draws >= 0) & (draws < n)).all()


@pytest.mark.parametrize("bad", [[True, False], [True, 1.0], ["1", "2"], [None, 1.0], [1 + 0j, 1.0],
                                 [[1.0], [2.0]], [1.0, math.inf], [1.0, -1.0]])
def test_sensitivities_are_numbers_not_conversions(bad):
    with pytest.raises(InvalidArgumentError, match="sensitivities"):
        check_scores_and_sensitivities([0.0, 1.0], bad)
    with pytest.raises(InvalidArgumentError, match="sensitivities"):
        make_heterogeneous("gem", 1.0).pmf([0.0, 1.0], bad)


# --- GEM / mGEM against eqn (7) and the PF integral at 50 digits ---------------------------

def gem_reference(q, d, eps, direction, beta=0.05):
    """Eqn (7) by its definition and PF's Pr[r] = p_r ∫_0^1 prod_{s != r}(1 - p_s t) dt with
    log p = (ε/2) q', all in mpmath at 50 digits from the exact decimal inputs."""
    with mp.workdps(50):
        q = [mp.mpf(float(v)) for v in q]      # the doubles the mechanism gets
        d = [mp.mpf(float(v)) for v in d]
        eps, n = mp.mpf(eps), len(q)
        t = direction * 2 * mp.log(n / mp.mpf(beta)) / eps
        transformed = [min(((q[a] - q[b]) - t * (d[a] - d[b])) / (d[a] + d[b]) for b in range(n))
                       for a in range(n)]
        p = [mp.exp(eps / 2 * v) for v in transformed]

        def probability(r):
            rest = [p[s] for s in range(n) if s != r]
            return p[r] * mp.quad(lambda x: mp.fprod(1 - ps * x for ps in rest), [0, 1])
        return np.array([float(probability(r)) for r in range(n)])


GEM_CASES = [
    # ε = 1e-300: t Δ overflows; the answer depends on Δ (and on q at 1e-11)
    (GeneralisedExponentialMechanism, 1e-300, ["1e300", "-1e300", "0", "5"],
     ["1e10", "2e10", "3e10", "1e10"]),
    (ModifiedGEM, 1e-300, ["1e300", "-1e300", "0", "5"], ["1e10", "2e10", "3e10", "1e10"]),
    # ε = 1e300 on subnormal scores: moderate log coins
    (GeneralisedExponentialMechanism, 1e300, ["0", "1e-320", "-3e-320"],
     ["1e-20", "2e-20", "5e-21"]),
    # scores and sensitivities spanning 2^2000: the rescaled pairwise path
    (GeneralisedExponentialMechanism, 1.0, ["0", "1e-300", "1e300", "-1e300"],
     ["1e-300", "2e-300", "1e300", "5e299"]),
    (ModifiedGEM, 1.0, ["0", "1e-300", "1e300", "-1e300"],
     ["1e-300", "2e-300", "1e300", "5e299"]),
    # hull edge slopes near 2^800 (sensitivities 1e-10 next to 1e10 and 1.5e227)
    (GeneralisedExponentialMechanism, 50.0, ["-1e-300", "1.5228330772782411e227", "-1e-300",
                                             "0", "-1e-300"],
     ["1.5228330772782411e227", "1e10", "1e-10", "1e10", "1e10"]),
    (ModifiedGEM, 50.0, ["-1e-300", "1.5228330772782411e227", "-1e-300", "0", "-1e-300"],
     ["1.5228330772782411e227", "1e10", "1e-10", "1e10", "1e10"]),
    # a transformed score below -1.8e308: probability exactly 0
    (GeneralisedExponentialMechanism, 1.0, ["0", "-1e308", "-1e-300"],
     ["1e-300", "1e-300", "1e-300"]),
]


@pytest.mark.parametrize("cls, eps, q, d", GEM_CASES)
def test_gem_against_mpmath_at_extremes(cls, eps, q, d):
    direction = 1 if cls is GeneralisedExponentialMechanism else -1
    got = call(cls(eps).pmf, [float(v) for v in q], [float(v) for v in d])
    np.testing.assert_allclose(got, gem_reference(q, d, eps, direction), rtol=1e-12,
                               atol=1e-15)


def test_gem_scores_refuse_a_transform_beyond_the_double_range():
    with pytest.raises(ArithmeticError, match="GEM scores"):
        call_strict(gem_scores, [0.0, -1e308], [1e-300, 1e-300], 1.0)


def call_strict(method, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return method(*args)


# --- random stopping: closed forms and mpmath quadrature ------------------------------------

def geometric_pgf(x, gamma=0.05):
    return gamma * x / (1 - (1 - gamma) * x)


def tnb0_pgf(x, gamma=0.05):
    return math.log1p(-(1 - gamma) * x) / math.log(gamma)


@pytest.mark.parametrize("eta, pgf", [(None, geometric_pgf), (0.0, tnb0_pgf)])
def test_random_stopping_closed_forms_at_extremes(eta, pgf):
    # Two candidates at 1e300 with noise scale 3e9 (the spacing of doubles there is 1e284):
    # candidate 0 wins exactly when every draw is candidate 0.
    p = call_strict(RandomStopping(1e-9, eta=eta).pmf, [0.0025, 1e300, 1e300], [1.0] * 3)
    np.testing.assert_allclose(p, [pgf(1 / 3), (1 - pgf(1 / 3)) / 2, (1 - pgf(1 / 3)) / 2],
                               rtol=0, atol=1e-12)
    # A point-like candidate (scale 3e-300) against a wide one (3e300) at the same score:
    # the point wins when a draw is it and no draw of the wide one is above it.
    p = call_strict(RandomStopping(1.0, eta=eta).pmf, [0.0, 0.0], [1e-300, 1e300])
    expected = pgf(3 / 4) - pgf(1 / 4)
    np.testing.assert_allclose(p, [expected, 1 - expected], rtol=0, atol=1e-12)
    # 3Δ = 3e308 overflows on the way to the scale 3Δ/ε = 3e298: scores 1 apart are a tie.
    p = call_strict(RandomStopping(1e10, eta=eta).pmf, [0.0, 1.0], [1e308, 1e308])
    np.testing.assert_allclose(p, [0.5, 0.5], rtol=0, atol=1e-12)
    # Identical candidates at scales beyond the double range (3Δ/ε = 3e308): uniform.
    p = call_strict(RandomStopping(1e-300, eta=eta).pmf, [-1e300] * 3, [1e8] * 3)
    np.testing.assert_allclose(p, [1 / 3] * 3, rtol=0, atol=1e-12)


def rs_reference(q, b, gamma=0.05):
    """(1/n) ∫ f_r(v) φ'(G(v)) dv for RS_γ with φ'(x) = γ / (1 - (1-γ)x)^2, by mpmath
    quadrature at 20 digits split at the scores and every 24 scales around them (out to 48
    scales: the mass beyond is below e^-48; splitting every 6 scales agreed to 1e-19 at 3x
    the CPU). The factor φ'(G(v)) / n does not depend on r and is cached: the quadratures
    for the n candidates share their nodes."""
    with mp.workdps(20):
        q = [mp.mpf(float(v)) for v in q]      # the doubles the mechanism gets
        g, n = mp.mpf(gamma), len(q)

        @functools.lru_cache(maxsize=None)
        def stop_density(v):
            cdf = mp.fsum(1 - mp.exp(-(v - qs) / bs) / 2 if v >= qs else mp.exp((v - qs) / bs) / 2
                          for qs, bs in zip(q, b)) / n
            return g / (1 - (1 - g) * cdf) ** 2 / n

        points = sorted({qs + k * bs for qs, bs in zip(q, b) for k in range(-48, 49, 24)})

        def density(v, r):
            return mp.exp(-abs(v - q[r]) / b[r]) / (2 * b[r]) * stop_density(v)

        return np.array([float(mp.quad(lambda v, r=r: density(v, r), points))
                         for r in range(n)])


@pytest.mark.parametrize("eps, q, d", [
    # Laplace scales 3Δ/ε of 3e308 to 9e308: beyond the double range
    (1e-300, ["0.3e308", "-0.5e308", "1.1e308"], ["1e8", "2e8", "3e8"]),
    # scales of 3e-310 to 9e-310 (subnormal) on subnormal scores
    (1e300, ["0.3e-309", "-0.5e-309", "1.1e-309"], ["1e-10", "2e-10", "3e-10"]),
])
def test_random_stopping_against_mpmath_at_extremes(eps, q, d):
    got = call_strict(RandomStopping(eps).pmf, [float(v) for v in q], [float(v) for v in d])
    with mp.workdps(20):
        b = [mp.mpf(float(v)) * 3 / mp.mpf(eps) for v in d]
    np.testing.assert_allclose(got, rs_reference(q, b), rtol=1e-11, atol=1e-14)
