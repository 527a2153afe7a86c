"""``optmech proofs check|regenerate``: machine-checked identities of the papers.

``check`` runs every registered identity (:mod:`proofs.registry`) and prints a table, or
with ``--json`` a JSON *list* with one object per identity (keys ``name``, ``paper``,
``source``, ``method``, ``status``, ``statement``, ``sympy``, ``evidence``, ``corrected``,
``counterexample``).  ``regenerate`` writes ``docs/identities.md``.  Both exit with status 0
only when no identity is ``failed`` (1 otherwise); bad input exits with status 2.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from optmech.cli._common import add_actions, without_undefined
from optmech.progress import progress
from optmech.validation import InvalidArgumentError


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "proofs", help="check the papers' closed forms by machine",
        description="Check every registered identity of the papers (SymPy, exact fractions, "
                    "exhaustive enumeration, mpmath) and report verified / erratum / failed.")
    actions = add_actions(parser)

    check = actions.add_parser("check", help="run the checks and print the outcomes",
                               description="Run the checks; exit status 0 only when nothing "
                                           "is failed.")
    check.add_argument("--json", action="store_true",
                       help="print a JSON list, one object per identity, instead of a table")
    check.add_argument("--only", action="append", metavar="NAME", default=None,
                       help="check only this identity (repeatable), e.g. secretary.threshold")
    check.set_defaults(func=run_check)

    regenerate = actions.add_parser("regenerate", help="write docs/identities.md",
                                    description="Run the checks and write the Markdown report "
                                                "(deterministic: same input, same bytes).")
    regenerate.add_argument("--output", type=Path, default=None,
                            help="file to write (default: docs/identities.md of the checkout)")
    regenerate.set_defaults(func=run_regenerate)


def _run(names: list[str] | None):
    from proofs.registry import check_one, identities

    known = {i.name for i in identities()}
    for name in names or ():
        if name not in known:
            raise InvalidArgumentError("--only", name, "the name of a registered identity "
                                       "(listed by `optmech proofs check`)")
    chosen = identities(names)
    return [check_one(i) for i in progress(chosen, total=len(chosen), desc="proofs")]


def _exit_status(outcomes) -> int:
    return 1 if any(o.status == "failed" for o in outcomes) else 0


def run_check(args: argparse.Namespace) -> int:
    from proofs.report import summary

    outcomes = _run(args.only)
    if args.json:
        # Fields that do not apply (corrected, counter-example of a verified identity) are
        # left out, never null.
        print(json.dumps([without_undefined(o.to_json()) for o in outcomes]))
        return _exit_status(outcomes)
    width = max(len(o.identity.name) for o in outcomes)
    print(f"{'identity'.ljust(width)}  status    method")
    print(f"{'-' * width}  --------  ------")
    for o in outcomes:
        print(f"{o.identity.name.ljust(width)}  {o.status.ljust(8)}  {o.identity.method}")
    for o in outcomes:
        if o.status == "erratum":
            print(f"\n{o.identity.name}: erratum\n  counter-example: {o.result.counterexample}"
                  f"\n  corrected: {o.result.corrected}")
        elif o.status == "failed":
            print(f"\n{o.identity.name}: FAILED\n  " + o.result.evidence.replace("\n", "\n  "))
    print("\n" + summary(outcomes))
    return _exit_status(outcomes)


def run_regenerate(args: argparse.Namespace) -> int:
    from proofs.report import DEFAULT_PATH, summary, write

    path = DEFAULT_PATH if args.output is None else args.output
    if path.is_dir() or not path.parent.is_dir():
        raise InvalidArgumentError("--output", str(path), "a file in an existing directory")
    outcomes = _run(None)
    write(outcomes, path)
    print(f"wrote {path}: {summary(outcomes)}")
    return _exit_status(outcomes)
