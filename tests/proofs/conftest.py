"""Helpers shared by the proofs tests.

The ``check`` fixture runs each registered identity once per test run, whichever pytest-xdist
worker asks first: the outcomes are pickled to a folder that every worker of the run shares
(the parent of the session's temporary folder), each identity under its own lock.
``check.many(names)`` first takes the identities no other worker is running (a lock it gets
without waiting), then waits for the rest, so two workers that both need every identity
(the registry-wide test and ``regenerate``'s) split the work between them instead of doing it
twice (68 CPU s in all; pytest-xdist's ``xdist_group`` cannot keep them on one worker under
pytest 9, whose node ids no longer take the group suffix xdist 3.8 appends).
"""

import fcntl
import os
import pickle
from pathlib import Path

import pytest

from proofs.registry import check_one, identities


class SharedChecks:
    """``check(name)`` -> the identity's outcome, computed once per test run."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.by_name = {i.name: i for i in identities()}
        self.done = {}

    def __call__(self, name: str):
        return self._get(name, wait=True)

    def many(self, names) -> dict:
        names = list(names)
        for name in names:
            self._get(name, wait=False)
        return {name: self(name) for name in names}

    def _get(self, name: str, wait: bool):
        """The outcome, computed here if no worker has it; None when ``wait`` is False and
        another worker holds the identity's lock."""
        if name in self.done:
            return self.done[name]
        result = self.folder / f"{name}.pickle"
        with open(self.folder / f"{name}.lock", "a") as lock:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
            except BlockingIOError:
                return None
            if result.exists():
                outcome = pickle.loads(result.read_bytes())
            else:
                outcome = check_one(self.by_name[name])
                partial = result.with_suffix(f".{os.getpid()}.partial")
                partial.write_bytes(pickle.dumps(outcome))
                partial.replace(result)
        self.done[name] = outcome
        return outcome


@pytest.fixture(scope="session")
def check(tmp_path_factory):
    """``check(name)`` runs one registered identity once per test run and returns its
    outcome (later calls with the same name, on any worker, reuse it)."""
    base = tmp_path_factory.getbasetemp()
    # under xdist each worker's folder is inside the run's; without it, the run's own folder
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "identity-checks"
    folder.mkdir(exist_ok=True)
    return SharedChecks(folder)
