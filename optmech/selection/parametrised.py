"""Mechanisms as values, the way ``scipy.stats`` users expect them.

:class:`Parametrised` derives a mechanism's ``repr``, ``==`` and ``hash`` from one
declaration, :meth:`Parametrised._parameters`: its constructor arguments by name, as given
(defaults filled in).  The repr is a constructor call that ``eval`` rebuilds
(``PermuteAndFlip(epsilon=1.3, sensitivity=1.0, monotonic=False)``); two mechanisms are
equal when they are of the same class with equal arguments, so they can key a dict or sit
in a set.  Arguments are compared as given: ``PermuteAndFlip(1)`` equals
``PermuteAndFlip(1.0)``, but ``PermuteAndFlip(Fraction(13, 10))`` is not
``PermuteAndFlip(1.3)`` (their exact samplers, ``sample(..., exact=True)``, differ).

:func:`check_random_state` reads the ``random_state`` of ``rvs``: None (fresh entropy from
the operating system), an integer seed >= 0 or a ``numpy.random.Generator``.  A legacy
``numpy.random.RandomState`` is refused with a message saying what to pass instead: its
streams differ from a Generator's, so accepting it would either hide a second random
stream or give draws that do not match what the same ``RandomState`` gives elsewhere.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from optmech.validation import InvalidArgumentError, check_rng

__all__ = ["Parametrised", "check_random_state", "given"]


class Parametrised:
    """Mixin: ``repr``, ``==`` and ``hash`` from :meth:`_parameters` (module docstring)."""

    def _parameters(self) -> dict[str, Any]:
        """The constructor arguments by name, as given (defaults filled in)."""
        raise NotImplementedError

    def __repr__(self) -> str:
        arguments = ", ".join(f"{name}={value!r}" for name, value in self._parameters().items())
        return f"{type(self).__name__}({arguments})"

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._parameters() == other._parameters()

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(self._parameters().items())))


def given(value):
    """A constructor argument as it will be shown and compared: numpy scalars as Python
    numbers (``np.float64(1.3)`` -> ``1.3``), anything else as given."""
    return value.item() if isinstance(value, np.generic) else value


def check_random_state(random_state) -> np.random.Generator:
    """The generator of ``random_state`` (module docstring): None, an integer seed >= 0 or a
    ``numpy.random.Generator``; anything else raises
    :class:`~optmech.validation.InvalidArgumentError`."""
    if isinstance(random_state, np.random.RandomState):
        raise InvalidArgumentError(
            "random_state", random_state,
            "None, an integer seed >= 0 or a numpy.random.Generator (a legacy "
            "numpy.random.RandomState is not accepted: pass numpy.random.default_rng(seed))")
    return check_rng(random_state, "random_state")
