"""Helpers shared by the proofs tests."""

import pytest

from proofs.registry import check_one, identities


@pytest.fixture(scope="session")
def check():
    """``check(name)`` runs one registered identity and returns its outcome."""
    by_name = {i.name: i for i in identities()}

    def run(name):
        return check_one(by_name[name])

    return run
