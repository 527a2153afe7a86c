"""Report-noisy-max probabilities by quadrature, against mpmath and the closed forms."""

import functools

import mpmath as mp
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optmech.selection.laplace_noisy_max import laplace_noisy_max_pmf
from optmech.selection.noisy_max import noisy_max_pmf
from optmech.selection.pf_probabilities import pf_probabilities
from optmech.validation import InvalidArgumentError


def standard(noise):
    """Standard cdf and pdf in mpmath."""
    if noise == "laplace":
        cdf = lambda y: mp.exp(y) / 2 if y < 0 else 1 - mp.exp(-y) / 2  # noqa: E731
        pdf = lambda y: mp.exp(-abs(y)) / 2  # noqa: E731
    elif noise == "exponential":
        cdf = lambda y: mp.mpf(0) if y <= 0 else -mp.expm1(-y)  # noqa: E731
        pdf = lambda y: mp.mpf(0) if y <= 0 else mp.exp(-y)  # noqa: E731
    else:
        cdf = lambda y: mp.exp(-mp.exp(-y))  # noqa: E731
        pdf = lambda y: mp.exp(-y - mp.exp(-y))  # noqa: E731
    return cdf, pdf


def reference(scores, scales, noise):
    """Direct tanh-sinh quadrature of the argmax integral at 30 digits, split at the scores.
    The quadratures for the n candidates share their nodes, so the n cdfs at a node are
    computed once (cached) and reused for every candidate."""
    cdf, pdf = standard(noise)
    q = [mp.mpf(float(v)) for v in scores]
    b = [mp.mpf(float(v)) for v in scales]
    lo, hi = min(q) - 60 * max(b), max(q) + 60 * max(b)
    points = [lo] + sorted(set(q)) + [hi]
    out = []
    with mp.workdps(30):
        @functools.lru_cache(maxsize=None)
        def cdfs(x):
            return [cdf((x - qs) / bs) for qs, bs in zip(q, b)]

        for r in range(len(q)):
            def integrand(x, r=r):
                rest = mp.fprod(c for s, c in enumerate(cdfs(x)) if s != r)
                return pdf((x - q[r]) / b[r]) / b[r] * rest
            out.append(mp.quad(integrand, points))
    return np.array([float(v) for v in out])


@pytest.mark.parametrize("noise", ["laplace", "exponential", "gumbel"])
@pytest.mark.parametrize("n", [2, 3, 5])
def test_heterogeneous_scales_against_mpmath(noise, n):
    rng = np.random.default_rng(10 * n + len(noise))
    scores = rng.normal(size=n) * 2
    scales = rng.uniform(0.4, 2.5, size=n)
    np.testing.assert_allclose(noisy_max_pmf(scores, scales, noise),
                               reference(scores, scales, noise), atol=1e-12)


def test_laplace_with_ties_against_mpmath():
    scores = np.array([0.0, 0.0, -1.0, -1.0, -4.0])
    np.testing.assert_allclose(noisy_max_pmf(scores, 1.5, "laplace"),
                               reference(scores, [1.5] * 5, "laplace"), atol=1e-12)


def test_exponential_noise_is_permute_and_flip():
    """RNM with Exp(scale 2Δ/ε) noise equals PF (integral form) to quadrature accuracy."""
    scores = np.random.default_rng(0).normal(size=300) * 4
    np.testing.assert_allclose(noisy_max_pmf(scores, 2 / 1.3, "exponential"),
                               pf_probabilities(scores, 1.3 / 2), atol=1e-13)


def test_gumbel_noise_is_the_exponential_mechanism():
    scores = np.random.default_rng(1).normal(size=300) * 4
    weights = np.exp(0.65 * (scores - scores.max()))
    np.testing.assert_allclose(noisy_max_pmf(scores, 1 / 0.65, "gumbel"),
                               weights / weights.sum(), atol=1e-13)


def test_point_mass_candidates():
    """A noiseless candidate at 0 against Exp(2/ε) noise on a score of -1/2: the noisy
    candidate wins with probability e^{-ε/4} (the heterogeneous-sensitivities paper's
    RNMH example, ε = 1)."""
    probs = noisy_max_pmf([0.0, -0.5], [0.0, 2.0], "exponential")
    np.testing.assert_allclose(probs, [1 - np.exp(-0.25), np.exp(-0.25)], atol=1e-15)
    # Two noiseless candidates tied at the top share their probability.
    probs = noisy_max_pmf([1.0, 1.0, 0.0], [0.0, 0.0, 1.0], "laplace")
    assert probs[0] == probs[1]
    np.testing.assert_allclose(probs[2], np.exp(-1) / 2, atol=1e-15)


def test_single_candidate_and_bad_input():
    assert noisy_max_pmf([3.0], 1.0).tolist() == [1.0]
    with pytest.raises(InvalidArgumentError, match="scales"):
        noisy_max_pmf([0.0, 1.0], [-1.0, 1.0])
    with pytest.raises(InvalidArgumentError, match="noise"):
        noisy_max_pmf([0.0, 1.0], 1.0, "cauchy")


@pytest.mark.parametrize("noise", ["laplace", "exponential", "gumbel"])
def test_translation_and_unit_invariance(noise):
    """Scores on a grid of 1/8 shifted by +-1e9 (exact) and scaled by powers of two: the
    same probabilities to rounding (the general path works on (q - max q) / max b)."""
    rng = np.random.default_rng(4)
    q = np.round(rng.normal(size=6) * 16) / 8
    b = rng.uniform(0.5, 2.0, size=6)
    base = noisy_max_pmf(q, b, noise)
    for shift in (1e9, -1e9):
        np.testing.assert_allclose(noisy_max_pmf(q + shift, b, noise), base, rtol=0, atol=1e-15)
    for power in (-1000, 1000):
        np.testing.assert_allclose(noisy_max_pmf(q * 2.0 ** power, b * 2.0 ** power, noise),
                                   base, rtol=0, atol=1e-15)


def test_ties_near_1e9_and_gaps_of_1e6():
    """Inputs that raised IntegrationError before: two tied scores near 1e9 (the window sat
    at 1e9, nodes off by 1e-7) and a candidate 10^6 scales down (the window reached it)."""
    np.testing.assert_allclose(noisy_max_pmf([1e9, 1e9], 2.0), [0.5, 0.5], rtol=0, atol=1e-15)
    probs = noisy_max_pmf([0.0, -1e6, -0.5], [2.0, 1.0, 1.5])
    assert probs[1] == 0.0 and abs(probs.sum() - 1) <= 1e-12
    np.testing.assert_allclose(probs[[0, 2]], noisy_max_pmf([0.0, -0.5], [2.0, 1.5]),
                               rtol=0, atol=1e-14)


def test_extreme_magnitudes():
    """Scores at +-1e308 with scale 1e308: a gap of 2 scales, Pr[lower] = e^-2 (2 + 2) / 4;
    scales 1e-300 and 1e300 on unit gaps: the argmax and (nearly) uniform."""
    probs = noisy_max_pmf([1e308, -1e308], [1e308, 1e308])
    np.testing.assert_allclose(probs, [1 - np.exp(-2.0), np.exp(-2.0)], rtol=1e-13)
    np.testing.assert_allclose(noisy_max_pmf([0.0, -1.0, -2.0], 1e-300), [1.0, 0.0, 0.0],
                               rtol=0, atol=1e-15)
    np.testing.assert_allclose(noisy_max_pmf([0.0, -1.0, -2.0], 1e300), [1 / 3] * 3,
                               rtol=1e-12)


def test_scales_too_far_apart_raise_instead_of_answering():
    from optmech.selection.noisy_max import IntegrationError

    with pytest.raises(IntegrationError, match="scales differ"):
        noisy_max_pmf([0.0, -1.0], [1.0, 1e-6])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(st.floats(-1e308, 1e308), st.floats(-3, 3),
                          st.sampled_from([0.0, 1e9, -1e9, 1e308, -1e308])),
                min_size=1, max_size=12),
       st.floats(-300, 300).map(lambda e: 10.0 ** e),
       st.lists(st.floats(0.5, 2.0), min_size=12, max_size=12),
       st.sampled_from(["laplace", "exponential", "gumbel"]))
def test_extreme_inputs_give_a_pmf(scores, scale, factors, noise):
    """Scores up to +-1e308, scales from 1e-300 to 1e300 (one, or within a factor 4 of
    each other): finite, >= 0, sums to 1 within 1e-12; with one Laplace scale it agrees
    with the fast i.i.d. path (a second method) to 1e-13."""
    q = np.array(scores)
    scales = scale * np.array(factors[:q.size])
    for b in (scale, scales):
        probs = noisy_max_pmf(q, b, noise)
        assert np.isfinite(probs).all() and (probs >= 0).all()
        assert abs(probs.sum() - 1) <= 1e-12
    if noise == "laplace":
        np.testing.assert_allclose(noisy_max_pmf(q, scale), laplace_noisy_max_pmf(q, scale),
                                   rtol=0, atol=1e-13)
