"""The bracket's schedule is counted, not timed: the same call gives the same steps and the
same bracket whatever the machine's load, and the exact finish (``method="pdhg"``) the same
optimum, inside its documented range, where it is certified.

Load is simulated, never waited for: the bracket's module is given a CPU clock that runs
erratically (a process slowed by a busy machine, or by another thread of its own); before
the fix that clock set the schedule (bounds, row generation and polishing were due by
measured CPU time) and n = 3, k = 2, eps = 8.88e-6 took 651 to 18,963 steps from one run
to the next, once no bracket narrower than 1.3e-3 in 303,236 steps.  References: the
optimum of ``solve_lattice`` by its default path (the chain dual or HiGHS's simplex from
PF, certified on its own)."""

from __future__ import annotations

import itertools
import random
import time
from types import SimpleNamespace

import numpy as np
import pytest

import lp_models.lattice.bracket as bracketing
from lp_models.lattice import reduced_lattice_lp
from lp_models.lattice.classes import lattice_classes
from optmech.lattice.optimum import GAP_TOLERANCE, solve_lattice
from optmech.validation import InvalidArgumentError


def _erratic_clock(seed: int):
    """A CPU clock whose every reading has advanced by 0 to 20 ms (a loaded machine)."""
    rng = random.Random(seed)
    ticks = itertools.accumulate(rng.uniform(0.0, 0.02) for _ in itertools.count())
    return lambda: next(ticks)


def _run(n, k, eps, tol=1e-4):
    run = bracketing.bracket_lattice_lp(lattice_classes(n, k), eps, tol=tol)
    return run.steps, run.lower, run.upper, run.rows_generated, run.converged


@pytest.mark.parametrize("n, k, eps", [(3, 2, 8.88e-6), (4, 3, 0.1), (5, 5, 0.5)])
def test_the_same_bracket_under_any_load(monkeypatch, n, k, eps):
    quiet = _run(n, k, eps)
    for seed in (1, 2):
        clock = _erratic_clock(seed)
        monkeypatch.setattr(bracketing, "time", SimpleNamespace(
            process_time=clock, perf_counter=time.perf_counter))
        assert _run(n, k, eps) == quiet
    assert quiet[-1]                                        # converged


def test_single_precision_goes_on_from_its_best_bound(monkeypatch):
    """Single precision's iterate drifts at n = 4, k = 3, eps = 1e-4 (multipliers of 3.9e6
    by step 11,000, 0.7 at the best bound); double precision from the drifted iterate never
    narrowed the bracket again (1.2e-4 after 168,000 steps), from the best bound's iterate
    it converges.  (Single precision is forced here: below eps = 1e-2 it is not used.)"""
    monkeypatch.setattr(bracketing, "SINGLE_PRECISION_EPSILON", 0.0)
    switches = []
    original = bracketing._Bracketing.to_double

    def to_double(run):
        switches.append(run.best_iterate is not None)
        original(run)

    monkeypatch.setattr(bracketing._Bracketing, "to_double", to_double)
    run = bracketing.bracket_lattice_lp(lattice_classes(4, 3), 1e-4, tol=1e-4)
    assert switches == [True] and run.converged
    optimum = solve_lattice(4, 3, 1e-4)
    scale = reduced_lattice_lp(4, 3, 1e-4).objective_scale
    assert run.lower * scale <= optimum.total_error * (1 + GAP_TOLERANCE)
    assert run.upper * scale >= optimum.lower_bound * (1 - GAP_TOLERANCE)


@pytest.mark.parametrize("n, k", [(3, 2), (4, 3), (5, 4)])
def test_small_epsilon_brackets_in_double_precision(monkeypatch, n, k):
    """Below eps = 1e-2 the bracket iterates in double: n = 3, k = 2, eps = 3.2e-7 in single
    precision stopped at a fixed point with the bracket at width 2.3e-3, for good."""
    dtypes = []
    original = bracketing._Bracketing.__init__

    def init(run, *args):
        original(run, *args)
        dtypes.append(run.dtype)

    monkeypatch.setattr(bracketing._Bracketing, "__init__", init)
    for eps in (3.16e-7, 1e-4, 0.0099):
        assert _run(n, k, eps)[-1]
    assert _run(n, k, 0.01)[-1]
    assert dtypes == [np.float64] * 3 + [np.float32]


@pytest.mark.parametrize("n, k", [(3, 2), (4, 3)])
def test_the_exact_finish_certifies_its_range(n, k):
    """``method="pdhg"`` on a log grid of its range, [1e-7, min(10, 20 / k)], against the
    default path's optimum (the first point is the one that ran to its time limit)."""
    high = min(10.0, 20.0 / k)
    for eps in [8.88e-6, *np.geomspace(1e-7, high, 9)]:
        optimum = solve_lattice(n, k, float(eps), method="pdhg")
        reference = solve_lattice(n, k, float(eps))
        assert optimum.gap <= GAP_TOLERANCE and optimum.method.startswith("pdhg")
        assert abs(optimum.total_error - reference.total_error) <= \
            2.5 * GAP_TOLERANCE * reference.total_error, eps


def test_a_time_limit_that_is_not_reached_changes_nothing():
    once = solve_lattice(3, 2, 8.88e-6, method="pdhg")
    assert solve_lattice(3, 2, 8.88e-6, method="pdhg", time_limit=1e6) == once


@pytest.mark.parametrize("n, k, eps", [(4, 3, 10.0), (5, 4, 8.0), (4, 5, 4.5)])
def test_the_exact_finish_is_refused_beyond_eps_k_20(n, k, eps):
    """These failed with exit 1 ('cannot repair the solver's point', 'certified gap ...')
    although their eps was inside [1e-7, 10]."""
    with pytest.raises(InvalidArgumentError, match=r"min\(10, 20 / k\)"):
        solve_lattice(n, k, eps, method="pdhg")
