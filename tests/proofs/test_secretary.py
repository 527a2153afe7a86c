"""Secretary paper: one test per registered identity, plus the reference computations."""

from fractions import Fraction as F

import pytest

from proofs.secretary_exact import (
    enumerate_rank_probabilities,
    hockey_stick,
    minimal_exp_epsilon,
    neighbour_profile,
    rank_probabilities,
    rank_probabilities_printed,
    threshold,
    win_probability,
)

# --- reference computations against values known independently --------------------------

def test_threshold_matches_the_classical_cutoffs():
    # Gilbert & Mosteller / Ferguson: reject r* = 1,1,2,2,2,3,3,3 candidates for n = 3..10
    assert [threshold(n) - 1 for n in range(3, 11)] == [1, 1, 2, 2, 2, 3, 3, 3]


def test_threshold_exact_and_high_precision_branches_agree():
    from proofs import secretary_exact

    for n in (2500, 10_000):
        assert threshold(n) == secretary_exact._threshold_exact(n)


def test_win_probability_n10_is_the_classical_0_3987():
    assert float(win_probability(10, threshold(10))) == pytest.approx(0.398690, abs=5e-7)


def test_enumeration_n3_by_hand():
    # arrival orders of ranks; stop at the first relative best from time 2, else at time 3:
    # 123->3, 132->2, 213->1, 231->1, 312->1, 321->2
    assert enumerate_rank_probabilities(3) == (F(1, 2), F(1, 3), F(1, 6))
    assert rank_probabilities(3) == (F(1, 2), F(1, 3), F(1, 6))
    assert rank_probabilities_printed(3)[0] == F(2, 3)


def test_hockey_stick_and_minimal_epsilon_by_hand():
    P, Q = (F(1, 2), F(1, 2)), (F(1, 4), F(3, 4))
    assert hockey_stick(P, Q, 1) == F(1, 4)
    assert hockey_stick(P, Q, 2) == 0
    assert minimal_exp_epsilon(P, Q, F(0)) == 2
    assert minimal_exp_epsilon(P, Q, F(1, 8)) == F(3, 2)      # 1/2 - E/4 = 1/8
    assert minimal_exp_epsilon(P, Q, F(1, 4)) == 1
    assert minimal_exp_epsilon((F(1),), (F(0),), F(1, 2)) is None


def test_neighbour_profile_of_a_uniform_distribution_is_trivial():
    assert neighbour_profile([F(1, 4)] * 4, F(0)) == [1, 1, 1]


# --- the registered identities -------------------------------------------------------------

def test_threshold(check):
    assert check("secretary.threshold").status == "verified"


def test_win_probability(check):
    assert check("secretary.win_probability").status == "verified"


def test_rank_distribution_is_an_erratum_at_k1(check):
    outcome = check("secretary.rank_distribution")
    assert outcome.status == "erratum"
    assert "r_1 = 1/2" in outcome.result.counterexample
    assert "gives 2/3" in outcome.result.counterexample


def test_rank_distribution_sums_to_one(check):
    assert check("secretary.rank_distribution_sums_to_one").status == "verified"


def test_lemma3_difference_recurrence(check):
    outcome = check("secretary.lemma3_difference_recurrence")
    assert outcome.status == "erratum"
    assert "2 <= k <= n-1" in outcome.result.corrected


def test_a_k_closed_form(check):
    assert check("secretary.a_k_closed_form").status == "verified"


def test_rank_probability_limit(check):
    assert check("secretary.rank_probability_limit").status == "verified"


def test_theorem_4_1_mixing_bound(check):
    assert check("secretary.theorem_4_1_mixing_bound").status == "verified"


def test_lemma2_ratio_ordering(check):
    assert check("secretary.lemma2_ratio_ordering").status == "verified"


def test_theorem_4_2_exact(check):
    assert check("secretary.theorem_4_2_exact").status == "verified"


def test_theorem_4_2_asymptotic(check):
    assert check("secretary.theorem_4_2_asymptotic").status == "verified"


def test_corollary_2(check):
    assert check("secretary.corollary_2").status == "verified"


def test_corollary_3(check):
    assert check("secretary.corollary_3").status == "verified"


def test_section_4_2_examples(check):
    outcome = check("secretary.section_4_2_examples")
    assert outcome.status == "verified"
    assert "0.3454248591" in outcome.result.evidence and "0.8539169161" in outcome.result.evidence


def test_library_agrees(check):
    assert check("secretary.library_agrees").status == "verified"


def test_new_identities(check):
    for name in ("secretary.example_1_metric", "secretary.lemma_4_linear_ranks",
                 "secretary.lemma_5_theorem_5_3"):
        assert check(name).status == "verified", name


def test_distances_by_hand():
    """d_1 and d_2 from the identity to (2, 1, 0): three neighbour swaps, one swap of entries
    two apart."""
    from proofs.secretary import _distances

    assert _distances(3, 1)[(2, 1, 0)] == 3
    assert _distances(3, 2)[(2, 1, 0)] == 1
