"""Sweeps on a Dask cluster.

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
import ipaddress
import logging
import re
import socket
import struct
import threading
import time

from optmech.sweep.cells import _call
from optmech.validation import InvalidArgumentError

__all__ = ["CONNECT_TIMEOUT", "WORKER_WAIT", "ClusterError", "scheduler_address"]

CONNECT_TIMEOUT = 5.0        # seconds to reach a Dask scheduler and read its handshake
WORKER_WAIT = 30.0           # seconds a Dask cluster may have no worker while cells wait
_HANDSHAKE_BYTES = 2**16      # a Dask handshake is about 60 bytes
_HOST_LABEL = re.compile(r"^(?!-)[A-Za-z0-9_-]{1,63}(?<!-)$")


class ClusterError(RuntimeError):
    """The Dask cluster could not be reached, or failed during the sweep."""


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
    with contextlib.suppress(AttributeError):   # the event loop of the client's thread
        client.loop.asyncio_loop.set_exception_handler(_drop_abandoned_waits)
    return client


def _drop_abandoned_waits(loop, context: dict) -> None:
    """The exception handler of our own client's event loop.  A fetch that timed out
    (``future.result(timeout=...)`` in :func:`_result`) leaves a Dask task behind; when the
    cluster fails and the client closes, that task ends in Dask's ``AllExit`` and asyncio
    reports "Task exception was never retrieved" with a traceback when it is garbage
    collected, possibly after the sweep has said what went wrong in its one line.  Those
    reports are dropped; anything else goes to asyncio's default handler."""
    error = context.get("exception")
    if context.get("message") == "Task exception was never retrieved" and (
            isinstance(error, _CLUSTER_FAILURES)
            or type(error).__module__.startswith("distributed")):
        return
    loop.default_exception_handler(context)


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
