"""Symmetry classes of the bounded 2Δ-lattice and the privacy chains that link them.

Permute-and-flip paper, Section 5 and Appendix D.  The bounded lattice is

    Q = {q in (2Δ Z)^n : q* = max_r q_r = 0, q* - q_r <= 2Δ k}.

An item at score ``q_r = -2Δ j`` is at *level* ``j`` (0 = top, k = bottom).  A regular
mechanism is symmetric, so its probabilities depend only on the *class* of ``q`` and the
level of the selected item.  A class is the count vector ``m = (m_0, ..., m_k)`` (items per
level) with ``m_0 >= 1`` and ``sum m_j = n``; there are ``C(n - 1 + k, k)`` of them, and
class ``m`` holds ``multinomial(m) = n! / prod m_j!`` vectors of ``Q``.  The reduced LP has
one variable ``x[m, j]`` (the probability of one particular item at level ``j``) per class
and occupied level: 95 variables at n = k = 4.

Privacy rows (Appendix D, worst-case neighbour ``q'`` of ``(q, r)``) in class form:

* level ``j >= 1``:  ``x[m, j] >= e^-eps x[m - e_j + e_{j-1}, j - 1]`` (the item climbs one
  level; the others stay);
* level ``0``:       ``x[m, 0] >= e^-eps x[sigma(m), 0]`` with
  ``sigma(m) = (1, m_0 - 1, m_1, ..., m_{k-1})`` (the item stays on top, every other item
  sinks one level); dropped when ``m_k > 0`` because ``q'`` leaves the bounded lattice.

Each variable is the source of at most one privacy row and the target of at most one, so
the rows form disjoint *chains*: an item starts at level ``k`` beside a fixed set of other
items, climbs to the top, and then the others sink until one of them reaches level ``k``.
:class:`LatticeClasses` stores the classes and this chain structure as flat arrays (one
vectorised pass, no Python loop per class), which every builder and recurrence reuses.

Class keys are the mixed-radix numbers ``sum_j m_j (n + 1)^j``; classes are sorted by key so
that ``numpy.searchsorted`` finds the class of any count vector.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

__all__ = ["LatticeClasses", "MAX_ITEMS", "MAX_VARIABLES", "class_count", "lattice_classes",
           "variable_count"]

# Keys must stay below 2**62 and the model must fit in memory: about 5e7 variables is
# some 20 GiB of LP matrix, so builders refuse beyond it.  Counts are int16.
MAX_VARIABLES = 50_000_000
MAX_ITEMS = 2**15 - 1


def class_count(n: int, k: int) -> int:
    """Number of classes ``C(n - 1 + k, k)`` (compositions of ``n`` with ``m_0 >= 1``)."""
    return math.comb(n - 1 + k, k)


def variable_count(n: int, k: int) -> int:
    """Number of variables of the reduced LP without enumerating it: every class has a
    level-0 variable, and for each level ``j >= 1`` the classes with ``m_j >= 1`` are the
    compositions of ``n - 1`` with ``m_0 >= 1`` (one item set aside at level ``j``)."""
    return class_count(n, k) + k * (class_count(n - 1, k) if n >= 2 else 0)


def _compositions(n: int, k: int) -> np.ndarray:
    """All ``(m_0, ..., m_k)`` with ``m_0 >= 1``, ``sum = n``: one vectorised pass per level."""
    parts = np.zeros((1, 0), dtype=np.int16)
    remaining = np.array([n], dtype=np.int64)
    for level in range(k + 1):
        low = 1 if level == 0 else 0
        if level == k:
            keep = remaining >= low
            parts = np.hstack([parts[keep], remaining[keep, None].astype(np.int16)])
            break
        choices = np.maximum(remaining - low + 1, 0)
        row = np.repeat(np.arange(remaining.size), choices)
        offset = np.arange(choices.sum()) - np.repeat(np.cumsum(choices) - choices, choices)
        value = low + offset
        parts = np.hstack([parts[row], value[:, None].astype(np.int16)])
        remaining = remaining[row] - value
    return parts


def _multinomials(counts: np.ndarray) -> np.ndarray:
    """``n! / prod m_j!`` as float64: exact integers while ``n! < 2**53`` (n <= 18), else
    correctly rounded to about 1e-16 while ``n! < 2**1024`` (n <= 170); beyond, from
    ``log Gamma`` (relative error about ``n`` ulps).  Refuses (``ValueError``) a class
    holding more vectors than a double can count."""
    n = int(counts[0].sum())
    if n <= 170:
        factorial = np.array([math.factorial(i) for i in range(n + 1)], dtype=np.float64)
        return factorial[n] / factorial[counts].prod(axis=1)
    log_factorial = np.array([math.lgamma(i + 1) for i in range(n + 1)])
    log_value = log_factorial[n] - log_factorial[counts].sum(axis=1)
    if log_value.max() >= math.log(np.finfo(float).max):
        raise ValueError(f"n={n}: a class holds more than 1.8e308 score vectors")
    return np.exp(log_value)


@dataclass(frozen=True, eq=False)
class LatticeClasses:
    """The classes of ``Q`` for ``n`` items and depth ``k`` and the variables of the reduced
    LP (``C`` classes, ``V`` variables)."""

    #: The number of items.
    n: int
    #: The depth of the lattice: levels ``0..k`` (scores ``0, -2Δ, ..., -2kΔ``).
    k: int
    #: ``(C, k + 1)`` int16: row ``c`` is the count vector of class ``c`` (sorted by key):
    #: ``counts[c, j]`` items at level ``j`` (score ``-2Δj``; ``-jΔ`` on the Δ-lattice).
    counts: np.ndarray
    #: ``(C,)`` int64 mixed-radix keys ``sum_j counts[c, j] (n + 1)^j`` (sorted; :meth:`find`
    #: maps a key to its class).
    keys: np.ndarray
    #: ``(C,)`` float64: ``multinomial(m)``, how many score vectors of Q class ``c`` holds
    #: (its permutations; exact integers).
    multiplicity: np.ndarray
    #: ``(V,)`` class index of every variable (class-major): variable ``v`` is one item at
    #: level ``var_level[v]`` of a vector of class ``var_class[v]``, and a solution's
    #: ``probabilities[v]`` is that item's probability.
    var_class: np.ndarray
    #: ``(V,)`` level of every variable (class-major): its item's score is ``-2Δ`` times it.
    var_level: np.ndarray
    #: ``(V,)`` the variable on the other side of the variable's own privacy row, or -1
    #: where the row is dropped (top variables of classes with ``m_k > 0``).
    var_next: np.ndarray

    @property
    def num_classes(self) -> int:
        return int(self.keys.size)

    @property
    def num_variables(self) -> int:
        return int(self.var_class.size)

    @cached_property
    def radix(self) -> np.ndarray:
        """``(n + 1) ** j`` for ``j = 0..k``: the key of one item at level ``j``."""
        return (self.n + 1) ** np.arange(self.k + 1, dtype=np.int64)

    @cached_property
    def depth(self) -> np.ndarray:
        """Deepest occupied level of each class (0 when every item is on top)."""
        occupied = self.counts > 0
        return (self.k - np.argmax(occupied[:, ::-1], axis=1)).astype(np.int64)

    @cached_property
    def var_count(self) -> np.ndarray:
        """``m_j`` of every variable: how many items share its level in its class."""
        return self.counts[self.var_class, self.var_level].astype(np.float64)

    @cached_property
    def var_prev(self) -> np.ndarray:
        """The variable whose privacy row points at this one, or -1."""
        prev = np.full(self.num_variables, -1, dtype=np.int64)
        source = np.flatnonzero(self.var_next >= 0)
        prev[self.var_next[source]] = source
        return prev

    @cached_property
    def chain_position(self) -> np.ndarray:
        """Index of every variable along its privacy chain (0 at the start, a level-k item)."""
        position = np.zeros(self.num_variables, dtype=np.int64)
        current = np.flatnonzero(self.var_prev < 0)
        step = 0
        while current.size:
            position[current] = step
            current = self.var_next[current]
            current = current[current >= 0]
            step += 1
        return position

    @cached_property
    def top_variable(self) -> np.ndarray:
        """Index of the level-0 variable of every class (variables are class-major)."""
        return np.flatnonzero(self.var_level == 0)

    def find(self, keys: np.ndarray) -> np.ndarray:
        """Class indices of the given keys; -1 where a key is not a class of this lattice."""
        keys = np.asarray(keys, dtype=np.int64)
        pos = np.minimum(np.searchsorted(self.keys, keys), self.num_classes - 1)
        return np.where(self.keys[pos] == keys, pos, -1)

    def variable(self, classes: np.ndarray, levels: np.ndarray) -> np.ndarray:
        """Variable index of ``(class, level)`` pairs; -1 where the level is empty."""
        return self._variable_table[np.asarray(classes, dtype=np.int64),
                                    np.asarray(levels, dtype=np.int64)].astype(np.int64)

    @cached_property
    def _variable_table(self) -> np.ndarray:
        dtype = np.int32 if self.num_variables < 2**31 else np.int64
        table = np.full(self.counts.shape, -1, dtype=dtype)
        table[self.var_class, self.var_level] = np.arange(self.num_variables, dtype=dtype)
        return table

    def scores(self, classes, sensitivity: float = 1.0) -> np.ndarray:
        """Representative score vectors ``-2 sensitivity * level`` (items sorted by level),
        one row per requested class."""
        classes = np.atleast_1d(np.asarray(classes, dtype=np.int64))
        levels = np.tile(np.arange(self.k + 1), classes.size)
        flat = np.repeat(levels, self.counts[classes].ravel())
        return 0.0 - 2.0 * sensitivity * flat.reshape(classes.size, self.n).astype(float)


# Tables of at most this many variables are kept (the last few) for the next call with the
# same (n, k): a sweep over epsilon rebuilds the same table once per point otherwise.  At
# the limit a table holds about 100 MiB; n = k = 10 (530,000 variables) takes 0.08 s.
_CACHE_MAX_VARIABLES = 2_000_000
_CACHE_SIZE = 4
_cache: dict[tuple[int, int], LatticeClasses] = {}


def lattice_classes(n: int, k: int) -> LatticeClasses:
    """Enumerate the classes of the bounded lattice and link the privacy chains.

    ``n >= 1`` items and depth ``k >= 0`` (plain integers; validated by the caller's public
    API).  Raises ``ValueError`` when the reduced model would exceed :data:`MAX_VARIABLES`.
    The arrays are read-only: the last few tables of up to 2 million variables are shared
    between calls with the same ``(n, k)``.
    """
    key = (int(n), int(k))
    if key in _cache:
        _cache[key] = _cache.pop(key)            # most recently used last
        return _cache[key]
    classes = _build(n, k)
    for array in (classes.counts, classes.keys, classes.multiplicity, classes.var_class,
                  classes.var_level, classes.var_next):
        array.flags.writeable = False
    if classes.num_variables <= _CACHE_MAX_VARIABLES:
        _cache[key] = classes
        while len(_cache) > _CACHE_SIZE:
            _cache.pop(next(iter(_cache)))
    return classes


def _build(n: int, k: int) -> LatticeClasses:
    """:func:`lattice_classes` without the cache."""
    if n < 1 or k < 0:
        raise ValueError(f"need n >= 1 and k >= 0, got n={n}, k={k}")
    if n > MAX_ITEMS:
        raise ValueError(f"n={n} is more items than {MAX_ITEMS}")
    if (k + 1) * math.log(n + 1) >= 62 * math.log(2):
        raise ValueError(f"n={n}, k={k} is too large for 64-bit class keys")
    if variable_count(n, k) > MAX_VARIABLES:
        raise ValueError(f"n={n}, k={k} has {variable_count(n, k)} variables; more than "
                         f"{MAX_VARIABLES}")
    counts = _compositions(n, k)
    radix = (n + 1) ** np.arange(k + 2, dtype=np.int64)  # one spare digit for k = 0
    keys = counts.astype(np.int64) @ radix[:k + 1]
    order = np.argsort(keys, kind="stable")
    counts, keys = counts[order], keys[order]

    occupied = counts > 0
    var_class, var_level = np.nonzero(occupied)
    var_class = var_class.astype(np.int64)
    var_level = var_level.astype(np.int64)

    climbing = var_level >= 1
    level = np.maximum(var_level, 1)
    target_key = np.where(
        climbing,
        keys[var_class] - radix[level] + radix[level - 1],
        1 + (n + 1) * (keys[var_class] - 1))
    target_level = np.where(climbing, var_level - 1, 0)
    has_row = climbing | (counts[var_class, k] == 0)

    draft = LatticeClasses(n=n, k=k, counts=counts, keys=keys,
                           multiplicity=_multinomials(counts), var_class=var_class,
                           var_level=var_level, var_next=np.full(var_class.size, -1,
                                                                 dtype=np.int64))
    source = np.flatnonzero(has_row)
    target_class = draft.find(target_key[source])
    if (target_class < 0).any():  # pragma: no cover - a broken invariant, not user input
        raise AssertionError("privacy chain leaves the lattice")
    var_next = draft.var_next.copy()
    var_next[source] = draft.variable(target_class, target_level[source])
    return dataclasses.replace(draft, var_next=var_next)
