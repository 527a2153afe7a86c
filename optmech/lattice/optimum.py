"""The optimal regular mechanism on the bounded 2Δ-lattice, certified.

Permute-and-flip paper, Section 5 (Theorem 3, Figure 2) and Appendix D.  The LP and its
reduced form are in :mod:`lp_models.lattice`; this module solves it (the HiGHS rounds are
in :mod:`optmech.lattice.solve_loop`, the ratios of mechanisms against the optimum in
:mod:`optmech.lattice.ratios`).

:func:`solve_lattice` returns a :class:`LatticeOptimum` whose value is *certified*: a primal
point that satisfies every row of the LP (checked here with numpy, including all
monotonicity rows of the regular LP), its value rounded upwards
(:func:`lp_models.lattice.certificates.objective_upper`), and a lower bound recomputed from
row multipliers by the lattice certificate
(:func:`lp_models.lattice.certificates.lagrangian_bound`, rounded downwards; the better of
the multipliers as given and after the chain sweep of
:func:`lp_models.lattice.dual_repair.repair_dual`); the relative gap must be at most
``gap_tolerance`` (1e-7) or :class:`~lp_models.program.SolverError` is raised.  Both are
rounded the safe way because, summed in plain double, the bound came out one ulp above the
value (n = 3, k = 2, eps = 4.05e-9).

How the optimum is found (``method="auto"``):

1. *No solve* when the chain dual certifies permute-and-flip
   (:func:`lp_models.lattice.recurrences.chain_dual`): PF's probabilities come from its
   recurrence and the dual from a second recurrence, ``O(V)`` work for ``V`` variables.  For
   the lattice weighting this happens exactly when ``sum_{t=1}^k e^{-eps t} <= 1`` (or
   ``n <= 2``), i.e. for ``eps`` above about 0.61 (k = 3) to ``ln 2`` (large k), well below
   the paper's sufficient threshold ``ln((3 + sqrt 5)/2) = 0.9624``.
2. Otherwise HiGHS solves the reduced LP, one model kept between rounds (see
   :func:`~optmech.lattice.solve_loop.solve_with_highs`); for the regular LP the
   monotonicity rows are added by row generation (seeded with the block that binds most,
   then only violated rows).  The solver is the
   primal simplex: every climbing privacy row starts held tight, so the first point is PF,
   and a row is released when its multiplier turns negative (few are slack at the
   optimum).  Below eps = 0.25 on models of 5000 variables or more (n = k = 7 and up) so
   many rows are slack at the optimum that HiGHS's interior point (IPX, then simplex from
   its crossover basis) is used instead (6.5 times faster at n = k = 8, eps = 0.2).
   The primal is renormalised per class and, if a row is violated by rounding, mixed with
   the strictly feasible point ``(uniform + PF) / 2`` just enough to satisfy every row
   exactly.  The lower bound is the Lagrangian bound at HiGHS's row multipliers of the
   last model (with the held rows as inequalities; a relaxation of the regular LP, so its
   bound is valid for the full LP).

Scale.  Step 1 is linear in the number of variables: n = k = 12 (9.1 million variables,
72.6 million rows of the regular LP) is certified in 20 to 40 s and 2.3 GiB.  Step 2 is an
LP solve whose cost grows faster than quadratically (a change of the basis propagates
through every layer of the recurrence): at eps = 0.5, n = k = 8 takes 3 to 5 s and
n = k = 9 80 to 150 s (``benchmarks/results/lattice.md``), so n = k = 10 at eps = 0.5 is
out of reach; just below the threshold it is certified (eps = 0.68, 0.6827, 0.69: 202,
214, 287 s).  Smaller eps is slower: at n = k = 8, 160 s at eps = 0.2 (interior point; the
held-row simplex takes 1060 s) and 464 s at eps = 0.05.  Every other method measured was
slower at eps = 0.5 (IPX, PDLP, Clarabel, privacy rows eliminated by substitution: the
numbers are in the changelog).

``method="pdhg"`` is the *exact finish*: the certified bracket of
:mod:`lp_models.lattice.bracket` to width :data:`FINISH_WIDTH`, then HiGHS's simplex from the
basis its PDHG point gives and row generation
(:func:`~optmech.lattice.solve_loop.finish_with_highs`, :func:`finish_bracket`; what
``bound_lattice(..., exact=True)`` runs), certified like step 2.  ``"auto"`` does not use it:
it was not faster than step 2 where both were measured (eps = 0.5: n = k = 8, 5 + 3 CPU s
against 3 to 5 s; n = k = 9, 25 + 92 against 80 to 150 s), since its simplex still needs
about as many pivots as from PF.  Other ``method`` values (``"simplex"``, ``"ipm"``,
``"pdlp"``) skip step 1 and run that HiGHS solver on the reduced LP (a cross-check; PDLP
rarely reaches the 1e-7 certificate).

Beyond the paper's setting (``objective="max"`` or ``"weighted"``, ``lattice="delta"``;
:mod:`optmech.lattice.objectives`): step 1 does not apply (the chain dual certifies PF for
the sum over the 2Δ-lattice only), HiGHS solves the LP of that objective and lattice with
monotonicity rows added by row generation, and the point is repaired and certified: every
row checked (all monotonicity rows, the epigraph rows of ``"max"`` with ``t`` recomputed as
the largest class error of the repaired point), the bound recomputed from the multipliers
by the lattice certificate (:func:`lp_models.lattice.certificates.lagrangian_bound` after
the chain sweep of :func:`lp_models.lattice.dual_repair.repair_dual`).  All of it happens in
units relative to PF's probabilities (:class:`~lp_models.lattice.certificates.LatticeUnits`):
the probabilities span ``e^{-eps k}`` and underflow beyond ``eps k`` of about 745, while the
coefficients in these units stay normal doubles for every ``eps <= 700``, and HiGHS's
absolute tolerances become relative ones.  ``lower_bound`` and ``gap`` then certify
``objective_value``; ``probabilities`` are the certified point's (0 where below the smallest
double), ``lp`` is the LP in those units and ``lp_point()`` the point in them.  Measured on a
log grid of 40 eps in [1e-9, 700], n, k <= 4: every point certified for every objective and
lattice (before these units 47 to 69 of the 480 points per variant failed).  The sum
objective's chain dual (step 1) is certified by the same lattice certificate, for either
weighting (``dual_objective``'s own sum lost every digit once the optimum fell below 1e-16).
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from lp_models.display import Displayed, Tabular
from lp_models.lattice import (
    LATTICES,
    class_weights,
    level_error,
    monotonicity_row_count,
    privacy_pairs,
    reduced_lattice_lp,
)
from lp_models.lattice.bracket import bracket_lattice_lp
from lp_models.lattice.certificates import (
    LatticeDual,
    LatticeUnits,
    lagrangian_bound,
    monotone_violation,
    objective_upper,
    primal_violation,
    repair_primal,
)
from lp_models.lattice.classes import LatticeClasses
from lp_models.lattice.dual_repair import repair_dual
from lp_models.lattice.labels import label_reduced_rows
from lp_models.lattice.objectives import class_error_matrix
from lp_models.lattice.recurrences import (
    chain_dual,
    chain_dual_threshold,
    pf_lattice_log_probabilities,
    pf_lattice_probabilities,
    reduced_row_duals,
    relaxed_dual,
    relaxed_to_chain_multipliers,
)
from lp_models.program import LinearProgram, SolverError, dual_objective
from optmech.lattice.inputs import MAX_EPSILON, MIN_EPSILON, check_lattice, lattice_table
from optmech.lattice.objectives import (
    OBJECTIVES,
    objective_weights,
    solve_objective_with_highs,
)
from optmech.lattice.solve_loop import finish_with_highs, solve_with_highs
from optmech.resources import require_memory
from optmech.selection.mechanisms import PrivacyGuarantee, SelectionMechanism
from optmech.selection.privacy import lattice_neighbours, realised_epsilon
from optmech.selection.samplers import sample_from_pmf
from optmech.validation import (
    InvalidArgumentError,
    check_choice,
    check_finite_result,
    check_positive,
)

__all__ = [
    "EXACT_GAP",
    "FINISH_WIDTH",
    "GAP_TOLERANCE",
    "METHODS",
    "METHOD_EPSILONS",
    "METHOD_EPSILON_DEPTHS",
    "RELATIVE_FROM",
    "LatticeOptimum",
    "LatticeSolutionMechanism",
    "finish_bracket",
    "lattice_lp_counts",
    "lattice_lp_size",
    "realised_privacy_loss",
    "solve_lattice",
]

METHODS = ("auto", "simplex", "ipm", "pdlp", "pdhg")
GAP_TOLERANCE = 1e-7
#: The certified relative gap below which a value is called *exact* (``"exact"`` status of
#: :func:`~optmech.lattice.bound.bound_lattice`): the simplex's own tolerances (1e-10,
#: :mod:`optmech.lattice.solve_loop`) give gaps of 4e-11 (n = k = 8, eps = 0.5), while a
#: certificate accepted at GAP_TOLERANCE can leave the value 1.6e-8 above the optimum
#: (n = k = 9, eps = 0.5: 1,188,591,092.81 against a proven upper bound of
#: 1,188,591,074.305); such a value is reported as the bracket it is.
EXACT_GAP = 1e-9
# Below this eps, method="auto" runs HiGHS's interior point, not the held-row simplex: the
# smaller eps, the more rows the optimum has slack that PF holds tight, and the simplex walks
# from PF through all of them.  Measured at n = k = 8 (two jobs on two cores), interior
# point (IPX in every round) against simplex: eps = 0.05, 500 s against more than 1650 s;
# 0.1, 148 s against more than 600 s; 0.2, 300 s against 1060 s (162 s with simplex rounds
# after the first IPX solve, as now; 0.05 then 464 s); 0.5, 93 s against 3.9 s.  At n = k = 7:
# 0.05, 4.9 s against 35 s; 0.2, 7.4 s against 6.4 s; 0.3, 11 s against 3.6 s.  Small
# models stay with the simplex: both take about a second at n = k = 6 (1722 variables), and
# IPX without presolve stopped with status "Unknown" on a 210-variable model.
_AUTO_IPM_BELOW = 0.25
#: From this epsilon up, the sum objective's HiGHS solves run in units relative to PF's
#: probabilities (the path of the other objectives, :func:`_solve_beyond`): in
#: probabilities, which span e^{-eps k}, the certificate failed from eps = 23 for simplex
#: and interior point and from eps = 40 for PDLP (n = 3, 4, k = 2: gaps of 1 to 414),
#: while in relative units every eps of [1, 700] is certified (a log grid of 25 eps at
#: (n, k) = (3, 2), (4, 3), (2, 4); tests/optmech/lattice/test_method_range.py).  Below 1
#: the probabilities' path stays (the relative one missed eps = 8e-4 to 8e-3 with PDLP and
#: 3e-8 with the interior point).
RELATIVE_FROM = 1.0
#: The epsilons a method other than auto, simplex and ipm (which certify every eps of
#: [1e-9, 700]) is certified on, measured on the same grid; outside, solve_lattice refuses
#: (InvalidArgumentError naming epsilon).  PDLP below eps = 1 stopped short of optimality
#: (15 of 25 grid points at n = 3, k = 2); the exact finish ("pdhg") slows down sharply
#: below 1e-7 (n = 6, k = 3: 2.4 CPU s at 5.6e-8, 7.9 s at 1.8e-8, not done within two
#: minutes below 1e-8), and its single-precision bracket failed the certificate from
#: eps = 23.
METHOD_EPSILONS = {"pdlp": (1.0, MAX_EPSILON), "pdhg": (1e-7, 10.0)}
#: ... and the largest ``eps k`` a method is certified to (the others: any).  The exact
#: finish works in probabilities, which span ``e^{-eps k}``: on a log grid of 21 eps in
#: [1, 10] at 11 sizes (n, k from (2, 2) to (3, 8)) every point with ``eps k <= 20`` was
#: certified, and from ``eps k`` = 22.3 (n = 4, k = 5) the repair or the certificate failed
#: at 8 sizes (n = 4, k = 3 at eps = 10 and n = 5, k = 4 at eps = 8, inside [1e-7, 10]).
METHOD_EPSILON_DEPTHS = {"pdhg": 20.0}
#: The bracket's relative width at which the exact finish starts from its PDHG point (the
#: default bracket's: after HiGHS's crossover at n = k = 8, eps = 0.5, the simplex took
#: 2,543 pivots from a bracket at width 5e-4, 310 from one at 8e-5).
FINISH_WIDTH = 1e-4
_AUTO_IPM_MIN_VARIABLES = 5000
# Share of the minimax bound's weights spread over every class (see _beyond_bound).
_SPREAD = 1e-8
# Relative margin of the privacy rows HiGHS solves for other objectives and the Δ-lattice
# (see optmech.lattice.objectives.solve_objective_with_highs; at most 1% of the gap
# tolerance and of eps), and the violations the repair leaves, relative to the row's terms
# (rounding: at large eps a monotonicity row can hold between two probabilities that differ
# by less than their last digit).
_ROW_MARGIN = 1e-9
_ROUNDING = 8 * 2.0 ** -52
# Bytes per cell of the mechanism's table as Python rows (a float and its dict slot).
_RECORD_BYTES = 100


@dataclass(frozen=True, eq=False, repr=False)
class LatticeOptimum(Displayed, Tabular):
    """A certified optimum of the lattice LP.

    The optimal mechanism is one call away: ``mechanism()`` is a selection mechanism
    (``pmf(scores)`` on any lattice vector, ``rvs``, ``privacy``) and ``to_frame()`` its
    table, one row per score vector up to permutation with the probability of every item.
    Underneath, ``probabilities[v]`` is the optimum's probability of one item at level
    ``var_level[v]`` in class ``var_class[v]`` of ``classes`` (it satisfies every LP row
    exactly, up to floating-point rounding reported in ``max_violation``).  ``total_error`` is
    the sum over the weighted vectors of the expected error (units of the sensitivity, Δ = 1),
    ``lower_bound`` the certified lower bound on the LP's optimal value, ``gap`` their
    relative difference.  ``num_constraints`` counts every row of the LP (all monotonicity
    rows for ``"regular"``, even those row generation never added).  ``relaxed_dual_bound``
    is the independent lower bound from the paper's own dual recurrence (Appendix D, relaxed
    LP, rows telescoped into the reduced LP's) when that dual is feasible, else ``None``; it
    equals ``total_error`` whenever it exists.  ``rows_generated`` is the number of
    monotonicity rows in the last LP HiGHS solved (seeded plus generated; 0 when no LP was
    solved).

    Beyond the paper: ``objective`` (``"sum"``, ``"max"`` or ``"weighted"``) and ``lattice``
    (``"2delta"`` or ``"delta"``, where a level is one step of Δ and costs 1) say what was
    minimised; ``objective_value`` is the optimum's value of that objective (units of Δ):
    ``total_error`` for ``"sum"``, the largest expected error over Q for ``"max"``, the
    weighted sum ``objective_weights @ class_errors()`` for ``"weighted"`` (the class
    weights; for ``"sum"`` those of ``weighting``, for ``"max"`` None).
    ``lower_bound`` and ``gap`` certify ``objective_value``; ``total_error`` is always the
    sum over Q (by ``weighting``) of the returned mechanism's expected errors, and
    ``num_variables`` counts the epigraph column of ``"max"``.

    ``lp`` is the LP the optimum is certified against (rows labelled, objective in the scale
    ``lp.objective_scale``): with ``method == "pf-chain-dual"`` the reduced LP with
    Appendix D's rows (PF meets every row of the regular LP as well); after a HiGHS solve
    the last model HiGHS solved, Appendix D's rows (or the Δ-lattice's, with the epigraph
    rows of ``"max"``) plus the monotonicity rows row generation added: a relaxation of the
    regular LP whose optimum, once no monotonicity row is violated, is the regular one.
    ``lp.objective_in_units(lp.objective_value(lp_point()))`` is ``objective_value`` and
    ``lower_bound`` is a dual bound on ``lp``; ``solve(lp)`` re-solves it from scratch.
    The object is the one :func:`solve_lattice` built (no copy).

    Two optima are equal when they answer the same problem with the same certified result:
    every field but ``solve_seconds`` (the time of one run), ``classes`` and ``lp`` (built
    from the others), arrays compared entry by entry; equal optima hash alike.
    """

    #: Fields that do not take part in equality (see the class docstring).
    _NOT_COMPARED = frozenset({"solve_seconds", "classes", "lp"})

    #: Number of items (candidates).
    n: int
    #: Depth of the lattice: scores 0, -2, ..., -2k (units of Δ; 0, -1, ..., -k on the
    #: Δ-lattice).
    k: int
    #: The privacy parameter ε.
    epsilon: float
    #: ``"lattice"`` (each score vector of Q once) or ``"cube"`` (every vector of the cube,
    #: mapped to Q).
    weighting: str
    #: ``"regular"`` (Appendix D plus the monotonicity rows) or ``"paper"`` (Appendix D as
    #: printed).
    constraint_set: str
    #: The optimum: the probability of one item at level ``classes.var_level[v]`` in class
    #: ``classes.var_class[v]``, per variable ``v``.
    probabilities: np.ndarray = field(repr=False)
    #: Sum over Q (by ``weighting``) of the optimum's expected errors, units of Δ, whatever the
    #: objective.
    total_error: float
    #: Certified lower bound on ``objective_value`` (recomputed from row multipliers).
    lower_bound: float
    #: Relative difference of ``objective_value`` and ``lower_bound`` (at most
    #: :data:`GAP_TOLERANCE`).
    gap: float
    #: How the optimum was found: ``"pf-chain-dual"`` (no solve), ``"highs-simplex"``,
    #: ``"highs-ipm"``, ...
    method: str
    #: Whether permute-and-flip is itself optimal (its objective equals the optimum's).
    pf_optimal: bool
    #: Columns of the LP (with the epigraph column of ``"max"``).
    num_variables: int
    #: Rows of the full LP (every monotonicity row of ``"regular"``, generated or not).
    num_constraints: int
    #: Wall seconds of building, solving and certifying.
    solve_seconds: float
    #: ``"Optimal"`` for a certified optimum (the HiGHS model status after a solve).
    status: str
    #: Largest violation of any row of the LP by ``probabilities`` (floating-point rounding).
    max_violation: float
    #: Monotonicity rows in the last LP HiGHS solved (0 when no LP was solved).
    rows_generated: int
    #: The paper's own dual-recurrence bound on ``total_error`` (Appendix D) where it is
    #: feasible, else None.
    relaxed_dual_bound: float | None
    #: The classes of score vectors (count vectors) the variables belong to.
    classes: LatticeClasses = field(repr=False)
    #: What was minimised: ``"sum"`` (the paper's total error), ``"max"`` or ``"weighted"``.
    objective: str = "sum"
    #: ``"2delta"`` (the paper's lattice) or ``"delta"`` (one step of Δ).
    lattice: str = "2delta"
    #: The optimum's value of ``objective`` (units of Δ); ``total_error`` for ``"sum"``.
    objective_value: float | None = None
    #: Class weights of the sum or weighted objective (None for ``"max"``).
    objective_weights: np.ndarray | None = field(default=None, repr=False)
    #: The LP the optimum is certified against (see above); ``solve(lp)`` re-solves it.
    lp: LinearProgram | None = field(default=None, repr=False)

    def __post_init__(self):
        if self.objective_value is None:
            object.__setattr__(self, "objective_value", self.total_error)
        if self.objective_weights is None and self.objective == "sum":
            object.__setattr__(self, "objective_weights",
                               class_weights(self.classes, self.weighting))

    def _compared(self) -> list:
        return [getattr(self, f.name) for f in dataclasses.fields(self)
                if f.name not in self._NOT_COMPARED]

    def __eq__(self, other) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return all(np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b
                   for a, b in zip(self._compared(), other._compared()))

    def __hash__(self) -> int:
        return hash(tuple(v for v in self._compared() if not isinstance(v, np.ndarray)))

    def class_errors(self) -> np.ndarray:
        """Expected error (units of Δ) of the optimum on each class representative."""
        c = self.classes
        return np.bincount(c.var_class, weights=c.var_count * level_error(self.lattice)
                           * c.var_level * self.probabilities, minlength=c.num_classes)

    def lp_point(self) -> np.ndarray:
        """The optimum as a point of :attr:`lp`: ``probabilities``, followed for ``"max"`` by
        the epigraph column ``t``, the largest class error; in the LP's own variables where
        it has them (``lp.metadata["point"]``: the LPs of other objectives and of the
        Δ-lattice are relative to PF's probabilities)."""
        if self.lp is not None and "point" in self.lp.metadata:
            return self.lp.metadata["point"]
        if self.objective == "max":
            return np.append(self.probabilities, self.class_errors().max())
        return self.probabilities

    def mechanism(self) -> LatticeSolutionMechanism:
        """The optimum as a selection mechanism on the lattice (``pmf``, ``logpmf``,
        ``rvs``, ``epsilon``, ``privacy``; :class:`LatticeSolutionMechanism`)."""
        return LatticeSolutionMechanism(self)

    def records(self) -> list[dict]:
        """The optimal mechanism as a table, one row per score vector up to permutation
        (:meth:`LatticeSolutionMechanism.records`): ``to_frame()`` gives it as a DataFrame."""
        return self.mechanism().records()

    # repr and notebook table: the problem, the value, its certificate
    _display = ("n", "k", "epsilon", "objective", "lattice", "objective_value", "lower_bound",
                "gap", "status", "method")

    def _display_items(self):
        return [*self._repr_items(), ("total_error", self.total_error),
                ("weighting", self.weighting), ("constraint_set", self.constraint_set),
                ("pf_optimal", self.pf_optimal), ("num_variables", self.num_variables),
                ("num_constraints", self.num_constraints),
                ("max_violation", self.max_violation),
                ("relaxed_dual_bound", self.relaxed_dual_bound),
                ("solve_seconds", self.solve_seconds)]


class LatticeSolutionMechanism(SelectionMechanism, Tabular):
    """The optimal lattice mechanism (or a bracket's upper point) as a selection mechanism.

    It has the interface of every mechanism of :mod:`optmech.selection.mechanisms`:
    ``pmf`` / ``logpmf`` / ``expected_error`` / ``sample`` / ``rvs`` on a score vector or a
    2-D batch of them, ``epsilon``, ``sensitivity`` (Δ = 1) and ``privacy``.  Scores must lie
    on the optimum's lattice up to a common shift (``q_r - q* = -2j`` on the 2Δ-lattice,
    ``-j`` on the Δ-lattice, integer ``0 <= j <= k``), ``n`` of them; anything else raises
    :class:`InvalidArgumentError`.  ``pmf`` reads the optimum's probability of each item from
    ``probabilities`` (class of the vector, level of the item); ``logpmf`` is its logarithm
    (``-inf`` where a probability is 0 in double precision).

    :meth:`records` (``to_frame()``, ``to_csv()``) is the whole mechanism as a table: one row
    per score vector of the bounded lattice up to permutation (a class), items sorted from
    the best down: its scores ``q0, q1, ...``, ``multiplicity`` (how many vectors of Q are
    its permutations), the probabilities ``p0, p1, ...`` (``pmf`` of those scores) and the
    expected error.

    Privacy (``privacy``): with ``constraints="regular"`` every row of the LP holds, up to the
    floating-point rounding reported in ``max_violation``: Appendix D's privacy rows, which
    by Proposition 2 of the permute-and-flip paper (R. McKenna and D. Sheldon, NeurIPS 2020,
    arXiv:2010.12603) make a *regular* mechanism ε-DP, and the monotonicity rows that make
    the solution regular on the bounded lattice (symmetry and shift-invariance hold by
    construction).  The guarantee is ε-DP for scores of sensitivity Δ = 1 on the bounded
    lattice: neighbours ``q ~ q'`` when every score moves by at most Δ and both vectors lie
    on the lattice within depth ``k``.  Tests check it from the pmf on every such neighbour
    pair at small ``n`` (:func:`realised_privacy_loss`).  With ``constraints="paper"``
    (Appendix D as printed, no monotonicity rows) the solution need not be regular and is
    measurably not ε-DP; ``privacy`` is then None.
    """

    name = "lattice_optimum"
    sensitivity = 1.0
    monotonic = False

    def __init__(self, optimum):
        self.optimum = optimum
        #: The privacy parameter ε the optimum was computed for.
        self.epsilon = float(optimum.epsilon)

    def _parameters(self) -> dict:
        return {"optimum": self.optimum}

    @property
    def privacy(self) -> PrivacyGuarantee | None:
        optimum = self.optimum
        if optimum.constraint_set != "regular":
            return None
        step = "2Δ" if optimum.lattice == "2delta" else "Δ"
        return PrivacyGuarantee(
            self.epsilon, 0.0,
            f"scores of sensitivity 1 on the bounded {step}-lattice (n = {optimum.n}, depth "
            f"k = {optimum.k}): every score moves by at most Δ = 1 and both vectors stay "
            "within depth k (the regular LP: Appendix D's privacy rows and the monotonicity "
            "rows; McKenna-Sheldon 2020, Proposition 2)")

    def _levels(self, rows: np.ndarray) -> np.ndarray:
        """The lattice level of every score of every row, or :class:`InvalidArgumentError`."""
        classes = self.optimum.classes
        step = level_error(self.optimum.lattice)
        steps = (rows.max(axis=1, keepdims=True) - rows) / step
        levels = np.rint(steps)
        if rows.shape[1] != classes.n:
            raise InvalidArgumentError("scores", f"{rows.shape[1]} scores per vector",
                                       f"{classes.n} scores (n = {classes.n})")
        off = ~(np.abs(steps - levels) <= 1e-9) | (levels > classes.k)
        if off.any():
            # name the first entry off the lattice and the values its vector allows
            row, column = (int(i) for i in np.argwhere(off)[0])
            allowed = rows[row].max() - step * np.arange(classes.k + 1)
            name = f"scores[{column}]" if rows.shape[0] == 1 else f"scores[{row}, {column}]"
            raise InvalidArgumentError(
                name, float(rows[row, column]),
                f"on the {step:g}-lattice within depth k = {classes.k} below the vector's "
                f"best score: one of {', '.join(f'{v:g}' for v in allowed)}")
        return levels.astype(np.int64)

    def _pmf_rows(self, rows: np.ndarray) -> np.ndarray:
        classes = self.optimum.classes
        levels = self._levels(rows)
        width = classes.k + 1
        counts = np.bincount((levels + width * np.arange(rows.shape[0])[:, None]).ravel(),
                             minlength=rows.shape[0] * width).reshape(-1, width)
        found = classes.find(counts @ classes.radix)
        return self.optimum.probabilities[classes.variable(found[:, None], levels)]

    def _draw(self, scores, count, rng):
        return sample_from_pmf(self._pmf(scores), count, rng)

    def neighbour_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        """Every pair of neighbours the guarantee covers, up to permutation: ``(scores,
        neighbours)``, one row each, for each class representative ``q`` and each move of
        every score by at most Δ = 1 that keeps ``q'`` on the lattice within depth ``k``
        (``±1`` each on the 2Δ-lattice, ``-1, 0, +1`` on the Δ-lattice).  The mechanism is
        symmetric, so a permuted pair has the same privacy loss distribution; the privacy
        checks and the accountant's finite family read these."""
        classes = self.optimum.classes
        n, step = classes.n, level_error(self.optimum.lattice)
        options = 2 if step == 2 else 3
        require_memory(16.0 * classes.num_classes * options ** n * n, "n, k", (n, classes.k))
        scores = classes.scores(np.arange(classes.num_classes), sensitivity=step / 2)
        moves = lattice_neighbours(np.zeros(n), 1.0, levels=options, limit=options ** n)
        q = np.repeat(scores, len(moves), axis=0)
        other = q + np.tile(moves, (len(scores), 1))
        steps = (other.max(axis=1, keepdims=True) - other) / step
        keep = (np.abs(steps - np.rint(steps)) <= 1e-9).all(axis=1) \
            & (steps.max(axis=1) <= classes.k + 1e-9)
        return q[keep], other[keep]

    def probability_table(self) -> tuple[np.ndarray, np.ndarray]:
        """``(scores, probabilities)``, both of shape ``(classes, n)``: row ``c`` is the
        representative score vector of class ``c`` (items sorted from the best down, in
        units of Δ = 1) and its ``pmf``."""
        optimum = self.optimum
        classes = optimum.classes
        every = np.arange(classes.num_classes)
        scores = classes.scores(every, sensitivity=level_error(optimum.lattice) / 2.0)
        levels = np.repeat(np.tile(np.arange(classes.k + 1), classes.num_classes),
                           classes.counts.ravel()).reshape(classes.num_classes, classes.n)
        return scores, optimum.probabilities[classes.variable(every[:, None], levels)]

    def records(self) -> list[dict]:
        """One row per class (see the class docstring): ``q0 ... q{n-1}`` (integers),
        ``multiplicity``, ``p0 ... p{n-1}``, ``expected_error`` (units of Δ).  Refused
        (:class:`~optmech.resources.ResourceLimitError`) when the rows would not fit in the
        memory budget."""
        classes = self.optimum.classes
        require_memory(_RECORD_BYTES * classes.num_classes * (2 * classes.n + 2), "n, k",
                       (classes.n, classes.k))
        scores, probabilities = self.probability_table()
        errors = (probabilities * -scores).sum(axis=1)
        q_names = [f"q{r}" for r in range(classes.n)]
        p_names = [f"p{r}" for r in range(classes.n)]
        # multiplicities are exact integers below 2^53 (classes.multiplicity)
        counts = [int(m) if m <= 2.0 ** 53 else m for m in classes.multiplicity.tolist()]
        return [{**dict(zip(q_names, q)), "multiplicity": m, **dict(zip(p_names, p)),
                 "expected_error": e}
                for q, m, p, e in zip(scores.astype(np.int64).tolist(), counts,
                                      probabilities.tolist(), errors.tolist())]


def lattice_lp_counts(classes: LatticeClasses, regular: bool, lattice: str = "2delta",
                      objective: str = "sum") -> tuple[int, int, int]:
    """``(columns, rows, nonzeros)`` of the whole LP (every monotonicity row of the regular
    LP, the epigraph column and rows of ``"max"``), counted without building it."""
    num_mono = monotonicity_row_count(classes) if regular else 0
    num_privacy = privacy_pairs(classes, lattice)[0].size
    num_cols, num_rows = classes.num_variables, classes.num_classes + num_privacy + num_mono
    nonzeros = classes.num_variables + 2 * (num_privacy + num_mono)
    if objective == "max":            # t, and a row t >= error per class (level-0 terms are 0)
        num_cols, num_rows = num_cols + 1, num_rows + classes.num_classes
        nonzeros += classes.num_classes + int((classes.var_level > 0).sum())
    return num_cols, num_rows, nonzeros


def lattice_lp_size(n: int, k: int, constraints: str = "regular",
                    classes: LatticeClasses | None = None) -> tuple[int, int]:
    """``(variables, rows)`` of the reduced lattice LP, without building it (``classes``:
    its class table, if already at hand)."""
    n, k, _ = check_lattice(n, k, 1.0, "lattice", constraints)
    return lattice_lp_counts(lattice_table(n, k) if classes is None else classes,
                             constraints == "regular")[:2]


def _repaired(units: LatticeUnits, x, anchor, regular, status, size, method,
              rounding: float = 0.0, lift: float = 0.0) -> np.ndarray:
    """:func:`~lp_models.lattice.certificates.repair_primal`, or :class:`SolverError` when
    the anchor cannot repair ``x``."""
    point = repair_primal(units, x, anchor, regular, rounding, lift)
    if point is None:
        raise SolverError("cannot repair the solver's point: the anchor meets a violated "
                          "row with equality", status=f"{status} but not certified",
                          num_rows=size[1], num_cols=size[0], num_nonzeros=size[2],
                          method=method)
    return point


def _checked_gap(primal, bound, gap_tolerance, status, size, method) -> float:
    """The relative gap ``|primal - bound| / |primal|``, or :class:`SolverError` beyond
    ``gap_tolerance``."""
    gap = abs(primal - bound) / abs(primal)
    if not gap <= gap_tolerance:
        raise SolverError(f"certified gap {gap:.3g} exceeds {gap_tolerance:g}",
                          status=f"{status} but not certified", num_rows=size[1],
                          num_cols=size[0], num_nonzeros=size[2], method=method)
    return gap


def realised_privacy_loss(optimum: LatticeOptimum) -> float:
    """Largest realised privacy loss ``|log p(q) - log p(q')|`` of the optimum's mechanism
    over every ``q`` in Q and every neighbour ``q' = q + z`` on the lattice that stays within
    the bounded lattice (Δ = 1): ``z in {-1, +1}^n`` on the 2Δ-lattice, ``z in {-1, 0, 1}^n``
    on the Δ-lattice.  Measured by :mod:`optmech.selection.privacy` from the mechanism's
    pmf, independently of the LP's rows; ``2^n`` (``3^n``) neighbours per class, so meant
    for small ``n``."""
    mechanism = optimum.mechanism()
    scores, neighbours = mechanism.neighbour_pairs()
    worst = 0.0
    starts = np.flatnonzero(np.concatenate([[True], (np.diff(scores, axis=0) != 0).any(axis=1)]))
    for first, last in zip(starts, np.append(starts[1:], len(scores))):
        check = realised_epsilon(mechanism, scores[first], sensitivity=1.0,
                                 neighbours=neighbours[first:last])
        worst = max(worst, check.epsilon)
    return worst


def _solver_duals(units: LatticeUnits, lp, row_duals: np.ndarray) -> list[LatticeDual]:
    """A solver's multipliers of ``lp`` (the reduced LP's rows: class, privacy, then the
    monotonicity rows of ``lp.metadata["monotone_pairs"]``) as they are, and after the
    chain sweep of :func:`lp_models.lattice.dual_repair.repair_dual` (which makes every
    reduced cost at least its rounding margin; either may give the better bound)."""
    pairs = lp.metadata["monotone_pairs"]
    head = units.classes.num_classes
    middle = head + units.privacy[0].size
    y, nu = row_duals[:head], row_duals[middle:]
    return [LatticeDual(y=y, mu=row_duals[head:middle], pairs=pairs, nu=nu),
            repair_dual(units, lp.cost, y, pairs, nu)]


def _certify(units: LatticeUnits, lp, x: np.ndarray, duals: list[LatticeDual]
             ) -> tuple[float, float, LatticeDual, float]:
    """``(primal value, lower bound, the dual giving it, max violation)`` in the LP's
    (normalised) units, both values rounded in the safe direction: the value is
    :func:`~lp_models.lattice.certificates.objective_upper`, the bound the best lattice
    certificate :func:`~lp_models.lattice.certificates.lagrangian_bound` of ``duals``
    (valid for any multipliers, rounding included)."""
    bound, best = max(((lagrangian_bound(units, lp.cost, dual), i)
                       for i, dual in enumerate(duals)))
    return objective_upper(lp.cost, x), bound, duals[best], lp.max_violation(x)


def solve_lattice(n: int, k: int, epsilon: float, *, weighting: str = "lattice",
                  constraints: str = "regular", method: str = "auto",
                  gap_tolerance: float = GAP_TOLERANCE,
                  time_limit: float | None = None, objective: str = "sum",
                  weights=None, lattice: str = "2delta") -> LatticeOptimum:
    """Certified optimum of the lattice LP for ``n`` items, depth ``k`` and privacy ``epsilon``.

    ``weighting``: ``"lattice"`` (each ``q in Q`` once, as in Theorem 3) or ``"cube"`` (the
    authors' notebook: every vector of ``{0, -2, ..., -2k}^n``, see :mod:`lp_models.lattice`).
    ``constraints``: ``"regular"`` (Appendix D plus the monotonicity rows regularity needs;
    every feasible point is ε-DP) or ``"paper"`` (Appendix D as printed).  ``method``: see
    the module docstring.  Raises :class:`SolverError` if the certified gap exceeds
    ``gap_tolerance``.

    ``objective``: ``"sum"`` (the paper's), ``"max"`` (the largest expected error over Q,
    minimax) or ``"weighted"`` (a prior over Q given by ``weights``: one weight per class,
    ``"geometric:RATE"`` or ``"depth:W0,...,Wk"``, see :mod:`optmech.lattice.objectives`).
    ``lattice``: ``"2delta"`` (the paper's) or ``"delta"`` (one step of Δ per lattice step;
    ``constraints="regular"`` only).
    """
    n, k, epsilon = check_lattice(n, k, epsilon, weighting, constraints)
    check_choice(method, "method", METHODS)
    check_choice(objective, "objective", OBJECTIVES)
    check_choice(lattice, "lattice", LATTICES)
    gap_tolerance = check_positive(gap_tolerance, "gap_tolerance")
    if time_limit is not None:
        time_limit = check_positive(time_limit, "time_limit")
    if (weights is not None) != (objective == "weighted"):
        raise InvalidArgumentError("weights", weights, "given exactly when objective is "
                                   "'weighted'")
    if lattice == "delta" and constraints != "regular":
        raise InvalidArgumentError("constraints", constraints, "'regular' on the Δ-lattice "
                                   "(Appendix D's LP is defined on the 2Δ-lattice)")
    low, high = METHOD_EPSILONS.get(method, (MIN_EPSILON, MAX_EPSILON))
    depth = METHOD_EPSILON_DEPTHS.get(method, math.inf)
    if not (low <= epsilon <= high and epsilon * k <= depth):
        within = (f"[{low:g}, {high:g}]" if depth == math.inf else f"[{low:g}, min({high:g}, "
                  f"{depth:g} / k)] = [{low:g}, {min(high, depth / k):g}] (depth k = {k})")
        raise InvalidArgumentError("epsilon", epsilon, f"a number in {within} with method "
                                   f"{method!r} (where it is certified; auto, simplex and "
                                   "ipm cover [1e-09, 700])")
    started = time.perf_counter()
    if objective != "sum" or lattice != "2delta" or (
            method in ("simplex", "ipm", "pdlp") and epsilon >= RELATIVE_FROM):
        if method == "pdhg":
            raise InvalidArgumentError("method", method, "one of auto, simplex, ipm, pdlp "
                                       "with another objective or the Δ-lattice ('pdhg' "
                                       "finishes the sum objective's bracket)")
        return _solve_beyond(n, k, epsilon, weighting, constraints, method, gap_tolerance,
                             time_limit, objective, weights, lattice, started)
    # The chain dual certifies PF without an LP exactly above its threshold (lattice
    # weighting); otherwise plan the memory of an LP solve.
    needs_lp = not (method == "auto" and weighting == "lattice"
                    and (n <= 2 or epsilon >= chain_dual_threshold(k)))
    classes = lattice_table(n, k, "lp" if needs_lp else "recurrence")
    regular = constraints == "regular"
    check_finite_result(float(class_weights(classes, weighting).sum()),
                        "the number of score vectors")
    units = LatticeUnits(classes, epsilon)
    pf = pf_lattice_probabilities(classes, epsilon)
    paper_lp = reduced_lattice_lp(n, k, epsilon, weighting, "paper", classes=classes)
    if method == "auto":
        # the chain dual made dual feasible with rounding margins and bounded by the
        # lattice certificate: dual_objective's own sum loses every digit once the
        # optimum is far below 1e-16 (eps of about 35 and more)
        lam, _ = chain_dual(classes, epsilon, paper_lp.cost)
        empty = np.zeros(0, dtype=np.int64)
        dual = repair_dual(units, paper_lp.cost, lam, (empty, empty), np.zeros(0))
        bound = lagrangian_bound(units, paper_lp.cost, dual)
        if abs(paper_lp.objective_value(pf) - bound) <= gap_tolerance * abs(
                paper_lp.objective_value(pf)):
            return _optimum(units, weighting, constraints, pf, paper_lp, [dual], "Optimal",
                            "pf-chain-dual", gap_tolerance, started,
                            lattice_lp_counts(classes, regular))[0]
        method = _auto_method(classes, epsilon)
        if epsilon >= RELATIVE_FROM:
            return _solve_beyond(n, k, epsilon, weighting, constraints, method,
                                 gap_tolerance, time_limit, objective, weights, lattice,
                                 started)
    deadline = None if time_limit is None else started + time_limit
    if method == "pdhg":
        run = bracket_lattice_lp(classes, epsilon, weighting, regular, tol=FINISH_WIDTH,
                                 deadline=deadline)
        return finish_bracket(run, units, weighting, constraints, deadline, gap_tolerance,
                              started)[0]
    try:
        solved = solve_with_highs(classes, epsilon, weighting, pf, regular, method,
                                  _remaining(deadline, classes, regular, method))
        return _from_solver(units, weighting, constraints, solved, gap_tolerance,
                            started)[0]
    except SolverError as error:
        # the interior point stopped short of optimality in probabilities at a few small
        # eps (n = k = 3: 8e-3 with the paper's rows; 9.4e-8 with the cube weighting), and
        # succeeded there in relative units: the second route, whose certificate decides
        if error.status.startswith("Time limit"):
            raise
        return _solve_beyond(n, k, epsilon, weighting, constraints, method, gap_tolerance,
                             None if deadline is None else deadline - time.perf_counter(),
                             objective, weights, lattice, started)


def _auto_method(classes: LatticeClasses, epsilon: float) -> str:
    """The solver ``method="auto"`` runs below the chain-dual threshold (see the module
    docstring)."""
    if epsilon < _AUTO_IPM_BELOW and classes.num_variables >= _AUTO_IPM_MIN_VARIABLES:
        return "ipm"
    return "simplex"


def _remaining(deadline, classes, regular, method) -> float | None:
    """Seconds left until ``deadline`` (None: no limit), or :class:`SolverError` when it
    has passed."""
    if deadline is None:
        return None
    left = deadline - time.perf_counter()
    if left <= 0:
        num_cols, num_rows, nonzeros = lattice_lp_counts(classes, regular)
        raise SolverError("time limit reached before the solve", status="Time limit reached",
                          num_rows=num_rows, num_cols=num_cols, num_nonzeros=nonzeros,
                          method=method)
    return left


def finish_bracket(run, units: LatticeUnits, weighting: str, constraints: str,
                   deadline: float | None, gap_tolerance: float = GAP_TOLERANCE,
                   started: float | None = None) -> tuple[LatticeOptimum, LatticeDual]:
    """The exact optimum from a bracket's run (:class:`~lp_models.lattice.bracket.BracketRun`
    on the 2Δ-lattice's sum LP): HiGHS's simplex from the basis its PDHG point gives
    (:func:`~optmech.lattice.solve_loop.finish_with_highs`), certified as every HiGHS
    solve is; ``(optimum, the multipliers certifying its lower bound, in the LP's
    normalised units)``.  Raises :class:`SolverError` when HiGHS fails, the time runs out
    or the certificate does (the bracket then stands)."""
    classes = units.classes
    regular = constraints == "regular"
    solved = finish_with_highs(classes, units.epsilon, weighting, regular, *run.iterate,
                               run.pairs, _remaining(deadline, classes, regular, "pdhg"))
    return _from_solver(units, weighting, constraints, solved, gap_tolerance,
                        time.perf_counter() if started is None else started)


def _from_solver(units, weighting, constraints, solved, gap_tolerance, started):
    """:func:`_optimum` of a HiGHS point ``solved = (x, LP, row duals, status, method)``
    after the repair that makes it satisfy every row exactly."""
    x, certify_lp, row_duals, status, used = solved
    regular = constraints == "regular"
    size = lattice_lp_counts(units.classes, regular)
    pf = pf_lattice_probabilities(units.classes, units.epsilon)
    x = _repaired(units, x, 0.5 * (pf + 1.0 / units.classes.n), regular, status, size, used)
    return _optimum(units, weighting, constraints, x, certify_lp,
                    _solver_duals(units, certify_lp, row_duals), status, used, gap_tolerance,
                    started, size)


def _optimum(units: LatticeUnits, weighting: str, constraints: str, x: np.ndarray,
             certify_lp, duals: list[LatticeDual], status: str, used: str,
             gap_tolerance: float, started: float, size: tuple[int, int, int]
             ) -> tuple[LatticeOptimum, LatticeDual]:
    """The certified :class:`LatticeOptimum` of the sum LP at the point ``x`` (every row
    checked) and the best of ``duals`` (the one certifying its lower bound); ``size`` is
    :func:`lattice_lp_counts` of the LP.  Raises :class:`SolverError` when the gap exceeds
    ``gap_tolerance``."""
    classes, epsilon = units.classes, units.epsilon
    n, k = classes.n, classes.k
    regular = constraints == "regular"
    primal, bound, dual, violation = _certify(units, certify_lp, x, duals)
    if regular:
        violation = max(violation, monotone_violation(units, x))
    gap = _checked_gap(primal, bound, gap_tolerance, status, size, used)
    paper_lp = reduced_lattice_lp(n, k, epsilon, weighting, "paper", classes=classes)
    scale = paper_lp.objective_scale
    pf_value = paper_lp.objective_value(pf_lattice_probabilities(classes, epsilon))
    lam_relaxed, nu = relaxed_dual(classes, epsilon, paper_lp.cost)
    relaxed_bound = None
    if nu[classes.var_level >= 1].min(initial=0.0) >= 0:
        mu = relaxed_to_chain_multipliers(classes, epsilon, nu)
        relaxed_bound = dual_objective(paper_lp, reduced_row_duals(paper_lp, lam_relaxed, mu)
                                       )[0] * scale
    optimum = LatticeOptimum(
        n=n, k=k, epsilon=epsilon, weighting=weighting, constraint_set=constraints,
        probabilities=x, total_error=primal * scale, lower_bound=bound * scale, gap=gap,
        method=used, pf_optimal=bool(pf_value <= bound * (1 + gap_tolerance)),
        num_variables=classes.num_variables, num_constraints=size[1],
        solve_seconds=time.perf_counter() - started, status=status, max_violation=violation,
        rows_generated=int(certify_lp.metadata["monotone_pairs"][0].size),
        relaxed_dual_bound=relaxed_bound, classes=classes, lp=label_reduced_rows(certify_lp))
    return optimum, dual


def _solve_beyond(n, k, epsilon, weighting, constraints, method, gap_tolerance, time_limit,
                  objective, weights, lattice, started) -> LatticeOptimum:
    """:func:`solve_lattice` for another objective or the Δ-lattice (module docstring), in
    PF-relative units."""
    classes = lattice_table(n, k, "lp")
    regular = constraints == "regular"
    class_weight = (objective_weights(weights, classes) if objective == "weighted"
                    else class_weights(classes, weighting))
    units = LatticeUnits.relative(classes, epsilon, lattice)
    size = lattice_lp_counts(classes, regular, lattice, objective)
    errors = class_error_matrix(classes, lattice) @ sp.diags(units.scale)   # per unit of z
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    margin = min(_ROW_MARGIN, gap_tolerance / 100, epsilon / 100)
    attempts = [(0.0, method, 1e3), (margin, method, 1e3), (margin, method, 1e6)]
    if method == "auto":
        attempts.append((margin, "ipm", 1e3))
    for attempt, (row_margin, solver, cap) in enumerate(attempts):
        try:
            certify_lp, z, point, primal, bound, gap, status, used = _certified_beyond(
                units, objective, weighting, class_weight, constraints, solver, deadline,
                row_margin, cap, gap_tolerance, size, errors)
            break
        except SolverError as error:
            if attempt == len(attempts) - 1 or error.status.startswith("Time limit"):
                raise
    scale = certify_lp.objective_scale
    violation = primal_violation(units, z, regular)
    pf = _pf_point(units, epsilon)
    pf_value = certify_lp.objective_value(
        np.append(pf, (errors @ pf).max() / scale) if objective == "max" else pf)
    certify_lp = dataclasses.replace(certify_lp, metadata={**certify_lp.metadata,
                                                           "point": point})
    return LatticeOptimum(
        n=n, k=k, epsilon=epsilon, weighting=weighting, constraint_set=constraints,
        probabilities=units.probabilities(z),
        total_error=float(class_weights(classes, weighting) @ (errors @ z)),
        lower_bound=bound * scale, gap=gap, method=used,
        pf_optimal=bool(pf_value <= bound * (1 + gap_tolerance)),
        num_variables=size[0], num_constraints=size[1],
        solve_seconds=time.perf_counter() - started, status=status, max_violation=violation,
        rows_generated=int(certify_lp.metadata["monotone_pairs"][0].size),
        relaxed_dual_bound=None, classes=classes, objective=objective, lattice=lattice,
        objective_value=primal * scale,
        objective_weights=None if objective == "max" else class_weight,
        lp=label_reduced_rows(certify_lp))


def _certified_beyond(units, objective, weighting, class_weight, constraints, method,
                      deadline, margin, cap, gap_tolerance, size, errors):
    """One HiGHS solve of :func:`_solve_beyond`'s LP with the privacy rows tightened by the
    relative ``margin`` and every variable bounded by ``cap`` in HiGHS's model, its point
    repaired and its gap certified: ``(LP, z, LP point, value, bound, gap, status,
    method)``, or :class:`SolverError`.  With ``margin = 0`` the optimum is exact (to the
    rounding of HiGHS's vertex); when that fails its certificate (mostly a repair that costs
    more than the gap allows) or HiGHS fails, the LP is solved again with a margin, whose
    slack absorbs HiGHS's violations of tight rows, then with a looser bound, and for
    ``method="auto"`` by HiGHS's interior point (see
    :func:`~optmech.lattice.objectives.solve_objective_with_highs`).  Between 5 and 60,
    where the coefficients of deep levels cross HiGHS's smallest matrix entry, which of them
    certifies a given point varies (measured on a 60-point grid, n, k <= 4, max objective:
    each one alone left 1 to 10 of 720 points uncertified)."""
    time_limit = None if deadline is None else max(deadline - time.perf_counter(), 1e-3)
    regular = constraints == "regular"
    certify_lp, z, row_duals, status, used = solve_objective_with_highs(
        units, objective=objective, weighting=weighting, weights=class_weight,
        constraints=constraints, method=method, time_limit=time_limit, margin=margin,
        rounding=_ROUNDING / 2, cap=cap)
    z = _repaired(units, z[:units.classes.num_variables], _anchor(units), regular, status,
                  size, used, _ROUNDING, margin / 2)
    scale = certify_lp.objective_scale
    point = np.append(z, (errors @ z).max() / scale) if objective == "max" else z
    primal = objective_upper(certify_lp.cost, point)
    bound = _beyond_bound(units, certify_lp, row_duals, objective)
    gap = _checked_gap(primal, bound, gap_tolerance, status, size, used)
    return certify_lp, z, point, primal, bound, gap, status, used


def _pf_point(units: LatticeUnits, epsilon: float) -> np.ndarray:
    """PF at ``epsilon`` on the units' lattice (coins ``e^{-eps j}`` on the 2Δ-lattice,
    ``e^{-eps j / 2}`` on the Δ-lattice), in ``units``."""
    log_pf = pf_lattice_log_probabilities(units.classes,
                                          epsilon * level_error(units.lattice) / 2.0)
    return np.exp(log_pf - units.log_scale)


def _anchor(units: LatticeUnits) -> np.ndarray:
    """A strictly feasible point to repair with, in ``units``: PF at ``eps - c``,
    ``c = min(eps / 2, 1)``.  It meets the privacy rows with a relative slack of
    ``1 - e^-c`` (PF at ``eps`` meets many with equality), and on the 2Δ-lattice it stays
    within a factor ``e^{c k}`` of PF at every level, so its terms are of the order of the
    point's: with ``(uniform + PF) / 2`` the slack of a row between deep levels is lost to
    rounding once PF's probabilities are far below ``1 / n``, and PF at ``eps / 2``
    overflows the units (``e^{eps k / 2}``) at large eps."""
    return _pf_point(units, units.epsilon - min(units.epsilon / 2.0, 1.0))


def _beyond_bound(units: LatticeUnits, lp, row_duals: np.ndarray, objective: str) -> float:
    """Certified lower bound on ``lp``'s optimum (its units) from HiGHS's row multipliers:
    the class, privacy and monotonicity multipliers made dual feasible by the chain sweep
    (:func:`lp_models.lattice.dual_repair.repair_dual`, every reduced cost at least its
    rounding margin) and then :func:`lp_models.lattice.certificates.lagrangian_bound`, for
    the LP's cost.  For ``"max"`` the epigraph multipliers ``w >= 0``, divided by their
    sum, define the cost ``sum_u w_u (E z)_u``: every feasible point has ``t >= (E z)_u``
    for every ``u``, hence ``t >=`` that weighted mean, whose minimum the bound bounds (the
    last factor covers the rounding of that cost, ``O(1e-16)`` relative).  The better of
    two bounds counts: with these weights, and with weights summing to ``1e-8`` more spread
    over every class (that bound divided by ``1 + 1e-8``).  HiGHS drops matrix entries below
    1e-12, such as the class-row coefficients of deep levels at large eps, so its
    multipliers can leave those variables a negative reduced cost of that size, which the
    box (up to ``e^{eps k}`` in these units) turns into a useless bound, and which a positive
    cost on every class covers (measured at n = 3, k = 1, eps = 42.7: without it the bound
    was 0, with it the gap is 1e-8)."""
    num_vars, num_classes = units.classes.num_variables, units.classes.num_classes
    head = num_classes + units.privacy[0].size
    y = row_duals[:num_classes]          # (the privacy multipliers are the sweep's)
    pairs = lp.metadata["monotone_pairs"]
    if objective != "max":
        cost = lp.cost[:num_vars]
        dual = repair_dual(units, cost, y, pairs, row_duals[head:])
        return lagrangian_bound(units, cost, dual)
    start, stop = lp.metadata["epigraph_rows"]
    nu = np.concatenate([row_duals[head:start], row_duals[stop:]])
    w = np.maximum(row_duals[start:stop], 0.0)
    w = w / math.fsum(w) if w.sum() > 0 else np.full(w.size, 1 / w.size)
    errors = -lp.matrix[start:stop, :num_vars].T
    best = -math.inf
    for spread in (0.0, _SPREAD):       # weights summing to 1 + spread at most
        cost = errors @ (w + spread / w.size)
        bound = lagrangian_bound(units, cost, repair_dual(units, cost, y, pairs, nu))
        if bound > 0:
            best = max(best, bound / (1 + spread) * (1 - 1e-14))
    return best if best > -math.inf else 0.0
