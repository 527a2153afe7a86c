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

One warning policy on every executor: each cell runs under the warning filters of the
process that called :func:`run_sweep` (shipped with the cell), so a numerical warning that
the ``optmech`` command turns into an error does so on a pool worker and on a Dask worker
alike.  (On a Dask worker running several threads the filters are process-wide while a
cell runs, as Python's warning filters are.)

Cache: with ``cache_dir`` each cell's result is stored as ``<key>.json``, the key being the
sha256 of the function's qualified name, the cell's parameters and the optmech version.
An entry records its format version, its key, its value and an HMAC-SHA256 signature of
key and value under a secret key of the user (:func:`cache_secret_path`: 32 random bytes,
created on first use, readable by the user only).  Entries are written atomically (a
temporary file renamed into place; a failed write removes its temporary file, and the
temporary files of sweeps that were killed are removed by the next sweep).  On reading,
an entry is opened without following symbolic links and without blocking, and used only if
it is a regular file of at most :data:`MAX_ENTRY_BYTES` holding JSON of this format, with
this key and a valid signature; anything else (a damaged, foreign, forged or
other-version entry, a FIFO, a directory, a link to ``/dev/zero``, JSON nested too deep) is
*never used*: it is recomputed and overwritten, with one line on stderr saying so.  A cache
folder that cannot be written (a full disk, an entry that is a directory) does not stop
the sweep: one line on stderr says so and the remaining cells are computed without caching.
What the signature does and does not protect against is in ``docs/security.md``.

Executors: ``workers > 1`` is capped at the cores this process may use; worker processes
ignore Ctrl-C, which the calling process turns into ``KeyboardInterrupt`` after stopping
them, and die with the calling process however it ends (on Linux the kernel kills them
when it exits, even by SIGKILL; elsewhere each worker checks its parent every second).
A Dask scheduler address is checked (``tcp://host:port`` or ``host:port``, a valid host
name or IP address, port 1-65535) and probed before any cell runs: within
:data:`CONNECT_TIMEOUT` seconds the server must answer with a Dask handshake, so a server
that is not a Dask scheduler (a banner, HTTP, silence) is refused as such.  A cluster
that cannot be reached, loses its scheduler, or has had no worker for
:data:`WORKER_WAIT` seconds while cells are pending raises :class:`ClusterError`; Dask's
own log messages are not shown.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import ctypes
import errno
import hashlib
import hmac
import ipaddress
import json
import logging
import os
import re
import secrets
import signal
import socket
import stat
import struct
import sys
import threading
import time
import warnings
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from optmech._version import __version__
from optmech.jsonable import from_json, to_jsonable
from optmech.progress import progress
from optmech.resources import usable_workers
from optmech.validation import InvalidArgumentError, NonFiniteResultError, check_integer

__all__ = ["CACHE_FORMAT", "CONNECT_TIMEOUT", "ClusterError", "MAX_ENTRY_BYTES",
           "WORKER_WAIT", "cache_secret_path", "cell_key", "run_sweep", "scheduler_address"]

CACHE_FORMAT = 2
CONNECT_TIMEOUT = 5.0        # seconds to reach a Dask scheduler and read its handshake
WORKER_WAIT = 30.0           # seconds a Dask cluster may have no worker while cells wait
MAX_ENTRY_BYTES = 64 * 2**20  # a cache entry larger than this is damaged, not read
_HANDSHAKE_BYTES = 2**16      # a Dask handshake is about 60 bytes
_HOST_LABEL = re.compile(r"^(?!-)[A-Za-z0-9_-]{1,63}(?<!-)$")


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


# --- one warning policy on every executor -------------------------------------------------

def _warning_policy() -> list[tuple]:
    """The caller's warning filters, as picklable tuples (shipped with every cell)."""
    def text(pattern) -> str:              # a compiled pattern, a string, or None
        return getattr(pattern, "pattern", pattern) or ""
    return [(action, text(message), category, text(module), lineno)
            for action, message, category, module, lineno in warnings.filters]


def _call(fn: Callable, params: Mapping[str, Any], policy: list[tuple] | None = None):
    """Run one cell under the caller's warning ``policy`` and normalise its result through
    JSON (same types on every executor)."""
    with warnings.catch_warnings():
        if policy is not None:
            warnings.resetwarnings()
            for action, message, category, module, lineno in reversed(policy):
                warnings.filterwarnings(action, message, category, module, lineno)
        value = fn(**params)
    try:
        return from_json(_canonical(value))
    except ValueError:
        raise NonFiniteResultError(f"the sweep cell {dict(params)} returned a value that is "
                                   "not finite") from None


def _note(message: str) -> None:
    print(f"optmech: warning: {message}", file=sys.stderr)


# --- the cache: signed entries, read without following links or blocking ------------------

def cache_secret_path() -> Path:
    """Where the key that signs cache entries lives: ``$OPTMECH_CACHE_KEY`` if set, else
    ``optmech/cache-key`` in the user's configuration folder (``$XDG_CONFIG_HOME`` or
    ``~/.config``)."""
    explicit = os.environ.get("OPTMECH_CACHE_KEY")
    if explicit:
        return Path(explicit)
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"),
                                                               ".config")
    return Path(config) / "optmech" / "cache-key"


def _cache_secret() -> bytes:
    """The user's signing key (created, readable by the user only, on first use)."""
    path = cache_secret_path()
    for _ in range(2):
        try:
            secret = _read_regular(path, 1024)
        except FileNotFoundError:
            secret = None
        except OSError as error:
            raise InvalidArgumentError("cache_dir", str(path), f"usable with a readable "
                                       f"signing key file ({error.strerror})") from None
        if secret is not None:
            if len(secret) < 32:
                raise InvalidArgumentError("cache_dir", str(path),
                                           "usable with a signing key of at least 32 bytes "
                                           "(delete the file to have a new one made)")
            return secret
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                             0o600)
        except FileExistsError:
            continue                     # another sweep made it first: read theirs
        except OSError as error:
            raise InvalidArgumentError("cache_dir", str(path), "usable with a signing key "
                                       f"that can be created ({error.strerror}; set "
                                       "OPTMECH_CACHE_KEY to a writable file)") from None
        with os.fdopen(handle, "wb") as out:
            out.write(secrets.token_bytes(32))
    return _read_regular(path, 1024)


def _signature(secret: bytes, key: str, value) -> str:
    message = f"{CACHE_FORMAT}\n{key}\n{_canonical(value)}".encode()
    return hmac.new(secret, message, hashlib.sha256).hexdigest()


class _Damaged(Exception):
    """A cache entry that must not be used (the reason is the message)."""


def _read_regular(path: Path, limit: int) -> bytes:
    """The bytes of the regular file ``path`` (at most ``limit``), opened without following
    a symbolic link and without blocking; :class:`_Damaged` for anything else."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        handle = os.open(path, flags)
    except OSError as error:
        if error.errno == errno.ENOENT:
            raise
        what = "a symbolic link" if error.errno == errno.ELOOP else error.strerror
        raise _Damaged(what) from None
    with os.fdopen(handle, "rb") as entry:
        mode = os.fstat(entry.fileno())
        if not stat.S_ISREG(mode.st_mode):
            raise _Damaged("not a regular file")
        if mode.st_size > limit:
            raise _Damaged(f"larger than {limit} bytes")
        data = entry.read(limit + 1)
    if len(data) > limit:
        raise _Damaged(f"larger than {limit} bytes")
    return data


def _load(path: Path, key: str, secret: bytes):
    """``(True, value)`` for a valid cache entry; ``(False, None)`` if there is none or it is
    not to be used (then it is reported and will be recomputed)."""
    try:
        entry = json.loads(_read_regular(path, MAX_ENTRY_BYTES))
        valid = (isinstance(entry, dict) and entry.get("format") == CACHE_FORMAT
                 and entry.get("key") == key and "value" in entry
                 and isinstance(entry.get("signature"), str)
                 and hmac.compare_digest(entry["signature"],
                                         _signature(secret, key, entry["value"])))
        if valid:
            return True, from_json(_canonical(entry["value"]))
        reason = "damaged, unsigned, or from another version"
    except FileNotFoundError:
        return False, None
    except _Damaged as damage:
        reason = str(damage)
    except (ValueError, RecursionError, UnicodeDecodeError, OSError, TypeError):
        reason = "not valid JSON"
    _note(f"cache entry {path.name} is not used ({reason}); recomputing it")
    return False, None


class _Cache:
    """The cache folder of one sweep (or none): reads entries, writes them atomically, and
    stops writing (one warning) when the folder cannot take them."""

    def __init__(self, cache_dir):
        self.folder = None if cache_dir is None else _cache_folder(cache_dir)
        self.secret = b"" if self.folder is None else _cache_secret()
        if self.folder is not None:
            _remove_stale_temporaries(self.folder)

    def load(self, key: str):
        if self.folder is None:
            return False, None
        return _load(self.folder / f"{key}.json", key, self.secret)

    def store(self, key: str, value) -> None:
        if self.folder is None:
            return
        entry = {"format": CACHE_FORMAT, "key": key, "value": value,
                 "signature": _signature(self.secret, key, value)}
        tmp = self.folder / f"{key}.json.tmp{os.getpid()}"
        try:
            handle = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW,
                             0o644)
            with os.fdopen(handle, "w") as out:
                out.write(_canonical(entry))
            os.replace(tmp, self.folder / f"{key}.json")  # a killed sweep leaves no half file
        except OSError as error:
            with contextlib.suppress(OSError):
                tmp.unlink()
            _note(f"cannot write cache entries in {self.folder} ({error.strerror}); the "
                  "remaining cells are computed without caching")
            self.folder = None


def _remove_stale_temporaries(folder: Path) -> None:
    """Remove the temporary files of sweeps that were killed while writing an entry."""
    for tmp in folder.glob("*.json.tmp*"):
        pid = tmp.name.rpartition(".tmp")[2]
        if pid.isdigit() and int(pid) != os.getpid() and not _running(int(pid)):
            with contextlib.suppress(OSError):
                tmp.unlink()


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True


def _cache_folder(cache_dir) -> Path:
    cache = Path(cache_dir)
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError:
        raise InvalidArgumentError("cache_dir", str(cache_dir),
                                   "a folder that exists or can be created") from None
    if not os.access(cache, os.W_OK):
        raise InvalidArgumentError("cache_dir", str(cache_dir), "a writable folder")
    return cache


# --- the sweep ------------------------------------------------------------------------------

def run_sweep(fn: Callable, cells: Sequence[Mapping[str, Any]], *, workers: int = 1,
              dask_scheduler: str | None = None, cache_dir: str | os.PathLike | None = None,
              desc: str | None = None, show_progress: bool | None = None) -> list:
    """Evaluate ``fn(**cell)`` for every cell; return the results in cell order.

    ``workers > 1`` uses a local process pool (capped at the usable cores);
    ``dask_scheduler`` ("tcp://host:port", "host:port", or a ``distributed.Client``) sends
    the cells to an existing Dask cluster instead (the ``cluster`` extra installs Dask).
    ``cache_dir`` enables the resumable, signed on-disk cache (module docstring).
    """
    _qualified_name(fn)
    workers = usable_workers(check_integer(workers, "workers", minimum=1))
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


# --- the local process pool: workers die with their parent --------------------------------

_PR_SET_PDEATHSIG = 1


def _worker_init(parent: int) -> None:
    """Pool worker initializer: Ctrl-C is the calling process's to handle, and the worker
    ends when the calling process does, however it ends (SIGTERM, SIGKILL, a crash)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        armed = libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):       # not Linux
        armed = False
    if os.getppid() != parent:               # the parent died before the signal was armed
        os._exit(1)
    if not armed:
        threading.Thread(target=_watch_parent, args=(parent,), daemon=True).start()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(1.0)
    os._exit(1)


def _run_pool(fn, cells, todo, finish, workers: int, policy) -> None:
    pool = ProcessPoolExecutor(max_workers=workers, initializer=_worker_init,
                               initargs=(os.getpid(),))
    try:
        futures = {pool.submit(_call, fn, cells[i], policy): i for i in todo}
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


# --- Dask: checked addresses, a handshake probe, bounded waits ----------------------------

def scheduler_address(address) -> str:
    """``address`` as ``tcp://host:port`` if it is a Dask scheduler address this module
    connects to: ``tcp://host:port`` or ``host:port`` with a host name (labels of at most
    63 letters, digits, ``-`` or ``_``; at most 253 characters), an IPv4 address or a
    bracketed IPv6 address, and a port in 1..65535.  Other protocols (``tls://``,
    ``inproc://``, ``ucx://``, ``ws://``) need a configured ``distributed.Client``, which
    :func:`run_sweep` accepts in place of an address."""
    allowed = ("a Dask scheduler address tcp://HOST:PORT (a host name or IP address, port "
               "1-65535; for tls:// and other protocols pass a configured "
               "distributed.Client from Python)")
    if not isinstance(address, str) or len(address) > 300:
        raise InvalidArgumentError("dask_scheduler", address, allowed)
    text = address.strip()
    scheme, sep, rest = text.partition("://")
    if not sep:
        scheme, rest = "tcp", text
    host, colon, port = rest.rpartition(":")
    if scheme.lower() != "tcp" or not colon or not port.isdigit() \
            or not 1 <= int(port) <= 65535 or not _valid_host(host):
        raise InvalidArgumentError("dask_scheduler", address, allowed)
    return f"tcp://{host}:{int(port)}"


def _valid_host(host: str) -> bool:
    if host.startswith("[") and host.endswith("]"):
        try:
            return ipaddress.ip_address(host[1:-1]).version == 6
        except ValueError:
            return False
    with contextlib.suppress(ValueError):
        return ipaddress.ip_address(host).version == 4
    labels = host.split(".")
    return 0 < len(host) <= 253 and all(_HOST_LABEL.match(label) for label in labels)


class _DropDaskRecords(logging.Filter):
    """A handler filter that drops the records of Dask and of the libraries under it."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.name.startswith(("distributed", "tornado", "asyncio", "dask"))


@contextlib.contextmanager
def _dask_quiet(active: bool):
    """Dask's, tornado's and asyncio's log messages unshown while a sweep talks to a
    cluster (a filter on every handler they reach: Dask sets the levels of its loggers one
    by one), so what goes wrong reaches the user as one :class:`ClusterError` line."""
    if not active:
        yield
        return
    with contextlib.suppress(ImportError):   # Dask sets up its handlers when imported
        import distributed  # noqa: F401

    drop = _DropDaskRecords()
    handlers = {handler for name in ("", "distributed", "dask", "tornado", "asyncio")
                for handler in logging.getLogger(name).handlers}
    if logging.lastResort is not None:       # what a logger without handlers writes to
        handlers.add(logging.lastResort)
    for handler in handlers:
        handler.addFilter(drop)
    try:
        yield
    finally:
        for handler in handlers:
            handler.removeFilter(drop)


def _probe(address: str) -> None:
    """Connect to ``tcp://host:port`` (trying again while the connection is refused: a
    scheduler may be starting) and read the Dask handshake every Dask server sends first (a
    length-prefixed msgpack frame with ``compression``, ``python`` and ``pickle-protocol``),
    all within :data:`CONNECT_TIMEOUT` seconds; answer with the same handshake and close.
    :class:`ClusterError` saying what was found otherwise."""
    host, _, port = address[len("tcp://"):].rpartition(":")
    host = host.strip("[]")
    deadline = time.monotonic() + CONNECT_TIMEOUT
    found: list = []
    worker = threading.Thread(target=lambda: found.append(_handshake(host, int(port),
                                                                     deadline)),
                              daemon=True)
    worker.start()
    worker.join(CONNECT_TIMEOUT + 0.5)
    outcome = found[0] if found else f"cannot reach the Dask scheduler at {address} within " \
                                     f"{CONNECT_TIMEOUT:g} s"
    if outcome is not None:
        raise ClusterError(outcome.format(address=address))


def _handshake(host: str, port: int, deadline: float) -> str | None:
    """None if the server at ``host:port`` sent a Dask handshake before ``deadline``, else
    a message (with ``{address}``) saying why not."""
    reach = "cannot reach the Dask scheduler at {address}"
    while True:          # a refused connection is tried again: the scheduler may be starting
        try:
            sock = socket.create_connection((host, port), timeout=CONNECT_TIMEOUT)
            break
        except socket.gaierror:
            return reach + " (unknown host name)"
        except TimeoutError:
            return reach + f" within {CONNECT_TIMEOUT:g} s"
        except ConnectionRefusedError as error:
            if time.monotonic() + 0.2 > deadline:
                return reach + f" within {CONNECT_TIMEOUT:g} s ({error.strerror})"
            time.sleep(0.2)
        except OSError as error:
            return reach + f" ({error.strerror or type(error).__name__})"
    not_dask = "the server at {address} is not a Dask scheduler"
    try:
        head = _receive(sock, 8, deadline)
        if head is None:
            return not_dask + f" (no Dask handshake within {CONNECT_TIMEOUT:g} s)"
        (size,) = struct.unpack("<Q", head)
        blob = _receive(sock, size, deadline) if 16 <= size <= _HANDSHAKE_BYTES else None
        if blob is None or not _is_handshake(blob):
            shown = (head + (blob or b""))[:24]
            return not_dask + f" (it answered {shown!r})"
        with contextlib.suppress(OSError):
            sock.sendall(head + blob)         # our handshake: the same versions
        return None
    except OSError as error:
        return not_dask + f" (the connection failed: {error.strerror or error})"
    finally:
        sock.close()


def _receive(sock: socket.socket, size: int, deadline: float) -> bytes | None:
    """Exactly ``size`` bytes, or None if they do not all arrive before ``deadline``."""
    data = b""
    while len(data) < size:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return None
        sock.settimeout(remaining)
        try:
            chunk = sock.recv(size - len(data))
        except TimeoutError:
            return None
        if not chunk:
            return None
        data += chunk
    return data


def _is_handshake(blob: bytes) -> bool:
    """Whether ``blob`` is one Dask frame holding a handshake dict."""
    import msgpack

    if len(blob) < 16 or struct.unpack_from("<Q", blob)[0] != 1:
        return False
    (length,) = struct.unpack_from("<Q", blob, 8)
    if length != len(blob) - 16:
        return False
    try:
        message = msgpack.unpackb(blob[16:], raw=False, max_bin_len=0, max_ext_len=0)
    except Exception:  # noqa: BLE001 - anything that does not decode is not Dask
        return False
    return isinstance(message, dict) and {"compression", "python"} <= set(message)


def _connect(scheduler):
    """A ``distributed.Client`` for ``scheduler`` (a Client is used as it is), connected
    before any work starts: the address is checked, probed for a Dask handshake, then
    connected to; every failure on the way is one :class:`ClusterError`."""
    try:
        from distributed import Client
    except ImportError:  # pragma: no cover - depends on the optional extra
        raise InvalidArgumentError("dask_scheduler", scheduler,
                                   "usable only with Dask installed (pip install "
                                   "'optmech[cluster]')") from None
    if isinstance(scheduler, Client):
        return scheduler
    address = scheduler_address(scheduler)
    _probe(address)
    try:
        client = Client(address, timeout=CONNECT_TIMEOUT)
    except Exception as error:  # noqa: BLE001 - whatever Dask raises, one line
        raise ClusterError(f"cannot connect to the Dask scheduler at {address} "
                           f"({type(error).__name__}: {error})") from None
    return client


# What a cluster that goes away raises: lost connections (OSError), timeouts, and futures
# cancelled by the scheduler (concurrent.futures' and asyncio's CancelledError).
_CLUSTER_FAILURES = (OSError, TimeoutError, concurrent.futures.CancelledError,
                     asyncio.CancelledError)


def _run_dask(client, fn, cells, todo, finish, policy) -> None:
    from distributed import KilledWorker, wait

    futures = {client.submit(_call, fn, cells[i], policy, pure=False): i for i in todo}
    pending = set(futures)
    watch = _ClusterWatch(client)
    try:
        while pending:
            try:
                done, pending = wait(list(pending), timeout=1.0,
                                     return_when="FIRST_COMPLETED")
            except TimeoutError:             # none finished within the second
                done = set()
            for future in done:
                finish(futures[future], _result(future, watch, len(pending) + 1))
            if pending:
                watch.check(len(pending))
    except (KilledWorker, *_CLUSTER_FAILURES) as error:
        raise ClusterError(f"the Dask cluster failed during the sweep "
                           f"({type(error).__name__}: {error})") from None
    except BaseException:
        with contextlib.suppress(Exception):
            client.cancel(list(futures))
        raise


def _result(future, watch: "_ClusterWatch", pending: int):
    """The result of a finished Dask future, fetched under the watch: a result held by a
    worker that has just died must be recomputed, and waits for a worker like any cell."""
    while True:
        try:
            return future.result(timeout=1.0)
        except TimeoutError:
            watch.check(pending)


class _ClusterWatch:
    """Bounded waits on a Dask cluster: :class:`ClusterError` when the scheduler has been
    unreachable for :data:`CONNECT_TIMEOUT` seconds, or the cluster has had no worker for
    :data:`WORKER_WAIT` seconds, while cells are pending."""

    def __init__(self, client):
        self.client = client
        self.since = {"scheduler": None, "workers": None}

    def _lasting(self, what: str, failing: bool, limit: float) -> bool:
        now = time.monotonic()
        if not failing:
            self.since[what] = None
            return False
        self.since[what] = self.since[what] or now
        return now - self.since[what] >= limit

    def check(self, pending: int) -> None:
        if self._lasting("scheduler", self.client.status != "running", CONNECT_TIMEOUT):
            raise ClusterError(f"lost the connection to the Dask scheduler with {pending} "
                               "cells unfinished")
        # asked afresh each time (scheduler_info() may return a stale copy when the
        # scheduler does not answer); a scheduler that cannot be asked raises OSError
        workers = self.client.nthreads()
        if self._lasting("workers", not workers, WORKER_WAIT):
            raise ClusterError(f"the Dask cluster has had no worker for {WORKER_WAIT:g} s "
                               f"with {pending} cells unfinished")
