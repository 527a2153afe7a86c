"""The HiGHS rounds behind :func:`optmech.lattice.optimum.solve_lattice`: held climbing rows
released by their multipliers, and monotonicity rows added by row generation; from PF
(:func:`solve_with_highs`) or from the basis a certified bracket's PDHG point gives (the
exact finish, :func:`finish_with_highs`).

Permute-and-flip paper, Appendix D (the reduced LP of :mod:`lp_models.lattice`).  One
:class:`~lp_models.program.HighsModel` is kept between rounds, so HiGHS re-optimises from its
last basis: primal simplex after rows are released (the basis stays primal feasible), dual
simplex after rows are added (it stays dual feasible).  Each measured choice:

* Devex pricing: HiGHS's default steepest-edge weights are recomputed after every change
  (27 s against 7 s at n = k = 8, eps = 0.5), and for a basis handed over they are
  computed from scratch (after a crossover at n = k = 8: 10.0 CPU s for the first 170
  pivots, against 1.9 CPU s with Devex).
* Tolerances 1e-10: with HiGHS's default 1e-7 the returned point violates rows by ~1e-8
  and its objective is off by ~1e-9 relative; the certificate, not HiGHS's status, decides
  what is returned.
* A final basis whose values drifted (a sum-to-one row off by 1.2e-6 under "Optimal",
  highspy 1.16, n = k = 8) is factorised afresh (``refactor_tolerance`` of
  :meth:`~lp_models.program.HighsModel.run`) before the round goes on.
* The exact finish runs HiGHS's *primal* simplex from a basis the PDHG point gives: its
  crossover, or a forest of the rows tight at it (:mod:`lp_models.lattice.basis`; see
  :data:`CROSSOVER_MAX_VARIABLES`).  From the forest at n = k = 8, eps = 0.5, one bracket at
  width 9e-5: 1,338 pivots and 3.1 CPU s, against 5,309 pivots and 14.8 CPU s for the dual
  simplex and 1,723 pivots and 24.8 CPU s with steepest-edge pricing.  The pivots a finish
  needs grow about five times per step of n = k (339, 1,910, 9,762 from n = k = 7 to 9),
  about as fast as from PF's basis: the point, at width 1e-4 in single precision, does not
  tell which of the rows tight at the degenerate optimum (6,213 for 5,544 places at
  n = k = 7) belong to an optimal basis; from a double-precision point at width 4e-7 the
  finish at n = k = 8 took 263 pivots, but PDHG took 77 CPU s to get there.

The point returned here is not yet certified: :mod:`optmech.lattice.optimum` repairs it,
checks it against every row and recomputes the dual bound.
"""

from __future__ import annotations

import dataclasses
import time

import numpy as np

from lp_models.lattice import monotonicity_pair_blocks, pair_rows, reduced_lattice_lp
from lp_models.lattice.basis import tight_forest
from lp_models.lattice.certificates import LatticeUnits
from lp_models.lattice.classes import LatticeClasses
from lp_models.program import HighsModel, SolverError

__all__ = ["CROSSOVER_MAX_VARIABLES", "DUAL_SIMPLEX", "PRIMAL_SIMPLEX", "finish_with_highs",
           "pair_keys", "solve_with_highs", "violated_monotone_rows"]

_MAX_ROUNDS = 200  # solve rounds (releases and row generation; 23 at n = k = 9)
DUAL_SIMPLEX, PRIMAL_SIMPLEX = 1, 4  # HiGHS simplex_strategy values
_TIGHT = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
# Up to this many variables the exact finish starts from HiGHS's crossover of the PDHG point,
# beyond from a forest of its tight rows.  Measured at eps = 0.5 from one bracket each at
# width 1e-4 (CPU s of the crossover and the simplex rounds after it, against the forest):
# n = k = 7, 0.0 s and 1 pivot against 0.2 s and 339; n = k = 8, 3.0 s and 1,517 against 4.6
# s and 1,910; n = k = 9 (127,270 variables), 92 s and 9,107 against 104 s and 9,762; at
# n = k = 10 the crossover took 192 s of pushes and the simplex started from its basis with
# 784,452 infeasibilities (830,686 rows).
CROSSOVER_MAX_VARIABLES = 200_000
_DEVEX = {"simplex_dual_edge_weight_strategy": 1, "simplex_primal_edge_weight_strategy": 1}


def violated_monotone_rows(units: LatticeUnits, x: np.ndarray, present: np.ndarray,
                           tolerance: float = 5e-13):
    """Pairs ``(a, b)`` of every monotonicity row ``x[a] - coef x[b] >= 0`` (in the variables
    of ``units``) that ``x`` violates by more than ``tolerance`` times the row's two terms
    and that is not yet in the model (``present``: the :func:`pair_keys` of the rows it
    has).  A row already present can be violated by a relative 1e-12 while HiGHS counts it
    as satisfied (absolute tolerance 1e-10); adding it again would put two equal rows in the
    model (measured before this check: 75 of the 14024 rows generated at n = k = 8,
    eps = 0.5), and a basis with both tight is singular."""
    firsts, seconds = [], []
    for a, b, coef in units.monotone_blocks():
        second = coef * x[b]
        bad = second - x[a] > tolerance * (np.abs(x[a]) + np.abs(second)) + 1e-300
        firsts.append(a[bad])
        seconds.append(b[bad])
    first, second = np.concatenate(firsts), np.concatenate(seconds)
    new = ~np.isin(pair_keys(units.classes, first, second), present)
    return first[new], second[new]


def pair_keys(classes: LatticeClasses, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """One integer per variable pair ``(a, b)``."""
    return a.astype(np.int64) * classes.num_variables + b


def solve_with_highs(classes, epsilon, weighting, pf, regular, method, time_limit):
    """Solve the reduced LP with HiGHS, one model kept between rounds (HiGHS re-optimises
    from its last basis), and for the regular LP add the monotonicity rows by row
    generation.  Returns ``(x, LP certified against, its row duals, HiGHS status, method
    label)``.

    ``method`` is a HiGHS solver (``"simplex"``, ``"ipm"`` or ``"pdlp"``).  Simplex: every
    climbing privacy row starts *held* as an equality, which leaves exactly one point, PF
    (recurrence (5)), the start.  Rounds (:func:`_rounds`): solve; release every held row
    whose multiplier is negative (the objective improves if it goes slack; the basis stays
    primal feasible, so primal simplex continues); else add every violated monotonicity row
    (the basis stays dual feasible: dual simplex continues); else stop.  Few rows need
    releasing (eps = 0.5, n = k = 7: 214 of 5544 climbing rows are slack at the optimum),
    so the simplex walks only the short way from PF.  Other methods run on the plain model,
    one solve per round; after the first interior-point solve every round is simplex from
    its crossover basis.

    Measured (eps = 0.5, no other job running): n = k = 8, 2.9 s; n = k = 9, 83 s (the
    first release round, 37 s, dominates); n = k = 10 (with a second job on the other
    core): the first release round alone 1187 s (46050 pivots).  Devex pricing, because
    HiGHS's default steepest-edge weights are recomputed after every change (27 s against
    7 s at n = k = 8).  With HiGHS's default 1e-7 tolerances the returned point violates
    rows by ~1e-8 and its objective is off by ~1e-9 relative, so the tolerances are
    tightened to 1e-10; the certificate, not HiGHS's status, decides what is returned.
    """
    simplex = method == "simplex"
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
    options = dict(_TIGHT)
    held = np.zeros(0, dtype=np.int64)
    row_upper = lp.row_upper.copy()
    if simplex:
        held = lp.metadata["num_class_rows"] + np.flatnonzero(
            classes.var_level[lp.metadata["privacy_source"]] >= 1)
        row_upper[held] = 0.0
        options.update(_DEVEX, simplex_strategy=PRIMAL_SIMPLEX)
    model = HighsModel(dataclasses.replace(lp, row_upper=row_upper), method,
                       presolve=False if simplex else None, options=options)
    return _rounds(model, lp, classes, epsilon, regular, held, (first, second),
                   simplex, method, time_limit, start=pf if simplex else None,
                   label=f"highs-{method}")


def finish_with_highs(classes, epsilon, weighting, regular, point, multipliers, pairs,
                      time_limit):
    """The exact finish after a certified bracket: HiGHS's primal simplex from a basis read
    off the bracket's PDHG point, then the rounds of :func:`solve_with_highs` (row
    generation over every monotonicity row until none is violated).

    ``point`` and ``multipliers`` are PDHG's primal and row values on the restricted LP
    (Appendix D's rows plus the monotonicity rows ``pairs``, in the row order of
    :func:`~lp_models.lattice.reduced_lattice_lp`).  Up to :data:`CROSSOVER_MAX_VARIABLES`
    HiGHS's crossover turns them into a basis
    (:meth:`~lp_models.program.HighsModel.crossover`); beyond, the basis holds the class
    rows and a forest of the rows the point holds tight
    (:func:`lp_models.lattice.basis.tight_forest`) nonbasic and every column basic.  Returns
    what :func:`solve_with_highs` returns, with the method label ``"pdhg-crossover"`` or
    ``"pdhg-forest"``; the point is certified by the caller.
    """
    lp = reduced_lattice_lp(classes.n, classes.k, epsilon, weighting, "paper",
                            classes=classes, monotone_pairs=pairs)
    model = HighsModel(lp, "simplex", presolve=False,
                       options={**_TIGHT, **_DEVEX, "simplex_strategy": PRIMAL_SIMPLEX})
    point, multipliers = np.asarray(point), np.asarray(multipliers)
    if classes.num_variables <= CROSSOVER_MAX_VARIABLES:
        model.crossover(point, multipliers)
        label = "pdhg-crossover"
    else:
        model.set_basis(np.ones(lp.num_cols, dtype=bool),
                        _basic_rows(lp, classes, point, multipliers))
        label = "pdhg-forest"
    return _rounds(model, lp, classes, epsilon, regular, np.zeros(0, dtype=np.int64),
                   tuple(np.asarray(p, dtype=np.int64) for p in pairs), True, "simplex",
                   time_limit, label=label)


def _basic_rows(lp, classes, point: np.ndarray, multipliers: np.ndarray) -> np.ndarray:
    """Rows basic in the finish's start basis: all but the class rows and a forest of the
    privacy and monotonicity rows tight at ``point`` (every one of them ties two variables:
    its two nonzeros)."""
    head = classes.num_classes
    rows = lp.matrix.tocsr()[head:]
    rows.sort_indices()
    ends = rows.indptr[:-1]
    first, second = rows.indices[ends], rows.indices[ends + 1]
    terms = np.abs(rows.data[ends] * point[first]) + np.abs(rows.data[ends + 1] * point[second])
    slack = (rows @ point) / np.maximum(terms, 1e-300)
    chosen = tight_forest(first, second, slack, multipliers[head:], classes.num_variables,
                          classes.num_variables - head)
    basic = np.ones(lp.num_rows, dtype=bool)
    basic[:head] = False
    basic[head + chosen] = False
    return basic


def _rounds(model, lp, classes, epsilon, regular, held, pairs, simplex, method, time_limit,
            start=None, label=""):
    """Solve rounds on ``model`` (see :func:`solve_with_highs`) until no held row asks to
    be released and no monotonicity row is violated; ``lp`` is the model's LP before any
    round (its metadata), ``pairs`` the monotonicity rows it has."""
    first, second = pairs
    num_vars = classes.num_variables
    dual_round = False
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
            model.set_options({"simplex_strategy": PRIMAL_SIMPLEX})
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
            model.set_options({"simplex_strategy": PRIMAL_SIMPLEX})  # basis primal feasible
            continue
        if not regular:
            break
        new_a, new_b = violated_monotone_rows(LatticeUnits(classes, epsilon), sol.x,
                                              pair_keys(classes, first, second))
        if new_a.size == 0:
            break
        model.add_rows(pair_rows(new_a, new_b, 1.0, num_vars), np.zeros(new_a.size),
                       np.full(new_a.size, np.inf))
        if simplex:                        # the basis stays dual feasible
            model.set_options({"simplex_strategy": DUAL_SIMPLEX})
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
    return sol.x, certify_lp, sol.row_duals, sol.status, label
