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


def test_new_identities(check):
    for name in ("heterogeneous.introduction_example", "heterogeneous.two_candidates_hg",
                 "heterogeneous.truncated_negative_binomial", "heterogeneous.appendices_i_j"):
        assert check(name).status == "verified", name


def test_appendix_b_is_an_erratum(check):
    outcome = check("heterogeneous.appendix_b_rs_exponential")
    assert outcome.status == "erratum"
    assert "1.3706" in outcome.result.counterexample


def test_appendix_b_formulas_by_hand():
    """k = 2, gamma = 1/2, c = 1/2 (fractions): D1 outputs candidate 1 only if every draw is
    candidate 1: sum_t (1/2)(1/2)^(t-1)(1/2)^t = 1/3; D2 needs at least one draw of it and
    the other's noise <= 1 on its draws: G(3/4) - G(1/4) = 3/5 - 1/7 = 16/35."""
    from fractions import Fraction

    from proofs.heterogeneous import appendix_b_probabilities

    half = Fraction(1, 2)
    p1, p2 = appendix_b_probabilities(2, half, half)
    assert (p1, p2) == (Fraction(1, 3), Fraction(16, 35))
    q1, q2 = appendix_b_probabilities(2, half, half, printed=True)
    assert (q1, q2) == (Fraction(1, 3), Fraction(3, 5))   # the run with no draw of 1 counted
