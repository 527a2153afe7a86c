"""The accountants' formulas as re-derived here, against independent references that need
no extra: the Laplace mechanism's hockey-stick and Rényi divergences by numerical
integration of its densities (scipy.quad), the exponential-mechanism branch's order-1 value
against the largest KL of a bounded-range pair (brute force over the pair's loss), and the
RDP-to-epsilon conversion against its defining formula."""

import math

import numpy as np
import pytest
from scipy import integrate

from optmech.privacy.accountants import (
    RDP_ORDERS,
    compute_epsilon,
    em_event_rdp,
    laplace_delta,
    laplace_rdp,
    rdp_accountant_em,
)
from optmech.privacy.bounds import bounded_range_kl
from optmech.privacy.divergences import kl_divergence


def _laplace(x, mu, b):
    return math.exp(-abs(x - mu) / b) / (2 * b)


@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_laplace_delta_by_integration(eps):
    b = 1.0 / eps
    for e in (0.0, eps / 3):
        # the integrand is 0 beyond (1 - b eps')/2, where P = e^eps' Q
        value, _ = integrate.quad(lambda x: _laplace(x, 0, b) - math.exp(e) * _laplace(x, 1, b),
                                  -80 * b, (1 - b * e) / 2, points=[0], epsabs=1e-15,
                                  epsrel=1e-13, limit=200)
        assert laplace_delta(eps, [e])[0] == pytest.approx(value, rel=1e-9)


@pytest.mark.parametrize("order", [1.0, 1.05, 2.0, 7.5])
def test_laplace_rdp_by_integration(order):
    eps, b = 1.0, 1.0
    if order == 1.0:
        value, _ = integrate.quad(lambda x: _laplace(x, 0, b) * (abs(x - 1) - abs(x)) / b,
                                  -40, 40, points=[0, 1], epsabs=1e-14)
    else:
        moment, _ = integrate.quad(lambda x: _laplace(x, 0, b) ** order
                                   * _laplace(x, 1, b) ** (1 - order), -60, 60,
                                   points=[0, 1], epsabs=1e-14, epsrel=1e-13)
        value = math.log(moment) / (order - 1)
    assert laplace_rdp(eps, [order])[0] == pytest.approx(value, rel=1e-9)


def test_em_branch_at_order_one_is_the_largest_bounded_range_kl():
    eps = 1.0
    t = np.linspace(1e-6, eps - 1e-6, 20001)
    q = (1 - np.exp(t - eps)) / (np.exp(t) - np.exp(t - eps))
    p = np.exp(t) * q
    best = kl_divergence(np.log(np.column_stack([p, 1 - p])),
                         np.log(np.column_stack([q, 1 - q]))).max()
    assert em_event_rdp(eps, [1.0])[0] == pytest.approx(best, rel=1e-8)
    assert em_event_rdp(eps, [1.0])[0] == pytest.approx(bounded_range_kl(eps), rel=1e-14)
    assert em_event_rdp(eps, [1.0])[0] == pytest.approx(0.123301561, abs=5e-10)


def test_the_source_ignores_count():
    """What the source at the named commit computes: the same curve for 1 and 10 events."""
    np.testing.assert_array_equal(rdp_accountant_em(1.0, RDP_ORDERS, 10),
                                  em_event_rdp(1.0, RDP_ORDERS))


def test_compute_epsilon_is_the_minimum_of_its_formula():
    orders = np.array([1.5, 2.0, 8.0, 32.0])
    rdp = 0.1 * orders
    delta = 1e-6
    formula = rdp + np.log1p(-1 / orders) - np.log(delta * orders) / (orders - 1)
    eps, order = compute_epsilon(orders, rdp, delta)
    assert eps == pytest.approx(formula.min(), rel=1e-14) and order == orders[np.argmin(formula)]
