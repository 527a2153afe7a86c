"""The rows of the reduced lattice LP in the variables a certificate works in: probabilities,
or probabilities relative to permute-and-flip's.

Permute-and-flip paper, Section 5 and Appendix D; the LP is that of
:func:`lp_models.lattice.reduced_lattice_lp` (2Δ-lattice) or
:func:`lp_models.lattice.delta_lattice_lp` (Δ-lattice).  With a scale ``s_v > 0`` per
variable (``log_scale = log s``) the variable is ``z_v = x_v / s_v`` and each row is divided by
the scale of its first variable:

* class row ``c``: ``sum_v m_j s_v z_v = 1`` (coefficients :attr:`LatticeUnits.class_coef`);
* privacy row ``(a, b)``: ``z_a - e^-eps (s_b / s_a) z_b >= 0``;
* monotonicity row ``(a, b)``: ``z_a - (s_b / s_a) z_b >= 0``;
* the box ``0 <= z_v <= 1 / (m_j s_v)`` (:attr:`LatticeUnits.upper`; ``inf`` where that
  overflows — every feasible point lies in it, and a certificate only uses it where a reduced
  cost is negative).

Without a scale (``log_scale=None``) the variables are the probabilities themselves, the
coefficients ``m_j``, ``e^-eps`` and 1.  With PF's own probabilities as the scale
(:meth:`LatticeUnits.relative` on the 2Δ-lattice) PF is the point ``z = 1``, every privacy
and monotonicity coefficient is at most 1 (PF satisfies every row), and every one of them is
at least ``e^-eps``: a normal double for every ``eps <= 700``, while the probabilities
themselves span ``e^{-eps k}`` and fall below the smallest double once ``eps k`` exceeds
about 745 (on the Δ-lattice the scale is not a mechanism and some coefficients reach the
number of items; measured at n = k = 4, eps = 700: between ``e^-700`` and 4).  Feasibility of ``z`` is then checked *relative* to PF's
probabilities at every level, and absolute tolerances of a solver or a check mean relative
ones.  Coefficients ``m_j s_v`` of a class row that underflow are 0 (the term is below
``1e-308`` of the row's right-hand side).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from lp_models.lattice import (
    level_error,
    monotonicity_pair_blocks,
    privacy_pairs,
    scaled_coefficients,
)
from lp_models.lattice_classes import LatticeClasses
from lp_models.lattice_recurrences import pf_lattice_log_probabilities

__all__ = ["LatticeUnits", "chain_layers"]


@dataclass(frozen=True, eq=False)
class LatticeUnits:
    """The variables ``z_v = x_v / exp(log_scale[v])`` of the reduced LP on ``lattice`` (see
    the module docstring); ``log_scale=None`` means the probabilities themselves."""

    classes: LatticeClasses
    epsilon: float
    lattice: str = "2delta"
    log_scale: np.ndarray | None = None

    @classmethod
    def relative(cls, classes: LatticeClasses, epsilon: float,
                 lattice: str = "2delta") -> LatticeUnits:
        """Units relative to the probabilities of PF with the coins ``e^{-eps e_j}`` (level
        ``j``): ``e_j = j`` on the 2Δ-lattice, which is PF itself, and ``e_j = ceil(j / 2)``
        on the Δ-lattice, whose privacy rows raise an item two levels at a time: there the
        optimum's probabilities fall by ``e^-eps`` per two levels (with ``n = 2, k = 1`` it is
        randomised response, ``e^-eps`` at level 1), while PF's fall by ``e^{-eps / 2}`` per
        level, and in PF's units the optimum of a level-1 item would be ``e^{-eps / 2}``,
        below HiGHS's smallest matrix entry (1e-12) from eps = 55."""
        levels = np.arange(classes.k + 1)
        exponents = levels if lattice == "2delta" else (levels + 1) // 2
        level_error(lattice)
        return cls(classes, float(epsilon), lattice,
                   pf_lattice_log_probabilities(classes, epsilon, exponents))

    @property
    def scaled(self) -> bool:
        return self.log_scale is not None

    @cached_property
    def privacy(self) -> tuple[np.ndarray, np.ndarray, float | np.ndarray]:
        """``(source, target, coef)``: the privacy rows ``z[source] - coef z[target] >= 0``."""
        source, target = privacy_pairs(self.classes, self.lattice)
        return source, target, self.pair_coef(source, target, -self.epsilon)

    @cached_property
    def incoming(self) -> tuple[np.ndarray, float | np.ndarray]:
        """``(prev, coef)`` per variable: the source of the privacy row pointing at it (-1
        if none) and that row's coefficient (0 if none)."""
        source, target, coef = self.privacy
        prev = np.full(self.classes.num_variables, -1, dtype=np.int64)
        prev[target] = source
        if not self.scaled:
            return prev, coef
        incoming = np.zeros(self.classes.num_variables)
        incoming[target] = coef
        return prev, incoming

    def pair_coef(self, a: np.ndarray, b: np.ndarray, log_factor: float = 0.0
                  ) -> float | np.ndarray:
        """Coefficient of ``z[b]`` in a row ``x[a] - e^{log_factor} x[b] >= 0`` divided by
        ``s_a``: ``e^{log_factor} s_b / s_a`` (a number when unscaled)."""
        if not self.scaled:
            return math.exp(log_factor)
        return scaled_coefficients(self.log_scale, a, b, log_factor)

    def monotone_blocks(self):
        """Yield ``(a, b, coef)`` for the monotonicity rows ``z[a] - coef z[b] >= 0`` of the
        regular LP, block by block (:func:`lp_models.lattice.monotonicity_pair_blocks`)."""
        for a, b in monotonicity_pair_blocks(self.classes):
            yield a, b, self.pair_coef(a, b)

    @cached_property
    def scale(self) -> np.ndarray | None:
        """``s_v`` (0 where it underflows), or None when unscaled."""
        return None if not self.scaled else np.exp(self.log_scale)

    @cached_property
    def class_coef(self) -> np.ndarray:
        """``m_j s_v``: the coefficient of each variable in its class row."""
        count = self.classes.var_count
        return count if not self.scaled else count * self.scale

    @cached_property
    def upper(self) -> np.ndarray:
        """``1 / (m_j s_v)``: the box every feasible point lies in (``inf`` on overflow)."""
        count = self.classes.var_count
        if not self.scaled:
            return 1.0 / count
        with np.errstate(over="ignore"):
            return np.exp(-np.log(count) - self.log_scale)

    def probabilities(self, z: np.ndarray) -> np.ndarray:
        """The probabilities ``s z`` of a point (0 where they underflow)."""
        z = np.asarray(z, dtype=float)
        if not self.scaled:
            return z
        with np.errstate(divide="ignore"):
            return np.exp(self.log_scale + np.log(z))

    def variables(self, x: np.ndarray) -> np.ndarray:
        """``z = x / s`` for probabilities ``x`` (representable ones: ``s > 0``)."""
        x = np.asarray(x, dtype=float)
        return x if not self.scaled else x / self.scale

    @cached_property
    def layers(self) -> tuple[np.ndarray, ...]:
        """:func:`chain_layers` of these units' privacy rows."""
        return chain_layers(self)


def chain_layers(units: LatticeUnits) -> tuple[np.ndarray, ...]:
    """The variables at each position along the privacy chains of ``units.lattice`` (every
    variable is the source of at most one privacy row and the target of at most one, so the
    rows form disjoint chains): ``layers[t]`` lists every variable ``t`` rows from the start of
    its chain, and the predecessor of each is in ``layers[t - 1]``."""
    source, target, _ = units.privacy
    num_vars = units.classes.num_variables
    successor = np.full(num_vars, -1, dtype=np.int64)
    successor[source] = target
    has_prev = np.zeros(num_vars, dtype=bool)
    has_prev[target] = True
    layers = []
    current = np.flatnonzero(~has_prev)
    while current.size:
        layers.append(current)
        current = successor[current]
        current = current[current >= 0]
    return tuple(layers)
