"""The inventory of every checkable claim of the four papers, with a verdict for each.

One module per paper (:mod:`proofs.claims.permute_flip`, :mod:`proofs.claims.multiselect`,
:mod:`proofs.claims.secretary`, :mod:`proofs.claims.heterogeneous`) lists its claims in the
paper's order: every theorem, lemma, proposition, corollary, closed form, worked example,
number stated in the text, figure, table and stated experimental outcome.  Each
:class:`Claim` says where the paper states it, what kind of claim it is, what it says (in
our words), and its verdict: the ``optmech reproduce`` rows (``"area:key"``, the ``key`` of
a :class:`~optmech.reproduce.Result` produced by ``optmech/reproduce/<area>.py``), the
identities of the registry (:mod:`proofs.registry`) and the tests (``tests/...::test_name``)
that check it, and the outcome:

* ``holds`` -- the checks confirm the claim;
* ``erratum`` -- the claim as printed is false (``docs/errata.md`` gives the counter-example
  and the corrected statement);
* ``holds in part`` -- part of the claim holds, part does not (``note`` says which);
* ``not checkable here`` -- no check is possible with what the paper and this toolkit
  provide (``note`` says why: a dataset that is not public, a set-up left unspecified, a
  statement about all mechanisms that no finite computation decides).

An ``erratum`` accuses the paper, so it must rest on more than one computation.  Its
``evidence`` lists at least two :class:`Evidence` entries -- independent derivations by
different methods and different code paths (e.g. exact fractions and an enumeration of all
cases, a closed form and a simulation, two different algorithms), each naming the row,
identity or test that carries it out -- and its ``text`` says which text of the paper was
read (arXiv's HTML rendering or a conversion of the PDF, :attr:`proofs.papers.Paper.text`)
and how the passage was checked against the other version of the paper, or why a
conversion cannot be the cause where there is no other version.  A slip that a converter
could have made (a renumbered figure, a dropped symbol) is not an erratum of the paper.

``docs/claims.md`` is rendered from this inventory by :func:`proofs.claims.report.render`
(``optmech proofs regenerate``); tests resolve every reference and check that the committed
file is current; ``optmech reproduce`` adds a coverage table per paper to its report.
"""

from __future__ import annotations

import dataclasses
import importlib
from dataclasses import dataclass

from lp_models.display import ResultList, Tabular
from proofs.papers import PAPERS

__all__ = ["KINDS", "MODULES", "OUTCOMES", "Claim", "Evidence", "claims", "coverage"]

KINDS = ("theorem", "lemma", "proposition", "corollary", "fact", "remark", "algorithm",
         "closed form", "worked example", "number in text", "figure", "table",
         "experimental outcome")

OUTCOMES = ("holds", "erratum", "holds in part", "not checkable here")

#: paper key -> the module listing its claims (in this order)
MODULES = {
    "permute-and-flip": "proofs.claims.permute_flip",
    "multi-selection": "proofs.claims.multiselect",
    "secretary": "proofs.claims.secretary",
    "heterogeneous": "proofs.claims.heterogeneous",
}


@dataclass(frozen=True)
class Evidence:
    """One derivation behind a verdict: how it was computed (``method``, e.g. "exact
    fractions", "enumeration of all arrival orders", "Monte Carlo, 2e6 runs") and the
    check that computes it (``check``: one of the claim's reproduce rows ``"area:key"``,
    identity names or test nodes)."""

    method: str
    check: str


@dataclass(frozen=True)
class Claim(Tabular):
    """One checkable claim of a paper and its verdict (see the module docstring); its
    :meth:`records` are its one row (the references joined by semicolons)."""

    id: str
    paper: str
    location: str
    kind: str
    statement: str
    outcome: str
    rows: tuple[str, ...] = ()
    identities: tuple[str, ...] = ()
    tests: tuple[str, ...] = ()
    note: str = ""
    evidence: tuple[Evidence, ...] = ()
    text: str = ""

    def __post_init__(self):
        if self.paper not in PAPERS:
            raise ValueError(f"{self.id}: paper must be one of {tuple(PAPERS)}")
        if self.kind not in KINDS:
            raise ValueError(f"{self.id}: kind must be one of {KINDS}, got {self.kind!r}")
        if self.outcome not in OUTCOMES:
            raise ValueError(f"{self.id}: outcome must be one of {OUTCOMES}")
        for field_name in ("rows", "identities", "tests", "evidence"):
            if not isinstance(getattr(self, field_name), tuple):
                raise ValueError(f"{self.id}: {field_name} must be a tuple")
        if self.outcome != "holds" and not self.note:
            raise ValueError(f"{self.id}: outcome {self.outcome!r} needs a note saying why")
        if self.outcome == "not checkable here" and self.covered:
            raise ValueError(f"{self.id}: a claim that is not checkable has no checks")
        if self.outcome != "not checkable here" and not self.covered:
            raise ValueError(f"{self.id}: outcome {self.outcome!r} needs a row, an identity "
                             "or a test")
        self._check_evidence()

    def _check_evidence(self) -> None:
        """Every evidence entry names one of the claim's checks; an erratum has two
        independent derivations (different methods, different checks) and says which text
        of the paper was read."""
        references = set(self.rows) | set(self.identities) | set(self.tests)
        for entry in self.evidence:
            if not isinstance(entry, Evidence) or not entry.method:
                raise ValueError(f"{self.id}: evidence entries are Evidence(method, check)")
            if entry.check not in references:
                raise ValueError(f"{self.id}: evidence check {entry.check!r} is not one of the "
                                 "claim's rows, identities or tests")
        if self.outcome != "erratum":
            return
        if (len(self.evidence) < 2 or len({e.check for e in self.evidence}) < 2
                or len({e.method for e in self.evidence}) < 2):
            raise ValueError(f"{self.id}: an erratum needs two evidence entries: independent "
                             "derivations with different methods and different checks")
        if not self.text:
            raise ValueError(f"{self.id}: an erratum needs its text check (which text of the "
                             "paper was read, and the other version's passage)")

    @property
    def covered(self) -> bool:
        """True when a reproduce row, an identity or a test checks the claim."""
        return bool(self.rows or self.identities or self.tests)

    def records(self) -> list[dict]:
        row = {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}
        row["evidence"] = tuple(f"{e.method} ({e.check})" for e in self.evidence)
        return [{key: "; ".join(value) if isinstance(value, tuple) else value
                 for key, value in row.items()}]


def claims(papers=None) -> ResultList:
    """Every claim (or those of the given paper keys), papers in :data:`MODULES` order
    (``to_frame()``: one row per claim)."""
    keys = list(MODULES) if papers is None else list(papers)
    out = []
    for key in keys:
        out += importlib.import_module(MODULES[key]).CLAIMS
    ids = [c.id for c in out]
    if len(ids) != len(set(ids)):
        duplicate = next(i for i in ids if ids.count(i) > 1)
        raise ValueError(f"claim id {duplicate!r} is listed twice")
    return ResultList(out)


def coverage(selected: tuple[Claim, ...]) -> dict[str, int]:
    """Counts: ``listed``, ``covered`` and one per outcome."""
    tally = {"listed": len(selected), "covered": sum(c.covered for c in selected)}
    tally.update({o: sum(c.outcome == o for c in selected) for o in OUTCOMES})
    return tally
