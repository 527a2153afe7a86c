"""Optimality ratios: how far permute-and-flip, the exponential mechanism, report-noisy-max
(or any mechanism with a ``pmf``) are from the certified optimal regular mechanism.

Permute-and-flip paper, Section 5 (Figure 2): the ratio of a mechanism ``M`` is
``sum_q E[error of M on q] / sum_q E[error of the optimum on q]`` over the bounded lattice
``Q`` (each class counted with its multiplicity), from exact probabilities, not sampling.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from typing import Callable

import numpy as np

from lp_models.display import Displayed, ResultList, Tabular, joined
from lp_models.lattice import CONSTRAINTS, WEIGHTINGS, class_weights
from lp_models.lattice.classes import LatticeClasses
from lp_models.lattice.recurrences import pf_lattice_probabilities
from optmech.lattice.inputs import check_lattice, lattice_table
from optmech.lattice.optimum import METHODS, LatticeOptimum, solve_lattice
from optmech.progress import progress
from optmech.selection.laplace_noisy_max import laplace_level_probabilities
from optmech.selection.mechanisms import (
    MECHANISMS,
    ExponentialMechanism,
    PermuteAndFlip,
    ReportNoisyMax,
    SelectionMechanism,
    as_mechanism,
    canonical_name,
    labelled_mechanisms,
)
from optmech.validation import (
    InvalidArgumentError,
    check_choice,
    check_finite_result,
    check_integer,
    check_positive,
)

__all__ = [
    "RATIO_MECHANISMS",
    "RatioCurve",
    "add_own_ratios",
    "class_errors",
    "mechanism_totals",
    "optimality_ratio",
    "optimality_ratios",
    "ratio_cell",
    "ratio_sweep",
    "split_mechanisms",
    "sweep_cells",
    "total_error",
]

# The mechanisms of Figure 2 (any name of optmech.selection.MECHANISMS works too).
RATIO_MECHANISMS = ("pf", "em", "rnm_laplace")


# Classes per call of the quadrature of report-noisy-max with Laplace noise (a time limit
# is checked between calls).  At n = 100, k = 3 (171,700 classes, eps = 1): 21.5 CPU s in
# calls of 4,096 classes (0.5 s each), 19.7 in one call; the same total to every printed
# digit.
_LAPLACE_CLASSES = 2 ** 12


def _rnm_laplace_level_probabilities(classes: LatticeClasses, scale: float,
                                     show_progress: bool | None = None,
                                     deadline: float | None = None) -> np.ndarray:
    """Report-noisy-max with Laplace noise on every class: ``P[c, j]`` is the probability of
    one particular item at level ``j`` (scores ``-2j``, noise scale ``scale``, both in units
    of Δ).

    Every class has its scores on ``{0, -2, ..., -2k}`` and at least one item at 0, so
    :func:`optmech.selection.laplace_noisy_max.laplace_level_probabilities` evaluates them
    on one quadrature grid per :data:`_LAPLACE_CLASSES` classes (the method of
    ``ReportNoisyMax.pmf``, same accuracy, each class's probabilities checked to sum to 1
    within 1e-12); ``deadline`` (``time.perf_counter()``) is checked between them.
    """
    levels = -2.0 * np.arange(classes.k + 1) / scale
    probs = np.empty(classes.counts.shape)
    starts = range(0, classes.num_classes, _LAPLACE_CLASSES)
    for start in progress(starts, total=len(starts), desc="rnm-laplace errors",
                          enabled=show_progress):
        _check_deadline(deadline, "rnm_laplace", start, classes.num_classes)
        block = slice(start, start + _LAPLACE_CLASSES)
        probs[block] = laplace_level_probabilities(levels, classes.counts[block],
                                                   show_progress=False)
    return probs


def _check_deadline(deadline: float | None, name: str, done: int, total: int) -> None:
    """:class:`TimeoutError` once ``time.perf_counter()`` has passed ``deadline``."""
    if deadline is not None and time.perf_counter() >= deadline:
        raise TimeoutError(f"time limit reached while computing the exact errors of {name} "
                           f"({done} of {total} classes done)")


def class_errors(mechanism: SelectionMechanism, classes: LatticeClasses,
                 show_progress: bool | None = None, deadline: float | None = None
                 ) -> np.ndarray:
    """Exact expected error (units of the mechanism's sensitivity Δ) on every class.

    The representative of class ``m`` has scores ``-2 Δ j`` for its items at level ``j``.
    Three mechanisms are evaluated on the whole class table at once: permute-and-flip (its
    recurrence (5)), the exponential mechanism (softmax) and report-noisy-max with Laplace
    noise (:func:`_rnm_laplace_level_probabilities`); every other mechanism calls its
    ``pmf`` once per class.  Tests check all three against the ``pmf`` path.  Past
    ``deadline`` (``time.perf_counter()``, checked between blocks of classes) it raises
    :class:`TimeoutError`.
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
                                                 show_progress, deadline)
        return (classes.counts * probs) @ level_error
    errors = np.empty(classes.num_classes)
    chunk = 4096
    starts = range(0, classes.num_classes, chunk)
    for start in progress(starts, total=len(starts), desc=f"{mechanism.name} errors",
                          enabled=show_progress):
        _check_deadline(deadline, mechanism.name, start, classes.num_classes)
        block = np.arange(start, min(start + chunk, classes.num_classes))
        scores = classes.scores(block, sensitivity)
        for row, q in zip(block, scores):
            errors[row] = mechanism.expected_error(q) / sensitivity
    return errors


def total_error(mechanism: SelectionMechanism, n: int, k: int, weighting: str = "lattice",
                classes: LatticeClasses | None = None, deadline: float | None = None
                ) -> float:
    """``sum over the weighted vectors of E[error]`` of ``mechanism`` (units of Δ);
    ``deadline`` as for :func:`class_errors`."""
    n, k, _ = check_lattice(n, k, 1.0, weighting, "paper")
    classes = lattice_table(n, k) if classes is None else classes
    return float(class_weights(classes, weighting)
                 @ class_errors(mechanism, classes, deadline=deadline))


def _mechanism_at(mechanism, epsilon: float) -> SelectionMechanism:
    """``mechanism`` as a :class:`SelectionMechanism` at ``epsilon`` (a name is built at it;
    a mechanism declaring another epsilon is refused: its ratio would compare two privacy
    levels)."""
    built = as_mechanism(mechanism, epsilon)
    declared = getattr(built, "epsilon", None)
    if declared is not None and not math.isclose(declared, epsilon, rel_tol=1e-12):
        raise InvalidArgumentError("mechanism", built, f"a mechanism at the optimum's epsilon "
                                                       f"= {epsilon!r} (it has {declared!r})")
    return built


def optimality_ratio(mechanism, optimum: LatticeOptimum) -> float:
    """``sum_q E[error of mechanism] / sum_q E[error of the optimum]`` over the optimum's
    lattice and weighting (the paper's "optimality ratio", Figure 2).

    ``mechanism``: a mechanism at the optimum's epsilon, a name (``"pf"``, ``"em"``,
    ``"rnm_laplace"`` or ``"rnm-laplace"``, ...), an object with ``pmf(scores)`` or a function
    of the scores (:func:`~optmech.selection.mechanisms.as_mechanism`)."""
    built = _mechanism_at(mechanism, optimum.epsilon)
    value = total_error(built, optimum.n, optimum.k, optimum.weighting, optimum.classes)
    return check_finite_result(value / optimum.total_error, "the optimality ratio")


def mechanism_totals(mechanisms, epsilon: float, n: int, k: int, weighting: str,
                     classes: LatticeClasses | None = None, deadline: float | None = None
                     ) -> dict[str, float]:
    """``{label: total error}`` of each mechanism at ``epsilon`` on the lattice:
    ``mechanisms`` a dict ``{label: mechanism}``, a list (each labelled by its name) or one
    mechanism (:func:`~optmech.selection.mechanisms.labelled_mechanisms`); anything
    :func:`~optmech.selection.mechanisms.as_mechanism` takes is a mechanism (one declaring
    another epsilon is refused).  Past ``deadline`` (``time.perf_counter()``) it raises
    :class:`TimeoutError`."""
    return {label: total_error(_mechanism_at(mechanism, epsilon), n, k, weighting, classes,
                               deadline)
            for label, mechanism in labelled_mechanisms(mechanisms)}


def optimality_ratios(optimum: LatticeOptimum, mechanisms=RATIO_MECHANISMS
                      ) -> dict[str, float]:
    """:func:`optimality_ratio` of each mechanism: ``mechanisms`` a dict ``{label:
    mechanism}`` (e.g. ``{"mine": my_mechanism, "pf": "pf"}``), a list (keyed by each
    name, in its one spelling ``rnm_laplace``, or each mechanism's ``name``) or one
    mechanism."""
    return {key: check_finite_result(value / optimum.total_error, "the optimality ratio")
            for key, value in mechanism_totals(mechanisms, optimum.epsilon, optimum.n,
                                               optimum.k, optimum.weighting,
                                               optimum.classes).items()}


@dataclass(frozen=True, eq=False, repr=False)
class RatioCurve(Displayed, Tabular):
    """Optimality ratios of several mechanisms over a grid of epsilon for one ``(n, k)``."""

    #: Number of items.
    n: int
    #: Depth of the lattice.
    k: int
    #: The grid of ε.
    epsilons: np.ndarray
    #: The certified optimum's total error at each ε (units of Δ).
    total_errors: np.ndarray
    #: Mechanism name -> its optimality ratio at each ε.
    ratios: dict[str, np.ndarray]

    _display = ("n", "k", "epsilons", "total_errors", "ratios")

    def records(self) -> list[dict]:
        """One row per epsilon: ``n``, ``k``, ``epsilon``, ``total_error`` (the optimum's)
        and one column per mechanism (its optimality ratio)."""
        return [joined({"n": self.n, "k": self.k, "epsilon": float(e),
                        "total_error": float(self.total_errors[i])},
                       {name: float(values[i]) for name, values in self.ratios.items()})
                for i, e in enumerate(self.epsilons)]


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


def sweep_cells(ns, ks, epsilons, mechanisms, weighting: str, constraints: str, **fixed
                ) -> tuple[list[dict], np.ndarray]:
    """The checked cells of a ratio sweep, ``(n, k)`` in ``ns x ks`` outermost and epsilon
    innermost, each with the (already checked) built-in ``mechanisms``, the weighting,
    constraints and the ``fixed`` keyword arguments of its cell function; and the epsilon
    grid."""
    ns = [check_integer(v, "n", minimum=2) for v in np.atleast_1d(ns)]
    ks = [check_integer(v, "k", minimum=1) for v in np.atleast_1d(ks)]
    eps = np.array([check_positive(e, "epsilon") for e in np.atleast_1d(epsilons)])
    if not ns or not ks or eps.size == 0:
        raise InvalidArgumentError("ns, ks, epsilons", (ns, ks, eps), "non-empty lists")
    check_choice(weighting, "weighting", WEIGHTINGS)
    check_choice(constraints, "constraints", CONSTRAINTS)
    cells = [{"n": n, "k": k, "epsilon": float(e), "mechanisms": list(mechanisms),
              "weighting": weighting, "constraints": constraints, **fixed}
             for n in ns for k in ks for e in eps]
    return cells, eps


def sweep_blocks(cells: list[dict], results: list, size: int):
    """Yield ``(first cell, results)`` per ``(n, k)`` of a sweep made by :func:`sweep_cells`
    (``size`` epsilons each)."""
    for start in range(0, len(cells), size):
        yield cells[start], results[start:start + size]


def split_mechanisms(mechanisms) -> tuple[dict[str, str], dict[str, Callable]]:
    """``({label: built-in name}, {label: factory})`` of the ``mechanisms`` of a sweep
    (:func:`ratio_sweep`, :func:`optmech.lattice.bound.bound_sweep`), labelled by
    :func:`~optmech.selection.mechanisms.labelled_mechanisms`."""
    names, factories = {}, {}
    for label, value in labelled_mechanisms(mechanisms):
        if isinstance(value, str):
            names[label] = check_choice(canonical_name(value), "mechanism", MECHANISMS)
        elif callable(value):
            factories[label] = value
        else:
            raise InvalidArgumentError("mechanism", value, "a name of "
                                       + ", ".join(MECHANISMS) + " or a function epsilon -> "
                                       "mechanism")
    if not names and not factories:
        raise InvalidArgumentError("mechanisms", mechanisms, "at least one mechanism")
    return names, factories


def ratio_sweep(ns, ks, epsilons, mechanisms=("pf", "em"), *, weighting: str = "lattice",
                constraints: str = "regular", method: str = "auto",
                time_limit: float | None = None, workers: int = 1, dask_scheduler=None,
                cache_dir=None, show_progress: bool | None = None) -> ResultList:
    """Certified optimum and optimality ratios for every ``(n, k)`` in ``ns x ks`` and every
    epsilon (the curves of Figure 2): one :func:`ratio_cell` per point through
    :func:`optmech.sweep.run_sweep` (``workers``, ``dask_scheduler``, ``cache_dir``), with
    a progress bar over the solves.

    ``mechanisms``: built-in names (``"pf"``, ``"em"``, ``"rnm_laplace"``, ...), or your own
    mechanisms as functions ``epsilon -> mechanism`` (anything with ``pmf(scores)``, see
    :func:`~optmech.selection.mechanisms.as_mechanism`), in a list (labelled by the
    function's ``__name__``) or a dict ``{label: name or function}``.  Built-in ratios are
    computed inside the cells (cached, sent to workers); your mechanisms in this process,
    against the optima the cells certified.  Each curve's ``ratios`` has the built-in
    mechanisms first, then yours.  The curves come in a
    :class:`~lp_models.display.ResultList`: ``to_frame()`` gives one row per point.
    """
    from optmech.sweep import run_sweep

    check_choice(method, "method", METHODS)
    names, factories = split_mechanisms(mechanisms)
    cells, eps = sweep_cells(ns, ks, epsilons, sorted(set(names.values())), weighting,
                             constraints, method=method, time_limit=time_limit)
    results = run_sweep(ratio_cell, cells, workers=workers, dask_scheduler=dask_scheduler,
                        cache_dir=cache_dir, desc="lattice ratios", show_progress=show_progress)
    add_own_ratios(cells, results, names, factories, weighting,
                   lambda value, result: check_finite_result(value / result["total_error"],
                                                             "the optimality ratio"))
    return ResultList(RatioCurve(n=cell["n"], k=cell["k"], epsilons=eps.copy(),
                                 total_errors=np.array([r["total_error"] for r in block]),
                                 ratios={m: np.array([r["ratios"][m] for r in block])
                                         for m in [*names, *factories]})
                      for cell, block in sweep_blocks(cells, results, eps.size))


def add_own_ratios(cells: list[dict], results: list[dict], names: dict[str, str],
                   factories: dict[str, Callable], weighting: str, ratio) -> None:
    """Relabel the built-in ratios of each sweep result (``names``: label -> name computed
    in the cell) and add those of your mechanisms (``factories``: label -> function
    ``epsilon -> mechanism``), computed here: ``ratio(total error, result)`` (in place)."""
    for cell, result in zip(cells, results):
        result["ratios"] = {label: result["ratios"][name] for label, name in names.items()}
        for label, factory in factories.items():
            mechanism = _mechanism_at(factory(cell["epsilon"]), cell["epsilon"])
            value = total_error(mechanism, cell["n"], cell["k"], weighting)
            result["ratios"][label] = ratio(value, result)
