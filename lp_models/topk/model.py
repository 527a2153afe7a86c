"""The LP of the optimal top-k mechanism on the bounded 2Δ-lattice, in reduced form.

The analogue, for ``T`` outputs, of the permute-and-flip paper's LP of the optimal regular
mechanism (R. McKenna and D. Sheldon, arXiv:2010.12603, Section 5 and Appendix D; for
``T = 1`` it has the optimum of :func:`lp_models.lattice.reduced_lattice_lp`).  Units:
sensitivity Δ = 1, an item at level ``j`` has score ``-2j``.

Neighbours.  Two score vectors are neighbours when every score moves by at most Δ (the
general relation).  Between lattice vectors (up to the common shift that a shift-invariant
mechanism ignores) the difference must be ``2Δ d + c 1`` with ``|2Δ d_r + c| <= Δ`` for every
``r``, so ``d`` takes two adjacent values: the neighbours of ``q`` are exactly
``q + 2Δ 1_S`` for the nonempty proper subsets ``S`` of the items (the items of ``S`` climb
one level; after the shift back to ``q* = 0``, when ``S`` holds a top item, the others sink
one level instead), and the LP keeps the pairs whose both ends lie in the bounded lattice
(levels at most ``k``).  Every such ordered pair ``(q, q')`` and every output ``o`` gives a
privacy row ``P[M(q) = o] >= e^-eps P[M(q') = o]``; taking ``S`` from every ``q`` covers both
directions (``q`` is ``q' + 2Δ 1_{S^c}`` up to the shift).  No worst-case neighbour is
singled out: without monotonicity of the tuple probabilities (which no top-k mechanism has:
raising the second item of ``(a, b)`` moves mass to ``(b, a)``), Proposition 2 of the paper
has no analogue, so every pair is a row.

Reductions, each exact:

* Shift-invariance: a mechanism is defined by its values on ``q* = 0`` (as in the paper).
* Symmetry: for a mechanism ``M`` that is ε-DP on the lattice, ``π^-1 M(π q)`` is too (the
  lattice, the neighbour relation and the errors are invariant under permutations of the
  items), and so is their average over all ``n!`` permutations (the rows are linear), with
  the same objective (a sum over all of ``Q`` of permutation-invariant errors).  So the
  optimum over all mechanisms is attained by a symmetric one, and one variable per (class,
  orbit of outputs) suffices (:mod:`lp_models.topk.orbits`).  In reduced form the variable
  of ``(q_m, o)`` has one row per orbit of neighbour sets ``S`` under the permutations that
  fix ``q_m`` and ``o``: for each selected position, whether it is in ``S``, and for each
  level ``j``, how many of the unselected items at level ``j`` are (``2^T prod_j (m_j - c_j
  + 1) - 2`` sets, the empty and the full set being no move); equal rows are kept once.
* Monotonicity (``constraints="regular"``) is *not* a valid reduction: it changes the
  optimum.  Already for ``T = 1`` the LP over all symmetric ε-DP mechanisms (``"private"``)
  has a smaller optimum than the paper's regular LP, e.g. at n = 3, k = 4, eps = 0.3
  (93.1265 against 93.1855, also found by the unreduced LP without symmetry).  It is a
  *restriction*, the top-k form of the paper's Definition 3 (regularity), kept to rate
  mechanisms among the monotonic ones as the paper does: raising an item's score (and
  lowering the others) never lowers the probability that it is among the first ``i``
  outputs, for every ``i = 1..T`` (subsets: that it is selected).  On the lattice these are
  the one-step rows of :func:`lp_models.lattice.monotonicity_pairs` (the item of ``a`` is the
  raised item, or the item of ``b`` is another item raised), applied to the marginals
  ``P(item in first i) = sum_λ size(m, λ) p_j(λ, i) / m_j x[m, λ]`` (``p_j(λ, i)``: positions
  ``<= i`` at the item's level ``j``).  For ``T = 1`` they are exactly the lattice LP's rows,
  and with them every neighbour row follows from the worst-case ones (Proposition 2 on the
  lattice): the two LPs have the same feasible set and optimum.

Rows, in this order: one sum-to-one row per class (``sum_λ size x[m, λ] = 1``), one privacy
row per neighbour pair (``x[a] - e^-eps x[b] >= 0``), then (``"regular"``) the monotonicity
rows, each divided by its largest coefficient.  Objective: the expected error (``"l1"``,
``"l_inf"`` or ``"k_relative"``, :data:`lp_models.topk.orbits.ERRORS`) summed over every
``q`` in ``Q`` (class weight ``multinomial(m)``), divided by ``|Q|`` when ``normalise``
(``objective_scale``; ``lp.objective_in_units`` gives the total).  Columns carry the
redundant bounds ``x <= 1 / size`` so that any row multipliers give a finite lower bound.

Units (``scaled=True``): the variables are ``z = x / e^{-eps d}`` with ``d`` the distance of
:attr:`~lp_models.topk.orbits.TopKOrbits.distance`, each privacy row divided by the unit of
its first variable.  A privacy coefficient is then ``e^{-eps (1 + d_b - d_a)}``, within
``[e^{-2 eps}, 1]`` because ``d`` changes by at most 1 between neighbours, while the
probabilities span ``e^{-eps k}``: HiGHS's absolute tolerances become relative ones
(measured at n = 5, k = 4, eps = 5, T = 1, against the lattice LP's certified optimum: in
probabilities HiGHS's point was 9.5e-7 below it with the default tolerances and 1.2e-9 with
tolerances of 1e-10, within those tolerances on the deepest probabilities; in these units
2.9e-8 and, refined and certified by :func:`optmech.topk.solve_topk`, 2e-16).
``metadata["log_scale"]`` holds ``-eps d`` (None for probabilities).
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from lp_models.lattice import monotonicity_pairs
from lp_models.program import LinearProgram
from lp_models.topk.labels import topk_blocks
from lp_models.topk.orbits import ERRORS, TopKOrbits, topk_orbits

__all__ = ["CONSTRAINTS", "ERRORS", "monotonicity_rows", "neighbour_pairs",
           "prefix_marginals", "privacy_row_bound", "topk_lp"]

#: The constraint sets: privacy on every neighbour pair, with (``"regular"``) or without
#: (``"private"``) the monotonicity rows.
CONSTRAINTS = ("regular", "private")


def privacy_row_bound(orbits: TopKOrbits) -> int:
    """An upper bound on the number of privacy rows (every neighbour-set orbit of every
    variable, before the pairs that leave the lattice are dropped), without enumerating
    them."""
    per_variable = 2 ** orbits.top * np.prod(orbits.free + 1, axis=1, dtype=np.float64)
    return int(per_variable.sum())


def neighbour_pairs(orbits: TopKOrbits) -> tuple[np.ndarray, np.ndarray]:
    """``(source, target)`` of every privacy row ``x[source] >= e^-eps x[target]``, sorted and
    without repeats (see the module docstring: one row per orbit of neighbour sets ``S``)."""
    classes, top, k = orbits.classes, orbits.top, orbits.classes.k
    patterns = (np.arange(2 ** top)[:, None] >> np.arange(top)) & 1     # selected in S
    source = np.repeat(np.arange(orbits.num_variables), 2 ** top)
    raised = np.tile(patterns, (orbits.num_variables, 1))
    moved = np.zeros((source.size, 0), dtype=np.int64)                   # unselected in S
    for level in range(k + 1):
        choices = orbits.free[source, level] + 1
        row = np.repeat(np.arange(source.size), choices)
        value = np.arange(choices.sum()) - np.repeat(np.cumsum(choices) - choices, choices)
        source, raised = source[row], raised[row]
        moved = np.hstack([moved[row], value[:, None]])
    levels = orbits.var_levels[source]
    at_level = levels[:, :, None] == np.arange(k + 1)
    moved += np.einsum("rt,rtj->rj", raised, at_level)                   # all of S per level
    counts = classes.counts[orbits.var_class[source]].astype(np.int64)
    shift = moved[:, 0] > 0                  # S holds a top item: the others sink instead
    keep = ((moved.sum(axis=1) > 0) & ~(moved == counts).all(axis=1)
            & (~shift | (moved[:, k] == counts[:, k])))
    source, raised, moved, counts, levels, shift = (
        a[keep] for a in (source, raised, moved, counts, levels, shift))
    stay = counts - moved
    climbed = np.hstack([moved[:, 1:], np.zeros((source.size, 1), dtype=np.int64)])
    unshifted = stay + climbed                       # counts at levels 0..k before the shift
    new_counts = np.where(shift[:, None],
                          np.hstack([moved[:, :1], unshifted[:, :-1]]), unshifted)
    new_levels = levels - raised + shift[:, None]
    target_class = classes.find(new_counts @ classes.radix)
    target = orbits.find(target_class, new_levels)
    if (target_class < 0).any() or (target < 0).any():  # pragma: no cover - invariant
        raise AssertionError("a neighbour pair leaves the lattice")
    pairs = np.unique(source * orbits.num_variables + target)
    return pairs // orbits.num_variables, pairs % orbits.num_variables


def prefix_marginals(orbits: TopKOrbits, prefix: int, unit: np.ndarray | None = None
                     ) -> sp.csr_matrix:
    """``(lattice variables, V)``: row ``(m, j)`` maps the LP's variables to the probability
    that one particular item at level ``j`` of class ``m`` is among the first ``prefix``
    outputs, ``sum_λ size p_j(λ, prefix) / m_j x[m, λ]`` (times ``unit`` per variable, for
    scaled variables)."""
    classes = orbits.classes
    unit = np.ones(orbits.num_variables) if unit is None else unit
    owner = np.repeat(orbits.var_class, prefix)
    rows = classes.variable(owner, orbits.var_levels[:, :prefix].ravel())
    data = np.repeat(orbits.size * unit, prefix) / classes.var_count[rows]
    columns = np.repeat(np.arange(orbits.num_variables), prefix)
    return sp.csr_matrix((data, (rows, columns)),          # repeats add up to p_j
                         shape=(classes.num_variables, orbits.num_variables))


def monotonicity_rows(orbits: TopKOrbits, unit: np.ndarray | None = None
                      ) -> tuple[sp.csr_matrix, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The monotonicity rows (``>= 0``; module docstring), each divided by its largest
    coefficient, and ``(prefix, a, b)`` per row: the marginal of the lattice variable ``a``
    is at least that of ``b`` among the first ``prefix`` outputs."""
    first, second = monotonicity_pairs(orbits.classes)
    pairs = np.arange(first.size)
    difference = sp.csr_matrix(
        (np.concatenate([np.ones(first.size), -np.ones(first.size)]),
         (np.concatenate([pairs, pairs]), np.concatenate([first, second]))),
        shape=(first.size, orbits.classes.num_variables))
    prefixes = list(range(1, orbits.top + 1)) if orbits.ordered else [orbits.top]
    matrix = sp.vstack([difference @ prefix_marginals(orbits, i, unit) for i in prefixes],
                       format="csr")
    largest = abs(matrix).max(axis=1).toarray().ravel()
    matrix = sp.diags(1.0 / largest) @ matrix
    labels = (np.repeat(np.array(prefixes), first.size), np.tile(first, len(prefixes)),
              np.tile(second, len(prefixes)))
    return matrix.tocsr(), labels


def topk_lp(n: int, k: int, epsilon: float, top: int, *, ordered: bool = True,
            constraints: str = "regular", objective: str = "l1", normalise: bool = True,
            scaled: bool = False, orbits: TopKOrbits | None = None) -> LinearProgram:
    """The reduced top-``top`` LP (minimisation; module docstring) for ``n`` items, depth
    ``k`` and privacy ``epsilon``.

    ``ordered``: ordered tuples (True) or subsets.  ``constraints``: ``"regular"``
    (monotonicity rows; for ``top = 1`` the lattice LP's optimum) or ``"private"`` (every
    symmetric ε-DP mechanism).  ``objective``: an error of :data:`ERRORS`.  ``scaled``: the
    variables ``z = x / e^{-eps d}``.

    ``metadata``: ``orbits``, ``weights`` (class weights), ``errors`` (per variable),
    ``privacy_source``, ``privacy_target``, ``monotone`` (``(prefix, a, b)`` per
    monotonicity row), ``num_class_rows``, ``log_scale``, ``epsilon``, ``top``, ``ordered``,
    ``constraints``, ``objective``.
    """
    if not (isinstance(n, (int, np.integer)) and n >= 2):
        raise ValueError(f"n must be an integer >= 2, got {n!r}")
    if not (isinstance(k, (int, np.integer)) and k >= 1):
        raise ValueError(f"k must be an integer >= 1, got {k!r}")
    if not (isinstance(top, (int, np.integer)) and 1 <= top <= n - 1):
        raise ValueError(f"top must be an integer in [1, n - 1], got {top!r}")
    if not (math.isfinite(epsilon) and epsilon > 0):
        raise ValueError(f"epsilon must be a finite number > 0, got {epsilon!r}")
    if constraints not in CONSTRAINTS:
        raise ValueError(f"constraints must be one of {CONSTRAINTS}, got {constraints!r}")
    if objective not in ERRORS:
        raise ValueError(f"objective must be one of {ERRORS}, got {objective!r}")
    orbits = topk_orbits(n, k, top, ordered) if orbits is None else orbits
    classes = orbits.classes
    num_vars, num_classes = orbits.num_variables, classes.num_classes
    log_scale = -epsilon * orbits.distance.astype(float) if scaled else None
    unit = np.ones(num_vars) if log_scale is None else np.exp(log_scale)
    weights = classes.multiplicity.copy()
    scale = float(weights.sum()) if normalise else 1.0
    errors = orbits.errors(objective)
    cost = weights[orbits.var_class] * orbits.size * errors * unit / scale
    with np.errstate(over="ignore"):
        col_upper = np.exp(-np.log(orbits.size) - (0.0 if log_scale is None else log_scale))

    source, target = neighbour_pairs(orbits)
    exponent = -epsilon * np.ones(source.size)
    if log_scale is not None:              # row divided by its first variable's unit
        exponent += log_scale[target] - log_scale[source]
    count = source.size
    rows = [orbits.var_class, num_classes + np.arange(count), num_classes + np.arange(count)]
    columns = [np.arange(num_vars), source, target]
    data = [orbits.size * unit, np.ones(count), -np.exp(exponent)]
    monotone = (np.zeros(0, dtype=np.int64),) * 3
    if constraints == "regular":
        mono, monotone = monotonicity_rows(orbits, unit)
        mono = mono.tocoo()
        rows.append(num_classes + count + mono.row)
        columns.append(mono.col)
        data.append(mono.data)
    num_rows = num_classes + count + monotone[0].size
    matrix = sp.coo_array((np.concatenate(data), (np.concatenate(rows),
                                                  np.concatenate(columns))),
                          shape=(num_rows, num_vars)).tocsc()
    row_lower = np.concatenate([np.ones(num_classes), np.zeros(num_rows - num_classes)])
    row_upper = np.concatenate([np.ones(num_classes), np.full(num_rows - num_classes, np.inf)])
    col_blocks, row_blocks = topk_blocks(orbits, (source, target), monotone)
    kind = "tuples" if ordered else "subsets"
    return LinearProgram(
        cost=cost, matrix=matrix, row_lower=row_lower, row_upper=row_upper,
        col_lower=np.zeros(num_vars), col_upper=col_upper, sense="min",
        name=f"topk(n={n}, k={k}, eps={epsilon:g}, top={top}, {kind}, {constraints}, "
             f"{objective})" + (" [scaled]" if scaled else ""),
        col_blocks=col_blocks, row_blocks=row_blocks, objective_scale=scale,
        objective_units=f"total expected {objective} error over Q, units of Δ",
        metadata={"orbits": orbits, "weights": weights, "errors": errors,
                  "privacy_source": source, "privacy_target": target, "monotone": monotone,
                  "num_class_rows": num_classes, "log_scale": log_scale,
                  "epsilon": float(epsilon), "top": int(top), "ordered": bool(ordered),
                  "constraints": constraints, "objective": objective})
