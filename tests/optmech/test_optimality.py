"""optmech.optimality: certified lattice optimum and optimality ratios.

Independent references: the reduced LP solved directly by the foundation's ``solve``; brute
force over every vector of Q (or of the cube) with the mechanisms' own pmf; the privacy
check of ``optmech.privacy`` on every lattice neighbour; the paper's statements (Theorem 3,
Figure 2).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from lp_models.lattice import reduced_lattice_lp
from lp_models.lattice_classes import lattice_classes
from lp_models.lattice_recurrences import pf_lattice_probabilities
from lp_models.program import HighsModel, SolverError, solve
from optmech.mechanisms import ExponentialMechanism, PermuteAndFlip, ReportNoisyMax
from optmech.optimality import (
    _highs,
    class_errors,
    optimality_ratio,
    optimality_ratios,
    ratio_sweep,
    realised_privacy_loss,
    solve_lattice,
    total_error,
)
from optmech.validation import InvalidArgumentError

PAPER_THRESHOLD = math.log((3 + math.sqrt(5)) / 2)
TIGHT = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


def brute_force_total(mechanism, n, k, weighting):
    """Sum of E[error] over every vector of Q (lattice) or of the cube (cube), by pmf."""
    total = 0.0
    for levels in itertools.product(range(k + 1), repeat=n):
        if weighting == "lattice" and min(levels) != 0:
            continue
        scores = -2.0 * np.array(levels)
        total += mechanism.expected_error(scores)
    return total


@pytest.mark.parametrize("weighting", ["lattice", "cube"])
def test_total_error_matches_enumeration_of_every_vector(weighting):
    for mechanism in (PermuteAndFlip(0.7), ExponentialMechanism(0.7),
                      ReportNoisyMax(0.7, noise="laplace")):
        expected = brute_force_total(mechanism, 3, 3, weighting)
        assert total_error(mechanism, 3, 3, weighting) == pytest.approx(expected, rel=1e-12)


def test_closed_forms_agree_with_the_pmf_path():
    classes = lattice_classes(5, 4)
    for mechanism in (PermuteAndFlip(0.3), ExponentialMechanism(1.3),
                      PermuteAndFlip(0.8, sensitivity=2.0),
                      ReportNoisyMax(0.7, noise="laplace"),
                      ReportNoisyMax(0.01, noise="laplace"),
                      ReportNoisyMax(6.0, sensitivity=0.5, noise="laplace")):
        fast = class_errors(mechanism, classes)
        slow = np.array([mechanism.expected_error(q) / mechanism.sensitivity
                         for q in classes.scores(np.arange(classes.num_classes),
                                                 mechanism.sensitivity)])
        assert np.allclose(fast, slow, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("constraints", ["regular", "paper"])
def test_certified_optimum_matches_a_direct_solve(constraints):
    for n, k, eps in [(4, 4, 0.5), (5, 3, 0.2), (3, 5, 1.5), (6, 2, 0.05)]:
        optimum = solve_lattice(n, k, eps, constraints=constraints)
        lp = reduced_lattice_lp(n, k, eps, constraints=constraints)
        # Tight tolerances: with HiGHS's default 1e-7 the direct point violates rows by ~4e-8
        # and its objective is ~2e-9 too low (n=6, k=2, eps=0.05).
        direct = solve(lp, "simplex", options=TIGHT, feasibility_tolerance=1e-12)
        scale = lp.metadata["objective_scale"]
        assert optimum.total_error == pytest.approx(direct.objective * scale, rel=1e-9)
        assert optimum.gap <= 1e-9
        assert optimum.lower_bound <= optimum.total_error * (1 + 1e-12)
        assert lp.max_violation(optimum.probabilities) <= 1e-12   # every row, checked apart
        assert optimum.num_constraints == lp.num_rows


@pytest.mark.parametrize("n, k, eps", [(5, 5, 0.5), (6, 4, 0.3), (5, 3, 0.2)])
def test_paper_optimum_trades_level_zero_rows_for_climbing_rows(n, k, eps):
    """Counting at a vertex of Appendix D's LP with every probability positive: V variables,
    C sum-to-one rows and one privacy row per variable except the chain ends (the classes
    with an item at level k), so exactly as many privacy rows are slack as there are classes
    without an item at level k.  PF leaves the level-0 rows slack; below the chain-dual
    threshold the optimum makes some level-0 rows tight and as many climbing rows slack."""
    optimum = solve_lattice(n, k, eps, constraints="paper")
    classes, x = optimum.classes, optimum.probabilities
    assert x.min() > 0
    source = np.flatnonzero(classes.var_next >= 0)
    slack = x[source] - math.exp(-eps) * x[classes.var_next[source]] > 1e-9 * x[source]
    assert slack.sum() == (classes.counts[:, k] == 0).sum()
    climbing = classes.var_level[source] >= 1
    assert 0 < slack[climbing].sum() == (~slack[~climbing]).sum()


@pytest.mark.slow
def test_long_simplex_runs_are_certified_after_refactoring():
    """n = k = 8, eps = 0.5, Appendix D's LP: with highspy 1.16 the held-row simplex returned
    "Optimal" points whose sum-to-one rows were off by up to 1.2e-6 (values drifted over
    thousands of basis updates), and the certificate then failed with a gap of 1.7e-6.  The
    final basis is now factorised afresh when that happens; the optimum must be certified and
    agree with HiGHS's interior point (IPX plus crossover, an independent path)."""
    simplex = solve_lattice(8, 8, 0.5, constraints="paper")
    interior = solve_lattice(8, 8, 0.5, constraints="paper", method="ipm")
    assert simplex.method == "highs-simplex" and interior.method == "highs-ipm"
    assert simplex.gap <= 1e-9 and simplex.max_violation <= 1e-12
    assert simplex.total_error == pytest.approx(interior.total_error, rel=1e-9)


def test_row_generation_adds_each_monotonicity_row_once():
    """n = k = 7, eps = 0.3: rows already in the model were re-added when HiGHS left them
    violated by a relative 1e-12 (inside its absolute tolerance): 22 duplicates of 3915."""
    classes = lattice_classes(7, 7)
    pf = pf_lattice_probabilities(classes, 0.3)
    _, certify_lp, _, _, _ = _highs(classes, 0.3, "lattice", pf, True, "simplex", None)
    first, second = certify_lp.metadata["monotone_pairs"]
    assert first.size > 1000
    assert np.unique(np.stack([first, second]), axis=1).shape[1] == first.size


def test_a_failed_dual_simplex_round_is_finished_by_the_primal_simplex(monkeypatch):
    """At n = k = 10, eps = 0.69 (too big for a test) HiGHS's dual simplex stopped with
    "Solve error" after monotonicity rows were added; here the first such round is made to
    fail the same way.  The solve must go on by the primal simplex and stay certified."""
    state = {"dual": False, "failures": 0}
    real_run, real_set_options = HighsModel.run, HighsModel.set_options

    def set_options(model, options):
        if "simplex_strategy" in options:
            state["dual"] = options["simplex_strategy"] == 1
        real_set_options(model, options)

    def run(model, **kwargs):
        if state["dual"] and not state["failures"]:
            state["failures"] += 1
            raise SolverError("forced", status="Solve error", num_rows=0, num_cols=0,
                              num_nonzeros=0, method="simplex")
        return real_run(model, **kwargs)

    monkeypatch.setattr(HighsModel, "set_options", set_options)
    monkeypatch.setattr(HighsModel, "run", run)
    optimum = solve_lattice(6, 5, 0.3)
    assert state["failures"] == 1
    lp = reduced_lattice_lp(6, 5, 0.3)
    direct = solve(lp, "simplex", options=TIGHT, feasibility_tolerance=1e-12)
    assert optimum.total_error == pytest.approx(
        direct.objective * lp.metadata["objective_scale"], rel=1e-9)
    assert optimum.gap <= 1e-9


@pytest.mark.parametrize("eps", [0.4, 0.1])
def test_methods_agree(eps):
    optima = {m: solve_lattice(4, 4, eps, method=m) for m in ("auto", "simplex", "ipm")}
    assert optima["auto"].method == "highs-simplex"     # interior point only on big models
    value = optima["auto"].total_error
    assert optima["ipm"].total_error == pytest.approx(value, rel=1e-8)
    assert optima["simplex"].total_error == pytest.approx(value, rel=1e-10)


def test_pf_ratio_is_one_above_the_paper_threshold():
    for n, k in [(3, 4), (4, 4), (6, 4), (4, 2), (4, 8)]:
        for eps in (PAPER_THRESHOLD, 1.5, 4.0, 10.0):
            for weighting in ("lattice", "cube"):
                optimum = solve_lattice(n, k, eps, weighting=weighting)
                assert optimum.method == "pf-chain-dual"
                ratio = optimality_ratio(PermuteAndFlip(eps), optimum)
                assert abs(ratio - 1) <= 1e-9


def test_pf_ratio_stays_close_to_one_below_the_threshold():
    """Paper, Section 5: 'the largest measured value is about 1.01'."""
    for n, k in [(3, 4), (4, 4), (5, 4), (4, 6)]:
        for eps in (0.05, 0.2, 0.4, 0.6):
            ratio = optimality_ratio(PermuteAndFlip(eps), solve_lattice(n, k, eps))
            assert 1.0 <= ratio < 1.012


def test_em_ratio_grows_towards_two():
    curves = ratio_sweep([4], [2, 8], [0.01, 0.1, 0.5, 1.0, 3.0, 10.0], mechanisms=["em"])
    for curve in curves:
        em = curve.ratios["em"]
        assert np.all(np.diff(em) > 0)
        assert em[0] < 1.01 and 1.8 < em[-1] < 2.0
    assert curves[1].ratios["em"][-1] > curves[0].ratios["em"][-1]   # larger k: closer to 2


@pytest.mark.parametrize("n,k,eps", [(4, 4, 0.5), (3, 5, 0.2), (5, 3, 0.35), (4, 3, 1.2)])
def test_regular_optimum_is_differentially_private(n, k, eps):
    optimum = solve_lattice(n, k, eps, constraints="regular")
    assert realised_privacy_loss(optimum) <= eps * (1 + 1e-9)


def test_paper_lp_optimum_is_not_private():
    """Appendix D's LP without monotonicity rows: its optimum leaks more than eps."""
    optimum = solve_lattice(4, 4, 0.5, constraints="paper")
    assert realised_privacy_loss(optimum) > 0.6


def test_solution_mechanism_pmf():
    optimum = solve_lattice(3, 2, 0.4)
    mechanism = optimum.mechanism()
    p = mechanism.pmf([5.0, 3.0, 1.0])            # a shifted lattice vector
    assert p.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.allclose(mechanism.pmf([1.0, 3.0, 5.0]), p[::-1])
    for bad in ([0.0, 0.5, -2.0], [0.0, -10.0, -2.0], [0.0, -2.0]):
        with pytest.raises(InvalidArgumentError):
            mechanism.pmf(bad)


def test_ratios_use_the_optimum_weighting():
    optimum = solve_lattice(4, 3, 0.3, weighting="cube", constraints="paper")
    ratios = optimality_ratios(optimum)
    assert set(ratios) == {"pf", "em", "rnm_laplace"}
    expected = brute_force_total(PermuteAndFlip(0.3), 4, 3, "cube") / optimum.total_error
    assert ratios["pf"] == pytest.approx(expected, rel=1e-12)


def test_gap_tolerance_is_enforced():
    with pytest.raises(SolverError):
        solve_lattice(4, 4, 0.5, method="pdlp", gap_tolerance=1e-15)


@pytest.mark.parametrize("bad", [dict(n=1), dict(k=0), dict(epsilon=-1.0),
                                 dict(epsilon=float("nan")), dict(weighting="box"),
                                 dict(constraints="dp"), dict(method="magic"),
                                 dict(n=30, k=30)])
def test_bad_arguments_name_the_argument(bad):
    args = dict(n=3, k=2, epsilon=0.5)
    args.update(bad)
    n, k, eps = args.pop("n"), args.pop("k"), args.pop("epsilon")
    with pytest.raises(InvalidArgumentError):
        solve_lattice(n, k, eps, **args)


def test_paper_recurrence_dual_is_an_independent_certificate():
    above = solve_lattice(4, 4, PAPER_THRESHOLD + 1e-6)
    assert above.relaxed_dual_bound == pytest.approx(above.total_error, rel=1e-12)
    between = solve_lattice(4, 4, 0.8)      # PF optimal, but the paper's recurrence fails
    assert between.pf_optimal and between.relaxed_dual_bound is None


def test_optimum_class_errors_sum_to_the_total():
    optimum = solve_lattice(4, 3, 0.3, weighting="cube")
    from lp_models.lattice import class_weights

    weights = class_weights(optimum.classes, "cube")
    assert weights @ optimum.class_errors() == pytest.approx(optimum.total_error, rel=1e-12)
