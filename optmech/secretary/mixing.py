"""The blind choice and p-mixes of rank distributions (Definitions 7-8, Fact 4, eq. (3)).

A p-mix of two stopping rules tosses a coin with heads probability p and plays the first
rule on heads, the second on tails (Definition 7), so its rank distribution is
``p * first + (1 - p) * second``.  The blind choice always stops at the first candidate
(Definition 8); its rank distribution is uniform, which makes it (0, 0)-DP under every
metric (Fact 4).  The paper's mechanism is the p-mix of M* with the blind choice:
``q_{k,n} = p r_{k,n} + (1 - p)/n`` (eq. (3)).
"""

from __future__ import annotations

import numpy as np

from optmech.secretary.classical import rank_distribution
from optmech.validation import InvalidArgumentError, check_integer, check_probability

__all__ = ["blind_choice", "check_distribution", "mix", "pmix_rank_distribution"]


def check_distribution(q, argument: str = "q") -> np.ndarray:
    """A rank distribution: 1-D, length >= 2, entries >= 0 summing to 1 within 1e-9."""
    allowed = "a 1-D array of >= 2 nonnegative probabilities summing to 1"
    try:
        arr = np.array(q, dtype=float)
    except (TypeError, ValueError):
        raise InvalidArgumentError(argument, q, allowed) from None
    if (arr.ndim != 1 or arr.size < 2 or not np.isfinite(arr).all() or (arr < 0).any()
            or abs(arr.sum() - 1.0) > 1e-9):
        raise InvalidArgumentError(argument, q, allowed)
    return arr


def blind_choice(n: int) -> np.ndarray:
    """Rank distribution of the blind choice: uniform, 1/n each (Fact 4)."""
    n = check_integer(n, "n", minimum=2)
    return np.full(n, 1.0 / n)


def mix(p: float, first, second) -> np.ndarray:
    """Rank distribution of the p-mix of two rules: ``p * first + (1 - p) * second``."""
    p = check_probability(p, "p")
    first = check_distribution(first, "first")
    second = check_distribution(second, "second")
    if first.shape != second.shape:
        raise InvalidArgumentError("second", second, f"a distribution of length {first.size}")
    return p * first + (1.0 - p) * second


def pmix_rank_distribution(n: int, p: float) -> np.ndarray:
    """``q_{k,n} = p r_{k,n} + (1 - p)/n``: the p-mix of M* with the blind choice (eq. (3))."""
    return mix(p, rank_distribution(n), blind_choice(n))
