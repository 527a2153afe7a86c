"""Checks of permute-and-flip claims themselves (the claims inventory cites them): Figure 1(b)
depends on (ε, Δ) only through p; Appendix F's integral for report-noisy-max, and where its
error curve crosses EM's."""

import math

import mpmath
import numpy as np
import pytest
from scipy import integrate, stats

from optmech.selection import ExponentialMechanism, PermuteAndFlip


def _step_error(mechanism, n, c):
    scores = np.r_[np.full(n - 1, c), 0.0]
    return float(mechanism.pmf(scores)[:-1].sum() * -c)


@pytest.mark.parametrize("n", [2, 3, 10, 100])
def test_worst_case_ratio_depends_on_epsilon_and_sensitivity_only_through_p(n):
    """§4.1, Figure 1(b): 'the ratio only depends on ε and Δ through p'.  EM/PF expected-error
    ratio on (c, ..., c, 0) with c = (2Δ/ε) ln p, from the mechanisms' pmfs at three (ε, Δ)."""
    for p in (0.9, 0.5, 0.1, 1e-3, 1e-8):
        ratios = []
        for eps, delta in ((1.0, 1.0), (0.3, 2.0), (5.0, 0.1)):
            c = 2 * delta / eps * math.log(p)
            ratios.append(_step_error(ExponentialMechanism(eps, delta), n, c)
                          / _step_error(PermuteAndFlip(eps, delta), n, c))
        assert max(ratios) - min(ratios) <= 1e-12 * max(ratios)


def _rnm_top(n, c, scale=2.0):
    law = stats.laplace(scale=scale)
    pieces = [-np.inf, c, 0.0, np.inf]
    return sum(integrate.quad(lambda x: law.pdf(x) * law.cdf(x - c) ** (n - 1), a, b,
                              epsabs=1e-13)[0] for a, b in zip(pieces[:-1], pieces[1:]))


@pytest.mark.parametrize("n, c", [(3, -2.0), (5, -6.0), (2, -0.5)])
def test_appendix_f_integral_is_report_noisy_max_by_simulation(n, c):
    """Appendix F: Pr[NM(c, ..., c, 0) = n] = ∫ f(x) F(x - c)^{n-1} dx and the expected error
    is -c (1 - Pr[NM = n]) (Laplace(2Δ/ε), ε = Δ = 1), against 10^6 runs of the mechanism:
    add the noise, report the argmax."""
    top = _rnm_top(n, c)
    rng = np.random.default_rng(n)
    scores = np.r_[np.full(n - 1, c), 0.0]
    picks = np.argmax(scores + rng.laplace(0.0, 2.0, (1_000_000, n)), axis=1)
    won = picks == n - 1
    se = math.sqrt(top * (1 - top) / won.size)
    assert abs(won.mean() - top) < 5 * se
    errors = -scores[picks]                                  # q* = 0
    assert abs(errors.mean() - (-c) * (1 - top)) < 5 * (-c) * se


def test_report_noisy_max_crosses_em_at_the_stated_points():
    """Figure 4's 'similar for other n': report-noisy-max's error on (c, ..., c, 0) equals EM's
    at c = -3.701 (n = 3), -5.762 (n = 5), -7.717 (n = 10), by 30-digit quadrature and
    root finding; for n = 2 it is above EM's at every c < 0."""
    b = mpmath.mpf(2)

    def rnm_top(n, c):
        f = lambda x: mpmath.exp(-abs(x) / b) / (2 * b)
        F = lambda x: (mpmath.exp(x / b) / 2 if x < 0 else 1 - mpmath.exp(-x / b) / 2)
        return mpmath.quad(lambda x: f(x) * F(x - c) ** (n - 1), [-mpmath.inf, c, 0, mpmath.inf])

    def gap(n, c):
        return rnm_top(n, c) - 1 / (1 + (n - 1) * mpmath.exp(c / 2))

    with mpmath.workdps(30):
        for n, expected in ((3, -3.701), (5, -5.762), (10, -7.717)):
            root = mpmath.findroot(lambda c: gap(n, c), expected)
            assert float(root) == pytest.approx(expected, abs=5e-4)
        assert all(gap(2, c) < 0 for c in (-0.1, -1, -3, -8, -20))
