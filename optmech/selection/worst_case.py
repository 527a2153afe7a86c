"""Worst-case expected error of EM and PF (McKenna & Sheldon 2020, Proposition 4).

Both mechanisms have their worst case on score vectors ``(c, ..., c, 0)`` with ``c <= 0``
(``n - 1`` items at ``c``).  With ``p = exp(epsilon c / (2 sensitivity))`` in (0, 1]:

    E[err EM] = (2Δ/ε) log(1/p) [1 - 1 / (1 + (n - 1) p)]                        (7)
    E[err PF] = (2Δ/ε) log(1/p) [1 - (1 - (1 - p)^n) / (n p)]                     (8)

and the worst case over all score vectors is the maximum over ``p``.

Both brackets are evaluated without cancellation (relative error a few ulps for every
``p`` in (0, 1]): (7) as ``(n-1)p / (1 + (n-1)p)``; (8) as
``1 + expm1(n log1p(-p)) / (n p)`` when ``n p >= 1/2`` and otherwise by the alternating
series ``sum_{j>=1} (-1)^{j+1} C(n-1, j) p^j / (j+1)`` (the expansion of
``1 - integral_0^1 (1 - p t)^{n-1} dt``), whose terms shrink by a factor below ``n p``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize_scalar

from optmech.validation import InvalidArgumentError, check_choice, check_integer, check_positive

__all__ = ["WorstCase", "em_error_on_step", "pf_error_on_step", "worst_case_error"]


def _check(n, p, epsilon, sensitivity):
    n = check_integer(n, "n", minimum=1)
    epsilon = check_positive(epsilon, "epsilon")
    sensitivity = check_positive(sensitivity, "sensitivity")
    p = np.asarray(p, dtype=float)
    if not ((p > 0) & (p <= 1)).all():
        raise InvalidArgumentError("p", p, "numbers in (0, 1]")
    return n, p, 2 * sensitivity / epsilon


def _pf_bracket(n: int, p: np.ndarray) -> np.ndarray:
    """``1 - (1 - (1 - p)^n) / (n p)``, the bracket of equation (8), without cancellation."""
    small = n * p < 0.5
    with np.errstate(divide="ignore"):
        out = 1 + np.expm1(n * np.log1p(-p)) / (n * p)
    if small.any():
        ps = p[small]
        term = np.ones_like(ps)  # C(n-1, j) p^j, starting at j = 0
        total = np.zeros_like(ps)
        for j in range(1, min(n, 60)):
            term = term * (n - j) / j * ps
            total += (-1) ** (j + 1) * term / (j + 1)
        out[small] = total
    return out


def em_error_on_step(n: int, p, epsilon: float, sensitivity: float = 1.0):
    """Equation (7): EM's expected error on ``(c, ..., c, 0)`` with ``p = e^{εc/(2Δ)}``."""
    n, p, scale = _check(n, p, epsilon, sensitivity)
    return scale * -np.log(p) * ((n - 1) * p / (1 + (n - 1) * p))


def pf_error_on_step(n: int, p, epsilon: float, sensitivity: float = 1.0):
    """Equation (8): PF's expected error on ``(c, ..., c, 0)`` with ``p = e^{εc/(2Δ)}``."""
    n, p, scale = _check(n, p, epsilon, sensitivity)
    return scale * -np.log(p) * _pf_bracket(n, np.atleast_1d(p)).reshape(p.shape)


@dataclass(frozen=True)
class WorstCase:
    """The maximiser ``p`` (and ``c``) of equation (7) or (8) and the maximal error."""

    #: ``"em"`` (equation (7)) or ``"pf"`` (equation (8)).
    mechanism: str
    #: Number of candidates (>= 1).
    n: int
    #: The maximiser ``p = exp(epsilon c / (2 sensitivity))``, in (0, 1] (1 for n = 1).
    p: float
    #: The score of the ``n - 1`` other candidates in the worst case ``(c, ..., c, 0)``:
    #: ``c = 2 sensitivity log(p) / epsilon <= 0`` (units of the scores).
    c: float
    #: The largest expected error over all score vectors (units of the scores, >= 0; about 1e-10
    #: relative).
    error: float


def worst_case_error(mechanism: str, n: int, epsilon: float,
                     sensitivity: float = 1.0) -> WorstCase:
    """Maximise equation (7) (``"em"``) or (8) (``"pf"``) over ``p`` in (0, 1].

    Bounded scalar search over ``log p`` in [-50, 0] (the error tends to 0 at both ends);
    the result is accurate to about 1e-10 relative.
    """
    check_choice(mechanism, "mechanism", ("em", "pf"))
    n = check_integer(n, "n", minimum=1)
    formula = em_error_on_step if mechanism == "em" else pf_error_on_step
    if n == 1:
        return WorstCase(mechanism, 1, 1.0, 0.0, 0.0)
    result = minimize_scalar(lambda lp: -float(formula(n, math.exp(lp), epsilon, sensitivity)),
                             bounds=(-50.0, 0.0), method="bounded",
                             options={"xatol": 1e-12})
    p = math.exp(result.x)
    c = float(2 * sensitivity / epsilon * result.x)
    return WorstCase(mechanism, n, p, c, -float(result.fun))
