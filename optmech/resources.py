"""Memory budget: estimate what a computation needs from its arguments and refuse it up front.

A computation that would need more memory than the machine can give does not fail after
minutes of swapping with a ``MemoryError`` traceback: its public entry point estimates the
bytes it needs from its arguments (array sizes, LP rows and columns, sweep cells) and calls
:func:`require_memory`, which raises :class:`~optmech.validation.ResourceLimitError` (an
``InvalidArgumentError``: CLI exit status 2, one line with the estimate) when the estimate
exceeds the budget.

The budget is half of the memory available when optmech starts (``MemAvailable`` of
``/proc/meminfo``; the physical memory where that is not readable), or what
:func:`memory_budget` sets for a block of code (the CLI's ``--max-memory``).  Estimates are
deliberately rough (within a factor of about 2 of the measured peak, from the sizes of the
arrays involved); they exist to refuse the absurd, not to ration the reasonable.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import re

from optmech.validation import InvalidArgumentError, ResourceLimitError

__all__ = ["available_memory", "current_budget", "format_bytes", "memory_budget",
           "parse_size", "require_memory", "usable_workers"]

DEFAULT_FRACTION = 0.5
_BUDGET: contextvars.ContextVar[int | None] = contextvars.ContextVar("optmech_memory_budget",
                                                                     default=None)
_UNITS = {"": 1, "b": 1, "k": 10**3, "kb": 10**3, "m": 10**6, "mb": 10**6, "g": 10**9,
          "gb": 10**9, "t": 10**12, "tb": 10**12, "kib": 2**10, "mib": 2**20, "gib": 2**30,
          "tib": 2**40}


def available_memory() -> int:
    """Bytes of memory available now (``MemAvailable``), or the physical memory."""
    try:
        with open("/proc/meminfo") as info:
            for line in info:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return 8 * 2**30


def current_budget() -> int:
    """The memory budget in bytes that :func:`require_memory` compares against."""
    budget = _BUDGET.get()
    return int(DEFAULT_FRACTION * available_memory()) if budget is None else budget


@contextlib.contextmanager
def memory_budget(nbytes: int | None):
    """Use ``nbytes`` as the budget inside the block (None: the default)."""
    token = _BUDGET.set(nbytes)
    try:
        yield
    finally:
        _BUDGET.reset(token)


def format_bytes(nbytes: float) -> str:
    """``"1.5 GiB"``."""
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(nbytes) < 1024 or unit == "PiB":
            return f"{nbytes:.0f} {unit}" if unit == "B" else f"{nbytes:.1f} {unit}"
        nbytes /= 1024
    raise AssertionError  # unreachable


def parse_size(text: str, argument: str = "--max-memory") -> int:
    """Bytes from ``"16GiB"``, ``"500MB"``, ``"2e9"`` (units B, kB, MB, GB, TB, KiB...)."""
    match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([A-Za-z]*)\s*",
                         str(text))
    unit = match.group(2).lower() if match else None
    if match is None or unit not in _UNITS:
        raise InvalidArgumentError(argument, text, "a size such as 16GiB, 500MB or 2e9")
    value = float(match.group(1)) * _UNITS[unit]
    if not 1 <= value <= 2**60:
        raise InvalidArgumentError(argument, text, "a size between 1 byte and 1 EiB")
    return int(value)


def require_memory(estimate: float, argument: str, value) -> None:
    """Refuse (:class:`ResourceLimitError` naming ``argument=value``) a computation whose
    estimated peak memory ``estimate`` (bytes) exceeds the current budget."""
    budget = current_budget()
    if not estimate <= budget:
        raise ResourceLimitError(argument, value, format_bytes(estimate),
                                 f"{format_bytes(budget)} of memory (raise it with "
                                 "--max-memory, or memory_budget() in Python)")


def usable_workers(workers: int) -> int:
    """``workers`` capped at the number of cores this process may use."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    return max(1, min(workers, cores))
