"""Parameter sweeps: run independent cells serially, on a local process pool, on an
executor of your own (a ``concurrent.futures.Executor``: a process pool, Ray's, joblib's,
submitit's for Slurm) or on an existing Dask distributed cluster, with an on-disk cache so
an interrupted sweep resumes.

A sweep is a top-level function ``fn(**params) -> JSON-serialisable value`` and a list of
parameter dicts (the cells).  :func:`run_sweep` returns the results in cell order.  Every
result goes through one JSON round trip whatever the executor, so a cached result, a
process-pool result and a Dask result are the same Python objects (tests check that local
and Dask runs agree exactly, and that other executors give the same bytes).  A cell whose
result holds NaN or infinity is an error
(:class:`~optmech.validation.NonFiniteResultError`), never a stored number, except a value
that is truly unbounded (:data:`~optmech.unbounded.UNBOUNDED`, stored as
``{"unbounded": true}`` and read back as itself).

One warning policy on every executor: each cell runs under the warning filters of the
process that called :func:`run_sweep` (shipped with the cell), so a numerical warning that
the ``optmech`` command turns into an error does so on a pool worker and on a Dask worker
alike.  (On a Dask worker running several threads the filters are process-wide while a
cell runs, as Python's warning filters are.)

The pieces, one module each: :mod:`optmech.sweep.cells` (a cell's key, its run under the
caller's warning policy, its JSON form), :mod:`optmech.sweep.cache` (the signed on-disk
cache), :mod:`optmech.sweep.executor` (any executor), :mod:`optmech.sweep.pool` (the local
process pool, an executor of ours) and :mod:`optmech.sweep.cluster` (a Dask cluster:
checked addresses, a handshake probe, bounded waits).
"""

from __future__ import annotations

import contextlib
import os
from typing import Any, Callable, Mapping, Sequence

from optmech.progress import progress
from optmech.resources import usable_workers
from optmech.sweep.cache import CACHE_FORMAT, MAX_ENTRY_BYTES, _Cache, cache_secret_path
from optmech.sweep.cells import _call, _qualified_name, _warning_policy, cell_key
from optmech.sweep.cluster import (
    CONNECT_TIMEOUT,
    WORKER_WAIT,
    ClusterError,
    _connect,
    _dask_quiet,
    _run_dask,
    scheduler_address,
)
from optmech.sweep.executor import is_dask_client, is_executor, run_on_executor
from optmech.sweep.pool import _run_pool
from optmech.validation import InvalidArgumentError, check_integer

__all__ = ["CACHE_FORMAT", "CONNECT_TIMEOUT", "ClusterError", "MAX_ENTRY_BYTES",
           "WORKER_WAIT", "cache_secret_path", "cell_key", "run_sweep", "scheduler_address"]


def run_sweep(fn: Callable, cells: Sequence[Mapping[str, Any]], *, workers=1,
              dask_scheduler: str | None = None, cache_dir: str | os.PathLike | None = None,
              desc: str | None = None, show_progress: bool | None = None) -> list:
    """Evaluate ``fn(**cell)`` for every cell; return the results in cell order.

    ``workers``: a number (``> 1`` uses a local process pool, capped at the usable cores),
    or an executor of yours that runs the cells instead: a ``concurrent.futures.Executor``
    (``ProcessPoolExecutor``, Ray's, joblib's ``loky.get_reusable_executor()``) or anything
    with ``submit`` whose futures have ``result()`` and ``done()`` (submitit's
    ``AutoExecutor`` for Slurm); it is not shut down here (:mod:`optmech.sweep.executor`).
    ``dask_scheduler`` ("tcp://host:port", "host:port", or a ``distributed.Client``; a
    Client given as ``workers`` is taken as this) sends the cells to an existing Dask
    cluster instead (the ``cluster`` extra installs Dask).  ``cache_dir`` enables the
    resumable, signed on-disk cache (:mod:`optmech.sweep.cache`).  Whatever runs the cells,
    the results are the same Python objects and the cache the same bytes.
    """
    _qualified_name(fn)
    executor, workers, dask_scheduler = _executor(workers, dask_scheduler)
    cells = [dict(c) for c in cells]
    cache = _Cache(cache_dir)
    policy = _warning_policy()
    with _dask_quiet(dask_scheduler is not None):
        client = _connect(dask_scheduler) if dask_scheduler is not None else None
        try:
            keys = [cell_key(fn, c) for c in cells]
            results: list = [None] * len(cells)
            todo = []
            for i, key in enumerate(keys):
                found, value = cache.load(key)
                if found:
                    results[i] = value
                else:
                    todo.append(i)

            bar = progress(range(len(todo)), total=len(todo), desc=desc,
                           enabled=show_progress)
            ticks = iter(bar)

            def finish(i, value):
                results[i] = value
                cache.store(keys[i], value)
                next(ticks, None)

            if client is not None:
                _run_dask(client, fn, cells, todo, finish, policy)
            elif executor is not None:
                run_on_executor(executor, fn, cells, todo, finish, policy)
            elif workers > 1 and len(todo) > 1:
                _run_pool(fn, cells, todo, finish, workers, policy)
            else:
                for i in todo:
                    finish(i, _call(fn, cells[i]))
            getattr(bar, "close", lambda: None)()
            return results
        finally:
            if client is not None and client is not dask_scheduler:
                with contextlib.suppress(Exception):
                    client.close(timeout=CONNECT_TIMEOUT)


def _executor(workers, dask_scheduler):
    """``(executor or None, number of local workers, dask_scheduler)`` from ``run_sweep``'s
    arguments, checked: ``workers`` a number >= 1 or an executor, a Dask Client given as
    ``workers`` taken as ``dask_scheduler``, not both an executor and a cluster."""
    if is_dask_client(workers) and dask_scheduler is None:
        return None, 1, workers
    if is_executor(workers):
        if dask_scheduler is not None:
            raise InvalidArgumentError("workers", type(workers).__name__,
                                       "an executor or a Dask scheduler, not both")
        return workers, 1, None
    try:
        count = check_integer(workers, "workers", minimum=1)
    except InvalidArgumentError:
        raise InvalidArgumentError("workers", workers, "an integer >= 1 (local processes) or "
                                   "an executor (an object with submit(), e.g. a "
                                   "concurrent.futures.ProcessPoolExecutor)") from None
    return None, usable_workers(count), dask_scheduler
