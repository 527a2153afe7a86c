"""Permute-and-flip paper: one test per registered identity, plus the pmf helpers."""

from fractions import Fraction as F

import pytest
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


NEW_VERIFIED = ("permute_flip.proposition_3_recurrence", "permute_flip.algorithms_2_3",
                "permute_flip.theorem_1_regular_private", "permute_flip.appendix_c_lemma_4",
                "permute_flip.theorem_2_dominance", "permute_flip.utility_bounds",
                "permute_flip.proposition_4_worst_case", "permute_flip.proposition_6_pareto")


def test_new_identities_hold(check):
    for name in NEW_VERIFIED:
        assert check(name).status == "verified", name


def test_theorem_2_proof_step_is_an_erratum(check):
    outcome = check("permute_flip.theorem_2_proof_step")
    assert outcome.status == "erratum"
    assert "-71/2112, -131/2112, 101/1056" in outcome.result.counterexample


def test_single_crossing_and_dominance_by_hand():
    from proofs.permute_flip import _single_crossing

    assert _single_crossing([F(-3), F(-5), F(8)]) and not _single_crossing([F(-1), F(2), F(-1)])
    # the counter-example of the erratum: PF - EM at coins (1/8, 1/4, 1)
    coins = [F(1, 8), F(1, 4), F(1)]
    f = [a - c / sum(coins) for a, c in zip(exact_integral_pmf(coins), coins)]
    assert f == [F(-71, 2112), F(-131, 2112), F(101, 1056)]
    assert f[0] + f[1] <= 0 and f[0] <= 0                      # dominance still holds


def test_pareto_lp_agrees_with_a_second_solver():
    """One Pareto LP of Proposition 6 solved again by cvxpy (Clarabel, interior point):
    the minimum of a class's error subject to doing no worse than PF elsewhere is PF's."""
    import numpy as np
    import scipy.sparse as sp

    from lp_models.lattice import reduced_lattice_lp
    from lp_models.lattice.recurrences import pf_lattice_probabilities
    from lp_models.program import LinearProgram, to_cvxpy
    from proofs.permute_flip import pareto_check

    n, k, eps = 3, 2, 0.5
    rows = pareto_check(n, k, eps)
    base = reduced_lattice_lp(n, k, eps, constraints="regular", normalise=False)
    classes = base.metadata["classes"]
    coef = classes.var_count * 2.0 * classes.var_level
    errors = sp.csr_matrix((coef, (classes.var_class, np.arange(classes.num_variables))),
                           shape=(classes.num_classes, classes.num_variables))
    reference = errors @ pf_lattice_probabilities(classes, eps)
    c, low, ref = rows[-1]
    others = np.delete(np.arange(classes.num_classes), c)
    lp = LinearProgram(cost=errors[c].toarray().ravel(),
                       matrix=sp.vstack([base.matrix, errors[others]]),
                       row_lower=np.concatenate([base.row_lower, np.full(others.size, -np.inf)]),
                       row_upper=np.concatenate([base.row_upper, reference[others]]),
                       col_lower=base.col_lower, col_upper=base.col_upper, sense="min")
    model = to_cvxpy(lp)
    model.problem.solve(solver="CLARABEL")
    assert model.problem.value == pytest.approx(ref, rel=1e-6)
    assert low == pytest.approx(ref, rel=1e-7)


def test_pareto_check_sees_a_dominated_baseline():
    from proofs.permute_flip import pareto_check

    gains = [(ref - low) / ref for _, low, ref in pareto_check(3, 3, 1.0, baseline="em")]
    assert max(gains) > 0.05
