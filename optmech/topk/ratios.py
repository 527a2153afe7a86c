"""Optimality ratios of the top-k mechanisms against the certified optimal top-k mechanism.

The ratio of a mechanism ``M`` is ``sum_q E[error of M on q] / sum_q E[error of the
optimum on q]`` over the bounded lattice ``Q`` (the permute-and-flip paper's "optimality
ratio", R. McKenna and D. Sheldon, arXiv:2010.12603, Figure 2, for ``T`` outputs), from
exact probabilities: the mechanism's ``pmf`` on every class representative at once (one
batch), each class counted with its multiplicity.  The mechanism is calibrated for the LP's
neighbouring relation (``monotonic=False``: every score moves by at most Δ = 1).

Outputs are compared as the LP compares them: position by position against the ordered LP
(a mechanism that releases a set, such as the canonical Lipschitz mechanism, then reports it
in random order), and as sets against the subset LP (``ordered=False``; any mechanism's
tuple read as a set, which is post-processing and keeps its privacy).

What each ratio is checked against.  The mechanism's probabilities, averaged over each
orbit of outputs (its symmetrisation, which has its total error), are a point of the LP's
variables.  :attr:`TopKRatio.lattice_epsilon` is the largest ``log(P[M(q')=o] / P[M(q)=o])``
over the LP's privacy rows (every neighbour pair of the lattice) and
:attr:`TopKRatio.monotone_violation` the largest violation of its monotonicity rows.  When
both are within rounding (:attr:`TopKRatio.feasible`) the point is feasible for the LP, so
its total error is at least the certified lower bound: a ratio below ``1 - 1e-9`` is then a
bug in one of the two, and raises.  A mechanism that is not monotonic in the LP's sense is
outside the ``"regular"`` LP's class, and its ratio against it may be below 1.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from lp_models.display import Displayed, ResultList, Tabular, joined
from lp_models.topk import monotonicity_rows
from optmech.progress import progress
from optmech.topk.optimum import TopKOptimum, require_topk_sweep, solve_topk
from optmech.validation import InvalidArgumentError, check_finite_result

__all__ = ["TopKRatio", "TopKRatioCurve", "mechanism_point", "topk_ratio_sweep", "topk_ratios"]

# Relative rounding allowed in the feasibility checks and in the ratio >= 1 check.
_ROUNDING = 1e-9


@dataclass(frozen=True, eq=False, repr=False)
class TopKRatio(Displayed, Tabular):
    """One mechanism's optimality ratio and the checks that make it a comparison; one row
    of a table (so that :func:`topk_ratios`'s list shows and converts as one table)."""

    #: The mechanism's name.
    mechanism: str
    #: Its total expected error over Q divided by the optimum's.
    ratio: float
    #: Its total expected error over Q (the optimum's objective, units of Δ).
    total_error: float
    #: Largest realised privacy loss over the LP's neighbour pairs (its symmetrisation).
    lattice_epsilon: float
    #: Largest violation of the LP's monotonicity rows (0 for the ``"private"`` LP).
    monotone_violation: float
    #: Whether the mechanism is a feasible point of the LP (then ``ratio >= 1``).
    feasible: bool

    _display = ("mechanism", "ratio", "total_error", "lattice_epsilon", "monotone_violation",
                "feasible")

    def records(self) -> list[dict]:
        """One row: the displayed fields."""
        return [{name: getattr(self, name) for name in self._display}]


def _mechanism(mechanism, optimum: TopKOptimum):
    """``(label, mechanism)``: a name built at the optimum's ε and top for the general
    relation with Δ = 1, or a mechanism object, refused unless it has ``pmf``."""
    from optmech.topk import make_topk_mechanism

    if isinstance(mechanism, str):
        return mechanism, make_topk_mechanism(mechanism, optimum.epsilon, optimum.top, 1.0,
                                              monotonic=False)
    if not callable(getattr(mechanism, "pmf", None)):
        raise InvalidArgumentError("mechanism", mechanism, "a name of TOPK_MECHANISMS or an "
                                   "object with pmf(scores) over outcomes(n, top)")
    return getattr(mechanism, "name", type(mechanism).__name__), mechanism


def mechanism_point(mechanism, optimum: TopKOptimum) -> np.ndarray:
    """``(V,)``: the mechanism's probability of one output of each orbit of the optimum's LP,
    averaged over the orbit (exact for a symmetric mechanism), from its ``pmf`` over
    ``outcomes(n, top)`` on every class representative in one batch."""
    from optmech.topk import outcomes

    orbits = optimum.orbits
    scores = orbits.classes.scores(np.arange(orbits.classes.num_classes))
    probabilities = np.asarray(mechanism.pmf(scores), dtype=float)
    tuples = outcomes(orbits.classes.n, orbits.top)
    variables = orbits.outcome_variables(tuples)
    if probabilities.shape != variables.shape or (variables < 0).any():
        raise InvalidArgumentError("mechanism", mechanism, "a pmf with one probability per "
                                   "ordered outcome of every score vector")
    mass = np.bincount(variables.ravel(), weights=probabilities.ravel(),
                       minlength=orbits.num_variables)
    return mass / orbits.size


def _ratio(label: str, x: np.ndarray, optimum: TopKOptimum, monotone) -> TopKRatio:
    lp = optimum.lp
    orbits = optimum.orbits
    costs = lp.metadata["weights"][orbits.var_class] * orbits.size * lp.metadata["errors"]
    total = check_finite_result(float(costs @ x), "the mechanism's total error")
    source, target = lp.metadata["privacy_source"], lp.metadata["privacy_target"]
    with np.errstate(divide="ignore"):
        losses = np.log(x[target]) - np.log(x[source])
    losses = losses[x[target] > 0]
    loss = float(losses.max(initial=0.0))
    violation = 0.0 if monotone is None else float(max(0.0, -(monotone @ x).min(initial=0.0)))
    feasible = bool(loss <= optimum.epsilon * (1 + _ROUNDING) and violation <= _ROUNDING)
    ratio = total / optimum.total_error
    if feasible and total < optimum.lower_bound * (1 - _ROUNDING):
        raise RuntimeError(f"{label}: total error {total!r} below the certified lower bound "
                           f"{optimum.lower_bound!r} although it satisfies every row of the "
                           "LP; a bug in the mechanism's pmf or in the LP")
    return TopKRatio(mechanism=label, ratio=ratio, total_error=total, lattice_epsilon=loss,
                     monotone_violation=violation, feasible=feasible)


def topk_ratios(optimum: TopKOptimum, mechanisms=None) -> ResultList:
    """Optimality ratio (:class:`TopKRatio`) of each mechanism against ``optimum``:
    names of :data:`~optmech.topk.mechanisms.TOPK_MECHANISMS` (default: all of them), built at the
    optimum's ε and ``top`` for the general relation, or objects with ``pmf(scores)``."""
    from optmech.topk import TOPK_MECHANISMS

    mechanisms = TOPK_MECHANISMS if mechanisms is None else mechanisms
    if isinstance(mechanisms, str) or not isinstance(mechanisms, (list, tuple)):
        mechanisms = [mechanisms]
    monotone = (monotonicity_rows(optimum.orbits)[0] if optimum.constraint_set == "regular"
                else None)
    results = ResultList()
    for mechanism in mechanisms:
        label, built = _mechanism(mechanism, optimum)
        results.append(_ratio(label, mechanism_point(built, optimum), optimum, monotone))
    return results


@dataclass(frozen=True, eq=False, repr=False)
class TopKRatioCurve(Displayed, Tabular):
    """Optimality ratios of several mechanisms over a grid of ε for one ``(n, k, top)``."""

    #: Number of items.
    n: int
    #: Depth of the lattice.
    k: int
    #: The number ``T`` of items returned.
    top: int
    #: True for ordered tuples, False for subsets.
    ordered: bool
    #: ``"regular"`` or ``"private"``.
    constraint_set: str
    #: The error minimised and compared.
    objective: str
    #: The grid of ε.
    epsilons: np.ndarray
    #: The certified optimum's total error at each ε (units of Δ).
    total_errors: np.ndarray
    #: Mechanism name -> its optimality ratio at each ε.
    ratios: dict[str, np.ndarray]
    #: The certified optimum at each ε.
    optima: tuple = field(default=(), repr=False)
    #: The :class:`TopKRatio` results at each ε (one :class:`ResultList` per ε).
    results: tuple = field(default=(), repr=False)

    _display = ("n", "k", "top", "ordered", "constraint_set", "objective", "epsilons",
                "total_errors", "ratios")

    def records(self) -> list[dict]:
        """One row per ε: the problem, ``epsilon``, ``total_error`` (the optimum's) and one
        column per mechanism (its optimality ratio)."""
        return [joined({"n": self.n, "k": self.k, "top": self.top, "ordered": self.ordered,
                        "constraint_set": self.constraint_set, "objective": self.objective,
                        "epsilon": float(e), "total_error": float(self.total_errors[i])},
                       {name: float(values[i]) for name, values in self.ratios.items()})
                for i, e in enumerate(self.epsilons)]


def topk_ratio_sweep(n: int, k: int, top: int, epsilons, mechanisms=None, *,
                     ordered: bool = True, constraints: str = "regular",
                     objective: str = "l1", method: str = "auto",
                     time_limit: float | None = None,
                     show_progress: bool | None = None) -> TopKRatioCurve:
    """:func:`solve_topk` and :func:`topk_ratios` at every ε of ``epsilons`` (a progress
    bar over the solves): the ratio curves against ε.  Every ε and the budgets for all the
    solves are checked before the first (:func:`~optmech.topk.optimum.require_topk_sweep`).
    """
    grid = np.atleast_1d(np.asarray(epsilons, dtype=float))
    if grid.ndim != 1 or grid.size == 0:
        raise InvalidArgumentError("epsilons", epsilons, "a non-empty list of numbers")
    require_topk_sweep(n, k, top, grid, ordered, constraints)
    optima, results, curves = [], [], {}
    for epsilon in progress(grid.tolist(), desc="topk optimum", enabled=show_progress):
        optimum = solve_topk(n, k, epsilon, top, ordered=ordered, constraints=constraints,
                             objective=objective, method=method, time_limit=time_limit)
        optima.append(optimum)
        results.append(topk_ratios(optimum, mechanisms))
        for result in results[-1]:
            curves.setdefault(result.mechanism, []).append(result.ratio)
    return TopKRatioCurve(n=optimum.n, k=optimum.k, top=optimum.top, ordered=optimum.ordered,
                          constraint_set=constraints, objective=optimum.objective,
                          epsilons=grid, total_errors=np.array([o.total_error for o in optima]),
                          ratios={name: np.array(values) for name, values in curves.items()},
                          optima=tuple(optima), results=tuple(results))
