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
  upper bound over every ``alpha > 1``;
* :func:`hockey_stick_interval`, :func:`renyi_interval`, :func:`max_loss_interval`: bounds
  on the exact curves when each log-probability is known only within a stated error.

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
  nothing).  All orders of a block are one array operation (orders x outputs, at most
  2^20 entries a block): 10^6 orders of a 3-candidate pair take about a second, where a
  Python loop over the orders took minutes.
* zCDP.  ``rho`` is the largest ``D_alpha / alpha`` over the grid: a lower bound on the sup
  over all ``alpha > 1`` (``alpha = 1`` counts as the limit ``alpha -> 1+``).  The certified
  upper bound uses two facts: ``K(alpha) = (alpha - 1) D_alpha = log E_Q[(P/Q)^alpha]`` is
  convex in ``alpha`` (a log-sum-exp of affine functions) with ``K(1) = 0``, so between two
  orders of the grid ``K`` lies below its chord, and ``D_alpha <= D_inf`` beyond the largest
  order (Rényi divergence is non-decreasing in ``alpha``: van Erven and Harremoës, *Rényi
  divergence and Kullback-Leibler divergence*, IEEE Trans. Inf. Theory 2014,
  arXiv:1206.2459, Theorem 3).  On each interval the largest value of ``chord / (alpha
  (alpha - 1))`` is found in closed form (the ends and the root of a quadratic), all
  intervals at once.

Accuracy, and the error bounds.  On exact log-probabilities every value above is within a
few hundred units of rounding (``(n + 40) 2^-53`` relative) of the exact curve: tests find
1e-13 against 50-digit mpmath, including pairs with probabilities of 1e-320.  But a
log-probability in double precision is itself rounded: ``log p_r = -50`` carries an
absolute error of at least ``7e-15``, so a loss ``L_r = log p_r - log q_r`` is known only
within ``e_r = err(log p_r) + err(log q_r) + 2^-53 |L_r|``, and a curve whose value comes
from outputs whose loss lies within ``e_r`` of ``eps'`` (the hockey stick) or of 0 (Rényi:
``phi`` and ``g`` are of order ``L^2``) is known only as well as that: e.g.
permute-and-flip at ε = 1 on (0, -30, -30) against (0, -31, -30) has ``delta(1/2) = 0``
exactly (the loss of candidate 2 is exactly 1/2), computed as 2.7e-22 from a loss 1e-15
above 1/2.  The ``*_interval`` functions bound the exact curve given bounds on the errors
of the log-probabilities, rigorously and to first order tightly:

* hockey stick: each term ``p_r (1 - e^(eps' - L_r))`` is increasing in ``log p_r`` and in
  ``L_r``, so the lower (upper) bound is the same sum with ``log p_r - err`` and ``L_r - e_r``
  (``+``);
* Rényi: the exact ``S - 1 = h KL + sum_r p_r g(h L_r)`` (exact values satisfy ``sum p = sum
  q = 1``) is a sum of terms ``q_r phi(L_r)`` and ``p_r g(h L_r)`` with each weight within a
  factor ``e^err`` and each loss within ``e_r``; ``phi`` and ``g`` are convex with minimum 0
  at 0, so each term lies between its value at the point of ``[L_r - e_r, L_r + e_r]``
  nearest 0 with the smaller weight and at the end farther from 0 with the larger weight;
  ``S`` is also bracketed directly by ``sum_r p_r e^(h L_r)`` with perturbed inputs (the
  tighter bound wins: the first where ``D`` is small, the second where it is large);
* max loss: ``max_r (L_r -+ e_r)``.

:mod:`optmech.privacy.curves` turns these into the error bound each curve carries, from the
accuracy each mechanism states for its log-probabilities.
"""

from __future__ import annotations

import math

import numpy as np

from optmech.selection.scores import ROUNDING
from optmech.validation import InvalidArgumentError

__all__ = ["DEFAULT_ORDERS", "ROUNDING", "check_grid", "hockey_stick", "hockey_stick_interval",
           "kl_divergence", "max_loss", "max_loss_interval", "renyi", "renyi_interval",
           "zcdp_rho", "zcdp_rho_bound"]

#: Default Rényi orders: 1 (KL), 240 orders with ``alpha - 1`` spaced geometrically in
#: [1e-3, 1e4], and infinity.  Dense enough that the certified zCDP bound is within 0.5 %
#: of the grid's value for every mechanism here (measured at eps = 0.1 ... 4).
DEFAULT_ORDERS = np.concatenate([[1.0], 1.0 + np.geomspace(1e-3, 1e4, 240), [np.inf]])
_SERIES_LIMIT = 0.5
_SERIES_TERMS = 16          # |x| <= 1/2: the first omitted term is below 1e-18 of x^2/2
_BLOCK = 1 << 20            # orders x outputs per block of the Rényi computation


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


def _errors(error, log_p: np.ndarray, argument: str) -> np.ndarray:
    """``error`` (bounds on ``|log p - exact|``, one per entry or one for all) as an array
    of ``log_p``'s shape: numbers >= 0 (``inf``: unknown)."""
    try:
        out = np.broadcast_to(np.asarray(error, dtype=float), log_p.shape)
    except (TypeError, ValueError):
        raise InvalidArgumentError(argument, error, "bounds >= 0 of the shape of the "
                                   "log-probabilities") from None
    if np.isnan(out).any() or (out < 0).any():
        raise InvalidArgumentError(argument, error, "bounds >= 0 (inf for unknown)")
    return out


def _losses(log_p: np.ndarray, log_q: np.ndarray) -> np.ndarray:
    """``log p - log q`` with ``0 - 0 -> -inf`` (an output neither can produce: weight 0) and
    ``p > 0 = q -> +inf``."""
    with np.errstate(invalid="ignore"):
        loss = log_p - log_q
    return np.where(np.isneginf(log_p), -np.inf, loss)


def _loss_errors(loss: np.ndarray, error_p: np.ndarray, error_q: np.ndarray) -> np.ndarray:
    """Bounds on ``|L_r - exact|``: the two log errors and the rounding of the difference
    (0 where the loss is infinite: an exact 0 probability)."""
    with np.errstate(invalid="ignore", over="ignore"):
        bound = error_p + error_q + ROUNDING * np.abs(loss)
    return np.where(np.isfinite(loss), bound, 0.0)


def max_loss(log_p, log_q) -> np.ndarray:
    """``max_r log(p_r / q_r)`` over the outputs with ``p_r > 0`` (``inf`` if ``q_r = 0`` at
    one of them): ``D_inf(P||Q)``, one value per pair (a 0-d array for one pair)."""
    log_p, log_q = _pair(log_p, log_q)
    return _losses(log_p, log_q).max(axis=-1)


def max_loss_interval(log_p, log_q, error_p, error_q) -> tuple[np.ndarray, np.ndarray]:
    """``(lower, upper)`` bounds on the exact max loss when each log-probability is within
    ``error_p``, ``error_q`` of its exact value (module docstring)."""
    log_p, log_q = _pair(log_p, log_q)
    loss = _losses(log_p, log_q)
    e = _loss_errors(loss, _errors(error_p, log_p, "error_p"), _errors(error_q, log_q,
                                                                       "error_q"))
    with np.errstate(invalid="ignore"):
        return (loss - e).max(axis=-1), (loss + e).max(axis=-1)


def _logsumexp(x: np.ndarray, axis: int = -1) -> np.ndarray:
    """``log sum exp`` along ``axis`` (``-inf`` for an empty sum, ``inf`` if a term is)."""
    top = np.max(x, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        out = np.log(np.exp(x - top).sum(axis=axis)) + np.squeeze(top, axis=axis)
    return np.where(np.isnan(out), np.inf, out)


def _log_one_minus_exp(gap: np.ndarray) -> np.ndarray:
    """``log(1 - e^gap)`` for ``gap < 0`` (``-inf`` elsewhere)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(gap < 0, np.log(-np.expm1(np.minimum(gap, 0.0))), -np.inf)


def _hockey(log_p: np.ndarray, loss: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """``sum_{L_r > eps'} p_r (1 - e^(eps' - L_r))`` for each ``eps'`` of ``grid``."""
    with np.errstate(invalid="ignore", over="ignore"):
        log_terms = log_p[..., None, :] + _log_one_minus_exp(grid[:, None] - loss[..., None, :])
    log_terms = np.where(np.isneginf(log_p)[..., None, :], -np.inf, log_terms)
    return np.exp(_logsumexp(log_terms, axis=-1))                     # (..., eps', outputs)


def hockey_stick(log_p, log_q, eps_prime) -> np.ndarray:
    """``delta(eps') = sum_r max(0, p_r - e^eps' q_r)`` for every ``eps'`` of ``eps_prime``
    (finite numbers): an array of shape ``(..., len(eps_prime))``."""
    log_p, log_q = _pair(log_p, log_q)
    grid = check_grid(eps_prime, "eps_prime", -np.inf, finite=True)
    return _hockey(log_p, _losses(log_p, log_q), grid)


def hockey_stick_interval(log_p, log_q, eps_prime, error_p, error_q
                          ) -> tuple[np.ndarray, np.ndarray]:
    """``(lower, upper)`` bounds on the exact ``delta(eps')`` when each log-probability is
    within ``error_p``, ``error_q`` of its exact value (module docstring)."""
    log_p, log_q = _pair(log_p, log_q)
    grid = check_grid(eps_prime, "eps_prime", -np.inf, finite=True)
    a = _errors(error_p, log_p, "error_p")
    loss = _losses(log_p, log_q)
    e = _loss_errors(loss, a, _errors(error_q, log_q, "error_q"))
    with np.errstate(invalid="ignore", over="ignore"):
        return _hockey(log_p - a, loss - e, grid), _hockey(log_p + a, loss + e, grid)


def _series(x: np.ndarray, coefficients: np.ndarray) -> np.ndarray:
    """``sum_k c_k x^k`` for k = 2 ... (Horner, in place)."""
    out = np.zeros_like(x)
    for c in coefficients[::-1]:
        out += c
        out *= x
    out *= x
    return out


_G = np.array([1.0 / math.factorial(k) for k in range(2, 2 + _SERIES_TERMS)])
_PHI = np.array([(k - 1.0) / math.factorial(k) for k in range(2, 2 + _SERIES_TERMS)])


def _p_g(log_p: np.ndarray, loss: np.ndarray, h: np.ndarray) -> np.ndarray:
    """``p g(x) = p (e^x - 1 - x) >= 0`` at ``x = h L`` without cancellation or overflow for
    ``p = e^log_p`` (0 where ``p`` is; ``loss`` finite; the three broadcast together): the
    series below ``|x| = 1/2``; ``p (expm1(x) - x)`` up to 1; beyond, ``e^(log p + x) - p`` and
    ``p |x|`` as ``e^(log p + log h + log |L|)``, so that neither ``h L`` (a loss near 1e308 at
    order 1e4) nor ``p |x|`` (an underflowed ``p``) makes an inf or a NaN.  Each branch is
    evaluated on its own entries only (the series on all of them was half the cost of a
    10^5-output pair's curves)."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore"):
        x = h * loss
        shape = x.shape
        lp = np.broadcast_to(log_p, shape)
        out = np.zeros(shape)
        live = ~np.isneginf(lp)
        small = (np.abs(x) <= _SERIES_LIMIT) & live
        out[small] = np.exp(lp[small]) * _series(x[small], _G)
        middle = (x > _SERIES_LIMIT) & (x <= 1.0) & live
        out[middle] = np.exp(lp[middle]) * (np.expm1(x[middle]) - x[middle])
        far = ((x > 1.0) | (x < -_SERIES_LIMIT)) & live
        xf, lf = x[far], lp[far]
        p_x = np.exp(lf + np.log(np.broadcast_to(h, shape)[far])
                     + np.log(np.abs(np.broadcast_to(loss, shape)[far])))   # p |x|
        rest = np.exp(lf + xf) - np.exp(lf)                                 # p (e^x - 1)
        out[far] = np.where(xf > 1.0, rest - p_x, rest + p_x)
    return out


def _g_sum(log_p: np.ndarray, loss: np.ndarray, h: np.ndarray, needed: np.ndarray
           ) -> np.ndarray:
    """``sum_r p_r g(h L_r)`` (:func:`_p_g`; outputs on the last axis of ``log_p`` and
    ``loss``) for each order ``1 + h``, evaluated only for the orders some pair needs
    (``needed``, shape ``(..., len(h))``: where the direct log-sum-exp is not used); 0
    elsewhere."""
    out = np.zeros(needed.shape)
    columns = np.flatnonzero(needed.reshape(-1, h.size).any(axis=0))
    if columns.size:
        finite = np.where(np.isfinite(loss), loss, 0.0)
        out[..., columns] = _p_g(log_p[..., None, :], finite[..., None, :],
                                 h[columns, None]).sum(axis=-1)       # (..., orders, outputs)
    return out


def _phi_terms(log_p: np.ndarray, log_q: np.ndarray, loss: np.ndarray) -> np.ndarray:
    """``q_r phi(L_r) = p_r L_r - p_r + q_r >= 0`` per output, without cancellation
    (``p = 0``: ``q``; ``q = 0 < p``: ``inf``)."""
    small = np.abs(loss) <= _SERIES_LIMIT
    finite = np.isfinite(loss)
    safe = np.where(finite, loss, 0.0)
    with np.errstate(over="ignore", invalid="ignore", under="ignore"):
        p, q = np.exp(log_p), np.exp(log_q)
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


def _scaled_log_sum(log_p: np.ndarray, loss: np.ndarray, h: np.ndarray) -> np.ndarray:
    """``log(sum_r p_r e^(h L_r)) / h`` for each ``h`` of a 1-D array (the outputs on the
    last axis of ``log_p`` and ``loss``; the result has the orders there), as ``max y +
    log(sum_r e^(h (y_r - max y))) / h`` with ``y_r = log p_r / h + L_r``: no ``h L_r`` is
    formed, so a loss near 1e308 at order 1e4 does not overflow.  Arrays are laid out
    orders x outputs, so every sum runs along contiguous memory."""
    h = h[:, None]
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        y = np.where(np.isneginf(log_p)[..., None, :], -np.inf,
                     log_p[..., None, :] / h + loss[..., None, :])
        top = y.max(axis=-1, keepdims=True)
        top = np.where(np.isfinite(top), top, 0.0)
        out = np.log(np.exp(h * (y - top)).sum(axis=-1)) / h[:, 0] + top[..., 0]
    return np.where(np.isnan(out), np.inf, out)


def _renyi_block(log_p: np.ndarray, loss: np.ndarray, kl: np.ndarray, h: np.ndarray
                 ) -> np.ndarray:
    """``D_alpha`` for the orders ``1 + h`` (a 1-D array, ``h > 0``): ``log1p(h KL + sum_r
    p_r g(h L_r)) / h``, or where a term ``p_r e^(h L_r)`` exceeds ``e`` (or KL is
    infinite) ``log sum_r p_r e^(h L_r) / h`` by log-sum-exp (:func:`_scaled_log_sum`)."""
    direct = _scaled_log_sum(log_p, loss, h)
    large = (direct > 1.0 / h) | ~np.isfinite(kl)[..., None]
    with np.errstate(invalid="ignore", over="ignore"):
        small_sum = h * kl[..., None] + _g_sum(log_p, loss, h, ~large)
        return np.where(large, direct, np.log1p(np.where(large, 0.0, small_sum)) / h)


def _order_blocks(n: int, h: np.ndarray):
    """Slices of the orders, each with at most :data:`_BLOCK` outputs x orders."""
    step = max(1, _BLOCK // max(n, 1))
    return [slice(s, s + step) for s in range(0, h.size, step)]


def renyi(log_p, log_q, orders=DEFAULT_ORDERS) -> np.ndarray:
    """``D_alpha(P||Q)`` for every order ``alpha >= 1`` of ``orders`` (1: KL, ``inf``: the
    max loss): shape ``(..., len(orders))``; ``inf`` where ``q`` is 0 and ``p`` is not."""
    log_p, log_q = _pair(log_p, log_q)
    grid = _orders(orders)
    loss = _losses(log_p, log_q)
    kl = _phi_terms(log_p, log_q, loss).sum(axis=-1)
    out = np.empty(log_p.shape[:-1] + grid.shape)
    out[..., grid == 1.0] = kl[..., None]
    out[..., np.isinf(grid)] = loss.max(axis=-1)[..., None]
    middle = np.flatnonzero(np.isfinite(grid) & (grid > 1.0))
    h = grid[middle] - 1.0
    for block in _order_blocks(log_p.shape[-1], h):
        out[..., middle[block]] = _renyi_block(log_p, loss, kl, h[block])
    return out


def _toward_zero(loss: np.ndarray, e: np.ndarray) -> np.ndarray:
    """The point of ``[L - e, L + e]`` nearest 0 (where the convex ``phi`` and ``g`` are
    smallest)."""
    return np.where(loss > e, loss - e, np.where(loss < -e, loss + e, 0.0))


def _away_from_zero(loss: np.ndarray, e: np.ndarray) -> np.ndarray:
    """The end of ``[L - e, L + e]`` farther from 0 (where they are largest)."""
    return np.where(loss >= 0, loss + e, loss - e)


def _weighted_phi(log_p: np.ndarray, log_q: np.ndarray, loss: np.ndarray, moved: np.ndarray
                  ) -> np.ndarray:
    """``q phi(L)`` at the perturbed loss ``moved`` with the perturbed weight of the side
    that carries it: ``p psi(L)``, ``psi(L) = L - 1 + e^-L``, where ``L >= 0`` (``p``'s
    error, not ``q``'s times ``e^(error of L)``: a loss of 1e50 known to 1e35 would make the
    latter e^1e35) and ``q phi(L)`` below (both functions grow away from 0)."""
    with np.errstate(invalid="ignore", over="ignore"):
        positive = loss >= 0
        weight_p = np.where(positive, log_p, log_q + moved)
        weight_q = np.where(positive, log_p - moved, log_q)
    weight_p = np.where(np.isneginf(log_p), -np.inf, weight_p)
    return _phi_terms(weight_p, weight_q, np.where(np.isneginf(log_p), -np.inf, moved))


def renyi_interval(log_p, log_q, orders, error_p, error_q) -> tuple[np.ndarray, np.ndarray]:
    """``(lower, upper)`` bounds on the exact ``D_alpha`` for each order when each
    log-probability is within ``error_p``, ``error_q`` of its exact value (module
    docstring): shapes as :func:`renyi`."""
    log_p, log_q = _pair(log_p, log_q)
    grid = _orders(orders)
    a = _errors(error_p, log_p, "error_p")
    b = _errors(error_q, log_q, "error_q")
    loss = _losses(log_p, log_q)
    e = _loss_errors(loss, a, b)
    with np.errstate(invalid="ignore", over="ignore"):
        near, far = _toward_zero(loss, e), _away_from_zero(loss, e)
        kl_low = _weighted_phi(log_p - a, log_q - b, loss, near).sum(axis=-1)
        kl_high = _weighted_phi(log_p + a, log_q + b, loss, far).sum(axis=-1)
        # p = 0 exactly keeps its weight 0; an infinite loss its infinite terms
        low_p = np.where(np.isneginf(log_p), -np.inf, log_p - a)
        high_p = np.where(np.isneginf(log_p), -np.inf, log_p + a)
    lower = np.empty(log_p.shape[:-1] + grid.shape)
    upper = np.empty_like(lower)
    lower[..., grid == 1.0], upper[..., grid == 1.0] = kl_low[..., None], kl_high[..., None]
    top_low, top_high = max_loss_interval(log_p, log_q, a, b)
    lower[..., np.isinf(grid)] = top_low[..., None]
    upper[..., np.isinf(grid)] = top_high[..., None]
    middle = np.flatnonzero(np.isfinite(grid) & (grid > 1.0))
    h = grid[middle] - 1.0
    for block in _order_blocks(log_p.shape[-1], h):
        hb = h[block]
        with np.errstate(invalid="ignore", over="ignore"):
            # the direct sum sum_r p_r e^(h L_r) brackets S (widened by its own rounding:
            # it is log of a sum near 1 where D is small); where D is small the bracket of
            # 1 + h KL + sum p g(h L) from the perturbed terms is the tighter, and only
            # there is it computed
            sum_low = _scaled_log_sum(low_p, loss - e, hb)
            sum_high = _scaled_log_sum(high_p, loss + e, hb)
            slack = (log_p.shape[-1] + 4) * ROUNDING
            sum_low = sum_low - slack * (1.0 / hb + np.abs(sum_low))
            sum_high = sum_high + slack * (1.0 / hb + np.abs(sum_high))
            small_low = ~(sum_low > 1.0 / hb) & np.isfinite(kl_low)[..., None]
            small_high = ~(sum_high > 1.0 / hb) & np.isfinite(kl_high)[..., None]
            g_low = hb * kl_low[..., None] + _g_sum(low_p, near, hb, small_low)
            g_high = hb * kl_high[..., None] + _g_sum(high_p, far, hb, small_high)
            lower[..., middle[block]] = np.maximum(
                np.where(small_low, np.maximum(np.log1p(g_low) / hb, sum_low), sum_low), 0.0)
            upper[..., middle[block]] = np.where(
                small_high, np.minimum(np.log1p(g_high) / hb, sum_high), sum_high)
    return lower, upper


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
    D_alpha`` on each interval, ``D_inf / alpha`` beyond the last finite order); ``inf``
    where a divergence is."""
    grid = _orders(orders)
    finite = np.isfinite(grid)
    order = np.argsort(grid[finite])
    a = np.concatenate([[1.0], grid[finite][order]])
    d = np.asarray(divergence, dtype=float)[..., finite][..., order]
    top = np.asarray(max_loss_value, dtype=float)
    # the bound is homogeneous of degree 1 in (divergence, max loss): divergences near
    # 1e308 are scaled down by a power of 2 (exact), so (alpha - 1) D cannot overflow
    largest = max([float(np.max(v[np.isfinite(v)])) for v in (d, top)
                   if np.isfinite(v).any()] + [0.0])
    scale = math.ldexp(1.0, math.frexp(largest)[1] - 1) if largest > 1e100 else 1.0
    return scale * _chord_bound(d / scale, a, top / scale / a[-1])


def _chord_bound(d: np.ndarray, a: np.ndarray, top: np.ndarray) -> np.ndarray:
    """:func:`zcdp_rho_bound` on divergences ``d`` at the sorted orders ``a[1:]``, with
    ``top = D_inf / a[-1]``."""
    best = np.broadcast_to(top, d.shape[:-1]).copy()
    unbounded = ~np.isfinite(d).all(axis=-1)
    d = np.where(np.isfinite(d), d, 0.0)
    k = np.concatenate([np.zeros(d.shape[:-1] + (1,)), (a[1:] - 1.0) * d], axis=-1)
    lo, hi = a[:-1], a[1:]
    step = hi > lo
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        slope = (k[..., 1:] - k[..., :-1]) / (hi - lo)
        intercept = k[..., :-1] - slope * lo             # chord: intercept + slope * alpha
        # from alpha = 1 the chord passes through (1, 0): D_alpha / alpha <= slope / alpha,
        # whose sup is the slope; elsewhere the ends and the roots of s a^2 + 2 c a - c = 0
        # (where d/dalpha (c + s alpha) / (alpha^2 - alpha) vanishes)
        values = [np.where(lo == 1.0, slope, -np.inf)]
        root = np.sqrt(intercept ** 2 + slope * intercept)
        candidates = [np.broadcast_to(lo, slope.shape), np.broadcast_to(hi, slope.shape)]
        for sign in (1.0, -1.0):
            alpha = (-intercept + sign * root) / slope
            candidates.append(np.where(np.isfinite(alpha) & (alpha > lo) & (alpha < hi),
                                       alpha, hi))
        for alpha in candidates:
            value = (intercept + slope * alpha) / (alpha * (alpha - 1.0))
            values.append(np.where(lo == 1.0, -np.inf, np.where(np.isnan(value), np.inf,
                                                                value)))
        interval_best = np.max(values, axis=0)
    interval_best = np.where(step, interval_best, -np.inf)
    if interval_best.shape[-1]:
        best = np.maximum(best, interval_best.max(axis=-1))
    return np.where(unbounded, np.inf, best)
