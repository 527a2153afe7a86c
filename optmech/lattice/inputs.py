"""Argument checks shared by the lattice optimum and the optimality ratios."""

from __future__ import annotations

from lp_models.lattice import CONSTRAINTS, WEIGHTINGS
from lp_models.lattice_classes import LatticeClasses, lattice_classes
from optmech.validation import InvalidArgumentError, check_choice, check_integer, check_positive

__all__ = ["check_lattice", "lattice_table"]


def check_lattice(n, k, epsilon, weighting: str, constraints: str) -> tuple[int, int, float]:
    """``(n, k, epsilon)`` checked: ``n >= 2`` items, depth ``k >= 1``, ``epsilon > 0``, and
    a known weighting and constraint set."""
    # n = 1 or k = 0: every mechanism has zero error, the LP is trivial and ratios undefined.
    n = check_integer(n, "n", minimum=2)
    k = check_integer(k, "k", minimum=1)
    epsilon = check_positive(epsilon, "epsilon")
    check_choice(weighting, "weighting", WEIGHTINGS)
    check_choice(constraints, "constraints", CONSTRAINTS)
    return n, k, epsilon


def lattice_table(n: int, k: int) -> LatticeClasses:
    """The class table of the bounded lattice, or :class:`InvalidArgumentError` if it does not
    fit in memory or int64."""
    try:
        return lattice_classes(n, k)
    except ValueError as error:
        raise InvalidArgumentError("n, k", (n, k), f"a lattice that fits ({error})") from None
