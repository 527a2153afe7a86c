"""Orbits of the top-k LP: one variable per (class of score vectors, orbit of outputs).

The bounded 2Δ-lattice ``Q`` and its classes are those of :mod:`lp_models.lattice.classes`
(permute-and-flip paper, R. McKenna and D. Sheldon, arXiv:2010.12603, Section 5 and
Appendix D): ``q* = 0``, an item at level ``j`` has score ``-2Δ j``, ``0 <= j <= k``, and a
class is the count vector ``m = (m_0, ..., m_k)`` (items per level, ``m_0 >= 1``).  A top-k
mechanism returns an ordered tuple ``o = (o_1, ..., o_T)`` of ``T`` distinct items (or, in
the unordered variant, a ``T``-subset).

Symmetry.  A symmetric mechanism has ``P[M(πq) = π(o)] = P[M(q) = o]`` for every permutation
``π`` of the items.  Its probabilities on the class representative ``q_m`` (items sorted by
level, as :meth:`~lp_models.lattice.classes.LatticeClasses.scores` lays them out) depend only
on the orbit of ``o`` under the permutations that fix ``q_m`` (those that permute items
within a level), and that orbit is the *level sequence* ``λ = (level(o_1), ...,
level(o_T))``: any two tuples with the same level sequence are mapped onto each other by
such a permutation, and a permutation that fixes ``q_m`` keeps every item's level.  A level
sequence occurs in class ``m`` exactly when it uses each level ``j`` at most ``m_j`` times
(``c_j(λ) <= m_j``, with ``c_j`` the number of positions at level ``j``).  So the variable
``x[m, λ]`` is the probability of one particular tuple of that orbit; the orbit holds
``prod_j m_j! / (m_j - c_j)!`` tuples (``prod_j C(m_j, c_j)`` subsets, whose level sequence
is written in nondecreasing order).

Counts without enumerating (:func:`orbit_count`): the pairs ``(m, λ)`` with ``c(λ) <= m``
are, for each ``λ``, the compositions ``m - c(λ)`` of ``n - T`` with a zeroth part of at least
``1 - c_0(λ)``: ``C(n - T + k, k)`` classes when ``λ`` uses level 0, ``C(n - T - 1 + k, k)``
otherwise, and ``(k + 1)^T - k^T`` sequences (``C(k + T, T) - C(k + T - 1, T)`` multisets)
use level 0.

Errors (units of Δ, :data:`ERRORS`) compare the selected scores with the true top ``T``
(``c_(1) >= ... >= c_(T)``, the ``i``-th best score, at level ``t_i``, the ``i``-th smallest
level of ``q``), as in A. Gillenwater, M. Joseph, A. Muñoz Medina and M. Ribero, *A Joint
Exponential Mechanism for Differentially Private Top-k*, ICML 2022, arXiv:2201.12333,
Section 6:

* ``"l1"``: ``sum_i |c_(i) - q_{o_i}| = 2 sum_i |t_i - λ_i|``;
* ``"l_inf"``: ``max_i |c_(i) - q_{o_i}| = 2 max_i |t_i - λ_i|``;
* ``"k_relative"``: ``c_(T) - min_i q_{o_i} = 2 (max_i λ_i - t_T)`` (never negative).

A subset is compared in decreasing order of its scores (its nondecreasing level sequence),
so its ``l1`` error is ``sum_i c_(i) - sum_{r in o} q_r``.

Scale (:attr:`TopKOrbits.distance`): ``d(m, λ)``, the number of neighbour steps from ``q_m``
to a score vector on which ``o`` is the exact top ``T`` in its order (ties allowed).  With
``b`` the smallest level of an unselected item, it is the largest drop ``max(0, a_i - a_j)``,
``i < j``, along ``a = (λ_1, ..., λ_T, b)`` (subsets: ``max(0, max λ - b)``): a step moves
every level by 0 or 1 in one direction (then the common shift), so each difference, and
``d``, changes by at most 1 between neighbours.  :mod:`lp_models.topk.model` uses
``e^{-eps d}`` as the unit of each variable, close to the optimum's own size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from lp_models.lattice.classes import LatticeClasses, class_count, lattice_classes

__all__ = ["ERRORS", "MAX_VARIABLES", "TopKOrbits", "orbit_count", "orbit_count_exceeds",
           "topk_orbits"]

#: The errors an LP can minimise (units of Δ; module docstring).
ERRORS = ("l1", "l_inf", "k_relative")
#: Most variables enumerated: the LP has many rows per variable (one per neighbour of the
#: variable's orbit), so beyond a few million variables it does not fit in memory.
MAX_VARIABLES = 20_000_000


def orbit_count(n: int, k: int, top: int, ordered: bool = True) -> int:
    """Number of variables ``(m, λ)`` of the top-``top`` LP, from the closed form of the
    module docstring (no enumeration): exact, for any ``1 <= top <= n - 1``."""
    if ordered:
        with_zero, without = (k + 1) ** top - k ** top, k ** top
    else:
        with_zero = math.comb(k + top, top) - math.comb(k + top - 1, top)
        without = math.comb(k + top - 1, top)
    rest = n - top
    return with_zero * class_count(rest + 1, k) + without * (
        class_count(rest, k) if rest >= 1 else 0)


def orbit_count_exceeds(n: int, k: int, top: int, ordered: bool, limit: int) -> bool:
    """Whether :func:`orbit_count` exceeds ``limit``, without the exact count when a lower
    bound already does (at ``n = k = 10^6`` the count has some 600,000 digits, and
    ``math.comb`` took minutes): the count is at least ``with_zero`` times
    ``class_count(n - top + 1, k)``, with ``with_zero >= (k + 1)^(top - 1)`` for tuples
    (``(k+1)^T - k^T >= (k+1)^(T-1)``) and ``= C(k + T - 1, T - 1)`` for subsets, bounded
    in logarithms (``lgamma``, within 1e-9 relative)."""
    log_classes = (math.lgamma(n - top + k + 1) - math.lgamma(k + 1)
                   - math.lgamma(n - top + 1))
    log_zero = ((top - 1) * math.log(k + 1) if ordered else
                math.lgamma(k + top) - math.lgamma(top) - math.lgamma(k + 1))
    if log_classes + log_zero > math.log(limit) + 1e-6 * (1 + log_classes + log_zero):
        return True
    return orbit_count(n, k, top, ordered) > limit


@dataclass(frozen=True, eq=False)
class TopKOrbits:
    """The variables of the top-k LP: ``V`` pairs (class, level sequence), class-major and
    sorted by :attr:`keys`."""

    #: The classes of score vectors (count vectors ``m``) of the bounded lattice.
    classes: LatticeClasses
    #: The number ``T`` of items returned.
    top: int
    #: True for ordered tuples, False for subsets (level sequences nondecreasing).
    ordered: bool
    #: ``(V,)`` class index of every variable.
    var_class: np.ndarray
    #: ``(V, T)`` level sequence ``λ`` of every variable.
    var_levels: np.ndarray
    #: ``(V,)`` float64: how many tuples (subsets) the orbit holds (exact integers).
    size: np.ndarray
    #: ``(V,)`` int64 sorted keys ``class * (k + 1)^T + code(λ)`` (``code``: base ``k + 1``).
    keys: np.ndarray

    @property
    def num_variables(self) -> int:
        return int(self.var_class.size)

    @cached_property
    def used(self) -> np.ndarray:
        """``(V, k + 1)``: ``c_j(λ)``, the positions of each variable's sequence at level ``j``."""
        k = self.classes.k
        counts = np.zeros((self.num_variables, k + 1), dtype=np.int64)
        rows = np.repeat(np.arange(self.num_variables), self.top)
        np.add.at(counts, (rows, self.var_levels.ravel()), 1)
        return counts

    @cached_property
    def free(self) -> np.ndarray:
        """``(V, k + 1)``: ``m_j - c_j(λ)``, the unselected items at each level."""
        return self.classes.counts[self.var_class].astype(np.int64) - self.used

    @cached_property
    def true_top(self) -> np.ndarray:
        """``(C, T)``: ``t_i``, the level of the ``i``-th best item of each class."""
        cumulative = np.cumsum(self.classes.counts, axis=1, dtype=np.int64)
        # t_i = the number of levels whose items all rank above i
        return (cumulative[:, None, :] <= np.arange(self.top)[None, :, None]).sum(axis=2)

    def errors(self, kind: str = "l1") -> np.ndarray:
        """``(V,)``: the error ``kind`` (:data:`ERRORS`, units of Δ) of every tuple of each
        orbit, from the formulas of the module docstring."""
        levels, truth = self.var_levels, self.true_top[self.var_class]
        if kind == "l1":
            steps = np.abs(levels - truth).sum(axis=1)
        elif kind == "l_inf":
            steps = np.abs(levels - truth).max(axis=1)
        elif kind == "k_relative":
            steps = levels.max(axis=1) - truth[:, -1]
        else:
            raise ValueError(f"kind must be one of {ERRORS}, got {kind!r}")
        return 2.0 * steps

    @cached_property
    def distance(self) -> np.ndarray:
        """``(V,)`` int64: ``d(m, λ)`` (module docstring), 0 where ``o`` is the top."""
        below = np.argmax(self.free > 0, axis=1)         # b: best unselected level
        chain = np.hstack([self.var_levels, below[:, None]])
        if not self.ordered:
            return np.maximum(chain[:, -2] - chain[:, -1], 0)
        # largest drop a_i - a_j, i < j: running maximum of the prefix minus the entry
        prefix_max = np.maximum.accumulate(chain, axis=1)
        return np.maximum((prefix_max[:, :-1] - chain[:, 1:]).max(axis=1), 0)

    def codes(self, levels: np.ndarray) -> np.ndarray:
        """Base-``(k + 1)`` codes of level sequences ``(..., T)`` (sorted first for subsets)."""
        levels = np.asarray(levels, dtype=np.int64)
        if not self.ordered:
            levels = np.sort(levels, axis=-1)
        return levels @ (self.classes.k + 1) ** np.arange(self.top - 1, -1, -1,
                                                            dtype=np.int64)

    def find(self, classes: np.ndarray, levels: np.ndarray) -> np.ndarray:
        """Variable indices of (class, level sequence) pairs (``levels`` with a last axis of
        length ``T``, broadcast against ``classes``); -1 where the sequence is not an orbit
        of the class."""
        key = (np.asarray(classes, dtype=np.int64) * (self.classes.k + 1) ** self.top
               + self.codes(levels))
        pos = np.minimum(np.searchsorted(self.keys, key), self.num_variables - 1)
        return np.where(self.keys[pos] == key, pos, -1)

    @cached_property
    def item_levels(self) -> np.ndarray:
        """``(C, n)``: the level of every item of each class representative (sorted)."""
        c = self.classes                           # scores -2 Δ level, with Δ = 1/2
        return np.rint(-c.scores(np.arange(c.num_classes), 0.5)).astype(np.int64)

    def outcome_variables(self, outcomes: np.ndarray, classes=None) -> np.ndarray:
        """``(len(classes), M)``: the variable of every outcome (a row of ``outcomes``, an
        ``(M, T)`` array of item indices) on each class representative (all classes by
        default)."""
        classes = (np.arange(self.classes.num_classes) if classes is None
                   else np.asarray(classes, dtype=np.int64))
        levels = self.item_levels[classes][:, np.asarray(outcomes, dtype=np.int64)]
        return self.find(classes[:, None], levels)


# The last few tables are kept for the next call with the same arguments: a sweep over
# epsilon enumerates the same orbits once per point otherwise.
_CACHE_SIZE = 4
_cache: dict[tuple[int, int, int, bool], TopKOrbits] = {}


def topk_orbits(n: int, k: int, top: int, ordered: bool = True) -> TopKOrbits:
    """Enumerate the variables of the top-``top`` LP on the bounded lattice of ``n`` items and
    depth ``k`` (plain integers, ``1 <= top <= n - 1``; validated by the caller's public API).

    One vectorised pass per position of the sequence: every partial sequence is extended by
    each level that still has an unused item (for subsets: each level at or below the last
    one).  Raises ``ValueError`` beyond :data:`MAX_VARIABLES`.  The arrays are read-only
    (the last few tables are shared between calls)."""
    key = (int(n), int(k), int(top), bool(ordered))
    if key in _cache:
        _cache[key] = _cache.pop(key)
        return _cache[key]
    if not 1 <= top <= n - 1:
        raise ValueError(f"need 1 <= top <= n - 1, got top={top}, n={n}")
    if orbit_count_exceeds(n, k, top, ordered, MAX_VARIABLES):
        raise ValueError(f"n={n}, k={k}, top={top} has more than {MAX_VARIABLES} "
                         "variables")
    if top * math.log(k + 1) + math.log(class_count(n, k)) >= 62 * math.log(2):
        raise ValueError(f"n={n}, k={k}, top={top} is too large for 64-bit keys")
    orbits = _enumerate(lattice_classes(n, k), top, ordered)
    for array in (orbits.var_class, orbits.var_levels, orbits.size, orbits.keys):
        array.flags.writeable = False
    _cache[key] = orbits
    while len(_cache) > _CACHE_SIZE:
        _cache.pop(next(iter(_cache)))
    return orbits


def _enumerate(classes: LatticeClasses, top: int, ordered: bool) -> TopKOrbits:
    k = classes.k
    owner = np.arange(classes.num_classes, dtype=np.int64)
    remaining = classes.counts.astype(np.int64)
    size = np.ones(owner.size)
    levels = np.zeros((owner.size, 0), dtype=np.int64)
    for _ in range(top):
        allowed = remaining > 0
        if not ordered and levels.shape[1]:
            allowed &= np.arange(k + 1) >= levels[:, -1:]
        row, level = np.nonzero(allowed)
        if ordered:
            size = size[row] * remaining[row, level]     # falling factorial m_j (m_j - 1) ...
        else:
            size = size[row]
        owner, remaining = owner[row], remaining[row]
        remaining[np.arange(row.size), level] -= 1
        levels = np.hstack([levels[row], level[:, None]])
    if not ordered:                                      # prod_j C(m_j, c_j)
        binomial = np.array([[math.comb(m, c) for c in range(top + 1)]
                             for m in range(classes.n + 1)], dtype=np.float64)
        used = classes.counts[owner].astype(np.int64) - remaining
        size = binomial[classes.counts[owner], np.minimum(used, top)].prod(axis=1)
    codes = levels @ (k + 1) ** np.arange(top - 1, -1, -1, dtype=np.int64)
    keys = owner * (k + 1) ** top + codes
    if keys.size > 1 and not (np.diff(keys) > 0).all():  # pragma: no cover - invariant
        raise AssertionError("orbit keys are not sorted")
    return TopKOrbits(classes=classes, top=top, ordered=ordered, var_class=owner,
                      var_levels=levels, size=size, keys=keys)
