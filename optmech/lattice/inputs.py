"""Argument checks shared by the lattice optimum and the optimality ratios."""

from __future__ import annotations

from lp_models.lattice import CONSTRAINTS, WEIGHTINGS
from lp_models.lattice.classes import LatticeClasses, lattice_classes, variable_count
from optmech.resources import require_memory
from optmech.validation import InvalidArgumentError, check_choice, check_integer, check_positive

__all__ = ["MAX_EPSILON", "MIN_EPSILON", "check_lattice", "lattice_table"]

# Beyond this, e^-eps is below the smallest normal double (2.2e-308 at eps = 708.4): the
# probabilities of every item below the top lose their significant digits, and with them
# the certificate and the ratios (measured: PF's ratio came out as 0.982 at eps = 740).
MAX_EPSILON = 700.0
# Below this, e^-eps rounds to within 1e-9 of 1: the privacy rows tie every probability to
# its neighbours within HiGHS's tolerances, and no point is strictly feasible to repair.
MIN_EPSILON = 1e-9
# Peak memory of the work done on a class table, (bytes per variable, fixed bytes), measured
# and rounded up: the recurrences alone (chain dual, ratios; n = k = 9, 10, 12), a HiGHS solve
# with row generation (the same sizes), or a certified bracket (419 MiB at n = k = 10, 530k
# variables; 4.1 GiB at n = k = 12, 9.1M variables: per variable plus the libraries).
_MEMORY = {"recurrence": (400, 0), "lp": (6000, 0), "bound": (600, 2 ** 28)}


def check_lattice(n, k, epsilon, weighting: str, constraints: str) -> tuple[int, int, float]:
    """``(n, k, epsilon)`` checked: ``n >= 2`` items, depth ``k >= 1``, ``epsilon > 0``, and
    a known weighting and constraint set."""
    # n = 1 or k = 0: every mechanism has zero error, the LP is trivial and ratios undefined.
    n = check_integer(n, "n", minimum=2)
    k = check_integer(k, "k", minimum=1)
    epsilon = check_positive(epsilon, "epsilon")
    if not MIN_EPSILON <= epsilon <= MAX_EPSILON:
        raise InvalidArgumentError("epsilon", epsilon, f"a number in [{MIN_EPSILON:g}, "
                                   f"{MAX_EPSILON:g}] (outside, e^-epsilon is 1 or 0 to "
                                   "double precision and the LP's certificate is lost)")
    check_choice(weighting, "weighting", WEIGHTINGS)
    check_choice(constraints, "constraints", CONSTRAINTS)
    return n, k, epsilon


def lattice_table(n: int, k: int, work: str = "recurrence") -> LatticeClasses:
    """The class table of the bounded lattice, or :class:`InvalidArgumentError` if it does not
    fit (int64 keys, int16 counts, the variable limit, or the memory budget for the ``work``
    that follows: ``"recurrence"``, ``"lp"`` when an LP will be solved on it, or ``"bound"``
    for a certified bracket)."""
    try:
        variables = variable_count(n, k)
    except ValueError as error:     # pragma: no cover - n, k are checked integers
        raise InvalidArgumentError("n, k", (n, k), str(error)) from None
    per_variable, fixed = _MEMORY[work]
    require_memory(variables * per_variable + fixed, "n, k", (n, k))
    try:
        return lattice_classes(n, k)
    except ValueError as error:
        raise InvalidArgumentError("n, k", (n, k), f"a lattice that fits ({error})") from None
