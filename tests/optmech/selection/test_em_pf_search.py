"""The EM/PF ratio: its value and gradient, the bound below 2, and the seeded search.

Independent references: the integral form of PF's pmf evaluated at 40 digits with mpmath
(no quadrature), EM's softmax at 40 digits, central finite differences, and the closed form
2 / (1 + p) for two candidates.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from optmech.selection.em_pf_search import (
    em_pf_ratio,
    log_ratio_and_gradient,
    ratio_bound,
    search_em_pf_ratio,
)
from optmech.validation import InvalidArgumentError


def _mp_ratio(log_coins) -> mpmath.mpf:
    """E_EM / E_PF at 40 digits: PF's pmf by integrating the expanded polynomial exactly."""
    with mpmath.workdps(40):
        y = [mpmath.mpf(float(v)) for v in log_coins]
        p = [mpmath.exp(v) for v in y]
        em = sum(pi * -v for pi, v in zip(p, y)) / sum(p)
        pf = 0
        for r, pr in enumerate(p):
            poly = [mpmath.mpf(1)]
            for s, ps in enumerate(p):
                if s != r:
                    poly = [a - ps * b for a, b in zip(poly + [0], [0] + poly)]
            pf += pr * sum(c / (i + 1) for i, c in enumerate(poly)) * -y[r]
        return em / pf


@pytest.mark.parametrize("log_coins", [
    [0.0, -1.0],
    [0.0, -30.0],
    [0.0, 0.0, -2.0, -7.5],
    [0.0, -0.3, -0.3, -4.0, -12.0, -0.01],
    list(-np.linspace(0, 6, 12)),
])
def test_ratio_against_a_40_digit_reference(log_coins):
    reference = float(_mp_ratio(log_coins))
    assert math.exp(log_ratio_and_gradient(np.array(log_coins))[0]) == pytest.approx(
        reference, rel=1e-13)
    assert em_pf_ratio(log_coins, 2.0) == pytest.approx(reference, rel=1e-13)


def test_two_candidates_closed_form():
    for c in (-0.1, -3.0, -40.0):
        p = math.exp(c / 2)                      # eps = 1, Δ = 1
        assert em_pf_ratio([0.0, c]) == pytest.approx(2 / (1 + p), rel=1e-14)
        assert ratio_bound([0.0, c]) == pytest.approx(2 / (1 + p), rel=1e-14)


@pytest.mark.parametrize("n", [2, 5, 40])
def test_gradient_matches_finite_differences(n):
    rng = np.random.default_rng(n)
    y = np.concatenate([[0.0], -rng.uniform(0.0, 8.0, n - 1)])
    _, gradient = log_ratio_and_gradient(y)
    h = 1e-6
    numeric = [(log_ratio_and_gradient(y + h * e)[0] - log_ratio_and_gradient(y - h * e)[0])
               / (2 * h) for e in np.eye(n)]
    np.testing.assert_allclose(gradient, numeric, atol=1e-8 * max(1.0, np.abs(gradient).max()))


def test_ratio_is_below_the_bound_and_below_two_on_random_vectors():
    rng = np.random.default_rng(2024)
    for _ in range(300):
        n = int(rng.integers(2, 30))
        scores = np.round(rng.normal(0, rng.choice([0.5, 5.0, 40.0]), n), 1)
        if scores.max() == scores.min():
            continue
        eps = float(rng.choice([0.1, 1.0, 5.0]))
        ratio, bound = em_pf_ratio(scores, eps), ratio_bound(scores, eps)
        assert 1.0 <= ratio <= bound * (1 + 1e-14) and bound <= 2.0


def test_ratio_needs_unequal_scores():
    with pytest.raises(InvalidArgumentError, match="scores"):
        em_pf_ratio([1.0, 1.0])
    with pytest.raises(InvalidArgumentError, match="scores"):
        ratio_bound([2.0])


def test_search_is_seeded_and_stays_below_two():
    first = search_em_pf_ratio([2, 5], [0.5, 3.0], starts=1, seed=7, show_progress=False)
    again = search_em_pf_ratio([2, 5], [0.5, 3.0], starts=1, seed=7, show_progress=False)
    assert [r.ratio for r in first] == [r.ratio for r in again]
    assert all(np.array_equal(a.scores, b.scores) for a, b in zip(first, again))
    for r in first:
        assert set(r.ratios) == ({"step", "multistart"} if r.n == 2
                                 else {"step", "two-level", "multistart"})
        assert r.ratio == max(r.ratios.values()) and 1.99 < r.ratio < 2.0
        assert r.ratio <= r.bound * (1 + 1e-15) and r.deficit == pytest.approx(2 - r.ratio)
        assert em_pf_ratio(r.scores, r.epsilon) == pytest.approx(r.ratio, rel=1e-14)
    two = first[0]
    p = math.exp(-30.0)                          # the step family's edge of the box
    assert two.deficit == pytest.approx(2 * p / (1 + p), rel=1e-3)


@pytest.mark.parametrize("kwargs, argument", [
    ({"ns": [1]}, "n"), ({"ns": [201]}, "n"), ({"epsilons": [0.0]}, "epsilon"),
    ({"starts": -1}, "starts"), ({"seed": -2}, "seed"), ({"ns": []}, "ns"),
])
def test_search_rejects_bad_input(kwargs, argument):
    arguments = {"ns": [2], "epsilons": [1.0], **kwargs}
    with pytest.raises(InvalidArgumentError, match=argument):
        search_em_pf_ratio(arguments.pop("ns"), arguments.pop("epsilons"), **arguments)


def test_every_accepted_epsilon_is_searched_and_the_rest_refused():
    """eps on a log grid over [MIN_EPSILON, largest double] (warnings are errors): a ratio
    in (1, 2) (Theorem 2 and the bound of the module docstring) and finite scores."""
    import sys
    import warnings

    from optmech.selection.em_pf_search import MIN_EPSILON

    grid = [MIN_EPSILON, *np.geomspace(MIN_EPSILON, 1e308, 7)[1:-1], sys.float_info.max]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        for result in search_em_pf_ratio([3], grid, starts=1):
            assert 1.0 < result.ratio < 2.0 and result.ratio <= result.bound + 1e-12
            assert np.isfinite(result.scores).all()
    with pytest.raises(InvalidArgumentError, match="epsilon must be a number >= 1e-306"):
        search_em_pf_ratio([3], [1e-308], starts=1)


def test_a_search_beyond_the_work_budget_is_refused_naming_starts():
    from optmech.resources import work_budget
    from optmech.selection.em_pf_search import estimated_seconds
    from optmech.validation import ResourceLimitError

    assert estimated_seconds([3], 1, 100_000) > 3600
    with pytest.raises(ResourceLimitError, match="starts"):
        search_em_pf_ratio([3], [1.0], starts=100_000)
    with pytest.raises(ResourceLimitError, match="starts"):
        search_em_pf_ratio([3], [1.0], starts=2**63)
    with work_budget(1.0), pytest.raises(ResourceLimitError, match="starts"):
        search_em_pf_ratio([200], [1.0], starts=1)
