"""Exact output probabilities of permute-and-flip without cancellation.

With ``p_s = exp(c * (q_s - q*)) in (0, 1]`` (``c = epsilon / (2 * sensitivity)``),

    Pr[PF(q) = r] = p_r * integral_0^1 prod_{s != r} (1 - p_s t) dt.              (*)

(*) follows from the exponential-race view of PF (McKenna & Sheldon 2020, Appendix E,
and report-noisy-max with exponential noise): substitute ``t = exp(-c (x - q*))`` in
``integral f_r(x - q_r) prod_{s != r} F_s(x - q_s) dx``.  Unlike the alternating sums of
the paper's Lemma 2 / Appendix E, every term of (*) is positive, so nothing cancels.

Quadrature.  The integrand is a polynomial of degree ``n - 1`` in ``t``.  Up to
:data:`BATCH_MAX` candidates (and for every row of a 2-D batch of score vectors) it is
integrated by :func:`pf_rows`, vectorised over rows:

* the interval is cut at ``T = min(1, TAIL / (S - 1))`` with ``S = sum_s p_s``: since
  ``log(1 - x) <= -x`` the integrand is at most ``exp(-(S - 1) t)``, so the part beyond ``T``
  is below ``exp(-TAIL) / (S - 1)``, under ``4 exp(-TAIL) < 1.2e-19`` of the integral,
  which is at least ``1 / (2 S)`` (``prod (1 - p_s t) >= 1 - S t``);
* Gauss–Legendre on ``[0, T]`` with ``N`` nodes, ``N`` chosen per row: the exact rule
  (``ceil(n / 2)`` nodes on ``[0, 1]``) when it is the smaller, else the fewest nodes for
  which the Bernstein-ellipse bound (Trefethen, "Is Gauss quadrature better than
  Clenshaw-Curtis?", SIAM Review 2008, Theorem 4.5) puts the error below ``2^-56`` of the
  integral: ``|E| <= (T/2) (64/15) M rho^(-2N) / (rho^2 - 1)`` for every ``rho > 1``, where on
  the ellipse every factor has ``|1 - p_s z| <= 1 + p_s T (a - 1) / 2``
  (``a = (rho + 1/rho) / 2``; the largest modulus is at the ellipse's left end), so
  ``log M <= n log(1 + S T (a - 1) / (2 n))`` by concavity.  The best of a fixed set of
  ``rho`` is taken.  Spread-out scores need about 10 nodes, close ones at most about 30
  (the exact rule needed ``n / 2``).

Rows are grouped by node count (a loop over at most a few dozen counts, never over rows)
and processed in blocks of about 2^16 products; for each block the products
``1 - p_s t_k`` are laid out candidate-major, their product over the candidates is one
vectorised reduction and ``prod_{s != r} = F(t) / (1 - p_r t)`` (exact division, no
cancellation) is summed against the weights by one batched matrix-vector product.  A 1-D
call on at most :data:`BATCH_MAX` candidates runs the same kernel on one row, so a row of
a batch equals the 1-D call.  Rounding dominates the error: tests find agreement with
mpmath at 50 digits to 1e-13 absolute for n up to 2000.

Beyond :data:`BATCH_MAX` candidates a 1-D call groups equal scores (``p_s`` values with
their multiplicities), uses ``min(ceil(n / 2), MAX_NODES)`` nodes (the cut-off interval
bounds the error below 1e-50 with ``MAX_NODES = 96``) and accumulates the product in log
space with ``log1p``, in chunks so memory stays at ``O(chunk * nodes)``; cost
``O(U * nodes)`` for ``U`` distinct scores (about a second for 10^6 candidates).
"""

from __future__ import annotations

import functools

import numpy as np

from optmech.selection.scores import log_top_from_rest, log_weights

__all__ = ["BATCH_MAX", "MAX_NODES", "TAIL", "pf_log_probabilities", "pf_probabilities",
           "pf_probabilities_from_log_coins", "pf_probability_rows", "pf_rows"]

#: Gauss–Legendre nodes at most, beyond :data:`BATCH_MAX` candidates.
MAX_NODES = 96
#: The integral is cut at ``T = min(1, TAIL / (S - 1))``: the part beyond is below
#: ``exp(-TAIL) / (S - 1)`` (module docstring).
TAIL = 45.0
#: Largest number of candidates whose pmf runs the batch kernel :func:`pf_rows` (a 2-D
#: batch, or a 1-D call of up to this many candidates).
BATCH_MAX = 4096
_CHUNK = 1 << 15
_BLOCK = 1 << 16              # products 1 - p_s t_k per block of rows
_RHOS = np.array([1.5, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0, 16.0, 24.0, 32.0, 48.0, 64.0])
_TARGET_BITS = 56             # quadrature error below 2^-56 of the integral


@functools.lru_cache(maxsize=None)
def _legendre(count: int) -> tuple[np.ndarray, np.ndarray]:
    """Gauss–Legendre nodes (ascending) and weights on [-1, 1], computed once per node count.

    Newton's method on ``P_count`` from the initial guesses ``cos(pi (i - 1/4) / (count +
    1/2))``, with ``P_count`` and ``P_count'`` from the three-term recurrence, and the weights
    ``2 / ((1 - x^2) P'(x)^2)``, symmetrised.  Not ``numpy.polynomial.legendre.leggauss``
    (which tests compare it with): importing :mod:`numpy.polynomial` costs about 30 ms of a
    command's start-up, about a fifth of importing numpy."""
    x = np.cos(np.pi * (np.arange(count, 0, -1) - 0.25) / (count + 0.5))
    for _ in range(50):
        value, slope = _legendre_and_slope(count, x)
        step = value / slope
        x = x - step
        if np.abs(step).max() <= 1e-16:
            break
    _, slope = _legendre_and_slope(count, x)
    w = 2.0 / ((1.0 - x) * (1.0 + x) * slope * slope)
    x, w = (x - x[::-1]) / 2.0, (w + w[::-1]) / 2.0
    x.flags.writeable = w.flags.writeable = False
    return x, w


def _legendre_and_slope(count: int, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``P_count(x)`` and ``P_count'(x)`` for ``|x| < 1`` (Bonnet's recurrence)."""
    previous, value = np.ones_like(x), x
    for j in range(2, count + 1):
        previous, value = value, ((2 * j - 1) * x * value - (j - 1) * previous) / j
    return value, count * (x * value - previous) / (x * x - 1.0)


def _nodes(n: int, total: float) -> tuple[np.ndarray, np.ndarray]:
    """Gauss–Legendre nodes and weights on [0, T] for a degree ``n - 1`` integrand."""
    exact = (n + 1) // 2
    if exact <= MAX_NODES:
        count, upper = exact, 1.0
    else:
        count = MAX_NODES
        upper = 1.0 if total - 1.0 <= TAIL else TAIL / (total - 1.0)
    x, w = _legendre(count)
    return 0.5 * upper * (x + 1.0), 0.5 * upper * w


def _node_counts(total: np.ndarray, upper: np.ndarray, n: int) -> np.ndarray:
    """Per row, the fewest Gauss–Legendre nodes on ``[0, upper]`` whose error bound is below
    ``2^-56`` of the integral (module docstring); ``total`` is ``S = sum_s p_s``."""
    a = (_RHOS + 1.0 / _RHOS) / 2.0
    log_m = n * np.log1p(np.outer(total * upper, (a - 1.0) / (2.0 * n)))
    bound = (np.log(upper / 2.0)[:, None] + np.log(64.0 / 15.0) + log_m
             - np.log(_RHOS ** 2 - 1.0) + _TARGET_BITS * np.log(2.0)
             + np.log(2.0 * total)[:, None])
    counts = np.ceil(bound / (2.0 * np.log(_RHOS))).min(axis=1)
    return np.maximum(counts, 1.0).astype(np.int64)


def pf_rows(log_coins: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(p, I)`` for a 2-D array of log coin probabilities (one score vector per row, each
    row's maximum 0): ``p = exp(log_coins)`` and ``I[i, r] = integral_0^1 prod_{s != r}
    (1 - p[i, s] t) dt`` (module docstring), so ``p * I`` are the PF probabilities."""
    coins = np.exp(log_coins)
    rows, n = coins.shape
    integrals = np.ones((rows, n))
    if n == 1:
        return coins, integrals
    total = coins.sum(axis=1)
    upper = np.where(total - 1.0 <= TAIL, 1.0, TAIL / np.maximum(total - 1.0, TAIL))
    exact = (n + 1) // 2
    counts = _node_counts(total, upper, n)
    upper = np.where(counts >= exact, 1.0, upper)
    counts = np.minimum(counts, exact)
    for count in np.flatnonzero(np.bincount(counts)).tolist():   # (np.unique imports numpy.ma)
        x, w = _legendre(count)
        x, w = 0.5 * (x + 1.0), 0.5 * w
        chosen = np.flatnonzero(counts == count)
        step = max(1, _BLOCK // (n * count))
        for start in range(0, chosen.size, step):
            block = chosen[start:start + step]
            scaled = coins[block] * upper[block, None]
            factors = np.empty((n, block.size, count))          # candidate-major
            np.einsum("gs,k->sgk", scaled, x, out=factors)     # p_s t_k
            np.subtract(1.0, factors, out=factors)
            weighted = (upper[block, None] * w) * np.multiply.reduce(factors, axis=0)
            np.reciprocal(factors, out=factors)
            integrals[block] = np.matmul(factors.transpose(1, 0, 2),
                                         weighted[:, :, None])[:, :, 0]
    return coins, _at_most_one(integrals)


def _at_most_one(integrals: np.ndarray) -> np.ndarray:
    """``integrals`` clipped at 1 (in place): every factor ``1 - p_s t`` of (*) lies in
    ``[0, 1]``, so the exact integral over ``[0, 1]`` is at most 1, but the quadrature's
    weights sum to 1 only up to rounding: where every other coin underflows (PF at
    eps = 1e3 and up on 3, 1, 2) the integrand is 1 and the rule gave 1.0000000000000002,
    a probability above 1 (and 1 + 4.4e-16 for peeling PF's product of two rounds)."""
    return np.minimum(integrals, 1.0, out=integrals)


def _coins_and_integrals(log_coins: np.ndarray):
    """Per distinct coin: ``log p``, ``p`` and ``integral_0^1 prod_{s != r}(1 - p_s t) dt``
    of (*); and the index of each candidate's coin."""
    values, inverse, counts = np.unique(log_coins, return_inverse=True, return_counts=True)
    coins = np.exp(values)
    t, w = _nodes(log_coins.size, float(counts @ coins))

    log_product = np.zeros_like(t)
    for start in range(0, values.size, _CHUNK):
        block = slice(start, start + _CHUNK)
        log_product += counts[block] @ np.log1p(-np.outer(coins[block], t))
    weighted = w * np.exp(log_product)

    integrals = np.empty(values.size)
    for start in range(0, values.size, _CHUNK):
        block = slice(start, start + _CHUNK)
        # prod_{s != r}(1 - p_s t) = F(t) / (1 - p_r t); exact division, no cancellation.
        integrals[block] = (weighted / (1.0 - np.outer(coins[block], t))).sum(axis=1)
    return values, coins, inverse, _at_most_one(integrals)


def _grouped(log_coins: np.ndarray, log: bool) -> np.ndarray:
    """Probabilities (their logs) of one long vector by the grouped rule (module docstring)."""
    values, coins, inverse, integrals = _coins_and_integrals(log_coins)
    return (values + np.log(integrals) if log else coins * integrals)[inverse]


def pf_probability_rows(log_coins: np.ndarray, log: bool = False) -> np.ndarray:
    """PF probabilities (``log=True``: their logarithms, finite even where a probability
    underflows to 0, the top one from the others by
    :func:`~optmech.selection.scores.log_top_from_rest`) for each row of log coin probabilities
    ``c * (q_s - q*) <= 0`` (each
    row's maximum 0): :func:`pf_rows` for rows of up to :data:`BATCH_MAX` candidates, the
    grouped rule row by row beyond."""
    log_coins = np.asarray(log_coins, dtype=float)
    if log_coins.shape[1] > BATCH_MAX:
        out = np.array([_grouped(row, log) for row in log_coins])
    else:
        coins, integrals = pf_rows(log_coins)
        out = log_coins + np.log(integrals) if log else coins * integrals
    return log_top_from_rest(out) if log else out


def pf_probabilities_from_log_coins(log_coins: np.ndarray) -> np.ndarray:
    """PF probabilities from the log coin probabilities ``log p_s = c * (q_s - q*) <= 0``.

    ``log_coins`` must contain at least one 0 (the maximum).  Returns an array of the same
    length summing to 1 (see the module docstring for the method and its accuracy).
    """
    return pf_probability_rows(np.asarray(log_coins, dtype=float)[None, :])[0]


def pf_probabilities(scores: np.ndarray, exponent: float) -> np.ndarray:
    """``Pr[PF(scores) = r]`` for coin probabilities ``exp(exponent * (q_r - q*))``."""
    return pf_probabilities_from_log_coins(log_weights(np.asarray(scores, dtype=float),
                                                       exponent))


def pf_log_probabilities(scores: np.ndarray, exponent: float) -> np.ndarray:
    """``log Pr[PF(scores) = r] = log p_r + log integral`` (finite even where the
    probability underflows to 0; ``-inf`` only where ``log p_r`` itself is)."""
    log_coins = log_weights(np.asarray(scores, dtype=float), exponent)
    return pf_probability_rows(log_coins[None, :], log=True)[0]
