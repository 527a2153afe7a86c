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
"""

from __future__ import annotations

import numpy as np

from optmech.validation import check_finite_result

__all__ = ["expected_gap", "gaps", "log_weights"]


def gaps(scores: np.ndarray) -> np.ndarray:
    """``q* - q_r`` for every candidate (``+inf`` only where it exceeds the double range)."""
    with np.errstate(over="ignore"):
        return scores.max() - scores


def _half_gaps(scores: np.ndarray) -> np.ndarray:
    """``(q* - q_r) / 2`` computed as ``q*/2 - q_r/2``: always finite."""
    return scores.max() / 2 - scores / 2


def log_weights(scores: np.ndarray, c: float) -> np.ndarray:
    """``z_r = -c (q* - q_r) <= 0`` for a finite ``c > 0`` (``-inf`` where the product
    overflows: such a candidate's weight ``e^{z_r}`` is 0 in double precision)."""
    g = gaps(scores)
    with np.errstate(over="ignore"):
        z = -c * g
        wide = np.isinf(g)
        if wide.any():
            z[wide] = -(2.0 * c) * _half_gaps(scores)[wide]
    return z


def expected_gap(probabilities: np.ndarray, scores: np.ndarray) -> float:
    """``sum_r p_r (q* - q_r)``: the expected error of a selection with these probabilities."""
    live = probabilities > 0
    g = gaps(scores)[live]
    if np.isinf(g).any():
        with np.errstate(over="ignore"):
            value = 2.0 * float(probabilities[live] @ _half_gaps(scores)[live])
    else:
        value = float(probabilities[live] @ g)
    return check_finite_result(value, "the expected error")
