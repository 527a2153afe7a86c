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


def test_work_estimates_beyond_the_budget_are_refused_naming_the_option():
    from optmech.resources import (
        DEFAULT_WORK_SECONDS,
        current_work_budget,
        parse_duration,
        require_work,
        work_budget,
    )

    assert current_work_budget() == DEFAULT_WORK_SECONDS == 3600
    require_work(3600, "--starts", 10)
    with pytest.raises(ResourceLimitError, match=r"--starts .*1 h of CPU time.*2 h"):
        require_work(7200, "--starts", 10)
    with work_budget(parse_duration("90s")):
        require_work(90, "--grid", 5)
        with pytest.raises(ResourceLimitError, match="--max-work"):
            require_work(91, "--grid", 5)
    assert current_work_budget() == 3600


@pytest.mark.parametrize("text, seconds", [("3600", 3600), ("90s", 90), ("30min", 1800),
                                           ("2h", 7200), ("1d", 86400), ("1.5e3", 1500)])
def test_durations_are_read_with_their_units(text, seconds):
    from optmech.resources import parse_duration

    assert parse_duration(text) == seconds


@pytest.mark.parametrize("text", ["", "x", "-5", "5 years", "1e-9", "1e12"])
def test_bad_durations_are_refused(text):
    from optmech.resources import parse_duration
    from optmech.validation import InvalidArgumentError

    with pytest.raises(InvalidArgumentError, match="--max-work"):
        parse_duration(text)


def test_estimates_add_and_are_checked_against_both_budgets():
    from optmech.resources import Estimate, memory_budget, require, work_budget

    total = Estimate(2.0, 100, "--size", 5) + Estimate(3.0, 50, "--n", 7)
    assert total == Estimate(5.0, 100, "--n", 7)
    with work_budget(10.0), memory_budget(200):
        assert require(total) is total
        with pytest.raises(ResourceLimitError, match="--k .*CPU time"):   # the costlier part
            require(total + Estimate(6.0, 0, "--k", 1))
        with pytest.raises(ResourceLimitError, match="--size .*memory"):
            require(Estimate(1.0, 201, "--size", 5))


def test_an_estimate_beyond_the_double_range_is_refused_not_an_overflow():
    from optmech.resources import format_bytes, format_seconds, require_work

    assert format_bytes(10**400) == "more than 1e300 PiB"
    assert format_seconds(10**400) == "more than 1e300 h"
    with pytest.raises(ResourceLimitError, match="more than 1e300"):
        require_memory(10**400, "--k", 10**400)
    with pytest.raises(ResourceLimitError):
        require_work(10**400, "--k", 10**400)
