"""Suite-wide settings.

The garbage collector's generation-0 threshold is raised: the suite allocates many small
arrays and short-lived objects (hypothesis examples, pmfs), and with the default threshold
of 700 a tenth of the suite's time went to collections that free almost nothing.  Reference
counting still frees everything that is not in a cycle, at once.

The key that signs sweep-cache entries (``optmech.sweep``) lives in a temporary folder of the
test session (``OPTMECH_CACHE_KEY``, inherited by the commands the tests start), so the
suite never creates or reads the user's own key.

Expensive results are computed once per test run and shared: :func:`quick_run` (each
area's quick reproduction) here, ``check`` (each identity's outcome) in
``tests/proofs/conftest.py``.  With pytest-xdist each worker has its own session, so the
tests that use either fixture are kept on one worker (``xdist_group``; ``-n`` distributes
by ``loadgroup`` rather than ``load``, set here rather than in ``pyproject.toml`` so that
``-p no:xdist`` still works): otherwise both workers would compute them.

The ``slow`` marker: tests that repeat, at larger sizes, what faster tests already cover
(the CLI fuzzing's process-per-input fault classes, Dask cluster failures, the full
reproduction of an area); the default run skips them (``-m "not slow"`` in
``pyproject.toml``) and ``.ci/run`` runs them in its slow step (``pytest -m slow``).
"""

import atexit
import gc
import importlib
import os
import shutil
import signal
import tempfile

import pytest

gc.set_threshold(50_000, 20, 20)

# Ctrl-C as Python handles it, whatever this run inherited: a suite started in the background
# by a non-interactive shell (`cmd &`) inherits SIGINT ignored, and an ignored signal stays
# ignored in every command the tests start, so the Ctrl-C tests would see no interrupt.  A
# handler (unlike SIG_IGN) is reset to the default in a started command.
signal.signal(signal.SIGINT, signal.default_int_handler)

_KEY_FOLDER = tempfile.mkdtemp(prefix="optmech-tests-")
atexit.register(shutil.rmtree, _KEY_FOLDER, ignore_errors=True)
os.environ.setdefault("OPTMECH_CACHE_KEY", os.path.join(_KEY_FOLDER, "cache-key"))


# fixture name -> the xdist group of every test that uses it (computed once, on one worker)
SHARED_FIXTURES = {"quick_run": "reproduce-quick-runs", "check": "identity-checks"}


def pytest_configure(config):
    if getattr(config.option, "dist", None) == "load":     # what -n N sets
        config.option.dist = "loadgroup"


def pytest_collection_modifyitems(items):
    for item in items:
        for fixture, group in SHARED_FIXTURES.items():
            if fixture in getattr(item, "fixturenames", ()):
                item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture(scope="session")
def quick_run(tmp_path_factory):
    """``quick_run(area)`` -> ``(results, out_dir)`` of
    ``optmech.reproduce.<area>.run(quick=True)``, computed once per session."""
    cache = {}

    def run(area):
        if area not in cache:
            out = tmp_path_factory.mktemp(f"reproduce-{area}")
            module = importlib.import_module(f"optmech.reproduce.{area}")
            cache[area] = (module.run(quick=True, out=out), out)
        return cache[area]

    return run
