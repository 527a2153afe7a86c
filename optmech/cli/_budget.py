"""Every command estimates the work and memory its arguments need, before it starts.

Each command that runs (a leaf of the parser) sets ``estimate`` beside ``func``: a function
of the parsed arguments returning an :class:`~optmech.resources.Estimate` (CPU seconds,
peak bytes, the option that sets them and its value).  :func:`optmech.cli.main` calls
:func:`require_estimate` after parsing, inside the budgets of ``--max-work`` and
``--max-memory``, and before ``func``: what exceeds a budget is refused (exit status 2, one
line naming the option, the estimate and the budget) before any work.  A test checks that
every command has an estimate, and that the estimates refuse large requests under a small
budget.

How a new command plugs in::

    def estimate(args) -> Estimate:        # from the library's own estimator where it has one
        return Estimate(seconds, nbytes, "--option", args.option)
    parser.set_defaults(func=run, estimate=estimate)

Estimates count the work the arguments set, not the start-up every command shares (the
imports: about 0.5 to 2 CPU s and 100 MiB); they are upper bounds from CPU timings on a
loaded 2-core machine (each command's constants say where they come from), which refuse the
absurd and the plainly too large; they are not a time limit.  The library functions
behind a command that can be asked for large work refuse it themselves too
(``require_memory``, ``require_work``), so a script gets the same refusal.
"""

from __future__ import annotations

import argparse

from optmech.resources import Estimate, require

__all__ = ["require_estimate"]


def require_estimate(args: argparse.Namespace) -> Estimate:
    """The command's estimate, checked against the current budgets (refused with
    :class:`~optmech.validation.ResourceLimitError` when it exceeds one)."""
    return require(args.estimate(args))
