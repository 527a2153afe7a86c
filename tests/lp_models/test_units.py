"""Objective units: ``lp.objective_in_units(lp.objective_value(x))`` is the documented
quantity, for every lattice builder and objective.

Independent reference: permute-and-flip's expected error on every score vector of the
bounded lattice, enumerated by brute force with the foundation's PF pmf
(:func:`optmech.selection.pf_probabilities.pf_probabilities`), against the LP's objective at
PF's point (recurrence (5)).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from lp_models.lattice import (
    delta_lattice_lp,
    full_lattice_lp,
    reduced_lattice_lp,
    relaxed_lattice_lp,
)
from lp_models.lattice.classes import lattice_classes
from lp_models.lattice.objectives import (
    class_error_matrix,
    with_max_objective,
    with_weighted_objective,
)
from lp_models.lattice.recurrences import pf_lattice_probabilities
from lp_models.scaling import scaled_program
from optmech.selection.pf_probabilities import pf_probabilities


def pf_errors(n, k, eps, step, cube=False):
    """``(level vectors, PF's expected error on each)``: every q of the bounded lattice
    once, or (``cube``) every vector of {0..k}^n shifted to its maximum."""
    vectors = np.array(list(itertools.product(range(k + 1), repeat=n)))
    levels = vectors - vectors.min(axis=1, keepdims=True)
    if not cube:
        levels = levels[vectors.min(axis=1) == 0]
    errors = np.array([pf_probabilities(-step * q, eps / 2) @ (step * q) for q in levels])
    return levels, errors


@pytest.mark.parametrize("n, k, eps", [(3, 3, 0.5), (4, 2, 1.3), (2, 4, 0.2)])
@pytest.mark.parametrize("weighting", ["lattice", "cube"])
def test_sum_objective_in_units_is_the_total_error(n, k, eps, weighting):
    _, errors = pf_errors(n, k, eps, 2.0, cube=weighting == "cube")
    total = errors.sum()
    pf = pf_lattice_probabilities(lattice_classes(n, k), eps)
    for normalise in (True, False):
        for lp in (reduced_lattice_lp(n, k, eps, weighting, normalise=normalise),
                   relaxed_lattice_lp(n, k, eps, weighting, normalise=normalise)):
            assert lp.objective_in_units(lp.objective_value(pf)) == pytest.approx(total,
                                                                                   rel=1e-13)
            assert lp.objective_scale == (len(errors) if normalise else 1.0)
            assert lp.objective_units.startswith(f"total expected error over Q ({weighting}")
    full = full_lattice_lp(n, k, eps, weighting)
    levels = full.metadata["levels"]
    x = np.concatenate([pf_probabilities(-2.0 * q, eps / 2) for q in levels])
    assert full.objective_in_units(full.objective_value(x)) == pytest.approx(total, rel=1e-13)


def test_delta_lattice_units():
    n, k, eps = 3, 3, 0.9
    _, errors = pf_errors(n, k, eps, 1.0)
    lp = delta_lattice_lp(n, k, eps)
    pf = pf_lattice_probabilities(lp.metadata["classes"], eps / 2)     # coins e^{-eps j / 2}
    assert lp.objective_in_units(lp.objective_value(pf)) == pytest.approx(errors.sum(),
                                                                          rel=1e-13)


def test_minimax_and_weighted_units():
    n, k, eps = 3, 3, 0.5
    levels, errors = pf_errors(n, k, eps, 2.0)
    lp = reduced_lattice_lp(n, k, eps)
    classes = lp.metadata["classes"]
    pf = pf_lattice_probabilities(classes, eps)
    class_errors = class_error_matrix(classes)
    minimax = with_max_objective(lp, class_errors, 6.0)
    point = np.append(pf, (class_errors @ pf).max())
    assert minimax.objective_in_units(minimax.objective_value(point)) == pytest.approx(
        errors.max(), rel=1e-13)
    assert minimax.objective_scale == 1.0 and minimax.objective_units.startswith("largest")
    rate = 0.5
    weights = classes.multiplicity * rate ** classes.depth       # prior rate^depth(q)
    weighted = with_weighted_objective(lp, class_errors, weights)
    expected = (rate ** levels.max(axis=1)) @ errors
    assert weighted.objective_in_units(weighted.objective_value(pf)) == pytest.approx(
        expected, rel=1e-13)


def test_scaling_and_new_objectives_keep_units_explicit():
    lp = reduced_lattice_lp(3, 2, 0.7)
    pf = pf_lattice_probabilities(lp.metadata["classes"], 0.7)
    scaled, _ = scaled_program(lp, pf, cost_scale=lp.objective_value(pf))
    z = np.ones(lp.num_cols)                                      # PF's point, scaled
    assert scaled.objective_value(z) == pytest.approx(1.0, rel=1e-14)
    assert scaled.objective_in_units(scaled.objective_value(z)) == pytest.approx(
        lp.objective_in_units(lp.objective_value(pf)), rel=1e-14)
    other = lp.with_objective(np.ones(lp.num_cols))
    assert (other.objective_scale, other.objective_units) == (1.0, "")
    with pytest.raises(ValueError, match="objective_scale"):
        lp.with_objective(lp.cost, scale=0.0)
