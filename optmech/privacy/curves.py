"""Every privacy curve of a mechanism on one pair of neighbouring score vectors.

:func:`pair_curves` builds the pair's :class:`~optmech.privacy.loss.LossDistribution` and
evaluates, in both directions (``q`` against ``q'`` and back), taking the larger value:

* the max loss ``max_r |log(P_r / Q_r)|``;
* the hockey-stick divergence ``delta(eps')`` on a grid of ``eps' >= 0``;
* the Rényi divergence ``D_alpha`` on a grid of orders (1: KL, ``inf``: the max loss);
* the zCDP parameter ``rho = max D_alpha / alpha`` over the grid, and a certified upper
  bound on the sup over all ``alpha > 1``.

Methods and accuracy: :mod:`optmech.privacy.divergences`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from lp_models.display import Tabular
from optmech.privacy.divergences import (
    DEFAULT_ORDERS,
    check_grid,
    hockey_stick,
    max_loss,
    renyi,
    zcdp_rho,
    zcdp_rho_bound,
)
from optmech.privacy.loss import LossDistribution, loss_distribution
from optmech.unbounded import unbounded_if_infinite

__all__ = ["PairCurves", "curves_of", "default_eps_prime", "pair_curves"]


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

    @property
    def scores(self) -> np.ndarray:
        """The score vector ``q``."""
        return self.distribution.scores

    @property
    def neighbour(self) -> np.ndarray:
        """The neighbouring score vector ``q'``."""
        return self.distribution.neighbour

    def records(self) -> list[dict]:
        return ([{"curve": "delta", "x": float(e), "value": float(d)}
                 for e, d in zip(self.eps_prime, self.delta)]
                + [{"curve": "renyi", "x": float(a), "value": float(d)}
                   for a, d in zip(self.orders, self.divergence)])


def default_eps_prime(epsilon: float, points: int = 11) -> np.ndarray:
    """``points`` values of ``eps'`` evenly spaced on ``[0, epsilon]``."""
    return np.linspace(0.0, float(epsilon), points)


def curves_of(distribution: LossDistribution, eps_prime, orders=DEFAULT_ORDERS) -> PairCurves:
    """The curves of an already built pair (both directions, the larger value)."""
    eps_prime = check_grid(eps_prime, "eps_prime", 0.0, finite=True)
    orders = check_grid(orders, "orders", 1.0)
    logs = np.stack([distribution.log_p, distribution.log_q])
    forward, backward = logs, logs[::-1]
    loss = max_loss(forward, backward)                        # both directions at once
    delta = hockey_stick(forward, backward, eps_prime).max(axis=0)
    divergence = renyi(forward, backward, orders)
    worst = float(loss.max())
    rho = zcdp_rho(divergence, orders).max()
    bound = zcdp_rho_bound(divergence, orders, loss).max()
    return PairCurves(distribution, unbounded_if_infinite(worst), eps_prime, delta, orders,
                      divergence.max(axis=0), unbounded_if_infinite(float(rho)),
                      unbounded_if_infinite(float(bound)))


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
