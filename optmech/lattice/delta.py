"""Why permute-and-flip is never optimal on the Δ-lattice: an explicit improving step.

On the bounded Δ-lattice (:func:`lp_models.lattice.delta_lattice_lp`) a level is one step of
Δ, so PF (exponent ``eps / (2Δ)``) has coins ``u^j`` with ``u = e^{-eps/2}``, while the
privacy row of a level-``j`` item links it to the same item raised by *two* steps.  For
``j >= 2`` PF meets that row with equality (``u^2 = e^-eps``, Case 1 of recurrence (5) twice);
for ``j = 1`` the item is raised one step *above* the others, and PF meets the row strictly:
with ``f(t) = prod_{s != r} (1 - p_s t)`` over the other items at the lifted vector,

    Pr[r at q + 2Δ e_r] = int_0^1 f(u t) dt = (1/u) int_0^u f(s) ds < (1/u) int_0^1 f(s) ds,

so ``x_r(q) = u Pr[r lifted to the top] > u^2 Pr[r at q + 2Δ e_r] = e^-eps x_r(q + 2Δ e_r)``.

Take the class ``m = (1, n - 1, 0, ..., 0)`` (one top item, ``n - 1`` items one step below)
and move probability ``delta`` from each level-1 item to the top item.  Every row this
touches is strict at PF: the level-1 rows (above); the row pointing at the top variable is
the level-1 row of ``(n - 1, 1, 0, ...)`` (strict); the monotonicity rows of PF are strict
(its coins strictly increase with the own score and strictly decrease as another item rises).
So a small ``delta > 0`` keeps every row, and the expected error of the class falls by
``(n - 1) delta`` steps: for every ``n >= 2``, ``k >= 1``, ``eps > 0`` and any objective that
puts positive weight on that class (the sum, the cube weighting, any positive prior), PF is
not optimal on the Δ-lattice, so no threshold in ``eps`` makes it optimal.
:func:`pf_improving_step` builds the step and checks it with numpy against every row.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from lp_models.lattice import monotonicity_pair_blocks, privacy_pairs
from lp_models.lattice.classes import LatticeClasses
from optmech.lattice.inputs import check_lattice, lattice_table
from optmech.lattice.objectives import pf_on_lattice

__all__ = ["ImprovingStep", "pf_improving_step"]


@dataclass(frozen=True, eq=False)
class ImprovingStep:
    """PF on the Δ-lattice and a feasible point that beats it: ``point = pf + delta *
    direction`` (probabilities per variable of ``classes``)."""

    #: The number of items.
    n: int
    #: The depth of the lattice.
    k: int
    #: The privacy parameter ε.
    epsilon: float
    #: Half the largest step along the direction that keeps every row.
    delta: float
    #: The fall of the expected error of the class ``(1, n - 1, 0, ...)`` (units of Δ):
    #: ``(n - 1) delta``.
    gain: float
    #: The smallest slack at ``point`` of the rows and bounds the step changes (positive:
    #: every other row is PF's own, which PF meets by Theorem 1).
    slack: float
    #: The improved point (probabilities per variable of ``classes``).
    point: np.ndarray = field(repr=False)
    #: PF's probabilities per variable of ``classes``.
    pf: np.ndarray = field(repr=False)
    #: The symmetry classes of the Δ-lattice vectors.
    classes: LatticeClasses = field(repr=False)


def _rows(classes: LatticeClasses, epsilon: float):
    """``(a, b, coef)`` blocks of every inequality row ``x[a] - coef x[b] >= 0``."""
    source, target = privacy_pairs(classes, "delta")
    yield source, target, math.exp(-epsilon)
    for a, b in monotonicity_pair_blocks(classes):
        yield a, b, 1.0


def pf_improving_step(n: int, k: int, epsilon: float) -> ImprovingStep:
    """The step of the module docstring for ``n >= 2`` items, depth ``k >= 1``: the largest
    ``delta`` keeping every row (privacy, monotonicity, ``x >= 0``; class sums hold by
    construction) and the point at half of it, checked against every row.  ``O(R)`` work for
    ``R`` rows."""
    n, k, epsilon = check_lattice(n, k, epsilon, "lattice", "regular")
    classes = lattice_table(n, k)
    pf = pf_on_lattice(classes, epsilon, "delta")
    counts = np.zeros(k + 1, dtype=np.int64)
    counts[:2] = (1, n - 1)
    cls = int(classes.find(np.array([counts @ classes.radix]))[0])
    direction = np.zeros(classes.num_variables)
    direction[classes.variable(np.array([cls, cls]), np.array([1, 0]))] = (-1.0, n - 1.0)
    largest = pf[direction < 0].min()             # x >= 0
    for a, b, coef in _rows(classes, epsilon):
        change = direction[a] - coef * direction[b]
        falling = change < 0
        if falling.any():
            value = pf[a[falling]] - coef * pf[b[falling]]
            largest = min(largest, float((value / -change[falling]).min()))
    delta = 0.5 * largest
    point = pf + delta * direction
    slack = float(point[direction != 0].min())
    for a, b, coef in _rows(classes, epsilon):
        touched = (direction[a] != 0) | (direction[b] != 0)
        if touched.any():
            slack = min(slack, float((point[a[touched]] - coef * point[b[touched]]).min()))
    return ImprovingStep(n=n, k=k, epsilon=epsilon, delta=delta, gain=(n - 1) * delta,
                         slack=slack, point=point, pf=pf, classes=classes)
