"""Argument checks shared by the lattice optimum and the optimality ratios."""

from __future__ import annotations

from lp_models.lattice import CONSTRAINTS, WEIGHTINGS
from lp_models.lattice.classes import LatticeClasses, lattice_classes, variable_count
from optmech.resources import Estimate, require
from optmech.validation import InvalidArgumentError, check_choice, check_integer, check_positive

__all__ = ["MAX_EPSILON", "MIN_EPSILON", "check_lattice", "lattice_estimate", "lattice_table"]

# Beyond this, e^-eps is below the smallest normal double (2.2e-308 at eps = 708.4): the
# probabilities of every item below the top lose their significant digits, and with them
# the certificate and the ratios (measured: PF's ratio came out as 0.982 at eps = 740).
MAX_EPSILON = 700.0
# Below this, e^-eps rounds to within 1e-9 of 1: the privacy rows tie every probability to
# its neighbours within HiGHS's tolerances, and no point is strictly feasible to repair.
MIN_EPSILON = 1e-9
# Beyond this n or k no class table fits (its keys are int64), and the closed forms in k
# (the chain dual's threshold) overflow a double: refused as an argument, not an overflow.
_LARGEST = 2**31 - 1
# Peak memory of the work done on a class table, (bytes per variable, fixed bytes), measured
# and rounded up: the recurrences alone (chain dual, ratios; n = k = 9, 10, 12), a HiGHS solve
# with row generation (the same sizes), or a certified bracket (419 MiB at n = k = 10, 530k
# variables; 4.1 GiB at n = k = 12, 9.1M variables: per variable plus the libraries).
_MEMORY = {"recurrence": (400, 0), "lp": (6000, 0), "bound": (600, 2 ** 28)}
# CPU seconds of the work on V variables, upper estimates from runs on a loaded 2-core
# machine: the recurrences 2e-5 s a variable; an LP solve (HiGHS simplex, row generation,
# certificate) 2e-4 V^1.2 s (measured 0.4 s at n = k = 7 (7,260 variables), 4.1 s at
# n = 20, k = 3 (5,530), 8.6 s at n = k = 8 (30,459), over 120 s at n = k = 9 (127,270));
# a bracket to relative width 1e-4 3e-4 s a variable (150 s at n = k = 10, 530k
# variables), times (1e-4 / tol)^0.3 for another width (5 s at n = k = 8 and 1e-3); and
# 0.15 s for every solve however small (a sweep of 48 cells of n, k <= 5 took 8.8 s).
_LP_SECONDS, _LP_POWER, _SOLVE_SECONDS = 2e-4, 1.2, 0.15
_RECURRENCE_SECONDS, _BOUND_SECONDS = 2e-5, 3e-4


def check_lattice(n, k, epsilon, weighting: str, constraints: str) -> tuple[int, int, float]:
    """``(n, k, epsilon)`` checked: ``n >= 2`` items, depth ``k >= 1``, ``epsilon > 0``, and
    a known weighting and constraint set."""
    # n = 1 or k = 0: every mechanism has zero error, the LP is trivial and ratios undefined.
    n = check_integer(n, "n", minimum=2, maximum=_LARGEST)
    k = check_integer(k, "k", minimum=1, maximum=_LARGEST)
    epsilon = check_positive(epsilon, "epsilon")
    if not MIN_EPSILON <= epsilon <= MAX_EPSILON:
        raise InvalidArgumentError("epsilon", epsilon, f"a number in [{MIN_EPSILON:g}, "
                                   f"{MAX_EPSILON:g}] (outside, e^-epsilon is 1 or 0 to "
                                   "double precision and the LP's certificate is lost)")
    check_choice(weighting, "weighting", WEIGHTINGS)
    check_choice(constraints, "constraints", CONSTRAINTS)
    return n, k, epsilon


def lattice_estimate(n: int, k: int, work: str = "recurrence", tol: float = 1e-4,
                     time_limit: float | None = None) -> Estimate:
    """Work and memory of ``work`` on the class table of ``(n, k)``: ``"recurrence"`` (the
    chain dual, the mechanisms' ratios), ``"lp"`` (an LP solved on it) or ``"bound"`` (a
    certified bracket to relative width ``tol``, stopped after ``time_limit`` wall seconds,
    so at most twice that in CPU seconds on 2 cores).  Module constants."""
    try:
        variables = float(variable_count(n, k))
    except (ValueError, OverflowError) as error:
        raise InvalidArgumentError("n, k", (n, k), f"a lattice that fits ({error})") from None
    per_variable, fixed = _MEMORY[work]
    seconds = {"recurrence": _RECURRENCE_SECONDS * variables,
               "lp": _SOLVE_SECONDS + _LP_SECONDS * variables ** _LP_POWER,
               "bound": _BOUND_SECONDS * variables * (1e-4 / tol) ** 0.3}[work]
    if time_limit is not None:
        seconds = min(seconds, 2.0 * time_limit)
    return Estimate(seconds, variables * per_variable + fixed, "n, k", (n, k))


def lattice_table(n: int, k: int, work: str = "recurrence") -> LatticeClasses:
    """The class table of the bounded lattice, or :class:`InvalidArgumentError` if it does not
    fit (int64 keys, int16 counts, the variable limit, or the budgets for the ``work``
    that follows: ``"recurrence"``, ``"lp"`` when an LP will be solved on it, or ``"bound"``
    for a certified bracket, whose time limit bounds its work; :func:`lattice_estimate`)."""
    estimate = lattice_estimate(n, k, work)
    require(estimate if work == "lp" else Estimate(0, estimate.nbytes, "n, k", (n, k)))
    try:
        return lattice_classes(n, k)
    except ValueError as error:
        raise InvalidArgumentError("n, k", (n, k), f"a lattice that fits ({error})") from None
