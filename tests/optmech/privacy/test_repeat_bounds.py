"""The bounds on repeat-and-select (optmech.privacy.repeat_bounds): never below the exact
curve of any explicit ε-DP base pair (random ones and the worst the search finds); the sharp
pure-DP bound in closed form against its definition (a sup over t, evaluated on a grid) and
approached by the three-output pairs of its proof; the published formulas against
dp_accounting's code where it is installed."""

import math

import numpy as np
import pytest

from optmech.privacy.bounds import randomised_response_delta, randomised_response_renyi
from optmech.privacy.divergences import hockey_stick, renyi
from optmech.privacy.repeat import RepeatAndSelect, Repetitions, repeated_pair
from optmech.privacy.repeat_bounds import (
    base_curves,
    literature_epsilon,
    literature_rdp,
    liu_talwar_epsilon,
    poisson_formula,
    poisson_rdp,
    poisson_rdp_with_bottom,
    rdp_epsilon,
    sharp_epsilon,
    tnb_epsilon,
    tnb_rdp,
)
from optmech.privacy.repeat_search import worst_base_pair
from optmech.selection.mechanisms import make_mechanism

ORDERS = 1.0 + np.geomspace(1e-3, 1e3, 25)
HAT = np.concatenate([[1.0], 1.0 + np.geomspace(1e-3, 1e5, 80), [np.inf]])


def _random_pair(rng, eps, m):
    """A random ε-DP pair on m outputs (a kernel applied to randomised response)."""
    e = math.exp(eps)
    a = rng.dirichlet(np.ones(m) * rng.choice([0.1, 0.5, 2.0]))
    b = rng.dirichlet(np.ones(m) * rng.choice([0.1, 0.5, 2.0]))
    return (e * a + b) / (1 + e), (a + e * b) / (1 + e)


def _exact_renyi(p, q, law, orders):
    pair = repeated_pair(p, q, law)
    forward = np.stack([pair.log_p, pair.log_q])
    return renyi(forward, forward[::-1], orders).max(axis=0)


def _max_loss(p, q, law):
    pair = repeated_pair(p, q, law)
    return float(np.max(np.abs(pair.log_p - pair.log_q)))


def _phi_ratio_sup(law, eps):
    """``sup_t G'(1-t) / G'(1-m(t))``: a grid of t, then a bounded scalar search around the
    grid's best, ``G'`` by its series (the definition; nothing shared with the closed
    forms)."""
    from scipy.optimize import minimize_scalar

    r = Repetitions.parse(law)
    k = np.arange(1, 2000)             # tails below 1e-30 for the laws here
    weights = k * r.pmf(k)

    def ratio(t):
        t = np.atleast_1d(t)
        m = np.minimum(math.exp(eps) * t, 1 - math.exp(-eps) * (1 - t))
        g = [(weights[None, :] * x[:, None] ** (k - 1)[None, :]).sum(axis=1)
             for x in (1 - t, 1 - m)]
        return g[0] / g[1]
    t = np.linspace(0.0, 0.999, 401)
    i = int(np.argmax(ratio(t)))
    step = t[1] - t[0]
    found = minimize_scalar(lambda x: -ratio(x)[0], method="bounded",
                            bounds=(max(0.0, t[i] - step), min(0.999, t[i] + step)),
                            options={"xatol": 1e-12})
    return float(max(ratio(t).max(), -found.fun))


@pytest.mark.parametrize("law", ["poisson:3", "negbin:0,0.05", "negbin:0.5,0.1",
                                 "negbin:-0.5,0.2", "geometric:0.1", "fixed:3"])
@pytest.mark.parametrize("eps", [0.1, 1.0])
def test_sharp_bound_closed_form_is_its_definition(law, eps):
    assert sharp_epsilon(law, eps) == pytest.approx(eps + math.log(_phi_ratio_sup(law, eps)),
                                                    rel=1e-6)


@pytest.mark.parametrize("law", ["poisson:10", "negbin:0,0.02", "negbin:2,0.05",
                                 "geometric:0.1", "fixed:4"])
@pytest.mark.parametrize("eps", [0.1, 0.5, 2.0])
def test_sharp_bound_is_approached_by_the_three_output_pairs(law, eps):
    e, s = math.exp(eps), 1e-9
    p = np.array([e * (1 - s), e * s, 1.0]) / (1 + e)
    q = np.array([1 - s, s, e]) / (1 + e)
    sharp = sharp_epsilon(law, eps)
    assert sharp - 1e-6 <= _max_loss(p, q, law) <= sharp * (1 + 1e-12)


@pytest.mark.parametrize("law", ["poisson:10", "poisson:1", "negbin:0,0.02", "negbin:1,0.1",
                                 "negbin:-0.5,0.05", "negbin:3,0.3", "geometric:1e-3",
                                 "fixed:3"])
def test_no_random_pair_exceeds_the_pure_bounds(law):
    rng = np.random.default_rng(7)
    for trial in range(300):
        eps = float(rng.choice([0.01, 0.1, 0.5, 1.0, 3.0]))
        p, q = _random_pair(rng, eps, int(rng.integers(2, 7)))
        eps_pair = float(np.max(np.abs(np.log(p) - np.log(q))))
        loss = _max_loss(p, q, law)
        sharp = sharp_epsilon(law, eps_pair)
        assert loss <= sharp * (1 + 1e-12), (law, p, q)
        assert sharp <= literature_epsilon(law, eps_pair)[0] * (1 + 1e-12)


def test_published_pure_bounds():
    assert liu_talwar_epsilon(0.7) == pytest.approx(2.1)
    assert tnb_epsilon(0.7, 0.5) == pytest.approx(1.75)
    assert literature_epsilon("geometric:0.1", 1.0)[0] == 3.0
    assert literature_epsilon("negbin:-0.5,0.1", 1.0)[0] == 1.5
    assert literature_epsilon("poisson:10", 1.0)[0] == pytest.approx(sharp_epsilon(
        "poisson:10", 1.0), rel=1e-15)
    assert literature_epsilon("fixed:4", 0.5)[0] == 2.0
    # the sharp TNB bound tends to (2 + eta) eps as gamma -> 0
    assert sharp_epsilon("negbin:0.5,1e-12", 1.0) == pytest.approx(2.5, rel=1e-10)


@pytest.mark.parametrize("law", ["negbin:0,0.02", "negbin:1,0.1", "negbin:-0.5,0.05",
                                 "negbin:2,0.3", "poisson:1", "poisson:10", "fixed:3"])
def test_no_random_pair_exceeds_the_published_renyi_bounds(law):
    """Theorem 2 (and 6 for Poisson, composition for fixed K) with each base pair's own
    curves, both directions: never below the repeated pair's divergence."""
    rng = np.random.default_rng(11)
    r = Repetitions.parse(law)
    for trial in range(25):
        eps = float(rng.choice([0.05, 0.5, 2.0]))
        p, q = _random_pair(rng, eps, int(rng.integers(2, 6)))
        curves = base_curves(RepeatAndSelect((p, q), law))
        exact = _exact_renyi(p, q, law, ORDERS)
        if r.kind == "negbin":
            bound = tnb_rdp(ORDERS, curves[0], *r.parameters, hat_orders=HAT)
        else:
            bound = literature_rdp(r, ORDERS, *curves)
        assert (exact <= bound * (1 + 1e-12)).all(), (law, p, q)
        proven = RepeatAndSelect((p, q), law).proven_rdp(ORDERS)
        assert (exact <= proven * (1 + 1e-12)).all(), (law, p, q)
        if r.kind == "poisson":
            assert (exact <= poisson_rdp_with_bottom(ORDERS, *curves, r.parameters[0])
                    * (1 + 1e-12)).all()


@pytest.mark.parametrize("law, order", [("negbin:0,0.02", 2.0), ("negbin:1,0.1", 8.0),
                                        ("poisson:1", 2.0), ("poisson:10", 32.0)])
def test_the_worst_pair_found_stays_below_the_renyi_bound(law, order):
    r = Repetitions.parse(law)
    for m in (2, 3):
        found = worst_base_pair(law, 1.0, m, objective="renyi", at=order, starts=1,
                                iterations=30)
        curves = base_curves(RepeatAndSelect((found.p, found.q), law))
        bound = float(literature_rdp(r, [order], *curves)[0])
        assert found.value <= bound * (1 + 1e-12)
        assert _exact_renyi(found.p, found.q, law, [order])[0] == pytest.approx(found.value,
                                                                                rel=1e-12)


def test_theorem_6_needs_mu_at_least_one():
    """Below μ = 1 the formula is negative near order 1, so below every divergence; the
    bound with ⊥ counted is not."""
    e = math.exp(0.1)
    p, q = np.array([e, 1.0]) / (1 + e), np.array([1.0, e]) / (1 + e)
    curves = base_curves(RepeatAndSelect((p, q), "fixed:1"))
    exact = _exact_renyi(p, q, "poisson:0.5", [1.01])[0]
    assert poisson_formula([1.01], *curves, 0.5)[0] < 0 < exact
    assert np.isinf(poisson_rdp([1.01], *curves, 0.5)).all()
    assert exact <= poisson_rdp_with_bottom([1.01], *curves, 0.5)[0]


@pytest.mark.parametrize("law", ["geometric:0.1", "poisson:10", "negbin:0,0.0269"])
def test_the_rdp_conversion_holds_at_the_worst_pair(law):
    """ε′ at δ = 1e-6 from the published Rényi bound on randomised response's curve: the
    worst pair found has δ(ε′) <= 1e-6 there."""
    eps = 0.5
    r = Repetitions.parse(law)
    orders = 1.0 + np.geomspace(1e-2, 1e4, 200)
    curve = literature_rdp(r, orders, lambda o: randomised_response_renyi(eps, o),
                           lambda x: randomised_response_delta(eps, x))
    converted, _ = rdp_epsilon(orders, curve, 1e-6)
    found = worst_base_pair(law, eps, 3, starts=2, iterations=40)
    pair = repeated_pair(found.p, found.q, law)
    forward = np.stack([pair.log_p, pair.log_q])
    assert hockey_stick(forward, forward[::-1], [converted]).max() <= 1e-6
    assert found.value <= converted


def test_a_mechanism_bases_proven_curves():
    """PF repeated: the proven Rényi curve (published bound on the Laplace curve, capped by
    the sharp ε) is above the exact curve of the worst PF pair found."""
    from optmech.privacy.worst import worst_pair

    repeated = RepeatAndSelect(make_mechanism("pf", 1.0), "geometric:0.1")
    found = worst_pair(repeated, 3, objective="renyi", at=4.0, depth=2, starts=1,
                       iterations=20, rng=0)
    assert found.value <= repeated.proven_rdp([4.0])[0]
    assert found.curves.max_loss <= repeated.proven_epsilon() <= repeated.privacy.epsilon


def test_the_published_formulas_are_dp_accountings():
    """``_compute_rdp_repeat_and_select`` of dp_accounting (its own gamma from the mean, its
    own delta-hat from the RDP curve) against the same inputs here: the transcription of
    Theorems 2 and 6 is theirs, to rounding (their gamma is bisected to 1e-9)."""
    rdp_module = pytest.importorskip("dp_accounting.rdp.rdp_privacy_accountant")
    orders = np.array([1.5, 2.0, 3.0, 5.0, 8.0, 16.0, 32.0, 64.0, 256.0])
    eps = 0.5
    base = randomised_response_renyi(eps, orders)
    for mean, shape in [(10.0, 0.0), (10.0, 1.0), (5.0, 0.5), (10.0, math.inf)]:
        theirs = np.asarray(rdp_module._compute_rdp_repeat_and_select(orders, base, mean,
                                                                      shape))
        if math.isinf(shape):
            def delta(x):
                return np.array([rdp_module.compute_delta(orders, base, float(v))[0]
                                 for v in np.atleast_1d(x)])
            # dp_accounting closes only the TNB branch over higher orders: the formula
            ours = poisson_formula(orders, lambda o: randomised_response_renyi(eps, o), delta,
                                   mean)
            closed = poisson_rdp(orders, lambda o: randomised_response_renyi(eps, o), delta,
                                 mean)
            assert (closed <= ours).all() and closed[-1] == ours[-1]
        else:
            gamma = rdp_module._gamma_truncated_negative_binomial(shape, mean)
            ours = tnb_rdp(orders, lambda o: randomised_response_renyi(eps, o), shape, gamma,
                           Repetitions.negbin(shape, gamma).mean, hat_orders=orders)
        np.testing.assert_allclose(ours, theirs, rtol=1e-7)


def _numeric_rows(path, first_cell_prefix, width):
    """The cells of the markdown table rows of ``width`` cells whose first cell starts with
    one of the laws' names."""
    rows = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == width and cells[0].startswith(first_cell_prefix):
            rows.append(cells)
    return rows


def test_the_guides_table_is_the_measured_one_and_its_bounds_are_recomputed():
    """docs/guide/tuning.md's table against benchmarks/results/repeat_select.md, cell by
    cell; its bounds recomputed here; the bracket (worst found <= every bound) on each row."""
    from pathlib import Path

    from benchmarks.repeat_select import laws, rdp_bound

    root = Path(__file__).resolve().parents[3]
    prefixes = ("Poisson", "TNB", "geometric")
    guide = _numeric_rows(root / "docs" / "guide" / "tuning.md", prefixes, 8)
    measured = _numeric_rows(root / "benchmarks" / "results" / "repeat_select.md", prefixes,
                             10)
    assert len(guide) == len(measured) == 9
    expected_laws = [law for _, law in laws() for _ in range(3)]
    for ours, theirs, law in zip(guide, measured, expected_laws):
        eps, worst, two, rdp, ratio, published, sharp = map(float, ours[1:])
        assert (eps, worst, two, rdp, ratio, published, sharp) == (
            float(theirs[1]), float(theirs[2]), float(theirs[4]), float(theirs[5]),
            float(theirs[7]), float(theirs[8]), float(theirs[9]))
        assert float(f"{rdp_bound(law, eps)[0]:.5g}") == rdp
        assert float(f"{literature_epsilon(law, eps)[0]:.5g}") == published
        assert float(f"{sharp_epsilon(law, eps):.5g}") == sharp
        assert two <= worst <= min(rdp, published, sharp)
