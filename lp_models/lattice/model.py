"""The LP of the optimal regular mechanism on the bounded 2Δ-lattice (permute-and-flip paper,
Section 5 and Appendix D), in reduced (symmetry-class) and full form, and the paper's
relaxed LP.

Units: sensitivity Δ = 1, so an item at level ``j`` has score ``-2j`` and error ``2j``.  The
objective is the total expected error ``sum_{q in Q} E[q* - q_M(q)]`` (units of Δ) divided
by the LP's ``objective_scale`` (the number of weighted vectors) when ``normalise=True``,
i.e. the mean error per vector, which keeps HiGHS's absolute tolerances meaningful;
``lp.objective_in_units(value)`` is the total error (n = k = 3, ε = 0.5: optimum 0.95393
per vector, 35.2955 in total over the 37 vectors of Q).

Labels (rendered on demand, :mod:`lp_models.lattice.labels`): columns ``x[class c:
m=(m_0,...,m_k), level j]``; rows ``sum-to-one[class c: m=(...)]``,
``privacy[x[...] >= e^-eps x[...]]``, ``monotone[x[...] >= x[...]]``.

Weightings (``weighting``):

* ``"lattice"`` — every ``q in Q`` counts once (Theorem 3 and the optimality ratio as printed):
  class ``m`` has weight ``multinomial(m)``;
* ``"cube"`` — what the authors' notebook (``linear-program.ipynb``) sums: every vector of the
  cube ``{0, -2, ..., -2k}^n`` is mapped to its ``q* = 0`` representative, so a class of depth
  ``L`` (deepest occupied level) is counted ``multinomial(m) (k + 1 - L)`` times.  The
  constraints are the same; only the objective differs.

Constraint sets (``constraints``):

* ``"paper"`` — exactly Appendix D: privacy rows of Proposition 2 for every ``(q, r)`` whose
  worst-case neighbour stays in ``Q``, symmetry, sum-to-one, ``x >= 0``.
* ``"regular"`` — the above plus the *monotonicity* rows that "regular" (Definition 3)
  requires: raising an item's score one lattice step never lowers its probability and never
  raises another item's.  Appendix D leaves them out, and its optimum is then not a regular
  mechanism and not ε-DP (measured: worst log-ratio 0.602 at ε = 0.5, n = k = 4), because
  Proposition 2 derives privacy from the worst-case neighbour *using* monotonicity.  With
  them, Proposition 2's argument applies on the lattice and every feasible point is ε-DP
  between all neighbouring vectors of ``Q``.

Lattices (``lattice``):

* ``"2delta"`` — the paper's bounded 2Δ-lattice: one lattice step is 2Δ, an item at level
  ``j`` has error ``2j``, and Proposition 2's worst-case neighbour raises the selected item
  by one step (``x[a] >= e^-eps x[next(a)]``).
* ``"delta"`` — the bounded Δ-lattice ``{q in (Δ Z)^n : q* = 0, q* - q_r <= Δ k}`` (one
  sensitivity step per lattice step, the grid of counts): an item at level ``j`` has error
  ``j``.  Neighbours move every score by at most one step.  For a regular mechanism the
  worst neighbour of ``(q, r)`` lowers ``r`` one step and raises every other item one step
  (monotonicity), which by shift-invariance is ``q - 2Δ e_r``; the privacy row of
  ``(q, r)`` is therefore ``x_r(q) >= e^-eps x_r(q + 2Δ e_r)``: the item raised by *two*
  lattice steps, ``next(next(a))`` in the class chains of the 2Δ-lattice (the one-step
  raise is the same map on levels), and dropped when that leaves the bounded lattice.  The
  classes and the monotonicity rows (one-step raises) are those of the 2Δ-lattice.

Reduced form (one vectorised pass): variables ``x[m, j]`` (see
:mod:`lp_models.lattice.classes`), rows in this order: one sum-to-one row per class
(``sum_j m_j x[m, j] = 1``), one privacy row per variable with a chain successor
(``x[a] - e^-eps x[next(a)] >= 0``), then (``"regular"``) the monotonicity rows
``x[a] - x[b] >= 0`` of :func:`monotonicity_pairs`.  Columns carry the redundant upper
bounds ``x[m, j] <= 1 / m_j`` so that :func:`lp_models.program.dual_objective` turns *any*
row multipliers into a finite, rigorous lower bound.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import scipy.sparse as sp

from lp_models.labels import LabelBlock
from lp_models.lattice.classes import LatticeClasses, lattice_classes
from lp_models.lattice.labels import (
    FULL_RELATIONS,
    FullVariableLabels,
    VectorLabels,
    pair_block,
    reduced_blocks,
)
from lp_models.program import LinearProgram

__all__ = [
    "CONSTRAINTS",
    "LATTICES",
    "WEIGHTINGS",
    "class_weights",
    "delta_lattice_lp",
    "full_lattice_lp",
    "level_error",
    "monotonicity_pair_blocks",
    "monotonicity_pairs",
    "monotonicity_row_count",
    "pair_rows",
    "privacy_pairs",
    "reduced_lattice_lp",
    "relaxed_lattice_lp",
    "scaled_coefficients",
    "variable_costs",
]

WEIGHTINGS = ("lattice", "cube")
CONSTRAINTS = ("regular", "paper")
LATTICES = ("2delta", "delta")
FULL_MAX_VARIABLES = 200_000


def total_error_units(weighting: str) -> str:
    """``objective_units`` of the sum objective with this weighting."""
    return f"total expected error over Q ({weighting} weighting), units of Δ"


def class_weights(classes: LatticeClasses, weighting: str = "lattice") -> np.ndarray:
    """How many vectors each class stands for: ``multinomial(m)`` (``"lattice"``) or
    ``multinomial(m) (k + 1 - depth(m))`` (``"cube"``)."""
    if weighting == "lattice":
        return classes.multiplicity.copy()
    if weighting == "cube":
        return classes.multiplicity * (classes.k + 1 - classes.depth)
    raise ValueError(f"weighting must be one of {WEIGHTINGS}, got {weighting!r}")


def level_error(lattice: str = "2delta") -> float:
    """Error of one lattice step in units of Δ: 2 on the 2Δ-lattice, 1 on the Δ-lattice."""
    if lattice not in LATTICES:
        raise ValueError(f"lattice must be one of {LATTICES}, got {lattice!r}")
    return 2.0 if lattice == "2delta" else 1.0


def variable_costs(classes: LatticeClasses, weighting: str = "lattice",
                   lattice: str = "2delta") -> np.ndarray:
    """Total-error cost of every variable: ``weight(m) * m_j * 2j`` (units of Δ; ``j`` on the
    Δ-lattice).  ``weighting`` may also be an array of class weights."""
    weights = (class_weights(classes, weighting) if isinstance(weighting, str)
               else np.asarray(weighting, dtype=float))
    return (weights[classes.var_class] * classes.var_count * level_error(lattice)
            * classes.var_level)


def privacy_pairs(classes: LatticeClasses, lattice: str = "2delta"
                  ) -> tuple[np.ndarray, np.ndarray]:
    """``(source, target)`` of every privacy row ``x[source] >= e^-eps x[target]``: one
    lattice step up the class chains on the 2Δ-lattice, two steps on the Δ-lattice (see the
    module docstring); rows whose target leaves the bounded lattice are dropped."""
    level_error(lattice)
    source = np.flatnonzero(classes.var_next >= 0)
    target = classes.var_next[source]
    if lattice == "delta":
        keep = classes.var_next[target] >= 0
        source, target = source[keep], classes.var_next[target[keep]]
    return source, target


def monotonicity_pair_blocks(classes: LatticeClasses):
    """Yield the pairs ``(a, b)`` of :func:`monotonicity_pairs` in ``k + 2`` blocks (own score,
    then one block per level of the raised item), so that large lattices can be checked
    without holding every pair at once."""
    source = np.flatnonzero(classes.var_next >= 0)
    yield classes.var_next[source], source
    var_class, var_level = classes.var_class, classes.var_level
    keys = classes.keys[var_class]
    n, k = classes.n, classes.k
    for level in range(k + 1):
        others = classes.counts[var_class, level] - (var_level == level)
        if level >= 1:
            a = np.flatnonzero(others > 0)
            target = classes.find(keys[a] - classes.radix[level] + classes.radix[level - 1])
            b = classes.variable(target, var_level[a])
        else:
            a = np.flatnonzero((others > 0) & (classes.counts[var_class, k] == 0)
                               & (var_level < k))
            target = classes.find(1 + (n + 1) * (keys[a] - 1))
            b = classes.variable(target, var_level[a] + 1)
        if (b < 0).any():  # pragma: no cover - broken invariant
            raise AssertionError("monotonicity pair leaves the lattice")
        yield a, b


def monotonicity_row_count(classes: LatticeClasses) -> int:
    """How many pairs :func:`monotonicity_pair_blocks` yields, counted without finding them
    (no class look-up: at n = k = 12, 62.8 million rows)."""
    var_class, var_level = classes.var_class, classes.var_level
    total = int((classes.var_next >= 0).sum())
    for level in range(classes.k + 1):
        others = classes.counts[var_class, level] - (var_level == level) > 0
        if level == 0:
            others &= (classes.counts[var_class, classes.k] == 0) & (var_level < classes.k)
        total += int(others.sum())
    return total


def monotonicity_pairs(classes: LatticeClasses) -> tuple[np.ndarray, np.ndarray]:
    """Pairs ``(a, b)`` of variables with ``x[a] >= x[b]`` for every regular mechanism.

    * Own score: ``a = next(b)`` for every privacy row ``b -> next(b)`` (raising the item one
      step, or for a top item lifting it above the others, cannot lower its probability).
    * Another item's score: for variable ``a = (m, j)`` and every occupied level ``i`` holding
      an item other than the selected one, raise that item one step: ``b`` is the same
      selected item in ``m - e_i + e_{i-1}`` (``i >= 1``, level ``j`` unchanged), or, for
      ``i = 0``, in ``sigma(m)`` at level ``j + 1`` (the raised item becomes the unique top;
      skipped when ``m_k > 0``).
    """
    blocks = list(monotonicity_pair_blocks(classes))
    return (np.concatenate([a for a, _ in blocks]), np.concatenate([b for _, b in blocks]))


def pair_rows(first: np.ndarray, second: np.ndarray, coef_second: float | np.ndarray,
              num_cols: int) -> sp.csr_matrix:
    """Rows ``x[first] - coef_second * x[second]`` (one per pair), e.g. privacy rows with
    ``coef_second = e^-eps`` and monotonicity rows with 1, each meant as ``>= 0``."""
    rows = np.arange(first.size)
    data = np.concatenate([np.ones(first.size),
                           np.broadcast_to(-np.asarray(coef_second, dtype=float), first.shape)])
    return sp.csr_matrix((data, (np.concatenate([rows, rows]), np.concatenate([first, second]))),
                         shape=(first.size, num_cols))


def _check(n, k, epsilon, weighting, constraints):
    if not (isinstance(n, (int, np.integer)) and n >= 1):
        raise ValueError(f"n must be an integer >= 1, got {n!r}")
    if not (isinstance(k, (int, np.integer)) and k >= 0):
        raise ValueError(f"k must be an integer >= 0, got {k!r}")
    if not (math.isfinite(epsilon) and epsilon > 0):
        raise ValueError(f"epsilon must be a finite number > 0, got {epsilon!r}")
    if weighting not in WEIGHTINGS:
        raise ValueError(f"weighting must be one of {WEIGHTINGS}, got {weighting!r}")
    if constraints not in CONSTRAINTS:
        raise ValueError(f"constraints must be one of {CONSTRAINTS}, got {constraints!r}")


def reduced_lattice_lp(n: int, k: int, epsilon: float, weighting: str = "lattice",
                       constraints: str = "regular", normalise: bool = True,
                       classes: LatticeClasses | None = None,
                       monotone_pairs: tuple[np.ndarray, np.ndarray] | None = None,
                       log_scale: np.ndarray | None = None) -> LinearProgram:
    """The symmetry-reduced LP (minimisation; see the module docstring for rows and scaling).

    ``monotone_pairs`` replaces the monotonicity rows of ``"regular"`` by the given subset
    ``(a, b)`` (rows ``x[a] >= x[b]``): the restricted LPs of row generation, whose optimum
    is a lower bound on the regular LP's.

    ``log_scale``: the LP in the variables ``z_v = x_v / exp(log_scale[v])``, each row divided
    by the scale of its first variable (:class:`lp_models.lattice.certificates.LatticeUnits`;
    with PF's probabilities as the scale every coefficient stays a normal double for
    ``eps <= 700``);
    costs are per unit of ``z``, the box is ``z_v <= 1 / (m_j s_v)`` (``inf`` on overflow),
    and ``metadata["log_scale"]`` holds the scale (None for probabilities).

    ``objective_scale``: the number of weighted vectors (1 unless ``normalise``);
    ``lp.objective_in_units(value)`` is the total error.  ``metadata``: ``classes``
    (:class:`LatticeClasses`), ``weights`` (class weights), ``num_class_rows``,
    ``num_privacy_rows``, ``privacy_source`` (the variable of each privacy row),
    ``privacy_target`` (the variable it points at), ``monotone_pairs`` (``(a, b)`` of the
    monotonicity rows, empty for ``"paper"``), ``epsilon``, ``weighting``, ``constraints``,
    ``lattice`` (``"2delta"``).
    """
    _check(n, k, epsilon, weighting, constraints)
    return _class_lp(n, k, epsilon, weighting, constraints, normalise, classes,
                     monotone_pairs, "2delta", log_scale)


def delta_lattice_lp(n: int, k: int, epsilon: float, weighting: str = "lattice",
                     normalise: bool = True, classes: LatticeClasses | None = None,
                     monotone_pairs: tuple[np.ndarray, np.ndarray] | None = None,
                     log_scale: np.ndarray | None = None) -> LinearProgram:
    """The reduced LP of the optimal regular mechanism on the bounded Δ-lattice.

    Same classes, class rows and monotonicity rows as :func:`reduced_lattice_lp` with
    ``constraints="regular"``; the privacy rows raise the selected item by two lattice steps
    (:func:`privacy_pairs`), and a level-``j`` item costs ``j`` (units of Δ).  With the
    monotonicity rows every feasible point is ε-DP between all neighbouring vectors of the
    bounded Δ-lattice (the argument of Proposition 2 with ``q - 2Δ e_r`` a lattice point);
    ``monotone_pairs`` and ``log_scale`` as in :func:`reduced_lattice_lp`.  Same ``metadata``
    keys, with ``lattice = "delta"``.
    """
    _check(n, k, epsilon, weighting, "regular")
    return _class_lp(n, k, epsilon, weighting, "regular", normalise, classes,
                     monotone_pairs, "delta", log_scale)


def scaled_coefficients(log_scale: np.ndarray, a: np.ndarray, b: np.ndarray,
                        log_factor: float = 0.0) -> np.ndarray:
    """``e^{log_factor} s_b / s_a`` for scales ``s = exp(log_scale)``: the coefficient of
    ``z[b]`` in a row ``x[a] - e^{log_factor} x[b] >= 0`` written in ``z = x / s`` and
    divided by ``s_a``."""
    return np.exp(log_factor + log_scale[b] - log_scale[a])


def _class_lp(n, k, epsilon, weighting, constraints, normalise, classes, monotone_pairs,
              lattice, log_scale=None) -> LinearProgram:
    """The reduced LP on either lattice: class rows, privacy rows, monotonicity rows (in the
    variables ``x / exp(log_scale)`` when given)."""
    classes = lattice_classes(n, k) if classes is None else classes
    weights = class_weights(classes, weighting)
    scale = float(weights.sum()) if normalise else 1.0
    cost = variable_costs(classes, weighting, lattice) / scale
    num_vars = classes.num_variables
    class_coef, col_upper = classes.var_count, 1.0 / classes.var_count
    source, target = privacy_pairs(classes, lattice)
    privacy_coef = math.exp(-epsilon)
    if log_scale is not None:
        log_scale = np.asarray(log_scale, dtype=float)
        unit = np.exp(log_scale)
        cost, class_coef = cost * unit, class_coef * unit
        with np.errstate(over="ignore"):
            col_upper = np.exp(-np.log(classes.var_count) - log_scale)
        privacy_coef = scaled_coefficients(log_scale, source, target, -epsilon)

    sums = sp.csr_matrix((class_coef, (classes.var_class, np.arange(num_vars))),
                         shape=(classes.num_classes, num_vars))
    privacy = pair_rows(source, target, privacy_coef, num_vars)
    blocks = [sums, privacy]
    if monotone_pairs is not None:
        first, second = (np.asarray(p, dtype=np.int64) for p in monotone_pairs)
    elif constraints == "regular":
        first, second = monotonicity_pairs(classes)
    else:
        first = second = np.zeros(0, dtype=np.int64)
    if first.size:
        blocks.append(pair_rows(first, second, 1.0 if log_scale is None else
                                scaled_coefficients(log_scale, first, second), num_vars))
    matrix = sp.vstack(blocks, format="csc")
    matrix.eliminate_zeros()                    # class-row coefficients that underflowed
    num_ineq = matrix.shape[0] - classes.num_classes
    row_lower = np.concatenate([np.ones(classes.num_classes), np.zeros(num_ineq)])
    row_upper = np.concatenate([np.ones(classes.num_classes), np.full(num_ineq, np.inf)])
    name = "lattice-reduced" if lattice == "2delta" else "delta-lattice-reduced"
    col_blocks, row_blocks = reduced_blocks(classes, (source, target), (first, second))
    return LinearProgram(
        cost=cost, matrix=matrix, row_lower=row_lower, row_upper=row_upper,
        col_lower=np.zeros(num_vars), col_upper=col_upper, sense="min",
        name=f"{name}(n={n}, k={k}, eps={epsilon:g}, {weighting}, {constraints})"
             + ("" if log_scale is None else " [scaled]"),
        col_blocks=col_blocks, row_blocks=row_blocks, objective_scale=scale,
        objective_units=total_error_units(weighting),
        metadata={"classes": classes, "weights": weights,
                  "num_class_rows": classes.num_classes, "num_privacy_rows": source.size,
                  "privacy_source": source, "privacy_target": target,
                  "monotone_pairs": (first, second), "epsilon": float(epsilon),
                  "weighting": weighting, "constraints": constraints, "lattice": lattice,
                  "log_scale": log_scale})


def relaxed_lattice_lp(n: int, k: int, epsilon: float, weighting: str = "lattice",
                       normalise: bool = True,
                       classes: LatticeClasses | None = None) -> LinearProgram:
    """The paper's relaxed LP (Appendix D, "Relaxed LP") in reduced form.

    Rows: the sum-to-one row of each class (symmetry and sum-to-one merged), then for every
    non-top variable ``(m, j)`` the chained privacy row
    ``x[m, j] - e^{-eps j} x[m - e_j + e_0, 0] >= 0`` (the item lifted straight to the top).
    The level-0 privacy rows are dropped.  Its optimum is a lower bound on both lattice LPs;
    PF satisfies every row with equality.  ``metadata["relaxed_source"]`` lists the variable
    of each chained row and ``metadata["relaxed_target"]`` the top variable it points at.
    """
    _check(n, k, epsilon, weighting, "paper")
    classes = lattice_classes(n, k) if classes is None else classes
    weights = class_weights(classes, weighting)
    scale = float(weights.sum()) if normalise else 1.0
    num_vars = classes.num_variables
    source = np.flatnonzero(classes.var_level >= 1)
    target = raised_to_top(classes, source)
    sums = sp.csr_matrix((classes.var_count, (classes.var_class, np.arange(num_vars))),
                         shape=(classes.num_classes, num_vars))
    chained = pair_rows(source, target, np.exp(-epsilon * classes.var_level[source]), num_vars)
    matrix = sp.vstack([sums, chained], format="csc")
    row_lower = np.concatenate([np.ones(classes.num_classes), np.zeros(source.size)])
    row_upper = np.concatenate([np.ones(classes.num_classes), np.full(source.size, np.inf)])
    col_blocks, row_blocks = reduced_blocks(
        classes, (source, target), privacy_kind="relaxed-privacy",
        privacy_template="relaxed-privacy[{a} >= e^-(eps*j) {b}]")
    return LinearProgram(
        cost=variable_costs(classes, weighting) / scale, matrix=matrix, row_lower=row_lower,
        row_upper=row_upper, col_lower=np.zeros(num_vars), col_upper=1.0 / classes.var_count,
        sense="min", name=f"lattice-relaxed(n={n}, k={k}, eps={epsilon:g}, {weighting})",
        col_blocks=col_blocks, row_blocks=row_blocks, objective_scale=scale,
        objective_units=total_error_units(weighting),
        metadata={"classes": classes, "weights": weights,
                  "relaxed_source": source, "relaxed_target": target,
                  "epsilon": float(epsilon), "weighting": weighting})


def raised_to_top(classes: LatticeClasses, variables: np.ndarray) -> np.ndarray:
    """For non-top variables ``(m, j)``: the top variable of ``m - e_j + e_0`` (the same item
    lifted to the top, the others unchanged)."""
    variables = np.asarray(variables, dtype=np.int64)
    level = classes.var_level[variables]
    key = classes.keys[classes.var_class[variables]] - classes.radix[level] + 1
    return classes.top_variable[classes.find(key)]


def _full_vectors(n: int, k: int) -> np.ndarray:
    grid = np.array(list(itertools.product(range(k + 1), repeat=n)), dtype=np.int64)
    return grid[grid.min(axis=1) == 0]


def full_lattice_lp(n: int, k: int, epsilon: float, weighting: str = "lattice",
                    constraints: str = "regular", normalise: bool = True,
                    lattice: str = "2delta") -> LinearProgram:
    """The unreduced LP over every ``q in Q`` and ``r`` (small n, k only: a cross-check).

    Variables ``x_r(q)`` (``metadata["levels"][i]`` is the level vector of the i-th ``q``;
    variable ``i * n + r``).  Rows: sum-to-one per ``q``; Appendix D's privacy row per
    ``(q, r)`` whose neighbour ``q'`` is in ``Q``; symmetry ``x_r(q) = x_{tau r}(tau q)`` for
    the adjacent transpositions ``tau`` (they generate every permutation); and for
    ``"regular"`` the monotonicity rows ``x_r(q + step_s) <= x_r(q)`` (``s != r``) and
    ``x_r(q + step_r) >= x_r(q)``, where ``step_s`` raises item ``s`` one lattice step (for a
    top item: the others sink one level) whenever the result stays in ``Q``.

    ``lattice="delta"`` (``"regular"`` only): the privacy neighbour of ``(q, r)`` raises
    ``r`` by two lattice steps (``step_r`` applied twice), and a level costs 1 instead of 2.
    Objective scale and units as in :func:`reduced_lattice_lp`.
    """
    _check(n, k, epsilon, weighting, constraints)
    unit = level_error(lattice)
    if lattice == "delta" and constraints != "regular":
        raise ValueError("the Δ-lattice LP has only the 'regular' constraint set")
    size = ((k + 1) ** n - k ** n) * n
    if size > FULL_MAX_VARIABLES:
        raise ValueError(f"full LP for n={n}, k={k} has {size} variables; "
                         f"use reduced_lattice_lp (limit {FULL_MAX_VARIABLES})")
    levels = _full_vectors(n, k)
    count = levels.shape[0]
    base = (k + 1) ** np.arange(n)
    codes = levels @ base
    order = np.argsort(codes)

    def index(vectors):
        code = vectors @ base
        pos = np.minimum(np.searchsorted(codes[order], code), count - 1)
        found = codes[order][pos] == code
        return np.where(found & (vectors.max(axis=1) <= k) & (vectors.min(axis=1) == 0),
                        order[pos], -1)

    depth = levels.max(axis=1)
    weight = np.ones(count) if weighting == "lattice" else (k + 1 - depth).astype(float)
    scale = float(weight.sum()) if normalise else 1.0
    cost = (weight[:, None] * unit * levels).ravel() / scale
    num_vars = count * n

    def raised(item, vectors=levels):
        """Level vectors after raising ``item`` one lattice step, normalised to q* = 0: a top
        item stays at level 0 while every other item sinks one level."""
        up = vectors.copy()
        top = up[:, item] == 0
        up[top] += 1
        up[:, item] = np.where(top, 0, vectors[:, item] - 1)
        return up

    sums = sp.csr_matrix((np.ones(num_vars), (np.repeat(np.arange(count), n),
                                              np.arange(num_vars))), shape=(count, num_vars))
    blocks = [sums]
    lower, upper = [np.ones(count)], [np.ones(count)]
    columns = FullVariableLabels(levels)
    labels = [LabelBlock("sum-to-one", count, "sum", VectorLabels(levels, "sum-to-one[q={q}]"))]

    def add(first, second, coef, lo, hi, kind):
        blocks.append(pair_rows(first, second, coef, num_vars))
        lower.append(np.full(first.size, lo))
        upper.append(np.full(first.size, hi))
        labels.append(pair_block(kind, *FULL_RELATIONS[kind], first, second, columns))

    for r in range(n):
        up_idx = index(raised(r))
        ok = np.flatnonzero(up_idx >= 0)
        if lattice == "2delta":
            add(ok * n + r, up_idx[ok] * n + r, math.exp(-epsilon), 0.0, np.inf, "privacy")
        else:
            up2 = raised(r)
            up2_idx = np.where(up_idx >= 0, index(raised(r, up2)), -1)
            ok2 = np.flatnonzero(up2_idx >= 0)
            add(ok2 * n + r, up2_idx[ok2] * n + r, math.exp(-epsilon), 0.0, np.inf, "privacy")
        if constraints == "regular":
            add(up_idx[ok] * n + r, ok * n + r, 1.0, 0.0, np.inf, "monotone")       # own score
            for s in range(n):
                if s != r:
                    up_s = index(raised(s))
                    ok_s = np.flatnonzero(up_s >= 0)
                    add(ok_s * n + r, up_s[ok_s] * n + r, 1.0, 0.0, np.inf, "monotone")
    for i in range(n - 1):
        swapped = levels.copy()
        swapped[:, [i, i + 1]] = swapped[:, [i + 1, i]]
        partner = index(swapped)
        perm = np.arange(n)
        perm[[i, i + 1]] = perm[[i + 1, i]]
        first = (np.arange(count)[:, None] * n + np.arange(n)).ravel()
        second = (partner[:, None] * n + perm[None, :]).ravel()
        keep = first < second
        add(first[keep], second[keep], 1.0, 0.0, 0.0, "symmetry")
    matrix = sp.vstack(blocks, format="csc")
    return LinearProgram(
        cost=cost, matrix=matrix, row_lower=np.concatenate(lower),
        row_upper=np.concatenate(upper), col_lower=np.zeros(num_vars),
        col_upper=np.ones(num_vars), sense="min",
        name=f"lattice-full(n={n}, k={k}, eps={epsilon:g}, {weighting}, {constraints}, "
             f"{lattice})",
        col_blocks=(LabelBlock("probability", num_vars, "x", columns),),
        row_blocks=tuple(b for b in labels if b.size), objective_scale=scale,
        objective_units=total_error_units(weighting),
        metadata={"levels": levels, "epsilon": float(epsilon),
                  "weighting": weighting, "constraints": constraints, "lattice": lattice})
