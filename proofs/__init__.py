"""Machine verification of the papers' closed forms (SymPy, mpmath, exact enumeration).

A registry of named identities (:mod:`proofs.registry`), one module per paper
(:mod:`proofs.secretary` with its reference computations in :mod:`proofs.secretary_exact`,
:mod:`proofs.permute_flip`, :mod:`proofs.multiselect`, :mod:`proofs.heterogeneous`), and the
renderer of ``docs/identities.md`` (:mod:`proofs.report`).  Each check returns
``verified``, ``erratum`` (printed statement false; counter-example and verified correction
given) or ``failed``.  From the shell: ``optmech proofs check [--json]`` and
``optmech proofs regenerate``; from Python::

    from proofs import check_all
    outcomes = check_all(["secretary.rank_distribution"])
    outcomes[0].status, outcomes[0].result.counterexample
"""

from proofs.registry import CheckResult, Identity, Outcome, check_all, check_one, identities

__all__ = ["CheckResult", "Identity", "Outcome", "check_all", "check_one", "identities"]
