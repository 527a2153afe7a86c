"""The local process pool of a sweep: ``workers > 1`` is capped at the cores this process
may use; worker processes ignore Ctrl-C, which the calling process turns into
``KeyboardInterrupt`` after stopping them, and die with the calling process however it ends
(on Linux the kernel kills them when it exits, even by SIGKILL; elsewhere each worker checks
its parent every second).

Ctrl-C or SIGTERM while the workers are being forked is held back until they are (the
handlers only record it meanwhile, in the calling process and in the new workers until
they set their own).  Otherwise a Ctrl-C landing inside the fork handlers (``logging``'s,
``threading``'s) was printed as "Exception ignored" in the caller and in each new worker
and then lost: the sweep ran to the end and exited 0."""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import threading
import time
from concurrent.futures import ProcessPoolExecutor

from optmech.sweep.executor import run_on_executor

__all__: list[str] = []

_PR_SET_PDEATHSIG = 1
_HELD = (signal.SIGINT, signal.SIGTERM)


def _worker_init(parent: int) -> None:
    """Pool worker initializer: Ctrl-C is the calling process's to handle, SIGTERM (which
    the calling process sends its workers when it stops them) ends the worker at once
    rather than raising the ``optmech`` command's :class:`~optmech.cli.Terminated` inherited
    by the fork (which a worker would report as a traceback), and the worker ends when the
    calling process does, however it ends (SIGTERM, SIGKILL, a crash)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
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


@contextlib.contextmanager
def _signals_held():
    """Ctrl-C and SIGTERM inside the block are recorded, not raised, and raised as the
    previous handler would (``KeyboardInterrupt`` by default for Ctrl-C, the ``optmech``
    command's ``Terminated`` for SIGTERM, the default action if that was the handler) when
    the block ends.  A signal is handled in the
    main thread whichever thread receives it, so the handlers are replaced rather than the
    signals blocked; outside the main thread (where handlers cannot be set) nothing is
    held."""
    caught = []
    previous = {}
    try:
        for signum in _HELD:
            previous[signum] = signal.signal(
                signum, lambda number, frame: caught.append((number, frame)))
    except ValueError:
        yield
        return
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
        if caught:
            signum, frame = caught[0]
            if callable(previous[signum]):
                previous[signum](signum, frame)
            elif previous[signum] == signal.SIG_DFL:     # e.g. SIGTERM outside the command
                signal.raise_signal(signum)


def _run_pool(fn, cells, todo, finish, workers: int, policy) -> None:
    """The cells on a new local pool of ``workers`` processes
    (:func:`~optmech.sweep.executor.run_on_executor`, the workers forked with the signals
    held), stopped at once if the sweep stops."""
    pool = ProcessPoolExecutor(max_workers=workers, initializer=_worker_init,
                               initargs=(os.getpid(),))

    def stop(_futures) -> None:
        # Stop at once (Ctrl-C, a failed cell): end the workers still computing, or the
        # interpreter would wait for them at exit.  The pool cancels what has not started
        # (cancelling the futures one by one here raced with the pool's own handling of the
        # workers it saw end: "InvalidStateError: CANCELLED" from its thread, in 5 of 10
        # runs stopped by SIGTERM)
        for process in list(getattr(pool, "_processes", {}).values()):
            process.terminate()
        pool.shutdown(wait=False, cancel_futures=True)

    # the workers are forked at the first submit
    run_on_executor(pool, fn, cells, todo, finish, policy, submitting=_signals_held,
                    stop=stop)
    pool.shutdown()
