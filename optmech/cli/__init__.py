"""The ``optmech`` command: one subcommand per area.

Each module in this package that defines ``register(subparsers)`` adds its subcommand; the
module sets ``func`` on its parser, a callable taking the parsed arguments and returning an
exit status.  Bad input raises :class:`~optmech.validation.InvalidArgumentError` (or
argparse rejects it); either way the user sees one line on stderr and exit status 2.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

from optmech.cli._common import OneLineParser, fail_usage
from optmech.validation import InvalidArgumentError

__all__ = ["build_parser", "main"]


def build_parser() -> OneLineParser:
    parser = OneLineParser(
        prog="optmech",
        description="Optimal differentially private selection: exact mechanisms, "
                    "LP optima, and machine-checked closed forms.")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND",
                                       parser_class=OneLineParser)
    subparsers.required = True
    for module_info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if module_info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{module_info.name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except InvalidArgumentError as error:
        fail_usage(str(error))
    except BrokenPipeError:  # e.g. `optmech ... | head`
        return 0


if __name__ == "__main__":
    sys.exit(main())
