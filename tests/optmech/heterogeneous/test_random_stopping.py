"""RS_γ and its truncated-negative-binomial variant: the stopping laws, the exact output
distribution (mpmath quadrature, a noiseless closed form, Monte Carlo of the algorithm)."""

import functools
import math

import mpmath as mp
import numpy as np
import pytest

from optmech.heterogeneous import RandomStopping, StoppingDistribution, random_stopping_pmf
from optmech.validation import InvalidArgumentError
from tests.stats_helpers import chi_square_pvalue

LAWS = [(0.05, None), (0.3, None), (0.05, 0.0), (0.2, -0.5), (0.05, 2.5)]


def mp_pgf(x, g, eta):
    """φ(x) = E[x^K], the pgf of the stopping time K (Appendix C)."""
    if eta is None:                      # geometric: φ(x) = γx / (1 - (1-γ)x)
        return g * x / (1 - (1 - g) * x)
    e = mp.mpf(eta)
    if e == 0:                           # logarithmic: φ(x) = log(1 - (1-γ)x) / log γ
        return mp.log(1 - (1 - g) * x) / mp.log(g)
    return ((1 - (1 - g) * x) ** (-e) - 1) / (g ** (-e) - 1)


def mp_pgf_derivative(x, g, eta):
    """φ'(x) of ``mp_pgf``, differentiated by hand (``mp.diff`` inside the quadrature cost 2x
    the CPU); ``test_pgf_derivative_by_hand`` checks it against ``mp.diff``."""
    if eta is None:
        return g / (1 - (1 - g) * x) ** 2
    e = mp.mpf(eta)
    if e == 0:
        return -(1 - g) / ((1 - (1 - g) * x) * mp.log(g))
    return e * (1 - g) * (1 - (1 - g) * x) ** (-e - 1) / (g ** (-e) - 1)


def mp_reference(q, b, gamma, eta):
    """(1/n) ∫ f_r(v) φ'(G(v)) dv by tanh-sinh quadrature at 20 digits, split at the scores
    and every 25 scales around them (splitting every 5 scales agreed to 1e-21 at 5x the CPU);
    φ' from the pgf of K written out independently. The factor φ'(G(v)) / n does not depend
    on r and is cached: the quadratures for the n candidates share their nodes."""
    with mp.workdps(20):
        q = [mp.mpf(float(v)) for v in q]
        b = [mp.mpf(float(v)) for v in b]
        g, n = mp.mpf(gamma), len(q)

        @functools.lru_cache(maxsize=None)
        def stop_density(v):
            survival = mp.fsum(mp.exp(-(v - qs) / bs) / 2 if v >= qs
                               else 1 - mp.exp((v - qs) / bs) / 2 for qs, bs in zip(q, b)) / n
            return mp_pgf_derivative(1 - survival, g, eta) / n

        span = 60 * max(b)
        points = sorted({v for qs, bs in zip(q, b) for v in
                         [qs + k * bs for k in range(-50, 51, 25)]} |
                        {min(q) - span, max(q) + span})
        out = []
        for r in range(n):
            def integrand(v, r=r):
                return mp.exp(-abs(v - q[r]) / b[r]) / (2 * b[r]) * stop_density(v)
            out.append(mp.quad(integrand, points))
    return np.array([float(v) for v in out])


PMF_LAWS = [(0.05, None), (0.3, 0.0), (0.1, -0.5), (0.05, 2.5)]


@pytest.mark.parametrize("gamma, eta", PMF_LAWS)
def test_pgf_derivative_by_hand(gamma, eta):
    """The hand-written φ' of ``mp_reference`` against numerical differentiation of φ."""
    with mp.workdps(20):
        g = mp.mpf(gamma)
        for x in (0, 0.3, 0.9, 1):
            numerical = mp.diff(lambda y: mp_pgf(y, g, eta), x)
            assert mp.almosteq(mp_pgf_derivative(mp.mpf(x), g, eta), numerical, 1e-15)


@pytest.mark.parametrize("gamma, eta", PMF_LAWS)
def test_pmf_against_mpmath(gamma, eta):
    rng = np.random.default_rng(int(gamma * 100) + (0 if eta is None else int(10 * eta) + 50))
    q, b = rng.normal(size=3) * 2, rng.uniform(0.3, 2.5, 3)
    got = random_stopping_pmf(q, b, StoppingDistribution(gamma, eta))
    np.testing.assert_allclose(got, mp_reference(q, b, gamma, eta), rtol=1e-11, atol=1e-14)


@pytest.mark.parametrize("gamma, eta", LAWS)
def test_noiseless_limit_is_the_pgf_difference(gamma, eta):
    """Scores far apart relative to the noise: the output is the best of K uniform draws,
    Pr[rank j] = φ(j/n) - φ((j-1)/n), with φ the pgf of K (a sum over k, independently)."""
    law = StoppingDistribution(gamma, eta)
    n = 6
    k = np.arange(1, 20_000)
    weights = law.pmf(k)

    def pgf(x):
        return float(weights @ np.power(x, k))

    ranks = np.arange(1, n + 1)
    expected = np.array([pgf(j / n) - pgf((j - 1) / n) for j in ranks])
    got = random_stopping_pmf(np.arange(n, dtype=float), np.full(n, 1e-3), law)
    np.testing.assert_allclose(got, expected, atol=1e-12)


def test_gamma_one_is_uniform_and_identical_candidates_are_uniform():
    q, b = np.array([0.0, 3.0, -1.0]), np.array([0.5, 1.0, 2.0])
    np.testing.assert_allclose(random_stopping_pmf(q, b, StoppingDistribution(1.0)),
                               np.full(3, 1 / 3), atol=1e-14)
    np.testing.assert_allclose(random_stopping_pmf(np.zeros(4), np.ones(4),
                                                   StoppingDistribution(0.05, 0.0)),
                               np.full(4, 0.25), atol=1e-14)


def test_tnb_with_eta_one_is_rs_gamma():
    rng = np.random.default_rng(4)
    q, d = rng.normal(size=7), rng.uniform(0.2, 2, 7)
    np.testing.assert_allclose(RandomStopping(0.7, 0.05, eta=1.0).pmf(q, d),
                               RandomStopping(0.7, 0.05).pmf(q, d), atol=1e-14)


@pytest.mark.parametrize("eta", [None, 0.0])
def test_sampling_the_algorithm_matches_the_pmf(eta):
    rng = np.random.default_rng(6)
    q, d = rng.normal(size=6), rng.uniform(0.2, 2, 6)
    mech = RandomStopping(1.5, 0.1, eta=eta)
    draws = mech.sample(q, d, size=40_000, rng=np.random.default_rng(1))
    assert chi_square_pvalue(draws, mech.pmf(q, d)) > 1e-4


def test_wide_scale_range_and_many_candidates_sum_to_one():
    """100 candidates, sensitivities spanning 70x, small ε and large ε (certified sum)."""
    rng = np.random.default_rng(2)
    q, d = np.log(np.arange(1, 101)), np.sort(rng.uniform(0.026, 1.8, 100))
    for eps in (0.1, 10.0):
        probs = RandomStopping(eps, 0.008).pmf(q, d)
        assert abs(probs.sum() - 1) < 1e-12 and (probs > 0).all()


@pytest.mark.parametrize("gamma, eta", LAWS)
def test_stopping_law(gamma, eta):
    law = StoppingDistribution(gamma, eta)
    k = np.arange(1, 20_000)
    pmf = law.pmf(k)
    assert pmf.sum() == pytest.approx(1.0, abs=1e-12)
    assert k @ pmf == pytest.approx(law.mean(), rel=1e-10)
    draws = law.sample(100_000, np.random.default_rng(3))
    assert draws.min() >= 1
    assert abs(draws.mean() - law.mean()) < 5 * math.sqrt(k ** 2 @ pmf - law.mean() ** 2) / \
        math.sqrt(draws.size)


def test_stopping_law_closed_forms():
    """Appendix C: the printed pmf for η = 0 and a direct product for η = 0.5."""
    gamma = 0.2
    k = np.arange(1, 8)
    np.testing.assert_allclose(StoppingDistribution(gamma, 0.0).pmf(k),
                               (1 - gamma) ** k / (k * math.log(1 / gamma)), rtol=1e-14)
    eta = 0.5
    direct = [(1 - gamma) ** kk / (gamma ** -eta - 1)
              * math.prod((j + eta) / (j + 1) for j in range(kk)) for kk in k]
    np.testing.assert_allclose(StoppingDistribution(gamma, eta).pmf(k), direct, rtol=1e-13)
    np.testing.assert_allclose(StoppingDistribution(gamma).pmf(k),
                               gamma * (1 - gamma) ** (k - 1), rtol=1e-15)


def test_privacy_statements():
    assert RandomStopping(2.0).privacy.epsilon == 2.0
    assert RandomStopping(2.0).scales(np.array([1.0])).tolist() == [1.5]       # 3Δ/ε
    assert RandomStopping(2.0, eta=0.0).scales(np.array([1.0])).tolist() == [1.0]  # (2+η)Δ/ε
    assert "Liu-Talwar" in RandomStopping(1.0).privacy.statement
    assert "Papernot-Steinke" in RandomStopping(1.0, eta=0.0).privacy.statement


@pytest.mark.parametrize("gamma, eta, argument", [
    (0.0, None, "gamma"), (1.5, None, "gamma"), (-0.1, None, "gamma"),
    (1.0, 0.0, "gamma"), (0.05, -1.0, "eta"), (0.05, -3.0, "eta"), (0.05, math.nan, "eta"),
])
def test_bad_parameters(gamma, eta, argument):
    with pytest.raises(InvalidArgumentError) as info:
        RandomStopping(1.0, gamma, eta)
    assert info.value.argument == argument
