"""`optmech.reproduce.heterogeneous.run(quick=True)`: every row matches, is new, or differs
with an explanation, and the figures it names exist."""

from optmech.reproduce.heterogeneous import run


def test_quick_reproduction(tmp_path):
    results = run(quick=True, out=tmp_path)
    assert len(results) > 20
    assert all(r.ok for r in results), [r.name for r in results if not r.ok]
    assert {r.status for r in results} <= {"match", "new", "differs"}
    for r in results:
        if r.figure:
            assert (tmp_path / r.figure).stat().st_size > 10_000
    names = {r.name: r for r in results}
    assert names["RNMH (exponential): realised privacy loss of that pair"].status == "match"
    claimed = [r for r in results if "claimed (k-1)eps-DP" in r.name]
    assert claimed and claimed[0].status == "differs" and claimed[0].ours > 1.9
