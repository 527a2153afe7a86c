"""The output space of top-T selection, enumerated, and the budget that bounds it.

An ordered output is a T-tuple ``(s_1, ..., s_T)`` of distinct candidates (0-based
indices); there are ``n! / (n - T)!`` of them.  A set output is a T-subset, ``C(n, T)`` of
them.  :func:`outcomes` lists them in the order of :func:`itertools.permutations` (ordered)
or :func:`itertools.combinations` (sets) of ``range(n)``: lexicographic, which is the order
every exact pmf of :mod:`optmech.topk` is aligned with.

The tuples stream from ``itertools`` straight into one array (``numpy.fromiter``): 1.0 CPU
s for the 5.1 million 5-tuples of 24 candidates, where a list of tuples first takes 3.5 s
(a numpy construction a position at a time took 0.8 s, not worth its code).  Results are
cached (read-only arrays) because the exact pmfs and the error measures of one ``(n, T)``
share them.

Enumeration limit.  An exact pmf holds, per score vector, a few doubles and the T indices
of each outcome; :func:`require_enumeration` estimates those bytes (and the CPU time) from
``n``, ``T`` and the number of score vectors, and refuses (an
:class:`~optmech.validation.InvalidArgumentError` naming the argument, the size and the
budget) what exceeds the memory or work budget of :mod:`optmech.resources`, and anything
beyond :data:`MAX_OUTCOMES` outcomes whatever the budget.
"""

from __future__ import annotations

import functools
import itertools
import math

import numpy as np

from optmech.resources import Estimate, require
from optmech.validation import InvalidArgumentError, check_integer

__all__ = ["MAX_OUTCOMES", "check_top", "enumeration_estimate", "outcome_count", "outcomes",
           "require_enumeration"]

#: Largest number of outcomes an exact pmf enumerates (e.g. n = 16, T = 6 has 5.8 million
#: ordered outcomes; n = 30, T = 5 has 17.1 million).
MAX_OUTCOMES = 1 << 25
# Bytes per outcome and per score vector in the exact computations (the outcome's scores
# and a mask of its candidates, doubles of pmf, utility and error), measured within a
# factor of 2 at n = 12, T = 4.
_BYTES_PER_CELL = 24
# CPU seconds per outcome, candidate position and score vector, rounded up from the same
# measurement (1.5e-8 s at n = 12, T = 4).
_SECONDS_PER_CELL = 5e-8


def check_top(top, n: int, argument: str = "top") -> int:
    """``top`` as an integer in ``[1, n]`` (refused otherwise)."""
    return check_integer(top, argument, minimum=1, maximum=n)


def outcome_count(n: int, top: int, ordered: bool = True) -> int:
    """``n! / (n - T)!`` ordered outcomes, or ``C(n, T)`` sets."""
    return math.perm(n, top) if ordered else math.comb(n, top)


def enumeration_estimate(n: int, top: int, rows: int = 1, ordered: bool = True,
                         argument: str = "scores") -> Estimate:
    """The CPU seconds and bytes of an exact computation on ``rows`` score vectors of ``n``
    candidates (module constants), naming ``argument``; one beyond :data:`MAX_OUTCOMES`
    outcomes is refused (``InvalidArgumentError``)."""
    count = outcome_count(n, top, ordered)
    if count > MAX_OUTCOMES:
        kind = "ordered outcomes" if ordered else "sets"
        raise InvalidArgumentError(
            argument, f"{n} candidates, top {top}",
            f"at most {MAX_OUTCOMES} {kind} to enumerate for an exact result (this has "
            f"{_magnitude(count)}); use Monte Carlo (estimate_error, sample) for larger "
            "sizes")
    cells = count * (n + top) * rows
    return Estimate(_SECONDS_PER_CELL * cells, _BYTES_PER_CELL * cells + 8 * top * count,
                    argument, f"{n} candidates, top {top}")


def _magnitude(count: int) -> str:
    """``count`` in digits, or as a power of ten from 10^15 on (Python refuses to print an
    integer of more than 4300 digits, and 1600 candidates, top 1600, have 1600! outcomes)."""
    if count < 10**15:
        return str(count)
    shift = max(count.bit_length() - 53, 0)          # log10 of a float-sized head
    return f"about 10^{math.log10(count >> shift) + shift * math.log10(2):.1f}"


def require_enumeration(n: int, top: int, rows: int = 1, ordered: bool = True,
                        argument: str = "scores") -> int:
    """The number of outcomes of an exact computation on ``rows`` score vectors of ``n``
    candidates, after refusing (``InvalidArgumentError`` naming ``argument``) one beyond
    :data:`MAX_OUTCOMES` outcomes or the memory/work budget
    (:func:`enumeration_estimate`)."""
    require(enumeration_estimate(n, top, rows, ordered, argument))
    return outcome_count(n, top, ordered)


@functools.lru_cache(maxsize=16)
def _cached(n: int, top: int, ordered: bool) -> np.ndarray:
    tuples = (itertools.permutations if ordered else itertools.combinations)(range(n), top)
    flat = np.fromiter(itertools.chain.from_iterable(tuples), dtype=np.int64,
                       count=outcome_count(n, top, ordered) * top)
    flat = flat.reshape(-1, top)
    flat.flags.writeable = False
    return flat


def outcomes(n: int, top: int, ordered: bool = True) -> np.ndarray:
    """Every output of top-``top`` selection among ``n`` candidates: an ``int64`` array of
    shape ``(m, top)``, one output per row, in :func:`itertools.permutations` order of
    ``range(n)`` (``ordered=True``, ``m = n!/(n-top)!``) or :func:`itertools.combinations`
    order (``ordered=False``, ``m = C(n, top)``).  Read-only (cached); refused beyond
    :data:`MAX_OUTCOMES` rows or the memory budget."""
    n = check_integer(n, "n", minimum=1)
    top = check_top(top, n)
    if not isinstance(ordered, (bool, np.bool_)):
        raise InvalidArgumentError("ordered", ordered, "True or False")
    require_enumeration(n, top, ordered=bool(ordered), argument="n")
    return _cached(n, top, bool(ordered))
