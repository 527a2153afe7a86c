"""Input validation shared by every public function and the CLI.

Each check returns the cleaned value or raises :class:`InvalidArgumentError`, a
``ValueError`` that names the argument, the value it got and the allowed range; the CLI
turns it into one line on stderr and exit status 2.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

__all__ = [
    "InvalidArgumentError",
    "check_choice",
    "check_finite",
    "check_integer",
    "check_nonnegative",
    "check_positive",
    "check_probability",
    "check_scores",
]


class InvalidArgumentError(ValueError):
    """Bad input: ``argument`` got ``value`` outside ``allowed``."""

    def __init__(self, argument: str, value, allowed: str):
        self.argument = argument
        self.value = value
        self.allowed = allowed
        super().__init__(f"{argument} must be {allowed}; got {_show(value)}")


def _show(value) -> str:
    if isinstance(value, np.ndarray):
        return f"array of shape {value.shape}"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _real(value, argument: str, allowed: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.floating, np.integer)):
        try:
            value = float(value)
        except (TypeError, ValueError):
            raise InvalidArgumentError(argument, value, allowed) from None
    return float(value)


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


def check_scores(scores, argument: str = "scores") -> np.ndarray:
    """A non-empty one-dimensional array of finite floats (a copy)."""
    allowed = "a non-empty 1-D sequence of finite numbers"
    try:
        arr = np.array(scores, dtype=float)
    except (TypeError, ValueError):
        raise InvalidArgumentError(argument, scores, allowed) from None
    if arr.ndim != 1 or arr.size == 0 or not np.isfinite(arr).all():
        raise InvalidArgumentError(argument, scores, allowed)
    return arr
