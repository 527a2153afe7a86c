"""Reproduce the multi-selection paper's numbers (Goel et al. 2025, arXiv:2407.14641).

Rows: the Appendix B closed form and the Figure 3 offsets; the printed dual-fitting
threshold of Section 2.3; the dual differential equation (18) of Lemma 17 and its two
solutions in Figure 3; the discretised DILP on the line against the closed forms (Theorem
19), with one result against the discrete Laplace (the example DILP (9)); the ring of
Appendix A.2 at eps = 3/8 and eps = 1; Figures 2 and 4; the discretised LP under
g-geographic DP (Appendix A.1, Theorem 22); checks of our own (the invariance reduction,
Monte Carlo, the Appendix A.3 quantile offsets).

Two ring numbers differ from the paper, with reasons computed here:

* eps = 3/8: results at ``s`` and ``s + pi`` with noise density ``∝ e^{-eps min(|x|, pi-|x|)}``
  is eps-geographic DP on the ring and costs exactly
  ``(1 - (1 + eps pi/2) e^{-eps pi/2}) / (eps (1 - e^{-eps pi/2})) = 0.70873``; the LP
  converges to it, below the paper's 0.72.
* eps = 1: the LP's optimal noise has two peaks (density ``∝ e^{-eps ||x| - x0|}``, results
  at ``+-g/2``), which beats the best Laplace noise by 0.0013; the paper's Figure 4 calls
  Laplace optimal there, a difference too small to see in a plot.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from scipy import integrate, optimize

from lp_models.dilp import ring_dilp, ring_dilp_per_user
from lp_models.program import LinearProgram, solve
from optmech.figures import save_figure
from optmech.figures.multiselect import dual_ode_figure, laplace_offsets_figure, ring_noise_figure
from optmech.multiselect.dilp import solve_dilp
from optmech.multiselect.noise import expected_cost, quantile_cost_bound, quantile_offsets
from optmech.multiselect.offsets import closed_form_cost, optimal_response
from optmech.multiselect.protocol import MultiSelection
from optmech.reproduce import Result, claim_result, compare, new_result
from proofs.multiselect import critical_lambda, dual_ode_end, dual_ode_path
from proofs.papers import cite

AREA = "multiselect"
KEYS = frozenset({
    "appendix-b-f-1-5", "figure-3-k3-offsets", "section-2-3-2-constant", "line-dilp-k3-primal",
    "line-dilp-k3-dual", "line-dilp-k2-primal", "line-dilp-k2-dual", "line-dilp-k1",
    "ring-3/8-optimal", "ring-3/8-laplace", "ring-1-laplace-optimal", "figure-2-k5",
    "figure-3-lambda-0.40", "figure-3-lambda-0.46", "lemma-17-boundary",
    "theorem-22-discrete-lp", "protocol-monte-carlo", "theorem-24-quantile-offsets",
    "line-dilp-k3-laplace-gap", "line-dilp-k2-laplace-gap", "even-k-closed-form-k2",
    "even-k-closed-form-k4", "even-k-closed-form-k6", "ring-per-user-lp",
})
FULL_ONLY_KEYS = frozenset()


def source(where: str) -> str:
    return cite("multi-selection", where)


def antipodal_ring_cost(epsilon: float) -> float:
    """Cost of results ``{s, s + pi}`` with noise ``∝ e^{-eps min(|x|, pi - |x|)}`` (ring):
    ``E c`` for ``c`` with density ``∝ e^{-eps c}`` on ``[0, pi/2]``."""
    a = epsilon * math.pi / 2
    return (1 - (1 + a) * math.exp(-a)) / (epsilon * -math.expm1(-a))


def two_peak_ring_cost(gap: float, peak: float, epsilon: float) -> float:
    """Cost of results ``+-gap/2`` with noise ``∝ e^{-eps ||x| - peak|}`` on ``[-pi, pi)``
    (eps-geographic DP: the exponent is eps-Lipschitz in the circle's distance)."""
    weight = lambda x: math.exp(-epsilon * abs(x - peak))  # noqa: E731 - x = |noise| >= 0
    cuts = sorted({0.0, math.pi, min(max(peak, 0.0), math.pi), min(gap / 2, math.pi)})
    num = sum(integrate.quad(lambda x: abs(x - gap / 2) * weight(x), a, b, epsabs=1e-14)[0]
              for a, b in zip(cuts[:-1], cuts[1:]))
    den = sum(integrate.quad(weight, a, b, epsabs=1e-14)[0] for a, b in zip(cuts[:-1], cuts[1:]))
    return num / den


def _line_rows(quick: bool) -> list[Result]:
    rows = []
    for k, paper, grid, where in ((3, 0.5, 61 if quick else 201, "Theorem 19 + Appendix B"),
                                  (2, math.log(2), 201 if quick else 401,
                                   "Theorem 19 (value: even-k closed form derived here)")):
        r = solve_dilp(k, 1.0, grid)
        tolerance = (r.epsilon * r.spacing) ** 2 * paper
        for what, value in (("primal", r.primal), ("dual", r.dual)):
            rows.append(compare(AREA, f"line DILP k={k}, eps=1, grid {r.grid}: {what} vs f(1,{k})",
                                source(where), paper, value, tolerance,
                                key=f"line-dilp-k{k}-{what}"))
        rows.append(new_result(AREA, f"line DILP k={k}: primal - best discrete Laplace "
                                     f"(Laplace optimal on the grid too)",
                               r.primal - r.laplace_cost_discrete,
                               key=f"line-dilp-k{k}-laplace-gap"))
    one = solve_dilp(1, 1.0, 61)
    ratio = math.exp(-one.epsilon * one.spacing)
    discrete = 2 * one.spacing * ratio / (1 - ratio ** 2)        # E|X|, discrete Laplace
    rows.append(compare(AREA, f"line DILP k=1, eps=1, grid {one.grid} (spacing {one.spacing:g}): "
                        f"primal vs the discrete Laplace 2hr/(1-r^2), r = e^(-eps h) (-> 1/eps "
                        f"= 1 as h -> 0)", source("§2, example DILP (9)"), discrete, one.primal,
                        1e-9, key="line-dilp-k1"))
    return rows


def _ring_rows(quick: bool, out: Path) -> list[Result]:
    grid = 120 if quick else 400
    low, high = (solve_dilp(2, eps, grid, ring=True) for eps in (0.375, 1.0))
    figure = "multiselect_figure4.png"
    save_figure(ring_noise_figure([low, high]), out / figure)
    antipodal = antipodal_ring_cost(0.375)
    fit = optimize.minimize(lambda v: two_peak_ring_cost(v[0], v[1], 1.0),
                            [float(np.ptp(high.offsets)), 0.25], method="Nelder-Mead",
                            options={"xatol": 1e-9, "fatol": 1e-14})
    return [
        compare(AREA, f"ring k=2, eps=3/8: optimal cost (LP primal, grid {grid})",
                source("Appendix A.2"), 0.72, low.primal, 0.005,
                f"an explicit eps-GDP mechanism (results s, s+pi; noise ∝ exp(-eps min(|x|, "
                f"pi-|x|))) costs exactly {antipodal:.5f} < 0.72, and the LP (dual "
                f"{low.dual:.5f}) converges to it; the paper's 0.72 is not optimal, likely "
                f"a coarser discretisation", figure, key="ring-3/8-optimal"),
        compare(AREA, "ring k=2, eps=3/8: Laplace cost", source("Appendix A.2"), 0.75,
                low.laplace_cost, 0.005,
                f"exact value for the ring's Laplace e^(-eps d(x,u)) with best offsets "
                f"{', '.join(f'{a:.4f}' for a in low.laplace_offsets)}: "
                f"{low.laplace_cost:.5f} (the grid's discrete Laplace gives "
                f"{low.laplace_cost_discrete:.5f}, Laplace wrapped around the ring 0.7634); "
                f"the paper does not say how its 0.75 was computed, and plausible readings "
                f"span it (the line's discrete Laplace wrapped around a 12-point ring grid "
                f"costs 0.7523): docs/claims.md, ms.appA2.ring-0.75",
                figure, key="ring-3/8-laplace"),
        compare(AREA, f"ring k=2, eps=1: optimal - Laplace on grid {grid} (paper: Laplace "
                      f"optimal)", source("Appendix A.2, Figure 4"), 0.0,
                high.primal - high.laplace_cost_discrete, 1e-4,
                f"the LP's two-peak noise beats Laplace: continuous version, results "
                f"+-{fit.x[0] / 2:.4f}, density ∝ exp(-eps ||x| - {fit.x[1]:.4f}|), costs "
                f"{fit.fun:.6f} against Laplace {high.laplace_cost:.6f} (0.2%, invisible "
                f"in the paper's plot)", figure, key="ring-1-laplace-optimal"),
    ]


def _own_rows(quick: bool, out: Path) -> list[Result]:
    rows = []
    figure = "multiselect_figure2.png"
    save_figure(laplace_offsets_figure(5, (0.3, 0.5, 1.0)), out / figure)
    responses = {eps: optimal_response(5, eps) for eps in (0.3, 0.5, 1.0)}
    closed = {eps: np.array([2 * math.log(3 / (3 - i)) / eps for i in range(3)])
              for eps in responses}
    gap = max(float(np.abs(np.sort(r.offsets)[2:] - closed[eps]).max())
              + abs(r.cost - 1 / (3 * eps)) for eps, r in responses.items())
    rows.append(compare(AREA, "Figure 2: k=5, eps in {0.3, 0.5, 1}: offsets and cost from the "
                        "recurrence vs the closed form (2 ln(3/(3-i))/eps, i = 0..2; cost "
                        "1/(3 eps)), largest difference", source("Figure 2"), 0.0, gap, 1e-9,
                        figure=figure, key="figure-2-k5"))
    for k in (2, 4, 6):
        rows.append(new_result(AREA, f"even-k closed form f(1,{k}) = ln(1+2/k)",
                               closed_form_cost(k, 1.0), key=f"even-k-closed-form-k{k}"))
    n = 10 if quick else 16
    per_user = solve(ring_dilp_per_user(2, 1.0, n)).objective
    invariant = solve(ring_dilp(2, 1.0, n).primal).objective
    rows.append(new_result(AREA, f"ring grid {n}: per-user LP (12) minus invariant LP",
                           per_user - invariant, key="ring-per-user-lp"))
    protocol = MultiSelection(4, 1.0)
    est = protocol.monte_carlo_cost(20_000 if quick else 1_000_000, np.random.default_rng(6))
    rows.append(new_result(AREA, "protocol k=4, eps=1: Monte Carlo mean ± s.e. vs exact",
                           f"{est.mean:.5f} ± {est.standard_error:.5f} vs {protocol.cost:.5f}",
                           key="protocol-monte-carlo"))
    k = 21
    costs = {noise: expected_cost(quantile_offsets(k, 1.0, noise), 1.0, noise=noise)
             for noise in ("laplace", "gaussian", "logistic")}
    rows.append(new_result(
        AREA, f"Appendix A.3 quantile offsets, k={k}, eps=1: cost per noise (bound "
              f"{quantile_cost_bound(k, 1.0):.4f}; optimal Laplace {closed_form_cost(k, 1.0):.4f})",
        ", ".join(f"{name} {value:.4f}" for name, value in costs.items()),
        source=source("Appendix A.3, Theorem 24"), key="theorem-24-quantile-offsets"))
    return rows


def _dual_ode_rows(out: Path) -> list[Result]:
    """Lemma 17 and Figure 3: equation (18) at eps = 1, zeta = 0.1, v = (-log 4, 0, log 4)."""
    v = np.array([-math.log(4), 0.0, math.log(4)])
    ends = {lam: float(dual_ode_end(v, lam)) for lam in (0.40, 0.46)}
    curves = {f"lam = {lam:.2f}": dual_ode_path(v, lam) for lam in ends}
    save_figure(dual_ode_figure(curves, "equation (18), eps = 1, zeta = 0.1, v = (-log 4, 0, "
                                        "log 4)"), out / "multiselect_figure3.png")
    critical = critical_lambda(v, tolerance=1e-6)
    bound = 9 / 11 * closed_form_cost(3, 1.1)
    figure = "multiselect_figure3.png"
    return [
        claim_result(AREA, "Figure 3(a): lam = 0.40, nu(r) positive for large r (nu at r = 40)",
                     source("§2.3.2, Figure 3(a)"), "positive", f"{ends[0.40]:.6g}",
                     ends[0.40] > 0, figure=figure, key="figure-3-lambda-0.40"),
        claim_result(AREA, "Figure 3(b): lam = 0.46, nu(r) negative for large r (nu at r = 40)",
                     source("§2.3.2, Figure 3(b)"), "negative", f"{ends[0.46]:.6g}",
                     ends[0.46] < 0, figure=figure, key="figure-3-lambda-0.46"),
        compare(AREA, "largest lam with the sign properties of Lemma 17 (v = (-log 4, 0, log 4)) "
                "against the text's boundary (eps - zeta)/(eps + zeta) f(eps, k) 'approximately "
                "0.44'", source("§2.3.2, text before Figure 3"), 0.44, critical, 0.005,
                f"the two behaviours of Figure 3 are separated at lam = {critical:.4f}, not at "
                f"(eps - zeta)/(eps + zeta) f(eps, 3) = 9/22 = 0.409 (printed 0.44, an "
                f"arithmetic slip): the bound is sufficient, as Lemma 17 states with "
                f"f(eps + zeta, k) ({bound:.4f}), but not the boundary; for lam between 0.409 "
                f"and {critical:.4f} nu still ends positive", figure,
                key="lemma-17-boundary"),
    ]


def _g_gdp_lp(g, spacing: float, reach: float = 12.0) -> float:
    """One result (k = 1) under g-geographic DP on a grid: minimise E|noise| over noise
    densities rho on ``spacing Z`` within ``[-reach, reach]`` subject to
    ``rho_i <= e^{g(|i - j| spacing)} rho_j`` for every pair whose factor is at most e^12
    (farther pairs follow from chains of nearer ones: convex g with g(0) = 0 has
    g(a + b) >= g(a) + g(b))."""
    x = np.arange(-round(reach / spacing), round(reach / spacing) + 1) * spacing
    n = x.size
    gaps = np.arange(1, n)
    keep = gaps[[float(g(gap * spacing)) <= 12.0 for gap in gaps]]
    rows, cols, vals = [], [], []
    row = 0
    for gap in keep:
        first = np.arange(n - gap)
        for a, b in ((first, first + gap), (first + gap, first)):
            count = a.size
            rows += [np.arange(row, row + count)] * 2
            cols += [a, b]
            vals += [np.ones(count), -np.full(count, math.exp(g(gap * spacing)))]
            row += count
    pairs = sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                          shape=(row, n))
    lp = LinearProgram(cost=np.abs(x) * spacing,
                       matrix=sp.vstack([sp.csr_matrix(np.full((1, n), spacing)), pairs]),
                       row_lower=np.r_[1.0, np.full(row, -np.inf)],
                       row_upper=np.r_[1.0, np.zeros(row)], name="g-GDP, one result")
    return solve(lp).objective


def _g_gdp_rows(quick: bool) -> Result:
    """Theorem 22: under g-GDP the optimum is Laplace of rate g'(0): the LP on each grid
    equals the discrete Laplace of ratio e^{-g(h)} (truncated to the window), which tends to
    1/g'(0)."""
    examples = {"t + t^2": lambda t: t + t ** 2, "e^t - 1": np.expm1}
    spacings = (0.4, 0.2) if quick else (0.4, 0.2, 0.1)
    parts, worst = [], 0.0
    for label, g in examples.items():
        values = []
        for h in spacings:
            steps = np.arange(-round(12.0 / h), round(12.0 / h) + 1)
            weights = np.exp(-float(g(h)) * np.abs(steps))      # truncated discrete Laplace
            closed = float(h * np.abs(steps) @ weights / weights.sum())
            value = _g_gdp_lp(g, h)
            worst = max(worst, abs(value - closed))
            values.append(value)
        parts.append(f"g = {label}: " + ", ".join(f"h = {h:g}: {v:.5f}"
                                                   for h, v in zip(spacings, values)))
    return claim_result(
        AREA, "g-geographic DP, one result, g'(0) = 1, window [-12, 12]: the LP with the "
        "pairwise g-GDP rows equals the discrete Laplace of ratio e^(-g(h)) and tends to "
        "1/g'(0) = 1 as h -> 0",
        source("Appendix A.1, Theorem 22, Lemma 23"), "Laplace of rate g'(0) optimal",
        "; ".join(parts) + f" (largest difference from the closed form {worst:.1e})",
        worst < 1e-8, key="theorem-22-discrete-lp")


def run(quick: bool, out: Path) -> list[Result]:
    out = Path(out)
    odd = optimal_response(5, 1.0, h=lambda t: t)  # the general recurrence, not the closed form
    three = optimal_response(3, 1.0, h=lambda t: t)
    rows = [
        compare(AREA, "f(1, 5) from the recurrence D_{b+1} = D_b/(D_b+1)", source("Appendix B"),
                1 / 3, odd.cost, 1e-10, key="appendix-b-f-1-5"),
        compare(AREA, "k=3 offsets +-log 4 (eps=1)", source("Figure 3 caption"), math.log(4),
                float(three.offsets[-1]), 1e-8, key="figure-3-k3-offsets"),
        compare(AREA, "dual-fitting threshold (eps-zeta)/(eps+zeta) f(eps,3), eps=1, zeta=0.1",
                source("§2.3 (Figure 3)"), 0.44, 9 / 11 * closed_form_cost(3, 1.0), 0.005,
                "the printed expression 9/11 x 1/2 equals 0.409, not 0.44; Figure 3's "
                "lambda = 0.40 and 0.46 still fall on the stated sides of 0.409",
                key="section-2-3-2-constant"),
    ]
    rows += _dual_ode_rows(out)
    rows += _line_rows(quick)
    rows += _ring_rows(quick, out)
    rows += _own_rows(quick, out)
    rows.append(_g_gdp_rows(quick))
    return rows
