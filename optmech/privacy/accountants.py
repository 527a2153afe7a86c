"""What the accountants compute for selection mechanisms, re-derived from their source.

The referee (:mod:`optmech.privacy.claims`) judges the accountants' claims against what their
code computes.  ``dp_accounting``'s ``ExponentialMechanismDpEvent`` and
``PermuteAndFlipDpEvent`` are not in its newest release (0.6.0); they exist only in the
source of ``google/differential-privacy`` (``python/dp_accounting/``), read at commit
:data:`DP_ACCOUNTING_COMMIT`.  So the values their branches compute are re-derived here, line
by line, and need no ``dp_accounting``; where the release has the same code (the Laplace RDP,
the RDP-to-(ε, δ) conversion, the Laplace PLD), tests compare with it
(``pytest.importorskip``).

* :func:`em_event_rdp`: ``rdp/rdp_privacy_accountant.py``, ``RdpAccountant._maybe_compose``,
  the ``ExponentialMechanismDpEvent`` branch: ``min(xi + eps^2 alpha / 8, eps)`` with
  ``xi = u - 1 - log u - eps^2 / 8``, ``u = eps / expm1(eps)``, added to the accountant's
  RDP once per event, whatever ``count`` (every other branch multiplies by ``count``);
  :func:`rdp_accountant_em` is what the accountant holds after composing ``count`` of them.
* :func:`laplace_rdp`: the ``PermuteAndFlipDpEvent`` branch adds ``count *
  _laplace_rdp(eps, alpha)`` (Mironov, *Rényi differential privacy*, arXiv:1702.07476,
  Proposition 6).
* :func:`laplace_delta`: the PLD accountant's ``PermuteAndFlipDpEvent`` branch uses
  ``from_laplace_mechanism(parameter=1/eps)``: Laplace noise of scale ``1/eps`` on a
  sensitivity-1 query, whose hockey-stick divergence is ``1 - e^((eps' - eps)/2)`` for
  ``0 <= eps' <= eps``.
* :func:`compute_epsilon`: ``rdp_privacy_accountant.compute_epsilon`` (the conversion of
  Canonne, Kamath and Steinke, arXiv:2004.00010, Proposition 12).
* The PLD accountant's ``ExponentialMechanismDpEvent`` branch uses
  ``from_privacy_parameters(eps, delta=0)``, the randomised-response PLD:
  :func:`~optmech.privacy.bounds.randomised_response_delta`, and composed exactly by
  :mod:`optmech.privacy.composition`.
"""

from __future__ import annotations

import math

import numpy as np

from optmech.privacy.divergences import check_grid
from optmech.validation import InvalidArgumentError, check_nonnegative, check_positive

__all__ = ["DP_ACCOUNTING_COMMIT", "DP_ACCOUNTING_RELEASE", "RDP_ORDERS", "compute_epsilon",
           "em_event_rdp", "laplace_delta", "laplace_rdp", "rdp_accountant_em"]

#: The commit of google/differential-privacy whose ``python/dp_accounting`` is read here.
DP_ACCOUNTING_COMMIT = "b5b0286e313b64a692abfc8c528d54ef47d960a0"
#: The newest release of dp-accounting on the package index (it lacks both events).
DP_ACCOUNTING_RELEASE = "0.6.0"
#: ``DEFAULT_RDP_ORDERS`` of the RDP accountant (same in the release and the source).
RDP_ORDERS = np.array([1 + x / 10.0 for x in range(1, 100)] + list(range(11, 64))
                      + [128, 256, 512, 1024], dtype=float)


def _orders(orders) -> np.ndarray:
    return check_grid(orders, "orders", 1.0, finite=True)


def em_event_rdp(epsilon: float, orders) -> np.ndarray:
    """The RDP one ``ExponentialMechanismDpEvent(epsilon)`` adds at each order."""
    eps = check_positive(epsilon, "epsilon")
    u = eps / math.expm1(eps)
    xi = u - 1 - math.log(u) - eps ** 2 / 8
    return np.minimum(xi + (eps ** 2 / 8) * _orders(orders), eps)


def rdp_accountant_em(epsilon: float, orders, count: int) -> np.ndarray:
    """The accountant's RDP after composing ``count`` exponential mechanisms, as the source at
    :data:`DP_ACCOUNTING_COMMIT` computes it: one event's value (``count`` unused there)."""
    if not (isinstance(count, int) and count >= 1):
        raise InvalidArgumentError("count", count, "an integer >= 1")
    return em_event_rdp(epsilon, orders)


def laplace_rdp(epsilon: float, orders) -> np.ndarray:
    """``D_alpha`` of Laplace noise of scale ``1/epsilon`` on a sensitivity-1 query:
    ``eps + log(1 + (alpha-1) expm1((1-2 alpha) eps) / (2 alpha - 1)) / (alpha - 1)``
    (``alpha = 1``: ``eps + e^-eps - 1``)."""
    eps = check_nonnegative(epsilon, "epsilon")
    out = []
    for a in _orders(orders).tolist():       # Python floats: eps (1 - 2a) may be -inf
        if a == 1:
            out.append(eps + math.expm1(-eps))
        else:
            c = math.expm1(eps * (1 - 2 * a)) / (2 * a - 1)
            out.append(eps + math.log1p((a - 1) * c) / (a - 1))
    return np.array(out)


def laplace_delta(epsilon: float, eps_prime) -> np.ndarray:
    """``1 - e^((eps' - eps)/2)`` (0 beyond ``eps' = eps``): the hockey-stick divergence of
    the Laplace mechanism with parameter ``1/eps``."""
    eps = check_nonnegative(epsilon, "epsilon")
    grid = np.atleast_1d(np.asarray(eps_prime, dtype=float))
    return -np.expm1(np.minimum(grid - eps, 0.0) / 2.0)


def compute_epsilon(orders, rdp, delta: float) -> tuple[float, float]:
    """``(epsilon, order)``: the RDP accountant's conversion of an RDP curve to ``epsilon`` at
    ``delta`` (``rdp_privacy_accountant.compute_epsilon``)."""
    grid = _orders(orders)
    values = np.asarray(rdp, dtype=float)
    delta = float(delta)
    if not 0 < delta < 1:
        raise InvalidArgumentError("delta", delta, "a number in (0, 1)")
    candidates = []
    for a, r in zip(grid, values):
        if r < 0 or delta ** 2 + math.expm1(-r) > 0:
            candidates.append(0.0)
        elif a > 1.01:
            candidates.append(r + math.log1p(-1 / a) - math.log(delta * a) / (a - 1))
        else:
            candidates.append(math.inf)
    best = int(np.argmin(candidates))
    return max(0.0, candidates[best]), float(grid[best])
