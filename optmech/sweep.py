"""Parameter sweeps: run independent cells serially, on a local process pool, or on an
existing Dask distributed cluster, with an on-disk cache so an interrupted sweep resumes.

A sweep is a top-level function ``fn(**params) -> JSON-serialisable value`` and a list of
parameter dicts (the cells).  :func:`run_sweep` returns the results in cell order.  Every
result goes through one JSON round trip whatever the executor, so a cached result, a
process-pool result and a Dask result are the same Python objects (a test checks local
and Dask runs agree exactly).

Cache: with ``cache_dir`` each cell's result is stored as ``<sha256>.json`` keyed by the
function's qualified name, the cell's parameters and the optmech version; a rerun loads
finished cells and computes only the rest.
"""

from __future__ import annotations

import hashlib
import json
import os
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from optmech._version import __version__
from optmech.jsonable import to_jsonable
from optmech.progress import progress
from optmech.validation import InvalidArgumentError, check_integer

__all__ = ["cell_key", "run_sweep"]


def _qualified_name(fn: Callable) -> str:
    name = f"{fn.__module__}.{fn.__qualname__}"
    if "<" in fn.__qualname__:
        raise InvalidArgumentError("fn", name, "a module-level function (picklable by name)")
    return name


def cell_key(fn: Callable, params: Mapping[str, Any]) -> str:
    """The cache key of one cell: sha256 of function name, parameters and optmech version."""
    payload = json.dumps({"function": _qualified_name(fn), "params": to_jsonable(dict(params)),
                          "version": __version__}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()


def _call(fn: Callable, params: Mapping[str, Any]):
    """Run one cell and normalise its result through JSON (same types on every executor)."""
    return json.loads(json.dumps(to_jsonable(fn(**params))))


def _store(cache_dir: Path | None, key: str, value) -> None:
    if cache_dir is None:
        return
    tmp = cache_dir / f"{key}.json.tmp{os.getpid()}"
    tmp.write_text(json.dumps(value))
    tmp.replace(cache_dir / f"{key}.json")  # atomic: a killed sweep leaves no half file


def run_sweep(fn: Callable, cells: Sequence[Mapping[str, Any]], *, workers: int = 1,
              dask_scheduler: str | None = None, cache_dir: str | os.PathLike | None = None,
              desc: str | None = None, show_progress: bool | None = None) -> list:
    """Evaluate ``fn(**cell)`` for every cell; return the results in cell order.

    ``workers > 1`` uses a local process pool; ``dask_scheduler`` ("tcp://host:port", or
    a ``distributed.Client``) sends the cells to an existing Dask cluster instead (the
    ``cluster`` extra installs Dask).  ``cache_dir`` enables the resumable on-disk cache.
    """
    _qualified_name(fn)
    workers = check_integer(workers, "workers", minimum=1)
    cells = [dict(c) for c in cells]
    cache = Path(cache_dir) if cache_dir is not None else None
    if cache is not None:
        cache.mkdir(parents=True, exist_ok=True)
    keys = [cell_key(fn, c) for c in cells]
    results: list = [None] * len(cells)
    todo = []
    for i, key in enumerate(keys):
        path = cache / f"{key}.json" if cache is not None else None
        if path is not None and path.exists():
            results[i] = json.loads(path.read_text())
        else:
            todo.append(i)

    bar = progress(range(len(todo)), total=len(todo), desc=desc, enabled=show_progress)
    ticks = iter(bar)
    if dask_scheduler is not None:
        _run_dask(fn, cells, keys, todo, results, cache, dask_scheduler, ticks)
    elif workers > 1 and len(todo) > 1:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            futures = {pool.submit(_call, fn, cells[i]): i for i in todo}
            for future in as_completed(futures):
                i = futures[future]
                results[i] = future.result()
                _store(cache, keys[i], results[i])
                next(ticks, None)
    else:
        for i in todo:
            results[i] = _call(fn, cells[i])
            _store(cache, keys[i], results[i])
            next(ticks, None)
    getattr(bar, "close", lambda: None)()
    return results


def _run_dask(fn, cells, keys, todo, results, cache, scheduler, ticks) -> None:
    try:
        from distributed import Client
        from distributed import as_completed as dask_completed
    except ImportError:  # pragma: no cover - depends on the optional extra
        raise InvalidArgumentError("dask_scheduler", scheduler,
                                   "usable only with Dask installed (pip install "
                                   "'optmech[cluster]')") from None
    client = scheduler if isinstance(scheduler, Client) else Client(scheduler)
    try:
        futures = {client.submit(_call, fn, cells[i], pure=False): i for i in todo}
        for future in dask_completed(list(futures)):
            i = futures[future]
            results[i] = future.result()
            _store(cache, keys[i], results[i])
            next(ticks, None)
    finally:
        if client is not scheduler:
            client.close()
