"""The registry of named identities and the outcome of checking one.

An :class:`Identity` is a printed statement of one of the papers (or a statement this
toolkit derives where a paper leaves a gap), with its source, the method that checks it and
a ``check`` callable.  Checking returns a :class:`CheckResult` whose status is

* ``verified`` -- the statement holds, and ``evidence`` says how it was shown (the
  simplified difference, the exhaustive range, the error bound);
* ``erratum`` -- the printed statement is false: ``counterexample`` shows it failing,
  ``corrected`` states the corrected form, and the evidence shows that form verified;
* ``failed`` -- the check could not confirm the statement (a bug in the code or in the
  paper that nobody has explained yet), including any exception raised by the check.

Statuses are always computed from the evidence: :func:`verified_if` and :func:`erratum_if`
turn the outcome of a computation into a status, so a check that stops confirming its
statement reports ``failed`` rather than a stale ``verified``.

Each paper module (:mod:`proofs.secretary`, :mod:`proofs.permute_flip`,
:mod:`proofs.multiselect`, :mod:`proofs.heterogeneous`) registers its identities with the
:func:`identity` decorator; :func:`identities` imports them in a fixed order.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Callable

import mpmath

__all__ = [
    "METHODS",
    "PAPERS",
    "STATUSES",
    "CheckResult",
    "Identity",
    "Outcome",
    "check_all",
    "check_one",
    "erratum_if",
    "identities",
    "identity",
    "verified_if",
]

STATUSES = ("verified", "erratum", "failed")

MPMATH_DIGITS = 50

METHODS = (
    "symbolic simplification",
    "exact rational arithmetic",
    "exact enumeration",
    "mpmath at 50 digits",
    "asymptotic limit",
    "numerical optimisation",
)

# paper key -> (paper file, module that registers its identities)
PAPERS = {
    "secretary": ("private-secretary-v2.txt", "proofs.secretary"),
    "permute-and-flip": ("permute-and-flip.txt", "proofs.permute_flip"),
    "multi-selection": ("multi-selection.txt", "proofs.multiselect"),
    "heterogeneous": ("heterogeneous-sensitivities.txt", "proofs.heterogeneous"),
}


@dataclass(frozen=True)
class CheckResult:
    """What a check found.  ``evidence`` is plain text, deterministic across runs."""

    status: str
    evidence: str
    corrected: str | None = None
    counterexample: str | None = None

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"status must be one of {STATUSES}, got {self.status!r}")
        if self.status == "erratum" and not (self.corrected and self.counterexample):
            raise ValueError("an erratum needs a corrected statement and a counter-example")


@dataclass(frozen=True)
class Identity:
    """One named statement and the check that decides it.

    ``methods`` lists the methods used, the decisive one first (see :data:`METHODS`);
    ``sympy`` is the statement written as SymPy source (parseable by
    ``sympy.parse_expr(..., evaluate=False)``; undefined names are symbols or functions).
    """

    name: str
    paper: str
    statement: str
    sympy: str
    source: str
    methods: tuple[str, ...]
    check: Callable[[], CheckResult]

    def __post_init__(self):
        if self.paper not in PAPERS:
            raise ValueError(f"paper must be one of {tuple(PAPERS)}, got {self.paper!r}")
        unknown = [m for m in self.methods if m not in METHODS]
        if not self.methods or unknown:
            raise ValueError(f"methods must be a non-empty subset of {METHODS}, got {self.methods}")

    @property
    def method(self) -> str:
        return ", ".join(self.methods)


@dataclass(frozen=True)
class Outcome:
    """An identity together with the result of checking it."""

    identity: Identity
    result: CheckResult

    @property
    def status(self) -> str:
        return self.result.status

    def to_json(self) -> dict:
        ident, res = self.identity, self.result
        return {
            "name": ident.name,
            "paper": ident.paper,
            "source": ident.source,
            "method": ident.method,
            "status": res.status,
            "statement": ident.statement,
            "sympy": ident.sympy,
            "evidence": res.evidence,
            "corrected": res.corrected,
            "counterexample": res.counterexample,
        }


_REGISTRY: dict[str, Identity] = {}


def identity(name: str, *, paper: str, statement: str, sympy: str, source: str,
             methods: tuple[str, ...]):
    """Decorator registering ``check`` (a function returning :class:`CheckResult`)."""

    def register(check: Callable[[], CheckResult]) -> Callable[[], CheckResult]:
        if name in _REGISTRY:
            raise ValueError(f"identity {name!r} registered twice")
        _REGISTRY[name] = Identity(name, paper, statement, sympy, source, tuple(methods), check)
        return check

    return register


def identities(names: list[str] | None = None) -> tuple[Identity, ...]:
    """Every registered identity (or those named), grouped by paper in :data:`PAPERS` order.

    An unknown name raises :class:`~optmech.validation.InvalidArgumentError`.
    """
    for _, module in PAPERS.values():
        importlib.import_module(module)
    importlib.import_module("proofs.em_pf_ratio")    # further permute-and-flip identities
    order = list(PAPERS)
    chosen = tuple(sorted(_REGISTRY.values(), key=lambda i: order.index(i.paper)))
    if names is None:
        return chosen
    missing = [n for n in names if n not in _REGISTRY]
    if missing:
        from optmech.validation import InvalidArgumentError
        raise InvalidArgumentError("name", missing[0], "the name of a registered identity "
                                   "(listed by `optmech proofs check`)")
    return tuple(i for i in chosen if i.name in names)


def check_one(ident: Identity) -> Outcome:
    """Run one check (mpmath at 50 digits); an exception becomes a ``failed`` outcome."""
    try:
        with mpmath.workdps(MPMATH_DIGITS):
            result = ident.check()
    except Exception as error:  # noqa: BLE001 - a crashing check must report, not vanish
        result = CheckResult("failed", f"the check raised {type(error).__name__}: {error}")
    if not isinstance(result, CheckResult):
        result = CheckResult("failed", f"the check returned {type(result).__name__}, "
                                       "not a CheckResult")
    return Outcome(ident, result)


def check_all(names: list[str] | None = None) -> list[Outcome]:
    """Check every identity (or those named), in registry order."""
    return [check_one(i) for i in identities(names)]


def verified_if(holds: bool, evidence: str) -> CheckResult:
    """``verified`` when ``holds``, else ``failed``, with the same evidence."""
    return CheckResult("verified" if holds else "failed", evidence)


def erratum_if(printed_fails: bool, corrected_holds: bool, evidence: str, *, corrected: str,
               counterexample: str) -> CheckResult:
    """``erratum`` when the printed form fails and the corrected form holds, else ``failed``.

    A printed statement that unexpectedly holds, or a correction that does not, is exactly
    what ``failed`` is for: the explanation recorded here no longer matches the computation.
    """
    if printed_fails and corrected_holds:
        return CheckResult("erratum", evidence, corrected, counterexample)
    why = []
    if not printed_fails:
        why.append("the printed statement was expected to fail but held")
    if not corrected_holds:
        why.append("the corrected statement did not hold")
    return CheckResult("failed", "; ".join(why) + "\n" + evidence, corrected, counterexample)
