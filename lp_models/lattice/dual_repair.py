"""Make row multipliers of the reduced lattice LP dual feasible by one sweep along the
privacy chains, so that their Lagrangian bound loses nothing to negative reduced costs.

Permute-and-flip paper, Appendix D; rows of :func:`lp_models.lattice.reduced_lattice_lp` (or
:func:`~lp_models.lattice.delta_lattice_lp`) in the variables of a
:class:`~lp_models.lattice.certificates.LatticeUnits`, bound of
:func:`lp_models.lattice.certificates.lagrangian_bound` (valid for any multipliers; this
module only makes it large).  Written for probabilities; in scaled units ``m_j`` is the
class-row coefficient and ``e^-eps`` the coefficient of each privacy row.

Given class multipliers ``y`` and monotonicity multipliers ``nu >= 0``, the privacy
multipliers are chosen along each chain ``v_0 -> v_1 -> ...`` (``v_{t+1}`` the target of
``v_t``'s privacy row):

    S_t = c_t - m_j(t) y_m(t) - (nu out of v_t) + (nu into v_t) + e^-eps mu_{t-1},
    mu_t = max(0, S_t - margin_t)   (0 at the chain's end, which has no row),

so the reduced cost ``r_t = S_t - mu_t`` is ``margin_t`` (``S_t`` at the end, or where
``S_t`` is below its margin): a positive ``S_t`` is passed on, shrunk by ``e^-eps``, instead
of being wasted.  The margin is a few times the rounding error of ``r_t``
(``lagrangian_bound`` lowers every ``r_t`` by that error before ``min(0, .)``), so a reduced
cost that is 0 in exact arithmetic does not turn into a shortfall ``-error / m_j``: with
``eps`` large the optimum is of order ``e^-eps`` and such shortfalls would swamp it (measured
before the margin: at n = k = 4 the certified bracket was 2.5e-5 wide at eps = 20 and below 0
from eps = 40).  A margin costs a relative ``1e-15`` of the multipliers passed on.

An ``S_t`` below its margin is first raised by lowering the multipliers ``nu`` of
monotonicity rows out of ``v_t`` (which moves the deficit, times the row's coefficient, to
their second variables; see :func:`_release`); a deficit ``S_t < 0`` left is covered by
lowering ``y``.  Left alone it costs ``-S_t / m_j(t)`` in the bound.  Lowering ``y`` of the class at
an earlier position ``t' <= t`` of the same chain by ``D`` raises ``S_t`` by
``e^{-eps (t - t')} m_j(t') D`` (the positions in between pass it on, since their ``S`` is
already made ``>= 0``) and costs ``D``, so the deficit is covered at the cost
``-S_t e^{eps (t - t')} / m_j(t')`` through the cheapest such position; with ``t' = t`` this
equals the deficit's own cost, so the sweep never does worse than leaving it, and one
lowering helps every chain through that class.  Positions are processed in order, all chains
at once (``2k + 1`` vectorised steps at most), and a final pass recomputes ``mu`` from the
lowered ``y``: ``y`` only went down, so every ``S`` only went up and every reduced cost is
``>= 0`` (up to rounding), i.e. the bound is ``sum_m y_m``.  Cost ``O(V)``.
"""

from __future__ import annotations

import numpy as np

from lp_models.lattice.certificates import UNIT, LatticeDual, LatticeUnits, rounding_terms

__all__ = ["repair_dual"]

# Margin of each reduced cost, in units of lagrangian_bound's own allowance for its rounding
# (the sweep's S_t and the bound's r_t are rounded independently).
_MARGIN = 4.0
# Sweeps that release monotonicity multipliers before y is lowered (see _release_pass).
_RELEASE_PASSES = 2


def repair_dual(units: LatticeUnits, cost: np.ndarray, y: np.ndarray,
                pairs: tuple[np.ndarray, np.ndarray], nu: np.ndarray) -> LatticeDual:
    """Multipliers with every reduced cost at least its rounding margin (see the module
    docstring) from class multipliers ``y`` and monotonicity multipliers ``nu`` on ``pairs``
    (clipped at 0)."""
    classes = units.classes
    num_vars = classes.num_variables
    nu = np.maximum(np.asarray(nu, dtype=float), 0.0)
    a, b = (np.asarray(p, dtype=np.int64) for p in pairs)
    cost = np.asarray(cost, dtype=float)
    base = cost.copy()
    magnitude = np.abs(cost)
    q = units.pair_coef(a, b) if a.size else 1.0
    if a.size:
        nu_in = np.bincount(b, weights=q * nu, minlength=num_vars)
        nu_out = np.bincount(a, weights=nu, minlength=num_vars)
        base += nu_in - nu_out
        magnitude += nu_in + nu_out
    allowance = _MARGIN * (rounding_terms(units, pairs) + 2.0) * UNIT * (1 + 1e-6)
    y = np.asarray(y, dtype=float).copy()
    coef, var_class = units.class_coef, classes.var_class
    prev, incoming = units.incoming
    if a.size:
        for _ in range(_RELEASE_PASSES):
            if not _release_pass(units, base, magnitude, allowance, y, a, b, q, nu):
                break
    with np.errstate(divide="ignore"):
        own_price = 1.0 / coef                    # inf where a coefficient underflowed
        growth = 1.0 / incoming
    carried = np.zeros(num_vars)       # mu of each variable's own row
    price = np.zeros(num_vars)         # cheapest cost per unit of deficit at this position
    source = np.zeros(num_vars, dtype=np.int64)   # class of that cheapest position
    for t, v in enumerate(units.layers):
        if t == 0:
            inflow = 0.0
            price[v], source[v] = own_price[v], var_class[v]
        else:
            p = prev[v]
            inflow = _at(incoming, v) * carried[p]
            inherited = price[p] * _at(growth, v)
            here = own_price[v] <= inherited
            price[v] = np.where(here, own_price[v], inherited)
            source[v] = np.where(here, var_class[v], source[p])
        s = base[v] - coef[v] * y[var_class[v]] + inflow
        margin = _margin(allowance, v, magnitude, coef[v] * y[var_class[v]], inflow, s)
        short = s < 0
        if short.any():
            drop = np.zeros(classes.num_classes)
            fixable = short & np.isfinite(price[v])
            need = (2 * margin - s)[fixable] * price[v[fixable]] * (1 + 1e-9)
            np.maximum.at(drop, source[v[fixable]], need)
            y -= drop
            s = np.maximum(base[v] - coef[v] * y[var_class[v]] + inflow,
                           np.where(short, margin, -np.inf))
        carried[v] = np.maximum(s - margin, 0.0)
    return _greedy(units, base, magnitude, allowance, y, pairs, nu)


def _release_pass(units, base, magnitude, allowance, y, a, b, q, nu) -> bool:
    """One sweep along the chains (``y`` fixed) that releases every ``S`` below its
    margin; True if any multiplier was lowered.  A release lowers ``S`` of other variables,
    possibly ones already swept, hence the passes."""
    coef, var_class = units.class_coef, units.classes.var_class
    prev, incoming = units.incoming
    carried = np.zeros(units.classes.num_variables)
    changed = False
    for t, v in enumerate(units.layers):
        inflow = _at(incoming, v) * carried[prev[v]] if t else 0.0
        s = base[v] - coef[v] * y[var_class[v]] + inflow
        margin = _margin(allowance, v, magnitude, coef[v] * y[var_class[v]], inflow, s)
        below = s < margin
        if below.any() and _release(v[below], (margin - s)[below], a, b, q, nu, base):
            changed = True
            s = base[v] - coef[v] * y[var_class[v]] + inflow
        carried[v] = np.maximum(s, 0.0)
    return changed


def _release(short: np.ndarray, deficit: np.ndarray, a, b, q, nu, base) -> bool:
    """Cover the deficits (below their margins) of the ``short`` variables by lowering the
    multipliers of their own monotonicity rows (``x[short] >= x[b]``), in place: each unit
    of ``nu`` taken off
    raises ``S`` of the short variable by 1 and lowers ``S`` of ``b`` by the row's
    coefficient, which ``b`` absorbs when it has a surplus (its cost passed on).  Cheaper than
    lowering ``y`` where the class-row coefficient of a variable is tiny: HiGHS drops matrix
    entries below 1e-12 (deep levels at large eps), so its multipliers leave such a variable
    short by that entry times ``y``, and covering it through ``y`` would cost the shortfall
    divided by the entry (measured at n = 3, k = 1, eps = 42.7 on the Δ-lattice: the whole
    bound)."""
    need = np.zeros(base.size)
    need[short] = deficit
    rows = np.flatnonzero((need[a] > 0) & (nu > 0))
    if not rows.size:
        return False
    available = np.bincount(a[rows], weights=nu[rows], minlength=base.size)
    share = np.minimum(need[a[rows]] / available[a[rows]], 1.0)
    cut = nu[rows] * share
    nu[rows] -= cut
    base += np.bincount(a[rows], weights=cut, minlength=base.size)
    base -= np.bincount(b[rows], weights=_at(q, rows) * cut, minlength=base.size)
    return True


def _margin(allowance, v, magnitude, class_term, inflow, s) -> np.ndarray:
    """The margin each reduced cost at ``v`` keeps: a few times ``lagrangian_bound``'s
    allowance for its rounding."""
    return _at(allowance, v) * (magnitude[v] + np.abs(class_term) + inflow
                                + np.maximum(s, 0.0))


def _at(values, index):
    """``values[index]`` for an array, ``values`` for a number."""
    return values[index] if np.ndim(values) else values


def _greedy(units, base, magnitude, allowance, y, pairs, nu) -> LatticeDual:
    """The final pass: ``mu_t = max(0, S_t - margin_t)`` along every chain for ``y``."""
    coef, var_class = units.class_coef, units.classes.var_class
    prev, incoming = units.incoming
    carried = np.zeros(units.classes.num_variables)
    for t, v in enumerate(units.layers):
        inflow = _at(incoming, v) * carried[prev[v]] if t else 0.0
        s = base[v] - coef[v] * y[var_class[v]] + inflow
        margin = _margin(allowance, v, magnitude, coef[v] * y[var_class[v]], inflow, s)
        carried[v] = np.maximum(s - margin, 0.0)
    source = units.privacy[0]
    return LatticeDual(y=y, mu=carried[source], pairs=pairs, nu=nu)
