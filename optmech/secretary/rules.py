"""Rank-based randomised stopping rules: M*, the blind choice, classical optima, mixes.

A rule sees candidate i's relative rank r among the first i and stops with probability
``stop[i-1, r-1]`` (entries above the diagonal are unused and kept at 0; the last row is 1:
every rule stops by time n).  Relative ranks are independent and uniform on {1..i}, so

    s[1] = 1,   x[i, r] = s[i] stop[i, r] / i,   s[i+1] = s[i] - sum_r x[i, r]

(``x`` is :meth:`StoppingRule.joint`, the variables of :func:`lp_models.stopping.stopping_lp`)
and the rank distribution follows from the forward recursion of that module, with
``P(absolute rank k | relative rank r at time i) = C(k-1, r-1) C(n-k, i-r) / C(n, i)``
(:func:`absolute_rank_probabilities`).  The p-mix of two rules (a coin tossed once) and the
rule stopping with ``x = p x1 + (1-p) x2`` (:func:`mix_rules`) stop at the same (time,
relative rank) pairs with the same probabilities, hence have the same rank distribution.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln

from lp_models.display import Displayed
from lp_models.stopping import payoff_values, propagate_ranks, triangle_index
from optmech.secretary.classical import threshold
from optmech.validation import InvalidArgumentError, check_integer, check_probability

__all__ = [
    "StoppingRule",
    "absolute_rank_probabilities",
    "blind_choice_rule",
    "classical_rule",
    "deterministic_rule",
    "mix_rules",
    "optimal_rule_for_payoff",
]


@dataclass(frozen=True, eq=False, repr=False)
class StoppingRule(Displayed):
    """A rank-based stopping rule given by its stopping probabilities per (time, relative
    rank): ``stop[i-1, r-1]`` for 1 <= r <= i <= n (n x n, zero above the diagonal, last
    row all ones).  Dense storage: intended for n up to a few thousand."""

    stop: np.ndarray

    def __post_init__(self):
        stop = np.array(self.stop, dtype=float)
        allowed = "an n x n array (n >= 2) of probabilities, zero above the diagonal, " \
                  "last row all ones"
        if stop.ndim != 2 or stop.shape[0] != stop.shape[1] or stop.shape[0] < 2:
            raise InvalidArgumentError("stop", stop, allowed)
        if (not np.isfinite(stop).all() or (stop < 0).any() or (stop > 1).any()
                or np.triu(stop, 1).any() or not (stop[-1] == 1).all()):
            raise InvalidArgumentError("stop", stop, allowed)
        stop.setflags(write=False)
        object.__setattr__(self, "stop", stop)

    _display = ("n",)

    def _display_items(self):
        return [("n", self.n), ("P(best selected)", float(self.rank_distribution()[0]))]

    @property
    def n(self) -> int:
        """Number of candidates."""
        return self.stop.shape[0]

    def running(self) -> np.ndarray:
        """``s[i-1] = P(the rule is still running when candidate i arrives)``."""
        n = self.n
        leave = self.stop.sum(axis=1) / np.arange(1, n + 1)   # P(stop at i | reach i)
        return np.concatenate([[1.0], np.cumprod(1.0 - leave[:-1])])

    def joint(self) -> np.ndarray:
        """``x[i-1, r-1] = P(stop at time i with relative rank r)``."""
        s = self.running()
        return self.stop * (s / np.arange(1, self.n + 1))[:, None]

    def stopping_time_distribution(self) -> np.ndarray:
        """``P(stop at time i)`` for i = 1..n."""
        return self.joint().sum(axis=1)

    def rank_distribution(self) -> np.ndarray:
        """``q[k-1] = P(the selected candidate is the k-th best)``; O(n^2)."""
        return propagate_ranks(self.joint())

    @classmethod
    def from_joint(cls, joint) -> "StoppingRule":
        """The rule realising ``x[i, r] = joint[i-1, r-1]`` (nonnegative, summing to 1,
        ``x[i, r] <= s[i]/i``): ``stop = i x / s``.  Round-off above 1 (from an LP
        solution) is clipped; times the rule never reaches get ``stop = 1``."""
        joint = np.array(joint, dtype=float)
        if joint.ndim != 2 or joint.shape[0] != joint.shape[1] or joint.shape[0] < 2 \
                or not np.isfinite(joint).all() or (joint < 0).any():
            raise InvalidArgumentError("joint", joint, "a nonnegative n x n array, n >= 2")
        n = joint.shape[0]
        joint = np.tril(joint)
        s = 1.0 - np.concatenate([[0.0], np.cumsum(joint.sum(axis=1))[:-1]])
        reach = s > 1e-15
        stop = np.ones((n, n))
        stop[reach] = joint[reach] * (np.arange(1, n + 1)[reach] / s[reach])[:, None]
        stop = np.tril(np.clip(stop, 0.0, 1.0))
        stop[-1] = 1.0
        return cls(stop)


def deterministic_rule(n: int, stop_flat: np.ndarray) -> StoppingRule:
    """The rule stopping exactly at the (time, relative rank) pairs where the boolean
    ``stop_flat`` (flat triangle of :func:`lp_models.stopping.triangle_index`) is true,
    and at time n whatever happens."""
    times, ranks = triangle_index(n)
    stop = np.zeros((n, n))
    stop[times - 1, ranks - 1] = stop_flat
    stop[-1] = 1.0
    return StoppingRule(stop)


def classical_rule(n: int) -> StoppingRule:
    """M* (Definition 3): stop at the first relative best from time t_n on, else at n."""
    n = check_integer(n, "n", minimum=2)
    times, ranks = triangle_index(n)
    return deterministic_rule(n, (ranks == 1) & (times >= threshold(n)))


def blind_choice_rule(n: int) -> StoppingRule:
    """The blind choice (Definition 8): always stop at the first candidate."""
    n = check_integer(n, "n", minimum=2)
    stop = np.zeros((n, n))
    stop[0, 0] = 1.0
    stop[-1] = 1.0
    return StoppingRule(stop)


def optimal_rule_for_payoff(payoff) -> tuple[StoppingRule, float]:
    """The classical (non-private) optimal rule for a rank payoff by backward induction
    (:func:`lp_models.stopping.payoff_values`) and its optimal expected payoff.  With the
    payoff "best" (1 for rank 1) it is M* for n >= 3."""
    payoff = np.asarray(payoff, dtype=float)
    if payoff.ndim != 1 or payoff.size < 2 or not np.isfinite(payoff).all():
        raise InvalidArgumentError("payoff", payoff, "a finite vector of length n >= 2")
    values = payoff_values(payoff)
    return deterministic_rule(payoff.size, values.stop), values.value


def mix_rules(p: float, first: StoppingRule, second: StoppingRule) -> StoppingRule:
    """A rank-based rule with the rank distribution of the p-mix of two rules
    (Definition 7): it stops with ``x = p x1 + (1-p) x2``."""
    p = check_probability(p, "p")
    if first.n != second.n:
        raise InvalidArgumentError("second", second.n, f"a rule for n = {first.n}")
    return StoppingRule.from_joint(p * first.joint() + (1.0 - p) * second.joint())


def absolute_rank_probabilities(n: int, i: int, r: int) -> np.ndarray:
    """``P(absolute rank k | relative rank r at time i) = C(k-1, r-1) C(n-k, i-r) / C(n, i)``
    for k = 1..n, through log-gamma (no overflow at any n; relative error ~1e-13)."""
    n = check_integer(n, "n", minimum=1)
    i = check_integer(i, "i", minimum=1, maximum=n)
    r = check_integer(r, "r", minimum=1, maximum=i)
    k = np.arange(1, n + 1, dtype=float)
    out = np.zeros(n)
    ok = (k >= r) & (n - k >= i - r)
    kk = k[ok]

    def log_comb(a, b):
        return gammaln(a + 1) - gammaln(b + 1) - gammaln(a - b + 1)

    out[ok] = np.exp(log_comb(kk - 1, r - 1) + log_comb(n - kk, i - r) - log_comb(n, i))
    return out
