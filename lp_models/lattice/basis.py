"""A simplex basis of the reduced lattice LP read off an approximate optimum: the start of
the exact finish after the certified bracket (:mod:`lp_models.lattice.bracket`).

Permute-and-flip paper, Appendix D; the LP is :func:`lp_models.lattice.reduced_lattice_lp`
with any set of monotonicity rows.  Nothing here calls a solver: the basis is handed to
HiGHS (:meth:`lp_models.program.HighsModel.set_basis`), whose simplex makes it optimal.

Every probability of the optimum is positive (each row moves a variable's probability by at
most a factor ``e^eps`` from a neighbour's), so every column is basic and a basis is fixed by
the rows it holds tight: the ``C`` class rows and ``V - C`` of the privacy and monotonicity
rows, ``V`` variables and ``C`` classes.  Each of those rows ties two variables,
``x[a] = coef x[b]``; seen as edges of a graph on the variables, a tight set whose edges
close a cycle is linearly dependent (the cycle's ratios multiply to 1 at a point where all
of them hold), so the tight rows of a basis form a forest, and ``V - C`` edges leave ``C``
trees, one scale per tree, which the class rows fix.  The optimum is degenerate: more than
``V - C`` rows are tight there (measured at n = k = 7, eps = 0.5: 6,213 against 5,544, and
they join the variables into exactly ``C`` trees), so a basis keeps a forest of them.

:func:`tight_forest` picks it as Kruskal's algorithm does, from the tightest row on: rows in
increasing order of their relative slack at the point, rows the point holds tight (relative
slack below ``tight``) first and among those the ones with the larger multiplier (a row with
a positive multiplier is tight at every optimum; a tight row with multiplier 0 is a
degenerate one a basis can leave out), until ``V - C`` are taken.  Measured at n = k = 8,
eps = 0.5, from the bracket's single-precision point at width 1e-4: HiGHS's primal simplex
from this basis took 1,248 pivots, against 3,113 from PF's basis (the held-row simplex), and
14,728 when the rows are taken in order of their slack alone.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import minimum_spanning_tree

__all__ = ["TIGHT_SLACK", "tight_forest"]

# A row counts as tight at the point below this relative slack (|row| / sum of its two
# terms).  Measured at n = k = 8, eps = 0.5, against the exact optimum: from the bracket's
# single-precision point at width 1e-4, 16 of the 11,973 rows tight at the optimum have a
# larger slack, and every row with a slack below 1e-4 is tight at the optimum or within 1e-10
# of it; from a double-precision point at width 1e-6, none is missed.
TIGHT_SLACK = 1e-5


def tight_forest(first: np.ndarray, second: np.ndarray, slack: np.ndarray,
                 multiplier: np.ndarray, num_variables: int, size: int,
                 tight: float = TIGHT_SLACK) -> np.ndarray:
    """Indices of ``size`` rows ``x[first[i]] = coef x[second[i]]`` that form a forest,
    chosen in Kruskal's order (see the module docstring): rows with relative ``slack`` below
    ``tight`` first, by decreasing ``multiplier``, then the others by increasing slack.
    Fewer than ``size`` when the rows do not hold that many edges of a forest."""
    first = np.asarray(first, dtype=np.int64)
    second = np.asarray(second, dtype=np.int64)
    slack = np.asarray(slack, dtype=float)
    scale = max(float(np.abs(multiplier).max(initial=0.0)), 1e-300)
    held = slack < tight
    key = np.where(held, -np.asarray(multiplier, dtype=float) / scale - 2.0,
                   np.minimum(slack, 1.0))
    order = np.argsort(key, kind="stable")
    # one edge per pair of variables (a privacy row and the monotonicity row of the same
    # two variables are the same edge), the first in that order
    low = np.minimum(first[order], second[order])
    high = np.maximum(first[order], second[order])
    _, keep = np.unique(low * num_variables + high, return_index=True)
    keep = np.sort(keep)
    rank = np.arange(1, keep.size + 1, dtype=float)          # MST weights: the order
    graph = sp.coo_matrix((rank, (low[keep], high[keep])),
                          shape=(num_variables, num_variables)).tocsr()
    tree = minimum_spanning_tree(graph).tocoo()
    chosen = np.sort(tree.data.astype(np.int64))[:size] - 1
    return order[keep[chosen]]
