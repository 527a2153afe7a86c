"""The GEM score transform: O(n log n) against the O(n^2) definition, exact fractions, and
its sensitivity bound (property tests)."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optmech.heterogeneous import gem_scores, gem_scores_reference
from optmech.heterogeneous.gem_transform import _monotone_chain, _upper_hull
from optmech.validation import InvalidArgumentError

finite = st.floats(-1e3, 1e3, allow_nan=False, allow_infinity=False)
positive = st.floats(1e-3, 1e2, allow_nan=False, allow_infinity=False)


@st.composite
def instances(draw, max_size=40):
    n = draw(st.integers(1, max_size))
    # Few distinct values make ties (equal sensitivities, equal scores) likely.
    pool_q = draw(st.lists(finite, min_size=1, max_size=6))
    pool_d = draw(st.lists(positive, min_size=1, max_size=6))
    q = draw(st.lists(st.one_of(finite, st.sampled_from(pool_q)), min_size=n, max_size=n))
    d = draw(st.lists(st.one_of(positive, st.sampled_from(pool_d)), min_size=n, max_size=n))
    t = draw(st.floats(-1e3, 1e3, allow_nan=False))
    return np.array(q), np.array(d), t


def tolerance(q, d, t):
    """Rounding scale of eqn (7): |q|, |t| Δ and the ratio's magnitude, relative 1e-12."""
    scale = (np.abs(q).max() + abs(t) * d.max()) / d.min()
    return 1e-12 * (1.0 + scale)


@settings(max_examples=300, deadline=None)
@given(instances())
def test_fast_transform_equals_definition(instance):
    q, d, t = instance
    np.testing.assert_allclose(gem_scores(q, d, t), gem_scores_reference(q, d, t), rtol=0,
                               atol=tolerance(q, d, t))


@settings(max_examples=200, deadline=None)
@given(instances(), st.data())
def test_sensitivity_at_most_one(instance, data):
    """Raskhodnikova-Smith: moving each q_a by at most Δ_a moves every q'_a by at most 1."""
    q, d, t = instance
    fractions = np.array(data.draw(st.lists(st.floats(-1, 1), min_size=q.size,
                                            max_size=q.size)))
    moved = q + fractions * d
    change = np.abs(gem_scores(moved, d, t) - gem_scores(q, d, t))
    assert change.max() <= 1 + tolerance(moved, d, t)


def test_extreme_neighbours_reach_but_do_not_exceed_one():
    """q_top and q_other moving by their full sensitivities apart changes one ratio by 1."""
    q, d = np.array([0.0, -3.0]), np.array([1.0, 2.0])
    moved = q + np.array([-1.0, 2.0])  # the gap shrinks by Δ_1 + Δ_2
    assert np.abs(gem_scores(moved, d, 0.5) - gem_scores(q, d, 0.5)).max() == \
        pytest.approx(1.0, abs=1e-15)


def test_matches_exact_fractions():
    rng = np.random.default_rng(5)
    n = 12
    q = [Fraction(int(v), 7) for v in rng.integers(-50, 50, n)]
    d = [Fraction(int(v), 3) for v in rng.integers(1, 20, n)]
    t = Fraction(-17, 5)
    exact = [min(((qa - qb) - t * (da - db)) / (da + db) for qb, db in zip(q, d))
             for qa, da in zip(q, d)]
    got = gem_scores(np.array(q, float), np.array(d, float), float(t))
    np.testing.assert_allclose(got, np.array(exact, float), atol=1e-14)


def test_maximum_is_zero_at_the_best_shifted_score():
    rng = np.random.default_rng(1)
    q, d = rng.normal(size=30), rng.uniform(0.2, 2, 30)
    out = gem_scores(q, d, 1.5)
    assert out.max() == 0.0 and (out <= 0).all()
    assert out[np.argmax(q - 1.5 * d)] == 0.0


@pytest.mark.parametrize("shape", ["concave", "cascade", "random", "few_sensitivities"])
def test_large_inputs_against_definition_on_sampled_rows(shape):
    """n = 5e4 hull-heavy and pruning-heavy inputs; the definition on 200 sampled rows."""
    rng = np.random.default_rng(7)
    n = 50_000
    d = rng.uniform(0.1, 2.0, n)
    if shape == "concave":          # every point on the upper hull
        q, t = np.sqrt(d), 0.0
    elif shape == "cascade":        # one dominant point, then a concave chain
        q, t = np.sqrt(d), 0.0
        q[np.argmax(d)] = 1e4
    elif shape == "random":
        q, t = rng.normal(size=n), 3.0
    else:
        d = rng.choice([0.5, 1.0, 1.8], n)
        q, t = rng.normal(size=n), -2.0
    got = gem_scores(q, d, t)
    rows = rng.choice(n, 200, replace=False)
    ratios = ((q[rows, None] - q[None, :]) - t * (d[rows, None] - d[None, :])) \
        / (d[rows, None] + d[None, :])
    np.testing.assert_allclose(got[rows], ratios.min(axis=1), rtol=0,
                               atol=tolerance(q, d, t))


def slow_cascade(m):
    """Points whose pruning passes remove one point each: a concave increasing chain, a very
    high point after it, and a very low last point (so the chain survives the prefilter)."""
    x = np.arange(m + 3, dtype=float)
    y = np.r_[0.0, np.sqrt(np.arange(1, m + 1)), 1e6, -1e9]
    return x, y


def test_monotone_chain_fallback_gives_the_hull():
    x, y = slow_cascade(2_000)
    hull = _upper_hull(x, y)
    assert hull.tolist() == [0, x.size - 2, x.size - 1]
    assert _monotone_chain(x, y, np.arange(x.size)).tolist() == hull.tolist()


def test_transform_through_the_chain_fallback():
    """The same point set as GEM input (t = 0: x = -Δ, y = q) against the definition."""
    x, y = slow_cascade(2_000)
    d, q = x.max() + 1.0 - x, y
    np.testing.assert_allclose(gem_scores(q, d, 0.0), gem_scores_reference(q, d, 0.0),
                               rtol=0, atol=tolerance(q, d, 0.0))


def test_random_hulls_match_monotone_chain():
    rng = np.random.default_rng(3)
    for _ in range(50):
        n = int(rng.integers(3, 300))
        x = np.sort(rng.choice(10 * n, n, replace=False)).astype(float)
        y = rng.normal(size=n) * rng.choice([1.0, 1e-3, 1e3])
        assert _upper_hull(x, y).tolist() == _monotone_chain(x, y, np.arange(n)).tolist()


def test_single_candidate():
    assert gem_scores([3.0], [0.5], 10.0).tolist() == [0.0]


@pytest.mark.parametrize("scores, sensitivities, t, argument", [
    ([0.0, 1.0], [1.0, 0.0], 1.0, "sensitivities"),
    ([0.0, 1.0], [1.0, -2.0], 1.0, "sensitivities"),
    ([0.0, 1.0], [1.0], 1.0, "sensitivities"),
    ([0.0, 1.0], [1.0, np.nan], 1.0, "sensitivities"),
    ([0.0, np.inf], [1.0, 1.0], 1.0, "scores"),
    ([0.0, 1.0], [1.0, 1.0], np.nan, "t"),
])
def test_bad_input(scores, sensitivities, t, argument):
    with pytest.raises(InvalidArgumentError) as info:
        gem_scores(scores, sensitivities, t)
    assert info.value.argument == argument
