"""What a top-T output is worth: the joint utility, the canonical loss and the error
measures, for every enumerated output of every score vector at once.

Notation: ``q`` a score vector of ``n`` candidates, ``c_(1) >= ... >= c_(n)`` its scores
sorted in decreasing order, ``s = (s_1, ..., s_T)`` an output.

* Joint utility (Gillenwater, Joseph, Muñoz Medina, Ribero, *A Joint Exponential Mechanism
  for Differentially Private Top-k*, ICML 2022, arXiv:2201.12333: the utility of their
  joint exponential mechanism) ``u(s) = -max_i (c_(i) - q_{s_i})``; 0 for the true top T
  in decreasing order, and for every output whose i-th score ties with ``c_(i)``.
* Canonical loss (Shekelyan & Loukides, *Differentially Private Top-k Selection via
  Canonical Lipschitz Mechanism*, arXiv:2201.13376): of a set ``S``,
  ``l(S) = max(0, max_{j not in S} q_j - min_{i in S} q_i)``, the gap its worst member must
  close to the best non-member.  Their code (github.com/shekelyan/dptopk, mechanisms.py at
  c4c0c62) scores a set of class ``(h, t)``, ``h`` the leading sorted positions it holds
  and ``t`` its last position, by ``x_{h+1} - x_t`` in sorted scores: the same number,
  written here without the sort so that ties need no rule.
* Error measures (Gillenwater et al.'s experiments; their code, google-research's
  ``dp_topk/experiment.py``, functions ``linf_error``, ``l1_error`` and
  ``k_relative_error``): ``l_inf = max_i |c_(i) - q_{s_i}|``,
  ``l1 = sum_i |c_(i) - q_{s_i}|`` and ``k_relative = c_(T) - min_i q_{s_i}`` (never
  negative: of T distinct candidates one scores at most ``c_(T)``).  The first two compare
  positions, so the order of the output counts; for a mechanism that releases a set
  (``ordered=False``) the selected scores are compared in decreasing order, the matching
  that makes both smallest.

Scores are refused when their spread ``max - min`` is not a finite double (every quantity
here is a difference of two scores).
"""

from __future__ import annotations

import numpy as np

from optmech.selection.scores import check_score_rows
from optmech.validation import InvalidArgumentError

__all__ = ["MEASURES", "canonical_loss_rows", "check_measure", "check_topk_rows",
           "error_rows", "joint_utility_rows", "sorted_scores"]

#: The error measures, as :meth:`~optmech.topk.mechanisms.TopKMechanism.expected_error`
#: names them (``"l_1"`` is read as ``"l1"``, the spelling of the CLI's JSON key).
MEASURES = ("l1", "l_inf", "k_relative")


def check_measure(measure) -> str:
    """One of :data:`MEASURES` (``"l_1"`` accepted for ``"l1"``)."""
    name = "l1" if measure == "l_1" else measure
    if name not in MEASURES:
        raise InvalidArgumentError("measure", measure, "one of " + ", ".join(MEASURES))
    return name


def check_topk_rows(scores, top: int) -> tuple[np.ndarray, bool]:
    """``(rows, batch)`` as :func:`~optmech.selection.scores.check_score_rows`, refusing
    fewer than ``top`` candidates and a spread ``max - min`` beyond the double range."""
    rows, batch = check_score_rows(scores)
    if rows.shape[1] < top:
        raise InvalidArgumentError("scores", scores, f"at least top = {top} candidates per "
                                                     "score vector")
    with np.errstate(over="ignore"):
        spread = rows.max(axis=1) - rows.min(axis=1)
    if not np.isfinite(spread).all():
        raise InvalidArgumentError("scores", scores, "finite numbers whose spread max - min "
                                                     "is a finite double")
    return rows, batch


def sorted_scores(rows: np.ndarray) -> np.ndarray:
    """Each row's scores in decreasing order, ``c_(1) >= ... >= c_(n)``."""
    return -np.sort(-rows, axis=1)


def _selected(rows: np.ndarray, tuples: np.ndarray) -> np.ndarray:
    """``q_{s_i}``: shape ``(rows, outputs, T)``."""
    return rows[:, tuples]


def joint_utility_rows(rows: np.ndarray, tuples: np.ndarray) -> np.ndarray:
    """``u(s) = -max_i (c_(i) - q_{s_i})`` for every output (row of ``tuples``) of every
    score vector (row of ``rows``): shape ``(rows, outputs)``, every entry ``<= 0``."""
    top = tuples.shape[1]
    leaders = sorted_scores(rows)[:, None, :top]
    return -(leaders - _selected(rows, tuples)).max(axis=2)


def canonical_loss_rows(rows: np.ndarray, tuples: np.ndarray) -> np.ndarray:
    """``l(S) = max(0, max_{j not in S} q_j - min_{i in S} q_i)`` for every output (its set)
    of every score vector: shape ``(rows, outputs)``, every entry ``>= 0``."""
    count, n = rows.shape
    outside = np.ones((count, len(tuples), n), dtype=bool)
    outside[:, np.arange(len(tuples))[:, None], tuples] = False
    best_outside = np.where(outside, rows[:, None, :], -np.inf).max(axis=2)
    return np.maximum(best_outside - _selected(rows, tuples).min(axis=2), 0.0)


def error_rows(rows: np.ndarray, tuples: np.ndarray, measure: str,
               ordered: bool = True) -> np.ndarray:
    """The error ``measure`` (one of :data:`MEASURES`) of every output of every score
    vector, shape ``(rows, outputs)``; ``ordered=False`` compares the selected scores in
    decreasing order (a set has no order of its own)."""
    measure = check_measure(measure)
    top = tuples.shape[1]
    leaders = sorted_scores(rows)[:, None, :top]
    chosen = _selected(rows, tuples)
    if measure == "k_relative":
        return leaders[:, :, -1] - chosen.min(axis=2)
    if not ordered:
        chosen = -np.sort(-chosen, axis=2)
    gaps = np.abs(leaders - chosen)
    return gaps.max(axis=2) if measure == "l_inf" else gaps.sum(axis=2)
