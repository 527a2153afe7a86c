"""Multi-selection paper: one test per registered identity, plus the cost helpers."""

import math

import numpy as np
import pytest

from proofs.multiselect import laplace_cost, laplace_cost_gradient, optimal_cost, optimal_offsets


def test_laplace_cost_by_hand():
    assert laplace_cost([0.0]) == pytest.approx(1.0, abs=1e-15)          # E|x| = 1
    # one point at a: E|x - a| = |a| + e^{-|a|}
    assert laplace_cost([2.0]) == pytest.approx(2 + math.exp(-2), abs=1e-15)


def test_laplace_cost_gradient_matches_central_differences():
    points = np.array([-1.3, 0.4, 0.9, 2.5])
    h = 1e-6
    numeric = [(laplace_cost(points + h * e) - laplace_cost(points - h * e)) / (2 * h)
               for e in np.eye(4)]
    np.testing.assert_allclose(laplace_cost_gradient(points), numeric, atol=1e-8)


def test_closed_forms_small_k():
    assert optimal_cost(1) == 1 and optimal_cost(3) == 0.5
    assert optimal_cost(2) == pytest.approx(math.log(2), rel=1e-15)
    np.testing.assert_allclose(optimal_offsets(3), [-math.log(4), 0, math.log(4)], rtol=1e-15)
    np.testing.assert_allclose(optimal_offsets(2), [-math.log(2), math.log(2)], rtol=1e-15)
    assert laplace_cost(optimal_offsets(4)) == pytest.approx(optimal_cost(4), abs=1e-14)


def test_cost_integral_recurrence(check):
    assert check("multiselect.cost_integral_recurrence").status == "verified"


def test_minimiser_and_D_b(check):
    assert check("multiselect.minimiser_and_D_b").status == "verified"


def test_odd_offsets(check):
    assert check("multiselect.odd_offsets").status == "verified"


def test_even_k_closed_form(check):
    assert check("multiselect.even_k_closed_form").status == "verified"


def test_section_2_3_2_plot_constant(check):
    outcome = check("multiselect.section_2_3_2_plot_constant")
    assert outcome.status == "erratum" and "9/22" in outcome.result.corrected


def test_ring_optimal_cost_is_an_erratum(check):
    assert check("multiselect.ring_optimal_cost").status == "erratum"


def test_library_agrees(check):
    assert check("multiselect.library_agrees").status == "verified"


def test_new_identities(check):
    for name in ("multiselect.lemma_17_dual_ode", "multiselect.lemma_23_generalised_gdp",
                 "multiselect.example_7"):
        assert check(name).status == "verified", name


def test_dual_ode_closed_form_against_runge_kutta_at_random_v():
    """Two methods for equation (18): the piecewise closed form and DOP853, at an asymmetric
    v (median not at 0) and two values of lam, at the right end."""
    import numpy as np

    from proofs.multiselect import dual_ode_end, dual_ode_path

    v = np.array([-1.7, 0.4, 0.9, 2.5, 3.0])
    for lam in (0.2, 0.35):
        closed = float(dual_ode_end(v, lam, reach=15.0))
        _, nu = dual_ode_path(v, lam, reach=15.0)
        assert closed == pytest.approx(nu[-1], rel=1e-6, abs=1e-9)


def test_lemma_17_check_fails_when_the_bound_is_too_generous(monkeypatch):
    """Perturbation: with Lemma 17's bound replaced by 1.5 x the critical value for the
    symmetric k = 3 offsets, the signs fail, so the check can fail."""
    import math

    import numpy as np

    from proofs.multiselect import lemma_17_signs

    v = np.array([-math.log(4), 0.0, math.log(4)])
    assert all(lemma_17_signs(v, 0.40)) and not all(lemma_17_signs(v, 0.4566 * 1.5))
