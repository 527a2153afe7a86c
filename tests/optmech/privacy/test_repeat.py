"""Repeat-and-select (optmech.privacy.repeat): the law of the best of K runs against 50-digit
mpmath (the generating function differenced at raised precision), against exact enumeration
of every sequence of runs for a fixed K, and its sampler against the pmf by a chi-square
test; the combinator on mechanisms (public quality order, ⊥) and its bad input."""

import itertools
import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
from scipy import stats

from optmech.privacy.loss import loss_distribution
from optmech.privacy.repeat import (
    RepeatAndSelect,
    Repetitions,
    check_pmf_pair,
    repeated_log_pmf_mp,
    repeated_pair,
)
from optmech.selection.mechanisms import PmfMechanism, make_mechanism
from optmech.validation import InvalidArgumentError

LAWS = ["poisson:10", "poisson:0.5", "poisson:1000", "negbin:0,0.02", "negbin:0.5,0.1",
        "negbin:-0.5,0.3", "negbin:3,0.01", "negbin:50,0.5", "geometric:0.1",
        "geometric:1e-6", "geometric:1", "fixed:1", "fixed:3", "fixed:50"]


def _close_in_log(value: float, reference, what) -> None:
    """A log-probability within 1e-12 relative of the probability (``|Δ log| <= 1e-12``),
    or, beyond the double range of probabilities, 1e-15 relative of the logarithm."""
    reference = float(reference)
    tolerance = max(1e-12, 1e-15 * abs(reference))
    assert abs(value - reference) <= tolerance, (what, value, reference)


def _pmfs(rng, count):
    """Random pmfs on 1..6 outputs, a third with one mass scaled down to 1e-5 .. 1e-300."""
    for trial in range(count):
        m = int(rng.integers(1, 7))
        p = rng.dirichlet(np.ones(m) * rng.choice([0.1, 1.0, 5.0]))
        if trial % 3 == 0:
            p[rng.integers(m)] *= 10.0 ** -int(rng.integers(5, 300))
            p /= p.sum()
        yield p


@pytest.mark.parametrize("law", LAWS)
def test_pmf_of_the_best_against_50_digit_mpmath(law):
    rng = np.random.default_rng(abs(hash(law)) % 2 ** 32)
    repetitions = Repetitions.parse(law)
    for p in _pmfs(rng, 12):
        got = repetitions.log_best(np.log(p))
        reference = repeated_log_pmf_mp([mp.mpf(float(v)) for v in p], law)
        assert len(got) == len(reference) == p.size + repetitions.extra_outputs
        for j, (a, b) in enumerate(zip(got, reference)):
            _close_in_log(a, b, (law, p.tolist(), j))
        assert np.exp(got).sum() == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("law", ["poisson:10", "negbin:0,0.02", "negbin:2,0.05",
                                 "geometric:0.1", "fixed:7"])
def test_masses_far_below_the_double_range_keep_their_digits(law):
    """A base log-pmf of -800 and -1200 (probabilities 1e-348, 1e-521): the best's log-pmf
    against mpmath given the same masses exactly."""
    log_p = np.array([-800.0, math.log1p(-math.exp(-5)), -1200.0, -5.0])
    masses = [mp.exp(mp.mpf(v)) for v in log_p]
    masses[1] = 1 - masses[0] - masses[2] - masses[3]
    log_p[1] = float(mp.log(masses[1]))
    got = Repetitions.parse(law).log_best(log_p)
    reference = repeated_log_pmf_mp(masses, law)
    for j, (a, b) in enumerate(zip(got, reference)):
        _close_in_log(a, b, (law, j))


@pytest.mark.parametrize("k", [1, 2, 3, 4])
@pytest.mark.parametrize("m", [2, 3, 4])
def test_fixed_k_is_the_enumeration_of_every_sequence_of_runs(k, m):
    """All m^k sequences of k runs, each output's exact probability, the best kept."""
    weights = [Fraction(r + 1, m * (m + 1) // 2) for r in range(m)]      # 1, 2, .. m
    best = [Fraction(0)] * m
    for runs in itertools.product(range(m), repeat=k):
        mass = Fraction(1)
        for r in runs:
            mass *= weights[r]
        best[max(runs)] += mass
    got = np.exp(Repetitions.fixed(k).log_best(np.log([float(w) for w in weights])))
    np.testing.assert_allclose(got, [float(b) for b in best], rtol=1e-14)


def test_the_law_of_k_against_its_own_series():
    """``pmf``, ``mean`` and ``pgf`` of each law agree: ``G(x) = sum_k Pr[K=k] x^k`` and
    ``E[K] = sum_k k Pr[K=k]`` (series to 4000 terms), ``Pr[⊥] = G(0)``."""
    k = np.arange(0, 4000)
    for law in ["poisson:10", "negbin:0,0.02", "negbin:0.5,0.1", "negbin:-0.5,0.3",
                "geometric:0.1", "fixed:3"]:
        r = Repetitions.parse(law)
        pmf = r.pmf(k)
        assert pmf.sum() == pytest.approx(1.0, abs=1e-12), law
        assert (k * pmf).sum() == pytest.approx(r.mean, rel=1e-10), law
        for x in (0.0, 0.3, 0.9, 1.0):
            assert (pmf * x ** k).sum() == pytest.approx(float(r.pgf(x)), abs=1e-12), law
        assert r.zero_mass == pytest.approx(float(r.pgf(0.0)), abs=1e-300)
    assert Repetitions.negbin_with_mean(0.0, 10.0).mean == pytest.approx(10.0, rel=1e-12)


def test_one_run_is_the_base_and_k_zero_is_bottom():
    p = np.array([0.2, 0.5, 0.3])
    for law in ("fixed:1", "geometric:1"):
        np.testing.assert_allclose(np.exp(Repetitions.parse(law).log_best(np.log(p))), p,
                                   rtol=1e-15)
    out = np.exp(Repetitions.poisson(2.0).log_best(np.log(p)))
    assert out.size == 4 and out[-1] == pytest.approx(math.exp(-2.0), rel=1e-15)


def _chi_square(observed: np.ndarray, expected: np.ndarray) -> float:
    """The p-value of a chi-square test, cells with fewer than 5 expected draws merged."""
    keep = expected >= 5
    obs = np.append(observed[keep], observed[~keep].sum())
    exp = np.append(expected[keep], expected[~keep].sum())
    if exp[-1] == 0:
        obs, exp = obs[:-1], exp[:-1]
    return stats.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue


@pytest.mark.parametrize("law", ["poisson:3", "negbin:0,0.1", "negbin:0.5,0.2",
                                 "negbin:-0.5,0.05", "geometric:0.25", "fixed:4"])
def test_sampler_matches_the_pmf_by_chi_square(law):
    """20,000 draws (seed 0): the chi-square p-value is far above 1e-6 (a fixed seed, so the
    test is deterministic; a wrong law of K or a wrong 'best' fails it by orders of
    magnitude at this sample size)."""
    draws = 20_000
    pair = RepeatAndSelect(([0.1, 0.3, 0.2, 0.4], [0.2, 0.2, 0.3, 0.3]), law)
    for x in (0, 1):
        sample = pair.sample(x, size=draws, rng=0)
        expected = pair.pmf(x) * draws
        assert _chi_square(np.bincount(sample, minlength=expected.size), expected) > 1e-6
    mechanism = RepeatAndSelect(make_mechanism("pf", 1.0), law, quality=[0.0, 2.0, 1.0])
    scores = np.array([0.0, -1.0, -0.5])
    sample = mechanism.sample(scores, size=draws, rng=1)
    expected = mechanism.pmf(scores) * draws
    assert _chi_square(np.bincount(sample, minlength=expected.size), expected) > 1e-6


def test_a_mechanism_base_ranks_by_its_public_quality():
    pf = make_mechanism("pf", 1.0)
    scores = np.array([0.0, -1.0, -0.5, -2.0])
    quality = [5.0, 1.0, 5.0, 0.0]          # order worst to best: 3, 1, 0, 2 (tie: 2 > 0)
    law = Repetitions.geometric(0.2)
    got = RepeatAndSelect(pf, law, quality).logpmf(scores)
    order = [3, 1, 0, 2]
    expected = np.empty(4)
    expected[order] = law.log_best(pf.logpmf(scores)[order])
    np.testing.assert_allclose(got, expected, rtol=1e-15)
    by_index = RepeatAndSelect(pf, law).logpmf(scores)
    np.testing.assert_allclose(by_index, law.log_best(pf.logpmf(scores)), rtol=1e-15)
    batch = RepeatAndSelect(pf, law, quality).logpmf(np.stack([scores, scores + 1]))
    np.testing.assert_allclose(batch[0], got, rtol=1e-15)


def test_poisson_puts_bottom_last_through_the_privacy_area():
    repeated = RepeatAndSelect(make_mechanism("em", 1.0), "poisson:2")
    pair = loss_distribution(repeated, [0.0, -1.0, -1.0], [1.0, -2.0, 0.0])
    assert pair.log_p.size == 4 and pair.log_p[-1] == pair.log_q[-1] == -2.0
    assert pair.records()[-1]["score"] is None
    assert repeated.loss_distribution([0.0, -1.0, -1.0], [1.0, -2.0, 0.0]).log_p.size == 4


def test_repeated_pair_is_both_pmfs_repeated():
    p, q = [0.5, 0.3, 0.2], [0.4, 0.3, 0.3]
    pair = repeated_pair(p, q, "negbin:0,0.05")
    law = Repetitions.parse("negbin:0,0.05")
    np.testing.assert_allclose(pair.log_p, law.log_best(np.log(p)), rtol=1e-15)
    np.testing.assert_allclose(pair.log_q, law.log_best(np.log(q)), rtol=1e-15)
    repeated = RepeatAndSelect((p, q), law)
    np.testing.assert_allclose(repeated.logpmf(1), pair.log_q, rtol=1e-15)
    assert repeated.epsilon == pytest.approx(math.log(0.3 / 0.2), rel=1e-15)   # the largest


@pytest.mark.parametrize("spec, allowed", [
    ("poisson:0", "MU > 0"), ("poisson:-1", "MU > 0"), ("poisson:nan", "poisson:MU"),
    ("geometric:0", "(0, 1]"), ("geometric:1.5", "(0, 1]"), ("negbin:-1,0.5", "ETA > -1"),
    ("negbin:0,1", "GAMMA in (0, 1)"), ("negbin:0,0", "GAMMA in (0, 1)"), ("fixed:0", ">= 1"),
    ("fixed:2.5", "fixed:K"), ("binomial:3", "poisson:MU"), ("poisson", "poisson:MU"),
    ("negbin:1", "poisson:MU")])
def test_bad_laws_are_refused_naming_the_argument(spec, allowed):
    with pytest.raises(InvalidArgumentError, match=r"repeat must be .*") as error:
        Repetitions.parse(spec)
    assert allowed in str(error.value)


def test_bad_pmf_pairs_and_qualities_are_refused():
    with pytest.raises(InvalidArgumentError, match="q must be probabilities summing to 1"):
        check_pmf_pair([0.5, 0.5], [0.5, 0.6])
    with pytest.raises(InvalidArgumentError, match="q must be 2 probabilities"):
        check_pmf_pair([0.5, 0.5], [0.2, 0.3, 0.5])
    with pytest.raises(InvalidArgumentError, match="p must be a list of finite"):
        check_pmf_pair([1.5, -0.5], [0.5, 0.5])
    with pytest.raises(InvalidArgumentError, match="quality must be 3 numbers"):
        RepeatAndSelect(make_mechanism("pf", 1.0), "fixed:2", [1.0, 2.0]).pmf([0.0, 1.0, 2.0])
    with pytest.raises(InvalidArgumentError, match="quality must be None"):
        RepeatAndSelect(([0.5, 0.5], [0.5, 0.5]), "fixed:2", [1.0, 2.0])
    with pytest.raises(InvalidArgumentError, match="x must be 0 or 1"):
        RepeatAndSelect(([0.5, 0.5], [0.5, 0.5]), "fixed:2").pmf(2)
    with pytest.raises(InvalidArgumentError, match="base must be"):
        RepeatAndSelect(object(), "fixed:2")


def test_value_semantics_and_privacy():
    pf = make_mechanism("pf", 1.0)
    a = RepeatAndSelect(pf, "geometric:0.1")
    assert a == RepeatAndSelect(pf, Repetitions.geometric(0.1)) and hash(a) == hash(
        RepeatAndSelect(pf, "geometric:0.1"))
    assert "geometric:0.1" in repr(a)
    with pytest.raises(AttributeError):
        a.repeat = Repetitions.fixed(2)
    assert a.privacy.epsilon == pytest.approx(3.0) and "Liu & Talwar" in a.privacy.statement
    assert a.proven_epsilon() < 3.0
    declared = RepeatAndSelect(PmfMechanism(lambda q: np.ones(q.size) / q.size, epsilon=1.0),
                               "geometric:0.1")
    assert declared.privacy is None and declared.proven_epsilon() is None
    assert np.isinf(declared.proven_rdp([2.0])).all()
    law = Repetitions.negbin_with_mean(0.0, 10.0)
    assert Repetitions.parse(str(law)) == law
