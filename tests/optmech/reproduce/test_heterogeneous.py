"""`optmech.reproduce.heterogeneous.run(quick=True)`: every row matches, is new, or differs
with an explanation, and the figures it names exist; the new rows carry their verdicts."""

import pytest

from optmech.reproduce.heterogeneous import _simulate_appendix_b
from proofs.heterogeneous import appendix_b_probabilities, exponential_low


@pytest.mark.slow      # SLOW_AREAS (tests/optmech/reproduce/__init__.py)
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


def _simulate_random_stopping(q, d, eps, gamma, runs, rng):
    """RS_gamma by running the algorithm (independent of the library's sampler): K ~
    Geometric(gamma) uniform draws, each noised with Laplace(3 d/eps), the best one wins."""
    import numpy as np

    k = rng.geometric(gamma, runs)
    run = np.repeat(np.arange(runs), k)
    who = rng.integers(0, q.size, run.size)
    value = q[who] + rng.laplace(0.0, 3.0 * d[who] / eps)
    order = np.lexsort((value, run))
    last = np.r_[np.flatnonzero(np.diff(run[order])), run.size - 1]
    return who[order][last]


def test_figure_18_verdicts_by_simulation():
    """Figure 18 at eps = 2, two 'holds in part' verdicts by simulation (99.9% intervals):
    negative correlation, 20% high scores: RS_gamma beats random selection (MSE 3.2);
    no correlation, 99% high scores: mGEM beats RNM."""
    import math

    import numpy as np
    from scipy import stats

    from optmech.heterogeneous import gem_scores
    from optmech.heterogeneous.gem import ModifiedGEM
    from optmech.reproduce.heterogeneous import _proportion_vectors

    rng = np.random.default_rng(18)
    z = stats.norm.ppf(0.9995)
    q, d = _proportion_vectors(0.2, 2)
    errors = (q.max() - q[_simulate_random_stopping(q, d, 2.0, 0.05, 60_000, rng)]) ** 2
    assert errors.mean() + z * errors.std(ddof=1) / math.sqrt(errors.size) < 3.2

    q, d = _proportion_vectors(0.99, 3)
    runs = 200_000
    rnm = q.max() - q[np.argmax(q + rng.exponential(2 * d.max() / 2.0, (runs, q.size)),
                                axis=1)]
    shift = ModifiedGEM(2.0).shift(q.size)
    transformed = gem_scores(q, d, shift)
    mgem = q.max() - q[np.argmax(transformed + rng.exponential(2 / 2.0, (runs, q.size)),
                                 axis=1)]
    rnm_sq, mgem_sq = rnm ** 2, mgem ** 2
    gap = rnm_sq.mean() - mgem_sq.mean()
    spread = z * math.sqrt(rnm_sq.var() / runs + mgem_sq.var() / runs)
    assert gap - spread > 0
