"""The certified accountant (optmech.privacy.accountant): its fallbacks against independent
40-digit computations (randomised response composed: Kairouz-Oh-Viswanath's binomial sum;
zCDP: the closed form), the certified upper curve never below the attained lower one (every
row of the guide's table at reduced counts, random heterogeneous sequences of selection and
top-k mechanisms, both relations), its convergence as the grid refines, its memory estimate
against tracemalloc, and the refusals."""

import math
import tracemalloc
from pathlib import Path

import mpmath as mp
import numpy as np
import pytest

from optmech.privacy.accountant import (
    Accountant,
    Step,
    _atoms_delta,
    _atoms_epsilon,
    dominance_of,
)
from optmech.privacy.fallbacks import fallbacks as fallbacks_of
from optmech.selection.mechanisms import make_mechanism
from optmech.topk.mechanisms import make_topk_mechanism
from optmech.validation import InvalidArgumentError


def _rr_epsilon(eps, k, delta):
    """eps' of randomised response at eps composed k times, at delta: bisection on the
    binomial sum at 40 digits."""
    with mp.workdps(40):
        eps = mp.mpf(eps)
        p = mp.e ** eps / (1 + mp.e ** eps)
        terms = [(mp.binomial(k, i) * p ** (k - i) * (1 - p) ** i, (k - 2 * i) * eps)
                 for i in range(k + 1)]

        def curve(e):
            return sum(m * (1 - mp.e ** (e - l)) for m, l in terms if l > e)

        lo, hi = mp.mpf(0), k * eps
        for _ in range(120):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if curve(mid) > delta else (lo, mid)
        return float(hi)


@pytest.mark.parametrize("eps, k", [(0.05, 1000), (0.1, 100), (0.5, 50), (1.0, 10)])
def test_fallbacks_against_40_digit_computations(eps, k):
    fallbacks = fallbacks_of([("bounded-range", eps, k)], [(eps, k)], 1e-6, [], None)
    assert fallbacks["randomised_response"]["eps"] == pytest.approx(_rr_epsilon(eps, k, 1e-6),
                                                                    rel=1e-9)
    with mp.workdps(40):
        rho = mp.mpf(k) * mp.mpf(eps) ** 2 / 8
        zcdp = float(rho + 2 * mp.sqrt(rho * mp.log(10 ** 6)))
    assert fallbacks["zcdp"]["eps"] == pytest.approx(zcdp, rel=1e-12)
    assert fallbacks["naive"]["eps"] == pytest.approx(eps * k, rel=1e-12)


def _bracket_holds(report, tolerance=1e-12):
    """upper >= lower, up to the rounding of the lower curve's losses (a delta of 4e-19 at
    eps' = the sum of the epsilons, where the true value is 0)."""
    upper, lower = report.payload["upper"], report.payload["lower"]
    assert np.all(np.array(upper["delta"]["delta"])
                  >= np.array(lower["delta"]["delta"]) * (1 - tolerance) - 1e-16)
    if upper.get("eps") is not None:
        assert upper["eps"] >= lower["eps"] - tolerance


@pytest.mark.parametrize("name", ["em", "pf", "rnm_laplace", "peel-em"])
@pytest.mark.parametrize("eps, k", [(0.05, 100), (0.1, 30), (0.5, 12), (1.0, 4)])
def test_upper_is_at_least_lower_on_the_table_rows(name, eps, k):
    """The guide's table at a tenth of its counts, top-2 peeling (the full table: the slow
    test below)."""
    build = (lambda n, e, m, t: make_topk_mechanism(n, e, t, 1.0, m)) if name == "peel-em" \
        else None
    steps = [f"{name}:{eps}:{k}"]
    accountant = (Accountant(steps, top=2, build=build) if build else Accountant(steps))
    report = accountant.report(1e-6)
    _bracket_holds(report)
    # the dynamic programme itself, not only the smallest certified curve
    bound = accountant.upper(1e-6)
    assert bound.epsilon(1e-6) >= report.payload["lower"]["eps"]


ROOT = Path(__file__).resolve().parents[3]
LABELS = {"em": "exponential mechanism", "pf": "permute-and-flip",
          "rnm_laplace": "report-noisy-max, Laplace", "peel-em": "peeling top-3 (EM)"}


def _table(path: Path, first_row: str) -> dict:
    """``{(mechanism, eps, k): [naive, rr, zcdp, rdp, upper, lower]}`` of a markdown table."""
    rows = {}
    for line in path.read_text().splitlines():
        cells = [c.strip().strip("*") for c in line.strip().strip("|").split("|")]
        if len(cells) >= 9 and cells[0] in LABELS.values():
            rows[(cells[0], float(cells[1]), int(cells[2]))] = [float(c) for c in cells[3:9]]
    assert first_row in path.read_text()
    return rows


def test_the_guides_table_is_the_measured_one():
    guide = _table(ROOT / "docs" / "guide" / "accounting.md", "| mechanism | ε | k |")
    measured = _table(ROOT / "benchmarks" / "results" / "accountant_table.md", "| mechanism |")
    assert set(guide) == set(measured) and len(guide) == 16
    for key, values in guide.items():
        for ours, theirs in zip(values, measured[key]):
            assert float(f"{theirs:.3g}") == pytest.approx(ours, rel=1e-9), key


@pytest.mark.slow
@pytest.mark.parametrize("name", ["em", "pf", "rnm_laplace", "peel-em"])
@pytest.mark.parametrize("eps, k", [(0.05, 1000), (0.1, 100), (0.5, 50), (1.0, 10)])
def test_upper_is_at_least_lower_on_the_full_table(name, eps, k):
    """Every row of the guide's table: the bracket holds, and its numbers are what the
    accountant computes now (3 significant digits)."""
    if name == "peel-em":
        accountant = Accountant([(make_topk_mechanism("peel-em", eps, 3), k)], top=3, n=4)
    else:
        accountant = Accountant([f"{name}:{eps}:{k}"])
    report = accountant.report(1e-6)
    _bracket_holds(report)
    p = report.payload
    computed = [p["fallbacks"][f]["eps"] for f in ("naive", "randomised_response", "zcdp",
                                                    "rdp")] + [p["upper"]["eps"],
                                                               p["lower"]["eps"]]
    row = _table(ROOT / "docs" / "guide" / "accounting.md", "| mechanism | ε | k |")[
        (LABELS[name], eps, k)]
    for ours, value in zip(row, computed):
        assert float(f"{value:.3g}") == pytest.approx(ours, rel=1e-9)


def _random_sequence(rng, monotonic, gaussian=False):
    """One to three random steps; with ``gaussian``, a Gaussian report-noisy-max step at a
    random sigma among them."""
    steps = []
    for _ in range(int(rng.integers(1, 4))):
        eps = float(rng.choice([0.05, 0.2, 0.5, 1.0, 2.0]))
        count = int(rng.integers(1, 9))
        kind = rng.choice(["em", "pf", "rnm_laplace", "rr", "rnm_gumbel", "peel-em",
                           "peel-pf", "joint-em"])
        if kind in ("peel-em", "peel-pf", "joint-em"):
            mechanism = make_topk_mechanism(str(kind), eps, 2, 1.0, monotonic)
        else:
            mechanism = make_mechanism(str(kind), eps, 1.0, monotonic)
        steps.append((mechanism, count))
    if gaussian:
        sigma = float(rng.choice([0.3, 1.0, 3.0, 10.0]))
        steps.insert(int(rng.integers(0, len(steps) + 1)),
                     (make_mechanism("rnm_gaussian", None, 1.0, monotonic, sigma=sigma),
                      int(rng.integers(1, 30))))
    return steps


@pytest.mark.parametrize("seed", range(6))
def test_upper_is_at_least_lower_on_random_heterogeneous_sequences(seed):
    rng = np.random.default_rng(seed)
    monotonic = bool(seed % 2)
    accountant = Accountant(_random_sequence(rng, monotonic),
                            relation="monotonic" if monotonic else "general", n=3)
    for delta in (1e-3, 1e-6):
        report = accountant.report(delta)
        _bracket_holds(report)
        assert accountant.upper(delta).epsilon(delta) >= report.payload["lower"]["eps"] - 1e-12
    grid = [0.0, 0.5, 1.5]
    report = accountant.report(None, grid)
    _bracket_holds(report)
    atoms, _ = accountant.lower(None, 0.5)
    assert (accountant.upper(None, grid)(grid) >= _atoms_delta(atoms, grid) - 1e-15).all()


@pytest.mark.parametrize("seed", range(6))
def test_upper_is_at_least_lower_on_random_sequences_with_gaussian_steps(seed):
    """A Gaussian step at a random sigma among random pure-DP steps, on a random number of
    candidates, both relations: the certified curve (on the coarsest grid, 4 nodes per eps
    of the smallest round: it holds on every grid) is above the explicit pairs' at every
    eps' asked and at delta = 1e-6."""
    rng = np.random.default_rng(100 + seed)
    monotonic = bool(seed % 2)
    n = int(rng.choice([2, 3, 5]))
    accountant = Accountant(_random_sequence(rng, monotonic, gaussian=True),
                            relation="monotonic" if monotonic else "general", n=n,
                            resolution=4)
    _bracket_holds(accountant.report(1e-6))
    grid = [0.0, 0.5, 2.0, 8.0]
    _bracket_holds(accountant.report(None, grid))


def test_resolution_refines_towards_the_attained_curve():
    eps = []
    for resolution in (4, 8, 16, 32):
        eps.append(Accountant(["em:0.1:100"], resolution=resolution).upper(1e-6)
                   .epsilon(1e-6))
    lower = Accountant(["em:0.1:100"]).report(1e-6).payload["lower"]["eps"]
    assert eps == sorted(eps, reverse=True)
    assert eps[-1] >= lower
    # second order: each halving of the grid gains about a quarter of the one before
    gains = np.diff(eps)
    assert (np.abs(gains[1:] / gains[:-1]) < 0.4).all()
    assert eps[-1] - lower < 0.01


def test_memory_estimate_holds():
    accountant = Accountant(["em:0.05:100", "pf:0.5:20"], resolution=16)
    estimate = accountant.estimate(1e-6)
    tracemalloc.start()
    accountant.upper(1e-6)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak <= estimate.nbytes <= 1.5 * peak


def test_dominance_comes_from_the_guarantee():
    assert dominance_of(make_mechanism("em", 0.3)).kind == "bounded-range"
    assert dominance_of(make_mechanism("pf", 0.3)).kind == "laplace"
    assert dominance_of(make_mechanism("rr", 0.3)).kind == "randomised-response"
    assert dominance_of(make_mechanism("uniform", 0.3)).kind == "identity"
    peel = dominance_of(make_topk_mechanism("peel-pf", 0.9, 3))
    assert (peel.kind, peel.epsilon, peel.rounds) == ("laplace", pytest.approx(0.3), 3)


@pytest.mark.parametrize("text", ["em", "em:0", "em:-1:3", "em:1:0", "em:nan", "em:1:2:3",
                                  "nope:1", "em:1e400", "em:1:x"])
def test_bad_steps_are_refused_naming_the_step(text):
    with pytest.raises(InvalidArgumentError, match="step"):
        Step.parse(text)


def test_a_mechanism_calibrated_for_another_relation_is_refused():
    with pytest.raises(InvalidArgumentError, match="monotonic"):
        Accountant([(make_mechanism("pf", 1.0), 2)], relation="monotonic")


def test_inverse_of_the_lower_curve_matches_bisection():
    """_atoms_epsilon solves delta(eps') = delta exactly between atoms; bisection on the
    hockey-stick divergence is the reference."""
    from optmech.privacy.accountant import _candidate_pairs, _composed

    for name, k in [("em", 40), ("pf", 12), ("rnm_laplace", 6)]:
        step = Step(make_mechanism(name, 0.3), k)
        for pair in _candidate_pairs(step, 3)[::9]:
            atoms = _composed(pair, k)
            for delta in (0.3, 1e-2, 1e-6):
                ours = _atoms_epsilon(atoms, delta)
                lo, hi = 0.0, 30.0
                if _atoms_delta(atoms, [0.0])[0] >= delta:
                    for _ in range(100):
                        mid = (lo + hi) / 2
                        lo, hi = (mid, hi) if _atoms_delta(atoms, [mid])[0] >= delta \
                            else (lo, mid)
                assert ours == pytest.approx(lo, rel=1e-9, abs=1e-12)


def test_only_zero_dp_steps_cost_nothing():
    report = Accountant(["uniform:1:5"]).report(1e-6)
    assert report.epsilon == 0.0 and report.payload["lower"]["eps"] == 0.0


@pytest.mark.parametrize("name", ["em", "pf", "rnm_laplace", "rnm_gumbel", "rr", "uniform"])
def test_the_documented_range_of_eps_is_computed(name):
    """EPS on a log grid over [1e-9, 700], three runs: a finite certified answer at or above
    the attained one, never an exception."""
    for eps in (1e-9, 1e-4, 0.05, 1.0, 20.0, 700.0):
        report = Accountant([f"{name}:{eps:g}:3"]).report(1e-6)
        upper, lower = report.epsilon, report.payload["lower"]["eps"]
        assert 0.0 <= lower <= upper <= 3 * eps * (1 + 1e-9) + 1e-12, (eps, upper, lower)
        _bracket_holds(report)


@pytest.mark.parametrize("spec", ["geometric:0.2", "poisson:4", "negbin:0.5,0.2", "fixed:2"])
def test_repeat_and_select_steps_bracket(spec):
    """A repeat-and-select step: certified at the sharp pure-DP eps, never below the exact
    composition of explicit repeated pairs, and the published Renyi curve in the RDP
    fallback."""
    from optmech.privacy.repeat import RepeatAndSelect, Repetitions

    mechanism = RepeatAndSelect(make_mechanism("em", 0.3), Repetitions.parse(spec))
    accountant = Accountant([(mechanism, 6), "pf:0.2:4"], n=3)
    for delta in (1e-3, 1e-6):
        report = accountant.report(delta)
        _bracket_holds(report)
        assert accountant.upper(delta).epsilon(delta) >= report.payload["lower"]["eps"]
    assert dominance_of(mechanism).epsilon == pytest.approx(mechanism.proven_epsilon())


def _gaussian(sigma):
    """Report-noisy-max with Gaussian noise sigma, checked on two candidates against its
    closed form Pr[first] = Phi((q_0 - q_1) / (sqrt(2) sigma)) before use."""
    from scipy.special import log_ndtr

    mechanism = make_mechanism("rnm_gaussian", None, sigma=sigma)
    q = np.array([[0.0, -0.3], [1.5, -2.0], [-1.0, 3.0]])
    z = (q[:, 0] - q[:, 1]) / (np.sqrt(2.0) * sigma)
    expected = np.stack([log_ndtr(z), log_ndtr(-z)], axis=1)
    assert np.allclose([mechanism.logpmf(r) for r in q], expected, rtol=1e-13, atol=0)
    return mechanism


def _gdp_epsilon(mu, delta):
    """eps' of mu-GDP at delta, by bisection on the closed form at 40 digits."""
    with mp.workdps(40):
        mu = mp.mpf(mu)

        def curve(e):
            return mp.ncdf(mu / 2 - e / mu) - mp.e ** e * mp.ncdf(-mu / 2 - e / mu)
        lo, hi = mp.mpf(0), 10 * mu + mu * mu
        for _ in range(120):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if curve(mid) > delta else (lo, mid)
        return float(hi)


@pytest.mark.parametrize("sigma, count", [(4.0, 50), (1.5, 5)])
def test_gaussian_steps_against_exact_gdp(sigma, count):
    """count rounds of mu-GDP are sqrt(count) mu-GDP: the certified eps' lies above that
    closed form (its curve is attained by the Gaussian mechanism) and within 1 %; only the
    zCDP and Rényi fallbacks apply (zCDP's rho = count mu^2 / 2, its closed form); the
    report validates against its schema."""
    from optmech.schemas import validate

    mechanism = _gaussian(sigma)
    mu = np.sqrt(2.0) / sigma
    report = Accountant([(mechanism, count)], n=2).report(1e-6)
    payload = report.payload
    exact = _gdp_epsilon(mu * np.sqrt(count), 1e-6)
    assert exact <= payload["upper"]["eps"] <= exact * 1.01
    _bracket_holds(report)
    assert set(payload["fallbacks"]) == {"zcdp", "rdp"}
    rho = count * mu * mu / 2
    assert payload["fallbacks"]["zcdp"]["rho"] == pytest.approx(rho, rel=1e-14)
    assert payload["fallbacks"]["zcdp"]["eps"] == pytest.approx(
        rho + 2 * np.sqrt(rho * np.log(1e6)), rel=1e-14)
    step = payload["steps"][0]
    assert step["dominating"] == "gaussian" and "eps" not in step
    assert step["mu"] == pytest.approx(mu)
    validate({"optmech_version": "0", "schema": "optmech.privacy.account/1", **payload})


def test_gaussian_and_pure_steps_compose():
    """A Gaussian step among pure-DP ones: the bracket holds, the certified eps' is above
    what the pure part alone attains (a part of a composition is a post-processing of
    it), and at most the Rényi fallback."""
    gaussian = _gaussian(3.0)
    accountant = Accountant(["em:0.1:40", (gaussian, 20), "pf:0.5:4"], n=2)
    report = accountant.report(1e-6)
    _bracket_holds(report)
    upper = report.payload["upper"]["eps"]
    assert upper >= Accountant(["em:0.1:40", "pf:0.5:4"]).report(1e-6).payload["lower"]["eps"]
    assert upper <= report.payload["fallbacks"]["rdp"]["eps"]


def test_a_gaussian_step_needs_its_number_of_candidates():
    gaussian = _gaussian(3.0)
    with pytest.raises(InvalidArgumentError, match="number of candidates"):
        Accountant(["em:0.1:40", (gaussian, 20)])
    with pytest.raises(InvalidArgumentError, match="number of candidates"):
        dominance_of(gaussian)


def test_gaussian_steps_by_name_are_the_mechanism_bound_to_n():
    """"rnm_gaussian:SIGMA:COUNT" builds report-noisy-max with Gaussian noise SIGMA: the
    same certified curve as the mechanism given as an object, on the same n."""
    by_name = Accountant(["rnm_gaussian:3:20", "em:0.1:10"], n=4).upper(1e-6)
    by_object = Accountant([(_gaussian(3.0), 20), "em:0.1:10"], n=4).upper(1e-6)
    assert by_name.epsilon(1e-6) == by_object.epsilon(1e-6)
    d = dominance_of(Accountant(["rnm_gaussian:3:20"], n=4).steps[0].mechanism)
    assert d.epsilon == pytest.approx(2.0 / 3.0, rel=1e-15)      # sqrt(c(4)) / sigma


@pytest.mark.parametrize("n, lower, upper", [(2, 11.14, 14.46), (5, 14.96, 25.27),
                                              (20, 21.93, 68.08)])
def test_gaussian_bracket_as_the_accounting_guide_states(n, lower, upper):
    """The guide's bracket for 50 runs at sigma = 4: the certified ε′ above the exact
    sqrt(50) mu(n)-GDP curve (40 digits) and within 0.5 % of it, the pairs' as stated."""
    report = Accountant(["rnm_gaussian:4:50"], n=n).report(1e-6)
    mu = math.sqrt(n - (n % 2) / n) / 4.0
    exact = _gdp_epsilon(mu * math.sqrt(50), 1e-6)
    assert exact <= report.epsilon <= 1.005 * exact
    assert round(report.epsilon, 2) == upper and round(report.lower_epsilon, 2) == lower
    _bracket_holds(report)


@pytest.mark.parametrize("sigma", [1.4e-3, 1.4e-4])
def test_a_gaussian_round_of_a_huge_mu_is_certified(sigma):
    """mu = sqrt(2)/sigma of 1e3 and 1e4 (the grid step passes 709: no e^h is formed): the
    certified eps' above the exact sqrt(3) mu-GDP curve (40 digits), within 0.1 %."""
    report = Accountant([f"rnm_gaussian:{sigma!r}:3"], n=2).report(1e-6)
    exact = _gdp_epsilon(math.sqrt(2.0) / sigma * math.sqrt(3.0), 1e-6)
    assert exact <= report.epsilon <= 1.001 * exact


def test_a_noise_scale_whose_rho_is_no_double_is_refused():
    Accountant(["rnm_gaussian:1e-9:1"], n=10**6)           # mu = 1e12: accepted
    with pytest.raises(InvalidArgumentError, match="sigma"):
        Accountant([(make_mechanism("rnm_gaussian", None, sigma=1e-300), 1)], n=2)


def test_the_estimate_builds_nothing():
    """A plan on a grid of 10^9 nodes (a round at eps 700 beside one at 1e-9) is
    estimated, not allocated: a few MiB traced, tens of gigabytes estimated."""
    tracemalloc.start()
    try:
        estimate = Accountant(["rr:700", "em:1e-9"]).estimate(1e-6)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert estimate.nbytes > 1e10 and peak < 2**24


def test_a_mechanism_with_delta_and_no_gaussian_pair_is_refused():
    from types import SimpleNamespace

    mechanism = SimpleNamespace(name="approx", monotonic=False,
                                privacy=SimpleNamespace(epsilon=1.0, delta=1e-6,
                                                        dominance=None))
    with pytest.raises(InvalidArgumentError, match="Gaussian"):
        dominance_of(mechanism)


@pytest.mark.parametrize("eps, h", [(0.1, 0.1 / 16), (1.0, 1 / 16), (0.5, 0.025), (0.3, 0.07),
                                    (700.0, 1e-3), (0.05, 0.05 / 16), (2.0, 0.3)])
def test_the_estimate_counts_the_pieces_it_would_build(eps, h):
    from optmech.privacy.accountant import _pieces
    from optmech.privacy.adaptive import pieces

    assert _pieces(eps, h) == len(pieces(eps, h))


@pytest.mark.parametrize("h", [1e-3, 0.5, 1.0, 3.0, 700.0, 1e6])
def test_chord_weights_against_the_direct_formula_and_each_other(h):
    """expm1(d) / expm1(h) without e^h: equal to the direct quotient (40 digits) where it
    can be formed, the offset its inverse, no overflow at h = 1e6."""
    from optmech.privacy.adaptive import _chord_offset, _chord_weight

    d = np.linspace(0.0, h, 7)
    with mp.workdps(40):
        direct = [float(mp.expm1(mp.mpf(x)) / mp.expm1(mp.mpf(h))) for x in d]
    assert np.allclose(_chord_weight(d, h), direct, rtol=1e-13, atol=1e-300)
    for fraction, x in zip(direct, d):
        if fraction > 1e-300:
            assert _chord_offset(fraction, h) == pytest.approx(x, rel=1e-9, abs=1e-12 * h)
