"""Shared helpers of the benchmark modules: the run's conditions, the results tables, claims,
and memory.  Times come from :mod:`benchmarks._timing` (re-exported here, so a module needs
one import).

A module's ``main(argv)`` starts with :func:`start` (it parses ``--quick`` and the module's
own options, and records the load average); every table is written by :func:`write_table`,
into ``benchmarks/results/`` for a full run and ``benchmarks/results/quick/`` for a quick
one (never over the committed full-size tables).  Under each table's title is one line
with the machine and versions, the number of cores, the BLAS libraries and their thread
counts (pinned or not), the 1-minute load average when the table's measurements started
and when it was written, and whether the run was quick.

A claim (:func:`claim`) is one line under a table: a time or a ratio with its spread,
``**13.1x** [10.2, 16.0] (CPU time)``; ``python -m benchmarks`` collects the claims of every
table at the top of ``benchmarks/RESULTS.md`` and :mod:`benchmarks._claims` compares two runs.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as _dt
import os
import platform
import resource
import subprocess
import sys
import tracemalloc
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

from benchmarks._timing import (
    Draws,
    Ratio,
    Runs,
    Timing,
    format_number,
    measure,
    measure_draws,
    measure_interleaved,
    ratio,
    settings,
)
from lp_models.atomic import write_text
from optmech.tables import markdown_table

RESULTS = Path(__file__).resolve().parent / "results"
QUICK_FOLDER = "quick"
QUICK_BUDGET = 0.2          # seconds of repeated runs per measured call in a quick run

__all__ = ["QUICK_FOLDER", "RESULTS", "Draws", "Ratio", "Runs", "Timing", "blas_line",
           "blas_threads", "claim", "format_number", "load_average", "machine_line",
           "measure", "measure_draws", "measure_interleaved", "peak_rss_mib", "ratio",
           "results_folder", "run_isolated", "start", "traced_peak_mib", "write_table"]


@dataclass
class _Session:
    quick: bool = False
    load_mark: float | None = None     # 1-minute load when the current table started
    pinned: int | None = None          # BLAS threads pinned by blas_threads(), if any


_session = _Session()


def results_folder(quick: bool) -> Path:
    """Where a run writes its tables: ``results/`` (full) or ``results/quick/``."""
    return RESULTS / QUICK_FOLDER if quick else RESULTS


def load_average() -> float:
    """The machine's 1-minute load average."""
    return os.getloadavg()[0]


def start(parser: argparse.ArgumentParser, argv=None) -> argparse.Namespace:
    """Add ``--quick`` to a module's ``parser``, parse ``argv`` and begin the run: record
    the load average, and in a quick run write to the quick folder with a smaller time
    budget per measured call (still at least 5 runs)."""
    parser.add_argument("--quick", action="store_true",
                        help="small sizes; tables go to benchmarks/results/quick/")
    args = parser.parse_args(argv)
    _session.quick = args.quick
    _session.load_mark = load_average()
    if args.quick:
        settings.budget = QUICK_BUDGET
    return args


def machine_line() -> str:
    """Host, architecture, Python and library versions, cores and today's date."""
    import numpy
    import scipy

    versions = f"numpy {numpy.__version__}, scipy {scipy.__version__}"
    try:
        from lp_models.program import new_highs

        versions += f", highspy {new_highs().version()}"
    except Exception:  # pragma: no cover - highspy is a core dependency
        pass
    return (f"{platform.node()} · {platform.machine()} · Python {platform.python_version()} · "
            f"{versions} · {os.cpu_count()} cores · {_dt.date.today().isoformat()}")


def _numpy_blas_name() -> str:
    import numpy

    try:
        return numpy.show_config(mode="dicts")["Build Dependencies"]["blas"]["name"]
    except Exception:  # noqa: BLE001 - older numpy: the name is only informative
        return "numpy's BLAS"


def blas_line() -> str:
    """The loaded BLAS libraries and their thread counts (threadpoolctl), or, without
    threadpoolctl, numpy's BLAS and the thread variables of the environment."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        variables = ", ".join(f"{v}={os.environ.get(v, 'unset')}"
                              for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
                                        "MKL_NUM_THREADS"))
        pinned = ("; pinning requested but not possible" if _session.pinned is not None
                  else "")
        return (f"BLAS {_numpy_blas_name()}: threads not read (threadpoolctl not installed; "
                f"{variables}){pinned}")
    libraries = sorted({f"{i['internal_api']} {i.get('version') or ''}".strip()
                        + f" {i['num_threads']} thread" + ("s" if i["num_threads"] != 1 else "")
                        for i in threadpool_info() if i["user_api"] == "blas"})
    state = (f"pinned to {_session.pinned} by threadpoolctl" if _session.pinned is not None
             else "not pinned")
    return f"BLAS {', '.join(libraries) or 'none loaded'} ({state})"


@contextlib.contextmanager
def blas_threads(count: int) -> Iterator[bool]:
    """Pin the BLAS libraries loaded so far to ``count`` threads (threadpoolctl); yields
    whether that was possible.  Write the table inside the block: its header says so."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        limits = contextlib.nullcontext()
        possible = False
    else:
        limits = threadpool_limits(limits=count, user_api="blas")
        possible = True
    previous = _session.pinned
    _session.pinned = count
    try:
        with limits:
            yield possible
    finally:
        _session.pinned = previous


def header_line() -> str:
    """The line under a table's title (see the module docstring)."""
    end = load_average()
    begin = end if _session.load_mark is None else _session.load_mark
    return (f"_{machine_line()} · {blas_line()} · load {begin:.2f} → {end:.2f} (1-minute "
            f"average, start → end of this table) · {'quick' if _session.quick else 'full'} "
            "run_")


def claim(key: str, text: str, value: Ratio | Runs | Draws, clock: str = "CPU") -> str:
    """One claim line: ``- `key`: text: **centre** [low, high] (how measured)``."""
    if isinstance(value, Ratio):
        how = f"{clock} time; ratio of medians or means, spread from their extremes"
        shown = f"**{format_number(value.center)}x**"
    elif isinstance(value, Draws):
        how = f"{clock} time, mean of {value.count} draws, -/+ 2 standard errors"
        shown = f"**{format_number(value.center)} s**"
    else:
        how = f"{clock} time, median [min, max] of {value.count} runs"
        shown = f"**{format_number(value.center)} s**"
    return (f"- `{key}`: {text}: {shown} [{format_number(value.low)}, "
            f"{format_number(value.high)}] ({how})")


def write_table(name: str, title: str, headers: Sequence[str], rows: Sequence[Sequence[Any]],
                notes: str = "", claims: Sequence[str] = ()) -> Path:
    """Write ``<results folder>/<name>.md`` (title, header line, table, claims, notes), print
    it, and start the load record of the next table."""
    lines = [f"## {title}", "", header_line(), "",
             *markdown_table(headers, [[format_number(v) if isinstance(v, float) else v
                                        for v in row] for row in rows])]
    if claims:
        lines += ["", "Claims:", "", *claims]
    if notes:
        lines += ["", notes]
    text = "\n".join(lines) + "\n"
    folder = results_folder(_session.quick)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.md"
    write_text(path, text)
    print(text, flush=True)
    _session.load_mark = load_average()
    return path


def peak_rss_mib() -> float:
    """Peak resident memory of this process so far, in MiB (Linux ``ru_maxrss`` is KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def traced_peak_mib(fn: Callable[[], Any]) -> float:
    """Peak memory allocated during one call of ``fn`` (tracemalloc; numpy buffers count)."""
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1] / 2 ** 20
    finally:
        tracemalloc.stop()


def run_isolated(module: str, *args: str) -> str:
    """Run ``python -m module args`` in a fresh process (its own peak memory); its stdout."""
    done = subprocess.run([sys.executable, "-m", module, *args], check=True,
                          capture_output=True, text=True)
    return done.stdout
