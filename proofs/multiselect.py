"""Identities of the multi-selection paper (Goel et al. 2025, arXiv:2407.14641), Appendix B.

A user at 0 sends ``x ~ Laplace(scale 1/eps)``; the server answers with ``k`` fixed offsets
``A`` around ``x`` and the cost is ``f(eps, k) = min_A E[min_{a in A} |x - a|]`` (equation
(14) with the identity disutility).  Scaling ``x`` by ``eps`` shows
``f(eps, k) = f(1, k) / eps``, so everything below is at ``eps = 1``.

Odd ``k = 2b - 1`` (the paper): by symmetry ``A = {0, +-y_1, ..., +-y_{b-1}}`` and, given
``x > 0`` (an Exp(1) variable), ``D_b = E[min |x - a|]`` over ``0 = y_0 < y_1 < ...``.
Memorylessness gives ``D_{b+1} = min_s [int_0^s min(t, s-t) e^-t dt + e^-s D_b]``.

Even ``k = 2b`` (not stated in the paper; derived here): ``A = {+-z_1, ..., +-z_b}`` with no
point at 0; given ``x > 0`` the cost is ``G_b = min_z [int_0^z (z - t) e^-t dt + e^-z D_b]``
(the points beyond ``z_1`` form an optimal odd configuration for ``D_b``, started at
``z_1``).  Result: ``z_1 = ln(1 + 1/b)``, ``G_b = ln(1 + 1/b)``, so
``f(eps, 2b) = ln(1 + 1/b)/eps`` with offsets ``+-(ln(1 + 1/b) + 2 ln(b/(b - i)))/eps``,
``i = 0..b-1``.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import sympy
from scipy.optimize import minimize, root

from proofs.evidence import bound, mp, sym
from proofs.papers import cite
from proofs.registry import erratum_if, identity, verified_if

PAPER = "multi-selection"
SOURCE = cite(PAPER)
OPTIMISED_K = range(1, 9)
STARTS = 6


def laplace_cost(points) -> float:
    """``E[min_a |x - a|]`` for ``x ~ Laplace(0, 1)``, exactly (closed-form cells).

    With ``Phi`` the CDF and ``M(v) = int_{-inf}^v u phi(u) du`` the partial mean of the
    standard Laplace law, the cost of the Voronoi cell ``[lo, hi]`` of point ``a`` is
    ``int |u - a| phi = [M - a Phi]_{a}^{hi} - [M - a Phi]_{lo}^{a}``.
    """
    a = np.sort(np.asarray(points, dtype=float))
    edges = np.concatenate([[-np.inf], (a[1:] + a[:-1]) / 2, [np.inf]])
    lo, hi = edges[:-1], edges[1:]

    def cdf(v):
        return np.where(v < 0, 0.5 * np.exp(np.minimum(v, 0)), 1 - 0.5 * np.exp(-np.maximum(v, 0)))

    def mean(v):
        with np.errstate(invalid="ignore"):
            out = np.where(v < 0, 0.5 * (v - 1) * np.exp(np.minimum(v, 0)),
                           -0.5 * (1 + v) * np.exp(-np.maximum(v, 0)))
        return np.where(np.isinf(v), 0.0, out)

    def part(u, v):   # int_u^v (x - a) phi(x) dx
        return (mean(v) - mean(u)) - a * (cdf(v) - cdf(u))

    return float((part(a, hi) - part(lo, a)).sum())


def laplace_cost_gradient(points) -> np.ndarray:
    """Gradient of :func:`laplace_cost`: ``Pr[cell, x < a] - Pr[cell, x > a]`` per point."""
    order = np.argsort(points)
    a = np.asarray(points, dtype=float)[order]
    edges = np.concatenate([[-np.inf], (a[1:] + a[:-1]) / 2, [np.inf]])
    cdf = np.where(edges < 0, 0.5 * np.exp(np.minimum(edges, 0)),
                   1 - 0.5 * np.exp(-np.maximum(edges, 0)))
    at = np.where(a < 0, 0.5 * np.exp(np.minimum(a, 0)), 1 - 0.5 * np.exp(-np.maximum(a, 0)))
    grad = np.empty_like(a)
    grad[order] = (at - cdf[:-1]) - (cdf[1:] - at)
    return grad


def optimal_offsets(k: int) -> np.ndarray:
    """The closed-form optimal offsets at eps = 1 (sorted): odd k from the paper, even k derived."""
    b, odd = (k + 1) // 2, k % 2 == 1
    tail = np.array([2 * math.log(b / (b - i)) for i in range(b)])      # y_0 = 0, ..., y_{b-1}
    half = tail if odd else math.log(1 + 1 / b) + tail
    return np.sort(np.concatenate([-half[1:] if odd else -half, half]))


def optimal_cost(k: int) -> float:
    """``f(1, k)``: ``1/b`` for ``k = 2b - 1``, ``ln(1 + 1/b)`` for ``k = 2b``."""
    b = (k + 1) // 2
    return 1 / b if k % 2 else math.log1p(1 / b)


def numerical_optimum(k: int, seed: int = 0) -> tuple[float, np.ndarray]:
    """Minimise :func:`laplace_cost` over ``k`` unconstrained points (no symmetry assumed):
    BFGS with the exact gradient from ``STARTS`` random starts, the best point polished by
    solving gradient = 0 (MINPACK hybrid method); returns (cost, sorted points)."""
    rng = np.random.default_rng(seed)
    best = None
    for _ in range(STARTS):
        start = rng.normal(0, 1 + k / 2, k)
        res = minimize(laplace_cost, start, jac=laplace_cost_gradient, method="BFGS",
                       options={"gtol": 1e-13, "maxiter": 10_000})
        if best is None or res.fun < best.fun:
            best = res
    polished = root(laplace_cost_gradient, best.x, method="hybr", tol=1e-15)
    x = polished.x if laplace_cost(polished.x) <= best.fun + 1e-15 else best.x
    return laplace_cost(x), np.sort(x)


@identity(
    "multiselect.cost_integral_recurrence",
    paper=PAPER,
    statement="Appendix B: with the next point at distance s, D_{b+1}(s) = int_0^s min(t, s-t) "
              "e^-t dt + e^-s D_b = (1 - e^{-s/2})^2 + e^{-s} D_b.",
    sympy="Eq(Integral(Min(t, s - t)*exp(-t), (t, 0, s)) + exp(-s)*D_b, "
          "(1 - exp(-s/2))**2 + exp(-s)*D_b)",
    source=f"{SOURCE}, Appendix B (recurrence for D_{{b+1}})",
    methods=("symbolic simplification", "mpmath at 50 digits"),
)
def check_cost_integral():
    t, s = sympy.symbols("t s", positive=True)
    near = sympy.integrate(t * sympy.exp(-t), (t, 0, s / 2))
    far = sympy.integrate((s - t) * sympy.exp(-t), (t, s / 2, s))
    gap = sympy.simplify(near + far - (1 - sympy.exp(-s / 2)) ** 2)
    worst = max(abs(mpmath.quad(lambda u: min(u, sv - u) * mpmath.exp(-u), [0, sv / 2, sv])
                    - (1 - mpmath.exp(-sv / 2)) ** 2) for sv in map(mpmath.mpf, ("0.1", "1", "7")))
    evidence = (f"SymPy: int_0^(s/2) t e^-t dt = {sym(sympy.simplify(near))}, "
                f"int_(s/2)^s (s-t) e^-t dt = {sym(sympy.simplify(far))}; their sum minus "
                f"(1 - e^(-s/2))^2 simplifies to {sym(gap)}.  The e^-s D_b term is memorylessness: "
                f"given x > s, x - s ~ Exp(1).  mpmath quadrature at s = 0.1, 1, 7: "
                f"{bound(float(worst))}.")
    return verified_if(gap == 0 and worst < mpmath.mpf(10) ** -40, evidence)


@identity(
    "multiselect.minimiser_and_D_b",
    paper=PAPER,
    statement="Appendix B: (1 - g)^2 + g^2 D_b (g = e^{-s/2}) is minimised at g = 1/(1 + D_b), "
              "giving D_{b+1} = D_b/(1 + D_b); with D_1 = 1 this gives D_b = 1/b and the "
              "minimiser s = 2 ln(1 + 1/b).",
    sympy="And(Eq(D(b), 1/b), Eq(s_opt(b), 2*log(1 + 1/b)))",
    source=f"{SOURCE}, Appendix B",
    methods=("symbolic simplification",),
)
def check_minimiser():
    g, D = sympy.symbols("gamma D", positive=True)
    b = sympy.Symbol("b", integer=True, positive=True)
    cost = (1 - g) ** 2 + g ** 2 * D
    critical = sympy.solve(sympy.diff(cost, g), g)
    convex = sympy.simplify(sympy.diff(cost, g, 2))
    value = sympy.simplify(cost.subs(g, critical[0]))
    step = sympy.simplify(value.subs(D, 1 / b) - 1 / (b + 1))
    s_opt = sympy.simplify(-2 * sympy.log(critical[0].subs(D, 1 / b)))
    s_gap = sympy.simplify(sympy.expand_log(s_opt - 2 * sympy.log(1 + 1 / b), force=True))
    x = sympy.Symbol("x", positive=True)
    base = sympy.integrate(x * sympy.exp(-x), (x, 0, sympy.oo))        # D_1 = E[x]
    ok = (len(critical) == 1 and sympy.simplify(critical[0] - 1 / (1 + D)) == 0
          and sympy.simplify(value - D / (1 + D)) == 0 and step == 0 and s_gap == 0 and base == 1
          and convex.is_positive)
    evidence = (f"SymPy: d/dgamma = 0 at gamma = {sym(critical[0])}; second derivative "
                f"{sym(convex)} "
                f"> 0, so this is the global minimum over gamma in (0, 1]; minimum value "
                f"{sym(value)}; with D = 1/b it equals 1/(b+1) (difference {sym(step)}); "
                f"s = -2 log(gamma) = {sym(s_opt)} (minus 2 log(1 + 1/b): {sym(s_gap)}); "
                f"D_1 = E[Exp(1)] = {sym(base)}; induction gives D_b = 1/b.")
    return verified_if(ok, evidence)


@identity(
    "multiselect.odd_offsets",
    paper=PAPER,
    statement="Appendix B: unrolling the induction, y_i = y_{i-1} + 2 ln(1 + 1/(b-i)), i.e. "
              "y_i = 2 ln(b/(b-i)) for i = 0..b-1, and f(eps, 2b-1) = 1/(eps b).",
    sympy="And(Eq(y(i), y(i - 1) + 2*log(1 + 1/(b - i))), Eq(f(epsilon, 2*b - 1), 1/(epsilon*b)))",
    source=f"{SOURCE}, Appendix B (offsets y_i, f(eps, 2b-1) = 1/(eps b)); Section 2.3.2 "
           "(k = 3 example v = [-log 4, 0, log 4])",
    methods=("symbolic simplification", "numerical optimisation"),
)
def check_odd_offsets():
    m, b = sympy.symbols("m b", positive=True)                 # m = b - i >= 1
    closed = 2 * sympy.log(b / m)                                # y_i
    previous = 2 * sympy.log(b / (m + 1))                        # y_{i-1}
    step = sympy.simplify(sympy.exp(closed - previous - 2 * sympy.log(1 + 1 / m))) - 1
    return _optimisation_evidence([k for k in OPTIMISED_K if k % 2], 1e-12, step == 0,
                                  f"SymPy: with m = b - i, exp(2 log(b/m) - 2 log(b/(m+1)) - "
                                  f"2 log(1 + 1/m)) - 1 = {sym(step)}, and y_0 = 0, so the printed "
                                  "recursion telescopes to y_i = 2 ln(b/(b-i)).")


@identity(
    "multiselect.even_k_closed_form",
    paper=PAPER,
    statement="Even k = 2b (not stated in the paper; derived here): the optimal offsets are "
              "+-(ln(1 + 1/b) + 2 ln(b/(b-i)))/eps, i = 0..b-1 (no point at 0), and "
              "f(eps, 2b) = ln(1 + 1/b)/eps; hence 1/(b+1) < ln(1+1/b) < 1/b interleaves the "
              "odd values.",
    sympy="And(Eq(f(epsilon, 2*b), log(1 + 1/b)/epsilon), "
          "Eq(z(i), (log(1 + 1/b) + 2*log(b/(b - i)))/epsilon))",
    source=f"{SOURCE}, Appendix B (the paper defers even k to [41, Theorem C.3]); derived here",
    methods=("symbolic simplification", "numerical optimisation"),
)
def check_even_k():
    z, D = sympy.symbols("z D", positive=True)
    t = sympy.Symbol("t", positive=True)
    b = sympy.Symbol("b", integer=True, positive=True)
    head = sympy.integrate((z - t) * sympy.exp(-t), (t, 0, z))     # x in [0, z]: nearest is z
    cost = head + sympy.exp(-z) * D                                 # beyond z: an odd tail D_b
    critical = sympy.solve(sympy.diff(cost, z), z)
    curvature = sympy.simplify(sympy.diff(cost, z, 2))
    value = sympy.simplify(cost.subs(z, critical[0]))
    value_b = sympy.simplify(value.subs(D, 1 / b))
    gap = sympy.simplify(sympy.expand_log(value_b - sympy.log(1 + 1 / b), force=True))
    ordering = all(1 / (m + 1) < math.log1p(1 / m) < 1 / m for m in range(1, 10_000))
    symbolic = (len(critical) == 1 and gap == 0
                and sympy.simplify(critical[0] - sympy.log(1 + D)) == 0)
    note = (f"SymPy: for x in [0, z] the nearest point is z: int_0^z (z-t) e^-t dt = "
            f"{sym(sympy.simplify(head))}; cost(z) = that + e^-z D_b has derivative zero only at "
            f"z = {sym(critical[0])}, second derivative {sym(curvature)} > 0 (global minimum); the "
            f"minimum is {sym(value)}, i.e. {sym(value_b)} at D_b = 1/b (minus log(1 + 1/b): "
            f"{sym(gap)}).  The points beyond z are the odd configuration shifted by z, giving "
            f"offsets ln(1+1/b) + 2 ln(b/(b-i)).  1/(b+1) < ln(1+1/b) < 1/b for 1 <= b < 10^4: "
            f"{ordering}.")
    flat = _translation_increments([2, 8])
    note += ("\nAlong the common translation of all points the cost rises only like |d|^3/6 (the "
             "Laplace density has a kink at the midpoint 0), so the optimum is strict but flat: "
             "mpmath, (cost(offsets + d) - cost(offsets)) / (|d|^3/6) for k = 2, 8 and d = +-0.01, "
             "+-0.001: " + ", ".join(mp(v, 4) for v in flat)
             + ".  A cost within 1e-12 of the optimum therefore pins the common translation only "
             "to (6e-12)^(1/3) = 1.8e-4; the shape (points minus their mean) to 1e-6.")
    flat_ok = all(abs(v - 1) < 0.02 for v in flat)
    return _optimisation_evidence([k for k in OPTIMISED_K if k % 2 == 0], 1e-6,
                                  symbolic and ordering and bool(curvature.is_positive) and flat_ok,
                                  note, translation_tolerance=(6e-12) ** (1 / 3))


def _translation_increments(ks: list[int]) -> list:
    """``(cost(offsets + d) - cost(offsets)) / (|d|^3 / 6)`` by mpmath quadrature."""
    out = []
    with mpmath.workdps(30):
        for k in ks:
            base = optimal_offsets(k)
            c0 = _quadrature_cost(base, 1)
            for d in (0.01, -0.01, 0.001, -0.001):
                out.append((_quadrature_cost(base + d, 1) - c0) / (mpmath.mpf(abs(d)) ** 3 / 6))
    return out


def _quadrature_cost(points, eps):
    """``E[min |x - a|]`` for ``x ~ Laplace(scale 1/eps)`` by mpmath quadrature (reference)."""
    pts = sorted(mpmath.mpf(float(v)) for v in points)
    breaks = sorted(set(pts + [(u + v) / 2 for u, v in zip(pts, pts[1:])] + [mpmath.mpf(0)]))
    return mpmath.quad(lambda u: min(abs(u - v) for v in pts) * eps / 2 * mpmath.exp(-eps * abs(u)),
                       [-mpmath.inf] + breaks + [mpmath.inf])


def _optimisation_evidence(ks: list[int], point_tolerance: float, symbolic_ok: bool, note: str,
                           translation_tolerance: float | None = None):
    """Numerical confirmation: unconstrained optimisation of all k points vs the closed form.

    The points found must match the closed-form offsets in shape (both minus their mean)
    within ``point_tolerance`` and in their mean within ``translation_tolerance`` (default
    the same; looser where the cost is flat along the common translation)."""
    if translation_tolerance is None:
        translation_tolerance = point_tolerance
    cost_ok = abs(laplace_cost([-1.5, 0.2, 2.0]) - float(_quadrature_cost([-1.5, 0.2, 2.0], 1))) \
        < 1e-14
    eps = mpmath.mpf("2.5")
    scaling = max(abs(_quadrature_cost(optimal_offsets(k) / 2.5, eps) - optimal_cost(k) / eps)
                  for k in ks)
    lines = [note,
             f"closed-form Laplace cost checked against mpmath quadrature: {cost_ok}.",
             f"unconstrained BFGS over all k points ({STARTS} random starts, exact gradient), "
             "eps = 1:"]
    ok = symbolic_ok and cost_ok
    for k in ks:
        cost, points = numerical_optimum(k)
        cost_gap = abs(cost - optimal_cost(k))
        offset = points - optimal_offsets(k)
        shift = float(offset.mean())
        shape_gap = float(np.max(np.abs(offset - shift)))
        cost_ok = cost_gap < 1e-12
        points_ok = shape_gap < point_tolerance and abs(shift) < translation_tolerance
        ok &= cost_ok and points_ok
        lines.append(f"k={k}: closed form {optimal_cost(k):.12f}; the optimum found is "
                     f"{'' if cost_ok else 'NOT '}within 1e-12 of it and its points "
                     f"{'' if points_ok else 'NOT '}within {point_tolerance:g} (shape) and "
                     f"{translation_tolerance:.2g} (mean) of the closed-form offsets "
                     f"[{', '.join(f'{v:.6f}' for v in optimal_offsets(k))}]")
    lines.append("scaling: at eps = 2.5 the offsets divided by eps cost f(1, k)/eps by mpmath "
                 f"quadrature {'' if scaling < 1e-12 else 'NOT '}to within 1e-12 (every k above).")
    return verified_if(ok and scaling < 1e-12, "\n".join(lines))


@identity(
    "multiselect.section_2_3_2_plot_constant",
    paper=PAPER,
    statement="Section 2.3.2 (Figure 3 discussion): at eps = 1, zeta = 0.1, k = 3, "
              "(eps - zeta)/(eps + zeta) f(eps, k) 'may be approximated by 9/11 x 1/2 = 0.44'.",
    sympy="Eq(Rational(9, 11)*Rational(1, 2), 0.44)",
    source=f"{SOURCE}, Section 2.3.2 (text before Figure 3)",
    methods=("exact rational arithmetic",),
)
def check_plot_constant():
    from fractions import Fraction
    product = Fraction(9, 11) * Fraction(1, 2)
    f13 = optimal_cost(3)
    printed_fails = abs(float(product) - 0.44) > 0.005
    corrected_holds = (Fraction(1) - Fraction(1, 10)) / (Fraction(1) + Fraction(1, 10)) == \
        Fraction(9, 11) and f13 == 0.5
    return erratum_if(
        printed_fails, corrected_holds,
        f"(1 - 0.1)/(1 + 0.1) = 9/11 and f(1, 3) = {f13} (odd case, b = 2, offsets -log 4, 0, "
        f"log 4 as printed), so the product is {product} = {float(product):.5f}.",
        corrected="9/11 x 1/2 = 9/22 ~ 0.409",
        counterexample=f"9/11 x 1/2 = {product} = {float(product):.5f}, not 0.44 (a 7.5% slip in "
                       "the illustrative constant; no result depends on it)")


@identity(
    "multiselect.ring_optimal_cost",
    paper=PAPER,
    statement="Appendix A.2: on the unit ring (users and results in [-pi, pi), ring distance), "
              "k = 2, eps = 3/8, the optimal geographic-DP mechanism (found by solving the DILP) "
              "costs 0.72, against 0.75 for Laplace noise.",
    sympy="Eq(ring_optimal_cost(2, Rational(3, 8)), 0.72)",
    source=f"{SOURCE}, Appendix A.2 and Figure 4",
    methods=("symbolic simplification", "numerical optimisation"),
)
def check_ring_optimal_cost():
    from optmech.multiselect.dilp import solve_dilp

    eps, t = sympy.symbols("epsilon t", positive=True)
    # Witness: noise density rho(x) ∝ exp(-eps d(x, {0, pi})), results at s and s + pi.  The
    # user's loss is d(x, {0, pi}) = D, which on each quarter of the ring has density ∝ e^{-eps D}
    # on [0, pi/2].  rho is eps-geographic-DP: d(., {0, pi}) is 1-Lipschitz in ring distance.
    half = sympy.pi / 2
    cost = sympy.integrate(t * sympy.exp(-eps * t), (t, 0, half)) / \
        sympy.integrate(sympy.exp(-eps * t), (t, 0, half))
    witness = sympy.N(cost.subs(eps, sympy.Rational(3, 8)), 30)
    grid = np.linspace(-np.pi, np.pi, 721)
    dist = np.minimum(np.abs(grid), np.pi - np.abs(grid))
    ring_gap = np.abs(grid[:, None] - grid[None, :])
    ring_gap = np.minimum(ring_gap, 2 * np.pi - ring_gap)
    lipschitz = float((np.abs(dist[:, None] - dist[None, :]) - ring_gap).max())
    lp = solve_dilp(2, 0.375, grid=100, ring=True)
    printed_fails = float(witness) < 0.72 - 0.005
    corrected_holds = lipschitz <= 1e-12 and lp.gap < 1e-7 and lp.primal <= float(witness) + 1e-3
    evidence = "\n".join([
        "witness: results at s and s + pi, noise density proportional to exp(-eps d(x, {0, pi})); "
        "d(., {0, pi}) is 1-Lipschitz in ring distance (max violation on a 721-point grid "
        f"{'<= 1e-12' if lipschitz <= 1e-12 else 'ABOVE 1e-12'}), so the mechanism is "
        "eps-geographic-DP.",
        f"SymPy: its cost is {sym(sympy.simplify(cost))} = {sympy.N(witness, 8)} at eps = 3/8, "
        "below the printed optimum 0.72.",
        "optmech.multiselect.dilp.solve_dilp(k=2, eps=3/8, ring, grid=100): primal = dual = "
        f"{lp.primal:.4f} (the LP converges to the witness's cost as the grid is refined; "
        "benchmarks/results/dilp.md).",
    ])
    return erratum_if(printed_fails, corrected_holds, evidence,
                      corrected=f"the optimal cost at eps = 3/8 is at most {sympy.N(witness, 6)} "
                                "(explicit mechanism above; the discretised DILP agrees)",
                      counterexample=f"a valid eps-geographic-DP mechanism costs "
                                     f"{sympy.N(witness, 6)} < 0.72")


@identity(
    "multiselect.library_agrees",
    paper=PAPER,
    statement="optmech.multiselect.offsets implements the verified forms: closed_form_cost and "
              "closed_form_offsets equal f(eps, k) and the offsets above (odd and even k), "
              "the general-h recurrence run on h(t) = t reproduces them, and the library's "
              "exact expected cost of Laplace noise agrees with the cell-wise closed form.",
    sympy="Eq(closed_form_cost(k, epsilon), f(1, k)/epsilon)",
    source=f"{SOURCE}, Appendix B and the even case; as implemented in optmech/multiselect/offsets.py "
           "and optmech/multiselect/noise.py",
    methods=("mpmath at 50 digits", "numerical optimisation"),
)
def check_library_multiselect():
    from optmech.multiselect.noise import expected_cost
    from optmech.multiselect.offsets import closed_form_cost, closed_form_offsets, optimal_response

    worst_cost = worst_offsets = worst_recurrence = worst_expected = 0.0
    for k in range(1, 13):
        for eps in (0.3, 1.0, 2.5):
            worst_cost = max(worst_cost, abs(closed_form_cost(k, eps) - optimal_cost(k) / eps))
            offsets = np.sort(closed_form_offsets(k, eps))
            worst_offsets = max(worst_offsets,
                                float(np.abs(offsets - optimal_offsets(k) / eps).max()))
            rec = optimal_response(k, eps, h=lambda t: t)
            worst_recurrence = max(worst_recurrence, abs(rec.cost - optimal_cost(k) / eps))
            worst_expected = max(worst_expected,
                                 abs(expected_cost(offsets, eps) -
                                     laplace_cost(offsets * eps) / eps))
    ok = worst_cost < 1e-14 and worst_offsets < 1e-12 and worst_recurrence < 1e-9 \
        and worst_expected < 1e-12
    evidence = (
        "k = 1..12, eps in {0.3, 1, 2.5}: closed_form_cost within 1e-14 of f(1, k)/eps "
        f"({'yes' if worst_cost < 1e-14 else 'NO'}); closed_form_offsets within 1e-12 of the "
        f"verified offsets ({'yes' if worst_offsets < 1e-12 else 'NO'}); the recurrence with "
        f"h given as a plain function within 1e-9 ({'yes' if worst_recurrence < 1e-9 else 'NO'}); "
        "expected_cost of the offsets within 1e-12 of the cell-wise Laplace cost "
        f"({'yes' if worst_expected < 1e-12 else 'NO'}).")
    return verified_if(ok, evidence)


# --- Lemma 17 and Figure 3: the dual differential equation (18) ----------------------------
#
# With delta(r) = (zeta/2) e^{-zeta |r|}, lambda(r) = lam delta(r) and h the identity,
# equation (18) reads  nu'(r) = F(r) - eps |nu(r)|,  F(r) = delta(r) (d(r) - lam),
# d(r) = min_{a in v} |r - a|,  nu(median(v)) = 0.  Lemma 17: for zeta < eps and
# lam <= (eps - zeta)/(eps + zeta) f(eps + zeta, k) there is a solution with nu >= 0 for all
# large r and nu <= 0 for all r far below.  Reflecting (u = -r, mu(u) = -nu(-u)) turns the
# left half into the right half of the same problem for -v, so both conditions are "nu ends
# >= 0 going right" for v and for -v.

ODE_REACH = 40


def _pieces(v: np.ndarray, start: float, end: float) -> list[tuple[float, float, float, float]]:
    """``(lo, hi, alpha, beta)`` with ``d(r) = alpha + beta r`` and ``|r| = sign r`` fixed on
    ``[lo, hi]``, covering ``[start, end]``."""
    v = np.sort(np.asarray(v, dtype=float))
    cuts = {start, end, 0.0, *v, *((v[1:] + v[:-1]) / 2)}
    edges = sorted(c for c in cuts if start <= c <= end)
    out = []
    for lo, hi in zip(edges[:-1], edges[1:]):
        mid = (lo + hi) / 2
        a = v[np.argmin(np.abs(mid - v))]
        beta = 1.0 if mid > a else -1.0
        out.append((lo, hi, -beta * a, beta))
    return out


def dual_ode_end(v, lam, epsilon: float = 1.0, zeta: float = 0.1,
                 reach: float = ODE_REACH):
    """``nu(median(v) + reach)`` of equation (18) in closed form (mpmath, 30 digits).

    On each piece where ``d`` is linear, ``|r|`` has one sign and ``nu`` one sign ``s``, the
    equation is linear: ``nu(r) = e^{-s eps (r - r0)} (nu(r0) + e^{-s eps r0} (G(r) -
    G(r0)))`` with ``G`` the antiderivative of ``e^{s eps x} F(x)``, an exponential times a
    linear function.  Sign changes are found by bisection on a 64-point scan per piece.
    """
    with mpmath.workdps(30):
        eps, z, lam = mpmath.mpf(epsilon), mpmath.mpf(zeta), mpmath.mpf(lam)
        med = float(np.median(v))
        r0, nu0 = mpmath.mpf(med), mpmath.mpf(0)

        for lo, hi, alpha, beta in _pieces(v, med, med + reach):
            side = 1 if (lo + hi) / 2 >= 0 else -1
            a_coef = mpmath.mpf(alpha) - lam

            def forcing(x):
                return z / 2 * mpmath.exp(-z * side * x) * (a_coef + beta * x)

            def antiderivative(x, s):
                kappa = s * eps - z * side
                return z / 2 * mpmath.exp(kappa * x) * ((a_coef + beta * x) / kappa
                                                        - beta / kappa ** 2)

            def solution(x, start, value, s):
                return mpmath.exp(-s * eps * (x - start)) * (
                    value + mpmath.exp(-s * eps * start)
                    * (antiderivative(x, s) - antiderivative(start, s)))

            r0 = mpmath.mpf(lo)
            top = mpmath.mpf(hi)
            while r0 < top:
                if nu0 != 0:
                    s = 1 if nu0 > 0 else -1
                else:
                    s = 1 if forcing(r0 + (top - r0) * mpmath.mpf("1e-9")) > 0 else -1
                grid = [r0 + (top - r0) * i / 64 for i in range(1, 65)]
                crossing = next((x for x in grid if s * solution(x, r0, nu0, s) < 0), None)
                if crossing is None:
                    nu0, r0 = solution(top, r0, nu0, s), top
                    continue
                low, high = crossing - (top - r0) / 64, crossing
                low = max(low, r0)
                for _ in range(100):
                    mid = (low + high) / 2
                    if s * solution(mid, r0, nu0, s) > 0:
                        low = mid
                    else:
                        high = mid
                r0, nu0 = high, mpmath.mpf(0)
        return nu0


def dual_ode_path(v, lam, epsilon: float = 1.0, zeta: float = 0.1, reach: float = ODE_REACH,
                  points: int = 801):
    """``(r, nu(r))`` on ``[median - reach, median + reach]`` by SciPy's adaptive Runge-Kutta
    (DOP853, rtol 1e-11): the second method, and the curve of Figure 3."""
    from scipy.integrate import solve_ivp

    v = np.asarray(v, dtype=float)
    med = float(np.median(v))

    def rhs(r, y):
        delta = zeta / 2 * math.exp(-zeta * abs(r))
        return [delta * (np.min(np.abs(r - v)) - lam) - epsilon * abs(y[0])]

    halves = []
    for end in (med + reach, med - reach):
        grid = np.linspace(med, end, points // 2 + 1)
        sol = solve_ivp(rhs, (med, end), [0.0], method="DOP853", t_eval=grid, rtol=1e-11,
                        atol=1e-14, max_step=0.05)
        halves.append((sol.t, sol.y[0]))
    (rt, ry), (lt, ly) = halves
    return np.concatenate([lt[::-1], rt[1:]]), np.concatenate([ly[::-1], ry[1:]])


def lemma_17_signs(v, lam, epsilon: float = 1.0, zeta: float = 0.1) -> tuple[bool, bool]:
    """(nu >= 0 at the right end, nu <= 0 at the left end), in closed form."""
    v = np.asarray(v, dtype=float)
    return (dual_ode_end(v, lam, epsilon, zeta) >= 0,
            dual_ode_end(-v, lam, epsilon, zeta) >= 0)


def critical_lambda(v, epsilon: float = 1.0, zeta: float = 0.1, tolerance: float = 1e-7) -> float:
    """The largest lam for which equation (18) has the sign properties (bisection on the
    closed form; the right end decides for symmetric ``v``, both ends in general)."""
    low, high = 0.0, 2.0 * float(optimal_cost(len(v))) / epsilon + 1.0
    while high - low > tolerance:
        mid = (low + high) / 2
        if all(lemma_17_signs(v, mid, epsilon, zeta)):
            low = mid
        else:
            high = mid
    return low


@identity(
    "multiselect.lemma_17_dual_ode",
    paper=PAPER,
    statement="Lemma 17: for zeta < eps and 0 < lam <= (eps - zeta)/(eps + zeta) f(eps + zeta, k), "
              "equation (18) (nu' = delta(r)(min_a |r - a| - lam) - eps |nu|, nu(median v) = 0, "
              "delta = (zeta/2) e^{-zeta |r|}) has a solution with nu >= 0 for large r and "
              "nu <= 0 for r far below.",
    sympy="Implies(LessThan(lam, (epsilon - z)/(epsilon + z)*f(epsilon + z, k)), "
          "And(GreaterThan(nu(oo), 0), LessThan(nu(-oo), 0)))",
    source=f"{SOURCE}, §2.3.2, Lemma 17 and equation (18); Figure 3",
    methods=("mpmath at 50 digits", "numerical optimisation"),
)
def check_lemma_17():
    eps, zeta = 1.0, 0.1
    rng = np.random.default_rng(17)
    cases, failures = 0, []
    for k in (2, 3, 5):
        bound = (eps - zeta) / (eps + zeta) * optimal_cost(k) / (eps + zeta)
        for _ in range(4):
            v = np.sort(rng.uniform(-3, 3, k))
            cases += 1
            if not all(lemma_17_signs(v, bound, eps, zeta)):
                failures.append((k, v))
    v3 = np.array([-math.log(4), 0.0, math.log(4)])
    critical = critical_lambda(v3, eps, zeta, tolerance=1e-5)
    bound3 = (eps - zeta) / (eps + zeta) * optimal_cost(3) / (eps + zeta)
    r, nu = dual_ode_path(v3, critical - 1e-4, eps, zeta)
    r2, nu2 = dual_ode_path(v3, critical + 1e-4, eps, zeta)
    agree = abs(float(dual_ode_end(v3, 0.40, eps, zeta)) - float(
        dual_ode_path(v3, 0.40, eps, zeta)[1][-1])) < 1e-8
    numeric_ok = nu[-1] > 0 and nu2[-1] < 0 and agree
    ok = not failures and critical >= bound3 and numeric_ok
    evidence = "\n".join([
        f"closed form (mpmath, 30 digits, to |r - median| = {ODE_REACH}), eps = 1, zeta = 0.1, "
        f"lam at the bound of Lemma 17 (0.5156 for k = 2, 0.3719 for k = 3, 0.2479 for k = 5), "
        f"{cases} random sorted v in [-3, 3]^k: the sign conditions hold at both ends "
        f"({len(failures)} failures).",
        f"Figure 3's v = (-log 4, 0, log 4): the conditions hold exactly for lam <= "
        f"{critical:.5f} (bisection on the closed form), above the bound {bound3:.5f}; SciPy's "
        "DOP853 agrees (nu at +40 positive at lam = critical - 1e-4, negative at "
        f"critical + 1e-4; at lam = 0.40 the two methods agree to 1e-8: {agree}).",
    ])
    return verified_if(ok, evidence)


# --- Appendix A.1: g-geographic DP (Assumption 20, Definition 21, Theorem 22, Lemma 23) ----

G_EXAMPLES = ("t + t**2", "exp(t) - 1", "t/2 + 2*t**3", "3*t + cosh(t) - 1")


@identity(
    "multiselect.lemma_23_generalised_gdp",
    paper=PAPER,
    statement="Lemma 23 and Theorem 22: for g increasing, convex, g(0) = 0 and differentiable "
              "at 0, a family of densities is g-geographic-DP iff |d/du log density| <= g'(0); "
              "so Laplace noise of rate g'(0) is g-GDP, and the optimum under g-GDP is the "
              "optimum under g'(0)-GDP (f_alt(g, k) = f(g'(0), k) = O(1/(g'(0) k))).",
    sympy="Equivalent(LessThan(P(u1, A), exp(g(Abs(u1 - u2)))*P(u2, A)), "
          "LessThan(Abs(Derivative(log(rho(u, x)), u)), Subs(Derivative(g(t), t), t, 0)))",
    source=f"{SOURCE}, Appendix A.1 (Assumption 20, Definition 21, Theorem 22, Lemma 23)",
    methods=("symbolic simplification", "asymptotic limit"),
)
def check_lemma_23():
    t, u1, u2, x = sympy.symbols("t u_1 u_2 x", real=True)
    lines, ok = [], True
    for text in G_EXAMPLES:
        g = sympy.sympify(text, locals={"t": t})
        slope = sympy.diff(g, t).subs(t, 0)
        # sufficiency: g(t) >= g'(0) t for t >= 0 (convexity), so Laplace(rate g'(0)) is g-GDP
        gap = sympy.simplify(g - slope * t)
        convex = sympy.simplify(sympy.diff(g, t, 2))
        gap_nonneg = all(gap.subs(t, sympy.Rational(i, 10)) >= 0 for i in range(0, 101))
        convex_ok = all(convex.subs(t, sympy.Rational(i, 10)) >= 0 for i in range(0, 101))
        # necessity: g(t)/t -> g'(0), so a log-slope above g'(0) breaks g-GDP at small shifts
        limit = sympy.limit(g / t, t, 0, "+")
        eta = sympy.Rational(1, 10)
        breaks = next((sympy.Rational(1, 2 ** j) for j in range(1, 60)
                       if (1 + eta) * slope * sympy.Rational(1, 2 ** j)
                       > g.subs(t, sympy.Rational(1, 2 ** j))), None)
        ok &= gap_nonneg and convex_ok and limit == slope and breaks is not None
        lines.append(f"g(t) = {text}: g'(0) = {sym(slope)}, g''(t) = {sym(convex)} >= 0 on "
                     f"[0, 10] ({convex_ok}); g(t) - g'(0) t = {sym(gap)} >= 0 there "
                     f"({gap_nonneg}); lim g(t)/t = {sym(limit)}; a density of log-slope "
                     f"1.1 g'(0) breaks g-GDP at shift {breaks}.")
    a = sympy.Symbol("a", positive=True)
    laplace_ratio = sympy.simplify(sympy.exp(-a * sympy.Abs(x - u1))
                                   / sympy.exp(-a * sympy.Abs(x - u2)))
    lines.append(f"Laplace of rate a: density ratio {sym(laplace_ratio)} <= exp(a |u1 - u2|) by "
                 "the triangle inequality, and exp(a |d|) <= exp(g(|d|)) for a = g'(0) by "
                 "convexity.")
    return verified_if(ok, "\n".join(lines))


@identity(
    "multiselect.example_7",
    paper=PAPER,
    statement="Example 7: a user sending s1, s2 with probability 1/2 each, the server answering "
              "a(1) with probability 0.2 / 0.4: the user receives a(1) with probability 0.3 and "
              "a(2) with 0.7, so sending a(1), a(2) directly with 0.3, 0.7 has the same cost.",
    sympy="Eq(Rational(1, 2)*Rational(1, 5) + Rational(1, 2)*Rational(2, 5), Rational(3, 10))",
    source=f"{SOURCE}, §2.1, Example 7",
    methods=("exact rational arithmetic",),
)
def check_example_7():
    from fractions import Fraction

    half = Fraction(1, 2)
    first = half * Fraction(1, 5) + half * Fraction(2, 5)
    second = half * Fraction(4, 5) + half * Fraction(3, 5)
    ok = first == Fraction(3, 10) and second == Fraction(7, 10)
    return verified_if(ok, f"Pr[a(1)] = 1/2 x 1/5 + 1/2 x 2/5 = {first}; Pr[a(2)] = 1/2 x 4/5 + "
                           f"1/2 x 3/5 = {second}.")
