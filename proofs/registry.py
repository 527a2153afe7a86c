"""Registries of named identities and the outcome of checking one.

An :class:`Identity` is a printed statement of a paper (or a statement derived where a
paper leaves a gap), with its source, the methods that check it and a ``check`` callable.
Checking returns a :class:`CheckResult` whose status is

* ``verified`` -- the statement holds, and ``evidence`` says how it was shown (the
  simplified difference, the exhaustive range, the error bound);
* ``erratum`` -- the printed statement is false: ``counterexample`` shows it failing,
  ``corrected`` states the corrected form, and the evidence shows that form verified;
* ``failed`` -- the check could not confirm the statement (a bug in the code or in the
  paper that nobody has explained yet), including any exception raised by the check.

Statuses are always computed from the evidence: :func:`verified_if` and :func:`erratum_if`
turn the outcome of a computation into a status, so a check that stops confirming its
statement reports ``failed`` rather than a stale ``verified``.

A :class:`Registry` holds identities by name.  :data:`BUILTIN` is the registry of the four
papers: each paper module (:mod:`proofs.secretary`, :mod:`proofs.permute_flip`,
:mod:`proofs.multiselect`, :mod:`proofs.heterogeneous`) registers its identities with the
module-level :func:`identity` decorator, and :func:`identities` imports them in a fixed
order; ``optmech proofs check`` checks exactly these.  A user's own identities go into a
``Registry()`` of their own (or, with :func:`identity`, into the built-in one for the
session) and are checked and rendered the same way.  Registering a name again replaces the
earlier identity and warns with :class:`RegistryWarning` (re-running a notebook cell is not
an error); filter it like any Python warning.
"""

from __future__ import annotations

import importlib
import warnings
from dataclasses import dataclass
from typing import Callable, Iterator

import mpmath

__all__ = [
    "BUILTIN",
    "METHODS",
    "PAPERS",
    "STATUSES",
    "CheckResult",
    "Identity",
    "Outcome",
    "Registry",
    "RegistryWarning",
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

# built-in paper key -> the module that registers its identities (in this order)
PAPERS = {
    "secretary": "proofs.secretary",
    "permute-and-flip": "proofs.permute_flip",
    "multi-selection": "proofs.multiselect",
    "heterogeneous": "proofs.heterogeneous",
}


class RegistryWarning(UserWarning):
    """An identity name was registered again; the new identity replaces the old one."""


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

    ``paper`` is a key naming the source (the built-in keys are those of :data:`PAPERS`;
    any other key is grouped on its own); ``source`` is free text citing where the
    statement is printed; ``methods`` lists the methods used, the decisive one first (see
    :data:`METHODS`); ``sympy`` is the statement written as SymPy source (parseable by
    ``sympy.parse_expr(..., evaluate=False)``; undefined names are symbols or functions;
    may be empty for a user's identity).
    """

    name: str
    paper: str
    statement: str
    sympy: str
    source: str
    methods: tuple[str, ...]
    check: Callable[[], CheckResult]

    def __post_init__(self):
        for field_name in ("name", "paper", "statement", "source"):
            value = getattr(self, field_name)
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"{field_name} must be a non-empty string, got {value!r}")
        if not callable(self.check):
            raise ValueError(f"check must be callable, got {self.check!r}")
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


class Registry:
    """Named identities, checked and rendered together.

    ``Registry()`` is a user's own registry: ``@registry.identity(...)`` adds an identity,
    :meth:`check` runs them (an exception becomes ``failed``), and
    :func:`proofs.report.render` turns the outcomes into Markdown.  ``modules`` are imported
    before the identities are listed (the built-in registry imports the paper modules that
    fill it); ``paper_order`` puts those papers first, the others follow in the order they
    were first registered.  Names are unique: registering a name again replaces the earlier
    identity in place and warns with :class:`RegistryWarning`.
    """

    def __init__(self, modules=(), paper_order=()):
        self._modules = tuple(modules)
        self._paper_order = tuple(paper_order)
        self._identities: dict[str, Identity] = {}

    def add(self, ident: Identity) -> Identity:
        """Register ``ident`` (replacing, with a :class:`RegistryWarning`, one of that name)."""
        if not isinstance(ident, Identity):
            raise TypeError(f"expected an Identity, got {type(ident).__name__}")
        if ident.name in self._identities:
            warnings.warn(f"identity {ident.name!r} registered again: the new definition "
                          "replaces the earlier one", RegistryWarning, stacklevel=3)
        self._identities[ident.name] = ident
        return ident

    def identity(self, name: str, *, statement: str, source: str, methods: tuple[str, ...],
                 paper: str = "user", sympy: str = ""):
        """Decorator registering ``check`` (a function returning :class:`CheckResult`)."""

        def register(check: Callable[[], CheckResult]) -> Callable[[], CheckResult]:
            self.add(Identity(name, paper, statement, sympy, source, tuple(methods), check))
            return check

        return register

    def _load(self) -> None:
        for module in self._modules:
            importlib.import_module(module)

    def identities(self, names: list[str] | None = None) -> tuple[Identity, ...]:
        """Every identity (or those named), grouped by paper.

        An unknown name raises :class:`~optmech.validation.InvalidArgumentError`.
        """
        self._load()
        order = list(self._paper_order)
        for ident in self._identities.values():
            if ident.paper not in order:
                order.append(ident.paper)
        chosen = tuple(sorted(self._identities.values(), key=lambda i: order.index(i.paper)))
        if names is None:
            return chosen
        missing = [n for n in names if n not in self._identities]
        if missing:
            from optmech.validation import InvalidArgumentError
            raise InvalidArgumentError("name", missing[0], "the name of a registered identity")
        return tuple(i for i in chosen if i.name in names)

    def check(self, names: list[str] | None = None) -> list[Outcome]:
        """Check every identity (or those named), in registry order."""
        return [check_one(i) for i in self.identities(names)]

    def papers(self) -> tuple[str, ...]:
        """The paper keys of the registered identities, in registry order."""
        return tuple(dict.fromkeys(i.paper for i in self.identities()))

    def __contains__(self, name: object) -> bool:
        self._load()
        return name in self._identities

    def __iter__(self) -> Iterator[Identity]:
        return iter(self.identities())

    def __len__(self) -> int:
        self._load()
        return len(self._identities)


#: The registry of the four papers (what ``optmech proofs check`` checks).
# The paper modules, then further permute-and-flip identities beyond the paper's setting.
BUILTIN = Registry(modules=(*PAPERS.values(), "proofs.em_pf_ratio"), paper_order=tuple(PAPERS))


def identity(name: str, *, paper: str, statement: str, sympy: str, source: str,
             methods: tuple[str, ...]):
    """Decorator registering ``check`` in :data:`BUILTIN` (any ``paper`` key and ``source``)."""
    return BUILTIN.identity(name, paper=paper, statement=statement, sympy=sympy,
                            source=source, methods=methods)


def identities(names: list[str] | None = None) -> tuple[Identity, ...]:
    """Every identity of :data:`BUILTIN` (or those named), grouped by paper in
    :data:`PAPERS` order.  An unknown name raises
    :class:`~optmech.validation.InvalidArgumentError`."""
    return BUILTIN.identities(names)


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
    """Check every identity of :data:`BUILTIN` (or those named), in registry order."""
    return BUILTIN.check(names)


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
