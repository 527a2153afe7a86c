"""The optimal lattice mechanism as a first-class selection mechanism: its table, its
interface and its privacy guarantee.

References: permute-and-flip's own pmf (``PermuteAndFlip``, Gauss-Legendre quadrature) where
PF is the optimum (eps above the chain-dual threshold), an enumeration of every score vector
of Q with ``itertools`` (multiplicities, symmetry), every in-lattice neighbour pair enumerated
here (privacy), and a chi-square test of seeded draws against the pmf.
"""

import functools
import itertools
import math

import numpy as np
import pytest

from optmech.lattice import LatticeSolutionMechanism, solve_lattice
from optmech.resources import memory_budget
from optmech.selection.mechanisms import PermuteAndFlip, SelectionMechanism
from optmech.validation import InvalidArgumentError, ResourceLimitError
from tests.stats_helpers import chi_square_pvalue


@functools.lru_cache(maxsize=None)
def optimum(n, k, eps, **options):
    return solve_lattice(n, k, eps, **options)


def vectors_of_q(n, k, step=2):
    """Every score vector of the bounded lattice with maximum 0 (levels 0..k, one at 0)."""
    return [-step * np.array(levels, dtype=float)
            for levels in itertools.product(range(k + 1), repeat=n) if min(levels) == 0]


def test_mechanism_has_the_selection_interface():
    opt = optimum(3, 3, 1.0)
    mechanism = opt.mechanism()
    assert isinstance(mechanism, SelectionMechanism)
    assert mechanism.epsilon == 1.0 and mechanism.sensitivity == 1.0
    assert repr(mechanism).startswith("LatticeSolutionMechanism(optimum=LatticeOptimum(n=3, "
                                      "k=3, epsilon=1.0")
    assert mechanism == opt.mechanism() and hash(mechanism) == hash(opt.mechanism())
    assert mechanism != optimum(3, 3, 0.5).mechanism()


def test_table_is_permute_and_flip_where_pf_is_optimal():
    """At eps = 1 (above the chain-dual threshold for k = 3) the optimum is PF: every row of
    the table is PF's pmf, and the multiplicities count the vectors of Q."""
    opt = optimum(3, 3, 1.0)
    assert opt.pf_optimal
    rows = opt.records()
    reference = PermuteAndFlip(1.0)
    seen = {}
    for q in vectors_of_q(3, 3):
        key = tuple(sorted(q.tolist(), reverse=True))
        seen[key] = seen.get(key, 0) + 1
    assert len(rows) == len(seen) == math.comb(3 - 1 + 3, 3)
    for row in rows:
        q = np.array([row[f"q{r}"] for r in range(3)], dtype=float)
        p = np.array([row[f"p{r}"] for r in range(3)])
        assert row["multiplicity"] == seen[tuple(q.tolist())]
        assert np.abs(p - reference.pmf(q)).max() <= 1e-12
        assert row["expected_error"] == pytest.approx(reference.expected_error(q), abs=1e-12)
    assert sum(r["multiplicity"] * r["expected_error"] for r in rows) == pytest.approx(
        opt.total_error, rel=1e-12)


def test_table_below_the_threshold_is_the_pmf_of_every_vector():
    """At eps = 0.5 the optimum is an LP solution: the table's rows, permuted, are the pmf
    on every vector of Q (symmetry), and their errors add up to the certified total."""
    opt = optimum(3, 3, 0.5)
    assert not opt.pf_optimal
    mechanism = opt.mechanism()
    frame = {tuple(r[f"q{i}"] for i in range(3)): r for r in opt.records()}
    total = 0.0
    for q in vectors_of_q(3, 3):
        order = np.argsort(-q, kind="stable")
        row = frame[tuple(q[order].astype(int).tolist())]
        p = np.empty(3)
        p[order] = [row[f"p{i}"] for i in range(3)]
        assert np.array_equal(mechanism.pmf(q), p)
        total += float(p @ -q)
    assert total == pytest.approx(opt.total_error, rel=1e-12)


def test_batch_logpmf_and_expected_error_agree_with_one_vector_at_a_time():
    mechanism = optimum(3, 3, 0.5).mechanism()
    batch = np.array([[0.0, -2.0, -4.0], [1.0, 1.0, -5.0], [-6.0, 0.0, -2.0]])
    rows = mechanism.pmf(batch)
    for q, p in zip(batch, rows):
        assert np.array_equal(mechanism.pmf(q), p)
        assert mechanism.logpmf(q) == pytest.approx(np.log(p), rel=1e-15)
        assert mechanism.expected_error(q) == pytest.approx(p @ (q.max() - q), rel=1e-15)
    with pytest.raises(InvalidArgumentError, match="scores"):
        mechanism.pmf([[0.0, -2.0, -4.0], [0.0, -2.0, -1.0]])


def test_draws_follow_the_pmf():
    mechanism = optimum(3, 3, 0.5).mechanism()
    q = [0.0, -2.0, -4.0]
    draws = mechanism.rvs(q, size=20_000, random_state=7)
    assert chi_square_pvalue(draws, mechanism.pmf(q)) > 1e-4
    assert np.array_equal(draws, mechanism.sample(q, size=20_000, rng=7))


def worst_loss(mechanism, n, k, step, moves):
    """Largest |log p_r(q) - log p_r(q')| over every q of Q and every neighbour q' = q + z
    (z in ``moves``^n, every score moving by at most Δ = 1) that stays within depth k."""
    worst = 0.0
    for q in vectors_of_q(n, k, step):
        p = mechanism.pmf(q)
        for z in itertools.product(moves, repeat=n):
            neighbour = q + np.array(z, dtype=float)
            if neighbour.max() - neighbour.min() > step * k:
                continue
            worst = max(worst, float(np.abs(np.log(p) - np.log(mechanism.pmf(neighbour))).max()))
    return worst


@pytest.mark.parametrize("lattice, n, k, eps", [("2delta", 3, 3, 0.5), ("2delta", 4, 2, 0.3),
                                                ("delta", 3, 2, 0.7)])
def test_privacy_guarantee_holds_on_every_lattice_neighbour(lattice, n, k, eps):
    opt = optimum(n, k, eps, lattice=lattice)
    guarantee = opt.mechanism().privacy
    assert guarantee.epsilon == eps and guarantee.delta == 0.0
    assert "Proposition 2" in guarantee.statement and f"depth k = {k}" in guarantee.statement
    step, moves = (2, (-1, 1)) if lattice == "2delta" else (1, (-1, 0, 1))
    loss = worst_loss(opt.mechanism(), n, k, step, moves)
    assert loss <= eps * (1 + 1e-9)
    assert loss == pytest.approx(eps, rel=1e-6)      # attained: the check can fail


def test_appendix_d_as_printed_has_no_guarantee():
    opt = optimum(4, 4, 0.5, constraints="paper")
    assert opt.mechanism().privacy is None
    assert worst_loss(opt.mechanism(), 4, 4, 2, (-1, 1)) > 0.6


def test_bracket_point_is_a_mechanism_too():
    from optmech.lattice import bound_lattice

    bracket = bound_lattice(3, 2, 0.5, tol=1e-6)
    mechanism = bracket.mechanism()
    assert isinstance(mechanism, LatticeSolutionMechanism) and mechanism.epsilon == 0.5
    assert worst_loss(mechanism, 3, 2, 2, (-1, 1)) <= 0.5 * (1 + 1e-9)
    assert sum(r["multiplicity"] * r["expected_error"] for r in mechanism.records()) \
        == pytest.approx(bracket.upper, rel=1e-9)


def test_a_table_beyond_the_memory_budget_is_refused():
    opt = optimum(3, 3, 1.0)
    with memory_budget(1000), pytest.raises(ResourceLimitError, match="n, k"):
        opt.records()
