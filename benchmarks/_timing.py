"""Timing statistics of the benchmarks: repeated runs of a call on two clocks.

Every time in a benchmark table comes from here, on both clocks: CPU time
(``time.process_time``: every thread of this process, so BLAS or HiGHS threads count in
full) and wall time (``time.perf_counter``).

* :func:`measure` (deterministic running time): the call runs at least ``min_runs`` times,
  more while the time ``budget`` lasts (up to ``max_runs``).  A first call shorter than
  ``warmup_below`` is a warm-up and is not counted (it pays for lazy imports and caches);
  a longer one is counted as the first run.  A call shorter than ``batch_seconds`` is
  repeated in batches so that one run lasts about that long, and a run's time is the
  batch's time divided by its calls.  The result, :class:`Runs`, is the median with the
  minimum and maximum over the runs: ``0.43 [0.41, 0.47]``.
* :func:`measure_draws` (random running time: a sampler whose work depends on its
  draws): single calls, at least ``min_draws`` of them, more while the budget lasts;
  :class:`Draws` is their mean with its standard error ``s / sqrt(k)``, and its spread is
  the mean -/+ 2 standard errors (the lower end never below the fastest draw).
* :func:`ratio` of two timings (a speed-up) divides their centres (medians or means); its
  spread divides the extremes: ``slow.low / fast.high`` to ``slow.high / fast.low``.

A run that returns a result for which ``complete(result)`` is false (a solver that hit its
time limit) ends the repetition: timing it again would only measure the limit again.

The clocks are an argument, so the statistics are tested on a fake clock.
"""

from __future__ import annotations

import math
import statistics
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Mapping

__all__ = ["CHILDREN_CLOCK", "SYSTEM_CLOCK", "Clock", "Draws", "Ratio", "Runs", "Timing", "format_number",
           "measure", "measure_draws", "measure_interleaved", "ratio", "settings"]


@dataclass
class Settings:
    """Defaults of :func:`measure` and :func:`measure_draws` (a quick run lowers the budget)."""

    min_runs: int = 5
    max_runs: int = 100
    budget: float = 2.0
    batch_seconds: float = 0.05
    warmup_below: float = 1.0
    min_draws: int = 20
    max_draws: int = 100_000


settings = Settings()


@dataclass(frozen=True)
class Clock:
    """The two clocks: ``wall()`` and ``cpu()`` in seconds."""

    wall: Callable[[], float]
    cpu: Callable[[], float]


SYSTEM_CLOCK = Clock(time.perf_counter, time.process_time)


def _children_cpu() -> float:
    """CPU seconds of the child processes this process has waited for (``RUSAGE_CHILDREN``:
    each counts its own waited-for children, so a whole tree of processes)."""
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


#: Wall time, and the CPU time of the commands a benchmark runs (``benchmarks.test_suite``).
CHILDREN_CLOCK = Clock(time.perf_counter, _children_cpu)


def format_number(value: float) -> str:
    """Three significant digits; no exponent for values of 1000 and more (``1842``)."""
    if abs(value) >= 1000:
        return f"{value:.0f}"
    return f"{value:.3g}"


@dataclass(frozen=True)
class Runs:
    """Seconds per call of repeated runs: median with minimum and maximum."""

    seconds: tuple[float, ...]

    @property
    def center(self) -> float:
        return statistics.median(self.seconds)

    @property
    def low(self) -> float:
        return min(self.seconds)

    @property
    def high(self) -> float:
        return max(self.seconds)

    @property
    def count(self) -> int:
        return len(self.seconds)

    def describe(self) -> str:
        return f"median [min, max] of {self.count} runs"

    def __str__(self) -> str:
        return (f"{format_number(self.center)} [{format_number(self.low)}, "
                f"{format_number(self.high)}]")


@dataclass(frozen=True)
class Draws:
    """Seconds of single draws of a random-time call: mean with its standard error."""

    seconds: tuple[float, ...]

    @property
    def center(self) -> float:
        return statistics.fmean(self.seconds)

    @property
    def standard_error(self) -> float:
        return statistics.stdev(self.seconds) / math.sqrt(len(self.seconds))

    @property
    def low(self) -> float:
        return max(self.center - 2 * self.standard_error, min(self.seconds))

    @property
    def high(self) -> float:
        return self.center + 2 * self.standard_error

    @property
    def count(self) -> int:
        return len(self.seconds)

    def describe(self) -> str:
        return f"mean ± standard error of {self.count} draws"

    def __str__(self) -> str:
        return f"{format_number(self.center)} ± {self.standard_error:.2g}"


@dataclass(frozen=True)
class Ratio:
    """``slow / fast`` from their centres, with the spread of the extremes."""

    center: float
    low: float
    high: float

    def __str__(self) -> str:
        return (f"{format_number(self.center)}x [{format_number(self.low)}, "
                f"{format_number(self.high)}]")


def ratio(slow: Runs | Draws, fast: Runs | Draws) -> Ratio:
    """The speed-up ``slow / fast`` (see the module docstring for its spread)."""
    return Ratio(slow.center / fast.center, slow.low / fast.high, slow.high / fast.low)


@dataclass(frozen=True)
class Timing:
    """Wall and CPU seconds per call of one measured call, and its last result."""

    wall: Runs | Draws
    cpu: Runs | Draws
    calls_per_run: int
    complete: bool = True
    result: Any = field(default=None, repr=False, compare=False)

    @property
    def runs(self) -> int:
        return self.wall.count

    def as_record(self) -> dict:
        """The seconds of every run as plain JSON (for a measurement in a worker process;
        :meth:`from_record` reads it back).  The result is left out."""
        return {"kind": type(self.wall).__name__, "wall": list(self.wall.seconds),
                "cpu": list(self.cpu.seconds), "calls_per_run": self.calls_per_run,
                "complete": self.complete}

    @classmethod
    def from_record(cls, record: dict, result: Any = None) -> Timing:
        kind = {"Runs": Runs, "Draws": Draws}[record["kind"]]
        return cls(kind(tuple(record["wall"])), kind(tuple(record["cpu"])),
                   record["calls_per_run"], record["complete"], result)


def _run(fn: Callable[[], Any], calls: int, clock: Clock) -> tuple[float, float, Any]:
    """(wall, CPU) seconds per call of ``calls`` calls, and the last result."""
    wall, cpu = clock.wall(), clock.cpu()
    for _ in range(calls):
        result = fn()
    return (clock.wall() - wall) / calls, (clock.cpu() - cpu) / calls, result


def measure_interleaved(calls: Mapping[str, Callable[[], Any]], *,
                        min_runs: int | None = None, max_runs: int | None = None,
                        budget: float | None = None, batch_seconds: float | None = None,
                        warmup_below: float | None = None,
                        complete: Callable[[Any], bool] | None = None,
                        clock: Clock = SYSTEM_CLOCK) -> dict[str, Timing]:
    """:func:`measure` of several calls, their runs taken in turn (round by round), so that a
    change of the machine's load falls on all of them alike."""
    min_runs = settings.min_runs if min_runs is None else min_runs
    max_runs = max(min_runs, settings.max_runs if max_runs is None else max_runs)
    budget = settings.budget if budget is None else budget
    batch_seconds = settings.batch_seconds if batch_seconds is None else batch_seconds
    warmup_below = settings.warmup_below if warmup_below is None else warmup_below
    if min_runs < 1:
        raise ValueError(f"min_runs must be >= 1, got {min_runs}")
    started = clock.wall()
    walls: dict[str, list[float]] = {name: [] for name in calls}
    cpus: dict[str, list[float]] = {name: [] for name in calls}
    batch: dict[str, int] = {}
    results: dict[str, Any] = {}
    stopped: set[str] = set()
    for name, fn in calls.items():                   # first call: warm-up or run 1
        wall, cpu, results[name] = _run(fn, 1, clock)
        finished = complete is None or complete(results[name])
        if wall >= warmup_below or not finished:
            walls[name].append(wall)
            cpus[name].append(cpu)
        if not finished:
            stopped.add(name)
        batch[name] = (1 if wall >= batch_seconds
                       else max(1, math.ceil(batch_seconds / max(wall, 1e-9))))
    while True:
        active = [name for name in calls if name not in stopped
                  and len(walls[name]) < max_runs]
        enough = all(len(walls[name]) >= min_runs for name in active)
        if not active or (enough and clock.wall() - started >= budget):
            break
        for name in active:
            wall, cpu, results[name] = _run(calls[name], batch[name], clock)
            walls[name].append(wall)
            cpus[name].append(cpu)
            if complete is not None and not complete(results[name]):
                stopped.add(name)
    return {name: Timing(Runs(tuple(walls[name])), Runs(tuple(cpus[name])), batch[name],
                         name not in stopped, results[name])
            for name in calls}


def measure(fn: Callable[[], Any], **options) -> Timing:
    """Wall and CPU time per call of ``fn`` over repeated runs (median, min, max); the
    options are those of :func:`measure_interleaved`."""
    return measure_interleaved({"call": fn}, **options)["call"]


def measure_draws(fn: Callable[[], Any], *, min_draws: int | None = None,
                  max_draws: int | None = None, budget: float | None = None,
                  warmup_below: float | None = None,
                  clock: Clock = SYSTEM_CLOCK) -> Timing:
    """Wall and CPU time of single calls of a random-time ``fn`` (mean, standard error)."""
    min_draws = settings.min_draws if min_draws is None else min_draws
    max_draws = max(min_draws, settings.max_draws if max_draws is None else max_draws)
    budget = settings.budget if budget is None else budget
    warmup_below = settings.warmup_below if warmup_below is None else warmup_below
    if min_draws < 2:
        raise ValueError(f"min_draws must be >= 2 (a standard error needs two), got {min_draws}")
    started = clock.wall()
    wall, cpu, result = _run(fn, 1, clock)
    walls, cpus = ([wall], [cpu]) if wall >= warmup_below else ([], [])
    while len(walls) < max_draws and (len(walls) < min_draws
                                      or clock.wall() - started < budget):
        wall, cpu, result = _run(fn, 1, clock)
        walls.append(wall)
        cpus.append(cpu)
    return Timing(Draws(tuple(walls)), Draws(tuple(cpus)), 1, True, result)
