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

``methods`` is free text: the six entries of :data:`METHODS` are the ones the built-in
identities use, offered as suggestions, and any other non-empty description (``"certified
LP"``) is accepted as well.

A :class:`Registry` holds identities by name.  :data:`BUILTIN` is the registry of the four
papers: each paper module (:mod:`proofs.secretary`, :mod:`proofs.permute_flip`,
:mod:`proofs.multiselect`, :mod:`proofs.heterogeneous`) registers its identities with the
module-level :func:`identity` decorator, and :func:`identities` imports them in a fixed
order; ``optmech proofs check`` checks exactly these.  A user's own identities go into a
``Registry()`` of their own (or, with :func:`identity`, into the built-in one for the
session) and are checked and rendered the same way.  Registering a name again replaces the
earlier identity and warns with :class:`RegistryWarning` (re-running a notebook cell is not
an error); filter it like any Python warning.  :meth:`Registry.render` writes a registry's
outcomes as Markdown under the registry's own title and preamble (the built-in registry's
are those of ``docs/identities.md``).

In a notebook an :class:`Outcome` shows as a small table (name, status, method, source) and
:meth:`Registry.check` returns a :class:`~lp_models.display.ResultList` whose
``to_frame()`` is one row per identity.
"""

from __future__ import annotations

import importlib
import warnings
from dataclasses import dataclass
from typing import Callable, Iterator

import mpmath

from lp_models.display import Displayed, ResultList, Tabular

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

#: The methods the built-in identities use: suggestions, not a closed list (any non-empty
#: text names a method).
METHODS = (
    "symbolic simplification",
    "exact rational arithmetic",
    "exact enumeration",
    "mpmath at 50 digits",
    "asymptotic limit",
    "numerical optimisation",
)

#: What the three statuses mean, as every rendered registry says it.
STATUS_TEXT = (
    "Status `verified`: the statement holds, by the method named.  Status `erratum`: the "
    "printed statement is false; the counter-example is shown and the corrected statement "
    "is verified.  Status `failed`: the check could not confirm the statement (an "
    "unexplained bug in the code or in the paper).")

#: The preamble of a user's registry unless it gives its own.
USER_PREAMBLE = f"Every identity below is checked by machine.  {STATUS_TEXT}"

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
    statement is printed; ``methods`` lists the methods used, the decisive one first, as
    free text (:data:`METHODS` lists the built-in ones; a single string is one method);
    ``sympy`` is the statement written as SymPy source (parseable by
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
        methods = (self.methods,) if isinstance(self.methods, str) else tuple(self.methods)
        if not methods or not all(isinstance(m, str) and m.strip() for m in methods):
            raise ValueError(f"methods must be one or more non-empty descriptions (e.g. "
                             f"{METHODS[0]!r}), got {self.methods!r}")
        object.__setattr__(self, "methods", methods)

    @property
    def method(self) -> str:
        return ", ".join(self.methods)


@dataclass(frozen=True, repr=False)
class Outcome(Displayed, Tabular):
    """An identity together with the result of checking it.  ``repr`` and the notebook
    table show its name, status, method and source; :meth:`records` is its one row of
    :meth:`to_json`."""

    identity: Identity
    result: CheckResult

    @property
    def name(self) -> str:
        return self.identity.name

    @property
    def status(self) -> str:
        return self.result.status

    _display = ("name", "status")

    def _repr_items(self):
        return [*super()._repr_items(), ("method", self.identity.method),
                ("source", self.identity.source)]

    def _display_items(self):
        res = self.result
        extra = [("counter-example", res.counterexample), ("corrected", res.corrected)]
        return [*self._repr_items(), ("paper", self.identity.paper),
                ("statement", self.identity.statement),
                *[(k, v) for k, v in extra if v is not None]]

    def records(self) -> list[dict]:
        return [self.to_json()]

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
    :meth:`check` runs them (an exception becomes ``failed``), and :meth:`render` turns the
    outcomes into Markdown headed by the registry's ``title`` and ``preamble`` (a
    paragraph; the default says what the statuses mean).  ``modules`` are imported
    before the identities are listed (the built-in registry imports the paper modules that
    fill it); ``paper_order`` puts those papers first, the others follow in the order they
    were first registered.  Names are unique: registering a name again replaces the earlier
    identity in place and warns with :class:`RegistryWarning`.
    """

    def __init__(self, modules=(), paper_order=(), *, title: str = "Checked identities",
                 preamble: str = USER_PREAMBLE):
        self._modules = tuple(modules)
        self._paper_order = tuple(paper_order)
        self._identities: dict[str, Identity] = {}
        self.title = title
        self.preamble = preamble

    def __repr__(self) -> str:
        return f"Registry(title={self.title!r}, identities={len(self)})"

    def add(self, ident: Identity) -> Identity:
        """Register ``ident`` (replacing, with a :class:`RegistryWarning`, one of that name)."""
        if not isinstance(ident, Identity):
            raise TypeError(f"expected an Identity, got {type(ident).__name__}")
        if ident.name in self._identities:
            warnings.warn(f"identity {ident.name!r} registered again: the new definition "
                          "replaces the earlier one", RegistryWarning, stacklevel=3)
        self._identities[ident.name] = ident
        return ident

    def identity(self, name: str, *, statement: str, source: str, methods,
                 paper: str = "user", sympy: str = ""):
        """Decorator registering ``check`` (a function returning :class:`CheckResult`).

        ``methods``: free-text method names, the decisive one first (a single string is
        one method; :data:`METHODS` lists the built-in ones).  ``paper``: the key the
        identity is grouped under; ``sympy``: the statement as SymPy source, or empty."""

        def register(check: Callable[[], CheckResult]) -> Callable[[], CheckResult]:
            self.add(Identity(name, paper, statement, sympy, source, methods, check))
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

    def check(self, names: list[str] | None = None) -> ResultList:
        """Check every identity (or those named), in registry order (a list of
        :class:`Outcome`; ``to_frame()``: one row per identity)."""
        return ResultList(check_one(i) for i in self.identities(names))

    def render(self, outcomes: list[Outcome] | None = None) -> str:
        """Markdown of ``outcomes`` (default: :meth:`check` every identity) under this
        registry's ``title`` and ``preamble`` (:func:`proofs.report.render`)."""
        from proofs.report import render

        return render(self.check() if outcomes is None else outcomes, self)

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
BUILTIN = Registry(
    modules=(*PAPERS.values(), "proofs.em_pf_ratio"), paper_order=tuple(PAPERS),
    title="Machine-checked identities",
    preamble="Every entry is a statement printed in one of the papers (cited in full in "
             "`docs/papers.md`), or one this toolkit derives where a paper leaves a gap, "
             f"checked by machine.  {STATUS_TEXT}  Run `optmech proofs check` to recheck, "
             "`optmech proofs check --json` for a machine-readable list.")


def identity(name: str, *, statement: str, source: str, methods, paper: str = "user",
             sympy: str = ""):
    """Decorator registering ``check`` in :data:`BUILTIN`; the same arguments as
    :meth:`Registry.identity`."""
    return BUILTIN.identity(name, statement=statement, source=source, methods=methods,
                            paper=paper, sympy=sympy)


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


def check_all(names: list[str] | None = None) -> ResultList:
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
