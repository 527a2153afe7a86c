"""The benchmarks' timing statistics on a fake clock: each call advances the clock by a
scripted amount, so the medians, extremes, batches, budgets and standard errors below are
computed by hand from the script (no real time is measured)."""

import math
import statistics

import pytest

from benchmarks._timing import (
    Clock,
    Draws,
    Ratio,
    Runs,
    Timing,
    format_number,
    measure,
    measure_draws,
    measure_interleaved,
    ratio,
)


class FakeClock:
    """Wall and CPU seconds that move only when a scripted call says so."""

    def __init__(self):
        self.wall = self.cpu = 0.0
        self.clock = Clock(lambda: self.wall, lambda: self.cpu)


class ScriptedCall:
    """A call that advances ``fake`` by the next scripted wall time (the last one repeats);
    CPU time advances by ``cpu_share`` of it (a busy machine gives the process part of the
    wall time).  Returns how many times it was called."""

    def __init__(self, durations, fake=None, cpu_share=0.5, log=None, name="call"):
        self.durations = list(durations)
        self.fake = fake or FakeClock()
        self.clock = self.fake.clock
        self.cpu_share = cpu_share
        self.calls = 0
        self.log, self.name = log, name

    def __call__(self):
        step = self.durations[min(self.calls, len(self.durations) - 1)]
        self.calls += 1
        self.fake.wall += step
        self.fake.cpu += self.cpu_share * step
        if self.log is not None:
            self.log.append(self.name)
        return self.calls


def test_median_min_max_of_the_runs_after_a_warm_up():
    call = ScriptedCall([0.5, 0.375, 0.125, 0.25, 0.875, 0.5])    # eighths: exact sums
    timing = measure(call, min_runs=5, budget=0, batch_seconds=0, warmup_below=1.0,
                     clock=call.clock)
    assert call.calls == 6                                   # warm-up + 5 runs
    assert timing.wall == Runs((0.375, 0.125, 0.25, 0.875, 0.5))     # mean 0.425
    assert (timing.wall.center, timing.wall.low, timing.wall.high) == (0.375, 0.125, 0.875)
    assert (timing.cpu.center, timing.cpu.low, timing.cpu.high) == (0.1875, 0.0625, 0.4375)
    assert timing.result == 6 and timing.complete and timing.calls_per_run == 1
    assert str(timing.wall) == "0.375 [0.125, 0.875]"


def test_a_long_first_call_is_counted_as_a_run():
    call = ScriptedCall([2.0, 1.0, 1.5])
    timing = measure(call, min_runs=3, budget=0, batch_seconds=0, warmup_below=1.0,
                     clock=call.clock)
    assert call.calls == 3
    assert timing.wall.seconds == (2.0, 1.0, 1.5) and timing.wall.center == 1.5


def test_short_calls_are_batched_and_reported_per_call():
    call = ScriptedCall([0.001])
    timing = measure(call, min_runs=5, budget=0, batch_seconds=0.01, warmup_below=1.0,
                     clock=call.clock)
    assert timing.calls_per_run == 10
    assert call.calls == 1 + 5 * 10
    assert timing.wall.center == pytest.approx(0.001)


def test_more_runs_while_the_budget_lasts_and_no_more_than_max_runs():
    call = ScriptedCall([0.125])
    timing = measure(call, min_runs=5, budget=1.0, batch_seconds=0, warmup_below=0.1,
                     clock=call.clock)
    # the first call (0.125 >= 0.1) is run 1; the budget runs out after 8 calls (1.0 s)
    assert timing.runs == 8
    capped = ScriptedCall([0.125])
    assert measure(capped, min_runs=5, max_runs=6, budget=10.0, batch_seconds=0,
                   warmup_below=0.1, clock=capped.clock).runs == 6


def test_a_run_that_does_not_complete_is_not_repeated():
    call = ScriptedCall([5.0])
    timing = measure(call, min_runs=5, budget=0, batch_seconds=0, warmup_below=1.0,
                     complete=lambda result: False, clock=call.clock)
    assert call.calls == 1 and timing.runs == 1 and not timing.complete


def test_interleaved_calls_take_turns():
    log, fake = [], FakeClock()
    a = ScriptedCall([0.2], fake, log=log, name="a")
    b = ScriptedCall([0.4], fake, log=log, name="b")
    timings = measure_interleaved({"a": a, "b": b}, min_runs=3, budget=0, batch_seconds=0,
                                  warmup_below=1.0, clock=fake.clock)
    assert log == ["a", "b"] * 4                             # warm-ups, then 3 rounds
    assert timings["a"].wall.seconds == pytest.approx((0.2,) * 3)
    assert timings["b"].wall.seconds == pytest.approx((0.4,) * 3)


def test_draws_report_the_mean_and_its_standard_error():
    call = ScriptedCall([0.5, 1.0, 2.0, 3.0, 4.0], cpu_share=1.0)
    timing = measure_draws(call, min_draws=4, budget=0, warmup_below=1.0, clock=call.clock)
    draws = timing.wall
    assert isinstance(draws, Draws) and draws.seconds == (1.0, 2.0, 3.0, 4.0)
    se = statistics.stdev([1, 2, 3, 4]) / 2
    assert draws.center == 2.5 and draws.standard_error == pytest.approx(se)
    assert draws.low == pytest.approx(2.5 - 2 * se) and draws.high == pytest.approx(2.5 + 2 * se)
    # a heavy tail: the lower end stops at the fastest draw
    skewed = Draws((1.0, 1.0, 1.0, 100.0))
    assert skewed.low == 1.0
    assert str(Draws((1.0, 3.0))) == "2 ± 1"
    with pytest.raises(ValueError):
        measure_draws(call, min_draws=1, clock=call.clock)


def test_ratio_of_centres_with_the_spread_of_the_extremes():
    r = ratio(Runs((2.0, 4.0, 6.0)), Runs((1.0, 2.0)))
    assert r.center == pytest.approx(4.0 / 1.5)
    assert (r.low, r.high) == (1.0, 6.0)
    assert str(Ratio(1842.4, 1500.0, 2634.9)) == "1842x [1500, 2635]"
    assert str(Ratio(28.43, 17.61, 33.33)) == "28.4x [17.6, 33.3]"


def test_number_format_and_the_record_round_trip():
    assert format_number(0.000216) == "0.000216" and format_number(12345.6) == "12346"
    timing = Timing(Runs((0.3, 0.1)), Runs((0.2, 0.05)), 7, False, result="x")
    back = Timing.from_record(timing.as_record(), result="x")
    assert back == timing and back.calls_per_run == 7 and not back.complete
    assert math.isclose(back.cpu.center, 0.125)
