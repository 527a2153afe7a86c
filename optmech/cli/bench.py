"""``optmech bench [--quick] [--only NAME ...]``: run ``python -m benchmarks`` of the checkout.

The benchmarks live in the repository's ``benchmarks/`` folder (not installed with the
package: they write their tables into that folder), so this command needs a source checkout:
the current directory or the one the ``optmech`` package was installed from in editable mode.
It forwards to ``python -m benchmarks``, which writes ``benchmarks/RESULTS.md``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import optmech
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
        description="Run every benchmark module (python -m benchmarks) of the source checkout; "
                    "each table is a ratio measured against a baseline in the same run.")
    parser.add_argument("--quick", action="store_true", help="smaller sizes in every module")
    parser.add_argument("--only", action="append", metavar="NAME", default=[],
                        help="run only this module (repeatable): dilp, exact_sampling, gem, "
                             "lattice, selection, stopping")
    parser.set_defaults(func=run_bench)


def run_bench(args: argparse.Namespace) -> int:
    root = benchmarks_checkout()
    known = sorted(p.stem for p in (root / "benchmarks").glob("*.py")
                   if not p.stem.startswith("_"))
    for name in args.only:
        if name not in known:
            raise InvalidArgumentError("--only", name, "one of " + ", ".join(known))
    command = [sys.executable, "-m", "benchmarks", *(["--quick"] if args.quick else [])]
    for name in args.only:
        command += ["--only", name]
    return subprocess.run(command, cwd=root).returncode
