"""Shared pieces of the CLI: the one-line-error parser, argument types, output."""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any, Callable, Sequence

import numpy as np

from optmech.jsonable import to_jsonable

__all__ = [
    "OneLineParser",
    "add_json_flag",
    "add_sweep_flags",
    "emit",
    "fail_usage",
    "float_list",
    "float_range",
    "format_table",
    "int_list",
    "positive_float",
    "positive_int",
    "sweep_options",
]


def fail_usage(message: str) -> None:
    """Print ``optmech: error: message`` on one line and exit with status 2."""
    print(f"optmech: error: {message}", file=sys.stderr)
    raise SystemExit(2)


class OneLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line on stderr (no usage block)."""

    def error(self, message: str):  # noqa: D401 - argparse API
        fail_usage(f"{self.prog}: {message}")


def _number(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None


def positive_float(text: str) -> float:
    """argparse type: a finite number > 0."""
    value = _number(text)
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {text}")
    return value


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {text}")
    return value


def float_list(text: str) -> list[float]:
    """argparse type: comma-separated numbers, e.g. ``0,-1,-3``."""
    parts = [p.strip() for p in text.split(",")]
    if not text.strip() or any(p == "" for p in parts):
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}")
    return [_number(p) for p in parts]


def int_list(text: str) -> list[int]:
    """argparse type: comma-separated integers, e.g. ``3,4,5,6``."""
    values = []
    for part in text.split(","):
        try:
            values.append(int(part.strip()))
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"expected comma-separated integers, got {text!r}") from None
    return values


def float_range(text: str) -> list[float]:
    """argparse type: ``START:STOP:NUM`` (NUM evenly spaced values, both ends included)
    or a comma-separated list."""
    if ":" not in text:
        return float_list(text)
    parts = text.split(":")
    if len(parts) != 3:
        raise argparse.ArgumentTypeError(f"expected START:STOP:NUM, got {text!r}")
    start, stop = _number(parts[0]), _number(parts[1])
    try:
        num = int(parts[2])
    except ValueError:
        raise argparse.ArgumentTypeError(f"NUM must be an integer in {text!r}") from None
    if num < 1 or not (math.isfinite(start) and math.isfinite(stop)):
        raise argparse.ArgumentTypeError(f"expected finite START, STOP and NUM >= 1 in {text!r}")
    return np.linspace(start, stop, num).tolist()


def add_actions(parser: argparse.ArgumentParser, metavar: str = "ACTION"):
    """The required sub-commands of a command (``args.action``), parsed by the command's
    own parser class, so bad input stays one line and exit status 2."""
    actions = parser.add_subparsers(dest="action", metavar=metavar, parser_class=type(parser))
    actions.required = True
    return actions


def add_sweep_flags(parser: argparse.ArgumentParser) -> None:
    """``--workers``, ``--dask-scheduler`` and ``--cache`` for commands that sweep cells
    (:func:`optmech.sweep.run_sweep`); read them back with :func:`sweep_options`."""
    parser.add_argument("--workers", type=positive_int, default=1,
                        help="run cells on a local process pool of this size (default 1)")
    parser.add_argument("--dask-scheduler", metavar="ADDRESS",
                        help="send the cells to an existing Dask cluster (tcp://host:port)")
    parser.add_argument("--cache", metavar="DIR",
                        help="cache finished cells here, so an interrupted sweep resumes")


def sweep_options(args: argparse.Namespace) -> dict:
    """Keyword arguments of :func:`optmech.sweep.run_sweep` from :func:`add_sweep_flags`."""
    return {"workers": args.workers, "dask_scheduler": args.dask_scheduler,
            "cache_dir": args.cache}


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object instead of a table")


def format_table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A plain aligned text table; floats with 10 significant digits."""
    def cell(v):
        if isinstance(v, (float, np.floating)):
            return f"{float(v):.10g}"
        return str(v)

    body = [[cell(v) for v in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in body)) if body else len(h)
              for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths)),
             "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.rjust(w) for c, w in zip(r, widths)) for r in body]
    return "\n".join(line.rstrip() for line in lines)


def emit(args: argparse.Namespace, payload: dict, render: Callable[[dict], str]) -> None:
    """Print ``payload`` as JSON with ``--json``, else ``render(payload)``."""
    if getattr(args, "json", False):
        print(json.dumps(to_jsonable(payload)))
    else:
        print(render(payload))
