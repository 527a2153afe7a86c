"""Score gaps ``q* - q_r`` and log weights ``-c (q* - q_r)`` without spurious overflow.

Every mechanism here depends on the scores only through the gaps to the best score (its
output distribution is translation invariant).  For finite doubles the gap ``q* - q_r`` can
exceed the double range only when the scores span more than ``1.8e308``; then half the gap,
``q*/2 - q_r/2``, is still exact and finite.  :func:`log_weights` uses it so that, e.g., a
tiny ``c`` times a gap of ``2e308`` is the finite product it should be; a product that
overflows is ``-inf``, a weight of exactly 0, which is its correctly rounded value.
:func:`expected_gap` sums ``pmf_r (q* - q_r)`` over the candidates with positive
probability and refuses (:class:`~optmech.validation.NonFiniteResultError`) a sum whose true
value does not fit in a double.

:func:`log_top_from_rest` gives the most likely candidate's log-probability from the
others: where they sum to ``s < 1/2`` it is ``log1p(-s)``, accurate to the others' relative
accuracy, where ``log`` of a probability computed near 1 keeps only its absolute accuracy
(a top probability of ``1 - 1e-20`` is 1.0 in double precision, its logarithm 0 instead of
``-1e-20``, and a quadrature's rounding can even put it above 1).  Privacy curves of two
such distributions are differences of these tiny logarithms (:mod:`optmech.privacy`).
:func:`log_error_rows` bounds the error of log-probabilities computed that way from a
mechanism's stated accuracy.
"""

from __future__ import annotations

import numpy as np

from optmech.validation import InvalidArgumentError, as_real_array, check_finite_result

__all__ = ["check_score_rows", "expected_gap", "expected_gap_rows", "gap_rows", "gaps",
           "log_error_rows", "log_top_from_rest", "log_weight_rows", "log_weights"]

#: The unit roundoff of a double, ``2^-53``.
ROUNDING = 2.0 ** -53
#: Added to every log-probability's error bound: what an underflowed probability (below
#: the smallest double, summed into the top's complement) can hide.
UNDERFLOW = 1e-300


def check_score_rows(scores, argument: str = "scores") -> tuple[np.ndarray, bool]:
    """``(rows, batch)``: the score vectors as a 2-D float array, one per row (a copy), and
    whether ``scores`` was 2-D.  A 1-D ``scores`` (a non-empty vector) is one row; a 2-D one
    is a batch of at least one vector of at least one score.  Entries must be finite
    numbers (:func:`~optmech.validation.as_real_array` for what counts as one)."""
    allowed = ("a non-empty 1-D sequence of finite numbers, or a 2-D array of them (one "
               "score vector per row)")
    arr = as_real_array(scores, argument, allowed)
    if arr.ndim not in (1, 2) or arr.size == 0 or not np.isfinite(arr).all():
        raise InvalidArgumentError(argument, scores, allowed)
    return (arr, True) if arr.ndim == 2 else (arr[None, :], False)


def gap_rows(rows: np.ndarray) -> np.ndarray:
    """``q* - q_r`` for every candidate of every row (``+inf`` only where it exceeds the
    double range)."""
    with np.errstate(over="ignore"):
        return rows.max(axis=1, keepdims=True) - rows


def _half_gap_rows(rows: np.ndarray) -> np.ndarray:
    """``(q* - q_r) / 2`` computed as ``q*/2 - q_r/2``: always finite."""
    return rows.max(axis=1, keepdims=True) / 2 - rows / 2


def log_weight_rows(rows: np.ndarray, c: float) -> np.ndarray:
    """``z_r = -c (q* - q_r) <= 0`` per row for a finite ``c > 0`` (``-inf`` where the product
    overflows: such a candidate's weight ``e^{z_r}`` is 0 in double precision); a new array.

    Two passes over the scores in the common case (the shift and the product, in place); a
    gap beyond the double range, seen as ``-inf`` in the minimum, is recomputed from half
    gaps."""
    with np.errstate(over="ignore"):
        z = rows - rows.max(axis=1, keepdims=True)      # -(q* - q_r): -inf where it overflows
        if z.min() == -np.inf:
            wide = np.isinf(z)
            z[wide] = -(2.0 * c) * _half_gap_rows(rows)[wide]
            z[~wide] *= c
        else:
            z *= c
    return z


def expected_gap_rows(probabilities: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``sum_r p_r (q* - q_r)`` per row: the expected errors of selections with these
    probabilities (refused if one does not fit in a double)."""
    live = probabilities > 0
    g = gap_rows(rows)
    wide = (np.isinf(g) & live).any(axis=1)
    with np.errstate(over="ignore"):
        values = (probabilities * np.where(live, g, 0.0)).sum(axis=1)
        if wide.any():
            values[wide] = 2.0 * (probabilities[wide] * _half_gap_rows(rows[wide])).sum(axis=1)
    return check_finite_result(values, "the expected error")


def gaps(scores: np.ndarray) -> np.ndarray:
    """``q* - q_r`` for every candidate of one score vector (:func:`gap_rows`)."""
    return gap_rows(scores[None, :])[0]


def log_weights(scores: np.ndarray, c: float) -> np.ndarray:
    """:func:`log_weight_rows` of one score vector."""
    return log_weight_rows(scores[None, :], c)[0]


def expected_gap(probabilities: np.ndarray, scores: np.ndarray) -> float:
    """``sum_r p_r (q* - q_r)``: the expected error of a selection with these probabilities."""
    return float(expected_gap_rows(probabilities[None, :], scores[None, :])[0])


def log_top_from_rest(log_rows: np.ndarray) -> np.ndarray:
    """Log-probabilities (one distribution per row, each relatively accurate except perhaps
    the largest) with each row's largest replaced by ``log1p(-s)``, ``s`` the pairwise sum of
    the row's other probabilities, wherever ``s < 1/2`` (module docstring); in place, and
    returned."""
    rows = np.arange(log_rows.shape[0])
    top = np.argmax(log_rows, axis=1)
    others = np.exp(log_rows)
    others[rows, top] = 0.0
    rest = others.sum(axis=1)
    near_one = rest < 0.5
    log_rows[rows[near_one], top[near_one]] = np.log1p(-rest[near_one])
    return log_rows


def log_error_rows(log_rows: np.ndarray, kappa: float, rho: float, top_from_rest: bool
                   ) -> np.ndarray:
    """Bounds on ``|computed - exact|`` for each log-probability of ``log_rows`` (one
    distribution per row) from a mechanism's stated accuracy: ``kappa 2^-53 |log p_r| +
    rho`` (its rounding, relative to the log-probability, and its pmf's relative error),
    plus :data:`UNDERFLOW`.  With ``top_from_rest`` a top probability above 1/2 is
    :func:`log_top_from_rest`'s ``log1p(-s)``, whose error is at most ``2 ds + 2^-53
    |log p_top|`` for an error ``ds`` of ``s``: ``ds <= sum_r p_r (e^(bound_r) - 1) + n
    2^-53 s`` (the other terms' errors and the pairwise sum's rounding; ``1 / (1 - s) <=
    2``)."""
    log_rows = np.asarray(log_rows, dtype=float)
    magnitude = np.where(np.isfinite(log_rows), np.abs(log_rows), 0.0)
    bound = kappa * ROUNDING * magnitude + rho + UNDERFLOW
    if not top_from_rest:
        return bound
    rows = np.arange(log_rows.shape[0])
    top = np.argmax(log_rows, axis=1)
    near_one = log_rows[rows, top] > -np.log(2.0)
    with np.errstate(over="ignore", under="ignore"):
        # p_r (e^b - 1) as e^(log p_r + log(expm1 b)), so a huge bound on a far-below
        # candidate (its probability ~e^-1e100) stays 0 rather than 0 * inf
        spread = np.where(bound > 1.0, bound + np.log(-np.expm1(-bound)),
                          np.log(np.expm1(bound)))
        drift = np.exp(log_rows + spread)
        others = np.exp(log_rows)
    drift[rows, top] = 0.0
    others[rows, top] = 0.0
    n = log_rows.shape[1]
    top_bound = (2.0 * (drift.sum(axis=1) + n * ROUNDING * others.sum(axis=1))
                 + ROUNDING * magnitude[rows, top] + UNDERFLOW)
    bound[rows[near_one], top[near_one]] = top_bound[near_one]
    return bound
