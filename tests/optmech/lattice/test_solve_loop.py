"""optmech.lattice.solve_loop: the HiGHS rounds behind the certified optimum.

Independent reference: the reduced LP solved directly by the foundation's ``solve`` (and by
HiGHS's interior point for the long simplex run).
"""

from __future__ import annotations

import numpy as np
import pytest

from lp_models.lattice import reduced_lattice_lp
from lp_models.lattice.certificates import LatticeUnits
from lp_models.lattice.classes import lattice_classes
from lp_models.lattice.recurrences import pf_lattice_probabilities
from lp_models.program import HighsModel, SolverError, solve
from optmech.lattice.optimum import solve_lattice
from optmech.lattice.solve_loop import pair_keys, solve_with_highs, violated_monotone_rows

TIGHT = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}


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


def test_rows_already_in_the_model_are_not_generated_again():
    """The filter behind row generation, on a point violating many monotonicity rows: the
    rows it reports with half of them declared present are exactly the other half (checked
    against the rows' own inequalities); the whole n = k = 7 solve is the slow test below."""
    classes = lattice_classes(4, 4)
    units = LatticeUnits(classes, 0.3)
    x = np.random.default_rng(3).uniform(0.5, 1.5, classes.num_variables)
    a, b = violated_monotone_rows(units, x, np.zeros(0, dtype=np.int64))
    blocks = list(units.monotone_blocks())
    violated = {(int(i), int(j)) for rows_a, rows_b, coef in blocks
                for i, j, c in zip(rows_a, rows_b, np.broadcast_to(coef, rows_a.shape))
                if c * x[j] - x[i] > 5e-13 * (abs(x[i]) + abs(c * x[j]))}
    assert set(zip(a.tolist(), b.tolist())) == violated and len(violated) > 20
    present = pair_keys(classes, a[::2], b[::2])
    again_a, again_b = violated_monotone_rows(units, x, present)
    assert set(zip(again_a.tolist(), again_b.tolist())) == set(zip(a[1::2].tolist(),
                                                                   b[1::2].tolist()))


@pytest.mark.slow
def test_row_generation_adds_each_monotonicity_row_once():
    """n = k = 7, eps = 0.3: rows already in the model were re-added when HiGHS left them
    violated by a relative 1e-12 (inside its absolute tolerance): 22 duplicates of 3915
    (without the filter, measured: none at (n, k) = (6, 6), (6, 5), (5, 6), (6, 4), (5, 5)
    for eps = 0.1 to 0.5, so no smaller solve shows it).  Slow (5 CPU s); the filter itself
    is checked in the default run by test_rows_already_in_the_model_are_not_generated_again."""
    classes = lattice_classes(7, 7)
    pf = pf_lattice_probabilities(classes, 0.3)
    _, certify_lp, _, _, _ = solve_with_highs(classes, 0.3, "lattice", pf, True, "simplex", None)
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
        lp.objective_in_units(direct.objective), rel=1e-9)
    assert optimum.gap <= 1e-9
