"""The ``optmech`` command: one subcommand per area.

Each module in this package that defines ``register(subparsers)`` adds its subcommand; the
module sets ``func`` on its parser, a callable taking the parsed arguments and returning an
exit status.  :func:`main` is the one place that turns outcomes into exit statuses, each
with one line on stderr and never a traceback:

* 0: a finite, checked result (``emit`` refuses to print a non-finite number);
* 1: a computation or solver could not finish (``SolverError`` with the HiGHS status,
  ``IntegrationError``, a result that overflows a double, a numerical warning, a Dask
  cluster that went away, a file that could not be written, an internal error);
* 2: bad input, named with the option's own spelling (``InvalidArgumentError``, argparse),
  including a request whose estimated memory or CPU time exceeds the budget
  (``--max-memory``, ``--max-work``) and an option whose arithmetic overflows a double;
* 130: interrupted (Ctrl-C) at any point after this module is imported (it imports only
  the standard library, so the window before is the interpreter's own start-up); a
  sweep's cache stays consistent (entries are written atomically);
* 143: terminated (SIGTERM, what ``kill``, a batch system or a container stop sends),
  handled as Ctrl-C is: :class:`Terminated` (a ``KeyboardInterrupt``) is raised where the
  program runs, so the same clean-up runs (a sweep's pool stopped, a file being written
  removed, ``lattice bound``'s bracket printed) and one line says so.  Before, SIGTERM
  killed the process with no line, and left the hidden temporary file of a file being
  written (6 of 15 runs stopped at random while writing a PNG and a CSV; SIGKILL still
  can leave one: the next write into that folder removes it, :mod:`lp_models.atomic`).

Before a command runs, its estimate of the CPU time and memory its arguments need is
checked against the budgets (``--max-work``, ``--max-memory``; :mod:`optmech.cli._budget`),
so what would exceed them is refused before any work (status 2).

Numerical warnings (``RuntimeWarning`` from numpy, ``UserWarning`` such as scipy's
``IntegrationWarning``) are turned into the errors they signal, so none reaches stderr and
none hides behind a printed number; other warnings (deprecations in libraries) are not the
user's concern and are not shown.  ``OPTMECH_DEBUG=1`` re-raises unexpected errors with
their traceback.
"""

from __future__ import annotations

# Only the standard library and optmech's version at import: the console script imports
# this module before main() runs, and a Ctrl-C there could not be caught.  The rest is
# imported inside main(), where Ctrl-C is exit status 130.
import importlib
import os
import pkgutil
import signal
import sys
import warnings

from optmech._version import __version__

__all__ = ["Terminated", "build_parser", "main"]

# The signals main() turns into exceptions, their one line and their exit status.
_STOPS = {signal.SIGINT: ("interrupted", 130), signal.SIGTERM: ("terminated", 143)}


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread while :func:`main` runs.  A ``KeyboardInterrupt``,
    so every clean-up written for Ctrl-C runs for it too."""


def _terminate(signum, frame):
    raise Terminated

# API argument names whose CLI option is spelt differently.
_OPTION_ALIASES = {"epsilon": "--eps", "epsilons": "--eps", "ns": "--n", "ks": "--depth",
                   "k": "--depth",
                   "cache_dir": "--cache", "name": "--only", "histogram": "--dataset",
                   "source": "--dataset", "out": "--out", "path": "--output",
                   "max_memory": "--max-memory"}


def build_parser(command: str | None = None):
    """The ``optmech`` parser: every module of this package with a ``register`` adds its
    command; every command that runs (a leaf) gets the common flags and must set
    ``estimate`` (the work and memory its arguments need, :mod:`optmech.cli._budget`).
    With ``command`` (an area's module name, which is its sub-command's name) only that
    area is registered: a light command then imports none of the other areas (about 40 ms
    of start-up CPU, measured on ``select pmf``)."""
    from optmech.cli._common import OneLineParser, add_common_flags

    parser = OneLineParser(
        prog="optmech",
        description="Optimal differentially private selection: exact mechanisms, "
                    "LP optima, and machine-checked closed forms.",
        epilog="example: optmech select error --mechanism pf --scores 0,-1,-3 --eps 1")
    parser.add_argument("--version", action="version", version=f"optmech {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND",
                                       parser_class=OneLineParser)
    subparsers.required = True
    names = sorted(m.name for m in pkgutil.iter_modules(__path__) if not m.name.startswith("_"))
    for name in [command] if command in names else names:
        module = importlib.import_module(f"{__name__}.{name}")
        register = getattr(module, "register", None)
        if register is not None:
            register(subparsers)
    for leaf in _leaf_parsers(parser):
        add_common_flags(leaf)
        leaf.set_defaults(_prog=leaf.prog, _options=frozenset(
            s for action in leaf._actions for s in action.option_strings))
    return parser


def _children(parser) -> list:
    """The parsers of ``parser``'s sub-commands (each once: an alias is the same parser)."""
    return [choice for action in parser._actions
            if action.__class__.__name__ == "_SubParsersAction"
            for choice in dict.fromkeys(action.choices.values())]


def _all_parsers(parser):
    """``parser`` and every parser under it: each ``--help`` page (the top level, the areas,
    the commands)."""
    yield parser
    for child in _children(parser):
        yield from _all_parsers(child)


def _leaf_parsers(parser):
    """Every parser that runs a command (has no sub-commands of its own)."""
    return (page for page in _all_parsers(parser) if not _children(page))


def _cli_spelling(error, options: frozenset):
    """``error`` with its argument spelt as the command's option (``epsilon`` -> ``--eps``).
    An API argument that no option sets directly (a scenario's ``t``) is validated where
    the option is parsed instead (an argparse type), so the refusal names the option."""
    parts = [p.strip() for p in error.argument.split(",")]
    spelt = []
    for part in parts:
        for candidate in (_OPTION_ALIASES.get(part), "--" + part.replace("_", "-")):
            if candidate in options:
                spelt.append(candidate)
                break
        else:
            spelt.append(part)
    return error.renamed(", ".join(spelt)) if spelt != parts else error


def _fail(message: str, status: int = 1) -> int:
    from optmech.cli._common import one_line

    print(f"optmech: error: {one_line(message)}", file=sys.stderr)
    return status


def main(argv: list[str] | None = None) -> int:
    """Run ``optmech ARGV``; the exit status (module docstring).  Ctrl-C (SIGTERM) at any
    point of the run, from the first import on, is status 130 (143) with one line.  Run as
    the program (``argv`` None), both are ignored once the status is known: the
    interpreter's own teardown after it (freeing the numerical libraries, a tenth of a
    second or more on a busy machine) restores the default handler, and a Ctrl-C there
    killed the process by signal after the whole result was printed.  Called with
    arguments (as a library), the caller's SIGTERM handler is restored afterwards."""
    previous = None
    try:
        try:
            previous = _set_handler(signal.SIGTERM, _terminate)
            return _run(argv)
        finally:        # a signal after this is ignored (the program) or the caller's
            if argv is None:
                for signum in _STOPS:
                    _set_handler(signum, signal.SIG_IGN)
            elif previous is not None:
                _set_handler(signal.SIGTERM, previous)
    except KeyboardInterrupt as stop:
        return _stopped(signal.SIGTERM if isinstance(stop, Terminated) else signal.SIGINT)


def _set_handler(signum, handler):
    """``signal.signal``, or None outside the main thread (where no handler can be set)."""
    try:
        return signal.signal(signum, handler)
    except ValueError:
        return None


def _stopped(signum) -> int:
    """One line for the signal that stopped the run (a further Ctrl-C or SIGTERM while it is
    printed is ignored); its exit status."""
    word, status = _STOPS[signum]
    previous = {other: _set_handler(other, signal.SIG_IGN) for other in _STOPS}
    try:
        print(f"optmech: {word}", file=sys.stderr)
    finally:
        for other, handler in previous.items():
            if handler is not None:
                _set_handler(other, handler)
    return status


def _run(argv: list[str] | None) -> int:
    from optmech.cli._budget import require_estimate
    from optmech.cli._common import fail_usage
    from optmech.progress import activity, reporting
    from optmech.resources import memory_budget, work_budget
    from optmech.validation import InvalidArgumentError

    words = sys.argv[1:] if argv is None else argv
    args = None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            warnings.simplefilter("error", RuntimeWarning)
            warnings.simplefilter("error", UserWarning)
            args = build_parser(words[0] if words else None).parse_args(argv)
            with reporting(lines=True, quiet=args.quiet), memory_budget(args.max_memory), \
                    work_budget(args.max_work):
                estimate = require_estimate(args)
                with activity(args._prog.removeprefix("optmech "),
                              at_once=estimate.seconds >= 1):
                    return int(args.func(args) or 0)
    except InvalidArgumentError as error:
        fail_usage(str(_cli_spelling(error, getattr(args, "_options", frozenset()))))
    except BrokenPipeError:  # e.g. `optmech ... | head`
        return 0
    except (ArithmeticError, MemoryError, RuntimeError, OSError, Warning) as error:
        if isinstance(error, NotImplementedError) or os.environ.get("OPTMECH_DEBUG"):
            raise
        kind = "numerical warning: " if isinstance(error, Warning) else ""
        if isinstance(error, MemoryError):
            kind = "out of memory (raise --max-memory only if the machine has it): "
        return _fail(f"{kind}{error}" if str(error) else type(error).__name__)
    except Exception as error:  # noqa: BLE001 - a bug must still be one line, exit 1
        if os.environ.get("OPTMECH_DEBUG"):
            raise
        return _fail(f"internal error ({type(error).__name__}: {error}); please report it "
                     "with the command line (OPTMECH_DEBUG=1 shows the traceback)")


if __name__ == "__main__":
    sys.exit(main())
