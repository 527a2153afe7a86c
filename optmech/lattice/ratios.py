"""Optimality ratios: how far permute-and-flip, the exponential mechanism, report-noisy-max
(or any mechanism with a ``pmf``) are from the certified optimal regular mechanism.

Permute-and-flip paper, Section 5 (Figure 2): the ratio of a mechanism ``M`` is
``sum_q E[error of M on q] / sum_q E[error of the optimum on q]`` over the bounded lattice
``Q`` (each class counted with its multiplicity), from exact probabilities, not sampling.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from lp_models.lattice import CONSTRAINTS, WEIGHTINGS, class_weights
from lp_models.lattice_classes import LatticeClasses
from lp_models.lattice_recurrences import pf_lattice_probabilities
from optmech.lattice.inputs import check_lattice, lattice_table
from optmech.lattice.optimum import METHODS, LatticeOptimum, solve_lattice
from optmech.progress import progress
from optmech.selection.mechanisms import (
    ExponentialMechanism,
    PermuteAndFlip,
    ReportNoisyMax,
    SelectionMechanism,
)
from optmech.selection.noisy_max import (
    SUM_TOLERANCE,
    TAIL,
    IntegrationError,
    log_cdf,
    log_hazard,
    lower_quantile,
    quadrature_panels,
    upper_quantile,
)
from optmech.validation import InvalidArgumentError, check_choice, check_integer, check_positive

__all__ = [
    "RATIO_MECHANISMS",
    "RatioCurve",
    "class_errors",
    "optimality_ratio",
    "optimality_ratios",
    "ratio_cell",
    "ratio_sweep",
    "sweep_cells",
    "total_error",
]

RATIO_MECHANISMS = {"pf": lambda eps: PermuteAndFlip(eps),
                    "em": lambda eps: ExponentialMechanism(eps),
                    "rnm_laplace": lambda eps: ReportNoisyMax(eps, noise="laplace")}


def _rnm_laplace_level_probabilities(classes: LatticeClasses, scale: float,
                                     show_progress: bool | None = None) -> np.ndarray:
    """Report-noisy-max with Laplace noise on every class at once: ``P[c, j]`` is the
    probability of one particular item at level ``j`` (scores ``-2j``, noise scale ``scale``,
    both in units of Δ).

    The method of :func:`optmech.selection.noisy_max.noisy_max_pmf` (same helpers, same accuracy,
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
    n, k, _ = check_lattice(n, k, 1.0, weighting, "paper")
    classes = lattice_table(n, k) if classes is None else classes
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


def sweep_cells(ns, ks, epsilons, mechanisms, weighting: str, constraints: str, **fixed
                ) -> tuple[list[dict], np.ndarray]:
    """The checked cells of a ratio sweep, ``(n, k)`` in ``ns x ks`` outermost and epsilon
    innermost, each with the mechanisms, weighting, constraints and the ``fixed`` keyword
    arguments of its cell function; and the epsilon grid."""
    ns = [check_integer(v, "n", minimum=2) for v in np.atleast_1d(ns)]
    ks = [check_integer(v, "k", minimum=1) for v in np.atleast_1d(ks)]
    eps = np.array([check_positive(e, "epsilon") for e in np.atleast_1d(epsilons)])
    if not ns or not ks or eps.size == 0:
        raise InvalidArgumentError("ns, ks, epsilons", (ns, ks, eps), "non-empty lists")
    mechanisms = [check_choice(m, "mechanism", RATIO_MECHANISMS) for m in mechanisms]
    check_choice(weighting, "weighting", WEIGHTINGS)
    check_choice(constraints, "constraints", CONSTRAINTS)
    cells = [{"n": n, "k": k, "epsilon": float(e), "mechanisms": mechanisms,
              "weighting": weighting, "constraints": constraints, **fixed}
             for n in ns for k in ks for e in eps]
    return cells, eps


def ratio_sweep(ns, ks, epsilons, mechanisms=("pf", "em"), *, weighting: str = "lattice",
                constraints: str = "regular", method: str = "auto",
                time_limit: float | None = None, workers: int = 1, dask_scheduler=None,
                cache_dir=None, show_progress: bool | None = None) -> list[RatioCurve]:
    """Certified optimum and optimality ratios for every ``(n, k)`` in ``ns x ks`` and every
    epsilon (the curves of Figure 2): one :func:`ratio_cell` per point through
    :func:`optmech.sweep.run_sweep` (``workers``, ``dask_scheduler``, ``cache_dir``), with
    a progress bar over the solves."""
    from optmech.sweep import run_sweep

    check_choice(method, "method", METHODS)
    cells, eps = sweep_cells(ns, ks, epsilons, mechanisms, weighting, constraints,
                             method=method, time_limit=time_limit)
    results = run_sweep(ratio_cell, cells, workers=workers, dask_scheduler=dask_scheduler,
                        cache_dir=cache_dir, desc="lattice ratios", show_progress=show_progress)
    curves = []
    for start in range(0, len(cells), eps.size):
        block = results[start:start + eps.size]
        curves.append(RatioCurve(
            n=cells[start]["n"], k=cells[start]["k"], epsilons=eps.copy(),
            total_errors=np.array([r["total_error"] for r in block]),
            ratios={m: np.array([r["ratios"][m] for r in block])
                    for m in cells[start]["mechanisms"]}))
    return curves
