"""Worst-case expected error of EM and PF (McKenna & Sheldon 2020, Proposition 4).

Both mechanisms have their worst case on score vectors ``(c, ..., c, 0)`` with ``c <= 0``
(``n - 1`` items at ``c``).  With ``p = exp(epsilon c / (2 sensitivity))`` in (0, 1]:

    E[err EM] = (2Δ/ε) log(1/p) [1 - 1 / (1 + (n - 1) p)]                        (7)
    E[err PF] = (2Δ/ε) log(1/p) [1 - (1 - (1 - p)^n) / (n p)]                     (8)

and the worst case over all score vectors is the maximum over ``p``.  Equation (8) is
evaluated as ``-expm1(n log1p(-p)) / (n p)`` so that small ``p`` does not cancel.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize_scalar

from optmech.validation import check_choice, check_integer, check_positive

__all__ = ["WorstCase", "em_error_on_step", "pf_error_on_step", "worst_case_error"]


def _check(n, p, epsilon, sensitivity):
    n = check_integer(n, "n", minimum=1)
    epsilon = check_positive(epsilon, "epsilon")
    sensitivity = check_positive(sensitivity, "sensitivity")
    p = np.asarray(p, dtype=float)
    if not ((p > 0) & (p <= 1)).all():
        raise ValueError("p must lie in (0, 1]")
    return n, p, 2 * sensitivity / epsilon


def em_error_on_step(n: int, p, epsilon: float, sensitivity: float = 1.0):
    """Equation (7): EM's expected error on ``(c, ..., c, 0)`` with ``p = e^{εc/(2Δ)}``."""
    n, p, scale = _check(n, p, epsilon, sensitivity)
    return scale * -np.log(p) * (1 - 1 / (1 + (n - 1) * p))


def pf_error_on_step(n: int, p, epsilon: float, sensitivity: float = 1.0):
    """Equation (8): PF's expected error on ``(c, ..., c, 0)`` with ``p = e^{εc/(2Δ)}``."""
    n, p, scale = _check(n, p, epsilon, sensitivity)
    with np.errstate(divide="ignore"):
        survive = -np.expm1(n * np.log1p(-p))
    return scale * -np.log(p) * (1 - survive / (n * p))


@dataclass(frozen=True)
class WorstCase:
    """The maximiser ``p`` (and ``c``) of equation (7) or (8) and the maximal error."""

    mechanism: str
    n: int
    p: float
    c: float
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
    c = 2 * sensitivity / epsilon * result.x
    return WorstCase(mechanism, n, p, c, -float(result.fun))
