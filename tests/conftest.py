"""Suite-wide settings.

The garbage collector's generation-0 threshold is raised: the suite allocates many small
arrays and short-lived objects (hypothesis examples, pmfs), and with the default threshold
of 700 a tenth of the suite's time went to collections that free almost nothing.  Reference
counting still frees everything that is not in a cycle, at once.

The key that signs sweep-cache entries (``optmech.sweep``) lives in a temporary folder of the
test session (``OPTMECH_CACHE_KEY``, inherited by the commands the tests start), so the
suite never creates or reads the user's own key.

Expensive results are computed once per test run, whichever pytest-xdist worker asks first
(:mod:`tests.run_wide`): :func:`quick_run` (each area's quick reproduction; the areas that
take 10 CPU s or more are run by slow tests only) here, ``check`` (each identity's outcome)
in ``tests/proofs/conftest.py``.

One BLAS thread per test process: README's test command runs two workers on two cores, and
OpenBLAS's threads spin while they wait for one another (a bracket test took 29 s beside the
other worker, 2.3 s alone).

The ``slow`` marker: tests that repeat, at larger sizes or once per input in a process of
their own, what faster tests already cover: the CLI fuzzing's process-per-input fault
classes, Dask servers and clusters that fail, caches poisoned entry by entry, the quick
reproduction of the areas that take 10 CPU s or more (``tests/optmech/reproduce``), the full
reproduction of an area, and a few solves at the largest sizes.  The default run skips them
(``-m "not slow"`` in ``pyproject.toml``) to keep README's test command short (3.6 CPU
minutes, measured in ``benchmarks/results/test_suite.md``); ``.ci/run`` runs them in its
slow step (``pytest -m slow``),
beside the slow shell examples of the guides.
"""

import atexit
import gc
import importlib
import os
import shutil
import signal
import tempfile

import pytest

from tests.run_wide import RunWide

gc.set_threshold(50_000, 20, 20)

# One BLAS thread per test process (and per command the tests start), before numpy is imported.
for _variable in ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_variable, "1")

# Ctrl-C as Python handles it, whatever this run inherited: a suite started in the background
# by a non-interactive shell (`cmd &`) inherits SIGINT ignored, and an ignored signal stays
# ignored in every command the tests start, so the Ctrl-C tests would see no interrupt.  A
# handler (unlike SIG_IGN) is reset to the default in a started command.
signal.signal(signal.SIGINT, signal.default_int_handler)

_KEY_FOLDER = tempfile.mkdtemp(prefix="optmech-tests-")
atexit.register(shutil.rmtree, _KEY_FOLDER, ignore_errors=True)
os.environ.setdefault("OPTMECH_CACHE_KEY", os.path.join(_KEY_FOLDER, "cache-key"))


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session):
    """Collect the garbage once and freeze what is left (``gc.freeze``), before a pytest-xdist
    worker reports that it has finished.

    After that report the controller tells the worker to end, and execnet sends a worker
    that is still busy 5 s later a SIGINT (``gateway_base._terminate_execution``): its
    ``KeyboardInterrupt`` traceback appeared on stderr after the run's summary.  What kept
    the workers busy was pytest's own end of session, two full collections of a worker's
    heap (``unraisableexception``): that end took 2.8 and 3.7 s in the two workers of a
    whole run at a load of 6.5 (2.5 s, all of it in ``gc.collect``, after a third of the
    suite), more than 5 s with more jobs beside it.  Here the one collection runs while the
    controller still waits for the worker, with pytest's hook for exceptions raised by
    finalisers still in place (so they are reported as before); frozen, the objects left
    are skipped by the collections that follow (that end then took 0.03 s)."""
    gc.collect()
    gc.freeze()


def pytest_configure(config):
    # -n N distributes by "load" (set here, not in pyproject.toml, so that -p no:xdist works):
    # "worksteal" hands queued tests to a worker that runs dry, so the run does not end with
    # one worker idle while the other works through its queue
    if getattr(config.option, "dist", None) == "load":
        config.option.dist = "worksteal"


@pytest.fixture(scope="session")
def shared_results(tmp_path_factory) -> RunWide:
    """``shared_results.get(key, compute)``: ``compute()``'s value, computed once per test
    run whichever worker asks first (:class:`tests.run_wide.RunWide`)."""
    return RunWide.of_session(tmp_path_factory, "shared-results")


@pytest.fixture(scope="session")
def quick_run(shared_results):
    """``quick_run(area)`` -> ``(results, out_dir)`` of
    ``optmech.reproduce.<area>.run(quick=True)``, computed once per test run whichever
    worker asks first (its figures in a folder every worker reads)."""

    def run(area):
        out = shared_results.folder / f"reproduce-{area}"

        def compute():
            out.mkdir(exist_ok=True)
            module = importlib.import_module(f"optmech.reproduce.{area}")
            return module.run(quick=True, out=out)

        return shared_results.get(f"reproduce-{area}", compute), out

    return run


@pytest.fixture
def reproduce_from_quick_runs(monkeypatch, quick_run):
    """``optmech reproduce`` with each area's rows taken from :func:`quick_run` (computed once
    per test run) instead of computed again; the report and JSON are still the command's."""
    import optmech.reproduce._runner as runner

    def run_areas(names, quick, out):
        out.mkdir(parents=True, exist_ok=True)
        return [runner.AreaRun(name, quick_run(name)[0], 0.0) for name in names]

    monkeypatch.setattr(runner, "run_areas", run_areas)
