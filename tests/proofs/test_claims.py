"""The claims inventory: every reference resolves, the verdicts agree with the registry's
statuses, the entries are validated, and docs/claims.md is current."""

import ast
import importlib
import re
from functools import lru_cache
from pathlib import Path

import pytest

from proofs.claims import KINDS, MODULES, OUTCOMES, Claim, Evidence, claims, coverage
from proofs.claims.report import render
from proofs.registry import identities

ROOT = Path(__file__).resolve().parents[2]
INVENTORY = claims()


@lru_cache(maxsize=None)
def _test_names(path: str) -> frozenset:
    """``name`` and ``Class::name`` of every test function defined in a test file."""
    tree = ast.parse((ROOT / path).read_text())
    names = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            names.add(node.name)
        elif isinstance(node, ast.ClassDef):
            names |= {f"{node.name}::{item.name}" for item in node.body
                      if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef))}
    return frozenset(names)


def test_every_row_reference_is_a_declared_key():
    for c in INVENTORY:
        for ref in c.rows:
            area, _, key = ref.partition(":")
            module = importlib.import_module(f"optmech.reproduce.{area}")
            assert key in module.KEYS, f"{c.id}: no row {ref}"


def test_every_identity_reference_is_registered():
    known = {i.name for i in identities()}
    for c in INVENTORY:
        for name in c.identities:
            assert name in known, f"{c.id}: no identity {name}"


def test_every_test_reference_exists():
    for c in INVENTORY:
        for node in c.tests:
            path, _, name = node.partition("::")
            assert (ROOT / path).is_file(), f"{c.id}: no file {path}"
            assert name in _test_names(path), f"{c.id}: no test {node}"


def test_ids_are_unique_and_cover_the_four_papers():
    ids = [c.id for c in INVENTORY]
    assert len(ids) == len(set(ids))
    assert {c.paper for c in INVENTORY} >= set(MODULES)
    tally = coverage(INVENTORY)
    assert tally["listed"] == len(INVENTORY) > 130
    assert tally["covered"] + tally["not checkable here"] == tally["listed"]


def _committed_statuses() -> dict[str, str]:
    text = (ROOT / "docs" / "identities.md").read_text()
    return dict(re.findall(r"^\| \[`([^`]+)`\]\(#[^)]*\) \| (\w+) \|", text, re.M))


def test_every_erratum_identity_backs_an_erratum_or_partial_claim():
    """An identity whose status is erratum (docs/identities.md, itself checked current) must
    be cited by a claim whose outcome says so."""
    statuses = _committed_statuses()
    assert statuses, "could not read docs/identities.md"
    flagged = {name for c in INVENTORY if c.outcome in ("erratum", "holds in part")
               for name in c.identities}
    for name, status in statuses.items():
        if status == "erratum":
            assert name in flagged, f"erratum identity {name} backs no erratum claim"


def test_erratum_claims_are_in_the_errata():
    errata = (ROOT / "docs" / "errata.md").read_text()
    for c in INVENTORY:
        if c.outcome == "erratum":
            assert f"`{c.id}`" in errata, f"{c.id} is missing from docs/errata.md"


def test_every_erratum_rests_on_two_independent_derivations_and_a_text_check():
    """An erratum accuses the paper: two evidence entries (different methods, different
    checks, each one of the claim's rows, identities or tests) and the text check."""
    errata = [c for c in INVENTORY if c.outcome == "erratum"]
    assert errata
    for c in errata:
        assert len(c.evidence) >= 2, c.id
        assert len({e.check for e in c.evidence}) >= 2, c.id
        assert len({e.method for e in c.evidence}) >= 2, c.id
        assert {e.check for e in c.evidence} <= set(c.rows) | set(c.identities) | set(c.tests)
        assert "rendering" in c.text or "PDF" in c.text, c.id


def _errata_items() -> dict[str, str]:
    """Each numbered item of docs/errata.md's errata list, keyed by the claim ids it names."""
    text = (ROOT / "docs" / "errata.md").read_text()
    text = text.split("## Withdrawn")[0]
    items = re.split(r"\n(?=\d+\. )", text)
    return {claim: item for item in items
            for claim in re.findall(r"`((?:sec|pf|ms|het)[A-Za-z0-9.-]*)`", item)}


def test_every_erratum_item_says_which_text_was_read():
    items = _errata_items()
    for c in INVENTORY:
        if c.outcome == "erratum":
            assert c.id in items, f"{c.id} is missing from docs/errata.md"
            assert "Text read:" in items[c.id], f"{c.id}: errata.md does not say which text"


def test_withdrawn_errata_are_no_longer_errata():
    text = (ROOT / "docs" / "errata.md").read_text()
    withdrawn = re.findall(r"`([^`]+)`", text.split("## Withdrawn")[1])
    by_id = {c.id: c for c in INVENTORY}
    assert "sec.sec4.2.figure-references" in withdrawn
    for name in withdrawn:
        if name in by_id:
            assert by_id[name].outcome != "erratum", name


TWO = (Evidence("exact fractions", "secretary.threshold"),
       Evidence("enumeration", "tests/x.py::test_y"))


@pytest.mark.parametrize("bad, message", [
    (dict(outcome="erratum", note="n", evidence=()), "two evidence entries"),
    (dict(outcome="erratum", note="n", tests=("tests/x.py::test_y",),
          evidence=(TWO[0], Evidence("exact fractions", "tests/x.py::test_y"))),
     "two evidence entries"),
    (dict(outcome="erratum", note="n", tests=("tests/x.py::test_y",), evidence=TWO),
     "text check"),
    (dict(evidence=(Evidence("m", "tests/elsewhere.py::test_z"),)), "not one of the claim's"),
    (dict(evidence=[TWO[0]]), "tuple"),
    (dict(kind="guess"), "kind"),
    (dict(outcome="maybe"), "outcome"),
    (dict(outcome="erratum", note=""), "needs a note"),
    (dict(outcome="holds", identities=()), "needs a row"),
    (dict(outcome="not checkable here", note="no data"), "has no checks"),
    (dict(paper="unknown"), "paper"),
    (dict(rows=["a:b"]), "tuple"),
])
def test_claims_are_validated(bad, message):
    fields = dict(id="x", paper="secretary", location="§1", kind="lemma", statement="s",
                  outcome="holds", identities=("secretary.threshold",))
    fields.update(bad)
    with pytest.raises(ValueError, match=message):
        Claim(**fields)


def test_vocabularies():
    assert "experimental outcome" in KINDS and "figure" in KINDS
    assert OUTCOMES == ("holds", "erratum", "holds in part", "not checkable here")


def test_docs_claims_md_is_current():
    committed = (ROOT / "docs" / "claims.md").read_text(encoding="utf-8")
    assert committed == render(), "docs/claims.md is stale: run `optmech proofs regenerate`"


def test_render_lists_every_claim_and_is_deterministic():
    text = render()
    assert text == render()
    for c in INVENTORY:
        assert f"`{c.id}`" in text
    assert "| **all** |" in text
