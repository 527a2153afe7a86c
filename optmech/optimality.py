"""The optimal regular mechanism on the bounded 2Δ-lattice, certified, and optimality ratios.

Permute-and-flip paper, Section 5 (Theorem 3, Figure 2) and Appendix D.  The LP and its
reduced form are in :mod:`lp_models.lattice`; this module solves it and measures mechanisms
against it:

* :func:`solve_lattice` returns a :class:`LatticeOptimum` whose value is *certified*: a
  primal point that satisfies every row of the LP (checked here with numpy, including all
  monotonicity rows of the regular LP) and a lower bound recomputed by
  :func:`lp_models.program.dual_objective` from row multipliers; the relative gap must be
  at most ``gap_tolerance`` (1e-7) or :class:`~lp_models.program.SolverError` is raised.
* :func:`optimality_ratio` is ``sum_q E[error of M on q] / sum_q E[error of the optimum]``
  with every class counted with its multiplicity, from the mechanism's exact ``pmf``.

How the optimum is found (``method="auto"``):

1. *No solve* when the chain dual certifies permute-and-flip
   (:func:`lp_models.lattice_recurrences.chain_dual`): PF's probabilities come from its
   recurrence and the dual from a second recurrence, ``O(V)`` work for ``V`` variables.  For
   the lattice weighting this happens exactly when ``sum_{t=1}^k e^{-eps t} <= 1`` (or
   ``n <= 2``), i.e. for ``eps`` above about 0.61 (k = 3) to ``ln 2`` (large k), well below
   the paper's sufficient threshold ``ln((3 + sqrt 5)/2) = 0.9624``.
2. Otherwise HiGHS solves the reduced LP, one model kept between rounds (see
   :func:`_highs`); for the regular LP the monotonicity rows are added by row generation
   (seeded with the block that binds most, then only violated rows).  The solver is the
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
214, 287 s).  Smaller eps is slower: at n = k = 8, 160 s at eps = 0.2
(interior point; the held-row simplex takes 1060 s) and 464 s at eps = 0.05.  Measured
and slower at eps = 0.5: IPX (7.8 s at n = k = 8 without monotonicity rows, then 50 s only
to build its preconditioning basis at n = k = 9), PDLP (73 s at n = k = 8 for a 6e-8 gap)
and Clarabel's interior point (369 s at n = k = 8).  Eliminating privacy rows by
substitution does not help either (Appendix D's LP, n = k = 8, against about 5 s for the
held-row simplex): with the climbing rows eliminated (``x = `` climbing slacks plus the top
value they lead to; 9867 rows instead of 33891) the primal simplex from PF takes 6.0 s (and
more than 3 minutes at n = k = 9) and IPX 5.3 s (104 s at n = k = 9); with every privacy row
eliminated (one row per class, columns up to 2k + 1 long) 15 s and 135 s, because the
basis factors fill in.

Other ``method`` values (``"simplex"``, ``"ipm"``, ``"pdlp"``) skip step 1 and run that HiGHS
solver on the reduced LP (a cross-check; PDLP rarely reaches the 1e-7 certificate).
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass, field

import numpy as np

from lp_models.lattice import (
    CONSTRAINTS,
    WEIGHTINGS,
    class_weights,
    monotonicity_pair_blocks,
    pair_rows,
    reduced_lattice_lp,
)
from lp_models.lattice_classes import LatticeClasses, lattice_classes
from lp_models.lattice_recurrences import (
    chain_dual,
    pf_lattice_probabilities,
    reduced_row_duals,
    relaxed_dual,
    relaxed_to_chain_multipliers,
)
from lp_models.program import HighsModel, SolverError, dual_objective
from optmech.mechanisms import (
    ExponentialMechanism,
    PermuteAndFlip,
    ReportNoisyMax,
    SelectionMechanism,
)
from optmech.noisy_max import (
    SUM_TOLERANCE,
    TAIL,
    IntegrationError,
    log_cdf,
    log_hazard,
    lower_quantile,
    quadrature_panels,
    upper_quantile,
)
from optmech.privacy import lattice_neighbours, realised_epsilon
from optmech.progress import progress
from optmech.validation import InvalidArgumentError, check_choice, check_integer, check_positive

__all__ = [
    "GAP_TOLERANCE",
    "LatticeOptimum",
    "LatticeSolutionMechanism",
    "METHODS",
    "RATIO_MECHANISMS",
    "RatioCurve",
    "class_errors",
    "lattice_lp_size",
    "optimality_ratio",
    "optimality_ratios",
    "ratio_cell",
    "ratio_sweep",
    "realised_privacy_loss",
    "solve_lattice",
    "total_error",
]

METHODS = ("auto", "simplex", "ipm", "pdlp")
GAP_TOLERANCE = 1e-7
RATIO_MECHANISMS = {"pf": lambda eps: PermuteAndFlip(eps),
                    "em": lambda eps: ExponentialMechanism(eps),
                    "rnm_laplace": lambda eps: ReportNoisyMax(eps, noise="laplace")}
_MAX_ROUNDS = 200  # solve rounds of _highs (releases and row generation; 23 at n = k = 9)
_DUAL_SIMPLEX, _PRIMAL_SIMPLEX = 1, 4  # HiGHS simplex_strategy values
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
_AUTO_IPM_MIN_VARIABLES = 5000


@dataclass(frozen=True, eq=False)
class LatticeOptimum:
    """A certified optimum of the lattice LP.

    ``probabilities[v]`` is the optimum's probability of one item at level ``var_level[v]``
    in class ``var_class[v]`` of ``classes`` (it satisfies every LP row exactly, up to
    floating-point rounding reported in ``max_violation``).  ``total_error`` is the sum over
    the weighted vectors of the expected error (units of the sensitivity, Δ = 1),
    ``lower_bound`` the certified lower bound on the LP's optimal value, ``gap`` their
    relative difference.  ``num_constraints`` counts every row of the LP (all monotonicity
    rows for ``"regular"``, even those row generation never added).  ``relaxed_dual_bound``
    is the independent lower bound from the paper's own dual recurrence (Appendix D, relaxed
    LP, rows telescoped into the reduced LP's) when that dual is feasible, else ``None``; it
    equals ``total_error`` whenever it exists.  ``rows_generated`` is the number of
    monotonicity rows in the last LP HiGHS solved (seeded plus generated; 0 when no LP was
    solved).
    """

    n: int
    k: int
    epsilon: float
    weighting: str
    constraint_set: str
    probabilities: np.ndarray = field(repr=False)
    total_error: float
    lower_bound: float
    gap: float
    method: str
    pf_optimal: bool
    num_variables: int
    num_constraints: int
    solve_seconds: float
    status: str
    max_violation: float
    rows_generated: int
    relaxed_dual_bound: float | None
    classes: LatticeClasses = field(repr=False)

    def class_errors(self) -> np.ndarray:
        """Expected error (units of Δ) of the optimum on each class representative."""
        c = self.classes
        return np.bincount(c.var_class, weights=c.var_count * 2.0 * c.var_level
                           * self.probabilities, minlength=c.num_classes)

    def mechanism(self) -> "LatticeSolutionMechanism":
        """The optimum as a mechanism with a ``pmf`` on the lattice (for privacy checks)."""
        return LatticeSolutionMechanism(self)


class LatticeSolutionMechanism:
    """The optimal lattice mechanism as an object with ``pmf(scores)`` (sensitivity 1).

    ``scores`` must lie on the 2Δ-lattice up to a common shift (``q_r - q* = -2j`` with
    integer ``0 <= j <= k``); anything else raises :class:`InvalidArgumentError`.
    """

    sensitivity = 1.0
    monotonic = False

    def __init__(self, optimum: LatticeOptimum):
        self.optimum = optimum

    def pmf(self, scores) -> np.ndarray:
        q = np.asarray(scores, dtype=float)
        c = self.optimum.classes
        steps = (q.max() - q) / 2.0
        levels = np.rint(steps).astype(np.int64)
        if q.ndim != 1 or q.size != c.n or np.abs(steps - levels).max() > 1e-9 \
                or levels.max() > c.k:
            raise InvalidArgumentError("scores", scores,
                                       f"{c.n} scores on the 2-lattice within depth {c.k}")
        counts = np.bincount(levels, minlength=c.k + 1)
        cls = c.find(np.array([counts @ c.radix]))[0]
        return self.optimum.probabilities[c.variable(np.full(levels.size, cls), levels)]


def _validate(n, k, epsilon, weighting, constraints):
    # n = 1 or k = 0: every mechanism has zero error, the LP is trivial and ratios undefined.
    n = check_integer(n, "n", minimum=2)
    k = check_integer(k, "k", minimum=1)
    epsilon = check_positive(epsilon, "epsilon")
    check_choice(weighting, "weighting", WEIGHTINGS)
    check_choice(constraints, "constraints", CONSTRAINTS)
    return n, k, epsilon


def _classes(n: int, k: int) -> LatticeClasses:
    try:
        return lattice_classes(n, k)
    except ValueError as error:
        raise InvalidArgumentError("n, k", (n, k), f"a lattice that fits ({error})") from None


def _lp_size(classes: LatticeClasses, regular: bool) -> tuple[int, int]:
    num_mono = sum(a.size for a, _ in monotonicity_pair_blocks(classes)) if regular else 0
    num_rows = classes.num_classes + int((classes.var_next >= 0).sum()) + num_mono
    return classes.num_variables, num_rows


def lattice_lp_size(n: int, k: int, constraints: str = "regular") -> tuple[int, int]:
    """``(variables, rows)`` of the reduced lattice LP, without building it."""
    n, k, _ = _validate(n, k, 1.0, "lattice", constraints)
    return _lp_size(_classes(n, k), constraints == "regular")


def realised_privacy_loss(optimum: LatticeOptimum) -> float:
    """Largest realised privacy loss ``|log p(q) - log p(q')|`` of the optimum's mechanism
    over every ``q`` in Q and every neighbour ``q' = q + z``, ``z in {-1, +1}^n`` (Δ = 1),
    that stays within the bounded lattice.  Measured by :mod:`optmech.privacy` from the
    mechanism's pmf, independently of the LP's rows; ``2^n`` neighbours per class, so meant
    for small ``n``."""
    mechanism = optimum.mechanism()
    classes = optimum.classes
    worst = 0.0
    for q in classes.scores(np.arange(classes.num_classes)):
        neighbours = lattice_neighbours(q, 1.0, levels=2, limit=2 ** classes.n)
        depth = (neighbours.max(axis=1, keepdims=True) - neighbours).max(axis=1) / 2
        check = realised_epsilon(mechanism, q, sensitivity=1.0,
                                 neighbours=neighbours[depth <= classes.k + 1e-9])
        worst = max(worst, check.epsilon)
    return worst


def _monotone_violation(classes: LatticeClasses, x: np.ndarray) -> float:
    worst = 0.0
    for a, b in monotonicity_pair_blocks(classes):
        if a.size:
            worst = max(worst, float((x[b] - x[a]).max()))
    return worst


def _repair(classes: LatticeClasses, epsilon: float, x: np.ndarray, pf: np.ndarray,
            regular: bool) -> np.ndarray:
    """Make ``x`` satisfy every row exactly: clip, renormalise per class, then mix with the
    strictly feasible ``(uniform + pf) / 2`` by the smallest weight that removes the largest
    relative violation of a privacy or monotonicity row."""
    x = np.maximum(np.asarray(x, dtype=float), 0.0)
    totals = np.bincount(classes.var_class, weights=classes.var_count * x,
                         minlength=classes.num_classes)
    x = x / totals[classes.var_class]
    anchor = 0.5 * (pf + 1.0 / classes.n)
    decay = math.exp(-epsilon)
    source = np.flatnonzero(classes.var_next >= 0)
    pairs = [(source, classes.var_next[source], decay)]
    if regular:
        pairs += [(a, b, 1.0) for a, b in monotonicity_pair_blocks(classes)]
    theta = 0.0
    for a, b, coef in pairs:
        row_x = x[a] - coef * x[b]
        bad = row_x < 0
        if bad.any():
            row_anchor = anchor[a[bad]] - coef * anchor[b[bad]]
            if (row_anchor <= 0).any():
                raise SolverError("cannot repair the primal point: the anchor is not strictly "
                                  "feasible", status="repair failed", num_rows=0,
                                  num_cols=x.size, num_nonzeros=0, method="repair")
            need = -row_x[bad] / (row_anchor - row_x[bad])
            theta = max(theta, float(need.max()))
    if theta > 0:
        theta = min(1.0, theta * (1 + 1e-9) + 1e-16)
        x = (1 - theta) * x + theta * anchor
    return x


def _certify(lp, x: np.ndarray, row_duals: np.ndarray) -> tuple[float, float, float]:
    """``(primal value, lower bound, max violation)`` in the LP's (normalised) units.

    The bound is :func:`lp_models.program.dual_objective` at ``row_duals`` with the
    multipliers of inequality rows clipped at 0: a Lagrangian bound, valid for any
    multipliers because every column is boxed (``0 <= x <= 1/m_j``)."""
    y = np.where(np.isinf(lp.row_upper), np.maximum(row_duals, 0.0), row_duals)
    bound, _ = dual_objective(lp, y)
    return lp.objective_value(x), float(bound), lp.max_violation(x)


def solve_lattice(n: int, k: int, epsilon: float, *, weighting: str = "lattice",
                  constraints: str = "regular", method: str = "auto",
                  gap_tolerance: float = GAP_TOLERANCE,
                  time_limit: float | None = None) -> LatticeOptimum:
    """Certified optimum of the lattice LP for ``n`` items, depth ``k`` and privacy ``epsilon``.

    ``weighting``: ``"lattice"`` (each ``q in Q`` once, as in Theorem 3) or ``"cube"`` (the
    authors' notebook: every vector of ``{0, -2, ..., -2k}^n``, see :mod:`lp_models.lattice`).
    ``constraints``: ``"regular"`` (Appendix D plus the monotonicity rows regularity needs;
    every feasible point is ε-DP) or ``"paper"`` (Appendix D as printed).  ``method``: see
    the module docstring.  Raises :class:`SolverError` if the certified gap exceeds
    ``gap_tolerance``.
    """
    n, k, epsilon = _validate(n, k, epsilon, weighting, constraints)
    check_choice(method, "method", METHODS)
    gap_tolerance = check_positive(gap_tolerance, "gap_tolerance")
    if time_limit is not None:
        time_limit = check_positive(time_limit, "time_limit")
    started = time.perf_counter()
    classes = _classes(n, k)
    regular = constraints == "regular"
    weights = class_weights(classes, weighting)
    scale = float(weights.sum())
    pf = pf_lattice_probabilities(classes, epsilon)
    _, num_rows = _lp_size(classes, regular)

    paper_lp = reduced_lattice_lp(n, k, epsilon, weighting, "paper", classes=classes)
    x, certify_lp, row_duals = pf, paper_lp, None
    status, used, pairs = "Optimal", "pf-chain-dual", None
    if method == "auto":
        lam, mu = chain_dual(classes, epsilon, paper_lp.cost)
        y = reduced_row_duals(paper_lp, lam, mu)
        primal, bound, _ = _certify(paper_lp, pf, y)
        if abs(primal - bound) <= gap_tolerance * abs(primal):
            row_duals = y
    if row_duals is None:
        if method == "auto":
            interior = (epsilon < _AUTO_IPM_BELOW
                        and classes.num_variables >= _AUTO_IPM_MIN_VARIABLES)
            method = "ipm" if interior else "simplex"
        x, certify_lp, row_duals, status, used = _highs(classes, epsilon, weighting, pf,
                                                        regular, method, time_limit)
        pairs = certify_lp.metadata["monotone_pairs"] if regular else None
        x = _repair(classes, epsilon, x, pf, regular)
    primal, bound, violation = _certify(certify_lp, x, row_duals)
    if regular:
        violation = max(violation, _monotone_violation(classes, x))
    gap = abs(primal - bound) / abs(primal)
    if not gap <= gap_tolerance:
        raise SolverError(f"certified gap {gap:.3g} exceeds {gap_tolerance:g}",
                          status=f"{status} but not certified", num_rows=num_rows,
                          num_cols=classes.num_variables, num_nonzeros=0, method=used)
    pf_value = paper_lp.objective_value(pf)
    lam_relaxed, nu = relaxed_dual(classes, epsilon, paper_lp.cost)
    relaxed_bound = None
    if nu[classes.var_level >= 1].min(initial=0.0) >= 0:
        mu = relaxed_to_chain_multipliers(classes, epsilon, nu)
        relaxed_bound = dual_objective(paper_lp, reduced_row_duals(paper_lp, lam_relaxed, mu)
                                       )[0] * scale
    return LatticeOptimum(
        n=n, k=k, epsilon=epsilon, weighting=weighting, constraint_set=constraints,
        probabilities=x, total_error=primal * scale, lower_bound=bound * scale, gap=gap,
        method=used, pf_optimal=bool(pf_value <= bound * (1 + gap_tolerance)),
        num_variables=classes.num_variables, num_constraints=num_rows,
        solve_seconds=time.perf_counter() - started, status=status, max_violation=violation,
        rows_generated=0 if pairs is None else int(pairs[0].size),
        relaxed_dual_bound=relaxed_bound, classes=classes)


def _violated_monotone_rows(classes: LatticeClasses, x: np.ndarray, present: np.ndarray):
    """Pairs ``(a, b)`` of every monotonicity row ``x[a] >= x[b]`` that ``x`` violates by
    more than a relative 1e-12 and that is not yet in the model (``present``: the
    :func:`_pair_keys` of the rows it has).  A row already present can be violated by a
    relative 1e-12 while HiGHS counts it as satisfied (absolute tolerance 1e-10); adding it
    again would put two equal rows in the model (measured before this check: 75 of the
    14024 rows generated at n = k = 8, eps = 0.5), and a basis with both tight is singular."""
    firsts, seconds = [], []
    for a, b in monotonicity_pair_blocks(classes):
        bad = x[b] - x[a] > 1e-12 * np.maximum(np.abs(x[a]), 1e-300)
        firsts.append(a[bad])
        seconds.append(b[bad])
    first, second = np.concatenate(firsts), np.concatenate(seconds)
    new = ~np.isin(_pair_keys(classes, first, second), present)
    return first[new], second[new]


def _pair_keys(classes: LatticeClasses, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """One integer per variable pair ``(a, b)``."""
    return a.astype(np.int64) * classes.num_variables + b


def _highs(classes, epsilon, weighting, pf, regular, method, time_limit):
    """Solve the reduced LP with HiGHS, one model kept between rounds (HiGHS re-optimises
    from its last basis), and for the regular LP add the monotonicity rows by row
    generation.  Returns ``(x, LP certified against, its row duals, HiGHS status, method
    label)``.

    ``method`` is a HiGHS solver (``"simplex"``, ``"ipm"`` or ``"pdlp"``).  Simplex: every
    climbing privacy row starts *held* as an equality, which leaves exactly one point, PF
    (recurrence (5)), the start.  Rounds: solve; release every held row whose multiplier
    is negative (the objective improves if it goes slack; the basis stays primal feasible,
    so primal simplex continues); else add every violated monotonicity row (the basis stays
    dual feasible: dual simplex continues); else stop.
    A dual-simplex round that HiGHS ends with "Solve error" is finished once by the primal
    simplex from a fresh factorisation of its basis (see the comment in the loop).
    The LP certified against is the last model with the held rows as the inequalities they
    are: their multipliers are then all >= 0 up to 1e-12, so the Lagrangian bound holds for
    it, a relaxation of the regular LP.  Few rows need releasing (eps = 0.5, n = k = 7: 214
    of 5544 climbing rows are slack at the optimum), so the simplex walks only the short
    way from PF.  Other methods run on the plain model, one solve per round; after the first
    interior-point solve every round is simplex from its crossover basis.

    Measured (eps = 0.5, no other job running): n = k = 8, 2.9 s; n = k = 9, 83 s (the
    first release round, 37 s, dominates); n = k = 10 (with a second job on the other
    core): the first release round alone 1187 s (46050 pivots), and the solve had not
    finished after 45 minutes.  Slower variants: rows held from level 2 only
    and the first round presolved (4.2 s and about 150 s), the same from PF (3.4 s,
    124 s); HiGHS's default dual simplex after releases (first release round 3.9 s against
    0.9 s at n = k = 8) and its default steepest-edge pricing, whose weights are recomputed
    after every change (27 s against 7 s at n = k = 8), hence Devex; the earlier one-shot
    models re-solved from PF every round (12 s; n = k = 9 not in 750 s); one model from
    scratch without held rows (30 s at n = k = 8).  With HiGHS's default 1e-7 tolerances
    the returned point violates rows by ~1e-8 and its objective is off by ~1e-9 relative,
    so the tolerances are tightened to 1e-10; the certificate, not HiGHS's status, decides
    what is returned.  After thousands of basis updates HiGHS's primal values can still drift
    (highspy 1.16, Appendix D's LP at n = k = 8: a sum-to-one row off by 1.2e-6 under an
    "Optimal" status, and a certified gap of 1.7e-6), so a point that violates a row by more
    than 1e-9 is recomputed from a fresh factorisation of its basis (``refactor_tolerance``
    of :meth:`HighsModel.run`) before the round goes on.
    """
    simplex = method == "simplex"
    num_vars = classes.num_variables
    first = second = np.zeros(0, dtype=np.int64)
    if regular and classes.k >= 1:
        # Seed with the rows "raising another item from level 1 to the top does not raise
        # r's probability": at the Appendix D optimum these are the ones violated most
        # (n = k = 7, eps = 0.5: 766 of 3102 tight at the regular optimum, against at most 20
        # for any other block), so seeding them saves most row-generation rounds.
        blocks = monotonicity_pair_blocks(classes)
        next(blocks), next(blocks)
        first, second = next(blocks)
    lp = reduced_lattice_lp(classes.n, classes.k, epsilon, weighting, "paper",
                            classes=classes, monotone_pairs=(first, second))
    options = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
    held = np.zeros(0, dtype=np.int64)
    row_upper = lp.row_upper.copy()
    if simplex:
        held = lp.metadata["num_class_rows"] + np.flatnonzero(
            classes.var_level[lp.metadata["privacy_source"]] >= 1)
        row_upper[held] = 0.0
        options.update(simplex_strategy=_PRIMAL_SIMPLEX, simplex_dual_edge_weight_strategy=1,
                       simplex_primal_edge_weight_strategy=1)
    model = HighsModel(dataclasses.replace(lp, row_upper=row_upper), method,
                       presolve=False if simplex else None, options=options)
    start, dual_round = (pf if simplex else None), False
    deadline = None if time_limit is None else time.perf_counter() + time_limit

    def run(warm_start=None):
        remaining = None if deadline is None else max(deadline - time.perf_counter(), 1e-3)
        return model.run(time_limit=remaining, warm_start=warm_start,
                         feasibility_tolerance=1e-6, refactor_tolerance=1e-9)

    for round_index in range(_MAX_ROUNDS):
        try:
            sol = run(start)
        except SolverError as error:
            # After rows were added, HiGHS's dual simplex can stop with "Solve error" (its
            # log: "Increasing Markowitz threshold", i.e. trouble factorising; measured at
            # n = k = 10, eps = 0.69, after 32760 new rows, also from a fresh
            # factorisation).  The primal simplex from a fresh factorisation of the same
            # basis is a second route to the optimum (there: 7210 pivots); any other
            # failure, or a failure of this route too, is raised.
            if not (simplex and dual_round and error.status == "Solve error"):
                raise
            model.refactor()
            model.set_options({"simplex_strategy": _PRIMAL_SIMPLEX})
            sol = run()
        start, dual_round = None, False
        if method == "ipm" and round_index == 0:
            # IPX's point (after crossover) can violate rows by ~1e-8, and repairing that
            # costs ~3e-8 of the objective (n = 6, k = 2, eps = 0.05): re-solve by simplex
            # from its basis, which also serves the row-generation rounds.
            model.set_options({"solver": "simplex"})
            continue
        release = held[sol.row_duals[held] < -1e-12]
        if release.size:
            model.change_row_bounds(release, np.zeros(release.size),
                                    np.full(release.size, np.inf))
            held = np.setdiff1d(held, release)     # (rows are held only for simplex)
            model.set_options({"simplex_strategy": _PRIMAL_SIMPLEX})  # basis primal feasible
            continue
        if not regular:
            break
        new_a, new_b = _violated_monotone_rows(classes, sol.x,
                                               _pair_keys(classes, first, second))
        if new_a.size == 0:
            break
        model.add_rows(pair_rows(new_a, new_b, 1.0, num_vars), np.zeros(new_a.size),
                       np.full(new_a.size, np.inf))
        if simplex:                        # the basis stays dual feasible
            model.set_options({"simplex_strategy": _DUAL_SIMPLEX})
            dual_round = True
        first, second = np.concatenate([first, new_a]), np.concatenate([second, new_b])
    else:
        raise SolverError("row generation did not converge", status="row generation",
                          num_rows=model.lp.num_rows, num_cols=num_vars,
                          num_nonzeros=model.lp.num_nonzeros, method=method)
    row_upper = model.lp.row_upper.copy()
    row_upper[held] = np.inf
    certify_lp = dataclasses.replace(model.lp, row_upper=row_upper, metadata={
        **lp.metadata, "monotone_pairs": (first, second)})
    return sol.x, certify_lp, sol.row_duals, sol.status, f"highs-{method}"


# --------------------------------------------------------------------------- ratios


def _rnm_laplace_level_probabilities(classes: LatticeClasses, scale: float,
                                     show_progress: bool | None = None) -> np.ndarray:
    """Report-noisy-max with Laplace noise on every class at once: ``P[c, j]`` is the
    probability of one particular item at level ``j`` (scores ``-2j``, noise scale ``scale``,
    both in units of Δ).

    The method of :func:`optmech.noisy_max.noisy_max_pmf` (same helpers, same accuracy,
    about 1e-12) with one quadrature grid for all classes: every class has its scores on
    ``{0, -2, ..., -2k}``, so the panel edges are shared and the window
    ``[-2k + b Q(TAIL), b Q(1 - TAIL)]`` contains every class's own window (outside a class's
    window its integrands are below ``TAIL``).  Per class the integrand of level ``j`` is
    ``h_j(x) prod_i F_i(x)^{m_i}``, so ``P = exp(counts @ log F) @ (w h)``: one matrix product
    per block of classes.  Each class's probabilities must sum to 1 within 1e-10.
    """
    k = classes.k
    levels = np.arange(k + 1)
    lo = -2.0 * k + scale * lower_quantile("laplace", TAIL)
    hi = scale * upper_quantile("laplace", TAIL)
    x, w = quadrature_panels(lo, hi, -2.0 * levels.astype(float), scale / 2)
    y = (x[None, :] + 2.0 * levels[:, None]) / scale          # (k+1, T)
    level_log_cdf = log_cdf("laplace", y)
    hazard = (np.exp(log_hazard("laplace", y)) / scale * w).T  # (T, k+1)
    probs = np.empty((classes.num_classes, k + 1))
    block = max(1, (1 << 22) // x.size)
    starts = range(0, classes.num_classes, block)
    for start in progress(starts, total=len(starts), desc="rnm-laplace errors",
                          enabled=show_progress):
        counts = classes.counts[start:start + block].astype(float)
        probs[start:start + block] = np.exp(counts @ level_log_cdf) @ hazard
    totals = (classes.counts * probs).sum(axis=1)
    worst = float(np.abs(totals - 1).max())
    if not worst <= SUM_TOLERANCE:
        raise IntegrationError(f"lattice noisy-max probabilities off by {worst!r}")
    return probs


def class_errors(mechanism: SelectionMechanism, classes: LatticeClasses,
                 show_progress: bool | None = None) -> np.ndarray:
    """Exact expected error (units of the mechanism's sensitivity Δ) on every class.

    The representative of class ``m`` has scores ``-2 Δ j`` for its items at level ``j``.
    Three mechanisms are evaluated on the whole class table at once: permute-and-flip (its
    recurrence (5)), the exponential mechanism (softmax) and report-noisy-max with Laplace
    noise (:func:`_rnm_laplace_level_probabilities`); every other mechanism calls its
    ``pmf`` once per class.  Tests check all three against the ``pmf`` path.
    """
    sensitivity = float(getattr(mechanism, "sensitivity", 1.0))
    level_error = 2.0 * np.arange(classes.k + 1)
    if type(mechanism) is PermuteAndFlip:
        x = pf_lattice_probabilities(classes, 2.0 * sensitivity * mechanism.exponent)
        return np.bincount(classes.var_class, weights=classes.var_count * 2.0
                           * classes.var_level * x, minlength=classes.num_classes)
    if type(mechanism) is ExponentialMechanism:
        logits = -2.0 * sensitivity * mechanism.exponent * np.arange(classes.k + 1)
        weights = classes.counts * np.exp(logits - logits.max())
        return (weights @ level_error) / weights.sum(axis=1)
    if type(mechanism) is ReportNoisyMax and mechanism.noise == "laplace":
        probs = _rnm_laplace_level_probabilities(classes, mechanism.scale / sensitivity,
                                                 show_progress)
        return (classes.counts * probs) @ level_error
    errors = np.empty(classes.num_classes)
    chunk = 4096
    starts = range(0, classes.num_classes, chunk)
    for start in progress(starts, total=len(starts), desc=f"{mechanism.name} errors",
                          enabled=show_progress):
        block = np.arange(start, min(start + chunk, classes.num_classes))
        scores = classes.scores(block, sensitivity)
        for row, q in zip(block, scores):
            errors[row] = mechanism.expected_error(q) / sensitivity
    return errors


def total_error(mechanism: SelectionMechanism, n: int, k: int, weighting: str = "lattice",
                classes: LatticeClasses | None = None) -> float:
    """``sum over the weighted vectors of E[error]`` of ``mechanism`` (units of Δ)."""
    n, k, _ = _validate(n, k, 1.0, weighting, "paper")
    classes = _classes(n, k) if classes is None else classes
    return float(class_weights(classes, weighting) @ class_errors(mechanism, classes))


def optimality_ratio(mechanism: SelectionMechanism, optimum: LatticeOptimum) -> float:
    """``sum_q E[error of mechanism] / sum_q E[error of the optimum]`` over the optimum's
    lattice and weighting (the paper's "optimality ratio", Figure 2)."""
    value = total_error(mechanism, optimum.n, optimum.k, optimum.weighting, optimum.classes)
    return value / optimum.total_error


def optimality_ratios(optimum: LatticeOptimum, mechanisms=tuple(RATIO_MECHANISMS)
                      ) -> dict[str, float]:
    """Ratios of the named mechanisms (``"pf"``, ``"em"``, ``"rnm_laplace"``) at the
    optimum's epsilon."""
    return {name: optimality_ratio(RATIO_MECHANISMS[check_choice(name, "mechanism",
                                                                 RATIO_MECHANISMS)](
        optimum.epsilon), optimum) for name in mechanisms}


@dataclass(frozen=True, eq=False)
class RatioCurve:
    """Optimality ratios of several mechanisms over a grid of epsilon for one ``(n, k)``."""

    n: int
    k: int
    epsilons: np.ndarray
    total_errors: np.ndarray
    ratios: dict[str, np.ndarray]


def ratio_cell(n: int, k: int, epsilon: float, mechanisms: list[str], weighting: str,
               constraints: str, method: str, time_limit: float | None) -> dict:
    """One sweep cell: the certified optimum's total error and the optimality ratios at one
    ``(n, k, epsilon)``; plain values in and out, so :func:`optmech.sweep.run_sweep` can
    cache it, or send it to a process pool or a Dask cluster."""
    optimum = solve_lattice(n, k, epsilon, weighting=weighting, constraints=constraints,
                            method=method, time_limit=time_limit)
    return {"total_error": float(optimum.total_error),
            "ratios": {name: float(value)
                       for name, value in optimality_ratios(optimum, mechanisms).items()}}


def ratio_sweep(ns, ks, epsilons, mechanisms=("pf", "em"), *, weighting: str = "lattice",
                constraints: str = "regular", method: str = "auto",
                time_limit: float | None = None, workers: int = 1, dask_scheduler=None,
                cache_dir=None, show_progress: bool | None = None) -> list[RatioCurve]:
    """Certified optimum and optimality ratios for every ``(n, k)`` in ``ns x ks`` and every
    epsilon (the curves of Figure 2): one :func:`ratio_cell` per point through
    :func:`optmech.sweep.run_sweep` (``workers``, ``dask_scheduler``, ``cache_dir``), with
    a progress bar over the solves."""
    from optmech.sweep import run_sweep

    ns = [check_integer(v, "n", minimum=2) for v in np.atleast_1d(ns)]
    ks = [check_integer(v, "k", minimum=1) for v in np.atleast_1d(ks)]
    eps = np.array([check_positive(e, "epsilon") for e in np.atleast_1d(epsilons)])
    if not ns or not ks or eps.size == 0:
        raise InvalidArgumentError("ns, ks, epsilons", (ns, ks, eps), "non-empty lists")
    mechanisms = [check_choice(m, "mechanism", RATIO_MECHANISMS) for m in mechanisms]
    check_choice(weighting, "weighting", WEIGHTINGS)
    check_choice(constraints, "constraints", CONSTRAINTS)
    check_choice(method, "method", METHODS)
    cells = [{"n": n, "k": k, "epsilon": float(e), "mechanisms": mechanisms,
              "weighting": weighting, "constraints": constraints, "method": method,
              "time_limit": time_limit} for n in ns for k in ks for e in eps]
    results = run_sweep(ratio_cell, cells, workers=workers, dask_scheduler=dask_scheduler,
                        cache_dir=cache_dir, desc="lattice ratios", show_progress=show_progress)
    curves = []
    for start in range(0, len(cells), eps.size):
        block = results[start:start + eps.size]
        curves.append(RatioCurve(
            n=cells[start]["n"], k=cells[start]["k"], epsilons=eps.copy(),
            total_errors=np.array([r["total_error"] for r in block]),
            ratios={m: np.array([r["ratios"][m] for r in block]) for m in mechanisms}))
    return curves
