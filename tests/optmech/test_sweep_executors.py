"""Sweeps on any executor (``workers=<executor>``): the same bytes as a serial run and as
the local pool, whichever executor runs the cells, and the same cache.

The executors: ``concurrent.futures``' process and thread pools, joblib's loky pool (when
joblib is installed), and an executor shaped like submitit's (``submit`` returns a job with
``done()`` and ``result()``, not a ``concurrent.futures`` future), which runs each job when
it is first asked whether it is done.  The reference is the serial run of the same sweep.
"""

from __future__ import annotations

import json
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor

import pytest

from optmech.jsonable import to_jsonable
from optmech.lattice.bound import bound_sweep
from optmech.lattice.ratios import ratio_sweep
from optmech.sweep import run_sweep
from optmech.validation import InvalidArgumentError
from tests.optmech.test_sweep import CELLS, pf_error_cell

NS, KS, EPS = [3, 4], [3], [0.5, 1.0]


class _Job:
    """A job of :class:`JobExecutor`: run when first asked whether it is done."""

    def __init__(self, fn, args):
        self.fn, self.args, self.outcome, self.cancelled = fn, args, None, False

    def done(self) -> bool:
        if self.outcome is None:
            try:
                self.outcome = ("value", self.fn(*self.args))
            except BaseException as error:      # noqa: BLE001 - handed to result()
                self.outcome = ("error", error)
        return True

    def result(self):
        self.done()
        kind, value = self.outcome
        if kind == "error":
            raise value
        return value

    def cancel(self) -> bool:
        self.cancelled = True
        return True


class JobExecutor:
    """Shaped like submitit's ``AutoExecutor``: ``submit`` returns a job, not a future."""

    def __init__(self):
        self.jobs: list[_Job] = []

    def submit(self, fn, *args):
        self.jobs.append(_Job(fn, args))
        return self.jobs[-1]


def _executors():
    yield "process-pool", lambda: ProcessPoolExecutor(max_workers=2)
    yield "thread-pool", lambda: ThreadPoolExecutor(max_workers=2)
    yield "jobs", JobExecutor
    try:
        from joblib.externals.loky import get_reusable_executor
    except ImportError:                         # pragma: no cover - joblib not installed
        return
    yield "loky", lambda: get_reusable_executor(max_workers=1)


EXECUTORS = [pytest.param(make, id=name) for name, make in _executors()]


def _bytes(curves) -> str:
    return json.dumps(to_jsonable(curves.records()), sort_keys=True)


@pytest.fixture(scope="module")
def serial_ratios():
    return _bytes(ratio_sweep(NS, KS, EPS))


@pytest.mark.parametrize("make", EXECUTORS)
def test_a_ratio_sweep_on_an_executor_gives_the_serial_bytes(make, serial_ratios, tmp_path):
    executor = make()
    on_executor = ratio_sweep(NS, KS, EPS, workers=executor, cache_dir=tmp_path / "cache")
    assert _bytes(on_executor) == serial_ratios
    # the cache it wrote is the serial run's, entry for entry, byte for byte
    serial_cache = tmp_path / "serial-cache"
    ratio_sweep(NS, KS, EPS, cache_dir=serial_cache)
    written = {p.name: p.read_bytes() for p in (tmp_path / "cache").glob("*.json")}
    assert written == {p.name: p.read_bytes() for p in serial_cache.glob("*.json")}
    assert len(written) == len(NS) * len(KS) * len(EPS)
    # the executor is the caller's: still usable after the sweep
    assert executor.submit(len, "abc").result() == 3
    if hasattr(executor, "shutdown"):
        executor.shutdown()


def test_a_bound_sweep_on_a_process_pool_is_cached_as_it_ran(tmp_path):
    """A bracket's path depends on the CPU time each kind of work took (its certified
    bounds, not their digits, are the contract), so two runs need not agree in every
    digit, serial or not: the pool's brackets hold the exact optimum, and a serial rerun
    from the cache it wrote gives its bytes."""
    from optmech.lattice.optimum import solve_lattice

    cache = tmp_path / "cache"
    with ProcessPoolExecutor(max_workers=2) as pool:
        (pooled,) = bound_sweep([4], [3], EPS, tol=1e-3, workers=pool, cache_dir=cache)
    for i, eps in enumerate(EPS):       # against the exact optimum, to its rounding
        exact = solve_lattice(4, 3, eps)
        assert pooled.lower[i] <= exact.total_error and exact.lower_bound <= pooled.upper[i]
    jobs = JobExecutor()
    again = bound_sweep([4], [3], EPS, tol=1e-3, workers=jobs, cache_dir=cache)
    assert _bytes(again) == _bytes(pooled) and jobs.jobs == []


def test_cached_cells_are_not_sent_to_the_executor(tmp_path):
    cache = tmp_path / "cache"
    first = run_sweep(pf_error_cell, CELLS[:2], cache_dir=cache)
    jobs = JobExecutor()
    full = run_sweep(pf_error_cell, CELLS, workers=jobs, cache_dir=cache)
    assert len(jobs.jobs) == len(CELLS) - 2
    assert full[:2] == first and full == run_sweep(pf_error_cell, CELLS)


def interrupted_cell(n, eps):
    if n == 5:
        raise KeyboardInterrupt
    return pf_error_cell(n, eps)


def test_a_stopped_sweep_cancels_what_the_executor_has_not_finished(tmp_path):
    jobs = JobExecutor()
    with pytest.raises(KeyboardInterrupt):
        run_sweep(interrupted_cell, CELLS, workers=jobs, cache_dir=tmp_path / "cache")
    stopped_at = [job.args[1]["n"] for job in jobs.jobs].index(5)
    assert 0 < stopped_at < len(CELLS) - 1
    assert all(job.cancelled for job in jobs.jobs[stopped_at + 1:])
    assert len(list((tmp_path / "cache").glob("*.json"))) == stopped_at


@pytest.mark.parametrize("workers", ["2", 0, 1.5, None, object()])
def test_workers_must_be_a_count_or_an_executor(workers):
    with pytest.raises(InvalidArgumentError, match="workers"):
        run_sweep(pf_error_cell, CELLS, workers=workers)


def test_an_executor_and_a_dask_scheduler_are_refused_together():
    with pytest.raises(InvalidArgumentError, match="not both"):
        run_sweep(pf_error_cell, CELLS, workers=JobExecutor(),
                  dask_scheduler="tcp://127.0.0.1:1")
