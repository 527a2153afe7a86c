"""lp_models.lattice.basis: the forest of tight rows that starts the exact finish.

Independent references: hand-built graphs (which edges Kruskal's order must keep), a
union-find walk over the chosen rows (no cycle), and the exact optimum of ``solve_lattice``
(HiGHS, certified), which the square system of the class rows and the forest reproduces.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as spla

from lp_models.lattice import reduced_lattice_lp
from lp_models.lattice.basis import tight_forest
from optmech.lattice.optimum import solve_lattice


def is_forest(first, second, num_variables) -> bool:
    parent = list(range(num_variables))

    def root(u):
        while parent[u] != u:
            u = parent[u]
        return u

    for a, b in zip(first.tolist(), second.tolist()):
        ra, rb = root(a), root(b)
        if ra == rb:
            return False
        parent[ra] = rb
    return True


def test_tight_rows_come_first_by_multiplier_and_cycles_are_left_out():
    """A triangle 0-1-2 of tight rows (multipliers 3, 1, 2) and a slack row 2-3: the forest
    of three edges keeps the two tight rows with the larger multipliers, leaves the third
    (it closes the cycle) and then takes the slack row."""
    first, second = np.array([0, 1, 2, 2]), np.array([1, 2, 0, 3])
    slack = np.array([0.0, 1e-9, 0.0, 0.5])
    multiplier = np.array([3.0, 1.0, 2.0, 0.0])
    chosen = tight_forest(first, second, slack, multiplier, 4, 3)
    assert sorted(chosen.tolist()) == [0, 2, 3]
    assert sorted(tight_forest(first, second, slack, multiplier, 4, 2).tolist()) == [0, 2]


def test_a_row_between_the_same_two_variables_counts_once():
    first, second = np.array([0, 1, 0]), np.array([1, 0, 2])
    chosen = tight_forest(first, second, np.zeros(3), np.array([1.0, 5.0, 2.0]), 3, 3)
    assert sorted(chosen.tolist()) == [1, 2]          # fewer than asked: only two edges


@pytest.mark.parametrize("n, eps", [(4, 0.5), (5, 0.3)])
def test_the_forest_at_the_optimum_gives_back_the_optimum(n, eps):
    """At the exact optimum of the regular LP (HiGHS, certified) any forest of its tight
    rows (here all multipliers equal) joins the variables into one tree per class: with
    the class rows it is a square nonsingular system whose solution is the optimum (every
    probability positive, so every column basic)."""
    optimum = solve_lattice(n, n, eps)
    lp = optimum.lp
    classes = optimum.classes
    x = optimum.probabilities
    head, num_vars = classes.num_classes, classes.num_variables
    rows = lp.matrix.tocsr()[head:]
    rows.sort_indices()
    ends = rows.indptr[:-1]
    first, second = rows.indices[ends], rows.indices[ends + 1]
    slack = (rows @ x) / (np.abs(rows) @ x)
    chosen = tight_forest(first, second, slack, np.ones(rows.shape[0]), num_vars,
                          num_vars - head)
    assert chosen.size == num_vars - head and (slack[chosen] < 1e-9).all()
    assert is_forest(first[chosen], second[chosen], num_vars)
    system = sp.vstack([lp.matrix.tocsr()[:head], rows[chosen]]).tocsc()
    rhs = np.concatenate([np.ones(head), np.zeros(chosen.size)])
    solved = spla.spsolve(system, rhs)
    np.testing.assert_allclose(solved, x, rtol=1e-9)
    assert reduced_lattice_lp(n, n, eps).max_violation(solved) <= 1e-12
