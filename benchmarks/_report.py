"""Shared helpers for benchmark scripts: timing, peak memory, and the results table."""

from __future__ import annotations

import datetime as _dt
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence

RESULTS = Path(__file__).resolve().parent / "results"

__all__ = ["best_time", "machine_line", "peak_rss_mib", "run_isolated", "write_table"]


def best_time(fn: Callable[[], Any], repeat: int = 3) -> tuple[float, Any]:
    """Smallest wall time of ``repeat`` calls, and the last result."""
    best, result = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn()
        best = min(best, time.perf_counter() - start)
    return best, result


def peak_rss_mib() -> float:
    """Peak resident memory of this process so far, in MiB (Linux ``ru_maxrss`` is KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def run_isolated(module: str, *args: str) -> str:
    """Run ``python -m module args`` in a fresh process (own peak memory); return stdout."""
    done = subprocess.run([sys.executable, "-m", module, *args], check=True,
                          capture_output=True, text=True)
    return done.stdout


def machine_line() -> str:
    import numpy
    import scipy

    versions = f"numpy {numpy.__version__}, scipy {scipy.__version__}"
    try:
        from lp_models.program import new_highs

        versions += f", highspy {new_highs().version()}"
    except Exception:  # pragma: no cover - highspy is a core dependency
        pass
    return (f"{platform.node()} · {platform.machine()} · Python {platform.python_version()} · "
            f"{versions} · {_dt.date.today().isoformat()}")


def write_table(name: str, title: str, headers: Sequence[str], rows: Sequence[Sequence[Any]],
                notes: str = "") -> Path:
    """Write ``benchmarks/results/<name>.md`` (a markdown table) and print it."""
    def cell(v):
        return f"{v:.4g}" if isinstance(v, float) else str(v)

    lines = [f"## {title}", "", f"_{machine_line()}_", "",
             "| " + " | ".join(headers) + " |",
             "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    if notes:
        lines += ["", notes]
    text = "\n".join(lines) + "\n"
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.md"
    path.write_text(text)
    print(text)
    return path
