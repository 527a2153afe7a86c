"""`optmech.reproduce.lattice.run(quick=True)`: every row matches, is new, or is explained."""

import pytest


@pytest.mark.slow      # SLOW_AREAS (tests/optmech/reproduce/__init__.py)
def test_quick_reproduction(quick_run):
    results, out = quick_run("lattice")
    assert results and all(r.ok for r in results)
    assert {r.status for r in results} <= {"match", "new", "differs"}
    for figure in {r.figure for r in results if r.figure}:
        assert (out / figure).stat().st_size > 1000
    assert any(r.status == "match" and "below the threshold" in r.name for r in results)
    keyed = {r.key: r for r in results if r.key}
    for key in ("figure-2b-grows-with-k", "figure-2a-weak-dependence-on-n",
                "figure-2c-em-towards-two"):
        assert keyed[key].status == "match", key
