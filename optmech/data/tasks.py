"""Mode and median selection on a histogram, and the exact error of private selection on them.

The permute-and-flip paper (McKenna & Sheldon 2020, Section 6 and Appendix G) compares
mechanisms on two selection tasks over the bins ``r = 0..n-1`` of a histogram ``h`` with
``N = sum(h)`` individuals.  Neighbouring datasets differ by adding or removing one
individual (unbounded DP).

**Mode** (:func:`mode_scores`): ``q_r = h_r``.  Adding or removing an individual changes
one count by 1, so the sensitivity is 1, and every score moves in the same direction, so
the scores are *monotonic*: PF and EM may use the exponent ``epsilon / Δ`` instead of
``epsilon / (2Δ)`` and RNM-Laplace the scale ``Δ / epsilon`` instead of ``2Δ / epsilon``
(``monotonic=True``).  The paper's mode experiment uses this variant: the authors' notebook
scores the mode as ``q = 2 h`` with exponent ``epsilon / 2``, the same probabilities as
exponent ``epsilon`` on ``h``; its expected errors are therefore in units of 2 counts.

**Median** (:func:`median_scores`): ``q_r = -c_r`` where ``c_r`` is the least number of
individuals to add or remove so that bin ``r`` holds the median.  The median of ``N``
sorted individuals is the lower median, the one of rank ``ceil(N / 2)`` (this is the
convention of the authors' ``median_quality``: ``searchsorted(cumsum(h), N / 2)``).  With
``A_r = h_0 + ... + h_r`` (individuals in bins ``<= r``) and ``L_r = A_r - h_r`` (in bins
``< r``), bin ``r`` holds it iff ``L_r < N/2 <= A_r``, i.e. ``2 A_r - N >= 0`` and
``2 L_r - N <= -1``.  Adding or removing one individual changes each of ``2 A_r - N`` and
``2 L_r - N`` by exactly one, and adding to bin ``r`` itself moves both the right way, so

    c_r = max(0, N - 2 A_r, 2 L_r - N + 1).

Below the median bin ``c_r = N - 2 A_r``, above it ``c_r = 2 L_r - N + 1``, and the median
bin has ``c_r = 0`` (the only zero).  Sensitivity 1 (each argument of the max moves by at
most one); *not* monotonic (an individual added in bin ``j`` raises the scores on one side
of the median and lowers them on the other), so ``monotonic=True`` is refused for the median.
:func:`median_scores_brute_force` recomputes ``c_r`` by breadth-first search over
add/remove moves, for tests on tiny histograms.

**Error.**  :func:`expected_errors` returns the exact ``E[q* - q_M]`` of permute-and-flip,
the exponential mechanism and report-noisy-max with Laplace noise from the foundation's
exact probability mass functions (no sampling).  :func:`epsilon_for_error` inverts it by
root finding, and :func:`budget_ratio` gives the privacy budget one mechanism needs to
match another's error (the paper's "EM would need 1.27 times larger privacy budget").
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass
from typing import Callable

import numpy as np

from optmech.data.datasets import DATASETS, check_histogram, load_histogram
from optmech.progress import progress
from optmech.validation import (
    InvalidArgumentError,
    check_choice,
    check_finite_result,
    check_positive,
    check_scores,
)

__all__ = [
    "MECHANISMS",
    "TASKS",
    "Task",
    "budget_ratio",
    "epsilon_for_error",
    "error_curves",
    "error_ratio",
    "expected_errors",
    "get_task",
    "histogram_settings",
    "median_scores",
    "median_scores_brute_force",
    "mode_scores",
]

MECHANISMS = ("pf", "em", "rnm_laplace")


def mode_scores(counts) -> np.ndarray:
    """Mode quality ``q_r = h_r`` (sensitivity 1, monotonic); see the module docstring."""
    return check_histogram(counts).astype(float)


def median_scores(counts) -> np.ndarray:
    """Median quality ``q_r = -max(0, N - 2 A_r, 2 L_r - N + 1)`` (sensitivity 1).

    ``A_r`` counts the individuals in bins ``<= r``, ``L_r`` those in bins ``< r``, ``N``
    all of them; ``-q_r`` is the least number of individuals to add or remove so that bin
    ``r`` holds the lower median (derivation in the module docstring).  Exact integers
    (returned as floats; exact below 2**53).
    """
    h = check_histogram(counts)
    total = int(h.sum())
    at_or_below = np.cumsum(h)
    below = at_or_below - h
    cost = np.maximum(0, np.maximum(total - 2 * at_or_below, 2 * below - total + 1))
    return (-cost).astype(float)


def _lower_median_bin(histogram: tuple[int, ...]) -> int:
    """Bin of the individual of rank ceil(N/2) in sorted order (N >= 1)."""
    rank = (sum(histogram) + 1) // 2
    seen = 0
    for r, count in enumerate(histogram):
        seen += count
        if seen >= rank:
            return r
    raise AssertionError("unreachable for N >= 1")


def median_scores_brute_force(counts, max_states: int = 200_000) -> np.ndarray:
    """Median scores by breadth-first search over datasets (a test reference).

    Starting from ``counts``, every move adds one individual to a bin or removes one from a
    non-empty bin; the score of bin ``r`` is minus the fewest moves after which the lower
    median (the individual of rank ``ceil(N/2)``, found by walking the sorted individuals)
    lies in bin ``r``.  Exponential in the histogram size: for tiny inputs only
    (``max_states`` bounds the search).
    """
    start = tuple(int(c) for c in check_histogram(counts))
    n = len(start)
    distance = {start: 0}
    found: dict[int, int] = {}
    queue = deque([start])
    while queue and len(found) < n:
        state = queue.popleft()
        d = distance[state]
        if sum(state) > 0:
            found.setdefault(_lower_median_bin(state), d)
        for r in range(n):
            for step in (1, -1):
                if state[r] + step < 0:
                    continue
                nxt = state[:r] + (state[r] + step,) + state[r + 1:]
                if nxt not in distance:
                    distance[nxt] = d + 1
                    queue.append(nxt)
        if len(distance) > max_states:
            raise InvalidArgumentError("counts", counts,
                                       f"a histogram small enough to search ({max_states} states)")
    return np.array([-found[r] for r in range(n)], dtype=float)


@dataclass(frozen=True)
class Task:
    """A selection task on histograms: its score builder and the score's properties.

    ``monotonic`` says whether the score function is monotonic, i.e. whether the
    monotonic mechanism variants (half the noise) are private for it.
    """

    #: The task's key in ``TASKS``: ``"mode"`` or ``"median"``.
    name: str
    #: The score of every bin of a histogram (counts per bin in, one score per bin out; higher is
    #: better).
    scores: Callable[[object], np.ndarray]
    #: Sensitivity Δ of the scores when one individual is added or removed (units of individuals; 1
    #: for both tasks).
    sensitivity: float
    #: Whether every score moves in the same direction between neighbouring datasets, so that the
    #: monotonic variants (half the noise) are private.
    monotonic: bool
    #: One line saying what a bin's score is, and its sensitivity.
    description: str


TASKS = {
    "mode": Task("mode", mode_scores, 1.0, True,
                 "bin count (sensitivity 1, monotonic)"),
    "median": Task("median", median_scores, 1.0, False,
                   "minus the individuals to add or remove so the bin holds the median "
                   "(sensitivity 1, not monotonic)"),
}


def get_task(name: str, monotonic: bool = False) -> Task:
    """The :class:`Task` called ``name``; ``monotonic=True`` is refused for a task whose
    scores are not monotonic (the mechanism would not have the privacy it claims)."""
    check_choice(name, "task", TASKS)
    task = TASKS[name]
    if monotonic and not task.monotonic:
        raise InvalidArgumentError("monotonic", True,
                                   f"False for task {name!r}: its scores are not monotonic")
    return task


def histogram_settings(datasets, tasks=("mode", "median")) -> list:
    """The DPBench histograms ``datasets`` (names in ``optmech.data.datasets.DATASETS``)
    under ``tasks``, as :class:`~optmech.selection.settings.Setting` objects (for
    :func:`optmech.privacy.noise_choice.compare`): a monotonic task's neighbours move one
    count (relation ``"histogram"``), the others' every score either way."""
    from optmech.selection.settings import Setting

    out = []
    for dataset in datasets:
        check_choice(dataset, "dataset", DATASETS)
        counts = load_histogram(dataset)
        for name in tasks:
            task = get_task(name)
            out.append(Setting(f"{dataset} {name}", task.scores(counts), task.sensitivity,
                               "histogram" if task.monotonic else "general"))
    return out


def expected_errors(scores, epsilon: float, *, sensitivity: float = 1.0,
                    monotonic: bool = False, mechanisms=MECHANISMS) -> dict[str, float]:
    """Exact expected error ``sum_r pmf_r (q* - q_r)`` of each mechanism at ``epsilon``.

    ``mechanisms`` are names of :func:`optmech.selection.mechanisms.make_mechanism`, and the
    keys of the result are those names in their one spelling (``rnm_laplace``, also when
    asked for as ``rnm-laplace``), or a dict ``{label: name}`` keyed by its labels
    (:func:`~optmech.selection.mechanisms.labelled_mechanisms`); the default is
    permute-and-flip (Gauss–Legendre pmf, ~1e-13), the exponential mechanism (softmax,
    ~1e-15 relative) and report-noisy-max with Laplace noise (piecewise quadrature, pmf
    within ~1e-12).  With ``monotonic=True`` every mechanism uses its monotonic variant.
    """
    q = check_scores(scores)
    # imported on use (CLI start-up)
    from optmech.selection.mechanisms import labelled_mechanisms, make_mechanism

    return {label: make_mechanism(name, epsilon, sensitivity, monotonic).expected_error(q)
            for label, name in labelled_mechanisms(mechanisms)}


def error_ratio(scores, epsilon: float, *, sensitivity: float = 1.0, monotonic: bool = False,
                mechanism: str = "em", reference: str = "pf") -> float:
    """``E[error of mechanism] / E[error of reference]`` at ``epsilon``, from log-space
    expected errors (:meth:`~optmech.selection.mechanisms.SelectionMechanism.log_expected_error`),
    so the ratio stays exact where both errors underflow to 0 (a best bin far ahead at large
    epsilon).  When every bin ties with the best both errors are exactly 0 and the ratio is
    1 by convention (the two mechanisms are equally accurate)."""
    q = check_scores(scores)
    from optmech.selection.mechanisms import make_mechanism

    logs = [make_mechanism(name, epsilon, sensitivity, monotonic).log_expected_error(q)
            for name in (mechanism, reference)]
    if logs[0] == logs[1] == -math.inf:
        return 1.0
    return check_finite_result(math.exp(logs[0] - logs[1]), "the error ratio")


def error_curves(scores, epsilons, *, sensitivity: float = 1.0, monotonic: bool = False,
                 mechanisms=MECHANISMS, desc: str | None = None) -> dict[str, np.ndarray]:
    """:func:`expected_errors` at every epsilon in ``epsilons`` (one array per mechanism,
    keyed as there), with a progress bar on stderr."""
    from optmech.selection.mechanisms import labelled_mechanisms

    q = check_scores(scores)
    mechanisms = dict(labelled_mechanisms(mechanisms))
    grid = [check_positive(e, "epsilon") for e in np.atleast_1d(epsilons)]
    rows = [expected_errors(q, e, sensitivity=sensitivity, monotonic=monotonic,
                            mechanisms=mechanisms)
            for e in progress(grid, total=len(grid), desc=desc)]
    return {label: np.array([row[label] for row in rows]) for label in mechanisms}


def epsilon_for_error(scores, target: float, *, mechanism: str = "em",
                      sensitivity: float = 1.0, monotonic: bool = False) -> float:
    """The epsilon at which ``mechanism`` has expected error ``target``.

    The expected error falls from ``q* - mean(q)`` (uniform choice, epsilon -> 0) to 0
    (epsilon -> inf), so ``target`` must lie strictly between.  The root is bracketed by
    factor-4 steps in epsilon and found by Brent's method on ``log(epsilon)`` with relative
    tolerance 1e-13, i.e. to the accuracy of the expected error itself.  (The errors of PF
    and EM decrease monotonically in epsilon, so the root is unique.)
    """
    q = check_scores(scores)
    target = check_positive(target, "target")
    ceiling = float(q.max() - q.mean())
    if not target < ceiling:
        raise InvalidArgumentError("target", target,
                                   f"an expected error in (0, {ceiling:g}), the error of a "
                                   "uniform choice")
    from optmech.selection.mechanisms import canonical_name

    mechanism = check_choice(canonical_name(mechanism), "mechanism", MECHANISMS)

    def excess(log_eps: float) -> float:
        return expected_errors(q, math.exp(log_eps), sensitivity=sensitivity,
                               monotonic=monotonic, mechanisms=(mechanism,))[mechanism] - target

    log_eps, value = 0.0, excess(0.0)
    step = math.log(4.0) if value > 0 else -math.log(4.0)
    for _ in range(60):
        if value == 0.0:
            return math.exp(log_eps)
        nxt = log_eps + step
        nxt_value = excess(nxt)
        if (nxt_value > 0) != (value > 0):
            break
        log_eps, value = nxt, nxt_value
    else:
        raise InvalidArgumentError("target", target,
                                   "an error reached for epsilon in [4^-60, 4^60]")
    lo, hi = sorted((log_eps, nxt))
    from scipy.optimize import brentq  # scipy only where it is used: the CLI starts fast

    return math.exp(brentq(excess, lo, hi, xtol=1e-14, rtol=1e-13))


def budget_ratio(scores, epsilon: float, *, sensitivity: float = 1.0, monotonic: bool = False,
                 mechanism: str = "em", reference: str = "pf") -> float:
    """``epsilon' / epsilon`` where ``mechanism`` at ``epsilon'`` has the expected error of
    ``reference`` at ``epsilon`` (the paper's 1.27 and 1.19 for EM against PF)."""
    target, = expected_errors(scores, epsilon, sensitivity=sensitivity, monotonic=monotonic,
                              mechanisms=(reference,)).values()
    return epsilon_for_error(scores, target, mechanism=mechanism, sensitivity=sensitivity,
                             monotonic=monotonic) / epsilon
