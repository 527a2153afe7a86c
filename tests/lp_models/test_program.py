"""The solver layer: known optima and duals, strong duality, errors that carry the status."""

import itertools
from fractions import Fraction

import numpy as np
import pytest
import scipy.sparse as sp

from lp_models.program import (
    HighsModel,
    InvalidModelError,
    LinearProgram,
    SolverError,
    dual_objective,
    solve,
    to_cvxpy,
)

INF = np.inf


def production_lp(sense="max"):
    """max 3x + 5y s.t. x <= 4, 2y <= 12, 3x + 2y <= 18 (Hillier & Lieberman's Wyndor LP).

    Optimum x = 2, y = 6, value 36; shadow prices (0, 3/2, 1) by hand from the optimal basis.
    """
    A = sp.csc_matrix([[1.0, 0.0], [0.0, 2.0], [3.0, 2.0]])
    sign = 1 if sense == "max" else -1
    return LinearProgram(cost=sign * np.array([3.0, 5.0]), matrix=A,
                         row_lower=[-INF] * 3, row_upper=[4, 12, 18], sense=sense)


def covering_lp():
    """min x + y s.t. x + 2y >= 2, 3x + y >= 3: optimum (4/5, 3/5), value 7/5, duals (2/5, 1/5)
    (by hand: both rows active, y solves A.T y = c)."""
    A = sp.csc_matrix([[1.0, 2.0], [3.0, 1.0]])
    return LinearProgram(cost=[1, 1], matrix=A, row_lower=[2, 3], row_upper=[INF, INF])


@pytest.mark.parametrize("method", ["auto", "simplex", "ipm"])
def test_known_optimum_and_duals(method):
    s = solve(production_lp("max"), method)
    assert s.status == "Optimal"
    np.testing.assert_allclose(s.x, [2, 6], atol=1e-9)
    assert s.objective == pytest.approx(36, abs=1e-9)
    np.testing.assert_allclose(s.row_duals, [0, 1.5, 1], atol=1e-9)
    np.testing.assert_allclose(s.reduced_costs, [0, 0], atol=1e-9)


def test_pdlp_first_order_solution():
    """PDLP is a first-order method: optimal only to its tolerance (about 1e-8 here)."""
    s = solve(covering_lp(), "pdlp")
    np.testing.assert_allclose(s.x, [0.8, 0.6], atol=1e-7)
    np.testing.assert_allclose(s.row_duals, [0.4, 0.2], atol=1e-7)
    assert s.gap < 1e-7


def test_minimisation_mirrors_duals():
    s = solve(production_lp("min"), "simplex")
    assert s.objective == pytest.approx(-36, abs=1e-12)
    np.testing.assert_allclose(s.row_duals, [0, -1.5, -1], atol=1e-12)


def test_strong_duality_on_random_feasible_lps():
    """Random LPs built feasible and bounded: primal and recomputed dual agree to 1e-9."""
    rng = np.random.default_rng(7)
    for _ in range(20):
        m, n = rng.integers(3, 12), rng.integers(3, 12)
        A = sp.random(m, n, density=0.6, random_state=rng, format="csc")
        x0 = rng.uniform(0, 1, n)
        activity = A @ x0
        lp = LinearProgram(cost=rng.uniform(-1, 1, n), matrix=A,
                           row_lower=activity - rng.uniform(0, 1, m),
                           row_upper=activity + rng.uniform(0, 1, m),
                           col_lower=np.zeros(n), col_upper=np.full(n, 2.0))
        s = solve(lp, "simplex")
        assert s.gap <= 1e-9
        assert abs(s.objective - s.dual_objective) <= 1e-9 * max(1, abs(s.objective))


def test_kept_model_adds_rows_and_changes_bounds_like_a_fresh_solve():
    """Wyndor LP kept in one HighsModel: add the row x + y <= 7 (by hand: optimum (1, 6),
    value 33), then relax 2y <= 12 to 2y <= 14 (optimum (0, 7), value 35); each run gives
    what a fresh solve of the changed LP gives, and ``model.lp`` is that LP."""
    model = HighsModel(production_lp("max"), "simplex")
    assert model.run().objective == pytest.approx(36, abs=1e-9)
    model.add_rows(sp.csr_matrix([[1.0, 1.0]]), [-INF], [7.0])
    added = model.run()
    np.testing.assert_allclose(added.x, [1, 6], atol=1e-9)
    assert added.objective == pytest.approx(33, abs=1e-9)
    assert added.gap <= 1e-12
    assert model.lp.num_rows == 4
    model.change_row_bounds(np.array([1]), [-INF], [14.0])
    relaxed = model.run()
    np.testing.assert_allclose(relaxed.x, [0, 7], atol=1e-9)
    fresh = solve(model.lp, "simplex")
    assert relaxed.objective == pytest.approx(fresh.objective, abs=1e-12) == 35
    np.testing.assert_allclose(relaxed.row_duals, fresh.row_duals, atol=1e-12)
    with pytest.raises(InvalidModelError, match="columns"):
        model.add_rows(sp.csr_matrix([[1.0, 1.0, 1.0]]), [0.0], [1.0])


def test_refactor_run_recomputes_the_same_vertex():
    """A negative ``refactor_tolerance`` is exceeded by every point, so the final basis is
    factorised afresh and HiGHS runs again from it: the vertex, its value and its duals are
    those of the first solve, and the second run needs no pivot."""
    plain = HighsModel(production_lp("max"), "simplex").run()
    model = HighsModel(production_lp("max"), "simplex")
    refactored = model.run(refactor_tolerance=-1.0)
    np.testing.assert_allclose(refactored.x, [2, 6], atol=1e-12)
    assert refactored.objective == pytest.approx(36, abs=1e-12)
    np.testing.assert_allclose(refactored.row_duals, plain.row_duals, atol=1e-12)
    assert refactored.iterations == plain.iterations


def test_row_generation_on_a_kept_model_matches_the_full_lp():
    """Random covering LP solved by adding violated rows to one model, round after round:
    the same optimum as the full LP solved at once, with fewer rows."""
    rng = np.random.default_rng(11)
    A = sp.random(60, 8, density=0.5, random_state=rng, format="csr") + sp.csr_matrix(
        np.eye(60, 8))
    b = rng.uniform(1, 2, 60)
    full = LinearProgram(cost=rng.uniform(1, 2, 8), matrix=A, row_lower=b,
                         row_upper=np.full(60, INF))
    model = HighsModel(LinearProgram(cost=full.cost, matrix=A[:8], row_lower=b[:8],
                                     row_upper=np.full(8, INF)), "simplex")
    present = list(range(8))
    while True:
        sol = model.run()
        violated = np.setdiff1d(np.flatnonzero(A @ sol.x < b - 1e-9), present)
        if not violated.size:
            break
        model.add_rows(A[violated], b[violated], np.full(violated.size, INF))
        present += violated.tolist()
    assert sol.objective == pytest.approx(solve(full, "simplex").objective, rel=1e-10)
    assert full.max_violation(sol.x) <= 1e-9
    assert model.lp.num_rows == len(present) < 60


def test_dual_objective_by_hand_with_exact_fractions():
    lp = covering_lp()
    s = solve(lp, "simplex")
    exact_x = [Fraction(4, 5), Fraction(3, 5)]
    np.testing.assert_allclose(s.x, [float(v) for v in exact_x], atol=1e-14)
    np.testing.assert_allclose(s.row_duals, [0.4, 0.2], atol=1e-14)
    value, infeasibility = dual_objective(lp, np.array([0.4, 0.2]))
    assert value == pytest.approx(float(Fraction(7, 5)), abs=1e-15)
    assert infeasibility == 0
    # A multiplier of the wrong sign pairs with the infinite upper bound: no valid bound.
    bad, infeasibility = dual_objective(lp, np.array([-0.4, 0.2]))
    assert bad == -INF and infeasibility == pytest.approx(0.4)


def test_cvxpy_cross_check_of_objective_and_duals():
    rng = np.random.default_rng(3)
    A = sp.random(8, 6, density=0.7, random_state=rng, format="csc")
    x0 = rng.uniform(0, 1, 6)
    lp = LinearProgram(cost=rng.uniform(0.1, 1, 6), matrix=A, row_lower=A @ x0,
                       row_upper=np.full(8, INF))
    s = solve(lp, "simplex")
    model = to_cvxpy(lp)
    model.problem.solve(solver="CLARABEL", tol_gap_abs=1e-12, tol_gap_rel=1e-12,
                        tol_feas=1e-12)
    assert model.problem.value == pytest.approx(s.objective, abs=1e-7)
    np.testing.assert_allclose(model.row_duals(), s.row_duals, atol=1e-6)


def test_equality_rows_and_offset():
    """min 2a + b + 10 s.t. a + b = 1, a, b in [0, 1]: optimum b = 1, value 11."""
    lp = LinearProgram(cost=[2, 1], matrix=sp.csc_matrix([[1.0, 1.0]]), row_lower=[1],
                       row_upper=[1], col_upper=[1, 1], offset=10)
    s = solve(lp)
    assert s.objective == pytest.approx(11)
    assert s.dual_objective == pytest.approx(11)
    np.testing.assert_allclose(s.row_duals, [1.0])


def test_infeasible_raises_with_status_and_size():
    lp = LinearProgram(cost=[1], matrix=sp.csc_matrix([[1.0], [1.0]]),
                       row_lower=[2, -INF], row_upper=[INF, 1])
    with pytest.raises(SolverError) as info:
        solve(lp, "simplex")
    assert "Infeasible" in info.value.status
    assert (info.value.num_rows, info.value.num_cols) == (2, 1)
    assert "2 rows x 1 columns" in str(info.value)


def test_unbounded_raises():
    lp = LinearProgram(cost=[-1], matrix=sp.csc_matrix((0, 1)), row_lower=[], row_upper=[])
    with pytest.raises(SolverError) as info:
        solve(lp, "simplex")
    assert "nbounded" in info.value.status


def test_feasibility_is_checked_independently_of_the_status():
    """A point HiGHS calls optimal is still rejected if it breaks a bound by more than the
    tolerance (PDLP's first-order point violates a row by about 1e-9)."""
    with pytest.raises(SolverError) as info:
        solve(covering_lp(), "pdlp", feasibility_tolerance=1e-12)
    assert info.value.status == "Optimal but infeasible"


def test_warm_start_reaches_the_same_optimum():
    lp = production_lp()
    s = solve(lp, "simplex", warm_start=np.array([2.0, 6.0]))
    assert s.objective == pytest.approx(36)


@pytest.mark.parametrize("kwargs, match", [
    (dict(cost=[1, 2], matrix=sp.csc_matrix([[1.0]]), row_lower=[0], row_upper=[1]),
     "columns"),
    (dict(cost=[1], matrix=sp.csc_matrix([[1.0]]), row_lower=[2], row_upper=[1]),
     "exceeds"),
    (dict(cost=[np.nan], matrix=sp.csc_matrix([[1.0]]), row_lower=[0], row_upper=[1]),
     "finite"),
    (dict(cost=[1], matrix=sp.csc_matrix([[1.0]]), row_lower=[0], row_upper=[1],
          sense="maximise"), "sense"),
])
def test_invalid_models_are_rejected(kwargs, match):
    with pytest.raises(InvalidModelError, match=match):
        LinearProgram(**kwargs)


def test_bad_method_and_time_limit():
    with pytest.raises(ValueError, match="method"):
        solve(production_lp(), "barrier")
    with pytest.raises(ValueError, match="time_limit"):
        solve(production_lp(), time_limit=0)


def test_to_cvxpy_refuses_large_models():
    lp = LinearProgram(cost=np.ones(30), matrix=sp.csc_matrix((1, 30)), row_lower=[0],
                       row_upper=[1])
    with pytest.raises(ValueError, match="small models"):
        to_cvxpy(lp, max_cols=10)


# -- notebook display, frozen arrays, raw HiGHS, write errors ---------------------------------

def test_repr_and_html_of_a_large_lp_are_short_and_state_its_size():
    from lp_models.lattice import reduced_lattice_lp

    lp = reduced_lattice_lp(4, 4, 0.5)
    text = repr(lp)
    assert len(text) < 300
    assert f"num_rows={lp.num_rows}" in text and f"num_cols={lp.num_cols}" in text
    assert f"num_nonzeros={lp.num_nonzeros}" in text
    html = lp._repr_html_()
    blocks = ", ".join(f"{kind} {stop - start}" for kind, start, stop in lp.row_layout())
    assert f"<td style=\"text-align: left\">{lp.num_cols}</td>" in html
    assert blocks in html and sum(stop - start for _, start, stop in lp.row_layout()) \
        == lp.num_rows


def test_solution_repr_states_the_certificate_not_the_vectors():
    sol = solve(covering_lp())
    text = repr(sol)
    assert text.startswith("Solution(status='Optimal', objective=")
    assert f"gap={sol.gap!r}" in text and "array" not in text and len(text) < 400
    assert "dual_objective" in sol._repr_html_()


def test_solution_of_a_scaled_lp_shows_the_objective_in_its_units():
    """The lattice LP is solved as a mean error per score vector; the repr also shows the
    total error it stands for, which PF's pmf summed over every vector of Q gives (eps = 1,
    n = 3, k = 2: PF is the optimum there)."""
    from lp_models.lattice import reduced_lattice_lp
    from optmech.selection.mechanisms import PermuteAndFlip

    lp = reduced_lattice_lp(3, 2, 1.0, "lattice", "regular")
    sol = solve(lp)
    pf = PermuteAndFlip(1.0)
    total = sum(pf.expected_error(-2.0 * np.array(levels))
                for levels in itertools.product(range(3), repeat=3) if min(levels) == 0)
    assert lp.objective_scale == 19 and sol.objective_scale == 19
    assert sol.objective_in_units == pytest.approx(total, rel=1e-9)
    assert f"objective_in_units={sol.objective_in_units!r}" in repr(sol)
    assert "objective_units" in sol._repr_html_() and "units of Δ" in sol._repr_html_()
    assert "objective_in_units" not in repr(solve(covering_lp()))     # an unscaled LP


def test_arrays_of_a_frozen_lp_are_read_only_and_the_callers_are_not():
    cost = np.array([1.0, 1.0])
    lp = LinearProgram(cost=cost, matrix=sp.csc_matrix([[1.0, 2.0], [3.0, 1.0]]),
                       row_lower=[2, 3], row_upper=[INF, INF])
    for array in (lp.cost, lp.row_lower, lp.row_upper, lp.col_lower, lp.col_upper,
                  lp.matrix.data, lp.matrix.indices, lp.matrix.indptr):
        with pytest.raises(ValueError, match="read-only"):
            array[0] = 123
    assert cost.flags.writeable                       # the caller's array keeps its flags
    appended = lp.with_rows([[1.0, 1.0]], 0, 10)      # new programs are frozen too
    with pytest.raises(ValueError, match="read-only"):
        appended.row_upper[-1] = 0.0


def test_to_highs_hands_over_a_loaded_model_and_highs_model_keeps_the_checks():
    lp = production_lp()
    h = lp.to_highs("simplex")
    assert (h.getNumCol(), h.getNumRow(), h.getNumNz()) == (2, 3, 4)
    h.run()
    assert h.getInfo().objective_function_value == pytest.approx(36.0, rel=1e-12)
    model = HighsModel(lp)
    model.highs.setOptionValue("simplex_strategy", 4)          # primal simplex, not exposed
    assert model.highs.getOptionValue("simplex_strategy")[1] == 4
    sol = model.run()
    assert sol.objective == pytest.approx(36.0, rel=1e-12) and sol.gap < 1e-12


def test_write_into_a_missing_or_read_only_folder_says_which_and_why(tmp_path):
    import os

    lp = covering_lp()
    with pytest.raises(FileNotFoundError, match="folder .*missing.* does not exist"):
        lp.write(tmp_path / "missing" / "model.mps")
    (tmp_path / "dir.mps").mkdir()
    with pytest.raises(IsADirectoryError, match="it is a folder"):
        lp.write(tmp_path / "dir.mps")
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        if os.access(locked, os.W_OK):                        # root writes anyway
            pytest.skip("running as a user who can write into a read-only folder")
        with pytest.raises(PermissionError, match="not writable"):
            lp.write(locked / "model.lp")
    finally:
        locked.chmod(0o700)


def test_crossover_in_a_fresh_process_runs_highs_first():
    """``Highs.crossover`` crashes a process (SIGSEGV) in which no ``Highs.run()`` happened
    yet (highspy 1.11 to 1.16); ``HighsModel.crossover`` solves a one-column LP first.  A
    fresh interpreter whose first HiGHS call is the crossover must therefore end normally,
    with the hand-solved optimum of the covering LP (x = (4/5, 3/5), duals (2/5, 1/5)) as an
    optimal basis.  In a subprocess: without the guard the test process itself would die."""
    import subprocess
    import sys

    script = (
        "import numpy as np, scipy.sparse as sp\n"
        "from lp_models.program import HighsModel, LinearProgram\n"
        "lp = LinearProgram(cost=[1.0, 1.0], matrix=sp.csc_matrix([[1.0, 2.0], [3.0, 1.0]]),\n"
        "                   row_lower=[2.0, 3.0], row_upper=[np.inf, np.inf],\n"
        "                   col_lower=[0.0, 0.0], col_upper=[10.0, 10.0])\n"
        "model = HighsModel(lp, 'simplex')\n"
        "print(model.crossover(np.array([0.8, 0.6]), np.array([0.4, 0.2])))\n"
        "sol = model.run()\n"
        "print(sol.iterations, *sol.x, *sol.row_duals)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    status, values = done.stdout.strip().splitlines()[-2:]
    assert status == "Optimal"
    iterations, *numbers = values.split()
    assert int(iterations) == 0            # the crossover's basis is already optimal
    np.testing.assert_allclose([float(v) for v in numbers], [0.8, 0.6, 0.4, 0.2], atol=1e-12)


def test_a_basis_handed_over_is_where_the_simplex_starts():
    """The covering LP's optimal basis (both columns basic, both rows tight) set by hand:
    HiGHS confirms it in 0 iterations; the slack basis (both rows basic) needs pivots."""
    model = HighsModel(covering_lp(), "simplex")
    model.set_basis(np.array([True, True]), np.array([False, False]))
    sol = model.run()
    assert sol.iterations == 0
    np.testing.assert_allclose(sol.x, [0.8, 0.6], atol=1e-12)
    model = HighsModel(covering_lp(), "simplex")
    model.set_basis(np.array([False, False]), np.array([True, True]))
    assert model.run().iterations > 0
