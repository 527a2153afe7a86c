"""Checks of multi-selection claims themselves (the claims inventory cites them): Example 4's
disutility bound, the ring's optimal noise as piece-wise Laplace (Appendix A.2), and
g-geographic DP as a relaxation (Appendix A.1)."""

import math

import numpy as np

from optmech.multiselect.dilp import solve_dilp

METRICS = {
    "l1": lambda a, b: np.abs(a - b).sum(axis=-1),
    "l2": lambda a, b: np.sqrt(((a - b) ** 2).sum(axis=-1)),
    "linf": lambda a, b: np.abs(a - b).max(axis=-1),
}


def test_example_4_disutility_bound_in_several_metrics():
    """Example 4 and footnote 4: with OPT(u) the result nearest u, d(u, OPT(u')) - d(u, OPT(u))
    <= 2 d(u, u') for every pair of users, here in l1, l2 and l-infinity on R^3 and on the
    ring, 2000 random user pairs against 50 random results each."""
    rng = np.random.default_rng(4)
    ring = lambda a, b: np.minimum(np.abs(a - b) % (2 * math.pi),
                                   2 * math.pi - np.abs(a - b) % (2 * math.pi))[..., 0]
    for name, d in [*METRICS.items(), ("ring", ring)]:
        dim = 1 if name == "ring" else 3
        results = rng.uniform(-3, 3, (50, dim))
        u, v = rng.uniform(-3, 3, (2, 2000, dim))
        opt_u = results[np.argmin(d(u[:, None], results[None]), axis=1)]
        opt_v = results[np.argmin(d(v[:, None], results[None]), axis=1)]
        assert (d(u, opt_v) - d(u, opt_u) <= 2 * d(u, v) + 1e-12).all(), name


def test_ring_optimal_noise_is_piecewise_laplace():
    """Appendix A.2: 'a piece-wise composition of Laplace noises'.  The DILP's optimal noise
    density on the ring (k = 2, eps = 3/8) has log-slope exactly +-eps on every grid cell,
    changing sign four times around the circle (peaks at 0 and pi)."""
    for grid in (80, 120):
        r = solve_dilp(2, 0.375, grid, ring=True)
        slope = np.diff(np.log(r.user_offset_density)) / r.spacing
        np.testing.assert_allclose(np.abs(slope), 0.375, rtol=1e-6)
        signs = np.sign(slope)
        changes = int(np.count_nonzero(signs != np.roll(signs, 1)))
        assert changes == 4, changes


def test_g_geographic_dp_relaxes_epsilon_geographic_dp():
    """Appendix A.1: for g increasing and convex with g(0) = 0, g(t) >= g'(0) t, so
    Pr[Q_u1 in S] <= e^{g'(0)|u1 - u2|} Pr[Q_u2 in S] <= e^{g(|u1 - u2|)} Pr[Q_u2 in S]: an
    eps-GDP mechanism with eps = g'(0) is g-GDP.  Checked on several such g, and on Laplace
    noise of rate g'(0) (its worst log-ratio at distance t is g'(0) t <= g(t))."""
    t = np.linspace(0, 20, 2001)
    for eps, g in ((0.5, lambda x: 0.5 * x + x ** 2),
                   (1.0, np.expm1),
                   (2.0, lambda x: 2 * x + 5 * np.maximum(x - 1, 0)),
                   (0.3, lambda x: 0.3 * np.sinh(x))):
        slope0 = (g(1e-7) - g(0.0)) / 1e-7
        assert abs(slope0 - eps) < 1e-5
        assert (g(t) >= eps * t - 1e-12).all()
        x = np.linspace(-10, 10, 401)
        laplace = lambda c: np.log(eps / 2) - eps * np.abs(x - c)
        for gap in (0.1, 1.0, 3.0):
            assert np.max(laplace(0.0) - laplace(gap)) <= g(gap) + 1e-12
