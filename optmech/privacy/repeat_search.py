"""The worst ε-DP base pair for repeat-and-select: a lower bound, realised by explicit pairs.

A proven bound on repeat-and-select (:mod:`optmech.privacy.repeat_bounds`) holds for every
ε-DP base; how loose it is shows against the worst base found.  The bases are pairs of pmfs
``(P, Q)`` on ``m`` outputs in increasing quality with every ``P_r / Q_r`` in ``[e^-ε,
e^ε]``, and each is exactly one Markov kernel applied to binary randomised response
(Kairouz, Oh and Viswanath, arXiv:1311.0776): ``P = (e^ε a + b) / (1 + e^ε)``, ``Q = (a + e^ε
b) / (1 + e^ε)`` with ``a``, ``b`` any two pmfs on the ``m`` outputs (``a = (e^ε P - Q) /
(e^ε - 1)`` and ``b = (e^ε Q - P) / (e^ε - 1)`` are pmfs exactly when ``(P, Q)`` is ε-DP).
So ``a = softmax(x)``, ``b = softmax(y)`` cover every base and no constraint is needed.

The objective is a figure of the repeated pair (both directions, the larger): ``epsilon``,
the ε′ at which its δ-curve falls to ``at`` (default 1e-6); ``max_loss``; ``delta`` at ε′ =
``at``; ``renyi`` at the order ``at``.  For ``epsilon``: the δ-curve is ``delta(e) = max_k
(A_k - e^e B_k)`` over the ``k`` outputs of largest loss (``A_k``, ``B_k`` their ``P``- and
``Q``-masses), so the largest ε′ with ``delta(ε′) >= δ`` is ``max_k log((A_k - δ) / B_k)``:
exact, and vectorised over a batch of pairs (:func:`epsilon_at_delta`).

Search: L-BFGS-B on ``(x, y)`` with central-difference gradients (every step's ``4m + 1``
pairs in one batch), from seeded random starts and from structured ones: the three-output
pairs that make the sharp pure-DP bound tight (``a`` on the lowest output with a little mass
on a middle one, ``b`` on the highest, and the mirror).  The result is an explicit pair:
its figure is an exact value of the repeated mechanism's curve at that base, so the true
sup over ε-DP bases is at least as high.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from optmech.privacy.divergences import hockey_stick, max_loss, renyi
from optmech.privacy.repeat import Repetitions
from optmech.validation import (
    InvalidArgumentError,
    check_choice,
    check_integer,
    check_positive,
    check_rng,
)

__all__ = ["OBJECTIVES", "WorstBase", "base_pair", "epsilon_at_delta", "repeated_figure",
           "worst_base_pair"]

OBJECTIVES = ("epsilon", "max_loss", "delta", "renyi")
_STEP = 1e-6


def base_pair(x: np.ndarray, epsilon: float) -> tuple[np.ndarray, np.ndarray]:
    """``(log P, log Q)`` for rows ``x = (x_1..x_m, y_1..y_m)`` (module docstring)."""
    x = np.atleast_2d(np.asarray(x, dtype=float))
    m = x.shape[1] // 2
    a = np.exp(x[:, :m] - x[:, :m].max(axis=1, keepdims=True))
    b = np.exp(x[:, m:] - x[:, m:].max(axis=1, keepdims=True))
    a /= a.sum(axis=1, keepdims=True)
    b /= b.sum(axis=1, keepdims=True)
    e = math.exp(epsilon)
    with np.errstate(divide="ignore"):
        return np.log((e * a + b) / (1.0 + e)), np.log((a + e * b) / (1.0 + e))


def epsilon_at_delta(log_p, log_q, delta: float) -> np.ndarray:
    """The largest ``ε′ >= 0`` with ``delta(ε′) >= delta`` in the direction ``P`` against
    ``Q``, for each row (module docstring: ``max_k log((A_k - δ) / B_k)``); 0 when
    ``delta(0) < delta``, ``inf`` when ``P`` puts more than ``delta`` where ``Q`` is 0."""
    log_p = np.atleast_2d(np.asarray(log_p, dtype=float))
    log_q = np.atleast_2d(np.asarray(log_q, dtype=float))
    with np.errstate(invalid="ignore"):
        loss = np.where(np.isneginf(log_p), -np.inf, log_p - log_q)
    order = np.argsort(-loss, axis=1, kind="stable")
    p = np.take_along_axis(np.exp(log_p), order, axis=1)
    q = np.take_along_axis(np.exp(log_q), order, axis=1)
    a, b = np.cumsum(p, axis=1), np.cumsum(q, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        candidates = np.where(a > delta, np.where(b > 0, np.log((a - delta) / b), np.inf),
                              -np.inf)
    return np.maximum(candidates.max(axis=1), 0.0)


def repeated_figure(log_rep: np.ndarray, objective: str, at: float) -> np.ndarray:
    """The objective of each repeated pair (``log_rep`` of shape ``(B, 2, outputs)``), the
    larger of its two directions."""
    forward, backward = log_rep, log_rep[:, ::-1]
    if objective == "epsilon":
        flat = forward.reshape(-1, forward.shape[-1])
        back = backward.reshape(-1, backward.shape[-1])
        return epsilon_at_delta(flat, back, at).reshape(-1, 2).max(axis=1)
    if objective == "max_loss":
        return max_loss(forward, backward).max(axis=1)
    if objective == "delta":
        return hockey_stick(forward, backward, [at])[..., 0].max(axis=1)
    return renyi(forward, backward, [at])[..., 0].max(axis=1)


@dataclass(frozen=True)
class WorstBase:
    """The worst ε-DP base pair found for a law of ``K``, with its figure."""

    #: The law of the number of runs.
    law: Repetitions
    #: The base's ε.
    epsilon: float
    #: What was maximised (:data:`OBJECTIVES`).
    objective: str
    #: The δ of ``epsilon``, the ε′ of ``delta``, the order of ``renyi``.
    at: float
    #: The base's pmf on one input (``m`` outputs in increasing quality).
    p: np.ndarray = field(repr=False)
    #: The base's pmf on the other input (the pair is ε-DP).
    q: np.ndarray = field(repr=False)
    #: The objective of the repeated pair at that base.
    value: float
    #: Pairs evaluated in all.
    evaluations: int
    #: Local searches run (structured and random starts).
    starts: int

    @property
    def m(self) -> int:
        return int(self.p.size)


def _objective_values(x: np.ndarray, law: Repetitions, epsilon: float, objective: str,
                      at: float) -> np.ndarray:
    log_p, log_q = base_pair(x, epsilon)
    rows = law.log_best(np.stack([log_p, log_q], axis=1))
    return repeated_figure(rows, objective, at)


def _starts(m: int, count: int, generator: np.random.Generator) -> list[np.ndarray]:
    """Structured starts (module docstring), then ``count`` random ones."""
    low, high = -12.0, 0.0
    out = []
    for middle in range(1, m - 1):
        for small in (-3.0, -7.0):
            a = np.full(m, low)
            a[0], a[middle] = high, small
            b = np.full(m, low)
            b[m - 1] = high
            out.append(np.concatenate([a, b]))
            out.append(np.concatenate([b[::-1], a[::-1]]))      # the mirror
    if m == 2:
        out.append(np.array([0.0, low, low, 0.0]))
    for _ in range(count):
        out.append(generator.normal(0.0, 3.0, 2 * m))
    return out


def worst_base_pair(law, epsilon: float, m: int, *, objective: str = "epsilon",
                    at: float | None = None, starts: int = 8, iterations: int = 80,
                    rng=0) -> WorstBase:
    """The worst ε-DP base pair on ``m`` outputs found for repeat-and-select with ``K`` from
    ``law`` (module docstring); ``at`` defaults to δ = 1e-6 (``epsilon``), ε′ = ε
    (``delta``), order 2 (``renyi``)."""
    from scipy.optimize import minimize

    law = Repetitions.parse(law)
    epsilon = check_positive(epsilon, "epsilon")
    m = check_integer(m, "m", minimum=2, maximum=64)
    objective = check_choice(objective, "objective", OBJECTIVES)
    starts = check_integer(starts, "starts", minimum=0, maximum=10_000)
    iterations = check_integer(iterations, "iterations", minimum=1, maximum=100_000)
    if at is None:
        at = {"epsilon": 1e-6, "max_loss": 0.0, "delta": epsilon, "renyi": 2.0}[objective]
    if objective == "epsilon" and not 0 < at < 1:
        raise InvalidArgumentError("at", at, "a delta in (0, 1)")
    generator = check_rng(rng)
    evaluations = 0
    best_value, best_x = -math.inf, None
    seeds = _starts(m, starts, generator)
    bound = [(-30.0, 30.0)] * (2 * m)

    def value_and_gradient(x):
        nonlocal evaluations
        h = _STEP * np.maximum(1.0, np.abs(x))
        batch = np.concatenate([x[None, :], x + np.diag(h), x - np.diag(h)])
        values = _objective_values(batch, law, epsilon, objective, at)
        evaluations += batch.shape[0]
        gradient = (values[1:x.size + 1] - values[x.size + 1:]) / (2 * h)
        return -values[0], -np.where(np.isfinite(gradient), gradient, 0.0)

    for x0 in seeds:
        result = minimize(value_and_gradient, np.clip(x0, -30, 30), jac=True,
                          method="L-BFGS-B", bounds=bound, options={"maxiter": iterations})
        for x in (np.clip(result.x, -30, 30), np.clip(x0, -30, 30)):
            value = float(_objective_values(x[None, :], law, epsilon, objective, at)[0])
            evaluations += 1
            if value > best_value:
                best_value, best_x = value, x
    log_p, log_q = base_pair(best_x[None, :], epsilon)
    return WorstBase(law, epsilon, objective, at, np.exp(log_p[0]), np.exp(log_q[0]),
                     best_value, evaluations, len(seeds))
