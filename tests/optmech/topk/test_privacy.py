"""Each mechanism's guarantee checked by exhaustive neighbours on small integer grids, and
the explicit pairs where a calibration for add/remove fails the general relation."""

import itertools

import numpy as np
import pytest

from optmech.topk import TOPK_MECHANISMS, make_topk_mechanism
from optmech.topk.privacy import grid_privacy_loss

EPS = 1.0


@pytest.mark.parametrize("name", TOPK_MECHANISMS)
@pytest.mark.parametrize("top", [1, 2, 3])
@pytest.mark.parametrize("monotonic", [False, True])
def test_every_neighbour_on_the_grid_keeps_epsilon(name, top, monotonic):
    """n = 4, scores in {0, 1, 2, 3} (Δ = 1), every move in {-1, 0, 1}^4 (general) or in
    one direction (add/remove), every output: the largest |log p - log p'| <= epsilon."""
    mechanism = make_topk_mechanism(name, EPS, top, 1.0, monotonic)
    check = grid_privacy_loss(mechanism, 4, levels=4)
    assert check.epsilon <= EPS + 1e-9, (check.scores, check.neighbour, check.epsilon)
    assert check.neighbours_checked == 4 ** 4 * (80 if not monotonic else 30)


@pytest.mark.parametrize("name", ["joint-em", "canonical-lipschitz", "peel-pf"])
def test_a_half_step_grid_keeps_epsilon_at_another_sensitivity(name):
    """Δ = 0.5 and scores on a grid of step Δ/2: the calibration scales with Δ."""
    for monotonic in (False, True):
        mechanism = make_topk_mechanism(name, 0.6, 2, 0.5, monotonic)
        assert grid_privacy_loss(mechanism, 3, levels=3, resolution=2).epsilon <= 0.6 + 1e-9


@pytest.mark.parametrize("name", TOPK_MECHANISMS)
def test_a_calibration_for_add_remove_fails_the_general_relation(name):
    """Calibrated for add/remove, every mechanism loses more than epsilon between two
    general neighbours; the pair is explicit and its loss is recomputed from the pmfs."""
    mechanism = make_topk_mechanism(name, EPS, 2, 1.0, monotonic=True)
    check = grid_privacy_loss(mechanism, 4, levels=4, monotonic=False)
    assert check.epsilon > 1.1 * EPS
    assert np.abs(check.neighbour - check.scores).max() == 1.0
    loss = abs(mechanism.logpmf(check.scores) - mechanism.logpmf(check.neighbour))
    assert loss[check.output] == pytest.approx(check.epsilon, rel=1e-12)


def test_the_grid_search_is_the_brute_force_maximum():
    """grid_privacy_loss against a plain loop over grid points, moves and outputs."""
    mechanism = make_topk_mechanism("joint-pf", 1.4, 2, 1.0, monotonic=False)
    best = 0.0
    for q in itertools.product(range(3), repeat=3):
        q = np.array(q, dtype=float)
        base = mechanism.logpmf(q)
        for move in itertools.product((-1, 0, 1), repeat=3):
            best = max(best, np.abs(base - mechanism.logpmf(q + move)).max())
    assert grid_privacy_loss(mechanism, 3, levels=3).epsilon == pytest.approx(best, rel=1e-14)
