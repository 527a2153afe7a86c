"""Shared pieces of the CLI: the one-line-error parser, argument types, output."""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import sys
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from optmech.jsonable import to_jsonable
from optmech.unbounded import Unbounded
from optmech.validation import InvalidArgumentError, NonFiniteResultError

__all__ = [
    "MAX_GRID_POINTS",
    "MAX_LIST_LENGTH",
    "OneLineParser",
    "add_common_flags",
    "add_csv_flag",
    "add_json_flag",
    "add_sweep_flags",
    "emit",
    "fail_usage",
    "float_list",
    "float_range",
    "int_list",
    "integer",
    "names",
    "nonnegative_float",
    "number",
    "one_line",
    "output_dir",
    "output_file",
    "positive_float",
    "positive_int",
    "seed",
    "sweep_options",
    "without_undefined",
]

MAX_LIST_LENGTH = 10**6     # values in one comma-separated option
MAX_GRID_POINTS = 10**4     # points of one START:STOP:NUM grid

# What argparse must read as a value, not an option: negative numbers and comma lists or
# grids that start with one (-1,0 / -0.5:1:3 / -inf, refused later as not finite).
_NEGATIVE_VALUE = re.compile(r"^-(\d|\.\d|inf|nan)", re.IGNORECASE)


def one_line(message: str) -> str:
    """``message`` with its line breaks and runs of spaces folded into single spaces."""
    return " ".join(str(message).split())


def fail_usage(message: str) -> None:
    """Print ``optmech: error: message`` on one line and exit with status 2."""
    print(f"optmech: error: {one_line(message)}", file=sys.stderr)
    raise SystemExit(2)


class OneLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line on stderr (no usage block), and that
    reads ``--scores -1,0,2`` and ``--scores=-1,0,2`` alike (argparse would take a value
    starting with ``-`` that is not a plain number for an option)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = _NEGATIVE_VALUE

    def error(self, message: str):  # noqa: D401 - argparse API
        fail_usage(f"{self.prog}: {message}")

    def parse_args(self, args=None, namespace=None):
        """As argparse's, with an option the command does not have named under the
        command's own name (``optmech select pmf: unrecognized arguments: --size 5``)."""
        parsed, extra = self.parse_known_args(args, namespace)
        if extra:
            fail_usage(f"{getattr(parsed, '_prog', self.prog)}: unrecognized arguments: "
                       + " ".join(extra))
        return parsed


def _short(text: str) -> str:
    return repr(text) if len(text) <= 40 else repr(text[:37] + "...")


def _number(text: str) -> float:
    """A finite float (argparse type error for anything else: nan, inf, 1e999, garbage)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {_short(text)}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"not a finite number: {_short(text)}")
    return value


def _integer(text: str) -> int:
    text = text.strip()
    if not re.fullmatch(r"[+-]?\d{1,30}", text):
        raise argparse.ArgumentTypeError(f"not an integer: {_short(text)}")
    return int(text)


def number(text: str) -> float:
    """argparse type: a finite number."""
    return _number(text)


def integer(text: str) -> int:
    """argparse type: an integer (at most 30 digits; ranges are checked by the API)."""
    return _integer(text)


def positive_float(text: str) -> float:
    """argparse type: a finite number > 0."""
    value = _number(text)
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be a finite number > 0, got {_short(text)}")
    return value


def nonnegative_float(text: str) -> float:
    """argparse type: a finite number >= 0."""
    value = _number(text)
    if not value >= 0:
        raise argparse.ArgumentTypeError(f"must be a finite number >= 0, got {_short(text)}")
    return value + 0.0          # -0.0 -> 0.0


def positive_int(text: str) -> int:
    """argparse type: an integer >= 1."""
    value = _integer(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {_short(text)}")
    return value


def seed(text: str) -> int:
    """argparse type: a random seed, an integer in [0, 2^64)."""
    value = _integer(text)
    if not 0 <= value < 2**64:
        raise argparse.ArgumentTypeError(f"must be an integer in [0, 2^64), got {_short(text)}")
    return value


def _parts(text: str, what: str) -> list[str]:
    parts = [p.strip() for p in text.split(",")]
    if not text.strip() or any(p == "" for p in parts):
        raise argparse.ArgumentTypeError(f"expected comma-separated {what}, got {_short(text)}")
    if len(parts) > MAX_LIST_LENGTH:
        raise argparse.ArgumentTypeError(f"at most {MAX_LIST_LENGTH} values, got {len(parts)}")
    return parts


def float_list(text: str) -> list[float]:
    """argparse type: comma-separated finite numbers, e.g. ``0,-1,-3``."""
    return [_number(p) for p in _parts(text, "numbers")]


def int_list(text: str) -> list[int]:
    """argparse type: comma-separated integers, e.g. ``3,4,5,6``."""
    return [_integer(p) for p in _parts(text, "integers")]


def names(known: Sequence[str], many: bool = False) -> Callable[[str], str | list[str]]:
    """argparse type: one name of ``known`` (a comma-separated list of them with ``many``),
    in either spelling of a compound name (``rnm-laplace`` or ``rnm_laplace``), returned as
    ``known`` spells it."""
    spelled = {name.replace("-", "_"): name for name in known}

    def name(text: str) -> str:
        found = spelled.get(text.strip().replace("-", "_"))
        if found is None:
            raise argparse.ArgumentTypeError(f"unknown mechanism {_short(text)}; choose from "
                                             + ", ".join(known))
        return found

    def parse(text: str) -> str | list[str]:
        return [name(p) for p in _parts(text, "names")] if many else name(text)
    return parse


def float_range(text: str) -> list[float]:
    """argparse type: ``START:STOP:NUM`` (NUM evenly spaced values, both ends included),
    ``START:STOP:NUM:log`` (NUM values evenly spaced on a log scale; START, STOP > 0), or a
    comma-separated list."""
    if ":" not in text:
        return float_list(text)
    parts = text.split(":")
    spacing = parts.pop().strip().lower() if len(parts) == 4 else "linear"
    if len(parts) != 3 or spacing not in ("linear", "log"):
        raise argparse.ArgumentTypeError(f"expected START:STOP:NUM or START:STOP:NUM:log, "
                                         f"got {_short(text)}")
    start, stop = _number(parts[0]), _number(parts[1])
    num = _integer(parts[2])
    if not 1 <= num <= MAX_GRID_POINTS:
        raise argparse.ArgumentTypeError(f"NUM must be in 1..{MAX_GRID_POINTS}, got "
                                         f"{_short(parts[2])}")
    if spacing == "log":
        if not (start > 0 and stop > 0):
            raise argparse.ArgumentTypeError(f"a log grid needs START, STOP > 0, got "
                                             f"{_short(text)}")
        return np.geomspace(start, stop, num).tolist()
    return np.linspace(start, stop, num).tolist()


def output_file(suffixes: Sequence[str] = (".png",)):
    """argparse type: a file path to write, ending in one of ``suffixes``, whose folder exists
    and is writable (checked before any work)."""
    def parse(text: str) -> Path:
        path = Path(text)
        if not text.strip() or path.suffix.lower() not in suffixes:
            raise argparse.ArgumentTypeError(
                f"expected a file name ending in {' or '.join(suffixes)}, got {_short(text)}")
        folder = path.parent if str(path.parent) else Path(".")
        if path.is_dir() or not folder.is_dir() or not os.access(folder, os.W_OK):
            raise argparse.ArgumentTypeError(f"cannot write {_short(text)} (its folder must "
                                             "exist and be writable)")
        return path
    return parse


def output_dir(text: str) -> Path:
    """argparse type: a folder to write into: an existing writable folder, or a new one whose
    parent folder exists and is writable (not a file)."""
    path = Path(text)
    if not text.strip():
        raise argparse.ArgumentTypeError("expected a folder name, got ''")
    existing = path if path.exists() else path.parent if str(path.parent) else Path(".")
    if (path.exists() and not path.is_dir()) or not existing.is_dir() \
            or not os.access(existing, os.W_OK):
        raise argparse.ArgumentTypeError(f"cannot write into {_short(text)} (a writable "
                                         "folder, or a new one in a writable folder)")
    return path


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
                        help="run cells on a local process pool of this size (default 1; "
                             "capped at the number of cores)")
    parser.add_argument("--dask-scheduler", metavar="ADDRESS",
                        help="send the cells to an existing Dask cluster (tcp://host:port; "
                             "connected to before the sweep starts)")
    parser.add_argument("--cache", metavar="DIR", type=output_dir,
                        help="cache finished cells here, so an interrupted sweep resumes")


def add_common_flags(parser: argparse.ArgumentParser) -> None:
    """The options of every command: ``--max-memory`` (the memory budget of
    :mod:`optmech.resources`) and ``--quiet`` (no progress on stderr)."""
    from optmech.resources import parse_size

    def size(text: str) -> int:
        try:
            return parse_size(text)
        except InvalidArgumentError as error:
            raise argparse.ArgumentTypeError(error.allowed) from None

    parser.add_argument("--max-memory", type=size, default=None, metavar="SIZE",
                        help="refuse work estimated to need more memory than this (e.g. "
                             "16GiB; default: half the memory available)")
    parser.add_argument("--quiet", action="store_true",
                        help="no progress on stderr (a bar on a terminal, a status line "
                             "every few seconds otherwise); errors are still reported")


def sweep_options(args: argparse.Namespace) -> dict:
    """Keyword arguments of :func:`optmech.sweep.run_sweep` from :func:`add_sweep_flags`
    (saying on stderr when ``--workers`` is capped at the usable cores)."""
    from optmech.resources import usable_workers

    workers = usable_workers(args.workers)
    if workers < args.workers:
        print(f"optmech: note: --workers {args.workers} capped at the {workers} usable "
              "cores", file=sys.stderr)
    return {"workers": workers, "dask_scheduler": args.dask_scheduler,
            "cache_dir": args.cache}


def add_csv_flag(parser: argparse.ArgumentParser) -> None:
    """``--csv FILE`` for the sweep commands: the sweep's table, one row per point, written
    with the standard csv module (the result's ``to_csv``; the folder is checked first)."""
    parser.add_argument("--csv", metavar="FILE.csv", type=output_file((".csv",)),
                        help="also write the table (one row per point) to this CSV file")


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object instead of a table")


def _label(item, index: int) -> str:
    """How a list item is named in an error: its ``id``, ``area:key``, ``key`` or ``name``
    when it is an object that has one (``results[heterogeneous:rnmh-exp-loss]``), else its
    index."""
    if isinstance(item, dict):
        if isinstance(item.get("id"), str) and item["id"]:
            return item["id"]
        if isinstance(item.get("area"), str) and isinstance(item.get("key"), str):
            return f"{item['area']}:{item['key']}"
        for field in ("key", "name"):
            if isinstance(item.get(field), str) and item[field]:
                return item[field]
    return str(index)


def _non_finite(value, path: str = "") -> str | None:
    """The key path of the first NaN, infinity or None inside ``value`` (dicts, lists,
    tuples, numpy arrays and scalars; a numeric array is checked in one vectorised pass).
    A truly unbounded result (:data:`~optmech.unbounded.UNBOUNDED`) is a value, not a
    fault."""
    if isinstance(value, dict):
        for key, item in value.items():
            found = _non_finite(item, f"{path}.{key}" if path else str(key))
            if found is not None:
                return found
        return None
    if isinstance(value, np.ndarray) and value.dtype != object:
        if value.dtype.kind not in "fc":
            return None
        bad = np.argwhere(~np.isfinite(value))
        return None if bad.size == 0 else path + "".join(f"[{i}]" for i in bad[0])
    if isinstance(value, (list, tuple, np.ndarray)):
        for i, item in enumerate(value):
            found = _non_finite(item, f"{path}[{_label(item, i)}]")
            if found is not None:
                return found
        return None
    if isinstance(value, Unbounded):
        return None
    if value is None or (isinstance(value, (float, np.floating)) and not math.isfinite(value)):
        return path or "the result"
    return None


def without_undefined(value):
    """``value`` with every object key whose value is None left out, at any depth (numpy
    arrays are leaves)."""
    if isinstance(value, dict):
        return {key: without_undefined(item) for key, item in value.items()
                if item is not None}
    if isinstance(value, (list, tuple)):
        return [without_undefined(item) for item in value]
    return value


def emit(args: argparse.Namespace, payload: dict, render: Callable[[dict], str]) -> None:
    """Print ``payload`` as JSON with ``--json``, else ``render(payload)``.

    The JSON object starts with ``optmech_version`` and ``schema``, the name of the JSON
    Schema it follows (:mod:`optmech.schemas`), taken from the command that runs
    (``args.command`` and, for a command with actions, ``args.action``):
    ``optmech.lattice.solve/1``.  A key whose value is None (undefined for this input: a
    paper value a new result does not have, a bound that does not exist) is left out of the
    JSON, at any depth, never printed as null; a payload holding NaN or infinity anywhere, or
    None inside a list, is refused (:class:`NonFiniteResultError`, exit status 1, naming the
    value by its key path, list items by their ``area:key``/``key``/``name`` where they have
    one) in both forms.  A truly unbounded result (:data:`~optmech.unbounded.UNBOUNDED`) is
    printed as ``{"unbounded": true}`` in JSON and ``∞`` in tables."""
    defined = without_undefined(payload)
    bad = _non_finite(defined)
    if bad is not None:
        raise NonFiniteResultError(f"the result {bad} is not a finite number")
    plain = to_jsonable(defined)
    if getattr(args, "json", False):
        print(json.dumps({**_envelope(args), **plain}, allow_nan=False))
    else:
        print(render(payload))


def _envelope(args: argparse.Namespace) -> dict:
    """The keys every JSON output starts with: the version and the schema name."""
    from optmech._version import __version__
    from optmech.schemas import schema_name

    return {"optmech_version": __version__,
            "schema": schema_name(args.command, getattr(args, "action", None))}
