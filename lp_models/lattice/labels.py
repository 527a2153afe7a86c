"""Labels of the lattice LPs' rows and columns (:mod:`lp_models.labels`), rendered on demand.

Reduced LP (:func:`lp_models.lattice.reduced_lattice_lp` and its Δ-lattice, relaxed and
minimax forms): columns ``x[class c: m=(m_0,...,m_k), level j]`` (the probability of one
item at level ``j`` in class ``c``, whose count vector is ``m``); rows
``sum-to-one[class c: m=(...)]``, ``privacy[x[...] >= e^-eps x[...]]``,
``monotone[x[...] >= x[...]]``, ``relaxed-privacy[x[...] >= e^-(eps*j) x[...]]`` and
``epigraph[t >= error of class c: m=(...)]``.  Full LP
(:func:`lp_models.lattice.full_lattice_lp`): columns ``x[q=(l_1,...,l_n), item r]`` (``l_i``
the level of item ``i``), rows ``sum-to-one[q=(...)]`` and the pair rows above plus
``symmetry[x[...] = x[...]]``.  A label names exactly the two columns of a pair row, so
``row_label`` and the matrix can be checked against each other.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from lp_models.labels import LabelBlock, PairLabels, vector
from lp_models.lattice.classes import LatticeClasses
from lp_models.program import LinearProgram

__all__ = ["ClassLabels", "FULL_RELATIONS", "FullVariableLabels", "VariableLabels",
           "VectorLabels", "epigraph_block", "label_reduced_rows", "monotone_block",
           "pair_block", "reduced_blocks"]

PRIVACY_RELATION = "privacy[{a} >= e^-eps {b}]"
MONOTONE_RELATION = "monotone[{a} >= {b}]"
FULL_RELATIONS = {"privacy": ("priv", PRIVACY_RELATION), "monotone": ("mono", MONOTONE_RELATION),
                  "symmetry": ("sym", "symmetry[{a} = {b}]")}
"""Name prefix and label template of each kind of pair row of the full LP."""


@dataclass(frozen=True, eq=False)
class VariableLabels:
    """Labels ``x[class c: m=(...), level j]`` of the reduced LP's variables."""

    #: The classes whose variables are labelled.
    classes: LatticeClasses

    def __call__(self, variables: np.ndarray) -> list[str]:
        c = self.classes
        owner = c.var_class[variables]
        return [f"x[class {i}: m={vector(m)}, level {j}]" for i, m, j in
                zip(owner.tolist(), c.counts[owner].tolist(), c.var_level[variables].tolist())]


@dataclass(frozen=True, eq=False)
class ClassLabels:
    """Labels of one row per class: ``template`` with ``{c}`` the class index and ``{m}``
    its count vector."""

    #: The classes whose rows are labelled.
    classes: LatticeClasses
    #: A format string with the fields ``{c}`` and ``{m}``.
    template: str

    def __call__(self, rows: np.ndarray) -> list[str]:
        return [self.template.format(c=i, m=vector(m))
                for i, m in zip(rows.tolist(), self.classes.counts[rows].tolist())]


def pair_block(kind: str, prefix: str, template: str, first, second, columns) -> LabelBlock:
    return LabelBlock(kind, int(np.size(first)), prefix, PairLabels(template, first, second,
                                                                    columns))


def monotone_block(classes: LatticeClasses, first, second) -> LabelBlock:
    return pair_block("monotone", "mono", MONOTONE_RELATION, first, second,
                       VariableLabels(classes))


def reduced_blocks(classes: LatticeClasses, privacy: tuple, monotone: tuple | None = None,
                   privacy_kind: str = "privacy", privacy_template: str = PRIVACY_RELATION
                   ) -> tuple[tuple, tuple]:
    """``(column blocks, row blocks)`` of a reduced LP: the class rows, the privacy rows
    ``privacy = (source, target)``, then the monotonicity rows ``monotone = (a, b)``."""
    columns = VariableLabels(classes)
    rows = [LabelBlock("sum-to-one", classes.num_classes, "sum",
                       ClassLabels(classes, "sum-to-one[class {c}: m={m}]")),
            pair_block(privacy_kind, "priv", privacy_template, *privacy, columns)]
    if monotone is not None:
        rows.append(monotone_block(classes, *monotone))
    return ((LabelBlock("probability", classes.num_variables, "x", columns),),
            tuple(b for b in rows if b.size))


def label_reduced_rows(lp: LinearProgram) -> LinearProgram:
    """``lp`` (a reduced lattice LP, or its minimax form, after row generation appended
    monotonicity rows) with every row labelled from its metadata.

    Rows: the class rows, the privacy rows, then monotonicity rows in the order of
    ``metadata["monotone_pairs"]``, except the range ``metadata["epigraph_rows"]`` (minimax
    objective), which holds one epigraph row per class.  If the counts do not add up to
    ``num_rows`` the LP is returned unchanged (its later rows stay unlabelled).  Cost: no
    copy of any array (the blocks refer to the metadata's)."""
    meta = lp.metadata
    classes = meta["classes"]
    first, second = meta["monotone_pairs"]
    head = classes.num_classes + meta["num_privacy_rows"]
    start, stop = meta.get("epigraph_rows", (lp.num_rows, lp.num_rows))
    if not head <= start <= stop or head + first.size + stop - start != lp.num_rows:
        return lp
    split = start - head                  # monotonicity rows before the epigraph rows
    _, rows = reduced_blocks(classes, (meta["privacy_source"], meta["privacy_target"]),
                             (first[:split], second[:split]))
    rows += (epigraph_block(lp, stop - start),
             monotone_block(classes, first[split:], second[split:]))
    return dataclasses.replace(lp, row_blocks=tuple(b for b in rows if b.size))


def epigraph_block(lp: LinearProgram, units: int) -> LabelBlock:
    """Labels of the epigraph rows ``t >= error of unit u`` of a minimax objective over
    ``lp``'s classes (reduced LP) or score vectors (full LP)."""
    meta = lp.metadata
    if "classes" in meta and meta["classes"].num_classes == units:
        describe = ClassLabels(meta["classes"], "epigraph[t >= error of class {c}: m={m}]")
    elif "levels" in meta and len(meta["levels"]) == units:
        describe = VectorLabels(meta["levels"], "epigraph[t >= error at q={q}]")
    else:
        describe = None
    return LabelBlock("epigraph", units, "epi", describe)


@dataclass(frozen=True, eq=False)
class VectorLabels:
    """Labels of one row per score vector of the full LP (``{q}``: its level vector)."""

    #: ``(vectors, n)``: the level vector of each row's score vector.
    levels: np.ndarray
    #: A format string with the field ``{q}``.
    template: str

    def __call__(self, rows: np.ndarray) -> list[str]:
        return [self.template.format(q=vector(q)) for q in self.levels[rows].tolist()]


@dataclass(frozen=True, eq=False)
class FullVariableLabels:
    """Labels ``x[q=(levels), item r]`` of the full LP's variables ``i * n + r``."""

    #: ``(vectors, n)``: the level vector of each score vector ``i``.
    levels: np.ndarray

    def __call__(self, variables: np.ndarray) -> list[str]:
        n = self.levels.shape[1]
        return [f"x[q={vector(self.levels[v // n])}, item {v % n}]"
                for v in variables.tolist()]
