"""What each row and column of a :class:`~lp_models.program.LinearProgram` is, computed only
for the indices asked for.

A builder describes its rows (and its columns) as consecutive *blocks*, one kind each: the
class rows of the lattice LP, then its privacy rows, then its monotonicity rows.  A
:class:`LabelBlock` keeps references to the arrays the builder already has (class tables,
the source and target of every privacy row) and a small *describer* that renders the labels
of the requested indices; no string exists until one is asked for, so labelling costs
nothing at the reduced lattice LP's 9.1 million columns and 72.6 million rows (n = k = 12).

Every row and column has two strings:

* a **label** saying what it is, e.g. ``privacy[x[class 7: m=(1,2,0), level 1] >= e^-eps
  x[class 3: m=(2,1,0), level 0]]``;
* a **name** for MPS and LP files: the block's ``prefix`` followed by the row's (column's)
  index in the whole LP, e.g. ``priv12``.  Prefixes are letters and underscores only, so a
  name ends in exactly one number and two rows never share a name; names contain no spaces
  and no characters that the LP file format reads as operators.

Blocks cover the leading rows (columns); rows appended later without a block (row
generation through :meth:`~lp_models.program.HighsModel.add_rows`) are labelled ``row i``
and named ``r<i>`` (columns: ``column j``, ``c<j>``).  A block read from a file carries the
file's names, which serve as both label and name.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np

__all__ = ["LabelBlock", "PairLabels", "Wrapped", "check_blocks", "layout", "names", "padded",
           "prefix_for", "render", "vector"]

_PREFIX = re.compile(r"[A-Za-z_]+")
Describer = Callable[[np.ndarray], Sequence[str]]


@dataclass(frozen=True, eq=False)
class LabelBlock:
    """``size`` consecutive rows (or columns) of one ``kind``.

    ``describe(local)`` returns the labels of the block's rows ``local`` (indices counted
    from the block's first row; an int64 array); without it a row is labelled
    ``kind[local]``.  ``prefix`` (letters and ``_``) starts every name of the block.
    ``names``, if given, are explicit names (read from a file) used as labels and names.
    """

    #: What the block's rows (columns) are, e.g. ``"privacy"``: the block's entry in
    #: ``row_layout()`` (``column_layout()``) and the label ``kind[local]`` of a row when there
    #: is no ``describe``.
    kind: str
    #: Number of consecutive rows (columns) in the block (>= 0).
    size: int
    #: Start of every MPS / LP-file name of the block (letters and ``_`` only), followed by the
    #: row's index in the whole LP.
    prefix: str
    #: The labels of block-local row indices (an int64 array in, one string per index out), or None
    #: for ``kind[local]``.
    describe: Describer | None = None
    #: Explicit names, one per row (e.g. read from a file), used as both labels and names; None to
    #: derive them from ``prefix``.
    names: Sequence[str] | None = None

    def __post_init__(self):
        if not (isinstance(self.size, (int, np.integer)) and self.size >= 0):
            raise ValueError(f"size must be an integer >= 0; got {self.size!r}")
        if not _PREFIX.fullmatch(self.prefix):
            raise ValueError(f"prefix must be letters and '_' only; got {self.prefix!r}")
        if self.names is not None and len(self.names) != self.size:
            raise ValueError(f"names has {len(self.names)} entries, the block {self.size}")

    def labels(self, local: np.ndarray) -> list[str]:
        if self.names is not None:
            return [self.names[i] for i in local.tolist()]
        if self.describe is not None:
            return list(self.describe(local))
        return [f"{self.kind}[{i}]" for i in local.tolist()]

    def names_from(self, start: int) -> list[str]:
        """Names of every row of the block, the block starting at row ``start``."""
        if self.names is not None:
            return list(self.names)
        return [f"{self.prefix}{i}" for i in range(start, start + self.size)]


@dataclass(frozen=True, eq=False)
class _Unlabelled:
    """Labels ``what i`` by index in the whole LP for rows no block covers."""

    what: str
    start: int

    def __call__(self, local: np.ndarray) -> list[str]:
        return [f"{self.what} {self.start + i}" for i in local.tolist()]


def check_blocks(blocks: Sequence[LabelBlock], size: int, what: str) -> tuple:
    """``blocks`` as a tuple, refusing blocks that cover more than ``size`` rows."""
    blocks = tuple(blocks)
    if not all(isinstance(b, LabelBlock) for b in blocks):
        raise ValueError(f"{what} must be LabelBlock objects")
    covered = sum(b.size for b in blocks)
    if covered > size:
        raise ValueError(f"{what} cover {covered} entries, the LP has {size}")
    return blocks


def padded(blocks: Sequence[LabelBlock], size: int, what: str) -> tuple:
    """The blocks, and one block of unlabelled entries after them if they stop short of
    ``size``."""
    covered = sum(b.size for b in blocks)
    if covered < size:
        return (*blocks, LabelBlock(what, size - covered, what[0], _Unlabelled(what, covered)))
    return tuple(blocks)


def prefix_for(kind: str) -> str:
    """A name prefix from a kind: its letters, other characters as ``_`` (``"total-error
    budget"`` -> ``total_error_budget``)."""
    prefix = re.sub(r"[^A-Za-z]+", "_", kind).strip("_")
    return prefix or "x"


def layout(blocks: Sequence[LabelBlock], size: int, what: str) -> list[tuple[str, int, int]]:
    """``(kind, start, stop)`` of every block, in order (unlabelled entries: kind ``what``)."""
    out, start = [], 0
    for block in padded(blocks, size, what):
        out.append((block.kind, start, start + block.size))
        start += block.size
    return out


def render(blocks: Sequence[LabelBlock], indices, size: int, what: str) -> list[str]:
    """Labels of the entries ``indices`` (any order, repeats allowed; ``None``: all)."""
    indices = (np.arange(size) if indices is None
               else np.atleast_1d(np.asarray(indices)).astype(np.int64, copy=False))
    if indices.ndim != 1:
        raise ValueError(f"indices must be a vector of {what} indices")
    if indices.size and not (indices.min() >= -size and indices.max() < size):
        raise IndexError(f"{what} index out of range for {size} {what}s")
    indices = np.where(indices < 0, indices + size, indices)
    blocks = padded(blocks, size, what)
    starts = np.cumsum([0] + [b.size for b in blocks])
    owner = np.searchsorted(starts, indices, side="right") - 1
    out = [""] * indices.size
    for b in np.unique(owner):
        at = np.flatnonzero(owner == b)
        for position, text in zip(at.tolist(),
                                  blocks[b].labels(indices[at] - starts[b])):
            out[position] = text
    return out


def names(blocks: Sequence[LabelBlock], size: int, what: str) -> list[str]:
    """Names of all entries (see the module docstring)."""
    out, start = [], 0
    for block in padded(blocks, size, what):
        out += block.names_from(start)
        start += block.size
    return out


def vector(values) -> str:
    """``(2,1,0)``: a short text for an integer vector."""
    return "(" + ",".join(str(int(v)) for v in values) + ")"


@dataclass(frozen=True, eq=False)
class PairLabels:
    """Rows that link two columns, e.g. ``x[a] - e^-eps x[b] >= 0``: the label of row ``i``
    is ``template`` with ``{a}`` and ``{b}`` the labels of columns ``first[i]`` and
    ``second[i]`` (from ``columns``, a describer of column indices)."""

    #: Label text with the placeholders ``{a}`` and ``{b}`` for the labels of the two columns a row
    #: links.
    template: str
    #: Column (index in the whole LP) put at ``{a}``, one per row of the block (int array).
    first: np.ndarray
    #: Column (index in the whole LP) put at ``{b}``, one per row of the block (int array).
    second: np.ndarray
    #: The labels of column indices (a describer, e.g. the LP's column labels).
    columns: Describer

    def __call__(self, local: np.ndarray) -> list[str]:
        a = self.columns(self.first[local])
        b = self.columns(self.second[local])
        return [self.template.format(a=x, b=y) for x, y in zip(a, b)]


@dataclass(frozen=True, eq=False)
class Wrapped:
    """Labels ``template.format(label)`` of another describer's labels, e.g. the dual LP's
    column ``mu[<primal row>]`` for the multiplier of a primal row."""

    #: Label text with one ``{}`` placeholder for the inner label, e.g. ``"mu[{}]"``.
    template: str
    #: The describer whose labels are wrapped (the same indices are passed through).
    inner: Describer

    def __call__(self, local: np.ndarray) -> list[str]:
        return [self.template.format(text) for text in self.inner(local)]
