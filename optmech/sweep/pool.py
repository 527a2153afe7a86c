"""The local process pool of a sweep: ``workers > 1`` is capped at the cores this process
may use; worker processes ignore Ctrl-C, which the calling process turns into
``KeyboardInterrupt`` after stopping them, and die with the calling process however it ends
(on Linux the kernel kills them when it exits, even by SIGKILL; elsewhere each worker checks
its parent every second)."""

from __future__ import annotations

import ctypes
import os
import signal
import threading
import time
from concurrent.futures import ProcessPoolExecutor, as_completed

from optmech.sweep.cells import _call

__all__: list[str] = []

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
