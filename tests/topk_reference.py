"""Brute-force references for the top-k LP, written from the definitions alone: every
vector of the bounded 2Δ-lattice, every output, every neighbour pair, no symmetry.

A vector is its tuple of levels ``L`` (score ``-2 L_r``, Δ = 1; the best item at level 0,
none deeper than ``k``).  Its neighbours raise a nonempty proper subset ``S`` of the items one
level (``L - 1_S``, shifted back to a smallest level of 0) and stay within depth ``k``.
Errors are computed from the scores: ``c_(1) >= c_(2) >= ...`` the sorted scores, ``l1 =
sum_i |c_(i) - q_{o_i}|``, ``l_inf`` the largest term, ``k_relative = c_(T) - min q_o``; a
subset is compared in decreasing order of its scores.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog


def lattice_vectors(n: int, k: int) -> list[tuple[int, ...]]:
    return [v for v in itertools.product(range(k + 1), repeat=n) if min(v) == 0]


def outputs(n: int, top: int, ordered: bool) -> list[tuple[int, ...]]:
    return list((itertools.permutations if ordered else itertools.combinations)(range(n), top))


def neighbours(levels, k: int):
    """Every lattice neighbour of ``levels`` (tuple), one per subset ``S`` that stays inside."""
    n = len(levels)
    for size in range(1, n):
        for subset in itertools.combinations(range(n), size):
            moved = [level - (r in subset) for r, level in enumerate(levels)]
            low = min(moved)
            moved = tuple(level - low for level in moved)
            if max(moved) <= k:
                yield moved


def raised(levels, item: int, k: int):
    """``levels`` with ``item`` one lattice step up (a top item: every other sinks), or None
    when that leaves the lattice."""
    moved = [level - (r == item) for r, level in enumerate(levels)]
    low = min(moved)
    moved = tuple(level - low for level in moved)
    return moved if max(moved) <= k else None


def error(levels, output, kind: str, ordered: bool) -> float:
    scores = [-2.0 * level for level in levels]
    best = sorted(scores, reverse=True)[:len(output)]
    chosen = [scores[r] for r in output]
    if kind == "k_relative":
        return best[-1] - min(chosen)
    if not ordered:
        chosen = sorted(chosen, reverse=True)
    gaps = [abs(b - c) for b, c in zip(best, chosen)]
    return max(gaps) if kind == "l_inf" else sum(gaps)


def full_lp_optimum(n: int, k: int, epsilon: float, top: int, ordered: bool = True,
                    constraints: str = "private", objective: str = "l1") -> float:
    """The optimum of the unreduced LP (scipy's ``linprog``): one variable per lattice
    vector and output, a privacy row per neighbour pair and output, and for ``"regular"``
    the monotonicity rows of every vector, item and prefix on the marginals
    ``P(item among the first i outputs)`` (subsets: ``P(item selected)``)."""
    vectors = lattice_vectors(n, k)
    index = {v: i for i, v in enumerate(vectors)}
    outs = outputs(n, top, ordered)
    m = len(outs)
    cost = np.array([error(v, o, objective, ordered) for v in vectors for o in outs])
    rows, cols, data = [], [], []
    count = 0

    def add(terms):
        nonlocal count
        for col, coef in terms:
            rows.append(count)
            cols.append(col)
            data.append(coef)
        count += 1

    for v in vectors:
        for w in neighbours(v, k):
            for j in range(m):        # x[v, o] >= e^-eps x[w, o], as -x[v,o] + e^-eps x[w,o] <= 0
                add([(index[v] * m + j, -1.0), (index[w] * m + j, math.exp(-epsilon))])
    if constraints == "regular":
        prefixes = range(1, top + 1) if ordered else [top]

        def marginal(v, item, prefix, sign):
            return [(index[v] * m + j, sign) for j, o in enumerate(outs) if item in o[:prefix]]

        for v in vectors:
            for item in range(n):
                for prefix in prefixes:
                    for other in range(n):
                        w = raised(v, other, k)
                        if w is None:
                            continue
                        if other == item:     # own score up: g(w) >= g(v)
                            add(marginal(v, item, prefix, 1.0) + marginal(w, item, prefix, -1.0))
                        else:                 # another up: g(w) <= g(v)
                            add(marginal(w, item, prefix, 1.0) + marginal(v, item, prefix, -1.0))
    upper = sp.csr_matrix((data, (rows, cols)), shape=(count, len(cost)))
    sums = sp.kron(sp.eye(len(vectors)), np.ones((1, m)), format="csr")
    result = linprog(cost, A_ub=upper, b_ub=np.zeros(count), A_eq=sums,
                     b_eq=np.ones(len(vectors)), bounds=(0, 1), method="highs",
                     options={"primal_feasibility_tolerance": 1e-10,
                              "dual_feasibility_tolerance": 1e-10})
    assert result.status == 0, result.message
    return float(result.fun)


def worst_privacy_loss(pmf, n: int, k: int) -> float:
    """Largest ``log(P[M(q) = o] / P[M(q') = o])`` over every lattice vector ``q``, every
    neighbour ``q'`` and every output, from ``pmf`` on all lattice vectors at once (one row
    each); inf where a positive probability has a zero at a neighbour."""
    vectors = lattice_vectors(n, k)
    index = {v: i for i, v in enumerate(vectors)}
    table = np.asarray(pmf(np.array([[-2.0 * level for level in v] for v in vectors])))
    pairs = np.array([(index[v], index[w]) for v in vectors for w in neighbours(v, k)])
    p, q = table[pairs[:, 0]], table[pairs[:, 1]]
    if ((p > 0) & (q == 0)).any():
        return math.inf
    positive = p > 0
    return float(np.max(np.log(p[positive]) - np.log(q[positive]), initial=0.0))
