"""Labels of the top-k LP's rows and columns (:mod:`lp_models.labels`), rendered on demand.

Columns ``x[class c: m=(m_0,...,m_k), levels (l_1,...,l_T)]`` (one tuple of the orbit; for
subsets ``levels {l_1,...,l_T}``); rows ``sum-to-one[class c: m=(...)]``,
``privacy[x[...] >= e^-eps x[...]]`` and ``monotone[first i: P(item at x[class c: m=(...),
level j]) >= P(item at x[...])]``, the probability that the item of a lattice variable (one
item at level ``j`` of class ``c``) is among the first ``i`` outputs.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lp_models.labels import LabelBlock, PairLabels, vector
from lp_models.lattice.labels import ClassLabels, VariableLabels
from lp_models.topk.orbits import TopKOrbits

__all__ = ["MonotoneLabels", "OrbitLabels", "topk_blocks"]


@dataclass(frozen=True, eq=False)
class OrbitLabels:
    """Labels ``x[class c: m=(...), levels (...)]`` of the top-k LP's variables."""

    #: The orbits whose variables are labelled.
    orbits: TopKOrbits

    def __call__(self, variables: np.ndarray) -> list[str]:
        o = self.orbits
        owner = o.var_class[variables]
        opening, closing = ("(", ")") if o.ordered else ("{", "}")
        return [f"x[class {c}: m={vector(m)}, levels {opening}{vector(s)[1:-1]}{closing}]"
                for c, m, s in zip(owner.tolist(), o.classes.counts[owner].tolist(),
                                   o.var_levels[variables].tolist())]


@dataclass(frozen=True, eq=False)
class MonotoneLabels:
    """Labels of the monotonicity rows: the prefix ``i`` and the two lattice variables (an
    item of a class at a level) whose marginals the row compares."""

    #: The orbits of the LP (their classes label the lattice variables).
    orbits: TopKOrbits
    #: ``(rows,)`` the prefix length ``i`` of each row.
    prefix: np.ndarray
    #: ``(rows,)`` the lattice variable whose marginal is the larger.
    first: np.ndarray
    #: ``(rows,)`` the lattice variable whose marginal is the smaller.
    second: np.ndarray

    def __call__(self, rows: np.ndarray) -> list[str]:
        items = VariableLabels(self.orbits.classes)
        a, b = items(self.first[rows]), items(self.second[rows])
        return [f"monotone[first {i}: P(item at {x}) >= P(item at {y})]"
                for i, x, y in zip(self.prefix[rows].tolist(), a, b)]


def topk_blocks(orbits: TopKOrbits, privacy: tuple, monotone: tuple) -> tuple[tuple, tuple]:
    """``(column blocks, row blocks)``: the class rows, the privacy rows ``privacy = (source,
    target)``, then the monotonicity rows ``monotone = (prefix, a, b)``."""
    columns = OrbitLabels(orbits)
    rows = [LabelBlock("sum-to-one", orbits.classes.num_classes, "sum",
                       ClassLabels(orbits.classes, "sum-to-one[class {c}: m={m}]")),
            LabelBlock("privacy", int(privacy[0].size), "priv",
                       PairLabels("privacy[{a} >= e^-eps {b}]", *privacy, columns)),
            LabelBlock("monotone", int(monotone[0].size), "mono",
                       MonotoneLabels(orbits, *monotone))]
    return ((LabelBlock("probability", orbits.num_variables, "x", columns),),
            tuple(b for b in rows if b.size))
