"""Scenario generators (seeded, percentiles, clipping) and the MSE runner (exact values,
Monte Carlo cross-check, confidence intervals)."""

import math

import numpy as np
import pytest
from scipy import stats

from optmech.heterogeneous import make_heterogeneous
from optmech.heterogeneous.scenarios import (
    FIGURE_SCENARIOS,
    SCENARIOS,
    correlation_scenario,
    run_scenario,
    scenario,
    scenario_from_key,
)
from optmech.selection.mechanisms import PermuteAndFlip
from optmech.validation import InvalidArgumentError


def test_bimodal_scenarios_as_described():
    for number, top_sensitivity, correlation in ((1, 1.8, 1.0), (2, 1.0, -1.0), (3, None, 0.0)):
        s = scenario(number)
        assert s.deterministic and s.means.shape == (1, 100)
        assert sorted(set(s.means[0])) == [-1.0, 1.0] and (s.means[0] == 1).sum() == 50
        assert sorted(set(s.sensitivities)) == [1.0, 1.8]
        if top_sensitivity is not None:
            assert set(s.sensitivities[s.means[0] == 1]) == {top_sensitivity}
        else:
            assert (s.sensitivities[s.means[0] == 1] == 1.8).sum() == 25
        assert s.correlations[0] == pytest.approx(correlation, abs=1e-12)


@pytest.mark.parametrize("key", [str(k) for k in SCENARIOS if k > 3] + ["sweep:0.3"])
def test_random_scenarios_percentiles_by_monte_carlo(key):
    """Δ_a is the 10th-90th percentile spread of P_a: compare with empirical percentiles of
    unclipped draws (tolerance from the percentile's standard error, 5 sigma)."""
    s = scenario_from_key(key)
    rng = np.random.default_rng(11)
    draws = 20_000
    component = np.arange(draws) % s.means.shape[0]
    raw = s.means[component] + s.spreads * rng.standard_normal((draws, 100))
    for p, exact in ((0.1, s.low), (0.9, s.high)):
        empirical = np.quantile(raw, p, axis=0)
        # sd of a sample quantile: sqrt(p(1-p)/N) / density at the quantile
        density = np.array([stats.norm.pdf((exact[a] - s.means[:, a]) / s.spreads[a]).mean()
                            / s.spreads[a] for a in range(100)])
        se = math.sqrt(p * (1 - p) / draws) / density
        assert np.all(np.abs(empirical - exact) < 5 * se + 1e-12)
    np.testing.assert_allclose(s.sensitivities, s.high - s.low)


def test_scores_are_seeded_and_clipped():
    s = scenario(4)
    a = s.scores(50, np.random.default_rng(3))
    b = s.scores(50, np.random.default_rng(3))
    assert np.array_equal(a, b) and a.shape == (50, 100)
    assert (a >= s.low).all() and (a <= s.high).all()
    assert ((a == s.low) | (a == s.high)).mean() == pytest.approx(0.2, abs=0.02)
    assert np.array_equal(scenario(6, seed=1).means, scenario(6, seed=1).means)
    assert not np.array_equal(scenario(6, seed=1).means, scenario(6, seed=2).means)


def test_polarised_groups_have_opposite_correlation_and_alternate():
    s = scenario(7)
    assert s.correlations == pytest.approx((-1.0, 1.0))
    rows = s.scores(4, np.random.default_rng(0))
    assert rows[0, 0] < 0 < rows[1, 0] and rows[2, 0] < 0 < rows[3, 0]


def test_sweep_correlation_follows_t():
    rho = [correlation_scenario(t).correlations[0] for t in (-5, -0.8, 0.8, 5)]
    assert rho[0] < rho[1] < 0 < rho[2] < rho[3]
    assert correlation_scenario(0.0).sensitivities.min() == pytest.approx(
        0.01 * 2 * stats.norm.ppf(0.9))


def test_normalised_sweep_keeps_correlation_and_fixes_scale():
    for t in (0.8, 5.0):
        plain, normal = correlation_scenario(t), correlation_scenario(t, normalised=True)
        assert normal.correlations == pytest.approx(plain.correlations, abs=0.03)
        assert plain.sensitivities.max() / normal.sensitivities.max() == pytest.approx(
            math.sqrt(1 + t * t), rel=1e-12)


def test_figure_keys_resolve():
    for keys in FIGURE_SCENARIOS.values():
        for key in keys:
            assert scenario_from_key(key).key == key


def test_scenario_one_exact_values():
    """Uniform: half the mass at error 2, MSE 2.  RNM = PF at Δ = 1.8 on two levels:
    Pr[low] by the exponential race (Monte Carlo, 5 standard errors)."""
    result = run_scenario(scenario(1), [0.5, 3.0], trials=7)
    assert result.trials == 1
    for eps in (0.5, 3.0):
        assert result.mse("uniform", eps) == pytest.approx(2.0, abs=1e-15)
        point = next(p for p in result.points if p.mechanism == "rnm" and p.epsilon == eps)
        assert point.ci_low == point.mse == point.ci_high
        q = scenario(1).means[0]
        draws = PermuteAndFlip(eps, 1.8).sample(q, size=200_000, rng=np.random.default_rng(5))
        low = (q[draws] < 0).mean()
        assert abs(4 * low - point.mse) < 5 * 4 * math.sqrt(low * (1 - low) / draws.size)


def test_runner_against_monte_carlo_of_the_samplers():
    """Per trial, the exact E[(q* - q_M)^2] against sampled selections of each mechanism."""
    s = scenario(5)
    result = run_scenario(s, [1.0], trials=2, rng=np.random.default_rng(4))
    scores = s.scores(2, np.random.default_rng(4))
    for name in ("gem", "mgem", "combined_gem", "rs_gamma", "rs_gamma_tnb", "rnm"):
        mech = make_heterogeneous(name, 1.0)
        per_trial = []
        for q in scores:
            draws = mech.sample(q, s.sensitivities, size=20_000, rng=np.random.default_rng(1))
            err = (q.max() - q[draws]) ** 2
            per_trial.append((err.mean(), err.var() / err.size))
        estimate = np.mean([m for m, _ in per_trial])
        se = math.sqrt(sum(v for _, v in per_trial)) / len(per_trial)
        assert abs(estimate - result.mse(name, 1.0)) < 5 * se + 1e-12, name


def test_confidence_interval_is_student_t_over_trials():
    s = scenario(6)
    result = run_scenario(s, [2.0], trials=6, mechanisms=["rnm"], rng=np.random.default_rng(8))
    q = s.scores(6, np.random.default_rng(8))
    values = [make_heterogeneous("rnm", 2.0).expected_squared_error(row, s.sensitivities)
              for row in q]
    low, high = stats.t.interval(0.95, 5, loc=np.mean(values), scale=stats.sem(values))
    point = result.points[0]
    assert point.mse == pytest.approx(np.mean(values), rel=1e-14)
    assert (point.ci_low, point.ci_high) == pytest.approx((low, high), rel=1e-12)


def test_a_dict_of_mechanisms_labels_the_points():
    """{label: name}: the points carry the labels, the values are the named mechanisms'."""
    by_name = run_scenario(scenario(2), [0.2, 5.0], mechanisms=["rnm", "gem"])
    labelled = run_scenario(scenario(2), [0.2, 5.0],
                            mechanisms={"noisy max": "rnm", "GEM": "gem"})
    assert labelled.mechanisms == ["noisy max", "GEM"]
    for eps in (0.2, 5.0):
        assert labelled.mse("GEM", eps) == by_name.mse("gem", eps)
        assert labelled.mse("noisy max", eps) == by_name.mse("rnm", eps)


def test_best_and_curve():
    result = run_scenario(scenario(2), [0.2, 5.0], mechanisms=["rnm", "gem", "uniform"])
    assert result.best(0.2) == "gem"
    eps, mse, lo, hi = result.curve("uniform")
    assert eps.tolist() == [0.2, 5.0] and mse.tolist() == [2.0, 2.0]


@pytest.mark.parametrize("call, argument", [
    (lambda: scenario(9), "scenario"),
    (lambda: scenario_from_key("sweep:abc"), "scenario"),
    (lambda: scenario_from_key("0"), "scenario"),
    (lambda: run_scenario(scenario(1), [0.0]), "epsilons"),
    (lambda: run_scenario(scenario(4), [1.0], trials=0), "trials"),
    (lambda: run_scenario(scenario(1), [1.0], mechanisms=["rnmh"]), "mechanism"),
])
def test_bad_input(call, argument):
    with pytest.raises(InvalidArgumentError) as info:
        call()
    assert info.value.argument == argument


def test_titles_are_plain_text_a_figure_renders():
    """No ASCII markup (sigma_a^2) in a title: tables print it and figures draw it as it is;
    every glyph is in matplotlib's default font (a missing one warns)."""
    import warnings

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    titles = [scenario(i).title for i in range(1, 9)]
    assert not [t for t in titles if set(t) & set("^_$\\")]
    fig = plt.figure()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            fig.suptitle("; ".join(titles))
            fig.canvas.draw()
    finally:
        plt.close(fig)
