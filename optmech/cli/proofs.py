"""``optmech proofs check|regenerate``: machine-checked identities of the papers.

``check`` runs every registered identity (:mod:`proofs.registry`) and prints a table, or
with ``--json`` one object (schema ``optmech.proofs.check``) whose ``identities`` list has
one object per identity (keys ``name``, ``paper``, ``source``, ``method``, ``status``,
``statement``, ``sympy``, ``evidence``, ``corrected``, ``counterexample``) and whose
``counts`` tallies them (``total``, ``verified``, ``erratum``, ``failed``).
``regenerate`` writes ``identities.md`` (the checked identities) and ``claims.md`` (the
claims inventory, :mod:`proofs.claims`); with ``--json`` it prints one object
``{"written": [paths], "identities": counts, "claims": counts}``.  ``check`` exits with
status 0 only when no identity is ``failed`` (1 otherwise); ``regenerate`` writes only from
a run in which every check passed: when one failed it writes nothing, says so in one line
(how many failed, the first one's name) and exits with status 1.  Bad input exits with
status 2.

Where ``regenerate`` writes: ``--output FILE`` and ``--claims-output FILE``; by default the
``docs`` folder of the source checkout when optmech runs from one, else ``docs`` under the
current directory (created if missing); the claims file defaults to ``claims.md`` beside
the identities file.  Both paths are checked before any identity is checked
(:func:`~optmech.cli._common.check_writable_path`: a regular file or a new one, never a
FIFO, in a folder we may create files in, with a name the file system accepts).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from optmech.cli._common import add_actions, check_writable_path, emit
from optmech.progress import progress
from optmech.resources import Estimate
from optmech.validation import InvalidArgumentError


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "proofs", help="check the papers' closed forms by machine",
        description="Check every registered identity of the papers (SymPy, exact fractions, "
                    "exhaustive enumeration, mpmath) and report verified / erratum / failed.",
        epilog="example: optmech proofs check --only secretary.threshold")
    actions = add_actions(parser)

    check = actions.add_parser("check", help="run the checks and print the outcomes",
                               description="Run the checks; exit status 0 only when nothing "
                                           "is failed.",
                               epilog="example: optmech proofs check --only "
                                      "secretary.threshold")
    check.add_argument("--json", action="store_true",
                       help="print one JSON object (the identities in a list, and their "
                            "counts) instead of a table")
    check.add_argument("--only", action="append", metavar="NAME", default=None,
                       help="check only this identity (repeatable), e.g. secretary.threshold")
    check.set_defaults(func=run_check, estimate=estimate)

    regenerate = actions.add_parser(
        "regenerate", help="write docs/identities.md and docs/claims.md",
        description="Run the checks and write the Markdown reports identities.md and "
                    "claims.md (deterministic: same input, same bytes).  Default folder: "
                    "docs/ of the source checkout, or docs/ under the current directory "
                    "when optmech is installed.",
        epilog="example: optmech proofs regenerate --output out/identities.md")
    regenerate.add_argument("--output", type=Path, default=None, metavar="FILE",
                            help="identities file (default: docs/identities.md)")
    regenerate.add_argument("--claims-output", type=Path, default=None, metavar="FILE",
                            help="claims file (default: claims.md beside the identities file)")
    regenerate.add_argument("--json", action="store_true",
                            help="print one JSON object (paths written, counts) instead of "
                                 "a line")
    regenerate.set_defaults(func=run_regenerate, estimate=estimate)


# CPU seconds of checking every identity (about 45 s on 2 cores, rounded up for a loaded
# machine) and the memory of the largest check (an exhaustive enumeration).
ALL_CHECKS_SECONDS, CHECK_BYTES = 150.0, 2**30


def estimate(args: argparse.Namespace) -> Estimate:
    """All the identities (``--only``: their share of the whole); the names and the files
    to write are checked here, before any work."""
    from proofs.registry import identities

    total = len(identities())
    _check_names(getattr(args, "only", None))
    if args.action == "regenerate":
        output_paths(args.output, args.claims_output)
    chosen = len(set(getattr(args, "only", None) or ())) or total
    return Estimate(ALL_CHECKS_SECONDS * min(chosen, total) / total, CHECK_BYTES, "--only",
                    f"{chosen} identities" if chosen < total else f"all {total} identities")


def _check_names(names: list[str] | None) -> None:
    """Refuse an ``--only`` that names no registered identity."""
    from proofs.registry import identities

    known = {i.name for i in identities()}
    for name in names or ():
        if name not in known:
            raise InvalidArgumentError("--only", name, "the name of a registered identity "
                                       "(listed by `optmech proofs check`)")


def _run(names: list[str] | None):
    from proofs.registry import check_one, identities

    _check_names(names)
    chosen = identities(names)
    outcomes, bar = [], progress(chosen, desc="identity")
    for identity in bar:
        bar.set_postfix_str(identity.name)
        outcomes.append(check_one(identity))
    return outcomes


def _exit_status(outcomes) -> int:
    return 1 if any(o.status == "failed" for o in outcomes) else 0


def run_check(args: argparse.Namespace) -> int:
    from proofs.report import counts, summary

    outcomes = _run(args.only)
    if args.json:
        # Fields that do not apply (corrected, counter-example of a verified identity) are
        # left out, never null.
        emit(args, {"identities": [o.to_json() for o in outcomes], "counts": counts(outcomes)},
             json.dumps)
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


def _writable_file(option: str, path: Path) -> Path:
    """``path`` if a file can be written there (:func:`check_writable_path`), else
    :class:`InvalidArgumentError` naming ``option``."""
    try:
        return check_writable_path(str(path), "file")
    except argparse.ArgumentTypeError as error:
        raise InvalidArgumentError(option, str(path), f"a file we may write ({error})") \
            from None


def _default_docs() -> Path:
    """The checkout's ``docs`` folder, else ``docs`` under the current directory (created
    here if missing; a one-line error asks for ``--output`` when that is impossible)."""
    from proofs.report import checkout_docs

    docs = checkout_docs() or Path.cwd() / "docs"
    if not docs.is_dir():
        try:
            docs.mkdir()
        except OSError as error:
            raise InvalidArgumentError(
                "--output", "(not given)", f"a file to write: the default {docs}/identities.md "
                f"cannot be created ({error.strerror})") from None
    return docs


def output_paths(output: Path | None, claims_output: Path | None) -> tuple[Path, Path]:
    """The identities and claims files ``regenerate`` writes, checked before any work."""
    identities = _writable_file("--output", output if output is not None
                                else _default_docs() / "identities.md")
    claims = _writable_file("--claims-output", claims_output if claims_output is not None
                            else identities.parent / "claims.md")
    if identities.resolve() == claims.resolve():
        raise InvalidArgumentError("--claims-output", str(claims),
                                   "a file other than the identities file")
    return identities, claims


def run_regenerate(args: argparse.Namespace) -> int:
    from proofs.claims import claims, coverage
    from proofs.claims.report import summary as claims_summary
    from proofs.claims.report import write as write_claims
    from proofs.report import counts, summary, write

    identities_path, claims_path = output_paths(args.output, args.claims_output)
    inventory = claims()
    outcomes = _run(None)
    failed = [o.identity.name for o in outcomes if o.status == "failed"]
    if failed:
        print(f"optmech: error: {len(failed)} of {len(outcomes)} identities failed their "
              f"check (first: {failed[0]}; `optmech proofs check --only {failed[0]}` shows "
              "why); nothing written", file=sys.stderr)
        return 1
    write(outcomes, identities_path)
    write_claims(claims_path, inventory)
    if args.json:
        emit(args, {"written": [str(identities_path), str(claims_path)],
                    "identities": counts(outcomes), "claims": coverage(inventory)}, json.dumps)
    else:
        print(f"wrote {identities_path}: {summary(outcomes)}")
        print(f"wrote {claims_path}: {claims_summary(inventory)}")
    return _exit_status(outcomes)
