"""Privacy under d_l: Theorem 3.2 against brute force over neighbours and events, the p-mix
closed forms (Theorem 4.2, Corollaries 2-3) and limits, Theorem 4.1, the largest p."""

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from optmech.secretary import (
    a_coefficients,
    asymptotic_delta,
    asymptotic_epsilon,
    asymptotic_largest_p,
    blind_choice,
    delta_for_epsilon,
    epsilon_for_delta,
    largest_mix_weight,
    mix,
    mix_bound,
    pmix_delta,
    pmix_epsilon,
    pmix_largest_p,
    pmix_rank_distribution,
    rank_distribution,
)
from optmech.validation import InvalidArgumentError


def brute_delta(q, epsilon, l):
    """max over neighbours rho of sigma = identity (one transposition of ranks at most l
    apart) and over all events S of P_sigma(S) - e^eps P_rho(S) (Definition 5)."""
    n = len(q)
    candidates = range(n)                   # candidate c has rank c+1 under sigma
    worst = 0.0
    for i, j in itertools.combinations(range(n), 2):
        if j - i > l:
            continue
        rank_rho = list(range(n))
        rank_rho[i], rank_rho[j] = j, i     # candidates i and j swap ranks
        p_sigma = [q[c] for c in candidates]
        p_rho = [q[rank_rho[c]] for c in candidates]
        for size in range(n + 1):
            for S in itertools.combinations(candidates, size):
                for first, second in ((p_sigma, p_rho), (p_rho, p_sigma)):
                    worst = max(worst, sum(first[c] for c in S)
                                - math.exp(epsilon) * sum(second[c] for c in S))
    return worst


@pytest.mark.parametrize("n, l", [(5, 1), (6, 2), (6, 5)])
def test_tight_delta_equals_brute_force_over_neighbours_and_events(n, l):
    rng = np.random.default_rng(n * 10 + l)
    for q in [rank_distribution(n), pmix_rank_distribution(n, 0.4),
              rng.dirichlet(np.ones(n)), rng.dirichlet(np.ones(n) * 0.3)]:
        for eps in (0.0, 0.2, 1.0):
            assert delta_for_epsilon(q, eps, l) == pytest.approx(brute_delta(q, eps, l),
                                                                 abs=1e-14)


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 12), st.integers(0, 10**6), st.floats(0, 0.3), st.integers(1, 3))
def test_epsilon_for_delta_is_the_inverse_of_delta_for_epsilon(n, seed, delta, l):
    l = min(l, n - 1)
    q = np.random.default_rng(seed).dirichlet(np.ones(n))
    eps = epsilon_for_delta(q, delta, l)
    assert delta_for_epsilon(q, eps, l) <= delta + 1e-12
    if eps > 1e-9:
        assert delta_for_epsilon(q, eps - 1e-6, l) > delta


def test_zero_probability_neighbour_needs_infinite_epsilon():
    q = np.array([0.6, 0.0, 0.4])
    assert epsilon_for_delta(q, 0.1, 1) == math.inf
    assert epsilon_for_delta(q, 0.6, 1) == 0.0
    assert delta_for_epsilon(q, 5.0, 1) == pytest.approx(0.6)


@settings(max_examples=60, deadline=None)
@given(st.integers(2, 60), st.floats(0, 1), st.floats(0, 2), st.floats(0, 0.2),
       st.integers(1, 3))
def test_theorem_4_1_is_an_upper_bound_on_the_exact_mix(n, p, eps, delta, l):
    l = min(l, n - 1)
    r = rank_distribution(n)
    base_delta = delta_for_epsilon(r, eps, l)
    bound_eps, bound_delta = mix_bound(eps, base_delta, p, n)
    q = mix(p, r, blind_choice(n))
    assert delta_for_epsilon(q, bound_eps, l) <= bound_delta + 1e-12


@pytest.mark.parametrize("n", [7, 8, 20, 150])
def test_closed_forms_equal_the_exact_value_for_n_at_least_7(n):
    """Lemma 2: the worst pair is (1, l+1) for n >= 7."""
    for l in (1, 2, 3):
        for p in (0.1, 0.5, 1.0):
            for d in (0.0, 0.01, 0.05):
                b = pmix_epsilon(n, p, d, l)
                assert b.closed_form == pytest.approx(b.exact, rel=1e-13, abs=1e-15)
                assert b.exact <= b.theorem_4_1 + 1e-12
            for e in (0.0, 0.5, 1.0):
                b = pmix_delta(n, p, e, l)
                assert b.closed_form == pytest.approx(b.exact, rel=1e-13, abs=1e-15)
                assert b.exact <= b.theorem_4_1 + 1e-12
                c = pmix_largest_p(n, e, 0.02, l)
                assert c.closed_form == pytest.approx(c.exact, rel=1e-12)


def test_for_n_4_the_worst_pair_is_not_1_2():
    """Why the paper needs a lower bound on n: at n = 4 the pair (3, 4) binds."""
    b = pmix_epsilon(4, 0.8, 0.0, 1)
    assert b.pair == (3, 4) and b.exact > b.closed_form


def test_limits_at_large_n():
    n = 10**6
    for l in (1, 2):
        for p, d in ((1.0, 0.01), (0.5, 0.02), (0.2, 0.0)):
            b = pmix_epsilon(n, p, d, l)
            assert b.exact == pytest.approx(b.asymptotic, abs=1e-4)   # error O(1/(p n))
        b = pmix_delta(n, 0.7, 0.3, l)
        assert b.exact == pytest.approx(b.asymptotic, abs=2e-6)
        c = pmix_largest_p(n, 0.5, 0.05, l)
        assert c.exact == pytest.approx(c.asymptotic, abs=2e-5)


def test_asymptotic_formulas_by_hand():
    a2 = float(a_coefficients(np.array([2]))[0])
    assert asymptotic_epsilon(1.0, 0.01, 1) == pytest.approx(math.log((1 - 0.01 * math.e) / a2))
    assert asymptotic_delta(0.5, 0.5, 1) == pytest.approx(0.5 / math.e * (1 - a2 * math.exp(0.5)))
    assert asymptotic_largest_p(0.5, 0.05, 1) == pytest.approx(
        math.e * 0.05 / (1 - math.exp(0.5) * a2))
    assert asymptotic_largest_p(1.2, 0.0, 1) == 1.0
    assert asymptotic_epsilon(0.0, 0.0, 1) == 0.0


@pytest.mark.parametrize("n, eps, delta, l", [(10, 0.5, 0.01, 1), (30, 0.1, 0.0, 2),
                                              (100, 1.0, 0.05, 3), (5, 0.2, 0.0, 4)])
def test_largest_p_is_tight(n, eps, delta, l):
    p = pmix_largest_p(n, eps, delta, l).exact
    assert delta_for_epsilon(pmix_rank_distribution(n, p), eps, l) <= delta + 1e-14
    if p < 1:
        assert delta_for_epsilon(pmix_rank_distribution(n, min(1, p + 1e-7)), eps, l) > delta


def test_largest_mix_weight_requires_a_private_second_rule():
    r = rank_distribution(10)
    with pytest.raises(InvalidArgumentError, match="second"):
        largest_mix_weight(blind_choice(10), r, 0.1, 0.0, 1)


@pytest.mark.parametrize("call, match", [
    (lambda: pmix_epsilon(10, 1.5, 0.01, 1), "p must be"),
    (lambda: pmix_epsilon(10, -0.1, 0.01, 1), "p must be"),
    (lambda: pmix_epsilon(10, 0.5, 1.01, 1), "delta must be"),
    (lambda: pmix_delta(10, 0.5, -1, 1), "epsilon must be"),
    (lambda: pmix_delta(10, 0.5, 0.5, 0), "l must be"),
    (lambda: pmix_delta(10, 0.5, 0.5, 10), "l must be"),
    (lambda: pmix_largest_p(1, 0.5, 0.5, 1), "n must be"),
    (lambda: delta_for_epsilon([0.5, 0.6], 0.1, 1), "q must be"),
])
def test_bad_input(call, match):
    with pytest.raises(InvalidArgumentError, match=match):
        call()


# --- the p-mix read a block at a time (memory independent of n) --------------------------

def _all_pairs_worst(q, l, value):
    """The best value over every ordered pair 0 < |i - j| <= l and its first pair in the
    order of lp_models.stopping.privacy_pairs (the evaluation the blocks replace)."""
    from lp_models.stopping import privacy_pairs

    a, b = privacy_pairs(q.size, l)
    scores = value(q[a], q[b])
    at = int(np.argmax(scores))
    return float(scores[at]), (int(a[at]) + 1, int(b[at]) + 1)


@pytest.mark.parametrize("n, l", [(23, 1), (23, 4), (40, 9), (7, 6)])
def test_blocks_give_the_all_pairs_values_and_pairs(monkeypatch, n, l):
    """Blocks of 5 ranks (so every pair scan crosses blocks) against the whole arrays."""
    from optmech.secretary import classical

    monkeypatch.setattr(classical.RankBlocks, "BLOCK", 5)
    q = pmix_rank_distribution(n, 0.4)
    assert np.array_equal(classical.RankBlocks(n).values(0, n), rank_distribution(n))
    assert np.array_equal(classical.RankBlocks(n).values(3, 17), rank_distribution(n)[3:17])
    grow = math.exp(0.3)
    delta = _all_pairs_worst(q, l, lambda x, y: x - grow * y)
    got = pmix_delta(n, 0.4, 0.3, l)
    assert (got.exact, got.pair) == delta
    loss = _all_pairs_worst(q, l, lambda x, y: np.where(x - 0.01 > y, np.log(x - 0.01)
                                                        - np.log(y), -np.inf))
    got = pmix_epsilon(n, 0.4, 0.01, l)
    assert (got.exact, got.pair) == (loss if loss[0] > 0 else (0.0, None))


def test_rank_blocks_against_exact_fractions(monkeypatch):
    from optmech.secretary import classical

    monkeypatch.setattr(classical.RankBlocks, "BLOCK", 16)
    exact = np.array([float(r) for r in classical.rank_distribution_exact(150)])
    np.testing.assert_allclose(classical.RankBlocks(150).values(0, 150), exact, rtol=1e-13)


def test_the_profile_needs_memory_independent_of_n():
    """n = 10^6: a few blocks of ranks (the whole distribution and its pairs took
    about 100 bytes a rank, 8 GiB at n = 10^8)."""
    import tracemalloc

    tracemalloc.start()
    try:
        pmix_epsilon(1_000_000, 0.5, 0.01, 2)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 40 * 2**20, peak
