"""The registry: complete entries, parseable SymPy statements, statuses computed from evidence."""

import subprocess
import sys
import warnings

import pytest
import sympy
from sympy.parsing.sympy_parser import parse_expr

from proofs.papers import PAPERS as CITATIONS
from proofs.registry import (
    BUILTIN,
    METHODS,
    PAPERS,
    CheckResult,
    Identity,
    Registry,
    RegistryWarning,
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
    assert CITATIONS[ident.paper].short in ident.source   # cited, not a file name
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
    with pytest.raises(ValueError, match="methods"):
        Identity("x", "secretary", "s", "x", "src", (), lambda: None)
    with pytest.raises(ValueError, match="methods"):
        Identity("x", "secretary", "s", "x", "src", ("exact enumeration", " "), lambda: None)
    with pytest.raises(ValueError, match="paper"):
        Identity("x", "", "s", "x", "src", ("asymptotic limit",), lambda: None)
    with pytest.raises(ValueError, match="source"):
        Identity("x", "mine", "s", "x", " ", ("asymptotic limit",), lambda: None)


def _gauss(registry, source="my notes"):
    @registry.identity("mine.gauss", paper="my-paper", source=source,
                       statement="1 + ... + n = n(n+1)/2", methods=("exact enumeration",))
    def check():
        return verified_if(all(sum(range(n + 1)) == n * (n + 1) // 2 for n in range(50)),
                           "n < 50")
    return check


def test_a_user_registry_checks_its_own_identities_without_touching_the_builtin_one():
    before = [i.name for i in identities()]
    mine = Registry()
    _gauss(mine)
    outcomes = mine.check()
    assert [(o.identity.name, o.identity.paper, o.status) for o in outcomes] == \
        [("mine.gauss", "my-paper", "verified")]
    assert "mine.gauss" in mine and "mine.gauss" not in BUILTIN and len(mine) == 1
    assert [i.name for i in identities()] == before
    with pytest.raises(ValueError, match="no.such"):
        mine.identities(["no.such"])


def test_registering_a_name_again_replaces_it_with_a_filterable_warning():
    mine = Registry()
    _gauss(mine, "first")
    with pytest.warns(RegistryWarning, match="registered again"):
        _gauss(mine, "second")
    assert len(mine) == 1 and mine.identities()[0].source == "second"
    with warnings.catch_warnings():
        warnings.simplefilter("error", RegistryWarning)
        with pytest.raises(RegistryWarning):
            _gauss(mine, "third")


def test_user_papers_follow_the_builtin_order_and_render():
    from proofs.report import render

    mine = Registry(paper_order=("b-paper",))
    for name, paper in (("a.one", "a-paper"), ("b.one", "b-paper"), ("a.two", "a-paper")):
        mine.add(Identity(name, paper, "s", "", "src", ("asymptotic limit",),
                          lambda: CheckResult("verified", "ok")))
    assert [i.name for i in mine] == ["b.one", "a.one", "a.two"]
    assert mine.papers() == ("b-paper", "a-paper")
    text = render(mine.check())
    assert "## b-paper" in text and "Source key: `a-paper`" in text


def test_an_identity_without_sympy_source_renders_no_empty_code_block():
    mine = Registry()
    for name, source in (("mine.plain", ""), ("mine.symbolic", "Eq(x + x, 2*x)")):
        mine.add(Identity(name, "mine", "s", source, "src", ("asymptotic limit",),
                          lambda: CheckResult("verified", "ok")))
    plain, symbolic = mine.render().split("### mine.symbolic")
    assert "**SymPy.**" not in plain and "```python\n\n```" not in plain
    assert "**SymPy.**\n\n```python\nEq(x + x, 2*x)\n```" in symbolic


def test_the_builtin_modules_register_no_name_twice():
    """Importing the paper modules in a fresh interpreter raises no RegistryWarning."""
    script = ("import warnings\nfrom proofs.registry import RegistryWarning, identities\n"
              "warnings.simplefilter('error', RegistryWarning)\nprint(len(identities()))")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    assert int(done.stdout) == len(identities()) == len(PAPERS and BUILTIN)


def test_a_crashing_check_is_reported_as_failed():
    def boom():
        raise ZeroDivisionError("division by zero")

    outcome = check_one(Identity("x", "secretary", "s", "x", "src", ("asymptotic limit",), boom))
    assert outcome.status == "failed"
    assert "ZeroDivisionError" in outcome.result.evidence
    assert outcome.to_json()["status"] == "failed"


def test_methods_are_free_text_with_the_built_in_ones_as_suggestions():
    mine = Registry()
    mine.identity("mine.lp", paper="mine", source="notes", statement="an LP value",
                  methods="certified LP")(lambda: verified_if(True, "ok"))
    mine.identity("mine.two", paper="mine", source="notes", statement="both",
                  methods=("certified LP", "mpmath at 50 digits"))(lambda: verified_if(True, "ok"))
    first, second = mine.identities()
    assert first.methods == ("certified LP",) and first.method == "certified LP"
    assert second.method == "certified LP, mpmath at 50 digits"
    assert [o.status for o in mine.check()] == ["verified", "verified"]


def test_the_module_decorator_and_the_registry_method_take_the_same_arguments():
    import inspect

    import proofs

    assert inspect.signature(proofs.identity) == inspect.signature(Registry().identity)


def test_a_users_registry_renders_under_its_own_header():
    from proofs.report import render

    mine = Registry(title="My identities", preamble="Checked for my paper.")
    _gauss(mine)
    text = mine.render()
    assert text.startswith("# My identities\n\nChecked for my paper.\n\n**1 identities: 1 "
                           "verified")
    assert "Do not edit by hand" not in text and "printed in one of the papers" not in text
    assert "## my-paper" in text and "### mine.gauss" in text
    default = Registry()
    _gauss(default)
    assert default.render().startswith("# Checked identities\n\nEvery identity below is "
                                       "checked by machine.  Status `verified`")
    builtin = render(default.check())                    # the built-in header by default
    assert "Do not edit by hand" in builtin and builtin.startswith("# Machine-checked")


def test_outcomes_show_short_and_become_a_table():
    mine = Registry()
    _gauss(mine)
    outcomes = mine.check()
    text = repr(outcomes[0])
    assert text == ("Outcome(name='mine.gauss', status='verified', method='exact enumeration', "
                    "source='my notes')")
    assert "1 + ... + n = n(n+1)/2" in outcomes[0]._repr_html_()
    frame = outcomes.to_frame()
    assert frame.to_dict("records") == [outcomes[0].to_json()]


def test_claims_become_a_table():
    from proofs.claims import claims

    inventory = claims(["secretary"])
    frame = inventory.to_frame()
    assert len(frame) == len(inventory) and frame["id"].tolist() == [c.id for c in inventory]
    first = inventory[0]
    assert frame.iloc[0]["rows"] == "; ".join(first.rows)


def test_every_claim_is_one_flat_row():
    """Each claim's record holds plain text and numbers only, its evidence entries as
    "method (check)" joined by semicolons (what a CSV cell can hold)."""
    from proofs.claims import claims

    for claim in claims():
        (row,) = claim.records()
        assert all(isinstance(v, (str, int, float)) for v in row.values()), claim.id
        assert row["evidence"] == "; ".join(f"{e.method} ({e.check})" for e in claim.evidence)
