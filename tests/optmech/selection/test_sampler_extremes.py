"""Every selection sampler draws only candidates of positive probability, at every finite
epsilon, sensitivity and score the API accepts: a log grid from 1e-300 to 1e300 of each.

As for the top-T samplers (tests/optmech/topk/test_sampler_extremes.py), "positive" has
a margin: no draw may be a candidate whose exact probability is below 1e-30.  The bound
is exact rational arithmetic on the definitions, with ``g = a (q* - q_r)`` (``a`` the
mechanism's exponent): EM and PF (and report-noisy-max with Gumbel or exponential noise,
the same distributions) pick ``r`` with probability at most ``e^{-g}``; report-noisy-max
with Laplace noise at most ``Pr[Y_r - Y_* > g] = e^{-g} (2 + g) / 4``; randomised
response and uniform selection give every candidate a positive probability.  With Gaussian
noise (scale ``sigma`` over the same grid, ``g = (q* - q_r) / sigma``) at most ``Pr[Z_r - Z_* >
g] = Phibar(g / sqrt 2) <= e^{-g^2/4} / 2``."""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from optmech.selection.mechanisms import MECHANISMS, GaussianNoisyMax, make_mechanism
from optmech.validation import InvalidArgumentError

GRID = [10.0 ** k for k in (-300, -150, -30, -9, 0, 9, 19, 20, 30, 150, 300)]
LOG_FLOOR = math.log(1e-30)


def vectors(m: float):
    return [(3 * m, m, 2 * m), (m, 1000.0, 0.0), (m, 1.0, 0.0, -m), (m, m, 0.0)]


def log_bound(name: str, a: Fraction, q: tuple, r: int) -> float:
    g = a * (max(map(Fraction, q)) - Fraction(q[r]))
    if name in ("rr", "uniform"):
        return 0.0
    if g > 10**6:
        return -math.inf
    g = float(g)
    return -g + (math.log((2 + g) / 4) if name == "rnm_laplace" else 0.0)


@pytest.mark.parametrize("name", MECHANISMS)
def test_every_draw_has_positive_probability_over_the_grid(name):
    rng = np.random.default_rng(MECHANISMS.index(name))
    checked = 0
    for (one, m), swap in itertools.product(itertools.product(GRID, GRID), (False, True)):
        epsilon, sensitivity = (1.0, one) if swap else (one, 1.0)
        try:
            mechanism = make_mechanism(name, epsilon, sensitivity, monotonic=swap)
        except InvalidArgumentError:
            continue          # the exponent leaves the double range: refused
        a = Fraction(getattr(mechanism, "exponent", 1.0))
        for q in vectors(m):
            draws = np.asarray(mechanism.sample(np.array(q), size=50, rng=rng))
            assert ((draws >= 0) & (draws < len(q))).all()
            for r in set(draws.tolist()):
                assert log_bound(name, a, q, r) >= LOG_FLOOR, (epsilon, sensitivity, q, r)
            checked += 1
    assert checked > 800


def test_every_gaussian_draw_has_positive_probability_over_the_grid():
    rng = np.random.default_rng(len(MECHANISMS))
    checked = 0
    for sigma, m in itertools.product(GRID, GRID):
        mechanism = GaussianNoisyMax(sigma)
        for q in vectors(m):
            draws = np.asarray(mechanism.sample(np.array(q), size=50, rng=rng))
            assert ((draws >= 0) & (draws < len(q))).all()
            for r in set(draws.tolist()):
                g = (max(map(Fraction, q)) - Fraction(q[r])) / Fraction(sigma)
                log_bound = -math.inf if g > 10**6 else -float(g) ** 2 / 4 - math.log(2.0)
                assert g == 0 or log_bound >= LOG_FLOOR, (sigma, q, r)
            checked += 1
    assert checked == len(GRID) ** 2 * 4

