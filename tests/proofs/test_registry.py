"""The registry: complete entries, parseable SymPy statements, statuses computed from evidence."""

import pytest
import sympy
from sympy.parsing.sympy_parser import parse_expr

from proofs.registry import (
    METHODS,
    PAPERS,
    CheckResult,
    Identity,
    check_one,
    erratum_if,
    identities,
    verified_if,
)

ISSUE_NAMES = {  # every identity the issue asks for, by registry name
    "secretary.threshold", "secretary.win_probability", "secretary.rank_distribution",
    "secretary.rank_distribution_sums_to_one", "secretary.lemma3_difference_recurrence",
    "secretary.a_k_closed_form", "secretary.rank_probability_limit",
    "secretary.theorem_4_1_mixing_bound", "secretary.theorem_4_2_exact",
    "secretary.theorem_4_2_asymptotic", "secretary.corollary_2", "secretary.corollary_3",
    "secretary.section_4_2_examples", "permute_flip.pmf_expressions",
    "permute_flip.lemma7_threshold", "permute_flip.worst_case_equations_7_8",
    "permute_flip.proposition_5", "permute_flip.appendix_e_recurrence",
    "multiselect.cost_integral_recurrence", "multiselect.minimiser_and_D_b",
    "multiselect.odd_offsets", "multiselect.even_k_closed_form",
    "heterogeneous.rnmh_counterexample", "heterogeneous.gem_mgem_utility_bounds",
}


def test_registry_covers_the_issue_with_unique_names():
    names = [i.name for i in identities()]
    assert len(names) == len(set(names))
    assert ISSUE_NAMES <= set(names)


def test_registry_order_groups_papers():
    papers = [i.paper for i in identities()]
    order = list(PAPERS)
    assert [order.index(p) for p in papers] == sorted(order.index(p) for p in papers)


@pytest.mark.parametrize("ident", identities(), ids=lambda i: i.name)
def test_entry_is_complete_and_its_sympy_statement_parses(ident):
    assert ident.statement and ident.source and ident.methods
    assert set(ident.methods) <= set(METHODS)
    assert PAPERS[ident.paper][0] in ident.source
    parsed = parse_expr(ident.sympy, evaluate=False)
    assert isinstance(parsed, sympy.Basic)


def test_selecting_by_name_and_unknown_names():
    from optmech.validation import InvalidArgumentError

    assert [i.name for i in identities(["secretary.threshold"])] == ["secretary.threshold"]
    with pytest.raises(InvalidArgumentError, match="no.such"):
        identities(["no.such"])


def test_verified_if_and_erratum_if_compute_the_status():
    assert verified_if(True, "e").status == "verified"
    assert verified_if(False, "e").status == "failed"
    kwargs = dict(corrected="c", counterexample="x")
    assert erratum_if(True, True, "e", **kwargs).status == "erratum"
    held = erratum_if(False, True, "e", **kwargs)
    assert held.status == "failed" and "expected to fail" in held.evidence
    broken = erratum_if(True, False, "e", **kwargs)
    assert broken.status == "failed" and "corrected statement did not hold" in broken.evidence


def test_results_are_validated():
    with pytest.raises(ValueError):
        CheckResult("proved", "e")
    with pytest.raises(ValueError):
        CheckResult("erratum", "e")          # an erratum needs a correction and a counter-example
    with pytest.raises(ValueError):
        Identity("x", "secretary", "s", "x", "src", ("guessing",), lambda: None)


def test_a_crashing_check_is_reported_as_failed():
    def boom():
        raise ZeroDivisionError("division by zero")

    outcome = check_one(Identity("x", "secretary", "s", "x", "src", ("asymptotic limit",), boom))
    assert outcome.status == "failed"
    assert "ZeroDivisionError" in outcome.result.evidence
    assert outcome.to_json()["status"] == "failed"
