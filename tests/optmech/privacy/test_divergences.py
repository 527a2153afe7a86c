"""The divergences of a pair against a 50-digit mpmath evaluation of their definitions, at
ordinary pairs, pairs with probabilities below 1e-300 and pairs that nearly agree; closed
forms of binary pairs; the certified zCDP bound against a brute-force sup over orders."""

import functools
import math

import mpmath as mp
import numpy as np
import pytest

from optmech.privacy.divergences import (
    DEFAULT_ORDERS,
    hockey_stick,
    kl_divergence,
    max_loss,
    renyi,
    zcdp_rho,
    zcdp_rho_bound,
)
from optmech.validation import InvalidArgumentError
from tests.optmech.privacy.references import delta_reference, renyi_reference

ORDERS = [1.0, 1.001, 1.5, 2.0, 8.0, 100.0, math.inf]
EPS_PRIME = [0.0, 0.1, 1.0]


def _pair(z, z2):
    """Exact (mpmath) log-pmfs from two vectors of log-weights, and their doubles."""
    def normalised(values):
        values = [mp.mpf(float(v)) for v in values]
        top = max(values)
        norm = mp.log(mp.fsum(mp.exp(v - top) for v in values))
        return [v - top - norm for v in values]
    with mp.workdps(60):
        exact = normalised(z), normalised(z2)
    return exact, tuple(np.array([float(v) for v in side]) for side in exact)


@functools.lru_cache(maxsize=None)
def _cases():
    """(exact pair, double pair, smallest |loss|) for the test pairs: one 50-digit
    reference per case, computed once."""
    rng = np.random.default_rng(7)
    cases = []
    for trial in range(12):
        n = int(rng.integers(2, 6))
        z = rng.normal(size=n) * 2
        if trial % 4 == 0:
            z[0] -= 745.0                       # a probability near 1e-324
        z2 = z + rng.normal(size=n) * [1e-3, 0.5, 3.0][trial % 3]
        exact, double = _pair(z, z2)
        cases.append((exact, double))
    return cases


def _tolerance(exact):
    """Relative accuracy the double inputs allow: their rounding moves each loss by about
    2e-16, so a loss of size L is known to 2e-16 / L relative."""
    lp, lq = exact
    smallest = max(float(min(abs(x - y) for x, y in zip(lp, lq) if abs(x - y) > 0)), 1e-12)
    return max(1e-12, 4e-16 / smallest)


@pytest.mark.parametrize("case", range(12))
def test_renyi_matches_mpmath(case):
    exact, (lp, lq) = _cases()[case]
    values = renyi(lp, lq, ORDERS)
    for a, value in zip(ORDERS, values):
        reference = float(renyi_reference(*exact, a))
        assert value == pytest.approx(reference, rel=_tolerance(exact), abs=1e-300), a


@pytest.mark.parametrize("case", range(12))
def test_hockey_stick_matches_mpmath(case):
    exact, (lp, lq) = _cases()[case]
    for e, value in zip(EPS_PRIME, hockey_stick(lp, lq, EPS_PRIME)):
        reference = float(delta_reference(*exact, e))
        assert value == pytest.approx(reference, rel=_tolerance(exact), abs=1e-300), e


def test_kl_is_renyi_at_one_and_max_loss_is_renyi_at_infinity():
    _, (lp, lq) = _cases()[1]
    assert kl_divergence(lp, lq) == renyi(lp, lq, [1.0])[0]
    assert max_loss(lp, lq) == renyi(lp, lq, [math.inf])[0]


def test_binary_pair_closed_forms():
    """Randomised response (e^eps, 1)/(1 + e^eps) against its swap: KL = eps tanh(eps/2),
    delta(eps') = (e^eps - e^eps')/(1 + e^eps), D_2 = log(cosh(3 eps / 2) / cosh(eps / 2))
    (sum p^2 / q)."""
    eps = 0.8
    p = np.log(np.array([math.exp(eps), 1.0]) / (1 + math.exp(eps)))
    q = p[::-1]
    assert kl_divergence(p, q) == pytest.approx(eps * math.tanh(eps / 2), rel=1e-14)
    assert hockey_stick(p, q, [0.3])[0] == pytest.approx(
        (math.exp(eps) - math.exp(0.3)) / (1 + math.exp(eps)), rel=1e-14)
    d2 = math.log((math.exp(2 * eps) + math.exp(-eps)) / (1 + math.exp(eps)))
    assert renyi(p, q, [2.0])[0] == pytest.approx(d2, rel=1e-14)


def test_an_output_only_one_side_produces_is_unbounded():
    p = np.log([0.5, 0.5])
    q = np.array([0.0, -np.inf])
    assert max_loss(p, q) == math.inf and renyi(p, q, [2.0])[0] == math.inf
    assert hockey_stick(p, q, [5.0])[0] == pytest.approx(0.5)
    assert max_loss(q, p) == pytest.approx(math.log(2))


def test_equal_distributions_have_zero_divergences():
    p = np.log([0.2, 0.3, 0.5])
    assert renyi(p, p, ORDERS).tolist() == [0.0] * len(ORDERS)
    assert hockey_stick(p, p, [0.0]).tolist() == [0.0]


def test_certified_rho_bound_brackets_the_sup_over_a_fine_grid():
    """The certified bound is at least the sup of D_alpha / alpha over 4,000 orders (a
    brute-force maximum, 16 times denser than the grid) and within 1 % of the grid's
    value."""
    _, (lp, lq) = _cases()[5]
    both = np.stack([lp, lq]), np.stack([lq, lp])
    fine = 1.0 + np.geomspace(1e-5, 1e4, 4_000)
    brute = (renyi(*both, fine) / fine).max()
    divergence = renyi(*both, DEFAULT_ORDERS)
    lower = zcdp_rho(divergence, DEFAULT_ORDERS).max()
    upper = zcdp_rho_bound(divergence, DEFAULT_ORDERS, max_loss(*both)).max()
    assert lower <= brute * (1 + 1e-12) and brute <= upper * (1 + 1e-12)
    assert upper <= lower * 1.01


def test_bad_inputs_are_refused():
    with pytest.raises(InvalidArgumentError, match="log_p"):
        renyi([0.0], [0.0, -1.0], [2.0])
    with pytest.raises(InvalidArgumentError, match="orders"):
        renyi([0.0], [0.0], [0.5])
    with pytest.raises(InvalidArgumentError, match="log_p"):
        max_loss([0.5], [0.0])
