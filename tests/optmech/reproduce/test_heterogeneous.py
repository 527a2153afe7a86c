"""`optmech.reproduce.heterogeneous.run(quick=True)`: every row matches, is new, or differs
with an explanation, and the figures it names exist; the new rows carry their verdicts."""

import pytest

from optmech.reproduce.heterogeneous import _simulate_appendix_b
from proofs.heterogeneous import appendix_b_probabilities, exponential_low


def test_quick_reproduction(quick_run):
    results, out = quick_run("heterogeneous")
    assert len(results) > 20
    assert all(r.ok for r in results), [r.name for r in results if not r.ok]
    assert {r.status for r in results} <= {"match", "new", "differs"}
    for r in results:
        if r.figure:
            assert (out / r.figure).stat().st_size > 10_000
    names = {r.name: r for r in results}
    assert names["RNMH (exponential): realised privacy loss of that pair"].status == "match"
    claimed = [r for r in results if "claimed (k-1)eps-DP" in r.name]
    assert claimed and claimed[0].status == "differs" and claimed[0].ours > 1.9
    keyed = {r.key: r for r in results if r.key}
    assert keyed["appendix-b-monte-carlo"].status == "differs"      # printed ratio refuted
    assert keyed["figure-3-hg-rs"].status == "match"
    assert keyed["figure-18-negative"].status == "differs"


def test_appendix_b_simulation_matches_the_exact_probabilities():
    """The simulator of Appendix B's example against the closed form (binomial 4.5-sigma
    bands at k = 3, gamma = 0.3, eps = 2), independently of the reproduce row."""
    import numpy as np

    rng = np.random.default_rng(11)
    runs = 60_000
    t1, t2 = appendix_b_probabilities(3, 0.3, exponential_low(2.0))
    for low_scores, p in ((False, float(t1)), (True, float(t2))):
        hits = _simulate_appendix_b(3, 0.3, 2.0, low_scores, runs, rng)
        sigma = (p * (1 - p) / runs) ** 0.5
        assert hits / runs == pytest.approx(p, abs=4.5 * sigma)
