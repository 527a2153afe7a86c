"""`optmech.reproduce.secretary.run(quick=True)`: every row matches, is new, or differs with
an explanation, and the figures and ratio table it names are written."""

import pytest


@pytest.mark.slow      # SLOW_AREAS (tests/optmech/reproduce/__init__.py)
def test_quick_reproduction(quick_run):
    results, tmp_path = quick_run("secretary")
    assert results and all(r.ok for r in results)
    assert {r.status for r in results} <= {"match", "new", "differs"}
    differs = [r for r in results if r.status == "differs"]
    assert len(differs) == 1 and "erratum" in differs[0].explanation
    theorem = next(r for r in results if r.key == "theorem-3-1-success")
    assert theorem.status == "match"
    for r in results:
        if r.figure:
            assert (tmp_path / r.figure).stat().st_size > 0
    table = (tmp_path / "secretary_ratio_table.md").read_text()
    assert table.count("\n") == 2 + 2 * 3 * 3 * 2       # header + n in {10, 30} x grid
