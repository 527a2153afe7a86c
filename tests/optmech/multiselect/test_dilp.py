"""solve_dilp: primal and dual converge to the closed forms, Laplace is optimal on the
line's grid, the ring of Appendix A.2, both solution methods, and bad input."""

import functools
import math

import numpy as np
import pytest

from optmech.multiselect.dilp import solve_dilp
from optmech.multiselect.offsets import closed_form_cost, optimal_response
from optmech.validation import InvalidArgumentError

# Results are frozen: tests that ask for the same LP share one solve.
solve_once = functools.lru_cache(maxsize=None)(solve_dilp)


@pytest.mark.parametrize("k,grid", [(2, 101), (2, 201), (3, 61)])
def test_line_lp_brackets_the_closed_form(k, grid):
    r = solve_once(k, 1.0, grid)
    exact = closed_form_cost(k, 1.0)
    assert r.gap < 1e-9
    # discretisation error O((eps spacing)^2); the discrete problem is slightly cheaper
    assert 0 < exact - r.primal < (r.epsilon * r.spacing) ** 2 * exact
    assert 0 < exact - r.dual < (r.epsilon * r.spacing) ** 2 * exact
    # the best discrete Laplace point is optimal on the grid as well (Theorem 19's analogue)
    assert r.primal == pytest.approx(r.laplace_cost_discrete, abs=1e-10)
    assert r.laplace_cost == pytest.approx(exact, rel=1e-15)
    assert r.best_chain_mass == pytest.approx(1.0, abs=1e-9)
    np.testing.assert_allclose(r.offsets, optimal_response(k, 1.0).offsets, atol=2 * r.spacing)


def test_line_lp_converges_as_the_grid_is_refined():
    errors = [closed_form_cost(2, 0.7) - solve_dilp(2, 0.7, grid).primal for grid in (51, 101, 201)]
    assert errors[0] > errors[1] > errors[2] > 0
    assert errors[2] < 1e-3


def test_line_lp_scales_with_epsilon():
    """Units: f(eps, k) = f(1, k) / eps for the identity, on the grid too."""
    one = solve_once(2, 1.0, 101)
    other = solve_dilp(2, 0.25, 101)
    assert other.primal == pytest.approx(one.primal / 0.25, rel=1e-9)
    assert other.spacing == pytest.approx(one.spacing / 0.25, rel=1e-12)


@pytest.mark.parametrize("coarse,fine,bound", [
    (51, 201, 2e-3),
    # the same convergence at twice the resolution (3.4 CPU s); the row above checks it
    # by default
    pytest.param(101, 401, 1e-3, marks=pytest.mark.slow),
])
def test_line_lp_with_another_disutility_approaches_the_recurrence(coarse, fine, bound):
    """The LP optimises over all noises and all offsets, so it also checks that the
    symmetric recurrence is optimal for h = sqrt, k = 2: the LP's shortfall shrinks with
    the spacing (as spacing^1.5: 1.1e-2, 3.9e-3, 1.45e-3, 5.2e-4 at grids 51, 101, 201,
    401), so a recurrence that missed the optimum by more than 5.5e-4 fails at grid 201
    (4.8e-4 at grid 401)."""
    target = optimal_response(2, 1.0, "sqrt").cost
    coarse, fine = (solve_dilp(2, 1.0, grid, h="sqrt").primal for grid in (coarse, fine))
    assert target - fine < 0.2 * (target - coarse)
    assert 0 < target - fine < bound


def test_ring_three_eighths():
    """Appendix A.2 at eps = 3/8: the optimum puts the results at opposite points and beats
    the ring's Laplace noise (0.7087 against 0.7429)."""
    r = solve_dilp(2, 0.375, 120, ring=True)
    a = 0.375 * math.pi / 2
    antipodal = (1 - (1 + a) * math.exp(-a)) / (0.375 * -math.expm1(-a))
    assert r.gap < 1e-9
    assert 0 < antipodal - r.primal < 2e-4
    assert np.ptp(r.offsets) == pytest.approx(math.pi, abs=1e-12)
    assert r.laplace_cost == pytest.approx(0.74291388603, abs=1e-9)
    assert r.laplace_cost_discrete - r.primal > 0.03


def test_ring_eps_one_laplace_is_close_but_not_optimal():
    r = solve_once(2, 1.0, 120, ring=True)
    assert r.gap < 1e-9
    assert r.laplace_cost_discrete - r.primal > 1e-3
    assert r.laplace_cost_discrete - r.primal < 3e-3


def test_both_methods_agree():
    chains = solve_dilp(2, 0.6, 61, ring=False, method="chains")
    joint = solve_dilp(2, 0.6, 61, ring=False, method="joint")
    assert chains.primal == pytest.approx(joint.primal, abs=1e-10)
    assert chains.dual == pytest.approx(joint.dual, abs=1e-10)
    ring = [solve_dilp(3, 1.0, 24, ring=True, method=m).primal for m in ("chains", "joint")]
    assert ring[0] == pytest.approx(ring[1], abs=1e-10)


def test_density_is_a_probability_distribution():
    r = solve_once(2, 1.0, 120, ring=True)  # the LP of the test above
    assert np.sum(r.user_offset_density) * r.spacing == pytest.approx(1.0, abs=1e-9)
    assert np.all(np.diff(r.user_offset) > 0)


@pytest.mark.parametrize("kwargs,argument", [
    ({"k": 0, "epsilon": 1.0}, "k"),
    ({"k": 2, "epsilon": 0.0}, "epsilon"),
    ({"k": 2, "epsilon": 1.0, "grid": 11}, "grid"),
    ({"k": 3, "epsilon": 1.0, "grid": 15}, "grid"),
    ({"k": 2, "epsilon": 1.0, "grid": 9, "ring": True}, "grid"),
    ({"k": 2, "epsilon": 1.0, "grid": 2}, "grid"),
    ({"k": 2, "epsilon": 1.0, "grid": 101, "spread": 1.0}, "spread"),
    ({"k": 2, "epsilon": 1.0, "grid": 101, "margin": 0.3}, "margin"),
    ({"k": 2, "epsilon": 1.0, "grid": 40, "ring": True, "margin": 1.0}, "spread/margin"),
    ({"k": 2, "epsilon": 1.0, "grid": 101, "method": "pdlp"}, "method"),
    ({"k": 2, "epsilon": 1.0, "grid": 101, "h": lambda t: -t}, "h"),
    ({"k": 3, "epsilon": 1.0, "grid": 5000}, "grid"),
])
def test_bad_input(kwargs, argument):
    with pytest.raises(InvalidArgumentError) as info:
        solve_dilp(**kwargs)
    assert info.value.argument == argument
