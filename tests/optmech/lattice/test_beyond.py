"""solve_lattice beyond the paper: objective="max"|"weighted", lattice="delta"; the improving
step that shows PF is never optimal on the Δ-lattice; ratios of the other objectives.

Independent references: the full LP over every vector of Q with the same objective, solved
directly with lp_models.program.solve; PF's and EM's pmfs on every vector (brute force);
closed forms for n = 2; the realised privacy loss measured by optmech.selection.privacy.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from lp_models.lattice import full_lattice_lp, level_error
from lp_models.lattice.objectives import (
    vector_error_matrix,
    with_max_objective,
    with_weighted_objective,
)
from lp_models.program import solve
from optmech.lattice.aggregate_ratios import mechanism_class_errors, objective_ratios
from optmech.lattice.delta import pf_improving_step
from optmech.lattice.objectives import objective_weights
from optmech.lattice.optimum import realised_privacy_loss, solve_lattice
from optmech.lattice.ratios import optimality_ratios
from optmech.selection.mechanisms import ExponentialMechanism, PermuteAndFlip
from optmech.selection.privacy import lattice_neighbours, realised_epsilon
from optmech.validation import InvalidArgumentError

TIGHT = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


def _full_value(n, k, eps, objective, lattice="2delta", rate=None):
    """The optimum of the unreduced LP with one error row (or weight) per vector."""
    full = full_lattice_lp(n, k, eps, lattice=lattice, normalise=False)
    levels = full.metadata["levels"]
    errors = vector_error_matrix(levels, lattice)
    if objective == "max":
        lp = with_max_objective(full, errors, level_error(lattice) * k)
        return solve(lp, "simplex", options=TIGHT).objective
    if objective == "weighted":
        weights = rate ** levels.max(axis=1)
        lp = with_weighted_objective(full, errors, weights)
        return solve(lp, "simplex", options=TIGHT).objective * weights.sum()
    return solve(full, "simplex", options=TIGHT).objective


def _vectors(n, k):
    return [np.array(v) for v in itertools.product(range(k + 1), repeat=n) if min(v) == 0]


@pytest.mark.parametrize("lattice", ["2delta", "delta"])
@pytest.mark.parametrize("n, k, eps", [(2, 3, 0.4), (3, 2, 0.3), (3, 3, 1.0), (4, 2, 2.0)])
def test_minimax_optimum_is_certified_and_matches_the_full_lp(lattice, n, k, eps):
    opt = solve_lattice(n, k, eps, objective="max", lattice=lattice)
    assert opt.gap <= 1e-7 and opt.max_violation < 1e-14
    assert opt.objective_value == pytest.approx(_full_value(n, k, eps, "max", lattice),
                                                rel=1e-8)
    assert opt.objective_value == pytest.approx(opt.class_errors().max(), rel=1e-12)
    assert opt.lower_bound <= opt.objective_value * (1 + 1e-12)


@pytest.mark.parametrize("rate", [0.5, 1.0, 3.0])
def test_weighted_optimum_matches_the_full_lp(rate):
    n, k, eps = 3, 3, 0.4
    opt = solve_lattice(n, k, eps, objective="weighted", weights=f"geometric:{rate}")
    assert opt.gap <= 1e-7
    assert opt.objective_value == pytest.approx(_full_value(n, k, eps, "weighted", rate=rate),
                                                rel=1e-8)
    if rate == 1.0:
        assert opt.objective_value == pytest.approx(solve_lattice(n, k, eps).total_error,
                                                    rel=1e-9)


def test_weights_specs_agree_with_each_other():
    n, k, eps = 3, 2, 0.5
    opt = solve_lattice(n, k, eps, objective="weighted", weights="depth:1,0.5,0.25")
    classes = opt.classes
    same = solve_lattice(n, k, eps, objective="weighted",
                         weights=classes.multiplicity * 0.5 ** classes.depth)
    geometric = solve_lattice(n, k, eps, objective="weighted", weights="geometric:0.5")
    assert opt.objective_value == pytest.approx(same.objective_value, rel=1e-12)
    assert opt.objective_value == pytest.approx(geometric.objective_value, rel=1e-12)
    counts = {tuple(np.bincount(v, minlength=k + 1)) for v in _vectors(n, k)}
    assert len(counts) == classes.num_classes


@pytest.mark.parametrize("weights", ["geometric:0", "geometric:-1", "depth:1,2",
                                     "uniform:1", "geometric:x", [1.0, 2.0], "depth:0,0,0"])
def test_bad_weights_are_rejected(weights):
    with pytest.raises(InvalidArgumentError, match="weights"):
        solve_lattice(3, 2, 0.5, objective="weighted", weights=weights)


@pytest.mark.parametrize("kwargs, argument", [
    ({"objective": "median"}, "objective"),
    ({"lattice": "hex"}, "lattice"),
    ({"objective": "weighted"}, "weights"),
    ({"weights": "geometric:0.5"}, "weights"),
    ({"lattice": "delta", "constraints": "paper"}, "constraints"),
])
def test_bad_arguments_name_the_argument(kwargs, argument):
    with pytest.raises(InvalidArgumentError, match=argument):
        solve_lattice(3, 2, 0.5, **kwargs)


@pytest.mark.parametrize("k, eps", [(1, 0.5), (4, 0.2), (6, 1.5)])
def test_pf_is_minimax_optimal_for_two_items(k, eps):
    """n = 2: the largest error is max_j j e^{-eps j} (PF: x_j = e^{-eps j}/2 on (0, -2j))."""
    opt = solve_lattice(2, k, eps, objective="max")
    closed = max(j * math.exp(-eps * j) for j in range(1, k + 1))
    assert opt.objective_value == pytest.approx(closed, rel=1e-10)
    assert opt.pf_optimal
    assert objective_ratios(opt, ["pf"])["pf"] == pytest.approx(1.0, abs=1e-10)


def test_pf_is_not_minimax_optimal_for_three_items():
    """PF's largest expected error over Q, from its pmf on every vector, exceeds the
    certified optimum's (a feasible mechanism) by 3.9% at n = k = 3, eps = 0.5."""
    n, k, eps = 3, 3, 0.5
    opt = solve_lattice(n, k, eps, objective="max")
    pf = PermuteAndFlip(eps)
    worst = max(pf.expected_error(-2.0 * v) for v in _vectors(n, k))
    assert not opt.pf_optimal
    assert worst / opt.objective_value == pytest.approx(1.0387573596558, rel=1e-9)
    assert objective_ratios(opt, ["pf"])["pf"] == pytest.approx(worst / opt.objective_value,
                                                               rel=1e-12)


def test_minimax_value_grows_with_depth_then_stays():
    values = [solve_lattice(3, k, 0.5, objective="max").objective_value for k in range(1, 6)]
    assert values[0] < values[1]
    assert values[1:] == pytest.approx([values[1]] * 4, rel=1e-9)


@pytest.mark.parametrize("lattice, objective", [("delta", "sum"), ("delta", "max"),
                                                ("2delta", "max")])
def test_optimum_is_differentially_private(lattice, objective):
    eps = 0.7
    opt = solve_lattice(3, 3, eps, objective=objective, lattice=lattice)
    assert realised_privacy_loss(opt) == pytest.approx(eps, rel=1e-9)


def test_delta_optimum_pmf_takes_scores_one_step_apart():
    opt = solve_lattice(3, 2, 1.0, lattice="delta")
    mechanism = opt.mechanism()
    probs = mechanism.pmf([5.0, 3.0, 4.0])
    assert probs.sum() == pytest.approx(1.0, abs=1e-14)
    assert probs[0] > probs[2] > probs[1]
    with pytest.raises(InvalidArgumentError, match="1-lattice"):
        mechanism.pmf([0.0, -0.5, -1.0])


@pytest.mark.parametrize("n, k", [(2, 1), (2, 3), (3, 2), (4, 2)])
@pytest.mark.parametrize("eps", [0.05, 1.0, 8.0])
def test_improving_step_beats_pf_on_the_full_delta_lp(n, k, eps):
    """The step's point, spread over every vector of Q, satisfies every row of the full
    Δ-lattice LP (a separate builder) and has a smaller total error than PF."""
    step = pf_improving_step(n, k, eps)
    assert step.delta > 0 and step.slack > 0 and step.gain == pytest.approx((n - 1) * step.delta)
    full = full_lattice_lp(n, k, eps, lattice="delta", normalise=False)
    classes = step.classes

    def spread(x):
        out = []
        for levels in full.metadata["levels"]:
            counts = np.bincount(levels, minlength=k + 1)
            cls = classes.find(np.array([counts @ classes.radix]))[0]
            out.append(x[classes.variable(np.full(n, cls), levels)])
        return np.concatenate(out)

    point, pf = spread(step.point), spread(step.pf)
    assert full.max_violation(point) < 1e-15
    assert full.objective_value(point) < full.objective_value(pf) - 0.5 * step.gain


def test_improving_step_is_private():
    step = pf_improving_step(3, 2, 1.0)
    classes = step.classes

    def pmf(scores):
        levels = (np.max(scores) - np.asarray(scores)).round().astype(int)
        cls = classes.find(np.array([np.bincount(levels, minlength=3) @ classes.radix]))[0]
        return step.point[classes.variable(np.full(3, cls), levels)]

    worst = 0.0
    for v in _vectors(3, 2):
        q = -v.astype(float)
        neighbours = lattice_neighbours(q, 1.0, levels=3, limit=27)
        inside = (neighbours.max(axis=1, keepdims=True) - neighbours).max(axis=1) <= 2
        worst = max(worst, realised_epsilon(pmf, q, 1.0, neighbours[inside]).epsilon)
    assert worst <= 1.0 + 1e-12


def test_delta_class_errors_are_the_mechanisms_on_unit_steps():
    opt = solve_lattice(3, 3, 0.8, lattice="delta")
    scores = opt.classes.scores(np.arange(opt.classes.num_classes), sensitivity=0.5)
    for name, mechanism in (("pf", PermuteAndFlip(0.8)), ("em", ExponentialMechanism(0.8))):
        brute = [mechanism.expected_error(q) for q in scores]
        np.testing.assert_allclose(mechanism_class_errors(name, opt), brute, rtol=1e-12)


def test_objective_ratios_reduce_to_the_papers_for_the_sum():
    opt = solve_lattice(4, 3, 0.5)
    ours, paper = objective_ratios(opt), optimality_ratios(opt)
    assert ours == pytest.approx(paper, rel=1e-12)
    labelled = objective_ratios(opt, {"permute-and-flip": "pf", "noisy": "rnm-laplace"})
    assert labelled == pytest.approx({"permute-and-flip": paper["pf"],
                                      "noisy": paper["rnm_laplace"]}, rel=1e-12)


def test_objective_weights_reject_a_wrong_length():
    classes = solve_lattice(2, 2, 1.0).classes
    assert objective_weights("geometric:1", classes) == pytest.approx(classes.multiplicity)
    with pytest.raises(InvalidArgumentError, match="weights"):
        objective_weights(np.ones(classes.num_classes + 1), classes)
