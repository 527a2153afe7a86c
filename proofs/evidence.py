"""Deterministic text for evidence: exact values as they are, errors as bounds.

Evidence goes into ``docs/identities.md``, which must be byte-identical across runs and
machines.  Exact values (fractions, SymPy expressions, mpmath numbers at a fixed number of
digits) are printed as they are; floating-point errors, whose last digits can depend on the
platform, are printed as the power of ten above them (``< 1e-14``).
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import sympy

__all__ = ["bound", "exact", "mp", "sym"]


def bound(error: float) -> str:
    """``"= 0"`` for zero, else ``"< 1e-k"`` with ``1e-k`` the power of ten above ``error``."""
    error = abs(float(error))
    if error == 0.0:
        return "= 0"
    if not math.isfinite(error):
        return "= inf"
    return f"< 1e{math.floor(math.log10(error)) + 1}"


def exact(value: Fraction | int) -> str:
    """A fraction or integer, exactly."""
    return str(Fraction(value))


def mp(value, digits: int = 15) -> str:
    """An mpmath (or plain) number to ``digits`` significant digits."""
    return mpmath.nstr(mpmath.mpf(value), digits)


def sym(expr) -> str:
    """A SymPy expression in SymPy's own (deterministic) string form."""
    return sympy.sstr(expr)
