"""Memory and work budgets: estimate what a computation needs from its arguments and refuse
it up front.

A computation that would need more memory than the machine can give does not fail after
minutes of swapping with a ``MemoryError`` traceback: its public entry point estimates the
bytes it needs from its arguments (array sizes, LP rows and columns, sweep cells) and calls
:func:`require_memory`, which raises :class:`~optmech.validation.ResourceLimitError` (an
``InvalidArgumentError``: CLI exit status 2, one line with the estimate) when the estimate
exceeds the budget.

The budget is half of the memory available (``MemAvailable`` of ``/proc/meminfo``, read at
most once a second; the physical memory where that is not readable), or what
:func:`memory_budget` sets for a block of code (the CLI's ``--max-memory``).  Estimates are
deliberately rough (within a factor of about 2 of the measured peak, from the sizes of the
arrays involved); they exist to refuse the absurd, not to ration the reasonable.

Work is budgeted the same way: a computation whose running time grows with an option (random
starts, grid points, trials, quadrature cells) estimates its CPU seconds from its arguments
and calls :func:`require_work`, which refuses (:class:`~optmech.validation.ResourceLimitError`,
one line with the estimate) what would run longer than the work budget: one hour of CPU time
by default (:data:`DEFAULT_WORK_SECONDS`), or what :func:`work_budget` sets for a block of
code (the CLI's ``--max-work``).  Work estimates come from timings on a 2-core machine,
rounded up; like the memory estimates they refuse the absurd (a search that would run for
weeks), they do not time anything.

An :class:`Estimate` carries both numbers and the argument that sets them; :func:`require`
checks it against both budgets.  Every ``optmech`` command returns one from its arguments
before it starts (:mod:`optmech.cli._budget`).
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import os
import re
import time
from dataclasses import dataclass

from optmech.validation import InvalidArgumentError, ResourceLimitError

__all__ = ["DEFAULT_WORK_SECONDS", "Estimate", "available_memory", "current_budget",
           "current_work_budget", "format_bytes", "format_seconds", "memory_budget",
           "parse_duration", "parse_size", "require", "require_memory", "require_work",
           "usable_workers", "work_budget"]

DEFAULT_FRACTION = 0.5
#: CPU seconds a computation may be estimated to need without ``--max-work`` (one hour).
DEFAULT_WORK_SECONDS = 3600.0
_WORK: contextvars.ContextVar[float | None] = contextvars.ContextVar("optmech_work_budget",
                                                                     default=None)
_SECONDS = {"": 1, "s": 1, "sec": 1, "min": 60, "m": 60, "h": 3600, "d": 86400}
_REREAD_SECONDS = 1.0
_DEFAULT_READ: list = [-math.inf, 0]      # [monotonic time of the last read, budget]
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
    return _default_budget() if budget is None else budget


def _default_budget() -> int:
    """``DEFAULT_FRACTION`` of the available memory, read at most once a second (reading
    ``/proc/meminfo`` costs about 50 µs, more than a small pmf or a single draw)."""
    now = time.monotonic()
    if now - _DEFAULT_READ[0] > _REREAD_SECONDS:
        _DEFAULT_READ[:] = [now, int(DEFAULT_FRACTION * available_memory())]
    return _DEFAULT_READ[1]


@contextlib.contextmanager
def _set_within(variable: contextvars.ContextVar, value):
    token = variable.set(value)
    try:
        yield
    finally:
        variable.reset(token)


def memory_budget(nbytes: int | None):
    """Use ``nbytes`` as the budget inside the block (None: the default)."""
    return _set_within(_BUDGET, nbytes)


def _real(amount) -> float:
    """``amount`` as a float; an integer beyond the double range is infinite (an estimate
    from a huge argument is refused like any other, not an ``OverflowError``)."""
    try:
        return float(amount)
    except OverflowError:
        return math.inf


def format_bytes(nbytes: float) -> str:
    """``"1.5 GiB"`` (``"more than 1e300 PiB"`` beyond the double range)."""
    nbytes = _real(nbytes)
    if not math.isfinite(nbytes):
        return "more than 1e300 PiB"
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
    if not _real(estimate) <= budget:
        raise ResourceLimitError(argument, value, format_bytes(estimate),
                                 f"{format_bytes(budget)} of memory (raise it with "
                                 "--max-memory, or memory_budget() in Python)")


def current_work_budget() -> float:
    """The work budget in CPU seconds that :func:`require_work` compares against."""
    budget = _WORK.get()
    return DEFAULT_WORK_SECONDS if budget is None else budget


def work_budget(seconds: float | None):
    """Use ``seconds`` of CPU time as the work budget inside the block (None: the default)."""
    return _set_within(_WORK, seconds)


def format_seconds(seconds: float) -> str:
    """``"40 s"``, ``"12 min"``, ``"3.5 h"``, ``"2.1e+06 h"`` (``"more than 1e300 h"``
    beyond the double range)."""
    seconds = _real(seconds)
    if not math.isfinite(seconds):
        return "more than 1e300 h"
    if seconds < 120:
        return f"{seconds:.2g} s" if seconds < 10 else f"{seconds:.0f} s"
    if seconds < 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.3g} h"


def parse_duration(text: str, argument: str = "--max-work") -> float:
    """Seconds from ``"3600"``, ``"90s"``, ``"30min"``, ``"2h"``, ``"1d"``."""
    match = re.fullmatch(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([A-Za-z]*)\s*",
                         str(text))
    unit = match.group(2).lower() if match else None
    if match is None or unit not in _SECONDS:
        raise InvalidArgumentError(argument, text, "a duration such as 3600, 90s, 30min, "
                                                   "2h or 1d")
    value = float(match.group(1)) * _SECONDS[unit]
    if not 1e-3 <= value <= 1e9:
        raise InvalidArgumentError(argument, text, "a duration between 1 ms and 10^9 s")
    return value


def require_work(seconds: float, argument: str, value) -> None:
    """Refuse (:class:`ResourceLimitError` naming ``argument=value``) a computation whose
    estimated CPU time ``seconds`` exceeds the current work budget."""
    budget = current_work_budget()
    if not _real(seconds) <= budget:
        raise ResourceLimitError(argument, value, f"{format_seconds(seconds)} of CPU time",
                                 f"{format_seconds(budget)} of CPU time (raise it with "
                                 "--max-work, or work_budget() in Python)")


@dataclass(frozen=True)
class Estimate:
    """What a computation is estimated to need, and the argument whose value sets it."""

    #: CPU seconds (an upper estimate from timings on a loaded 2-core machine).
    seconds: float
    #: Peak bytes of memory beyond what the process holds before it starts.
    nbytes: float
    #: The argument (a CLI option such as ``--size``, or an API argument) that sets the
    #: amount; named by the refusal.
    argument: str
    #: That argument's value, shown in the refusal.
    value: object

    def renamed(self, argument: str) -> "Estimate":
        """The same estimate naming another argument (an API name as its CLI option)."""
        return Estimate(self.seconds, self.nbytes, argument, self.value)

    def __add__(self, other: "Estimate") -> "Estimate":
        """Two computations one after the other: seconds add, the peak is the larger one;
        the argument is the one of the costlier part."""
        costly = self if self.seconds >= other.seconds else other
        return Estimate(self.seconds + other.seconds, max(self.nbytes, other.nbytes),
                        costly.argument, costly.value)


def require(estimate: Estimate) -> Estimate:
    """Refuse (:class:`ResourceLimitError` naming the estimate's argument) what exceeds
    the memory budget or the work budget; return the estimate."""
    require_memory(estimate.nbytes, estimate.argument, estimate.value)
    require_work(estimate.seconds, estimate.argument, estimate.value)
    return estimate


def usable_workers(workers: int) -> int:
    """``workers`` capped at the number of cores this process may use."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cores = os.cpu_count() or 1
    return max(1, min(workers, cores))
