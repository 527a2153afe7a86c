"""Helpers shared by the proofs tests."""

import pytest

from proofs.registry import check_one, identities


@pytest.fixture(scope="session")
def check():
    """``check(name)`` runs one registered identity once per session and returns its
    outcome (later calls with the same name reuse it)."""
    by_name = {i.name: i for i in identities()}
    done = {}

    def run(name):
        if name not in done:
            done[name] = check_one(by_name[name])
        return done[name]

    return run
