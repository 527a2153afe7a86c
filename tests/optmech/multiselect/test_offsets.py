"""Optimal server offsets under Laplace noise: closed forms, the recurrence, validation.

References: mpmath integration at 30 digits, SymPy, exact fractions, an independent mpmath
implementation of the recurrence, and unconstrained multi-start minimisation over R^k.
"""

import functools
import math
from fractions import Fraction

import mpmath as mp
import numpy as np
import pytest
import sympy as sp
from scipy import optimize

from optmech.multiselect.noise import expected_cost
from optmech.multiselect.offsets import (
    closed_form_cost,
    closed_form_offsets,
    optimal_response,
    resolve_disutility,
)
from optmech.validation import InvalidArgumentError


def mp_laplace_cost(offsets, eps, h=lambda t: t, dps=30):
    """E min_i h(|Y - a_i|), Y ~ Laplace(1/eps), by mpmath quadrature split at every kink."""
    with mp.workdps(dps):
        a = sorted(mp.mpf(v) for v in offsets)
        eps = mp.mpf(eps)
        cuts = sorted(set(a) | {(x + y) / 2 for x, y in zip(a, a[1:])} | {mp.mpf(0)})
        def f(x):
            return min(h(abs(x - v)) for v in a) * eps / 2 * mp.e ** (-eps * abs(x))
        return mp.quad(f, [-mp.inf] + cuts + [mp.inf])


def mp_closed_form_offsets(k, eps):
    """The module docstring's formulas, evaluated in mpmath (independently of the code)."""
    odd = k % 2 == 1
    b = (k + 1) // 2 if odd else k // 2
    anchored = [2 * mp.log(mp.mpf(b) / (b - i)) for i in range(b)]
    if odd:
        right = anchored
        return [-x for x in right[:0:-1]] + right
    right = [mp.log(1 + mp.mpf(1) / b) + x for x in anchored]
    return [-x for x in right[::-1]] + right


@pytest.mark.parametrize("k", range(1, 9))
@pytest.mark.parametrize("eps", [0.5, 1.7])
def test_closed_form_cost_is_the_exact_expected_cost(k, eps):
    with mp.workdps(30):
        offsets = mp_closed_form_offsets(k, eps)
        exact = mp_laplace_cost([x / eps for x in offsets], eps)
        b = (k + 1) // 2
        formula = 1 / (mp.mpf(eps) * b) if k % 2 else mp.log(1 + mp.mpf(2) / k) / eps
        assert abs(exact - formula) < mp.mpf(10) ** -25
    assert closed_form_cost(k, eps) == pytest.approx(float(formula), rel=1e-15)
    np.testing.assert_allclose(closed_form_offsets(k, eps),
                               [float(x / eps) for x in offsets], rtol=1e-14, atol=1e-15)


def test_paper_recurrence_gives_one_over_b_exactly():
    """Appendix B: D_{b+1} = D_b / (D_b + 1) from D_1 = 1 is 1/b (exact fractions)."""
    d = Fraction(1)
    for b in range(1, 40):
        assert d == Fraction(1, b)
        assert closed_form_cost(2 * b - 1, 1.0) == pytest.approx(float(d), rel=1e-15)
        d = d / (d + 1)


def test_offsets_follow_the_papers_unrolled_positions():
    """y_i = y_{i-1} + 2 ln(1 + 1/(b - i)) (Appendix B, last display), k = 2b - 1."""
    for b in range(1, 12):
        y = [0.0]
        for i in range(1, b):
            y.append(y[-1] + 2 * math.log1p(1 / (b - i)))
        np.testing.assert_allclose(closed_form_offsets(2 * b - 1, 1.0)[b - 1:], y, rtol=1e-13,
                                   atol=1e-15)


def test_even_k_derivation_in_sympy():
    """Even k = 2b, symmetric set +-(c + anchored b points), X ~ Exp(1) given X > 0:
    C(c) = int_0^c (c - t) e^{-t} dt + e^{-c} D_b; C'(c) = 0 at c = ln(1 + D_b) and
    C(c*) = ln(1 + D_b) = ln(1 + 1/b); C'' > 0."""
    c, t, b = sp.symbols("c t b", positive=True)
    D = 1 / b
    C = sp.integrate((c - t) * sp.exp(-t), (t, 0, c)) + sp.exp(-c) * D
    star = sp.log(1 + D)
    assert sp.simplify(sp.diff(C, c).subs(c, star)) == 0
    assert sp.simplify(C.subs(c, star) - sp.log(1 + 1 / b)) == 0
    assert sp.simplify(sp.diff(C, c, 2) - sp.exp(-c) * (1 + D)) == 0
    # k = 2 end to end: E min(|Y - c|, |Y + c|) for Y ~ Laplace(1) is c - 1 + 2 e^{-c}
    y = sp.symbols("y", real=True)
    two = 2 * (sp.integrate((c - y) * sp.exp(-y) / 2, (y, 0, c))
               + sp.integrate((y - c) * sp.exp(-y) / 2, (y, c, sp.oo)))
    assert sp.simplify(two - (c - 1 + 2 * sp.exp(-c))) == 0
    assert sp.simplify(two.subs(c, sp.log(2)) - sp.log(2)) == 0


def _multistart(cost, k, starts, rng, scale):
    best = None
    for _ in range(starts):
        r = optimize.minimize(cost, np.sort(rng.normal(0, scale, k)), method="Nelder-Mead",
                              options={"xatol": 1e-9, "fatol": 1e-13, "maxfev": 3000 * k})
        best = r if best is None or r.fun < best.fun else best
    return best


def laplace_cost(offsets, eps):
    """E min_i |Y - a_i|, Y ~ Laplace(1/eps), in plain floats (a fast objective for the
    multi-start search, independent of the library's vectorised path): each Voronoi cell
    [lo, hi] around a_i gives a_i (F(a_i) - F(lo)) - (M(a_i) - M(lo)) + (M(hi) - M(a_i))
    - a_i (F(hi) - F(a_i)), with the cdf F and the first moment M(t) = int_{-inf}^t y dF."""
    s = 1.0 / eps

    def mass(t):
        if t <= 0:
            return 0.5 * math.exp(t / s)  # 0 at -inf
        return 1.0 - 0.5 * math.exp(-t / s)

    def moment(t):
        if math.isinf(t):
            return 0.0
        if t <= 0:
            return 0.5 * (t - s) * math.exp(t / s)
        return -0.5 * (t + s) * math.exp(-t / s)

    a = sorted(float(x) for x in offsets)
    edges = [-math.inf, *[(x + y) / 2 for x, y in zip(a, a[1:])], math.inf]
    total = 0.0
    for c, lo, hi in zip(a, edges, edges[1:]):
        total += (c * (2 * mass(c) - mass(lo) - mass(hi))
                  + moment(hi) + moment(lo) - 2 * moment(c))
    return total


def test_plain_laplace_cost_is_the_library_cost():
    """The multi-start objective below against ``expected_cost``: 1e-14 on random sets."""
    rng = np.random.default_rng(5)
    for k in (1, 2, 3, 5, 9):
        for eps in (0.4, 1.3, 7.0):
            offsets = rng.normal(0, 3.0 / eps, k)
            assert laplace_cost(offsets, eps) == pytest.approx(expected_cost(offsets, eps),
                                                               rel=1e-14, abs=1e-15)


@pytest.mark.parametrize("k", [2, 3, 4, 5])
def test_closed_form_is_the_global_minimum_over_all_offsets(k):
    """Unconstrained multi-start Nelder-Mead over R^k finds nothing cheaper (even k too)."""
    eps = 1.3
    best = _multistart(lambda a: laplace_cost(a, eps), k, 6, np.random.default_rng(k), 2.0)
    assert expected_cost(best.x, eps) == pytest.approx(best.fun, rel=1e-14)
    assert best.fun >= closed_form_cost(k, eps) - 1e-12
    assert best.fun == pytest.approx(closed_form_cost(k, eps), abs=1e-9)
    np.testing.assert_allclose(np.sort(best.x), closed_form_offsets(k, eps), atol=2e-4)


def gauss_cost(offsets, h, nodes=np.polynomial.legendre.leggauss(80)):
    """An independent quadrature of E min h(|X - a_i|), X ~ Laplace(1): Gauss-Legendre on
    each side of each offset out to the cell boundary, split where the density has its kink
    at 0, with u = v^2 next to the offset (smooth even for sqrt); every piece at once."""
    a = np.sort(offsets)
    mids = (a[1:] + a[:-1]) / 2
    x, w = nodes
    # one row per (cell, side): the offset, the side's sign and its length to the boundary
    centre = np.repeat(a, 2)
    sign = np.tile([1.0, -1.0], a.size)
    length = np.stack([np.concatenate([mids, [a[-1] + 40.0]]) - a,
                       a - np.concatenate([[a[0] - 40.0], mids])], axis=1).ravel()
    kink = -sign * centre
    near = np.where((0.0 < kink) & (kink < length), kink, length)

    def rule(lo, hi, f):  # Gauss-Legendre on [lo, hi] for each row
        half = (0.5 * (hi - lo))[:, None]
        return np.sum(half * w * f(lo[:, None] + half * (x + 1)))

    def density(u):
        return 0.5 * np.exp(-np.abs(centre[:, None] + sign[:, None] * u))

    # the far piece [near, length] has zero width where the side has no kink
    return (rule(0.0 * near, np.sqrt(near), lambda v: h(v * v) * density(v * v) * 2 * v)
            + rule(near, length, lambda u: h(u) * density(u)))


@pytest.mark.parametrize("name", ["square", "sqrt", "log1p"])
@pytest.mark.parametrize("k", [2, 3, 4])
def test_recurrence_is_the_global_minimum_for_other_h(name, k):
    h = resolve_disutility(name).function
    r = optimal_response(k, 1.0, name)
    assert gauss_cost(r.offsets, h) == pytest.approx(r.cost, rel=1e-8)
    best = _multistart(lambda a: gauss_cost(a, h), k, 5, np.random.default_rng(10 + k), 1.5)
    assert best.fun >= r.cost - 1e-8
    assert best.fun == pytest.approx(r.cost, rel=1e-7)


MP_DISUTILITIES = {"square": lambda t: t * t, "sqrt": mp.sqrt, "log1p": mp.log1p}
MP_DPS = 30


@functools.lru_cache(maxsize=None)
def _mp_cost(name, m):
    """D_{m+1} of the recurrence at 30 digits: the cost of the anchored m+1 points (eps = 1);
    cached, since every k <= 2b extends the same chain D_1, y_1, D_2, y_2, ..."""
    h = MP_DISUTILITIES[name]
    with mp.workdps(MP_DPS):
        if m == 0:
            return mp.quad(lambda t: h(t) * mp.e ** -t, [0, mp.inf])
        y = _mp_gap(name, m)
        return mp.quad(lambda t: h(t) * mp.e ** -t, [0, y]) + h(y) * mp.e ** -y


@functools.lru_cache(maxsize=None)
def _mp_gap(name, m):
    """y_m: the root of h(y) - int_0^y h(y - u) e^-u du - D_m e^-y (cached as above)."""
    h = MP_DISUTILITIES[name]
    with mp.workdps(MP_DPS):
        d = _mp_cost(name, m - 1)
        def g(y):
            return h(y) - mp.quad(lambda u: h(y - u) * mp.e ** -u, [0, y]) - d * mp.e ** -y
        return mp.findroot(g, (mp.mpf("1e-9"), mp.mpf(30)), solver="anderson")


def mp_recurrence(name, k):
    """Independent mpmath implementation of the module docstring's recurrence (eps = 1)."""
    h = MP_DISUTILITIES[name]
    with mp.workdps(MP_DPS):
        odd = k % 2 == 1
        b = (k + 1) // 2 if odd else k // 2
        gaps = [_mp_gap(name, m) for m in range(1, b if odd else b + 1)]
        anchored = [mp.mpf(0)]
        for y in gaps[:b - 1][::-1]:
            anchored.append(anchored[-1] + 2 * y)
        if odd:
            return _mp_cost(name, b - 1), [-x for x in anchored[:0:-1]] + anchored
        right = [gaps[-1] + x for x in anchored]
        return h(gaps[-1]), [-x for x in right[::-1]] + right


@pytest.mark.parametrize("name", list(MP_DISUTILITIES))
@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
def test_recurrence_accuracy_against_mpmath(name, k):
    cost, offsets = mp_recurrence(name, k)
    r = optimal_response(k, 1.0, name)
    assert r.cost == pytest.approx(float(cost), rel=1e-11)
    np.testing.assert_allclose(r.offsets, [float(x) for x in offsets], rtol=1e-9, atol=1e-9)
    assert r.method == "recurrence"


@pytest.mark.parametrize("eps", [0.3, 2.5])
def test_recurrence_with_identity_as_a_plain_function_matches_closed_forms(eps):
    for k in range(1, 12):
        r = optimal_response(k, eps, h=lambda t: t)
        assert r.method == "recurrence"
        assert r.cost == pytest.approx(closed_form_cost(k, eps), rel=1e-11)
        np.testing.assert_allclose(r.offsets, closed_form_offsets(k, eps), rtol=1e-9,
                                   atol=1e-9 / eps)


def test_epsilon_scaling_of_a_power_disutility():
    """h(t) = t^2: Y = X/eps, so f_h(eps, k) = f_h(1, k) / eps^2, offsets scale as 1/eps."""
    for k in (2, 5):
        one = optimal_response(k, 1.0, "square")
        other = optimal_response(k, 0.4, "square")
        assert other.cost == pytest.approx(one.cost / 0.4 ** 2, rel=1e-11)
        np.testing.assert_allclose(other.offsets, one.offsets / 0.4, rtol=1e-9, atol=1e-12)


def test_costs_strictly_decrease_in_k():
    costs = [closed_form_cost(k, 1.0) for k in range(1, 60)]
    assert all(x > y for x, y in zip(costs, costs[1:]))
    sqrt_costs = [optimal_response(k, 1.0, "sqrt").cost for k in range(1, 8)]
    assert all(x > y for x, y in zip(sqrt_costs, sqrt_costs[1:]))


def test_scalar_only_function_is_accepted():
    r = optimal_response(3, 1.0, h=lambda t: math.sqrt(t))
    assert r.cost == pytest.approx(optimal_response(3, 1.0, "sqrt").cost, rel=1e-12)


@pytest.mark.parametrize("kwargs,argument", [
    ({"k": 0, "epsilon": 1.0}, "k"),
    ({"k": 2.5, "epsilon": 1.0}, "k"),
    ({"k": 2, "epsilon": 0.0}, "epsilon"),
    ({"k": 2, "epsilon": -1.0}, "epsilon"),
    ({"k": 2, "epsilon": float("nan")}, "epsilon"),
    ({"k": 2, "epsilon": 1.0, "h": lambda t: -t}, "h"),
    ({"k": 2, "epsilon": 1.0, "h": lambda t: t * (3 - t)}, "h"),
    ({"k": 2, "epsilon": 1.0, "h": np.cos}, "h"),
    ({"k": 2, "epsilon": 1.0, "h": lambda t: t + 1}, "h"),
    ({"k": 2, "epsilon": 1.0, "h": lambda t: np.expm1(1.0 * t)}, "h"),
    ({"k": 2, "epsilon": 1.0, "h": "cosh"}, "h"),
    ({"k": 2, "epsilon": 1.0, "h": 3}, "h"),
])
def test_bad_input_names_the_argument(kwargs, argument):
    with pytest.raises(InvalidArgumentError) as info:
        optimal_response(**kwargs)
    assert info.value.argument == argument
    assert argument in str(info.value)
