"""`optmech.reproduce.beyond.run(quick=True)`: every row is new and consistent with the
answers (PF minimax-optimal only for n = 2, never optimal on the Δ-lattice, EM/PF < 2)."""

import pytest

from optmech.reproduce._runner import areas


def test_quick_reproduction(quick_run):
    assert "beyond" in areas()
    results, _ = quick_run("beyond")
    assert results and all(r.ok and r.status == "new" for r in results)
    assert len({r.name for r in results}) == len(results)
    by_name = {r.name.split(":")[0]: r.ours for r in results}
    assert "at 24 of 24 points" in by_name["n >= 3"]
    assert by_name["Δ-lattice n = k = 3, eps = 0.7"] == pytest.approx(0.7, rel=1e-9)
    assert results[-1].ours == "verified"
