"""`optmech.reproduce.lattice.run(quick=True)`: every row matches, is new, or is explained."""

from optmech.reproduce.lattice import run


def test_quick_reproduction(tmp_path):
    results = run(quick=True, out=tmp_path)
    assert results and all(r.ok for r in results)
    assert {r.status for r in results} <= {"match", "new", "differs"}
    for figure in {r.figure for r in results if r.figure}:
        assert (tmp_path / figure).stat().st_size > 1000
    assert any(r.status == "match" and "below the threshold" in r.name for r in results)
