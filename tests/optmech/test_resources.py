"""The memory budget: estimates refused up front, the default budget read at most once a
second, and an explicit budget for a block of code."""

import pytest

from optmech import resources
from optmech.resources import current_budget, memory_budget, parse_size, require_memory
from optmech.validation import ResourceLimitError


def test_default_budget_is_half_the_available_memory_reread_after_a_second(monkeypatch):
    reads = []

    def available():
        reads.append(1)
        return 8 * 2**30 + len(reads)

    clock = [100.0]
    monkeypatch.setattr(resources, "available_memory", available)
    monkeypatch.setattr(resources.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(resources, "_DEFAULT_READ", [-float("inf"), 0])
    assert current_budget() == (8 * 2**30 + 1) // 2
    clock[0] += 0.5
    assert current_budget() == (8 * 2**30 + 1) // 2 and len(reads) == 1
    clock[0] += 0.6
    assert current_budget() == (8 * 2**30 + 2) // 2 and len(reads) == 2


def test_an_explicit_budget_refuses_what_exceeds_it():
    with memory_budget(parse_size("1MiB")):
        assert current_budget() == 2**20
        require_memory(2**20, "--size", 1)
        with pytest.raises(ResourceLimitError, match="--size"):
            require_memory(2**20 + 1, "--size", 2)
