"""Machine verification of the papers' closed forms (SymPy, mpmath, exact enumeration).

A registry of named identities (:mod:`proofs.registry`), one module per paper
(:mod:`proofs.secretary` with its reference computations in :mod:`proofs.secretary_exact`,
:mod:`proofs.permute_flip`, :mod:`proofs.multiselect`, :mod:`proofs.heterogeneous`), the
papers' citations (:mod:`proofs.papers`), the inventory of every checkable claim of the
papers with its verdict (:mod:`proofs.claims`), and the renderers of
``docs/identities.md`` (:mod:`proofs.report`) and ``docs/claims.md``.  Each check returns
``verified``, ``erratum`` (printed statement false; counter-example and verified correction
given) or ``failed``.  From the shell: ``optmech proofs check [--json]`` and
``optmech proofs regenerate [--json]``; from Python::

    from proofs import check_all
    outcomes = check_all(["secretary.rank_distribution"])
    outcomes[0].status, outcomes[0].result.counterexample

A user's own identities go into a :class:`Registry` of their own (``docs/guide/proofs.md``).
"""

from proofs.registry import (
    BUILTIN,
    CheckResult,
    Identity,
    Outcome,
    Registry,
    RegistryWarning,
    check_all,
    check_one,
    erratum_if,
    identities,
    identity,
    verified_if,
)

__all__ = ["BUILTIN", "CheckResult", "Identity", "Outcome", "Registry", "RegistryWarning",
           "check_all", "check_one", "erratum_if", "identities", "identity", "verified_if"]
