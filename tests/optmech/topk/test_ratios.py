"""optmech.topk.ratios: optimality ratios of the top-k mechanisms.

Independent references: every lattice vector, output and neighbour pair enumerated by brute
force with errors from their definitions (``tests/topk_reference``), the mechanisms' own
``expected_error``, and for T = 1 the lattice area's optimality ratios of EM and PF.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from optmech.lattice.optimum import solve_lattice
from optmech.lattice.ratios import optimality_ratio
from optmech.topk import (
    TOPK_MECHANISMS,
    make_topk_mechanism,
    solve_topk,
    topk_ratio_sweep,
    topk_ratios,
)
from optmech.validation import InvalidArgumentError
from tests.topk_reference import (
    error,
    lattice_vectors,
    outputs,
    raised,
    worst_privacy_loss,
)


@pytest.fixture(scope="module")
def tuples_4_2():
    """The regular and private optima at n = 4, k = 2, T = 2, eps = 0.6, with ratios."""
    return {c: (o, topk_ratios(o)) for c in ("regular", "private")
            for o in [solve_topk(4, 2, 0.6, 2, constraints=c)]}


@pytest.mark.parametrize("n, k, top, ordered", [(4, 2, 2, True), (4, 2, 3, True),
                                                (3, 3, 2, False), (5, 1, 2, True)])
@pytest.mark.parametrize("eps", [0.2, 1.5])
def test_every_ratio_is_at_least_one_against_the_private_lp(n, k, top, ordered, eps):
    optimum = solve_topk(n, k, eps, top, ordered=ordered, constraints="private")
    results = topk_ratios(optimum)
    assert [r.mechanism for r in results] == list(TOPK_MECHANISMS)
    for result in results:
        assert result.feasible, result
        assert result.ratio >= 1 - 1e-9
        assert result.lattice_epsilon <= eps * (1 + 1e-9)


def test_total_errors_are_brute_force_sums_over_the_lattice(tuples_4_2):
    """Each mechanism's total error is its expected error summed over every lattice vector,
    from its pmf and the errors of the definitions (and, for the mechanisms that order their
    output, its own ``expected_error``)."""
    optimum, results = tuples_4_2["regular"]
    vectors = lattice_vectors(4, 2)
    rows = np.array([[-2.0 * level for level in v] for v in vectors])
    outs = outputs(4, 2, True)
    errors = np.array([[error(v, o, "l1", True) for o in outs] for v in vectors])
    for result in results:
        mechanism = make_topk_mechanism(result.mechanism, 0.6, 2)
        assert result.total_error == pytest.approx((mechanism.pmf(rows) * errors).sum(),
                                                   rel=1e-12)
        if mechanism.ordered:
            assert result.total_error == pytest.approx(
                mechanism.expected_error(rows, "l1").sum(), rel=1e-12)
        assert result.ratio == pytest.approx(result.total_error / optimum.total_error,
                                             rel=1e-15)


def test_subset_ratios_compare_sets():
    optimum = solve_topk(4, 2, 0.6, 2, ordered=False)
    vectors = lattice_vectors(4, 2)
    rows = np.array([[-2.0 * level for level in v] for v in vectors])
    sets = outputs(4, 2, False)
    errors = np.array([[error(v, s, "l1", False) for s in sets] for v in vectors])
    for result in topk_ratios(optimum, ["peel-pf", "canonical-lipschitz"]):
        mechanism = make_topk_mechanism(result.mechanism, 0.6, 2)
        assert result.total_error == pytest.approx(
            (mechanism.subset_pmf(rows) * errors).sum(), rel=1e-12)
        assert result.ratio >= 1


def test_lattice_epsilon_is_the_brute_force_privacy_loss(tuples_4_2):
    _, results = tuples_4_2["private"]
    for result in results:
        mechanism = make_topk_mechanism(result.mechanism, 0.6, 2)
        assert result.lattice_epsilon == pytest.approx(
            worst_privacy_loss(mechanism.pmf, 4, 2), rel=1e-12)


def _first_prefix_violation(mechanism, n, k, top):
    """A vector, an item and another item whose one-step raise increases the item's
    probability of being among the first i outputs, by brute force (None if none)."""
    outs = outputs(n, top, True)
    for v in lattice_vectors(n, k):
        p = mechanism.pmf([-2.0 * level for level in v])
        for other in range(n):
            w = raised(v, other, k)
            if w is None:
                continue
            q = mechanism.pmf([-2.0 * level for level in w])
            for item in range(n):
                for prefix in range(1, top + 1):
                    mask = np.array([item in o[:prefix] for o in outs])
                    before, after = p[mask].sum(), q[mask].sum()
                    if (item == other and after < before - 1e-12) or (
                            item != other and after > before + 1e-12):
                        return v, item, other, prefix
    return None


def test_the_joint_mechanisms_are_not_monotonic(tuples_4_2):
    """The joint mechanisms break the regular LP's monotonicity (raising another item can
    bring an item into the first i outputs more often): outside its class, while peeling is
    inside; the brute-force search finds such a raise for exactly those."""
    _, results = tuples_4_2["regular"]
    for result in results:
        mechanism = make_topk_mechanism(result.mechanism, 0.6, 2)
        violation = _first_prefix_violation(mechanism, 4, 2, 2)
        assert (violation is None) == (result.monotone_violation <= 1e-9), result
        assert result.feasible == (violation is None)
    assert {r.mechanism for r in results if not r.feasible} == {"joint-em", "joint-pf"}


def test_top_one_ratios_are_the_lattice_ratios():
    optimum = solve_topk(4, 3, 0.5, 1)
    lattice = solve_lattice(4, 3, 0.5)
    ratios = {r.mechanism: r.ratio for r in topk_ratios(optimum, ["peel-em", "peel-pf"])}
    assert ratios["peel-em"] == pytest.approx(optimality_ratio("em", lattice), rel=1e-11)
    assert ratios["peel-pf"] == pytest.approx(optimality_ratio("pf", lattice), rel=1e-11)


class _Louder:
    """Peeling EM at three times the budget it is rated at: not eps-DP."""

    name = "louder"

    def __init__(self, epsilon, top):
        self.inner = make_topk_mechanism("peel-em", 3 * epsilon, top)

    def pmf(self, scores):
        return self.inner.pmf(scores)


def test_a_mechanism_beyond_its_budget_is_reported_not_feasible(tuples_4_2):
    optimum, _ = tuples_4_2["private"]
    [result] = topk_ratios(optimum, [_Louder(0.6, 2)])
    assert result.mechanism == "louder"
    assert result.lattice_epsilon > 0.6 and not result.feasible


def test_a_feasible_mechanism_below_the_certified_bound_is_a_bug(tuples_4_2):
    optimum, _ = tuples_4_2["private"]
    broken = dataclasses.replace(optimum, lower_bound=10 * optimum.total_error)
    with pytest.raises(RuntimeError, match="below the certified lower bound"):
        topk_ratios(broken, ["peel-pf"])


def test_objects_without_a_pmf_are_refused(tuples_4_2):
    optimum, _ = tuples_4_2["private"]
    with pytest.raises(InvalidArgumentError):
        topk_ratios(optimum, [object()])
    with pytest.raises(InvalidArgumentError):
        topk_ratios(optimum, ["no-such-mechanism"])


def test_sweep_curves_and_table(tmp_path):
    curve = topk_ratio_sweep(3, 2, 2, [0.5, 1.0], ["peel-pf", "joint-em"],
                             constraints="private", show_progress=False)
    assert list(curve.ratios) == ["peel-pf", "joint-em"]
    assert len(curve.optima) == len(curve.results) == 2
    records = curve.records()
    assert [r["epsilon"] for r in records] == [0.5, 1.0]
    assert records[1]["peel-pf"] == curve.results[1][0].ratio
    assert curve.to_csv(tmp_path / "curve.csv").read_text().startswith("n,k,top,")
    with pytest.raises(InvalidArgumentError):
        topk_ratio_sweep(3, 2, 2, [0.5, -1.0])


def test_the_ratio_list_is_one_table():
    """topk_ratios' list (the top-k guide's loop) raised AttributeError in its notebook
    HTML and in to_csv/to_frame: its items had no records."""
    from optmech.topk import solve_topk, topk_ratios

    optimum = solve_topk(3, 2, 1.0, 2)
    ratios = topk_ratios(optimum, ["peel-em", "joint-pf"])
    records = ratios.records()
    assert [r["mechanism"] for r in records] == ["peel-em", "joint-pf"]
    assert [r["ratio"] for r in records] == [r.ratio for r in ratios]
    assert "peel-em" in ratios._repr_html_()
