"""Make row multipliers of the reduced lattice LP dual feasible by one sweep along the
privacy chains, so that their Lagrangian bound loses nothing to negative reduced costs.

Permute-and-flip paper, Appendix D; units and rows of
:func:`lp_models.lattice.reduced_lattice_lp`, bound of
:func:`lp_models.lattice_certificates.lagrangian_bound` (valid for any multipliers; this
module only makes it large).

Given class multipliers ``y`` and monotonicity multipliers ``nu >= 0``, the privacy
multipliers are chosen along each chain ``v_0 -> v_1 -> ...`` (``v_{t+1} = next(v_t)``):

    S_t = c_t - m_j(t) y_m(t) - (nu out of v_t) + (nu into v_t) + e^-eps mu_{t-1},
    mu_t = max(0, S_t)   (0 at the chain's end, which has no row),

so the reduced cost ``r_t = S_t - mu_t`` is ``min(0, S_t)`` (``S_t`` at the end): a positive
``S_t`` is passed on, shrunk by ``e^-eps``, instead of being wasted.  A deficit ``S_t < 0``
costs ``-S_t / m_j(t)`` in the bound.  Lowering ``y`` of the class at an earlier position
``t' <= t`` of the same chain by ``D`` raises ``S_t`` by ``e^{-eps (t - t')} m_j(t') D`` (the
positions in between pass it on, since their ``S`` is already made ``>= 0``) and costs ``D``,
so the deficit is covered at the cost ``-S_t e^{eps (t - t')} / m_j(t')`` through the cheapest
such position; with ``t' = t`` this equals the deficit's own cost, so the sweep never does
worse than leaving it, and one lowering helps every chain through that class.  Positions are
processed in order, all chains at once (``2k + 1`` vectorised steps at most), and a final
pass recomputes ``mu`` from the lowered ``y``: ``y`` only went down, so every ``S`` only went
up and every reduced cost is ``>= 0`` (up to rounding), i.e. the bound is ``sum_m y_m``.
Cost ``O(V)``.
"""

from __future__ import annotations

import math

import numpy as np

from lp_models.lattice_certificates import LatticeDual
from lp_models.lattice_classes import LatticeClasses

__all__ = ["chain_layers", "repair_dual"]


def chain_layers(classes: LatticeClasses) -> tuple[np.ndarray, ...]:
    """The variables at each chain position: ``layers[t]`` lists every variable ``t`` steps
    from the start of its chain (the predecessor of each is in ``layers[t - 1]``)."""
    position = classes.chain_position
    order = np.argsort(position, kind="stable")
    bounds = np.searchsorted(position[order], np.arange(int(position.max()) + 2))
    return tuple(order[bounds[t]:bounds[t + 1]] for t in range(bounds.size - 1))


def repair_dual(classes: LatticeClasses, epsilon: float, cost: np.ndarray, y: np.ndarray,
                pairs: tuple[np.ndarray, np.ndarray], nu: np.ndarray,
                layers: tuple[np.ndarray, ...] | None = None) -> LatticeDual:
    """Multipliers with every reduced cost ``>= 0`` (see the module docstring) from class
    multipliers ``y`` and monotonicity multipliers ``nu`` on ``pairs`` (clipped at 0).
    ``layers``: :func:`chain_layers` of ``classes`` (computed when not given)."""
    layers = chain_layers(classes) if layers is None else layers
    decay, growth = math.exp(-epsilon), math.exp(epsilon)
    num_vars = classes.num_variables
    nu = np.maximum(np.asarray(nu, dtype=float), 0.0)
    a, b = (np.asarray(p, dtype=np.int64) for p in pairs)
    base = np.asarray(cost, dtype=float).copy()
    if a.size:
        base += np.bincount(b, weights=nu, minlength=num_vars)
        base -= np.bincount(a, weights=nu, minlength=num_vars)
    y = np.asarray(y, dtype=float).copy()
    count, var_class, prev = classes.var_count, classes.var_class, classes.var_prev
    carried = np.zeros(num_vars)       # S_t passed on, i.e. mu of each variable's own row
    price = np.zeros(num_vars)         # cheapest cost per unit of deficit at this position
    source = np.zeros(num_vars, dtype=np.int64)   # class of that cheapest position
    for t, v in enumerate(layers):
        own = 1.0 / count[v]
        if t == 0:
            inflow = 0.0
            price[v], source[v] = own, var_class[v]
        else:
            p = prev[v]
            inflow = decay * carried[p]
            inherited = price[p] * growth
            here = own <= inherited
            price[v] = np.where(here, own, inherited)
            source[v] = np.where(here, var_class[v], source[p])
        s = base[v] - count[v] * y[var_class[v]] + inflow
        short = s < 0
        if short.any():
            drop = np.zeros(classes.num_classes)
            np.maximum.at(drop, source[v[short]], -s[short] * price[v[short]] * (1 + 1e-12))
            y -= drop
            s = np.maximum(base[v] - count[v] * y[var_class[v]] + inflow, np.where(short, 0.0, -np.inf))
        carried[v] = np.maximum(s, 0.0)
    return _greedy(classes, layers, decay, base, y, pairs, nu)


def _greedy(classes, layers, decay, base, y, pairs, nu) -> LatticeDual:
    """The final pass: ``mu_t = max(0, S_t)`` along every chain for the given ``y``."""
    count, var_class, prev = classes.var_count, classes.var_class, classes.var_prev
    carried = np.zeros(classes.num_variables)
    for t, v in enumerate(layers):
        inflow = decay * carried[prev[v]] if t else 0.0
        carried[v] = np.maximum(base[v] - count[v] * y[var_class[v]] + inflow, 0.0)
    source = np.flatnonzero(classes.var_next >= 0)
    return LatticeDual(y=y, mu=carried[source], pairs=pairs, nu=nu)
