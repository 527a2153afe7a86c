"""One quick run per area of `optmech reproduce`, shared by the tests of this folder."""

import importlib

import pytest


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
