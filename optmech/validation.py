"""Input validation and result checks shared by every public function and the CLI.

Each ``check_*`` returns the cleaned value or raises :class:`InvalidArgumentError`, a
``ValueError`` that names the argument, the value it got and the allowed range; the CLI
turns it into one line on stderr and exit status 2 (with the argument spelt as the CLI
option, e.g. ``--eps`` for ``epsilon``).

Numbers are numbers: ``True``, ``"1.0"``, ``None`` and complex values are refused, not
converted (``float(True) == 1`` would silently turn a bug into a privacy parameter).

Results go through :func:`check_finite_result` before they are returned: a computation
whose true value does not fit in a double (or that produced NaN) raises
:class:`NonFiniteResultError` (an ``ArithmeticError``; CLI exit status 1) instead of
returning ``inf`` or ``nan``.
"""

from __future__ import annotations

import contextlib
import math
import numbers
import warnings

import numpy as np

__all__ = [
    "InvalidArgumentError",
    "NonFiniteResultError",
    "ResourceLimitError",
    "as_real_array",
    "check_choice",
    "check_finite",
    "check_finite_result",
    "check_integer",
    "check_nonnegative",
    "check_positive",
    "check_probability",
    "check_rng",
    "check_scores",
    "check_seed",
    "refuse_overflow",
]


class InvalidArgumentError(ValueError):
    """Bad input: ``argument`` got ``value`` outside ``allowed``."""

    def __init__(self, argument: str, value, allowed: str):
        self.argument = argument
        self.value = value
        self.allowed = allowed
        super().__init__(self._message())

    def _message(self) -> str:
        return f"{self.argument} must be {self.allowed}; got {_show(self.value)}"

    def renamed(self, argument: str) -> "InvalidArgumentError":
        """The same error for an argument spelt differently (e.g. the CLI's ``--eps``)."""
        self.argument = argument
        self.args = (self._message(),)
        return self


class ResourceLimitError(InvalidArgumentError):
    """Arguments whose estimated memory or work exceeds the budget (refused up front)."""

    def __init__(self, argument: str, value, estimate: str, budget: str):
        self.estimate = estimate
        self.budget = budget
        super().__init__(argument, value, f"small enough for the budget of {budget} "
                                          f"(this needs about {estimate})")


class NonFiniteResultError(ArithmeticError):
    """A result that is not a finite double (its true value overflows, or it is NaN)."""


def _show(value) -> str:
    if isinstance(value, np.ndarray):
        return f"array of shape {value.shape}"
    if isinstance(value, (np.floating, np.integer)):
        value = value.item()
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _is_real(value) -> bool:
    """A real number that is not a bool (Python or numpy int/float, ``Fraction``...)."""
    return (isinstance(value, (numbers.Real, np.floating, np.integer))
            and not isinstance(value, (bool, np.bool_)))


def _real(value, argument: str, allowed: str) -> float:
    if not _is_real(value):
        raise InvalidArgumentError(argument, value, allowed)
    try:
        return float(value)
    except OverflowError:           # an int or Fraction beyond the double range (whose
        return math.inf if value > 0 else -math.inf     # sign copysign cannot read either)


def check_finite(value, argument: str) -> float:
    """A finite real number."""
    x = _real(value, argument, "a finite number")
    if not math.isfinite(x):
        raise InvalidArgumentError(argument, value, "a finite number")
    return x


def check_positive(value, argument: str) -> float:
    """A finite number > 0 (privacy parameters, sensitivities, scales)."""
    allowed = "a finite number > 0"
    x = _real(value, argument, allowed)
    if not (math.isfinite(x) and x > 0):
        raise InvalidArgumentError(argument, value, allowed)
    return x


def check_nonnegative(value, argument: str) -> float:
    """A finite number >= 0."""
    allowed = "a finite number >= 0"
    x = _real(value, argument, allowed)
    if not (math.isfinite(x) and x >= 0):
        raise InvalidArgumentError(argument, value, allowed)
    return x


def check_probability(value, argument: str) -> float:
    """A number in [0, 1]."""
    allowed = "a number in [0, 1]"
    x = _real(value, argument, allowed)
    if not (0.0 <= x <= 1.0):
        raise InvalidArgumentError(argument, value, allowed)
    return x


def check_integer(value, argument: str, minimum: int | None = None,
                  maximum: int | None = None) -> int:
    """An integer in [minimum, maximum] (either end may be open)."""
    lo = "-inf" if minimum is None else str(minimum)
    hi = "inf" if maximum is None else str(maximum)
    allowed = f"an integer in [{lo}, {hi}]"
    if isinstance(value, bool):
        raise InvalidArgumentError(argument, value, allowed)
    if isinstance(value, (numbers.Integral, np.integer)):
        n = int(value)
    elif isinstance(value, (numbers.Real, np.floating)) and float(value).is_integer():
        n = int(value)
    else:
        raise InvalidArgumentError(argument, value, allowed)
    if (minimum is not None and n < minimum) or (maximum is not None and n > maximum):
        raise InvalidArgumentError(argument, value, allowed)
    return n


def check_choice(value, argument: str, choices) -> str:
    """One of a fixed set of names."""
    choices = tuple(choices)
    if value not in choices:
        raise InvalidArgumentError(argument, value, "one of " + ", ".join(map(str, choices)))
    return value


def as_real_array(values, argument: str, allowed: str) -> np.ndarray:
    """``values`` as a float array (any shape) if every entry is a real number (ints, floats,
    ``Fraction``) that fits in a double; bools, strings, ``None``, complex and ragged
    nestings raise :class:`InvalidArgumentError` with ``allowed``."""
    try:
        raw = np.asarray(values)
    except (TypeError, ValueError):
        raise InvalidArgumentError(argument, values, allowed) from None
    if raw.dtype.kind == "O":
        if not all(_is_real(v) for v in raw.ravel()):
            raise InvalidArgumentError(argument, values, allowed)
    elif raw.dtype.kind not in "iuf" or _holds_bool(values):
        # numpy turns [True, 1.5] into floats: a bool among numbers is refused here
        raise InvalidArgumentError(argument, values, allowed)
    try:
        return np.array(raw, dtype=float)
    except OverflowError:
        raise InvalidArgumentError(argument, values, allowed) from None


def _holds_bool(values) -> bool:
    """True if a (nested) list or tuple holds a bool anywhere."""
    return isinstance(values, (list, tuple)) and any(
        isinstance(v, (bool, np.bool_)) or _holds_bool(v) for v in values)


def check_scores(scores, argument: str = "scores") -> np.ndarray:
    """A non-empty one-dimensional array of finite floats (a copy).

    Accepts sequences and arrays of real numbers (ints, floats, ``Fraction``); refuses bools,
    strings, ``None``, complex and nested sequences, and values beyond the double range."""
    allowed = "a non-empty 1-D sequence of finite numbers"
    arr = as_real_array(scores, argument, allowed)
    if arr.ndim != 1 or arr.size == 0 or not np.isfinite(arr).all():
        raise InvalidArgumentError(argument, scores, allowed)
    return arr


def check_seed(seed, argument: str = "seed") -> int | None:
    """A seed for ``numpy.random.default_rng``: None or an integer >= 0."""
    if seed is None:
        return None
    return check_integer(seed, argument, minimum=0)


def check_rng(rng, argument: str = "rng") -> np.random.Generator:
    """A ``numpy.random.Generator`` from ``rng``: None (a fresh generator seeded by the OS),
    an integer seed >= 0 (reproducible), or a Generator (used as it is)."""
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or _is_real(rng):
        return np.random.default_rng(check_seed(rng, argument))
    raise InvalidArgumentError(argument, rng, "None, an integer seed >= 0 or a "
                                              "numpy.random.Generator")


@contextlib.contextmanager
def refuse_overflow(argument: str, value, allowed: str = "a value whose arithmetic stays "
                                                         "within the double range"):
    """Arithmetic on an argument's value inside the block: a result that overflows a
    double, or is NaN (numpy's overflow/invalid/divide warnings, ``FloatingPointError``,
    ``OverflowError``, ``ZeroDivisionError``), raises :class:`InvalidArgumentError` naming
    ``argument`` instead: bad input, refused up front, not a computation that failed.
    Underflow to 0 or a subnormal is not an error."""
    with np.errstate(over="raise", invalid="raise", divide="raise", under="ignore"), \
            warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        try:
            yield
        except (ArithmeticError, RuntimeWarning):
            raise InvalidArgumentError(argument, value, allowed) from None


def check_finite_result(value, what: str):
    """``value`` (a number or an array) if every entry is finite, else
    :class:`NonFiniteResultError` saying which result is not representable."""
    arr = np.asarray(value, dtype=float)
    if not np.isfinite(arr).all():
        raise NonFiniteResultError(f"{what} is not a finite double (its true value "
                                   "overflows, or the computation lost it)")
    return value
