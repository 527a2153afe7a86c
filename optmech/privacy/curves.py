"""Every privacy curve of a mechanism on one pair of neighbouring score vectors.

:func:`pair_curves` builds the pair's :class:`~optmech.privacy.loss.LossDistribution` and
evaluates, in both directions (``q`` against ``q'`` and back), taking the larger value:

* the max loss ``max_r |log(P_r / Q_r)|``;
* the hockey-stick divergence ``delta(eps')`` on a grid of ``eps' >= 0``;
* the Rényi divergence ``D_alpha`` on a grid of orders (1: KL, ``inf``: the max loss);
* the zCDP parameter ``rho = max D_alpha / alpha`` over the grid, and a certified upper
  bound on the sup over all ``alpha > 1``.

Methods: :mod:`optmech.privacy.divergences`.  Accuracy: every curve value carries a bound
on its error (``max_loss_error``, ``delta_error``, ``divergence_error``): the exact curve of
the pair lies within it.  It comes from the error bound of each log-probability (the
mechanism's stated accuracy, :func:`~optmech.privacy.loss.log_probability_errors`) through
the interval functions of :mod:`~optmech.privacy.divergences`, plus the rounding of the
curve's own evaluation (``(n + 40) 2^-53`` relative for ``n`` outputs).  It is below 1e-12
of the value except where the value comes from outputs whose loss lies within that loss's
error of ``eps'`` (δ) or of 0 (Rényi, KL): there the double-precision log-probabilities
themselves do not determine it (e.g. an exact 0 computed as 2.7e-22 ± 1e-21).  The zCDP
bound is computed from the upper ends of the divergences, so it stays certified.

Work.  Outputs whose two log-probabilities (and error bounds) coincide are merged first, a
group of ``c`` as one output of log-probabilities ``+ log c`` (its error bound widened by
that addition's rounding): every curve is a sum over outputs of a function of ``(p_r,
q_r)``, so nothing else changes.  The rest costs about ``1.5e-7`` CPU s per distinct output
and order or ``eps'`` (value and bounds; measured at 10^5 outputs x 242 orders, 3.8 s), and
:func:`curves_of` refuses, naming ``scores`` or ``orders`` (whichever is larger), what
would exceed the work or memory budget (:func:`optmech.resources.require`).  Before:
``pair_curves(pf, np.zeros(10**6), np.ones(10**6))`` and 10^6 orders gave no answer in a
minute (a Python loop over the orders, no merging); now 1.2 s and 2 s.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from lp_models.display import Tabular
from optmech.privacy.divergences import (
    DEFAULT_ORDERS,
    check_grid,
    hockey_stick,
    hockey_stick_interval,
    max_loss,
    max_loss_interval,
    renyi,
    renyi_interval,
    zcdp_rho,
    zcdp_rho_bound,
)
from optmech.privacy.loss import LossDistribution, loss_distribution
from optmech.resources import Estimate, require
from optmech.selection.scores import ROUNDING
from optmech.unbounded import unbounded_if_infinite

__all__ = ["PairCurves", "curves_estimate", "curves_of", "default_eps_prime", "pair_curves"]


@dataclass(frozen=True)
class PairCurves(Tabular):
    """The privacy curves of one pair, each the larger of its two directions.

    ``to_frame()`` is the δ curve and the Rényi curve as rows ``(curve, x, value)``.
    """

    #: The pair's output distributions (both directions are in it).
    distribution: LossDistribution = field(repr=False)
    #: ``max_r |log(P_r / Q_r)|`` (:data:`~optmech.unbounded.UNBOUNDED` when one input can
    #: produce an output the other cannot).
    max_loss: float
    #: The grid of ``eps' >= 0`` of the δ curve.
    eps_prime: np.ndarray = field(repr=False)
    #: ``delta(eps') = max(sum_r max(0, P_r - e^eps' Q_r), same with P and Q swapped)``.
    delta: np.ndarray = field(repr=False)
    #: The Rényi orders (>= 1; 1 is KL, ``inf`` the max loss).
    orders: np.ndarray = field(repr=False)
    #: ``max(D_alpha(P||Q), D_alpha(Q||P))`` for each order (``inf`` where unbounded).
    divergence: np.ndarray = field(repr=False)
    #: ``max D_alpha / alpha`` over the finite orders of the grid: a lower bound on the
    #: pair's zCDP ``rho`` (``sup`` over every ``alpha > 1``).
    zcdp_rho: float
    #: A certified upper bound on that sup (module :mod:`optmech.privacy.divergences`).
    zcdp_rho_bound: float
    #: A bound on ``|max_loss - exact|`` (module docstring; 0 where unbounded).
    max_loss_error: float = 0.0
    #: A bound on ``|delta - exact|`` for each ``eps'``.
    delta_error: np.ndarray | None = field(default=None, repr=False)
    #: A bound on ``|divergence - exact|`` for each order (0 where unbounded).
    divergence_error: np.ndarray | None = field(default=None, repr=False)

    @property
    def scores(self) -> np.ndarray:
        """The score vector ``q``."""
        return self.distribution.scores

    @property
    def neighbour(self) -> np.ndarray:
        """The neighbouring score vector ``q'``."""
        return self.distribution.neighbour

    def records(self) -> list[dict]:
        return ([{"curve": "delta", "x": float(e), "value": float(d), "error": float(r)}
                 for e, d, r in zip(self.eps_prime, self.delta, self.delta_error)]
                + [{"curve": "renyi", "x": float(a), "value": float(d), "error": float(r)}
                   for a, d, r in zip(self.orders, self.divergence, self.divergence_error)])


def default_eps_prime(epsilon: float, points: int = 11) -> np.ndarray:
    """``points`` values of ``eps'`` evenly spaced on ``[0, epsilon]``."""
    return np.linspace(0.0, float(epsilon), points)


def curves_of(distribution: LossDistribution, eps_prime, orders=DEFAULT_ORDERS) -> PairCurves:
    """The curves of an already built pair (both directions, the larger value)."""
    eps_prime = check_grid(eps_prime, "eps_prime", 0.0, finite=True)
    orders = check_grid(orders, "orders", 1.0)
    logs, errors = _merged(np.stack([distribution.log_p, distribution.log_q]),
                           np.stack(distribution.errors()))
    require(curves_estimate(logs.shape[-1], orders.size, eps_prime.size))
    pair = (logs, logs[::-1])                                 # both directions at once
    bounds = (errors, errors[::-1])
    rounding = (logs.shape[-1] + 40) * ROUNDING               # the curves' own evaluation
    loss = max_loss(*pair)
    loss_range = max_loss_interval(*pair, *bounds)
    delta = hockey_stick(*pair, eps_prime)
    delta_range = hockey_stick_interval(*pair, eps_prime, *bounds)
    divergence = renyi(*pair, orders)
    divergence_range = renyi_interval(*pair, orders, *bounds)
    worst = float(loss.max())
    rho = zcdp_rho(divergence, orders).max()
    upper = divergence_range[1] * (1.0 + rounding)
    bound = zcdp_rho_bound(upper, orders, loss_range[1] * (1.0 + rounding)).max()
    return PairCurves(distribution, unbounded_if_infinite(worst), eps_prime, delta.max(axis=0),
                      orders, divergence.max(axis=0), unbounded_if_infinite(float(rho)),
                      unbounded_if_infinite(float(bound)),
                      float(_error(loss, loss_range, rounding)),
                      _error(delta, delta_range, rounding),
                      _error(divergence, divergence_range, rounding))


#: CPU seconds per distinct output and order (or eps') of :func:`curves_of`: the measured
#: 1.5e-7 (10^5 outputs x 242 orders, a quiet machine) times 3 for a loaded one.
SECONDS_PER_ENTRY = 5e-7


def curves_estimate(outputs: int, orders: int, eps_primes: int) -> Estimate:
    """The work and memory of :func:`curves_of` on ``outputs`` distinct outputs, naming
    ``orders`` or ``scores`` (whichever sets more of it)."""
    columns = orders + eps_primes
    entries = float(outputs) * columns
    argument, value = (("orders", f"{orders} orders") if orders >= outputs
                       else ("scores", f"{outputs} distinct outputs"))
    # blocks of at most 2^20 entries, a dozen arrays of them, and the outputs themselves
    nbytes = 8.0 * (12 * min(entries, 2.0 ** 20) + 64 * outputs + 8 * columns)
    return Estimate(SECONDS_PER_ENTRY * entries, nbytes, argument, value)


def _merged(logs: np.ndarray, errors: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The pair's outputs with equal ``(log p, log q, error p, error q)`` merged (module
    docstring); as given when all differ."""
    rows = np.concatenate([logs, errors]).T
    unique, counts = np.unique(rows, axis=0, return_counts=True)
    if unique.shape[0] == rows.shape[0]:
        return logs, errors
    weight = np.log(counts.astype(float))
    merged = np.minimum(unique[:, :2].T + weight, 0.0)
    # the rounding of log c (one ulp) and of the sum (half an ulp of the result)
    widened = unique[:, 2:].T + 2.0 * ROUNDING * (weight + np.where(np.isfinite(merged),
                                                                    np.abs(merged), 0.0))
    return merged, widened


def _error(values: np.ndarray, interval: tuple, rounding: float) -> np.ndarray:
    """A bound on ``|max(values) - max(exact)|`` over the two directions (axis 0), the
    exact values of each within ``interval`` up to the relative ``rounding`` of their own
    evaluation; 0 where the value is infinite (an exact 0 probability)."""
    value = values.max(axis=0)
    lower, upper = (end.max(axis=0) for end in interval)
    with np.errstate(invalid="ignore"):
        error = np.maximum(upper - value, value - lower) + rounding * np.abs(value)
    return np.where(np.isfinite(value), np.where(np.isnan(error), np.inf, error), 0.0)


def pair_curves(mechanism, scores, neighbour, *, sensitivity=None, monotonic=None,
                eps_prime=None, orders=DEFAULT_ORDERS) -> PairCurves:
    """The privacy curves of ``mechanism`` on ``(scores, neighbour)``.

    ``sensitivity`` (one number, or one per candidate) and ``monotonic`` default to the
    mechanism's own attributes (1 and False where it has none); the pair is refused unless
    it is neighbouring for them.  ``eps_prime`` defaults to 11 points on ``[0, epsilon]``
    (the mechanism's ``epsilon``; ``[0, 1]`` if it has none), ``orders`` to
    :data:`~optmech.privacy.divergences.DEFAULT_ORDERS`.
    """
    if sensitivity is None:
        sensitivity = getattr(mechanism, "sensitivity", 1.0)
    if monotonic is None:
        monotonic = bool(getattr(mechanism, "monotonic", False))
    distribution = loss_distribution(mechanism, scores, neighbour, sensitivity, monotonic)
    if eps_prime is None:
        eps_prime = default_eps_prime(getattr(mechanism, "epsilon", None) or 1.0)
    return curves_of(distribution, eps_prime, orders)
