"""optmech.lattice.bound: certified brackets on the lattice LP's optimum.

Independent references: the exact optimum of ``solve_lattice`` (HiGHS, certified to 1e-7)
and its optimality ratios; the full regular LP as a sparse matrix
(``LinearProgram.max_violation`` over every row); the realised privacy loss of
``optmech.selection.privacy`` on every in-lattice neighbour.
"""

from __future__ import annotations

import functools
import time

import numpy as np
import pytest

from lp_models.lattice import reduced_lattice_lp, variable_costs
from lp_models.lattice.certificates import LatticeDual, LatticeUnits, lagrangian_bound
from optmech.lattice.bound import (
    LatticeBracket,
    bound_lattice,
    bound_sweep,
    bound_with_ratios,
    bracket_ratios,
)
from optmech.lattice.optimum import realised_privacy_loss, solve_lattice
from optmech.lattice.ratios import optimality_ratios
from optmech.validation import InvalidArgumentError

# The reference optimum, solved once per module: several tests bracket the same LP.
exact_optimum = functools.lru_cache(maxsize=None)(solve_lattice)

# tol per size keeps each cell under a second; the exact optima at n = k = 7 below eps = 0.5
# take ~3 s each (HiGHS), hence slow; so is n = 6 at eps = 0.1 (1.5 CPU s, the dearest cell
# left), whose size and epsilon the default run keeps at n = 6, eps = 0.3 and n = 5, eps = 0.1
_SLOW_CELLS = {(7, 0.3), (7, 0.1), (6, 0.1)}
_GRID = [pytest.param(n, eps, tol, marks=[pytest.mark.slow] if (n, eps) in _SLOW_CELLS else [])
         for n, tol in ((4, 1e-6), (5, 1e-5), (6, 1e-3), (7, 1e-2)) for eps in (0.5, 0.3, 0.1)]


@pytest.mark.parametrize("n, eps, tol", _GRID)
def test_bracket_contains_the_exact_optimum(n, eps, tol):
    bracket = bound_lattice(n, n, eps, tol=tol)
    optimum = exact_optimum(n, n, eps)
    assert bracket.lower <= optimum.total_error <= bracket.upper
    assert bracket.status == "converged" and bracket.relative_width <= tol
    assert bracket.relative_width == pytest.approx(
        (bracket.upper - bracket.lower) / bracket.lower, rel=1e-12)
    # never above PF's value, but for the upward rounding margin of the certified sum
    assert bracket.upper <= bracket.pf_total_error * (1 + 2 * bracket.num_variables * 2.0**-52)
    # the upper point satisfies every row of the regular LP (a matrix built separately)
    full = reduced_lattice_lp(n, n, eps, constraints="regular")
    assert full.max_violation(bracket.probabilities) <= 1e-12
    assert bracket.num_constraints == full.num_rows
    assert bracket.num_variables == full.num_cols


@pytest.mark.parametrize("weighting, constraints", [("cube", "regular"), ("lattice", "paper"),
                                                    ("cube", "paper")])
def test_other_weightings_and_constraint_sets(weighting, constraints):
    bracket = bound_lattice(5, 4, 0.4, tol=1e-5, weighting=weighting, constraints=constraints)
    optimum = exact_optimum(5, 4, 0.4, weighting=weighting, constraints=constraints)
    assert bracket.lower <= optimum.total_error <= bracket.upper
    assert bracket.relative_width <= 1e-5


def test_lower_bound_is_recomputed_from_the_returned_dual_and_robust_to_perturbation():
    """The returned multipliers give the returned lower bound by the certificate alone;
    random perturbations (any sign, any size) keep the bound below the exact optimum."""
    bracket = bound_lattice(5, 5, 0.5, tol=1e-6)
    optimum = exact_optimum(5, 5, 0.5)
    classes = bracket.classes
    cost = variable_costs(classes, "lattice") / bracket.objective_scale
    units = LatticeUnits(classes, 0.5)
    assert lagrangian_bound(units, cost, bracket.dual) * bracket.objective_scale \
        == pytest.approx(bracket.lower, rel=1e-12)
    rng = np.random.default_rng(7)
    dual = bracket.dual
    for size in (1e-9, 1e-6, 1e-3, 1e-1):
        for _ in range(5):
            def jitter(v, size=size):
                return v + rng.normal(size=v.size) * size * np.abs(v).max()
            perturbed = LatticeDual(y=jitter(dual.y), mu=jitter(dual.mu), pairs=dual.pairs,
                                    nu=jitter(dual.nu))
            value = lagrangian_bound(units, cost, perturbed) * bracket.objective_scale
            assert value <= optimum.total_error


def test_time_limit_returns_a_certified_wider_bracket():
    optimum = exact_optimum(7, 7, 0.5)
    bracket = bound_lattice(7, 7, 0.5, tol=1e-9, time_limit=0.3)
    assert bracket.status == "time_limit" and bracket.relative_width > 1e-9
    assert bracket.lower <= optimum.total_error <= bracket.upper


def test_pf_is_certified_at_once_above_the_threshold():
    bracket = bound_lattice(6, 5, 1.0)
    assert bracket.status == "converged" and bracket.iterations == 0
    assert bracket.relative_width <= 1e-12
    assert bracket.upper == pytest.approx(bracket.pf_total_error, rel=1e-12)


def test_ratio_brackets_contain_the_exact_ratios():
    bracket = bound_lattice(6, 6, 0.5, tol=1e-4)
    exact = optimality_ratios(exact_optimum(6, 6, 0.5))
    brackets = bracket_ratios(bracket)
    assert set(brackets) == {"pf", "em", "rnm_laplace"}
    for name, (lo, hi) in brackets.items():
        assert lo <= exact[name] <= hi
        assert hi / lo - 1 == pytest.approx(bracket.relative_width, rel=1e-9)
    assert brackets["pf"][0] > 1                 # PF is not optimal at eps = 0.5


def test_upper_mechanism_is_private():
    """The mechanism achieving the upper bound is eps-DP on the bounded lattice, measured
    from its pmf on every in-lattice neighbour (not from the LP's rows)."""
    bracket = bound_lattice(4, 4, 0.5, tol=1e-6)
    assert isinstance(bracket, LatticeBracket)
    assert realised_privacy_loss(bracket) <= 0.5 * (1 + 1e-9)
    pmf = bracket.mechanism().pmf([0.0, -2.0, -2.0, -6.0])
    assert pmf.sum() == pytest.approx(1.0, abs=1e-12)


def test_sweep_gives_bands_around_the_exact_ratios(tmp_path):
    bands = bound_sweep([4], [3], [0.2, 0.5, 1.5], mechanisms=["pf", "em"], tol=1e-5,
                        cache_dir=tmp_path)
    (band,) = bands
    assert band.ratios["pf"].shape == (3, 2) and band.status == ("converged",) * 3
    for i, eps in enumerate(band.epsilons):
        optimum = exact_optimum(4, 3, eps)
        exact = optimality_ratios(optimum, ["pf", "em"])
        for name in ("pf", "em"):      # T / OPT with OPT in the optimum's own bracket
            lo, hi = band.ratios[name][i]
            assert lo <= exact[name] * optimum.total_error / optimum.lower_bound
            assert exact[name] <= hi
    again = bound_sweep([4], [3], [0.2, 0.5, 1.5], mechanisms=["pf", "em"], tol=1e-5,
                        cache_dir=tmp_path)[0]
    assert np.array_equal(again.ratios["pf"], band.ratios["pf"])


@pytest.mark.parametrize("bad", [{"tol": 0.0}, {"tol": 1.0}, {"tol": float("nan")},
                                 {"time_limit": -1.0}, {"n": 1}, {"k": 0},
                                 {"epsilon": 0.0}, {"weighting": "box"},
                                 {"constraints": "dp"}, {"n": 40, "k": 40}])
def test_bad_arguments_name_the_argument(bad):
    args = {"n": 4, "k": 3, "epsilon": 0.5, **bad}
    n, k, eps = args.pop("n"), args.pop("k"), args.pop("epsilon")
    with pytest.raises(InvalidArgumentError):
        bound_lattice(n, k, eps, **args)


def test_your_own_mechanisms_get_brackets_like_the_built_in_ones():
    """A PmfMechanism of PF (and a plain pmf function of EM) gets the same bracket as the
    built-in name: its total error comes from its pmf on every class, not PF's recurrence."""
    from optmech.selection.mechanisms import ExponentialMechanism, PermuteAndFlip, PmfMechanism

    bracket = bound_lattice(5, 4, 0.5, tol=1e-5)
    mine = PmfMechanism(PermuteAndFlip(0.5).pmf, epsilon=0.5, name="my-pf")

    def my_em(scores):
        return ExponentialMechanism(0.5).pmf(scores)

    ratios = bracket_ratios(bracket, ["pf", "em", mine, my_em])
    assert set(ratios) == {"pf", "em", "my-pf", "my_em"}
    assert ratios["my-pf"] == pytest.approx(ratios["pf"], rel=1e-12)
    assert ratios["my_em"] == pytest.approx(ratios["em"], rel=1e-12)
    exact = optimality_ratios(exact_optimum(5, 4, 0.5), [mine])["my-pf"]
    assert ratios["my-pf"][0] <= exact <= ratios["my-pf"][1]
    with pytest.raises(InvalidArgumentError):
        bracket_ratios(bracket, [PermuteAndFlip(0.7)])          # another epsilon


def test_a_dict_of_mechanisms_is_labels_to_mechanisms():
    """The call of the docstring: a dict maps labels to mechanisms ("mine" is no name)."""
    from optmech.selection.mechanisms import PermuteAndFlip, PmfMechanism

    bracket = bound_lattice(3, 2, 0.5, tol=1e-6)
    my_mechanism = PmfMechanism(PermuteAndFlip(0.5).pmf, epsilon=0.5)
    ratios = bracket_ratios(bracket, {"mine": my_mechanism, "pf": "pf"})
    assert list(ratios) == ["mine", "pf"]
    assert ratios["mine"] == pytest.approx(ratios["pf"], rel=1e-12)


def test_sweep_takes_mechanism_factories():
    from optmech.selection.mechanisms import PermuteAndFlip, PmfMechanism

    def mine(eps):
        return PmfMechanism(PermuteAndFlip(eps).pmf, epsilon=eps)

    (band,) = bound_sweep([4], [3], [0.3, 0.6], mechanisms={"PF": "pf", "mine": mine},
                          tol=1e-6)
    assert list(band.ratios) == ["PF", "mine"]
    assert np.allclose(band.ratios["mine"], band.ratios["PF"], rtol=1e-12)


def test_progress_callback_sees_the_bracket_narrow():
    from lp_models.lattice.bracket import bracket_lattice_lp
    from lp_models.lattice.classes import lattice_classes

    seen = []       # n = 5 already reports 9 narrowing steps (n = 6: 11, at 3 times the cost)
    run = bracket_lattice_lp(lattice_classes(5, 5), 0.5, tol=1e-5,
                             callback=lambda *entry: seen.append(entry))
    assert seen == list(run.history) and len(seen) >= 3
    lowers, uppers = [e[2] for e in seen], [e[3] for e in seen]
    assert lowers == sorted(lowers) and uppers == sorted(uppers, reverse=True)
    assert run.converged and uppers[-1] < uppers[0]         # the polished point beat PF


def test_the_first_polish_beats_pf():
    """Polishing against every monotonicity row: the first polished point of an iterate
    300 steps away from PF is better than PF (with only the generated rows it never was:
    the repair mixed in most of the anchor)."""
    from lp_models.lattice.bracket import _SANE_VIOLATION, _Bracketing
    from lp_models.lattice.classes import lattice_classes

    run = _Bracketing(lattice_classes(7, 7), 0.5, "lattice", True, np.float32)
    pf_value = run.upper
    run.solver.iterate(300)
    assert run.noise() <= _SANE_VIOLATION
    run.polish(None)
    assert run.upper < pf_value * (1 - 1e-3)
    full = reduced_lattice_lp(7, 7, 0.5, constraints="regular")
    assert full.max_violation(run.point) <= 1e-12
    assert run.upper == pytest.approx(full.objective_value(run.point), rel=1e-12)


def test_single_precision_goes_on_in_double_when_it_stalls(monkeypatch):
    """At n = 5, eps = 0.1 single-precision PDHG stops narrowing near a width of 2e-5: asked
    for 1e-6 in single precision, the run switches to double and still converges, its
    bracket holding the exact optimum.  n = k = 4, eps = 0.05 switches the same way
    (measured) in a sixth of the CPU time."""
    import lp_models.lattice.bracket as bracketing
    from lp_models.lattice.classes import lattice_classes

    switches = []
    original = bracketing._Bracketing.to_double

    def to_double(run):
        switches.append(run.dtype)
        original(run)

    monkeypatch.setattr(bracketing, "SINGLE_PRECISION_TOL", 1e-6)
    monkeypatch.setattr(bracketing._Bracketing, "to_double", to_double)
    run = bracketing.bracket_lattice_lp(lattice_classes(4, 4), 0.05, tol=1e-6)
    assert switches == [np.float32] and run.converged and run.relative_width <= 1e-6
    optimum = exact_optimum(4, 4, 0.05)
    scale = reduced_lattice_lp(4, 4, 0.05).objective_scale
    assert run.lower * scale <= optimum.total_error * (1 + 1e-9)
    assert run.upper * scale >= optimum.total_error * (1 - 1e-9)


@pytest.mark.parametrize("tol, dtype", [(1e-4, np.float32), (1e-5, np.float64)])
def test_precision_follows_the_tolerance(monkeypatch, tol, dtype):
    import lp_models.lattice.bracket as bracketing
    from lp_models.lattice.classes import lattice_classes

    seen = []
    original = bracketing._Bracketing.__init__

    def init(run, *args):
        original(run, *args)
        seen.append(run.solver.a.dtype)

    monkeypatch.setattr(bracketing._Bracketing, "__init__", init)
    assert bracketing.bracket_lattice_lp(lattice_classes(4, 4), 0.5, tol=tol).converged
    assert seen == [dtype]


@pytest.mark.parametrize("n, k, eps", [(5, 5, 0.5), (6, 4, 0.3)])
def test_the_exact_finish_gives_the_certified_optimum(n, k, eps):
    """``exact=True``: the bracket at width 1e-4 is finished by HiGHS's simplex from its
    PDHG point; against the exact optimum of ``solve_lattice`` (its own HiGHS path)."""
    bracket = bound_lattice(n, k, eps, exact=True)
    optimum = exact_optimum(n, k, eps)
    assert bracket.status == "exact" and bracket.relative_width <= 1e-9
    assert bracket.lower <= optimum.total_error * (1 + 1e-9)
    assert bracket.upper == pytest.approx(optimum.total_error, rel=1e-9)
    full = reduced_lattice_lp(n, k, eps, constraints="regular")
    assert full.max_violation(bracket.probabilities) <= 1e-12
    cost = variable_costs(bracket.classes, "lattice") / bracket.objective_scale
    assert lagrangian_bound(LatticeUnits(bracket.classes, eps), cost, bracket.dual) \
        * bracket.objective_scale == pytest.approx(bracket.lower, rel=1e-12)


def test_a_failed_finish_leaves_the_certified_bracket(monkeypatch):
    import optmech.lattice.optimum as optimum_module

    def fail(*args, **kwargs):
        raise optimum_module.SolverError("forced", status="Time limit reached", num_rows=1,
                                         num_cols=1, num_nonzeros=None, method="pdhg")

    monkeypatch.setattr(optimum_module, "finish_with_highs", fail)
    bracket = bound_lattice(5, 5, 0.5, exact=True)
    assert bracket.status == "converged" and bracket.relative_width <= 1e-4
    assert bracket.lower <= exact_optimum(5, 5, 0.5).total_error <= bracket.upper


def test_a_tolerance_finer_than_double_precision_certifies_is_refused():
    with pytest.raises(InvalidArgumentError, match="tol"):
        bound_lattice(4, 4, 0.5, tol=1e-16)
    with pytest.raises(InvalidArgumentError, match="tol"):
        bound_sweep([4], [4], [0.5], tol=1e-300)


def test_a_time_limit_shorter_than_building_the_bracket_is_refused_up_front():
    """n = k = 12 (9.1 million variables): building the table and certifying take far more
    than 10 s; refused before anything is built."""
    with pytest.raises(InvalidArgumentError, match="time_limit"):
        bound_lattice(12, 12, 0.5, time_limit=10)


def test_the_ratios_come_first_and_stop_at_the_deadline():
    from optmech.lattice.ratios import mechanism_totals

    with pytest.raises(TimeoutError, match="rnm_laplace"):
        mechanism_totals(["rnm_laplace"], 0.5, 5, 5, "lattice", deadline=time.perf_counter())
    bracket, ratios = bound_with_ratios(5, 5, 0.5, ["pf", "em"], tol=1e-4)
    assert ratios == bracket_ratios(bracket, ["pf", "em"])
