"""Every top-T sampler draws only outcomes of positive probability, at every finite
epsilon, sensitivity and score the API accepts: a log grid from 1e-300 to 1e300 of each.

"Positive" is checked with a margin that makes the test able to fail without being
flaky: no draw may be an outcome whose exact probability is below 1e-30 (nor a tuple
that is not an outcome, such as a candidate drawn twice).  The probability is bounded
from above in exact rational arithmetic, from the definitions alone: a round of EM or PF
picks ``r`` with probability at most ``e^{a (q_r - max_left q)}`` (EM's normaliser has a
term 1, PF must accept ``r`` on its turn), so a peeling tuple has at most the exponential
of the sum over its rounds; the joint mechanisms' tuple at most ``e^{a u(s)}`` (the top
tuple has ``u = 0``), the canonical set at most ``e^{-a loss(S)}``.  A draw whose bound is
below 1e-30 fails.  The file draws about 10^5 outputs, so an exact sampler fails it with
probability below 10^-24.  Before the
fix, peeling PF drew ``(0, 0)`` (scores 3, 1, 2 at epsilon 1e20) and peeling EM and the
one-shot Gumbel drew outcomes of probability ``e^{-2.5e12}`` (scores 1e19, 1000, 0)."""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from optmech.topk import TOPK_MECHANISMS, make_topk_mechanism
from optmech.validation import InvalidArgumentError
from tests.optmech.topk.references import canonical_loss, joint_utility

GRID = [10.0 ** k for k in (-300, -150, -30, -9, 0, 9, 19, 20, 30, 150, 300)]
LOG_FLOOR = Fraction(math.log(1e-30))
DRAWS = 30


def vectors(m: float):
    """Score vectors at magnitude ``m``: spread in proportion, two leaders far above two
    close followers (the differences a global shift rounds away), and ties."""
    return [(3 * m, m, 2 * m), (m, 1000.0, 0.0), (m, 1.0, 0.0, -m), (m, m, 0.0)]


def cases():
    """(epsilon, sensitivity, magnitude): epsilon and the magnitude over the grid at
    sensitivity 1, and the sensitivity and the magnitude over the grid at epsilon 1."""
    for one, m in itertools.product(GRID, GRID):
        yield one, 1.0, m
        yield 1.0, one, m


def log_bound(name: str, a: Fraction, q: tuple, s: tuple) -> Fraction:
    """An upper bound on the log probability of the ordered output ``s`` (module
    docstring), exact."""
    if name in ("peel-em", "peel-pf", "gumbel"):
        return sum(a * (Fraction(q[r]) - max(Fraction(q[j]) for j in range(len(q))
                                             if j not in s[:t]))
                   for t, r in enumerate(s))
    if name in ("joint-em", "joint-pf"):
        return a * joint_utility(q, s)
    return -a * canonical_loss(q, s)


def assert_positive(name, mechanism, q, draws):
    a = Fraction(mechanism.exponent)
    for row in set(map(tuple, draws.tolist())):
        assert len(set(row)) == len(row) and all(0 <= r < len(q) for r in row), (q, row)
        assert log_bound(name, a, q, row) >= LOG_FLOOR, (name, q, row)


@pytest.mark.parametrize("name", TOPK_MECHANISMS)
def test_every_draw_has_positive_probability_over_the_grid(name):
    rng = np.random.default_rng(TOPK_MECHANISMS.index(name))
    checked = 0
    for epsilon, sensitivity, m in cases():
        for q in vectors(m):
            for top in range(2, len(q) + 1):
                try:
                    mechanism = make_topk_mechanism(name, epsilon, top, sensitivity,
                                                    monotonic=bool(top % 2))
                except InvalidArgumentError:
                    continue      # the exponent leaves the double range: refused
                draws = mechanism.sample(np.array(q), size=DRAWS, rng=rng)
                assert_positive(name, mechanism, q, draws)
                checked += 1
    assert checked > 500


@pytest.mark.parametrize("name", ["peel-pf", "peel-em", "gumbel"])
@pytest.mark.parametrize("q, epsilon, sensitivity", [
    ((3.0, 1.0, 2.0), 1e20, 1.0), ((1e19, 0.0, 0.0), 1.0, 1.0), ((3.0, 1.0, 2.0), 1.0, 1e-19),
    ((1e19, 1000.0, 0.0), 1e-9, 1e-19)])
def test_the_reported_cases(name, q, epsilon, sensitivity):
    """The issue's commands (peeling PF drew ``0 0``), and the scores whose last two a
    shift by the maximum tied (peeling EM and the one-shot Gumbel drew the impossible
    order); many draws, each an outcome of positive probability."""
    mechanism = make_topk_mechanism(name, epsilon, 2, sensitivity)
    draws = mechanism.sample(np.array(q), size=2000, rng=1)
    assert (draws[:, 0] != draws[:, 1]).all()
    assert_positive(name, mechanism, q, draws)
