"""Parameter sweeps: run independent cells serially, on a local process pool, or on an
existing Dask distributed cluster, with an on-disk cache so an interrupted sweep resumes.

A sweep is a top-level function ``fn(**params) -> JSON-serialisable value`` and a list of
parameter dicts (the cells).  :func:`run_sweep` returns the results in cell order.  Every
result goes through one JSON round trip whatever the executor, so a cached result, a
process-pool result and a Dask result are the same Python objects (a test checks local
and Dask runs agree exactly).  A cell whose result holds NaN or infinity is an error
(:class:`~optmech.validation.NonFiniteResultError`), never a stored number, except a value
that is truly unbounded (:data:`~optmech.unbounded.UNBOUNDED`, stored as
``{"unbounded": true}`` and read back as itself).

Cache: with ``cache_dir`` each cell's result is stored as ``<key>.json``, the key being the
sha256 of the function's qualified name, the cell's parameters and the optmech version.
An entry records its format version, its key and the sha256 of its value, and is written
atomically (a temporary file renamed into place), so an interrupted sweep leaves finished
entries whole and no half-written one.  On reading, an entry that is not valid JSON, has
another format or key, or whose value does not match its checksum is *never used*: it is
recomputed and overwritten, with one line on stderr saying so.

Executors: ``workers > 1`` is capped at the cores this process may use; worker processes
ignore Ctrl-C, which the calling process turns into ``KeyboardInterrupt`` after stopping
them.  A Dask scheduler address is parsed and connected to (5 s timeout) before any cell
runs; a cluster that cannot be reached, or that goes away during the sweep, raises
:class:`ClusterError`.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import hashlib
import json
import logging
import os
import re
import signal
import sys
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from optmech._version import __version__
from optmech.jsonable import from_json, to_jsonable
from optmech.progress import progress
from optmech.resources import usable_workers
from optmech.validation import InvalidArgumentError, NonFiniteResultError, check_integer

__all__ = ["CACHE_FORMAT", "ClusterError", "cell_key", "run_sweep"]

CACHE_FORMAT = 1
CONNECT_TIMEOUT = 5.0        # seconds to reach a Dask scheduler
_ADDRESS = re.compile(r"^(?:(?:tcp|tls|ucx|ws|wss)://)?[A-Za-z0-9_.\-\[\]:]+:\d{1,5}$"
                      r"|^inproc://\S+$")


class ClusterError(RuntimeError):
    """The Dask cluster could not be reached, or failed during the sweep."""


def _qualified_name(fn: Callable) -> str:
    name = f"{fn.__module__}.{fn.__qualname__}"
    if "<" in fn.__qualname__:
        raise InvalidArgumentError("fn", name, "a module-level function (picklable by name)")
    return name


def _canonical(value) -> str:
    """The JSON text of a value (sorted keys; NaN and infinity refused, UNBOUNDED encoded)."""
    return json.dumps(to_jsonable(value), sort_keys=True, allow_nan=False)


def cell_key(fn: Callable, params: Mapping[str, Any]) -> str:
    """The cache key of one cell: sha256 of function name, parameters and optmech version."""
    payload = json.dumps({"function": _qualified_name(fn), "params": to_jsonable(dict(params)),
                          "version": __version__}, sort_keys=True)
    return hashlib.sha256(payload.encode()).hexdigest()


def _checksum(value) -> str:
    return hashlib.sha256(_canonical(value).encode()).hexdigest()


def _call(fn: Callable, params: Mapping[str, Any]):
    """Run one cell and normalise its result through JSON (same types on every executor)."""
    value = fn(**params)
    try:
        return from_json(_canonical(value))
    except ValueError:
        raise NonFiniteResultError(f"the sweep cell {dict(params)} returned a value that is "
                                   "not finite") from None


def _note(message: str) -> None:
    print(f"optmech: warning: {message}", file=sys.stderr)


def _load(path: Path, key: str):
    """``(True, value)`` for a valid cache entry; ``(False, None)`` if there is none or it is
    damaged (then it is reported and will be recomputed)."""
    try:
        text = path.read_text()
    except FileNotFoundError:
        return False, None
    except (OSError, UnicodeDecodeError) as error:
        _note(f"cache entry {path.name} unreadable ({error}); recomputing it")
        return False, None
    try:
        entry = json.loads(text)
        valid = (isinstance(entry, dict) and entry.get("format") == CACHE_FORMAT
                 and entry.get("key") == key and "value" in entry
                 and entry.get("sha256") == _checksum(entry["value"]))
    except ValueError:
        valid = False
    if not valid:
        _note(f"cache entry {path.name} is damaged or from another version; recomputing it")
        return False, None
    return True, from_json(_canonical(entry["value"]))


def _store(cache_dir: Path | None, key: str, value) -> None:
    if cache_dir is None:
        return
    entry = {"format": CACHE_FORMAT, "key": key, "sha256": _checksum(value), "value": value}
    tmp = cache_dir / f"{key}.json.tmp{os.getpid()}"
    tmp.write_text(_canonical(entry))
    tmp.replace(cache_dir / f"{key}.json")  # atomic: a killed sweep leaves no half file


def _cache_folder(cache_dir) -> Path | None:
    if cache_dir is None:
        return None
    cache = Path(cache_dir)
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError:
        raise InvalidArgumentError("cache_dir", str(cache_dir),
                                   "a folder that exists or can be created") from None
    if not os.access(cache, os.W_OK):
        raise InvalidArgumentError("cache_dir", str(cache_dir), "a writable folder")
    return cache


def run_sweep(fn: Callable, cells: Sequence[Mapping[str, Any]], *, workers: int = 1,
              dask_scheduler: str | None = None, cache_dir: str | os.PathLike | None = None,
              desc: str | None = None, show_progress: bool | None = None) -> list:
    """Evaluate ``fn(**cell)`` for every cell; return the results in cell order.

    ``workers > 1`` uses a local process pool (capped at the usable cores);
    ``dask_scheduler`` ("tcp://host:port", "host:port", or a ``distributed.Client``) sends
    the cells to an existing Dask cluster instead (the ``cluster`` extra installs Dask).
    ``cache_dir`` enables the resumable, validated on-disk cache (module docstring).
    """
    _qualified_name(fn)
    workers = usable_workers(check_integer(workers, "workers", minimum=1))
    cells = [dict(c) for c in cells]
    cache = _cache_folder(cache_dir)
    client = _connect(dask_scheduler) if dask_scheduler is not None else None
    try:
        keys = [cell_key(fn, c) for c in cells]
        results: list = [None] * len(cells)
        todo = []
        for i, key in enumerate(keys):
            found, value = _load(cache / f"{key}.json", key) if cache else (False, None)
            if found:
                results[i] = value
            else:
                todo.append(i)

        bar = progress(range(len(todo)), total=len(todo), desc=desc, enabled=show_progress)
        ticks = iter(bar)

        def finish(i, value):
            results[i] = value
            _store(cache, keys[i], value)
            next(ticks, None)

        if client is not None:
            _run_dask(client, fn, cells, todo, finish)
        elif workers > 1 and len(todo) > 1:
            _run_pool(fn, cells, todo, finish, workers)
        else:
            for i in todo:
                finish(i, _call(fn, cells[i]))
        getattr(bar, "close", lambda: None)()
        return results
    finally:
        if client is not None and client is not dask_scheduler:
            client.close()


def _ignore_interrupts() -> None:
    """Pool worker initializer: Ctrl-C is the calling process's to handle."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_pool(fn, cells, todo, finish, workers: int) -> None:
    pool = ProcessPoolExecutor(max_workers=workers, initializer=_ignore_interrupts)
    try:
        futures = {pool.submit(_call, fn, cells[i]): i for i in todo}
        for future in as_completed(futures):
            finish(futures[future], future.result())
    except BaseException:
        # Stop at once (Ctrl-C, a failed cell): cancel what has not started and end the
        # workers still computing, or the interpreter would wait for them at exit.
        for process in list(getattr(pool, "_processes", {}).values()):
            process.terminate()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()


def _connect(scheduler):
    """A ``distributed.Client`` for ``scheduler`` (a Client is used as it is), connected
    before any work starts."""
    try:
        from distributed import Client
    except ImportError:  # pragma: no cover - depends on the optional extra
        raise InvalidArgumentError("dask_scheduler", scheduler,
                                   "usable only with Dask installed (pip install "
                                   "'optmech[cluster]')") from None
    if isinstance(scheduler, Client):
        return scheduler
    if not isinstance(scheduler, str) or not _ADDRESS.match(scheduler.strip()):
        raise InvalidArgumentError("dask_scheduler", scheduler,
                                   "a scheduler address such as tcp://host:8786")
    quiet = logging.getLogger("distributed")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)
    try:
        return Client(scheduler.strip(), timeout=CONNECT_TIMEOUT)
    except (OSError, TimeoutError) as error:
        raise ClusterError(f"cannot reach the Dask scheduler at {scheduler} within "
                           f"{CONNECT_TIMEOUT:g} s ({type(error).__name__})") from None
    finally:
        quiet.setLevel(level)


# What a cluster that goes away raises: lost connections (OSError), timeouts, and futures
# cancelled by the scheduler (concurrent.futures' and asyncio's CancelledError).
_CLUSTER_FAILURES = (OSError, TimeoutError, concurrent.futures.CancelledError,
                     asyncio.CancelledError)


def _run_dask(client, fn, cells, todo, finish) -> None:
    from distributed import as_completed as dask_completed

    quiet = logging.getLogger("distributed")
    level = quiet.level
    quiet.setLevel(logging.CRITICAL)
    futures = {client.submit(_call, fn, cells[i], pure=False): i for i in todo}
    try:
        for future in dask_completed(list(futures)):
            finish(futures[future], future.result())
    except _CLUSTER_FAILURES as error:
        raise ClusterError(f"the Dask cluster failed during the sweep "
                           f"({type(error).__name__}: {error})") from None
    except BaseException:
        client.cancel(list(futures))
        raise
    finally:
        quiet.setLevel(level)
