"""Shared pieces of the CLI: the one-line-error parser, argument types, output."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import math
import os
import re
import stat
import sys
import tempfile
from pathlib import Path
from typing import Callable, Sequence

import numpy as np

from optmech.jsonable import to_jsonable
from optmech.unbounded import Unbounded
from optmech.validation import InvalidArgumentError, NonFiniteResultError, refuse_overflow

__all__ = [
    "ExecutorError",
    "MAX_GRID_POINTS",
    "MAX_LIST_LENGTH",
    "OneLineParser",
    "add_common_flags",
    "add_csv_flag",
    "add_json_flag",
    "add_sweep_flags",
    "api_type",
    "emit",
    "executor_factory",
    "fail_usage",
    "float_list",
    "float_range",
    "int_list",
    "integer",
    "names",
    "nonnegative_float",
    "number",
    "check_writable_path",
    "example_lines",
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


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, except that the example closing a ``--help`` page (an epilog
    starting ``example: ``) is wrapped as a shell command: between options, each line but
    the last ending in `` \\``, so what a user copies still runs as one command, and the
    page keeps within the terminal's width (``topk sample``'s example ran to 87 columns
    as one line)."""

    def _fill_text(self, text, width, indent):
        if text.startswith("example: "):
            return "\n".join(indent + line for line in example_lines(text, width))
        return super()._fill_text(text, width, indent)


def example_lines(text: str, width: int) -> list[str]:
    """``text`` (one command line) in lines of at most ``width`` characters, broken before
    an option (``--name`` with its values stays on one line), every line but the last
    ending in `` \\`` and the ones after the first indented by four spaces.  An option
    longer than a line by itself is not broken."""
    groups: list[str] = []
    for word in text.split():
        if word.startswith("--") or not groups:
            groups.append(word)
        else:
            groups[-1] += " " + word
    lines = [groups[0]]
    for group in groups[1:]:
        if len(lines[-1]) + 1 + len(group) + 2 <= width:
            lines[-1] += " " + group
        else:
            lines[-1] += " \\"
            lines.append("    " + group)
    return lines


class OneLineParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one line on stderr (no usage block), that
    reads ``--scores -1,0,2`` and ``--scores=-1,0,2`` alike (argparse would take a value
    starting with ``-`` that is not a plain number for an option), and that takes options
    only as spelt in full (``allow_abbrev=False``: ``--jso`` is not ``--json``; every
    sub-command's parser is of this class, so the rule holds at every depth), and whose
    closing example is one command a shell reads whole (:func:`example_lines`).

    Every option's value is converted under
    :func:`~optmech.validation.refuse_overflow`: a value whose own arithmetic overflows a
    double (a grid ``-1e308:1e308:3``, a log grid at the largest double) is bad input, one
    line and exit status 2 naming the option, never a numerical warning from inside the
    parser."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        kwargs.setdefault("formatter_class", _HelpFormatter)
        super().__init__(*args, **kwargs)
        self._negative_number_matcher = _NEGATIVE_VALUE

    def _get_value(self, action, arg_string):
        try:
            with refuse_overflow("value", arg_string):
                return super()._get_value(action, arg_string)
        except InvalidArgumentError:
            raise argparse.ArgumentError(action, f"{_short(arg_string)} overflows the double "
                                                 "range in its arithmetic") from None

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
    comma-separated list; at most :data:`MAX_GRID_POINTS` values either way.  Any two
    finite ends give finite points (the step may exceed the double range: ``-1e308:1e308:3``
    is ``-1e308, 0, 1e308``)."""
    if ":" not in text:
        values = float_list(text)
        if len(values) > MAX_GRID_POINTS:
            raise argparse.ArgumentTypeError(f"at most {MAX_GRID_POINTS} values, got "
                                             f"{len(values)}")
        return values
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
    if spacing == "log" and not (start > 0 and stop > 0):
        raise argparse.ArgumentTypeError(f"a log grid needs START, STOP > 0, got "
                                         f"{_short(text)}")
    return _grid(start, stop, num, spacing == "log").tolist()


def _grid(start: float, stop: float, num: int, log: bool) -> np.ndarray:
    """numpy's ``linspace``/``geomspace`` where their arithmetic stays finite; otherwise
    (ends near the largest double) the same points as convex combinations
    ``(1 - t) start + t stop`` (of the logarithms for a log grid), which cannot overflow,
    kept within the ends."""
    with np.errstate(all="ignore"):
        points = np.geomspace(start, stop, num) if log else np.linspace(start, stop, num)
        if not np.isfinite(points).all():
            t = np.linspace(0.0, 1.0, num)
            if log:
                points = np.exp((1 - t) * math.log(start) + t * math.log(stop))
            else:
                points = (1 - t) * start + t * stop
            points = np.clip(points, min(start, stop), max(start, stop))
    points[0], points[-1] = start, stop
    return points


def _name_limits(folder: Path) -> tuple[int, int]:
    """The longest file name and path the file system holding ``folder`` accepts."""
    try:
        return os.pathconf(folder, "PC_NAME_MAX"), os.pathconf(folder, "PC_PATH_MAX")
    except (OSError, ValueError):
        return 255, 4096


def _existing_folder(path: Path) -> Path:
    """The nearest folder above ``path`` that exists (``.`` for a bare name)."""
    folder = path.parent if str(path.parent) else Path(".")
    while folder != folder.parent and not os.path.lexists(folder):   # (never raises)
        folder = folder.parent
    return folder


def check_writable_path(text: str, what: str = "file") -> Path:
    """``text`` as a path a command may write a ``what`` (``"file"`` or ``"folder"``) at,
    checked before any work: a name the file system accepts (no component longer than its
    NAME_MAX, the whole path shorter than its PATH_MAX); an existing file must be a
    regular file (never a FIFO, a device or a socket, whose open would block or write
    elsewhere, and never a symbolic link: files are written by renaming a new file into
    place (:mod:`lp_models.atomic`), which would replace the link rather than write where
    it points), an existing folder a folder; and the folder it goes into must let us
    create a file there, which is tried (a temporary file, removed at once), so
    ``/proc/...`` or a read-only mount is refused even for root.  A new folder may go into
    an existing folder only.  :class:`argparse.ArgumentTypeError` otherwise."""
    path = Path(text)
    if not text.strip():
        raise argparse.ArgumentTypeError(f"expected a {what} name, got ''")
    name_max, path_max = _name_limits(_existing_folder(path))
    longest = max((len(os.fsencode(part)) for part in path.parts), default=0)
    if longest > name_max or len(os.fsencode(os.path.abspath(text))) >= path_max:
        raise argparse.ArgumentTypeError(
            f"the path {_short(text)} is too long for its file system (a name of at most "
            f"{name_max} bytes, a path of fewer than {path_max})")
    try:
        mode = (os.stat if what == "folder" else os.lstat)(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as error:
        raise argparse.ArgumentTypeError(f"cannot use {_short(text)} ({error.strerror})") \
            from None
    if mode is not None and stat.S_ISLNK(mode):
        raise argparse.ArgumentTypeError(
            f"cannot write {_short(text)}: it is a symbolic link, and optmech never writes "
            "through one (name the file it points to, or remove the link)")
    folder = path if what == "folder" and mode is not None else \
        path.parent if str(path.parent) else Path(".")
    wrong = (mode is not None and not (stat.S_ISDIR(mode) if what == "folder"
                                       else stat.S_ISREG(mode)))
    if wrong or not folder.is_dir() or not _can_create_in(folder):
        kind = "a regular file" if what == "file" else "a folder"
        raise argparse.ArgumentTypeError(
            f"cannot write {_short(text)}: it must be {kind} (or a new one) in an existing "
            "folder we may create files in")
    return path


def _can_create_in(folder: Path) -> bool:
    """Whether a file can be created in ``folder`` (tried, then removed)."""
    try:
        handle, name = tempfile.mkstemp(dir=folder, prefix=".optmech-write-check-")
    except OSError:
        return False
    os.close(handle)
    os.unlink(name)
    return True


def output_file(suffixes: Sequence[str] = (".png",)):
    """argparse type: a file path to write, ending in one of ``suffixes``, checked by
    :func:`check_writable_path` before any work."""
    def parse(text: str) -> Path:
        if Path(text).suffix.lower() not in suffixes:
            raise argparse.ArgumentTypeError(
                f"expected a file name ending in {' or '.join(suffixes)}, got {_short(text)}")
        return check_writable_path(text, "file")
    return parse


def output_dir(text: str) -> Path:
    """argparse type: a folder to write into: an existing folder, or a new one in an
    existing folder, checked by :func:`check_writable_path` before any work."""
    return check_writable_path(text, "folder")


def add_actions(parser: argparse.ArgumentParser, metavar: str = "ACTION"):
    """The required sub-commands of a command (``args.action``), parsed by the command's
    own parser class, so bad input stays one line and exit status 2."""
    actions = parser.add_subparsers(dest="action", metavar=metavar, parser_class=type(parser))
    actions.required = True
    return actions


def add_sweep_flags(parser: argparse.ArgumentParser) -> None:
    """``--workers``, ``--executor``, ``--dask-scheduler`` and ``--cache`` for commands that
    sweep cells (:func:`optmech.sweep.run_sweep`); read them back with
    :func:`sweep_options`."""
    parser.add_argument("--workers", type=positive_int, default=1,
                        help="run cells on a local process pool of this size (default 1; "
                             "capped at the number of cores)")
    parser.add_argument("--executor", metavar="MODULE:FUNCTION", type=executor_factory,
                        help="run the cells on the executor that FUNCTION() of the Python "
                             "module MODULE returns (a concurrent.futures.Executor: a "
                             "process pool, Ray's, joblib's, submitit's for Slurm)")
    parser.add_argument("--dask-scheduler", metavar="ADDRESS", type=_scheduler_address,
                        help="send the cells to an existing Dask cluster (tcp://host:port; "
                             "connected to, with a Dask handshake, before the sweep starts)")
    parser.add_argument("--cache", metavar="DIR", type=output_dir,
                        help="cache finished cells here, so an interrupted sweep resumes")


_FACTORY = re.compile(r"^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*:[A-Za-z_]\w*$")


def executor_factory(text: str) -> "_Factory":
    """argparse type: ``MODULE:FUNCTION``, a function of no arguments in an importable
    Python module (imported now, so a wrong name is bad input before any work); it is
    called when the sweep starts (:func:`sweep_options`)."""
    import importlib

    if not _FACTORY.match(text.strip()):
        raise argparse.ArgumentTypeError(f"expected MODULE:FUNCTION (e.g. "
                                         f"my_cluster:executor), got {_short(text)}")
    module_name, _, name = text.strip().partition(":")
    try:
        module = importlib.import_module(module_name)
    except Exception as error:  # noqa: BLE001 - the user's module: whatever it raises
        raise argparse.ArgumentTypeError(f"cannot import {module_name!r} "
                                         f"({type(error).__name__}: {error})") from None
    factory = getattr(module, name, None)
    if not callable(factory):
        raise argparse.ArgumentTypeError(f"{module_name!r} has no function {name!r}")
    return _Factory(text.strip(), factory)


@dataclasses.dataclass(frozen=True)
class _Factory:
    """The function of ``--executor`` and how the option named it (for the messages)."""

    spec: str
    function: Callable[[], object]

    def __call__(self):
        return self.function()


class ExecutorError(RuntimeError):
    """The function named by ``--executor`` failed (exit status 1, one line)."""


def _scheduler_address(text: str) -> str:
    """argparse type: a Dask scheduler address (:func:`optmech.sweep.scheduler_address`)."""
    from optmech.sweep import scheduler_address

    return api_type(scheduler_address)(text)


def api_type(check: Callable[[str], object]) -> Callable[[str], object]:
    """An argparse type from an API check that raises :class:`InvalidArgumentError`."""
    def parse(text: str):
        try:
            return check(text)
        except InvalidArgumentError as error:
            raise argparse.ArgumentTypeError(f"{error.allowed}; got {_short(text)}") from None
    return parse


def add_common_flags(parser: argparse.ArgumentParser) -> None:
    """The options of every command: ``--max-memory`` and ``--max-work`` (the memory and
    work budgets of :mod:`optmech.resources`) and ``--quiet`` (no progress on stderr)."""
    from optmech.resources import DEFAULT_WORK_SECONDS, parse_duration, parse_size

    parser.add_argument("--max-memory", type=api_type(parse_size), default=None,
                        metavar="SIZE",
                        help="refuse work estimated to need more memory than this (e.g. "
                             "16GiB; default: half the memory available)")
    parser.add_argument("--max-work", type=api_type(parse_duration), default=None,
                        metavar="SECONDS",
                        help="refuse work estimated to need more CPU time than this (e.g. "
                             f"90s, 30min, 2h; default {DEFAULT_WORK_SECONDS / 3600:g} h)")
    parser.add_argument("--quiet", action="store_true",
                        help="no progress on stderr (a bar on a terminal, a status line "
                             "every few seconds otherwise); errors are still reported")


def sweep_options(args: argparse.Namespace) -> dict:
    """Keyword arguments of :func:`optmech.sweep.run_sweep` from :func:`add_sweep_flags`
    (saying on stderr when ``--workers`` is capped at the usable cores).  With
    ``--executor`` the executor its function returns is ``workers``, shut down (without
    waiting) when the command exits; it cannot be combined with ``--workers`` above 1 or
    ``--dask-scheduler``."""
    from optmech.resources import usable_workers

    if args.executor is not None:
        return {"workers": _executor_from(args), "dask_scheduler": None,
                "cache_dir": args.cache}
    workers = usable_workers(args.workers)
    if workers < args.workers:
        print(f"optmech: note: --workers {args.workers} capped at the {workers} usable "
              "cores", file=sys.stderr)
    return {"workers": workers, "dask_scheduler": args.dask_scheduler,
            "cache_dir": args.cache}


def _executor_from(args: argparse.Namespace):
    """The executor of ``--executor``, checked, its shut-down registered for exit."""
    import atexit

    from optmech.sweep.executor import is_executor

    spec = args.executor.spec
    if args.workers > 1 or args.dask_scheduler is not None:
        other = "--workers" if args.workers > 1 else "--dask-scheduler"
        raise InvalidArgumentError("--executor", spec, f"used without {other} (one place "
                                   "runs the cells)")
    try:
        executor = args.executor()
    except Exception as error:  # noqa: BLE001 - the user's function: whatever it raises
        raise ExecutorError(f"--executor {spec} failed ({type(error).__name__}: "
                            f"{error})") from None
    if not is_executor(executor):
        raise InvalidArgumentError("--executor", spec, "a function returning an executor "
                                   "(an object with submit()); it returned a "
                                   f"{type(executor).__name__}")
    atexit.register(_shut_down, executor)
    return executor


def _shut_down(executor) -> None:
    """``executor.shutdown`` without waiting, cancelling what has not started, where the
    executor has such a method (submitit's has none: its jobs are Slurm's)."""
    shutdown = getattr(executor, "shutdown", None)
    if callable(shutdown):
        try:
            shutdown(wait=False, cancel_futures=True)
        except TypeError:           # an executor whose shutdown takes fewer options
            with contextlib.suppress(Exception):
                shutdown(wait=False)
        except Exception:  # noqa: BLE001 - at exit, after the result: nothing to report
            pass


def add_csv_flag(parser: argparse.ArgumentParser) -> None:
    """``--csv FILE`` for the sweep commands: the sweep's table, one row per point, written
    with the standard csv module (the result's ``to_csv``; the folder is checked first)."""
    parser.add_argument("--csv", metavar="FILE.csv", type=output_file((".csv",)),
                        help="also write the table (one row per point) to this CSV file")


def check_noise_scale(args: argparse.Namespace) -> None:
    """``--eps`` for every selection mechanism but ``rnm_gaussian``, which takes exactly one
    of ``--sigma`` and ``--rho`` instead (it is not ε-DP for any ε); a missing or misplaced
    option is refused naming it (exit status 2)."""
    from optmech.selection.mechanisms import GAUSSIAN_NAME

    if args.mechanism != GAUSSIAN_NAME:
        for option in ("sigma", "rho"):
            if getattr(args, option) is not None:
                raise InvalidArgumentError(f"--{option}", getattr(args, option),
                                           f"left out for {args.mechanism} (only "
                                           f"{GAUSSIAN_NAME} takes a noise scale)")
        if args.eps is None:
            raise InvalidArgumentError("--eps", None, "epsilon > 0")
        return
    if args.eps is not None:
        raise InvalidArgumentError("--eps", args.eps, f"left out for {GAUSSIAN_NAME} (not "
                                   "eps-DP for any eps: give --sigma or --rho)")
    if (args.sigma is None) == (args.rho is None):
        raise InvalidArgumentError("--sigma" if args.sigma is not None else "--sigma, --rho",
                                   args.sigma, f"exactly one of --sigma and --rho for "
                                   f"{GAUSSIAN_NAME}")


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
