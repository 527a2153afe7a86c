"""Recurrences on the reduced lattice LP: the PF primal and two dual certificates.

All three run in numpy work linear in the number of variables ``V`` (vectorised steps, no
Python loop per class) and need no LP solver.  Units and row order are those of
:func:`lp_models.lattice.reduced_lattice_lp`; ``cost`` is its cost vector (any weighting,
normalised or not).

PF primal.  Recurrence (5) of the paper gives ``x[m, j] = e^{-eps j} x[m - e_j + e_0, 0]`` for a
non-top item and lets the top items share the rest, ``x[m, 0] = (1 - sum_{j>=1} m_j x[m, j]) /
m_0``; but that subtraction feeds every later class, and the errors compound with the number
of items (measured at n = 100, k = 3, eps = 1: a top probability off by a relative 1.8e-4,
which broke the privacy rows by 5e-6).  So the probabilities are computed from PF's closed
form instead, with no cancellation (a sum of positive terms):

    Pr[PF(q) = r] = p_r ∫_0^1 prod_{s != r} (1 - p_s t) dt,   p_s = e^{-eps j_s},

whose integrand is a polynomial of degree ``n - 1`` in ``t``: Gauss–Legendre with
``ceil(n / 2)`` nodes is exact, and with the ``k + 1`` distinct factors of a class the work is
``O(C k + V)`` per node for ``C`` classes and ``V`` variables.  Relative accuracy about
``n`` ulps; :func:`pf_lattice_log_probabilities` gives the logarithms, which stay finite
where the probabilities themselves underflow (``eps j`` beyond about 745).

Chain dual (the dual of the PF basis of the reduced LP).  In the PF vertex every climbing
privacy row (level ``j >= 1``) is tight and every level-0 row is slack (multiplier 0).
Complementary slackness with ``x > 0`` gives, in increasing ``m_0``:

* ``lambda_m = 0`` when ``m_0 = 1``;  ``lambda_m = e^-eps mu[(m - e_0 + e_1, 1)] / m_0`` else;
* ``mu[(m, j)] = cost[m, j] - m_j lambda_m + e^-eps mu[(m + e_{j+1} - e_j, j + 1)]`` for
  ``j = k, ..., 1`` (the row above is absent at ``j = k``).

It is a feasible dual, and PF optimal for the reduced LP (either constraint set), exactly
when every ``mu >= 0``.  For the lattice weighting ``lambda`` depends only on ``m_0``, and
the condition reduces to ``sum_{t=1}^{k} e^{-eps t} <= 1`` for ``n >= 3`` (always true for
``n <= 2``); see :func:`chain_dual_threshold`.

Relaxed dual (the paper's recurrence in Appendix D).  For the relaxed LP
(:func:`lp_models.lattice.relaxed_lattice_lp`): ``lambda_m = 0`` for ``m_0 = 1``,
``nu[m, j] = cost[m, j] - m_j lambda_m`` and
``lambda_m = (1/m_0) sum_t e^{-eps t} nu[m - e_0 + e_t, t]``.  Feasible when ``nu >= 0``,
which the paper proves for ``eps >= ln((3 + sqrt 5) / 2)``.  A relaxed row is a telescoping
sum of climbing rows, so :func:`relaxed_to_chain_multipliers` turns ``nu`` into multipliers
of the reduced LP.
"""

from __future__ import annotations

import math

import numpy as np

from lp_models.lattice.classes import LatticeClasses
from lp_models.lattice.model import raised_to_top

__all__ = [
    "chain_dual",
    "chain_dual_threshold",
    "pf_lattice_log_probabilities",
    "pf_lattice_probabilities",
    "reduced_row_duals",
    "relaxed_dual",
    "relaxed_to_chain_multipliers",
]


def _groups(classes: LatticeClasses) -> dict[tuple[int, int], np.ndarray]:
    """Variables grouped by ``(m_0 of their class, level)``."""
    top = classes.counts[classes.var_class, 0].astype(np.int64)
    code = top * (classes.k + 1) + classes.var_level
    order = np.argsort(code, kind="stable")
    bounds = np.searchsorted(code[order], np.arange((classes.n + 1) * (classes.k + 1) + 1))
    groups = {}
    for s in range(1, classes.n + 1):
        for j in range(classes.k + 1):
            c = s * (classes.k + 1) + j
            groups[s, j] = order[bounds[c]:bounds[c + 1]]
    return groups


def _pf_quadrature(classes: LatticeClasses, log_coins: np.ndarray) -> np.ndarray:
    """``log ∫_0^1 prod_{s != r} (1 - p_s t) dt`` for every variable (the item ``r`` of the
    variable's level in its class; ``p_s = exp(log_coins[level of s])``), by Gauss–Legendre
    with ``ceil(n / 2)`` nodes."""
    nodes, node_weights = np.polynomial.legendre.leggauss(max(1, -(-classes.n // 2)))
    nodes, node_weights = 0.5 * (nodes + 1.0), 0.5 * node_weights
    coins = np.exp(log_coins)
    counts = classes.counts.astype(np.float64)
    level = classes.var_level
    top = np.full(classes.num_variables, -np.inf)      # a running log-sum-exp over nodes
    total = np.zeros(classes.num_variables)
    for t, weight in zip(nodes, node_weights):
        factors = np.log1p(-coins * t)                  # log(1 - p_j t) per level
        term = math.log(weight) + (counts @ factors)[classes.var_class] - factors[level]
        higher = np.maximum(top, term)
        total *= np.exp(top - higher)
        total += np.exp(term - higher)
        top = higher
    return top + np.log(total)


def pf_lattice_log_probabilities(classes: LatticeClasses, epsilon: float,
                                 exponents: np.ndarray | None = None) -> np.ndarray:
    """``log`` of PF's probability for every variable of the reduced LP (closed form above;
    finite at every ``epsilon``, also where the probability underflows).  ``exponents``
    (one per level, default ``j``) gives the coins ``e^{-eps exponents[j]}``: PF on other
    scores of the same classes."""
    log_coins = -epsilon * (np.arange(classes.k + 1) if exponents is None
                            else np.asarray(exponents, dtype=float))
    return log_coins[classes.var_level] + _pf_quadrature(classes, log_coins)


def pf_lattice_probabilities(classes: LatticeClasses, epsilon: float) -> np.ndarray:
    """PF's probability for every variable of the reduced LP (closed form above; 0 where it
    is below the smallest double)."""
    log_coins = -epsilon * np.arange(classes.k + 1)
    return np.exp(log_coins[classes.var_level]) * np.exp(_pf_quadrature(classes, log_coins))


def chain_dual(classes: LatticeClasses, epsilon: float,
               cost: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(lambda, mu)``: the dual of the PF basis (class rows; one ``mu`` per variable, the
    multiplier of its own privacy row, 0 for level-0 rows and for variables without one)."""
    groups = _groups(classes)
    decay = math.exp(-epsilon)
    lam = np.zeros(classes.num_classes)
    mu = np.zeros(classes.num_variables)
    prev = classes.var_prev
    for s in range(1, classes.n + 1):
        top = groups[s, 0]
        if s >= 2 and classes.k >= 1:
            lam[classes.var_class[top]] = decay * mu[prev[top]] / s
        for j in range(classes.k, 0, -1):
            v = groups[s, j]
            if v.size == 0:
                continue
            above = prev[v]
            carried = np.where(above >= 0, mu[np.maximum(above, 0)], 0.0)
            mu[v] = cost[v] - classes.var_count[v] * lam[classes.var_class[v]] + decay * carried
    return lam, mu


def chain_dual_threshold(k: int) -> float:
    """The ``eps`` solving ``sum_{t=1}^{k} e^{-eps t} = 1`` (0 for ``k <= 1``, where the sum
    is below 1 for every ``eps > 0``), by bisection to double precision.  For the lattice
    weighting and ``n >= 3`` the chain dual is feasible, hence PF optimal, exactly for ``eps``
    at or above it; it increases with ``k`` towards ``ln 2``."""
    if k <= 1:
        return 0.0
    lo, hi = 0.0, math.log(2.0) + 1.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        u = math.exp(-mid)
        total = u * (1 - u ** k) / (1 - u)
        lo, hi = (mid, hi) if total > 1 else (lo, mid)
    return hi


def relaxed_dual(classes: LatticeClasses, epsilon: float,
                 cost: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(lambda, nu)`` of the relaxed LP from the paper's recurrence; ``nu`` has one entry per
    variable (its chained row; 0 for top variables, which have none)."""
    groups = _groups(classes)
    lam = np.zeros(classes.num_classes)
    nu = np.zeros(classes.num_variables)
    for s in range(1, classes.n + 1):
        if s >= 2:
            inflow = np.zeros(classes.num_classes)
            for t in range(1, classes.k + 1):
                v = groups[s - 1, t]
                if v.size:
                    target = classes.var_class[raised_to_top(classes, v)]
                    np.add.at(inflow, target, math.exp(-epsilon * t) * nu[v])
            top_classes = classes.var_class[groups[s, 0]]
            lam[top_classes] = inflow[top_classes] / s
        for j in range(1, classes.k + 1):
            v = groups[s, j]
            nu[v] = cost[v] - classes.var_count[v] * lam[classes.var_class[v]]
    return lam, nu


def relaxed_to_chain_multipliers(classes: LatticeClasses, epsilon: float,
                                 nu: np.ndarray) -> np.ndarray:
    """Multipliers of the reduced LP's privacy rows equivalent to the relaxed rows.

    ``x[a] - e^{-eps j} x[top] = sum_{i<j} e^{-eps i} (x[a_i] - e^-eps x[a_{i+1}])`` along the
    climb ``a_0 = a, a_{i+1} = next(a_i)``, so ``nu[a]`` adds ``e^{-eps i} nu[a]`` to the row
    of ``a_i``.  Returns one ``mu`` per variable (as :func:`chain_dual`).
    """
    mu = np.zeros(classes.num_variables)
    rows = np.flatnonzero(classes.var_level >= 1)
    current = rows.copy()
    weight = nu[rows].astype(float)
    for step in range(classes.k):
        live = classes.var_level[rows] > step
        np.add.at(mu, current[live], weight[live])
        current = np.where(live, classes.var_next[current], current)
        weight = weight * math.exp(-epsilon)
    return mu


def reduced_row_duals(lp, lam: np.ndarray, mu: np.ndarray) -> np.ndarray:
    """Row multipliers of a reduced lattice LP from ``lambda`` (class rows) and per-variable
    ``mu`` (privacy rows, clipped at 0); monotonicity rows get 0."""
    source = lp.metadata["privacy_source"]
    y = np.zeros(lp.num_rows)
    y[:lam.size] = lam
    y[lam.size:lam.size + source.size] = np.maximum(mu[source], 0.0)
    return y
