"""``optmech bench [--quick] [--only NAME ...] [--json]``: run ``python -m benchmarks`` of the
checkout.

The benchmarks live in the repository's ``benchmarks/`` folder (not installed with the
package: they write their tables into that folder), so this command needs a source
checkout: the one the running ``optmech`` package comes from (a clone, or an editable
install of one), found by the package's own location.  The current folder plays no part:
a ``benchmarks/`` folder planted where the command runs is never imported or run.
Installed from a wheel, the command refuses (exit status 2) and says it needs a checkout.
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
from optmech.resources import Estimate
from optmech.validation import InvalidArgumentError


def benchmarks_checkout() -> Path:
    """The source checkout the running ``optmech`` package comes from: the folder above
    the package, when it holds ``pyproject.toml`` and ``benchmarks/__main__.py``."""
    root = Path(optmech.__file__).resolve().parent.parent
    if (root / "pyproject.toml").is_file() and (root / "benchmarks" / "__main__.py").is_file():
        return root
    raise InvalidArgumentError("optmech bench", str(root),
                               "run from a source checkout of optmech (git clone, then pip "
                               "install -e .): the benchmarks are not installed with the "
                               "package")


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "bench", help="run the benchmarks and write benchmarks/RESULTS.md (needs a source "
                      "checkout)",
        description="Run every benchmark module (python -m benchmarks) of the source "
                    "checkout: times as medians with min/max over at least 5 runs, ratios "
                    "against baselines measured in the same run.",
        epilog="example: optmech bench --quick --only gem")
    parser.add_argument("--quick", action="store_true",
                        help="small sizes, a few minutes; tables go to "
                             "benchmarks/results/quick/ (never over the full-size tables)")
    parser.add_argument("--only", action="append", metavar="NAME", default=[],
                        help="run only this module of benchmarks/ (repeatable)")
    add_json_flag(parser)
    parser.set_defaults(func=run_bench, estimate=estimate)


# CPU seconds of one benchmark module (quick, full): the quick run of all of them takes
# under 3 minutes on 2 cores, a full module up to about 6 minutes (selection: 380 s).
MODULE_SECONDS = (30.0, 300.0)


def estimate(args: argparse.Namespace) -> Estimate:
    """Each module's share: :data:`MODULE_SECONDS` per module (every module of the
    checkout's ``benchmarks/`` without ``--only``).  The checkout and the names are checked
    here, before any work."""
    modules = len(_chosen(args))
    return Estimate(MODULE_SECONDS[0 if args.quick else 1] * modules, 2**30, "--only",
                    ",".join(args.only) if args.only else f"all {modules} modules"
                    + ("" if args.quick else " (no --quick)"))


def _modules(root: Path) -> list[str]:
    """The benchmark modules of the checkout at ``root``."""
    return sorted(p.stem for p in (root / "benchmarks").glob("*.py")
                  if not p.stem.startswith("_"))


def _chosen(args: argparse.Namespace) -> list[str]:
    """The modules to run (every one without ``--only``), refused when there is no
    checkout or a name is not one of its modules."""
    known = _modules(benchmarks_checkout())
    for name in args.only:
        if name not in known:
            raise InvalidArgumentError("--only", name, "one of " + ", ".join(known))
    return list(args.only) or known


def run_bench(args: argparse.Namespace) -> int:
    import subprocess

    root = benchmarks_checkout()
    _chosen(args)
    # run in the checkout: `-m benchmarks` imports the checkout's own package
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
