"""Heterogeneous-sensitivities paper: one test per registered identity."""

from fractions import Fraction as F

from proofs.heterogeneous import _gem_scores


def test_gem_scores_by_hand():
    # q = (3, 1), Delta = (1, 1), t = 0: q'_1 = min(0, (3-1)/2) = 0, q'_2 = min((1-3)/2, 0) = -1
    assert _gem_scores([F(3), F(1)], [F(1), F(1)], F(0)) == [0, -1]


def test_rnmh_counterexample(check):
    assert check("heterogeneous.rnmh_counterexample").status == "verified"


def test_rnmh_laplace_counterexample(check):
    assert check("heterogeneous.rnmh_laplace_counterexample").status == "verified"


def test_gem_normalised_scores(check):
    assert check("heterogeneous.gem_normalised_scores").status == "verified"


def test_gem_mgem_utility_bounds(check):
    assert check("heterogeneous.gem_mgem_utility_bounds").status == "verified"


def test_rnmh_laplace_privacy_bound_is_an_erratum(check):
    result = check("heterogeneous.rnmh_laplace_privacy_bound")
    assert result.status == "erratum"
    assert "2*epsilon" in result.result.evidence and "m eps" in result.result.corrected


def test_library_agrees(check):
    assert check("heterogeneous.library_agrees").status == "verified"
