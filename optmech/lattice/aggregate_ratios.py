"""Ratios of PF, EM and report-noisy-max against the optimum of another objective or of the
Δ-lattice: ``objective(mechanism) / objective(optimum)``.

For ``objective="sum"`` on the 2Δ-lattice this is :func:`optmech.lattice.ratios.optimality_ratio`
(the paper's Figure 2 ratio).  For ``"max"`` it is the ratio of the largest expected errors
over ``Q``; for ``"weighted"`` of the weighted sums with the optimum's class weights.

On the Δ-lattice a level ``j`` is the score ``-jΔ``.  PF, EM and report-noisy-max depend on
``eps`` and the scores only through ``eps q / Δ``, so their probabilities on the
representative ``-jΔ`` at ``eps`` equal those on ``-2jΔ`` at ``eps / 2``:
:func:`optmech.lattice.ratios.class_errors` at ``eps / 2`` (2Δ-lattice units) halved gives the
expected errors in units of Δ.
"""

from __future__ import annotations

import numpy as np

from optmech.lattice.objectives import aggregate_error
from optmech.lattice.optimum import LatticeOptimum
from optmech.lattice.ratios import RATIO_MECHANISMS, class_errors
from optmech.selection.mechanisms import labelled_mechanisms, make_mechanism
from optmech.validation import check_choice

__all__ = ["mechanism_class_errors", "objective_ratios"]


def mechanism_class_errors(name: str, optimum: LatticeOptimum) -> np.ndarray:
    """Exact expected error (units of Δ) of mechanism ``name`` (``"pf"``, ``"em"``,
    ``"rnm_laplace"``) at the optimum's epsilon on every class of its lattice."""
    check_choice(name.replace("-", "_") if isinstance(name, str) else name, "mechanism",
                 RATIO_MECHANISMS)
    if optimum.lattice == "delta":
        return 0.5 * class_errors(make_mechanism(name, optimum.epsilon / 2.0), optimum.classes)
    return class_errors(make_mechanism(name, optimum.epsilon), optimum.classes)


def objective_ratios(optimum: LatticeOptimum, mechanisms=RATIO_MECHANISMS
                     ) -> dict[str, float]:
    """``objective(mechanism) / optimum.objective_value`` for each named mechanism, with
    the optimum's objective, lattice and class weights: ``mechanisms`` names (keyed by
    each in its one spelling) or a dict ``{label: name}``
    (:func:`~optmech.selection.mechanisms.labelled_mechanisms`)."""
    weights = optimum.objective_weights
    return {label: aggregate_error(mechanism_class_errors(name, optimum), optimum.objective,
                                   weights) / optimum.objective_value
            for label, name in labelled_mechanisms(mechanisms)}
