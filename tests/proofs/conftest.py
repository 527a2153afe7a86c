"""Helpers shared by the proofs tests.

The ``check`` fixture runs each registered identity once per test run, whichever pytest-xdist
worker asks first (:class:`tests.run_wide.RunWide`).  ``check.many(names)`` first takes the
identities no other worker is running (a lock it gets without waiting), then waits for the
rest, so two workers that both need every identity (the registry-wide test and
``regenerate``'s) split the work between them instead of doing it twice (68 CPU s in all).
"""

import pytest

from proofs.registry import check_one, identities
from tests.run_wide import RunWide


class SharedChecks:
    """``check(name)`` -> the identity's outcome, computed once per test run."""

    def __init__(self, shared: RunWide):
        self.shared = shared
        self.by_name = {i.name: i for i in identities()}

    def __call__(self, name: str, wait: bool = True):
        return self.shared.get(f"identity-{name}", lambda: check_one(self.by_name[name]), wait)

    def many(self, names) -> dict:
        names = list(names)
        for name in names:
            self(name, wait=False)
        return {name: self(name) for name in names}


@pytest.fixture(scope="session")
def check(shared_results):
    """``check(name)`` runs one registered identity once per test run and returns its
    outcome (later calls with the same name, on any worker, reuse it)."""
    return SharedChecks(shared_results)
