"""Mode/median quality scores and the exact errors of PF, EM and RNM-Laplace on them.

References: hand-checked histograms, breadth-first search over add/remove moves, closed
forms for two candidates, exhaustive permutation enumeration in mpmath, Monte Carlo with
5 standard errors, and the permute-and-flip paper's printed numbers.
"""

import itertools
import math

import mpmath
import numpy as np
import pytest

from optmech.data.datasets import load_histogram
from optmech.data.tasks import (
    TASKS,
    budget_ratio,
    epsilon_for_error,
    error_curves,
    expected_errors,
    get_task,
    median_scores,
    median_scores_brute_force,
    mode_scores,
)
from optmech.validation import InvalidArgumentError

# --- scores on hand-checked histograms -------------------------------------------------

def test_mode_scores_are_the_counts():
    np.testing.assert_array_equal(mode_scores([3, 0, 7]), [3.0, 0.0, 7.0])


@pytest.mark.parametrize("counts, expected", [
    # N = 3, lower median (rank 2) in bin 1.  Bin 0: add one there -> [2,1,1], rank 2 is
    # in bin 0.  Bin 2: one move is not enough ([0,1,1], [1,0,1], [1,1,2] all miss), two are
    # ([1,1,3]).
    ([1, 1, 1], [-1, 0, -2]),
    # N = 5 in bin 1.  Bin 0 needs 5 individuals ([5,5,0]: rank 5 in bin 0; [4,5,0] fails);
    # bin 2 needs 6 ([0,5,6]: N = 11, rank 6 in bin 2; [0,5,5]: rank 5 is in bin 1).
    ([0, 5, 0], [-5, 0, -6]),
    # N = 4: the lower median (rank 2) is in bin 0; bin 1 needs one move ([2,3] or [1,2]).
    ([2, 2], [0, -1]),
    # All individuals in the last bin: bins 0 and 1 need 3 each (add 3 to the bin).
    ([0, 0, 3], [-3, -3, 0]),
    ([4], [0]),
])
def test_median_scores_hand_checked(counts, expected):
    np.testing.assert_array_equal(median_scores(counts), expected)
    np.testing.assert_array_equal(median_scores_brute_force(counts), expected)


def _small_histograms():
    """Every histogram with 1-4 bins and counts 0-3, and a few with 5 bins, counts 0-5."""
    for n in (1, 2, 3, 4):
        for counts in itertools.product(range(4), repeat=n):
            if sum(counts):
                yield counts
    rng = np.random.default_rng(3)
    for _ in range(8):
        yield tuple(int(c) for c in rng.integers(0, 6, size=5))


def test_median_scores_equal_breadth_first_search():
    for counts in _small_histograms():
        np.testing.assert_array_equal(median_scores(counts), median_scores_brute_force(counts),
                                      err_msg=str(counts))


def _neighbours(counts):
    for r in range(len(counts)):
        for step in (1, -1):
            nxt = list(counts)
            nxt[r] += step
            if nxt[r] >= 0 and sum(nxt) > 0:
                yield nxt


def test_sensitivity_one_and_monotonicity_by_enumeration():
    median_mixed = False
    for counts in _small_histograms():
        for nxt in _neighbours(counts):
            for name, task in TASKS.items():
                delta = task.scores(nxt) - task.scores(counts)
                assert np.abs(delta).max() <= task.sensitivity
                if name == "mode":
                    assert (delta >= 0).all() or (delta <= 0).all()
            delta = median_scores(nxt) - median_scores(counts)
            median_mixed |= bool((delta > 0).any() and (delta < 0).any())
    assert median_mixed and not TASKS["median"].monotonic and TASKS["mode"].monotonic


def test_median_scores_on_hepth_match_the_piecewise_definition():
    h = load_histogram("HEPTH", 1024)
    total, cum = int(h.sum()), np.cumsum(h)
    # Lower median: the individual of rank ceil(N/2).
    med = int(np.searchsorted(cum, (total + 1) // 2))
    expected = np.zeros(h.size)
    for r in range(h.size):
        if r < med:
            expected[r] = -(total - 2 * cum[r])
        elif r > med:
            expected[r] = -(2 * cum[r - 1] - total + 1)
    q = median_scores(h)
    np.testing.assert_array_equal(q, expected)
    assert np.flatnonzero(q == 0).tolist() == [med]


def test_bad_histograms_and_tasks():
    with pytest.raises(InvalidArgumentError, match="all bins are 0"):
        median_scores([0, 0])
    with pytest.raises(InvalidArgumentError, match="bin 1 is -1"):
        mode_scores([1, -1])
    with pytest.raises(InvalidArgumentError, match="monotonic"):
        get_task("median", monotonic=True)
    with pytest.raises(InvalidArgumentError, match="task"):
        get_task("mean")
    assert get_task("mode", monotonic=True) is TASKS["mode"]


# --- exact expected errors ---------------------------------------------------------------

@pytest.mark.parametrize("monotonic", [False, True])
@pytest.mark.parametrize("eps, gap", [(0.3, 2.0), (1.0, 5.0), (0.05, 40.0)])
def test_two_candidates_closed_forms(eps, gap, monotonic):
    # Scores (gap, 0): with p = exp(-c gap), c = eps/(2Δ) (eps/Δ monotonic), PF picks the
    # loser with probability p/2 and EM with p/(1+p).  For RNM-Laplace with scale b the
    # difference of two Laplace(b) has tail Pr[D > g] = exp(-g/b)(2 + g/b)/4.
    c = eps if monotonic else eps / 2
    p = math.exp(-c * gap)
    b = 1 / c
    errors = expected_errors([gap, 0.0], eps, monotonic=monotonic)
    assert errors["pf"] == pytest.approx(gap * p / 2, rel=1e-12)
    assert errors["em"] == pytest.approx(gap * p / (1 + p), rel=1e-12)
    assert errors["rnm_laplace"] == pytest.approx(
        gap * math.exp(-gap / b) * (2 + gap / b) / 4, rel=1e-10)


def test_pf_error_equals_enumeration_over_permutations():
    # PF visits a uniformly random permutation and stops at the first heads; the top item
    # has coin probability 1, so one pass always ends.  Enumerate all 5! orders in mpmath.
    mpmath.mp.dps = 40
    counts = [4, 9, 9, 2, 7]
    eps = mpmath.mpf("0.35")
    q = [mpmath.mpf(c) for c in counts]
    coins = [mpmath.exp(eps * (x - max(q))) for x in q]  # monotonic mode: exponent eps
    error = mpmath.mpf(0)
    for order in itertools.permutations(range(5)):
        tails = mpmath.mpf(1)
        for r in order:
            error += tails * coins[r] * (max(q) - q[r])
            tails *= 1 - coins[r]
    error /= math.factorial(5)
    ours = expected_errors(mode_scores(counts), 0.35, monotonic=True, mechanisms=("pf",))["pf"]
    assert ours == pytest.approx(float(error), rel=1e-12, abs=1e-14)


def test_em_error_on_hepth_matches_mpmath():
    mpmath.mp.dps = 30
    q = median_scores(load_histogram("HEPTH", 1024))
    eps = 0.01
    weights = [mpmath.exp(mpmath.mpf(eps) / 2 * int(x)) for x in q]
    exact = mpmath.fsum(w * (-int(x)) for w, x in zip(weights, q)) / mpmath.fsum(weights)
    ours = expected_errors(q, eps, mechanisms=("em",))["em"]
    assert ours == pytest.approx(float(exact), rel=1e-12)


def test_rnm_laplace_monotonic_error_by_monte_carlo():
    counts = np.array([5, 3, 3, 0, 4])
    eps, draws = 0.7, 200_000
    rng = np.random.default_rng(11)
    noisy = counts + rng.laplace(0.0, 1.0 / eps, size=(draws, counts.size))
    gaps = counts.max() - counts[np.argmax(noisy, axis=1)]
    ours = expected_errors(mode_scores(counts), eps, monotonic=True,
                           mechanisms=("rnm-laplace",))["rnm_laplace"]
    assert abs(gaps.mean() - ours) < 5 * gaps.std() / math.sqrt(draws)


def test_error_curves_are_expected_errors_pointwise():
    q = median_scores([3, 1, 4, 1, 5, 9, 2, 6])
    eps = [0.1, 0.5, 2.0]
    curves = error_curves(q, eps, mechanisms=("pf", "em"))
    for i, e in enumerate(eps):
        point = expected_errors(q, e, mechanisms=("pf", "em"))
        assert curves["pf"][i] == point["pf"] and curves["em"][i] == point["em"]
    assert np.all(np.diff(curves["pf"]) < 0) and np.all(curves["pf"] <= curves["em"])


# --- root finding --------------------------------------------------------------------------

@pytest.mark.parametrize("target", [0.01, 1.0, 4.9])
def test_epsilon_for_error_inverts_the_em_closed_form(target):
    # Scores (g, 0), non-monotonic: error g p / (1 + p) = t  =>  p = t / (g - t),
    # eps = -2 log(p) / g.
    g = 10.0
    p = target / (g - target)
    assert epsilon_for_error([g, 0.0], target) == pytest.approx(-2 * math.log(p) / g, rel=1e-11)


def test_budget_ratio_two_candidates():
    # PF at eps: error g p / 2.  EM matches it when p'/(1+p') = p/2, p' = p / (2 - p);
    # the ratio is log(p') / log(p).
    g, eps = 3.0, 0.8
    p = math.exp(-eps * g / 2)
    assert budget_ratio([g, 0.0], eps) == pytest.approx(math.log(p / (2 - p)) / math.log(p),
                                                        rel=1e-11)


def test_epsilon_for_error_rejects_unreachable_targets():
    with pytest.raises(InvalidArgumentError, match="uniform"):
        epsilon_for_error([2.0, 0.0], 1.0)  # the uniform choice already has error 1
    with pytest.raises(InvalidArgumentError, match="target"):
        epsilon_for_error([2.0, 0.0], 0.0)


def test_hepth_mode_matches_the_paper():
    # Section 6: at eps = 0.04 the EM/PF ratio is 1.84 and EM needs 1.27x the budget.
    q = mode_scores(load_histogram("HEPTH", 1024))
    errors = expected_errors(q, 0.04, monotonic=True, mechanisms=("pf", "em"))
    assert round(errors["em"] / errors["pf"], 2) == 1.84
    assert round(budget_ratio(q, 0.04, monotonic=True), 2) == 1.27


# --- the reproduction of Section 6 ---------------------------------------------------------

def test_reproduce_quick_run(quick_run):
    results, out = quick_run("data")
    assert results and all(r.ok for r in results)
    assert all(r.status in ("match", "new") or r.explanation for r in results)
    grid_rows = [r for r in results if "authors' grid point" in r.name]
    assert len(grid_rows) == 6 and all(r.status == "match" for r in grid_rows)
    for figure in {r.figure for r in results if r.figure}:
        assert (out / figure).stat().st_size > 10_000


def test_one_key_spelling_for_every_mechanism_name():
    """Keys and names say rnm_laplace; rnm-laplace is read as the same mechanism."""
    from optmech.data.tasks import MECHANISMS as TASK_MECHANISMS
    from optmech.heterogeneous.noisy_max import HeterogeneousNoisyMax
    from optmech.selection.mechanisms import MECHANISMS, ReportNoisyMax, make_mechanism

    scores = [3.0, 1.0, 0.0, 0.0]
    assert list(expected_errors(scores, 1.0)) == ["pf", "em", "rnm_laplace"]
    assert expected_errors(scores, 1.0, mechanisms=("rnm-laplace",)) == \
        expected_errors(scores, 1.0, mechanisms=("rnm_laplace",))
    curves = error_curves(scores, [0.5, 1.0], mechanisms=("rnm-laplace", "pf"))
    assert list(curves) == ["rnm_laplace", "pf"]
    target = curves["rnm_laplace"][0]
    assert epsilon_for_error(scores, target, mechanism="rnm-laplace") == \
        pytest.approx(0.5, rel=1e-10)
    labelled = error_curves(scores, [0.5, 1.0], mechanisms={"noisy": "rnm-laplace"})
    assert list(labelled) == ["noisy"]
    assert np.array_equal(labelled["noisy"], curves["rnm_laplace"])
    names = [*MECHANISMS, *TASK_MECHANISMS, ReportNoisyMax(1.0).name,
             HeterogeneousNoisyMax(1.0, noise="laplace").name]
    assert not [n for n in names if "-" in n]
    assert make_mechanism("rnm-gumbel", 1.0) == make_mechanism("rnm_gumbel", 1.0)
