"""The worst-base search for repeat-and-select (optmech.privacy.repeat_search): its ε′ at δ
against the accountant's exact inverse of the δ-curve and a bisection on the hockey-stick
divergence; its bases are ε-DP and cover every ε-DP pair; what it finds is an explicit pair
whose figure is recomputed exactly."""

import math

import numpy as np
import pytest

from optmech.privacy.accountant import _atoms_epsilon
from optmech.privacy.divergences import hockey_stick
from optmech.privacy.loss_atoms import LossAtoms
from optmech.privacy.repeat import repeated_pair
from optmech.privacy.repeat_bounds import sharp_epsilon
from optmech.privacy.repeat_search import base_pair, epsilon_at_delta, worst_base_pair
from optmech.validation import InvalidArgumentError


def _bisection(log_p, log_q, delta):
    """The largest ε′ with δ(ε′) >= delta, by bisection on the hockey-stick divergence."""
    def curve(x):
        return hockey_stick(log_p, log_q, [x])[0]
    if curve(0.0) < delta:
        return 0.0
    lo, hi = 0.0, 50.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if curve(mid) >= delta else (lo, mid)
    return lo


def test_epsilon_at_delta_is_the_exact_inverse():
    rng = np.random.default_rng(3)
    for trial in range(200):
        m = int(rng.integers(2, 8))
        p, q = rng.dirichlet(np.ones(m) * 0.3), rng.dirichlet(np.ones(m) * 0.3)
        delta = float(10.0 ** rng.uniform(-9, -0.5))
        got = epsilon_at_delta(np.log(p), np.log(q), delta)[0]
        assert got == pytest.approx(_bisection(np.log(p), np.log(q), delta), abs=1e-10)
        atoms = LossAtoms.of(np.log(p), np.log(q))
        both = max(got, epsilon_at_delta(np.log(q), np.log(p), delta)[0])
        assert both == pytest.approx(_atoms_epsilon(atoms, delta), abs=1e-10)
    # only P can produce an output of mass above delta: unbounded
    assert math.isinf(epsilon_at_delta(np.log([0.5, 0.5]), [0.0, -np.inf], 0.1)[0])


def test_the_bases_are_eps_dp_and_every_eps_dp_pair_is_one():
    rng = np.random.default_rng(4)
    eps = 0.7
    log_p, log_q = base_pair(rng.normal(0, 5, (100, 8)), eps)
    assert np.abs(log_p - log_q).max() <= eps * (1 + 1e-14)
    assert np.exp(log_p).sum(axis=1) == pytest.approx(1.0, abs=1e-15)
    e = math.exp(eps)
    p, q = np.array([0.5, 0.3, 0.2]), np.array([0.45, 0.35, 0.2])    # ε-DP at 0.7
    a, b = (e * p - q) / (e - 1), (e * q - p) / (e - 1)
    back_p, back_q = base_pair(np.log(np.concatenate([a, b])), eps)
    np.testing.assert_allclose(np.exp(back_p[0]), p, rtol=1e-14)
    np.testing.assert_allclose(np.exp(back_q[0]), q, rtol=1e-14)


@pytest.mark.parametrize("law", ["geometric:0.1", "poisson:10"])
def test_what_the_search_finds_is_an_explicit_pair(law):
    found = worst_base_pair(law, 1.0, 3, starts=2, iterations=40, rng=0)
    assert found.m == 3 and found.evaluations > 0
    pair = repeated_pair(found.p, found.q, law)
    value = max(epsilon_at_delta(pair.log_p, pair.log_q, 1e-6)[0],
                epsilon_at_delta(pair.log_q, pair.log_p, 1e-6)[0])
    assert value == pytest.approx(found.value, rel=1e-9)
    # below the sharp pure-DP bound, and within 1 % of it from three outputs on
    assert sharp_epsilon(law, 1.0) * 0.99 <= found.value <= sharp_epsilon(law, 1.0)
    again = worst_base_pair(law, 1.0, 3, starts=2, iterations=40, rng=0)
    assert again.value == found.value              # seeded


def test_bad_search_arguments_are_refused():
    with pytest.raises(InvalidArgumentError, match="m must be"):
        worst_base_pair("fixed:2", 1.0, 1)
    with pytest.raises(InvalidArgumentError, match="objective must be"):
        worst_base_pair("fixed:2", 1.0, 2, objective="rho")
    with pytest.raises(InvalidArgumentError, match="at must be a delta"):
        worst_base_pair("fixed:2", 1.0, 2, at=2.0)
    with pytest.raises(InvalidArgumentError, match="epsilon must be"):
        worst_base_pair("fixed:2", 0.0, 2)
