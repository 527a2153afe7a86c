"""RNMH, GEM, mGEM, combined GEM, RNM at the global sensitivity and uniform selection:
exact probabilities against independent references, privacy, sampling, bad input."""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from optmech.heterogeneous import (
    MECHANISM_NAMES,
    CombinedGEM,
    GeneralisedExponentialMechanism,
    GlobalNoisyMax,
    HeterogeneousNoisyMax,
    ModifiedGEM,
    UniformChoice,
    gem_scores,
    make_heterogeneous,
    spearman_correlation,
)
from optmech.selection.mechanisms import PermuteAndFlip
from optmech.selection.privacy import realised_epsilon
from optmech.validation import InvalidArgumentError
from tests.stats_helpers import chi_square_pvalue


def permute_and_flip_by_enumeration(scores, exponent):
    """PF by its definition: visit in a uniformly random order, accept r with probability
    p_r; the first pass that accepts decides (every order, exact up to rounding)."""
    q = np.asarray(scores, float)
    p = np.exp(exponent * (q - q.max()))
    n = q.size
    out = np.zeros(n)
    for order in itertools.permutations(range(n)):
        survive = 1.0
        for r in order:
            out[r] += survive * p[r]
            survive *= 1 - p[r]
    return out / out.sum()  # a full pass fails with prob. prod(1 - p) = 0 (max has p = 1)


@pytest.fixture
def instance():
    rng = np.random.default_rng(21)
    return rng.normal(size=5) * 2, rng.uniform(0.3, 2.5, 5)


# --- RNMH ---------------------------------------------------------------------------------

@pytest.mark.parametrize("eps", [0.1, 1.0, 4.0])
def test_rnmh_counterexample(eps):
    """Section IV-A: Pr[candidate 0] is 0 under D and 1 - e^{-eps/4} under D'."""
    mech = HeterogeneousNoisyMax(eps)
    assert mech.pmf([0.0, 0.5], [0.0, 1.0])[0] == 0.0
    assert mech.pmf([0.0, -0.5], [0.0, 1.0])[0] == pytest.approx(-math.expm1(-eps / 4),
                                                                 abs=1e-12)
    check = realised_epsilon(lambda q: mech.pmf(q, [0.0, 1.0]), [0.0, 0.5],
                             sensitivity=[0.0, 1.0])
    assert math.isinf(check.epsilon)
    assert mech.privacy is None and mech.guarantee([0.0, 1.0]) is None
    assert "not differentially private" in mech.privacy_note


@pytest.mark.parametrize("k", [2, 3, 5])
def test_rnmh_laplace_appendix_a_attains_k_minus_one(k):
    eps = 0.7
    mech = HeterogeneousNoisyMax(eps, noise="laplace")
    d = [0.0] + [1.0] * (k - 1)
    p1 = mech.pmf([0.0] * k, d)[0]
    p2 = mech.pmf([0.0] + [1.0] * (k - 1), d)[0]
    assert p1 == pytest.approx(0.5 ** (k - 1), rel=1e-12)
    assert p2 == pytest.approx((0.5 * math.exp(-eps)) ** (k - 1), rel=1e-10)
    assert mech.guarantee(d).epsilon == pytest.approx((k - 1) * eps)
    assert math.log(p1 / p2) == pytest.approx(mech.guarantee(d).epsilon, rel=1e-10)


def test_rnmh_laplace_exceeds_k_minus_one_with_positive_sensitivities():
    """k = 2, Δ = (1, 1): the loss tends to 2ε, more than the (k-1)ε the paper states; the
    stated guarantee mε (m = 2 nonzero sensitivities) covers it."""
    eps = 1.0
    mech = HeterogeneousNoisyMax(eps, noise="laplace")
    losses = [realised_epsilon(lambda q: mech.pmf(q, [1.0, 1.0]), [0.0, gap],
                               neighbours=[[-1.0, gap + 1.0]]).epsilon for gap in (0, 5, 20)]
    assert losses[0] > eps and np.all(np.diff(losses) > 0)
    assert losses[-1] == pytest.approx(1.9129886, abs=1e-6)
    assert max(losses) <= mech.guarantee([1.0, 1.0]).epsilon == 2 * eps
    assert mech.privacy is None


def test_rnmh_two_candidate_formula_section_5a():
    eps, q = 0.3, [0.0, 1.5]
    for d1, d2 in [(1.0, 2.0), (2.0, 0.5)]:
        closed = math.exp(-eps / (2 * d1) * 1.5) / (1 + d2 / d1)
        assert HeterogeneousNoisyMax(eps).pmf(q, [d1, d2])[0] == pytest.approx(closed, abs=1e-12)


def test_rnmh_sampling_splits_noiseless_ties(instance):
    """Two noiseless candidates tied at the top: the pmf splits them, so must sampling."""
    q, d = np.array([1.0, 1.0, 0.0, 0.5]), np.array([0.0, 0.0, 1.0, 2.0])
    mech = HeterogeneousNoisyMax(2.0, noise="laplace")
    probs = mech.pmf(q, d)
    assert probs[0] == pytest.approx(probs[1], abs=1e-15)
    draws = mech.sample(q, d, size=40_000, rng=np.random.default_rng(3))
    assert chi_square_pvalue(draws, probs) > 1e-4


@pytest.mark.parametrize("noise", ["exponential", "laplace"])
def test_rnmh_sampling_matches_pmf(instance, noise):
    q, d = instance
    mech = HeterogeneousNoisyMax(1.3, noise=noise)
    draws = mech.sample(q, d, size=40_000, rng=np.random.default_rng(4))
    assert chi_square_pvalue(draws, mech.pmf(q, d)) > 1e-4


# --- GEM, mGEM, combined GEM ----------------------------------------------------------------

@pytest.mark.parametrize("cls, sign", [(GeneralisedExponentialMechanism, 1),
                                       (ModifiedGEM, -1)])
def test_gem_pmf_is_permute_and_flip_on_transformed_scores(instance, cls, sign):
    q, d = instance
    eps = 0.8
    mech = cls(eps)
    t = sign * 2 * math.log(q.size / 0.05) / eps
    assert mech.shift(q.size) == pytest.approx(t, rel=1e-15)
    reference = permute_and_flip_by_enumeration(gem_scores(q, d, t), eps / 2)
    np.testing.assert_allclose(mech.pmf(q, d), reference, atol=1e-13)
    assert mech.expected_error(q, d) == pytest.approx(reference @ (q.max() - q), abs=1e-12)
    assert mech.expected_squared_error(q, d) == pytest.approx(
        reference @ (q.max() - q) ** 2, abs=1e-12)


def test_gem_two_candidates_favours_the_wrong_one_section_5a():
    """Δ1 < Δ2 with q1 < q2 and small ε: GEM prefers candidate 1 (Section V-A)."""
    q, d = [0.0, 1.0], [0.5, 2.0]
    assert GeneralisedExponentialMechanism(0.5).pmf(q, d)[0] > 0.5
    assert ModifiedGEM(0.5).pmf(q, d)[1] > 0.5


def test_explicit_t_overrides_default(instance):
    q, d = instance
    mech = GeneralisedExponentialMechanism(1.0, t=0.25)
    np.testing.assert_allclose(mech.pmf(q, d), PermuteAndFlip(1.0).pmf(gem_scores(q, d, 0.25)),
                               atol=1e-15)


@pytest.mark.parametrize("cls", [GeneralisedExponentialMechanism, ModifiedGEM])
def test_gem_sample_delegates_to_permute_and_flip(instance, cls):
    """Same seed, same draws as PF on q'; extra keyword options reach PF's sample."""
    q, d = instance
    mech = cls(1.1)
    ours = mech.sample(q, d, size=500, rng=np.random.default_rng(9))
    theirs = PermuteAndFlip(1.1).sample(mech.transformed_scores(q, d), size=500,
                                        rng=np.random.default_rng(9))
    assert np.array_equal(ours, theirs)
    with pytest.raises(TypeError, match="not_an_option"):
        mech.sample(q, d, size=3, rng=np.random.default_rng(0), not_an_option=True)
    assert isinstance(mech.sample(q, d, rng=np.random.default_rng(1)), int)


@pytest.mark.parametrize("cls", [GeneralisedExponentialMechanism, ModifiedGEM])
def test_gem_sample_passes_exact_through(instance, cls):
    """PermuteAndFlip.sample(..., exact=True) (exact rational sampler) is reached as is."""
    q, d = instance
    mech = cls(1.1)
    ours = mech.sample(q, d, size=40, rng=np.random.default_rng(9), exact=True)
    theirs = PermuteAndFlip(1.1).sample(mech.transformed_scores(q, d), size=40,
                                        rng=np.random.default_rng(9), exact=True)
    assert np.array_equal(ours, theirs)


def test_spearman_correlation():
    assert spearman_correlation([1, 2, 3, 4], [10, 20, 30, 45]) == pytest.approx(1.0)
    assert spearman_correlation([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert spearman_correlation([1, 1, 1], [1, 2, 3]) == 0.0
    # ties get average ranks: ranks (1.5, 1.5, 3) and (1, 2, 3)
    assert spearman_correlation([5, 5, 9], [1, 2, 3]) == pytest.approx(math.sqrt(3) / 2)


@pytest.mark.parametrize("sign", [1, -1])
def test_combined_gem_is_the_randomised_response_mixture(instance, sign):
    q, _ = instance
    d = np.argsort(np.argsort(sign * q)) + 1.0        # sensitivities ranked like ±q
    eps, eps_c = 2.0, 0.5
    mech = CombinedGEM(eps, epsilon_c=eps_c)
    truthful = math.exp(eps_c) / (1 + math.exp(eps_c))
    p_modified = truthful if sign > 0 else 1 - truthful
    assert mech.modified_probability(q, d) == pytest.approx(p_modified)
    expected = p_modified * ModifiedGEM(eps - eps_c).pmf(q, d) + \
        (1 - p_modified) * GeneralisedExponentialMechanism(eps - eps_c).pmf(q, d)
    np.testing.assert_allclose(mech.pmf(q, d), expected, atol=1e-15)
    draws = mech.sample(q, d, size=40_000, rng=np.random.default_rng(2))
    assert chi_square_pvalue(draws, expected) > 1e-4
    exact = mech.sample(q, d, size=4_000, rng=np.random.default_rng(3), exact=True)
    assert chi_square_pvalue(exact, expected) > 1e-4


def test_combined_gem_default_budget_split():
    mech = CombinedGEM(1.0)
    assert mech.epsilon_c == pytest.approx(0.6)
    assert mech.gem.epsilon == pytest.approx(0.4) and mech.mgem.epsilon == pytest.approx(0.4)
    assert mech.privacy.epsilon == 1.0


# --- privacy of the DP mechanisms ---------------------------------------------------------

@pytest.mark.parametrize("name", [n for n in MECHANISM_NAMES if n != "uniform"])
def test_realised_privacy_loss_within_budget(name):
    rng = np.random.default_rng(8)
    q, d = rng.normal(size=3), rng.uniform(0.3, 2.0, 3)
    mech = make_heterogeneous(name, 0.9)
    check = realised_epsilon(lambda s: mech.pmf(s, d), q, sensitivity=d, levels=3,
                             rng=np.random.default_rng(0))
    assert check.satisfies(mech.privacy.epsilon), (name, check.epsilon)


def test_global_noisy_max_is_pf_at_max_sensitivity(instance):
    q, d = instance
    np.testing.assert_allclose(GlobalNoisyMax(1.2).pmf(q, d),
                               PermuteAndFlip(1.2, d.max()).pmf(q), rtol=0, atol=0)


def test_uniform():
    mech = UniformChoice()
    assert mech.pmf([1.0, 2.0, 3.0], [1, 1, 1]).tolist() == [1 / 3] * 3
    assert mech.privacy.epsilon == 0.0


# --- bad input ----------------------------------------------------------------------------

@pytest.mark.parametrize("build, argument", [
    (lambda: GeneralisedExponentialMechanism(0.0), "epsilon"),
    (lambda: GeneralisedExponentialMechanism(1.0, beta=1.5), "beta"),
    (lambda: GeneralisedExponentialMechanism(1.0, t=math.inf), "t"),
    (lambda: CombinedGEM(1.0, epsilon_c=1.0), "epsilon_c"),
    (lambda: CombinedGEM(1.0, epsilon_c=2.0), "epsilon_c"),
    (lambda: CombinedGEM(1.0, epsilon_c=-0.1), "epsilon_c"),
    (lambda: HeterogeneousNoisyMax(1.0, noise="gumbel"), "noise"),
    (lambda: make_heterogeneous("rnmh", 1.0), "mechanism"),
])
def test_bad_parameters(build, argument):
    with pytest.raises(InvalidArgumentError) as info:
        build()
    assert info.value.argument == argument


@pytest.mark.parametrize("name", MECHANISM_NAMES)
@pytest.mark.parametrize("sensitivities", [[1.0, 0.0], [1.0, -1.0], [1.0], [1.0, 1.0, 1.0]])
def test_bad_sensitivities(name, sensitivities):
    with pytest.raises(InvalidArgumentError) as info:
        make_heterogeneous(name, 1.0).pmf([0.0, 1.0], sensitivities)
    assert info.value.argument == "sensitivities"


def test_rnmh_allows_zero_but_not_negative():
    mech = HeterogeneousNoisyMax(1.0)
    assert mech.pmf([0.0, 1.0], [0.0, 0.0]).tolist() == [0.0, 1.0]
    with pytest.raises(InvalidArgumentError):
        mech.pmf([0.0, 1.0], [0.0, -1.0])


@pytest.mark.parametrize("make", [
    lambda eps: GlobalNoisyMax(eps),
    lambda eps: GeneralisedExponentialMechanism(eps),
    lambda eps: ModifiedGEM(eps),
    lambda eps: CombinedGEM(eps),
    lambda eps: CombinedGEM(eps, epsilon_c=Fraction(1, 30)),
], ids=["rnm", "gem", "mgem", "combined_gem", "combined_gem eps_c"])
def test_exact_sampling_keeps_fraction_parameters_exact(monkeypatch, make):
    """Fraction budgets (and, for RNM, Fraction scores and sensitivities) reach the exact
    samplers unrounded: every argument the exact PF sampler and the randomised-response
    coin receive is an int or a Fraction."""
    import optmech.heterogeneous.gem as gem_module
    import optmech.selection.exact.sampling as sampling_module

    received = []

    def exact_pf(scores, epsilon, sensitivity, monotonic, count, rng):
        received.append(("pf", epsilon, sensitivity))
        if isinstance(make(Fraction(1, 10)), GlobalNoisyMax):
            received.extend(("score", s, None) for s in scores)
        return np.zeros(count, dtype=np.int64)

    def exact_coin(epsilon, count, rng):
        received.append(("coin", epsilon, None))
        return np.ones(count, dtype=bool)

    monkeypatch.setattr(sampling_module, "permute_and_flip_exact", exact_pf)
    monkeypatch.setattr(gem_module, "bernoulli_logistic", exact_coin)
    scores = [Fraction(1, 3), Fraction(-2, 3), 2]
    sensitivities = [Fraction(1, 2), 1, Fraction(3, 4)]
    make(Fraction(1, 10)).sample(scores, sensitivities, size=5, exact=True)
    assert received
    for kind, value, other in received:
        assert type(value) in (int, Fraction), (kind, value)
        assert other is None or type(other) in (int, Fraction), (kind, other)
    budgets = {value for kind, value, _ in received if kind == "pf"}
    if isinstance(make(Fraction(1, 10)), CombinedGEM):
        assert budgets <= {Fraction(1, 10) - Fraction(3, 50), Fraction(1, 10) - Fraction(1, 30)}
    else:
        assert budgets == {Fraction(1, 10)}


@pytest.mark.parametrize("name", ["gem", "mgem", "combined_gem"])
def test_gem_logpmf_is_finite_where_the_pmf_underflows(name):
    """logpmf: the log of pmf where that is a normal double (within its stated error), and
    finite where the probability underflows (eps = 700, a candidate 10 below the top:
    about e^-1750), from PF's log form on the transformed scores; the top from the others
    (-5e-229, not log(1 + 2.2e-16) > 0); the mixture of combined GEM by log-add-exp."""
    sensitivities = [1.0, 2.0, 1.0]
    ordinary = make_heterogeneous(name, 1.0)
    logs = ordinary.logpmf([0.0, -3.0, -10.0], sensitivities)
    direct = np.log(ordinary.pmf([0.0, -3.0, -10.0], sensitivities))
    assert (np.abs(logs - direct) <= ordinary.logpmf_error(logs) + 4e-16).all()
    far = make_heterogeneous(name, 700.0)
    logs = far.logpmf([0.0, -3.0, -10.0], [1.0, 1.0, 1.0])
    assert np.isfinite(logs).all() and (logs <= 0).all() and logs[2] < -700
    assert -1e-60 < logs[0] < 0.0
