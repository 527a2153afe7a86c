"""Results computed once per test run, whichever pytest-xdist worker asks first.

A result is pickled to a folder that every worker of the run shares (the parent of the
session's temporary folder under xdist, the session's own folder without it), under a lock of
its own: the first worker to ask computes it while the others wait, then read the pickle.
pytest-xdist's ``xdist_group`` cannot keep such tests on one worker under pytest 9, whose node
ids no longer take the group suffix xdist 3.8 appends, so without this every worker that asks
computes the result again.
"""

from __future__ import annotations

import fcntl
import os
import pickle
from collections.abc import Callable
from pathlib import Path
from typing import Any

#: What :meth:`RunWide.get` returns when ``wait`` is False and another worker holds the lock.
BUSY = object()


class RunWide:
    """``get(key, compute)`` -> ``compute()``'s value, computed once per test run."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.done: dict[str, Any] = {}

    @classmethod
    def of_session(cls, tmp_path_factory, name: str) -> RunWide:
        """The run's shared folder ``name``, made by whichever worker comes first."""
        base = tmp_path_factory.getbasetemp()
        # under xdist each worker's folder is inside the run's; without it, the run's own
        folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / name
        folder.mkdir(exist_ok=True)
        return cls(folder)

    def get(self, key: str, compute: Callable[[], Any], wait: bool = True):
        """The value of ``key``, from this process, from another worker's pickle, or computed
        here; :data:`BUSY` when ``wait`` is False and another worker is computing it."""
        if key in self.done:
            return self.done[key]
        result = self.folder / f"{key}.pickle"
        with open(self.folder / f"{key}.lock", "a") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            except BlockingIOError:
                return BUSY
            if result.exists():
                value = pickle.loads(result.read_bytes())
            else:
                value = compute()
                partial = result.with_suffix(f".{os.getpid()}.partial")
                partial.write_bytes(pickle.dumps(value))
                partial.replace(result)
        self.done[key] = value
        return value
