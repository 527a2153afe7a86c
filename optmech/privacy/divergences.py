"""Privacy curves of a pair of output distributions, from their log-probabilities.

Every function takes ``log_p`` and ``log_q``, the logarithms of two distributions on the same
outputs (``-inf`` where a probability is 0), as arrays of shape ``(..., n)``: one pair per
row, so a batch of pairs is one call.  With the privacy loss ``L_r = log p_r - log q_r``:

* :func:`max_loss`: ``max_r L_r`` over the outputs ``p`` can produce (``D_inf(P||Q)``);
* :func:`hockey_stick`: ``delta(eps') = sum_r max(0, p_r - e^eps' q_r)``, the smallest delta
  with ``P(S) <= e^eps' Q(S) + delta`` for every set of outputs ``S``;
* :func:`renyi`: ``D_alpha(P||Q) = log(sum_r p_r^alpha q_r^(1-alpha)) / (alpha - 1)``
  (``alpha = 1``: Kullback-Leibler, ``alpha = inf``: the max loss);
* :func:`zcdp_rho`: ``sup_alpha D_alpha / alpha`` over a grid of orders, with a certified
  upper bound over every ``alpha > 1``.

Method (each choice for accuracy where probabilities fall below 1e-300 and where ``P`` and
``Q`` nearly agree, the two places a direct formula loses every digit):

* ``delta(eps') = sum_{L_r > eps'} p_r (1 - e^(eps' - L_r))``: only positive terms, each formed
  in logs (``log p_r + log(-expm1(eps' - L_r))``) and summed by log-sum-exp.
* Rényi.  With ``h = alpha - 1``, ``sum_r q_r e^(alpha L_r) = 1 + h KL + sum_r p_r g(h L_r)``
  where ``g(x) = e^x - 1 - x >= 0`` and ``KL = sum_r q_r phi(L_r)``, ``phi(L) = L e^L - e^L + 1
  >= 0`` (both identities use ``sum p = sum q = 1``).  Every term is non-negative, so nothing
  cancels; ``g`` and ``phi`` are evaluated by their Taylor series below ``|x| = 1/2`` (where
  ``expm1(x) - x`` would lose ``-log10(x)`` digits) and directly above.  Then ``D_alpha =
  log1p(S) / h``.  Where a term ``p_r e^(h L_r)`` exceeds ``e`` the sum is instead taken by
  log-sum-exp of ``log p_r + h L_r`` (no overflow, and ``log`` of a sum above ``e`` loses
  nothing).  Measured: within 1e-13 relative of a 50-digit mpmath evaluation from the
  definition, including pairs with probabilities of 1e-320 and pairs whose losses are 1e-9.
* zCDP.  ``rho`` is the largest ``D_alpha / alpha`` over the grid: a lower bound on the sup
  over all ``alpha > 1`` (``alpha = 1`` counts as the limit ``alpha -> 1+``).  The certified
  upper bound uses two facts: ``K(alpha) = (alpha - 1) D_alpha = log E_Q[(P/Q)^alpha]`` is
  convex in ``alpha`` (a log-sum-exp of affine functions) with ``K(1) = 0``, so between two
  orders of the grid ``K`` lies below its chord, and ``D_alpha <= D_inf`` beyond the largest
  order (Rényi divergence is non-decreasing in ``alpha``: van Erven and Harremoës, *Rényi
  divergence and Kullback-Leibler divergence*, IEEE Trans. Inf. Theory 2014,
  arXiv:1206.2459, Theorem 3).  On each interval the largest value of ``chord / (alpha
  (alpha - 1))`` is found in closed form (the ends and the root of a quadratic).  The bound is
  exact up to the rounding of the computed divergences (about 1e-15 relative).
"""

from __future__ import annotations

import math

import numpy as np

from optmech.validation import InvalidArgumentError

__all__ = ["DEFAULT_ORDERS", "check_grid", "hockey_stick", "kl_divergence", "max_loss", "renyi",
           "zcdp_rho", "zcdp_rho_bound"]

#: Default Rényi orders: 1 (KL), 240 orders with ``alpha - 1`` spaced geometrically in
#: [1e-3, 1e4], and infinity.  Dense enough that the certified zCDP bound is within 0.5 %
#: of the grid's value for every mechanism here (measured at eps = 0.1 ... 4).
DEFAULT_ORDERS = np.concatenate([[1.0], 1.0 + np.geomspace(1e-3, 1e4, 240), [np.inf]])
_SERIES_LIMIT = 0.5
_SERIES_TERMS = 24          # |x| <= 1/2: the first omitted term is below 1e-30 of x^2/2


def _pair(log_p, log_q) -> tuple[np.ndarray, np.ndarray]:
    log_p = np.asarray(log_p, dtype=float)
    log_q = np.asarray(log_q, dtype=float)
    if log_p.shape != log_q.shape or log_p.ndim < 1 or log_p.shape[-1] < 1:
        raise InvalidArgumentError("log_p, log_q", (log_p.shape, log_q.shape),
                                   "two arrays of log-probabilities of the same shape")
    if np.isnan(log_p).any() or np.isnan(log_q).any() or (log_p > 0).any() \
            or (log_q > 0).any():
        raise InvalidArgumentError("log_p, log_q", "NaN or a value > 0",
                                   "log-probabilities (<= 0, -inf for probability 0)")
    return log_p, log_q


def _losses(log_p: np.ndarray, log_q: np.ndarray) -> np.ndarray:
    """``log p - log q`` with ``0 - 0 -> -inf`` (an output neither can produce: weight 0) and
    ``p > 0 = q -> +inf``."""
    with np.errstate(invalid="ignore"):
        loss = log_p - log_q
    return np.where(np.isneginf(log_p), -np.inf, loss)


def max_loss(log_p, log_q) -> np.ndarray:
    """``max_r log(p_r / q_r)`` over the outputs with ``p_r > 0`` (``inf`` if ``q_r = 0`` at
    one of them): ``D_inf(P||Q)``, one value per pair (a 0-d array for one pair)."""
    log_p, log_q = _pair(log_p, log_q)
    return _losses(log_p, log_q).max(axis=-1)


def _logsumexp(x: np.ndarray, axis: int = -1) -> np.ndarray:
    top = np.max(x, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return np.log(np.exp(x - top).sum(axis=axis)) + np.squeeze(top, axis=axis)


def hockey_stick(log_p, log_q, eps_prime) -> np.ndarray:
    """``delta(eps') = sum_r max(0, p_r - e^eps' q_r)`` for every ``eps'`` of ``eps_prime``
    (finite numbers): an array of shape ``(..., len(eps_prime))``."""
    log_p, log_q = _pair(log_p, log_q)
    grid = check_grid(eps_prime, "eps_prime", -np.inf, finite=True)
    loss = _losses(log_p, log_q)[..., None]                    # (..., n, 1)
    gap = grid - loss                                          # eps' - L, (..., n, m)
    with np.errstate(divide="ignore", invalid="ignore"):
        log_terms = np.where(gap < 0, log_p[..., None] + np.log(-np.expm1(np.minimum(gap, 0))),
                             -np.inf)
    return np.exp(_logsumexp(log_terms, axis=-2))


def _series(x: np.ndarray, coefficients: np.ndarray) -> np.ndarray:
    """``sum_k c_k x^k`` for k = 2 ... (Horner)."""
    out = np.zeros_like(x)
    for c in coefficients[::-1]:
        out = (out + c) * x
    return out * x


_G = np.array([1.0 / math.factorial(k) for k in range(2, 2 + _SERIES_TERMS)])
_PHI = np.array([(k - 1.0) / math.factorial(k) for k in range(2, 2 + _SERIES_TERMS)])


def _g(x: np.ndarray) -> np.ndarray:
    """``e^x - 1 - x >= 0`` without cancellation (finite ``x``)."""
    small = np.abs(x) <= _SERIES_LIMIT
    with np.errstate(over="ignore"):
        direct = np.expm1(x) - x
    return np.where(small, _series(np.where(small, x, 0.0), _G), direct)


def _phi_terms(log_p: np.ndarray, log_q: np.ndarray, loss: np.ndarray) -> np.ndarray:
    """``q_r phi(L_r) = p_r L_r - p_r + q_r >= 0`` per output, without cancellation
    (``p = 0``: ``q``; ``q = 0 < p``: ``inf``)."""
    p, q = np.exp(log_p), np.exp(log_q)
    small = np.abs(loss) <= _SERIES_LIMIT
    finite = np.isfinite(loss)
    safe = np.where(finite, loss, 0.0)
    with np.errstate(over="ignore", invalid="ignore"):
        # L > 1/2: p (L - 1) + q, both terms >= 0 beyond L = 1 and q dominates below it;
        # L < -1/2: q (1 + e^L (L - 1)) with 1 + e^L (L - 1) in [0.24, 1].
        above = p * (safe - 1.0) + q
        below = q * (1.0 + np.exp(safe) * (safe - 1.0))
        near = q * _series(np.where(small, safe, 0.0), _PHI)
    terms = np.where(small, near, np.where(safe > 0, above, below))
    terms = np.where(np.isneginf(loss), q, terms)
    return np.where(np.isposinf(loss), np.inf, terms)


def kl_divergence(log_p, log_q) -> np.ndarray:
    """``KL(P||Q) = sum_r p_r log(p_r / q_r)`` as a sum of non-negative terms."""
    log_p, log_q = _pair(log_p, log_q)
    return _phi_terms(log_p, log_q, _losses(log_p, log_q)).sum(axis=-1)


def _renyi_one(log_p, log_q, loss, kl, order: float) -> np.ndarray:
    if order == 1.0:
        return kl
    if math.isinf(order):
        return loss.max(axis=-1)
    h = order - 1.0
    with np.errstate(invalid="ignore", over="ignore"):
        log_terms = np.where(np.isneginf(log_p), -np.inf, log_p + h * loss)
    log_sum = _logsumexp(log_terms)                 # log sum_r p_r e^(h L_r)
    large = (log_terms.max(axis=-1) > 1.0) | ~np.isfinite(kl)
    with np.errstate(invalid="ignore", over="ignore"):
        x = h * np.where(np.isfinite(loss), loss, 0.0)
        p = np.exp(log_p)
        # p g(x); above x = 1 as e^(log p + x) - p (1 + x), which stays below e here
        big = x > 1.0
        terms = np.where(big, np.exp(log_p + np.where(big, x, 0.0)) - p * (1.0 + x),
                         p * _g(np.where(big, 0.0, x)))
        small_sum = h * kl + np.where(np.isneginf(log_p), 0.0, terms).sum(axis=-1)
    return np.where(large, log_sum / h, np.log1p(np.where(large, 0.0, small_sum)) / h)


def renyi(log_p, log_q, orders=DEFAULT_ORDERS) -> np.ndarray:
    """``D_alpha(P||Q)`` for every order ``alpha >= 1`` of ``orders`` (1: KL, ``inf``: the
    max loss): shape ``(..., len(orders))``; ``inf`` where ``q`` is 0 and ``p`` is not."""
    log_p, log_q = _pair(log_p, log_q)
    grid = _orders(orders)
    loss = _losses(log_p, log_q)
    kl = _phi_terms(log_p, log_q, loss).sum(axis=-1)
    return np.stack([_renyi_one(log_p, log_q, loss, kl, float(a)) for a in grid], axis=-1)


def check_grid(values, argument: str, minimum: float, finite: bool = False) -> np.ndarray:
    """A 1-D float array of at least one number >= ``minimum`` (``inf`` allowed unless
    ``finite``), or :class:`~optmech.validation.InvalidArgumentError` naming ``argument``."""
    grid = np.atleast_1d(np.asarray(values, dtype=float))
    if grid.ndim != 1 or grid.size == 0 or np.isnan(grid).any() or (grid < minimum).any() \
            or (finite and not np.isfinite(grid).all()):
        kind = "finite numbers" if finite else "numbers"
        raise InvalidArgumentError(argument, values, f"{kind} >= {minimum:g}")
    return grid


def _orders(orders) -> np.ndarray:
    return check_grid(orders, "orders", 1.0)


def zcdp_rho(divergence, orders) -> np.ndarray:
    """The largest ``D_alpha / alpha`` over the finite orders of the grid (``divergence``
    has the orders on its last axis, as :func:`renyi` returns them): a lower bound on
    ``sup_{alpha > 1} D_alpha / alpha`` (``alpha = 1`` counts as the limit)."""
    grid = _orders(orders)
    finite = np.isfinite(grid)
    if not finite.any():
        raise InvalidArgumentError("orders", orders, "at least one finite order")
    return (np.asarray(divergence)[..., finite] / grid[finite]).max(axis=-1)


def zcdp_rho_bound(divergence, orders, max_loss_value) -> np.ndarray:
    """A certified upper bound on ``sup_{alpha > 1} D_alpha / alpha`` from the divergences
    on the grid and ``D_inf`` (module docstring: the chord of the convex ``(alpha - 1)
    D_alpha`` on each interval, ``D_inf / alpha`` beyond the last finite order)."""
    grid = _orders(orders)
    finite = np.isfinite(grid)
    order = np.argsort(grid[finite])
    a = np.concatenate([[1.0], grid[finite][order]])
    d = np.asarray(divergence, dtype=float)[..., finite][..., order]
    # a pair whose divergence is infinite at a finite order (one input can produce an output
    # the other cannot) has an unbounded sup; the chords below need finite values
    unbounded = np.isinf(d).any(axis=-1)
    d = np.where(np.isinf(d), 0.0, d)
    k = np.concatenate([np.zeros(d.shape[:-1] + (1,)), (a[1:] - 1.0) * d], axis=-1)
    top = np.asarray(max_loss_value, dtype=float) / a[-1]
    best = np.broadcast_to(top, d.shape[:-1]).copy()
    for i in range(a.size - 1):
        lo, hi = a[i], a[i + 1]
        if hi <= lo:
            continue
        slope = (k[..., i + 1] - k[..., i]) / (hi - lo)
        intercept = k[..., i] - slope * lo            # chord: intercept + slope * alpha
        if lo == 1.0:
            # chord through (1, 0): D_alpha / alpha <= slope / alpha, whose sup is the slope
            best = np.maximum(best, slope)
            continue
        candidates = [np.full(slope.shape, lo), np.full(slope.shape, hi)]
        with np.errstate(divide="ignore", invalid="ignore"):
            # d/dalpha (c + s alpha) / (alpha^2 - alpha) = 0: s alpha^2 + 2 c alpha - c = 0
            root = np.sqrt(intercept ** 2 + slope * intercept)
            for sign in (1.0, -1.0):
                alpha = (-intercept + sign * root) / slope
                candidates.append(np.where(np.isfinite(alpha) & (alpha > lo) & (alpha < hi),
                                           alpha, hi))
        for alpha in candidates:
            with np.errstate(divide="ignore", invalid="ignore"):
                value = (intercept + slope * alpha) / (alpha * (alpha - 1.0))
            best = np.maximum(best, np.where(np.isnan(value), np.inf, value))
    return np.where(unbounded, np.inf, best)
