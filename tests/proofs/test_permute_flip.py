"""Permute-and-flip paper: one test per registered identity, plus the pmf helpers."""

from fractions import Fraction as F

import sympy

from proofs.permute_flip import (
    appendix_e_pmf,
    exact_integral_pmf,
    integral_pmf,
    lemma1_pmf,
    lemma2_pmf,
)


def test_two_candidates_by_hand():
    # PF on two items: r is chosen if it comes first and flips heads, or comes second after a
    # tails: p_1/2 + (1 - p_2) p_1/2 = p_1 (1 - p_2/2)
    p = sympy.symbols("p1 p2")
    expected = p[0] * (1 - p[1] / 2)
    for formula in (lemma1_pmf, lemma2_pmf, integral_pmf):
        assert sympy.expand(formula(p, 0) - expected) == 0


def test_exact_helpers_agree_on_fractions():
    coins = [F(1), F(1, 2), F(1, 3)]
    assert appendix_e_pmf(coins) == exact_integral_pmf(coins)
    assert sum(exact_integral_pmf(coins)) == 1


def test_pmf_expressions(check):
    assert check("permute_flip.pmf_expressions").status == "verified"


def test_appendix_e_recurrence(check):
    assert check("permute_flip.appendix_e_recurrence").status == "verified"


def test_library_pf_probabilities(check):
    assert check("permute_flip.library_pf_probabilities").status == "verified"


def test_lemma7_threshold(check):
    outcome = check("permute_flip.lemma7_threshold")
    assert outcome.status == "verified" and "0.962423650119207" in outcome.result.evidence


def test_worst_case_equations_7_8(check):
    assert check("permute_flip.worst_case_equations_7_8").status == "verified"


def test_library_worst_case(check):
    assert check("permute_flip.library_worst_case").status == "verified"


def test_proposition_5(check):
    assert check("permute_flip.proposition_5").status == "verified"
