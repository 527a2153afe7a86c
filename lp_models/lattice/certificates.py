"""Certificates for the reduced lattice LP that hold whatever produced the point: a lower
bound from *any* row multipliers, and a primal point checked against *every* row.

Permute-and-flip paper, Section 5 and Appendix D; the LP is
:func:`lp_models.lattice.reduced_lattice_lp` (2Δ-lattice) or
:func:`~lp_models.lattice.delta_lattice_lp` (Δ-lattice), in the variables of a
:class:`LatticeUnits`.  Nothing here calls a solver.

Units (:class:`LatticeUnits`).  ``x[m, j]`` is the probability of one item at level ``j`` in
class ``m``.  With a scale ``s_v > 0`` per variable (``log_scale = log s``) the variable is
``z_v = x_v / s_v`` and each row is divided by the scale of its first variable:

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
number of items; measured at n = k = 4, eps = 700: between ``e^-700`` and 4).  Feasibility
of ``z`` is then checked *relative* to the scale at every level, and absolute tolerances of
a solver or a check mean relative ones.  Coefficients ``m_j s_v`` of a class row that
underflow are 0 (the term is below ``1e-308`` of the row's right-hand side).  The formulas
below are written for probabilities; in scaled units every coefficient is the one above
(``m_j s_v`` for ``m_j``, the row's own coefficient for ``e^-eps`` and for the 1 of a
monotonicity row's second variable, ``1 / (m_j s_v)`` for the box).

Lower bound (:func:`lagrangian_bound`).  With multipliers ``y_m`` (free) on the class rows
``sum_j m_j x[m, j] = 1``, ``mu_s >= 0`` on the privacy rows ``x[s] - e^-eps x[next(s)] >= 0``
and ``nu_i >= 0`` on monotonicity rows ``x[a_i] - x[b_i] >= 0``, every feasible ``x``
satisfies

    c @ x >= c @ x - sum_m y_m (sum_j m_j x[m, j] - 1) - sum_s mu_s (row_s) - sum_i nu_i (row_i)
          =  sum_m y_m + r @ x,

    r_v = c_v - m_j y_m - mu_v + e^-eps mu_prev(v) - sum_{a_i = v} nu_i + sum_{b_i = v} nu_i,

because each subtracted row is zero (class rows) or a nonnegative multiple of a
nonnegative number.  Every feasible ``x`` also lies in the box ``0 <= x[m, j] <= 1/m_j`` (the
class rows and ``x >= 0`` imply it), so ``r @ x >= sum_v min(0, r_v) / m_j`` (a term with
``r_v >= 0`` is 0 even where the box is infinite) and

    OPT >= L(y, mu, nu) = sum_m y_m + sum_v min(0, r_v) / m_j

for *every* ``y``, every ``mu >= 0`` and every ``nu >= 0`` on *any* subset of the
monotonicity rows (a row left out has multiplier 0).  The rows of the regular LP that are
missing from ``pairs`` therefore need no care: the bound holds for the full LP, and for the
``"paper"`` constraint set (no monotonicity rows) as well.  Negative ``mu`` or ``nu`` are
clipped to 0 (which keeps the bound valid); nothing about how the multipliers were found
enters.  Rounding: each ``r_v`` is computed in double precision and lowered by a bound on its
rounding error (``(terms + 2) 2^-52`` times the sum of the magnitudes of its terms) before
``min(0, .)``, and both sums are lowered by ``N 2^-52`` times the sum of their absolute
terms, so the returned number is a lower bound on the optimum of the LP with its
coefficients as stored, not just up to rounding.  Cost ``O(V + rows given)``.

Primal check (:func:`primal_violation`): the largest violation of any class row, privacy
row, *every* monotonicity row of the regular LP (generated block by block by
:func:`lp_models.lattice.monotonicity_pair_blocks`, never all held at once: 62.8 million
at n = k = 12) and of ``x >= 0``, absolute (the values are probabilities).  The value of a
checked point is reported rounded upwards (:func:`objective_upper`), so that no lower bound
exceeds it by rounding.

Primal repair (:func:`repair_primal`): clip at 0, renormalise each class, then mix with a
strictly feasible anchor (e.g. ``(uniform + PF) / 2``) by the smallest common weight that
makes every privacy and monotonicity row hold.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from lp_models.lattice.classes import LatticeClasses
from lp_models.lattice.model import (
    level_error,
    monotonicity_pair_blocks,
    privacy_pairs,
    scaled_coefficients,
)
from lp_models.lattice.recurrences import pf_lattice_log_probabilities

__all__ = [
    "LatticeDual",
    "LatticeUnits",
    "chain_layers",
    "lagrangian_bound",
    "monotone_violation",
    "objective_upper",
    "primal_violation",
    "reduced_costs",
    "repair_primal",
    "rounding_terms",
]

UNIT = 2.0 ** -52


@dataclass(frozen=True, eq=False)
class LatticeUnits:
    """The variables ``z_v = x_v / exp(log_scale[v])`` of the reduced LP on ``lattice`` (see
    the module docstring); ``log_scale=None`` means the probabilities themselves."""

    #: The symmetry classes of the lattice vectors (``n`` items, depth ``k``).
    classes: LatticeClasses
    #: The privacy parameter ε of the LP's privacy rows.
    epsilon: float
    #: ``"2delta"`` (the paper's lattice) or ``"delta"``.
    lattice: str = "2delta"
    #: Natural logarithm of each variable's unit (one entry per variable of the reduced
    #: LP, finite where the probability itself underflows); ``None``: unscaled.
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


@dataclass(frozen=True, eq=False)
class LatticeDual:
    """Row multipliers of a reduced lattice LP: ``y`` on the class rows (one per class),
    ``mu`` on the privacy rows (one per row of
    :attr:`LatticeUnits.privacy`, in its order: for the 2Δ-lattice
    ``numpy.flatnonzero(classes.var_next >= 0)``), ``nu`` on the monotonicity rows
    ``x[pairs[0][i]] >= x[pairs[1][i]]``.  In the row order of
    :func:`lp_models.lattice.reduced_lattice_lp` with ``monotone_pairs=pairs`` they are
    ``numpy.concatenate([y, mu, nu])``."""

    #: Multipliers of the class rows (free), one per class.
    y: np.ndarray
    #: Multipliers of the privacy rows (``>= 0``; negative entries count as 0).
    mu: np.ndarray
    #: ``(a, b)``: the monotonicity rows ``x[a[i]] >= x[b[i]]`` the multipliers ``nu`` are on.
    pairs: tuple[np.ndarray, np.ndarray]
    #: Multipliers of those rows (``>= 0``; negative entries count as 0).
    nu: np.ndarray

    def row_multipliers(self) -> np.ndarray:
        """``concatenate([y, mu, nu])``: the multipliers in the LP's row order."""
        return np.concatenate([self.y, self.mu, self.nu])


def _check_dual(units: LatticeUnits, cost: np.ndarray, dual: LatticeDual) -> None:
    classes = units.classes
    num_privacy = units.privacy[0].size
    a, b = dual.pairs
    shapes = {"cost": (np.shape(cost), (classes.num_variables,)),
              "y": (np.shape(dual.y), (classes.num_classes,)),
              "mu": (np.shape(dual.mu), (num_privacy,)),
              "pairs[1]": (np.shape(b), np.shape(a)), "nu": (np.shape(dual.nu), np.shape(a))}
    for name, (got, want) in shapes.items():
        if got != want:
            raise ValueError(f"{name} has shape {got}, expected {want}")
    for name, v in (("cost", cost), ("y", dual.y), ("mu", dual.mu), ("nu", dual.nu)):
        if not np.isfinite(v).all():
            raise ValueError(f"{name} must be finite")


def rounding_terms(units: LatticeUnits, pairs) -> np.ndarray | float:
    """How many terms each reduced cost adds (cost, class term, at most one privacy row out
    and one in, and its monotonicity rows), for the rounding allowance."""
    a, b = (np.asarray(p) for p in pairs)
    if not a.size:
        return 4.0
    num_vars = units.classes.num_variables
    return 4.0 + np.bincount(a, minlength=num_vars) + np.bincount(b, minlength=num_vars)


def reduced_costs(units: LatticeUnits, cost: np.ndarray,
                  dual: LatticeDual) -> tuple[np.ndarray, np.ndarray]:
    """``(r, magnitude)``: the reduced cost ``r_v`` of every variable at ``dual`` (``mu`` and
    ``nu`` clipped at 0; see the module docstring) and the sum of the absolute values of the
    terms it adds, for rounding bounds."""
    _check_dual(units, cost, dual)
    classes = units.classes
    num_vars = classes.num_variables
    source, target, coef = units.privacy
    mu = np.maximum(dual.mu, 0.0)
    nu = np.maximum(dual.nu, 0.0)
    a, b = (np.asarray(p, dtype=np.int64) for p in dual.pairs)
    class_term = units.class_coef * dual.y[classes.var_class]
    r = cost - class_term
    magnitude = np.abs(cost) + np.abs(class_term)
    r[source] -= mu
    r[target] += coef * mu
    magnitude[source] += mu
    magnitude[target] += coef * mu
    if a.size:
        nu_out = np.bincount(a, weights=nu, minlength=num_vars)
        nu_in = np.bincount(b, weights=units.pair_coef(a, b) * nu, minlength=num_vars)
        r += nu_in - nu_out
        magnitude += nu_in + nu_out
    return r, magnitude


def lagrangian_bound(units: LatticeUnits, cost: np.ndarray, dual: LatticeDual) -> float:
    """A lower bound on the optimum of the reduced LP in ``units`` with cost ``cost`` (either
    constraint set, any monotonicity rows) from *any* multipliers: ``L(y, mu, nu)`` of the
    module docstring with rounding accounted for.  Raises ``ValueError`` on mismatched shapes
    or non-finite input."""
    r, magnitude = reduced_costs(units, cost, dual)
    terms = rounding_terms(units, dual.pairs)
    rounding = (terms + 2.0) * UNIT * magnitude * (1 + 1e-6)
    short = np.minimum(r - rounding, 0.0)
    negative = short < 0
    shortfall = short[negative] * units.upper[negative]
    shortfall *= 1 + 2 * UNIT                               # the products' rounding
    total_y = float(dual.y.sum()) - dual.y.size * UNIT * float(np.abs(dual.y).sum())
    total_short = float(shortfall.sum()) * (1 + shortfall.size * UNIT)
    return total_y + total_short - 4 * UNIT * (abs(total_y) + abs(total_short))


def objective_upper(cost: np.ndarray, x: np.ndarray) -> float:
    """``cost @ x`` rounded upwards: at least the exact sum of the exact products of the
    stored numbers.  The rounded products are summed by ``math.fsum`` (correctly rounded)
    and the sum is raised by a bound on both roundings (``2^-52`` of the sum and of the
    products' magnitudes), so that a certified lower bound on the optimum never exceeds
    the value of a feasible point by rounding (measured before: n = 3, k = 2,
    eps = 4.05e-9, a lower bound one ulp above the value)."""
    products = np.asarray(cost, dtype=float) * np.asarray(x, dtype=float)
    total = math.fsum(products)
    error = UNIT * (abs(total) + 2.0 * float(np.abs(products).sum()))
    return math.nextafter(total + error, math.inf)


def monotone_violation(units: LatticeUnits, z: np.ndarray) -> float:
    """Largest ``coef z[b] - z[a]`` over every monotonicity row ``z[a] - coef z[b] >= 0`` of
    the regular LP (0 or negative when all hold), checked block by block."""
    worst = 0.0
    for a, b, coef in units.monotone_blocks():
        if a.size:
            worst = max(worst, float((coef * z[b] - z[a]).max()))
    return worst


def primal_violation(units: LatticeUnits, z: np.ndarray, regular: bool) -> float:
    """Largest absolute violation at ``z`` of any row of the reduced LP in ``units`` (class
    rows, privacy rows, every monotonicity row when ``regular``) or of its box."""
    classes = units.classes
    z = np.asarray(z, dtype=float)
    if z.shape != (classes.num_variables,) or not np.isfinite(z).all():
        raise ValueError(f"x must be {classes.num_variables} finite numbers")
    totals = np.bincount(classes.var_class, weights=units.class_coef * z,
                         minlength=classes.num_classes)
    source, target, coef = units.privacy
    parts = [float(np.abs(totals - 1.0).max()),
             float((coef * z[target] - z[source]).max(initial=0.0)),
             float(-z.min()), float((z - units.upper).max())]
    if regular:
        parts.append(monotone_violation(units, z))
    return max(0.0, *parts)


def _renormalised(units: LatticeUnits, z: np.ndarray) -> np.ndarray:
    """``z`` divided per class by its class row's value (every class row then holds)."""
    classes = units.classes
    totals = np.bincount(classes.var_class, weights=units.class_coef * z,
                         minlength=classes.num_classes)
    return z / totals[classes.var_class]


def _lifted(units: LatticeUnits, z: np.ndarray, rounding: float, lift: float,
            rounds: int = 8) -> np.ndarray:
    """Raise ``z[a]`` to ``coef z[b]`` on every monotonicity row violated by more than
    ``rounding`` and at most ``lift`` times its two terms, renormalise, and repeat (at most
    ``rounds`` times, until none is)."""
    for _ in range(rounds):
        raised = False
        for a, b, coef in units.monotone_blocks():
            second = coef * z[b]
            excess = second - z[a]
            scale = z[a] + second
            bad = (excess > rounding * scale) & (excess <= lift * scale)
            if bad.any():
                np.maximum.at(z, a[bad], second[bad])
                raised = True
        if not raised:
            break
        z = _renormalised(units, z)
    return z


def repair_primal(units: LatticeUnits, z: np.ndarray, anchor: np.ndarray,
                  regular: bool, rounding: float = 0.0,
                  lift: float = 0.0) -> np.ndarray | None:
    """Make ``z`` satisfy every row exactly: clip, renormalise per class, then mix with the
    strictly feasible ``anchor`` by the smallest weight that removes the largest relative
    violation of a privacy row or of a monotonicity row (every one when ``regular``, block by
    block).  Violations up to ``rounding`` times the sum of a row's two terms are left: they
    are rounding of terms that are equal at a tight row (say ``rounding = 8 * 2^-52``).
    With ``lift > 0`` monotonicity rows violated by at most ``lift`` times their terms are
    first made to hold by raising their first variable (and renormalising): a solver's
    tolerance leaves tight rows violated by ~1e-10, which mixing would repair only at the
    cost of the anchor's slack on that row, tiny where two probabilities differ by
    ``O(e^-eps)`` (measured at n = k = 4, eps = 21.2: 10% of the objective).  The privacy
    rows must have slack for that (a solver's point of rows tightened by more than
    ``lift``).  Returns None if the anchor does not meet a violated row strictly (then no mixing
    helps)."""
    z = _renormalised(units, np.maximum(np.asarray(z, dtype=float), 0.0))
    if regular and lift > 0:
        z = _lifted(units, z, rounding, lift)

    def rows():
        yield units.privacy
        if regular:
            yield from units.monotone_blocks()

    theta = 0.0
    for a, b, coef in rows():
        second = coef * z[b]
        row_z = z[a] - second
        bad = row_z < -rounding * (z[a] + second)
        if bad.any():
            row_coef = coef[bad] if np.ndim(coef) else coef
            row_anchor = anchor[a[bad]] - row_coef * anchor[b[bad]]
            if (row_anchor <= 0).any():
                return None
            need = -row_z[bad] / (row_anchor - row_z[bad])
            theta = max(theta, float(need.max()))
    if theta > 0:
        theta = min(1.0, theta * (1 + 1e-9) + 1e-16)
        z = (1 - theta) * z + theta * anchor
    return z
