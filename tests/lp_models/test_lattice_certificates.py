"""Certificates of the reduced lattice LP (lp_models.lattice.certificates) and the dual
repair sweep (lp_models.lattice.dual_repair).

Independent references: the LP as a sparse matrix (``reduced_lattice_lp``) with
``lp_models.program.dual_objective`` and ``LinearProgram.max_violation``; the exact optimum
of ``solve_lattice`` (HiGHS, certified to 1e-7); a per-chain Python loop for the greedy
privacy multipliers; exact rational sums (``fractions``).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

from lp_models.lattice import monotonicity_pair_blocks, reduced_lattice_lp
from lp_models.lattice.certificates import (
    LatticeDual,
    LatticeUnits,
    lagrangian_bound,
    monotone_violation,
    objective_upper,
    primal_violation,
    reduced_costs,
)
from lp_models.lattice.classes import lattice_classes
from lp_models.lattice.dual_repair import repair_dual
from lp_models.lattice.recurrences import chain_dual, pf_lattice_probabilities
from lp_models.program import dual_objective
from optmech.lattice.optimum import solve_lattice


def seeded_lp(n, k, eps, weighting="lattice"):
    """The reduced LP with the monotonicity block the bracketing starts from (level 1)."""
    classes = lattice_classes(n, k)
    blocks = monotonicity_pair_blocks(classes)
    next(blocks), next(blocks)
    pairs = next(blocks)
    lp = reduced_lattice_lp(n, k, eps, weighting, "paper", classes=classes,
                            monotone_pairs=pairs)
    return classes, pairs, lp


def split(lp, y):
    c, p = lp.metadata["num_class_rows"], lp.metadata["num_privacy_rows"]
    return LatticeDual(y=y[:c], mu=y[c:c + p], pairs=lp.metadata["monotone_pairs"],
                       nu=y[c + p:])


@pytest.mark.parametrize("weighting", ["lattice", "cube"])
def test_bound_equals_the_lagrangian_of_the_sparse_lp(weighting):
    """For any multipliers (negative mu, nu clipped) the bound is the solver layer's
    dual_objective of the same LP, up to its rounding allowance."""
    classes, _, lp = seeded_lp(5, 4, 0.4, weighting)
    rng = np.random.default_rng(1)
    for scale in (1e-3, 1e-1, 10.0):
        y = rng.normal(size=lp.num_rows) * scale
        dual = split(lp, y)
        clipped = np.concatenate([dual.y, np.maximum(dual.mu, 0), np.maximum(dual.nu, 0)])
        reference, infeasibility = dual_objective(lp, clipped)
        assert infeasibility == 0.0
        bound = lagrangian_bound(LatticeUnits(classes, 0.4), lp.cost, dual)
        assert bound <= reference
        assert bound == pytest.approx(reference, rel=1e-12, abs=1e-12 * scale)


def test_reduced_costs_match_the_matrix():
    classes, _, lp = seeded_lp(4, 5, 0.7)
    y = np.random.default_rng(2).normal(size=lp.num_rows)
    dual = split(lp, y)
    clipped = np.concatenate([dual.y, np.maximum(dual.mu, 0), np.maximum(dual.nu, 0)])
    r, magnitude = reduced_costs(LatticeUnits(classes, 0.7), lp.cost, dual)
    assert np.allclose(r, lp.cost - lp.matrix.T @ clipped, rtol=0, atol=1e-13)
    assert (magnitude >= np.abs(r) - 1e-15).all()


@pytest.mark.parametrize("n, k, eps", [(4, 4, 0.5), (5, 5, 0.3), (5, 3, 0.1)])
def test_random_multipliers_never_bound_above_the_optimum(n, k, eps):
    """The bound is valid for *any* multipliers: random ones, the exact optimum's own
    multipliers perturbed, and those after the repair sweep stay below the optimum."""
    classes, pairs, lp = seeded_lp(n, k, eps)
    opt = solve_lattice(n, k, eps).total_error / lp.objective_scale
    rng = np.random.default_rng(3)
    lam, mu = chain_dual(classes, eps, lp.cost)
    for trial in range(20):
        noise = rng.normal(size=lp.num_rows) * 10.0 ** rng.uniform(-6, 0)
        base = np.concatenate([lam, mu[lp.metadata["privacy_source"]], np.zeros(pairs[0].size)])
        dual = split(lp, base + noise * np.abs(base).max())
        assert lagrangian_bound(LatticeUnits(classes, eps), lp.cost, dual) <= opt
        repaired = repair_dual(LatticeUnits(classes, eps), lp.cost, dual.y, pairs, dual.nu)
        assert lagrangian_bound(LatticeUnits(classes, eps), lp.cost, repaired) <= opt


def greedy_chain_multipliers(classes, eps, cost, y, pairs, nu):
    """mu_t = max(0, S_t) along every chain, chain by chain in plain Python."""
    nu = np.maximum(nu, 0)
    base = cost - classes.var_count * y[classes.var_class]
    np.subtract.at(base, pairs[0], nu)
    np.add.at(base, pairs[1], nu)
    mu = np.zeros(classes.num_variables)
    for start in np.flatnonzero(classes.var_prev < 0):
        v, carried = int(start), 0.0
        while v >= 0:
            s = base[v] + math.exp(-eps) * carried
            carried = max(0.0, s) if classes.var_next[v] >= 0 else 0.0
            mu[v] = carried
            v = int(classes.var_next[v])
    return mu[np.flatnonzero(classes.var_next >= 0)]


def test_repair_makes_every_reduced_cost_nonnegative_and_only_gains():
    classes, pairs, lp = seeded_lp(5, 5, 0.5)
    rng = np.random.default_rng(4)
    lam, _ = chain_dual(classes, 0.5, lp.cost)
    for trial in range(5):
        y = lam * (1 + rng.normal(size=lam.size) * 0.05)
        nu = np.abs(rng.normal(size=pairs[0].size)) * 1e-3
        repaired = repair_dual(LatticeUnits(classes, 0.5), lp.cost, y, pairs, nu)
        assert (repaired.y <= y).all()                        # y only went down
        reduced = lp.cost - lp.matrix.T @ repaired.row_multipliers()
        assert reduced.min() >= -1e-15 * np.abs(lp.cost).max()
        assert lagrangian_bound(LatticeUnits(classes, 0.5), lp.cost, repaired) == pytest.approx(
            repaired.y.sum(), rel=1e-12)
        # its bound beats the plain greedy multipliers on the same y
        greedy = LatticeDual(y=y, mu=greedy_chain_multipliers(classes, 0.5, lp.cost, y,
                                                              pairs, nu),
                             pairs=pairs, nu=nu)
        assert lagrangian_bound(LatticeUnits(classes, 0.5), lp.cost, repaired) >= lagrangian_bound(
            LatticeUnits(classes, 0.5), lp.cost, greedy)


def test_repaired_pf_dual_certifies_pf_above_the_threshold():
    """Above the chain-dual threshold PF's own basis dual is feasible: the repair leaves it
    (nothing to lower) and the bound equals PF's value."""
    classes, pairs, lp = seeded_lp(5, 4, 1.0)
    lam, _ = chain_dual(classes, 1.0, lp.cost)
    repaired = repair_dual(LatticeUnits(classes, 1.0), lp.cost, lam, pairs, np.zeros(pairs[0].size))
    pf = pf_lattice_probabilities(classes, 1.0)
    assert np.allclose(repaired.y, lam, rtol=1e-12, atol=0)
    assert lagrangian_bound(LatticeUnits(classes, 1.0), lp.cost, repaired) == pytest.approx(
        lp.cost @ pf, rel=1e-12)


def test_primal_violation_sees_every_row_of_the_regular_lp():
    classes = lattice_classes(4, 4)
    full = reduced_lattice_lp(4, 4, 0.5, constraints="regular", classes=classes)
    rng = np.random.default_rng(5)
    pf = pf_lattice_probabilities(classes, 0.5)
    for x in (pf, pf * (1 + 1e-3 * rng.normal(size=pf.size)), rng.uniform(0, 1, pf.size)):
        assert primal_violation(LatticeUnits(classes, 0.5), x, True) == pytest.approx(
            full.max_violation(x), rel=1e-12, abs=1e-15)
    assert primal_violation(LatticeUnits(classes, 0.5), pf, True) <= 1e-15
    # Appendix D's optimum satisfies its own rows but not the monotonicity rows
    paper = solve_lattice(4, 4, 0.5, constraints="paper").probabilities
    assert primal_violation(LatticeUnits(classes, 0.5), paper, False) <= 1e-12
    assert monotone_violation(LatticeUnits(classes, 0.5), paper) > 1e-3
    assert primal_violation(LatticeUnits(classes, 0.5), paper, True) == pytest.approx(
        full.max_violation(paper), rel=1e-12)


def test_bad_dual_shapes_are_refused():
    classes, pairs, lp = seeded_lp(4, 3, 0.5)
    dual = split(lp, np.zeros(lp.num_rows))
    with pytest.raises(ValueError, match="mu"):
        lagrangian_bound(LatticeUnits(classes, 0.5), lp.cost,
                         LatticeDual(y=dual.y, mu=dual.mu[1:], pairs=pairs, nu=dual.nu))
    with pytest.raises(ValueError, match="finite"):
        lagrangian_bound(LatticeUnits(classes, 0.5), lp.cost,
                         LatticeDual(y=dual.y + np.nan, mu=dual.mu, pairs=pairs, nu=dual.nu))


@pytest.mark.parametrize("lattice, eps", [("2delta", 0.4), ("2delta", 30.0), ("delta", 3.0)])
def test_scaled_units_give_the_same_lp_and_the_same_bound(lattice, eps):
    """In units relative to PF (LatticeUnits.relative), the builder's LP has the same optimum
    (HiGHS on both), and the certificate's bound for any multipliers is the solver layer's
    dual_objective of that LP (a sparse matrix built separately), up to its rounding."""
    from lp_models.lattice import delta_lattice_lp
    from lp_models.program import solve

    classes = lattice_classes(4, 3)
    units = LatticeUnits.relative(classes, eps, lattice)
    blocks = monotonicity_pair_blocks(classes)
    pairs = next(blocks)
    build = delta_lattice_lp if lattice == "delta" else reduced_lattice_lp
    extra = {} if lattice == "delta" else {"constraints": "paper"}
    plain = build(4, 3, eps, classes=classes, monotone_pairs=pairs, **extra)
    scaled = build(4, 3, eps, classes=classes, monotone_pairs=pairs,
                   log_scale=units.log_scale, **extra)
    if eps < 10:          # unscaled, HiGHS's absolute tolerances are meaningless at eps = 30
        assert plain.objective_in_units(solve(plain).objective) == pytest.approx(
            scaled.objective_in_units(solve(scaled).objective), rel=1e-8)
    rng = np.random.default_rng(8)
    for size in (1e-3, 1.0):
        y = rng.normal(size=scaled.num_rows) * size
        c, p = classes.num_classes, units.privacy[0].size
        dual = LatticeDual(y=y[:c], mu=np.maximum(y[c:c + p], 0), pairs=pairs,
                           nu=np.maximum(y[c + p:], 0))
        finite = np.isfinite(scaled.col_upper).all()
        reference, _ = dual_objective(scaled, dual.row_multipliers())
        bound = lagrangian_bound(units, scaled.cost, dual)
        assert bound <= reference or not finite
        if finite:
            assert bound == pytest.approx(reference, rel=1e-10, abs=1e-12)


def test_scaled_coefficients_are_normal_doubles_at_eps_700():
    classes = lattice_classes(4, 4)
    for lattice, largest in (("2delta", 1.0), ("delta", 4.0)):     # PF meets its rows
        units = LatticeUnits.relative(classes, 700.0, lattice)
        coefs = [units.privacy[2], *(q for _, _, q in units.monotone_blocks())]
        for coef in coefs:
            assert (coef >= np.exp(-700.0) * (1 - 1e-9)).all()
            assert (coef <= largest * (1 + 1e-12)).all()
    assert (LatticeUnits.relative(classes, 700.0).class_coef == 0).any()   # deep levels


def test_objective_upper_is_never_below_the_exact_sum():
    """``cost @ x`` rounded upwards against the exact rational sum of the stored numbers'
    products, for sums that cancel and for long positive sums; it stays within a few ulps
    of the magnitudes involved."""
    rng = np.random.default_rng(11)
    for size, signed in ((10, True), (2000, True), (5000, False)):
        cost = rng.uniform(-1 if signed else 0, 1, size) * 10.0 ** rng.integers(-8, 8, size)
        x = rng.uniform(0, 1, size)
        exact = sum(Fraction(c) * Fraction(v) for c, v in zip(cost.tolist(), x.tolist()))
        upper = objective_upper(cost, x)
        assert Fraction(upper) >= exact
        assert upper - float(exact) <= 8 * 2.0 ** -52 * float(np.abs(cost * x).sum())
