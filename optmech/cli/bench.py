"""``optmech bench [--quick] [--only NAME ...] [--json]``: run ``python -m benchmarks`` of the
checkout.

The benchmarks live in the repository's ``benchmarks/`` folder (not installed with the
package: they write their tables into that folder), so this command needs a source checkout:
the current directory or the one the ``optmech`` package was installed from in editable mode.
A full run writes ``benchmarks/results/*.md`` and ``benchmarks/RESULTS.md``; ``--quick``
(small sizes, a few minutes) writes into ``benchmarks/results/quick/`` only.  ``--json``
prints one JSON object: ``quick``, ``modules``, ``seconds`` (each module's wall seconds),
``tables`` (the files each module wrote) and ``results`` (the collected file).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import optmech
from optmech.cli._common import add_json_flag, emit
from optmech.validation import InvalidArgumentError


def benchmarks_checkout() -> Path:
    """The repository root holding ``benchmarks/__main__.py``: the current directory first,
    then the parent of the ``optmech`` package (an editable install)."""
    for root in (Path.cwd(), Path(optmech.__file__).resolve().parent.parent):
        if (root / "benchmarks" / "__main__.py").is_file():
            return root
    raise InvalidArgumentError("checkout", str(Path.cwd()),
                               "a source checkout of optmech (benchmarks/ is not installed "
                               "with the package): run this from the repository")


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "bench", help="run the benchmarks and write benchmarks/RESULTS.md",
        description="Run every benchmark module (python -m benchmarks) of the source "
                    "checkout: times as medians with min/max over at least 5 runs, ratios "
                    "against baselines measured in the same run.")
    parser.add_argument("--quick", action="store_true",
                        help="small sizes, a few minutes; tables go to "
                             "benchmarks/results/quick/ (never over the full-size tables)")
    parser.add_argument("--only", action="append", metavar="NAME", default=[],
                        help="run only this module of benchmarks/ (repeatable)")
    add_json_flag(parser)
    parser.set_defaults(func=run_bench)


def run_bench(args: argparse.Namespace) -> int:
    import subprocess

    root = benchmarks_checkout()
    known = sorted(p.stem for p in (root / "benchmarks").glob("*.py")
                   if not p.stem.startswith("_"))
    for name in args.only:
        if name not in known:
            raise InvalidArgumentError("--only", name, "one of " + ", ".join(known))
    command = [sys.executable, "-m", "benchmarks", *(["--quick"] if args.quick else [])]
    for name in args.only:
        command += ["--only", name]
    if not args.json:
        return subprocess.run(command, cwd=root).returncode
    done = subprocess.run([*command, "--json"], cwd=root, stdout=subprocess.PIPE, text=True)
    if done.returncode != 0:
        return done.returncode          # the runner printed its one-line error
    emit(args, json.loads(done.stdout), json.dumps)     # checked: finite, no null
    return 0
