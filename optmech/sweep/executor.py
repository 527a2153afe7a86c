"""Sweeps on any executor: a ``concurrent.futures.Executor`` of your own (a process pool,
Ray's, joblib's ``loky`` pool, submitit's for Slurm) runs the cells as the local pool does.

Any object with ``submit(fn, *args)`` returning a future with ``result()`` (and ``done()``)
is an executor here: ``concurrent.futures``' own classes and those built on them (loky,
``distributed.Client.get_executor()``), and those that only look like one (submitit's
``AutoExecutor``, whose jobs are not ``concurrent.futures`` futures).  Each cell is sent as
``submit(_call, fn, params, policy)``: the same call, warning policy and JSON round trip as
on the local pool and on Dask, so its result is the same Python object (and the cache the
same bytes) whichever runs it.  Results are taken in the order they finish; the cache
stores each as it comes, in the calling process.

The executor stays the caller's: it is never shut down here.  When the sweep stops (Ctrl-C,
SIGTERM, a cell that fails), every future not yet finished is cancelled; cells already
running on an executor that cannot stop them run to their end there.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import sys
import time

from optmech.sweep.cells import _call

__all__: list[str] = []

# Seconds between two looks at futures that are not concurrent.futures futures (submitit's
# jobs: each look at a Slurm job reads its state from files or squeue).
POLL_SECONDS = 0.5


def is_executor(value) -> bool:
    """Whether ``value`` is used as an executor (it has a callable ``submit``); a Dask
    ``distributed.Client`` is not (it has a sweep path of its own, with its watch on the
    cluster)."""
    return callable(getattr(value, "submit", None)) and not is_dask_client(value)


def is_dask_client(value) -> bool:
    """Whether ``value`` is a ``distributed.Client`` (without importing Dask)."""
    distributed = sys.modules.get("distributed")
    return distributed is not None and isinstance(value, distributed.Client)


def run_on_executor(executor, fn, cells, todo, finish, policy,
                    submitting=contextlib.nullcontext, stop=None) -> None:
    """Submit the cells ``todo`` (indices into ``cells``) to ``executor`` inside the context
    ``submitting()`` and call ``finish(index, result)`` as each one ends; on any exception
    (Ctrl-C included) call ``stop(futures)`` (default: cancel every future not finished),
    then raise it."""
    futures: dict = {}
    try:
        with submitting():      # a signal held there is raised here, when it ends
            for i in todo:
                futures[executor.submit(_call, fn, cells[i], policy)] = i
        for future in _as_completed(futures):
            finish(futures[future], future.result())
    except BaseException:
        (stop or _cancel)(futures)
        raise


def _cancel(futures) -> None:
    for future in futures:
        with contextlib.suppress(Exception):
            future.cancel()


def _as_completed(futures):
    """The futures in the order they finish: ``concurrent.futures.as_completed`` when they
    are its futures, else by asking each one's ``done()`` every :data:`POLL_SECONDS`."""
    if all(isinstance(f, concurrent.futures.Future) for f in futures):
        yield from concurrent.futures.as_completed(futures)
        return
    pending = list(futures)
    while pending:
        finished = [f for f in pending if f.done()]
        if not finished:
            time.sleep(POLL_SECONDS)
        for future in finished:
            pending.remove(future)
            yield future
