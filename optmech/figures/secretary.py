"""Figures of the private secretary paper (Figures 1-6 of Grining et al.,
arXiv:2005.01586v4) and the optimal private rule against the best p-mix.

Figures 1-6 are the paper's asymptotic (n -> infinity) curves under d_l; Figures 4-6 also
show the exact values at finite n (dashed) from :mod:`optmech.secretary.privacy`.
"""

from __future__ import annotations

import math

import numpy as np

from optmech.figures import new_figure
from optmech.progress import progress
from optmech.secretary import (
    a_coefficients,
    asymptotic_delta,
    asymptotic_epsilon,
    asymptotic_largest_p,
    compare_with_pmix,
    pmix_delta,
    pmix_epsilon,
    pmix_largest_p,
)

__all__ = [
    "boundaries_by_l_figure",
    "boundaries_by_p_figure",
    "delta_vs_p_figure",
    "epsilon_vs_p_figure",
    "optimal_vs_pmix_figure",
    "p_vs_epsilon_figure",
    "privacy_region_figure",
    "rank_distributions_figure",
]


def _epsilon_axis(l: int, points: int = 200) -> np.ndarray:
    """ε from 0 to a little past ln(1/a_{l+1}), where the asymptotic δ reaches 0."""
    top = -math.log(float(a_coefficients(np.array([l + 1]))[0]))
    return np.linspace(0.0, 1.15 * top, points)


def _boundary(ax, p: float, l: int, **style):
    eps = _epsilon_axis(l)
    ax.plot(eps, [asymptotic_delta(p, e, l) for e in eps], **style)


def _label_region(ax):
    ax.set_xlabel("ε")
    ax.set_ylabel("δ")
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)


def privacy_region_figure(p: float = 0.5, l: int = 1):
    """Figure 1: the asymptotic region of (ε, δ) in which the p-mix is (ε, δ)-DP
    (above ``δ = (p/e)(1 - a_{l+1} e^ε)``, Corollary 2)."""
    fig, axes = new_figure()
    ax = axes[0, 0]
    eps = _epsilon_axis(l)
    boundary = np.array([asymptotic_delta(p, e, l) for e in eps])
    ax.fill_between(eps, boundary, p / math.e * 1.1, color="tab:blue", alpha=0.3,
                    label="(ε, δ)-DP")
    ax.plot(eps, boundary, color="tab:blue")
    ax.set_title(f"Fig. 1: asymptotic privacy region, p = {p:g}, l = {l}")
    _label_region(ax)
    ax.legend()
    return fig


def _boundaries_figure(curves, title):
    """One panel with the region boundary of each ``(p, l, label)`` in ``curves``."""
    fig, axes = new_figure()
    ax = axes[0, 0]
    for p, l, label in curves:
        _boundary(ax, p, l, label=label)
    ax.set_title(title)
    _label_region(ax)
    ax.legend()
    return fig


def boundaries_by_p_figure(l: int = 1, ps=(0.2, 0.4, 0.6, 0.8, 1.0)):
    """Figure 2: boundaries of the asymptotic regions for one l and several p."""
    return _boundaries_figure([(p, l, f"p = {p:g}") for p in ps],
                              f"Fig. 2: region boundaries, l = {l}")


def boundaries_by_l_figure(p: float = 1.0, ls=(1, 2, 3, 4, 5)):
    """Figure 3: boundaries of the asymptotic regions for one p and several l."""
    return _boundaries_figure([(p, l, f"l = {l}") for l in ls],
                              f"Fig. 3: region boundaries, p = {p:g}")


def _pmix_curve_figure(xs, asymptotic, exact, ns, xlabel, ylabel, title):
    """One panel: the asymptotic curve ``asymptotic(x)`` and the exact finite-n curves
    ``exact(n, x)`` for each ``n`` in ``ns``."""
    fig, axes = new_figure()
    ax = axes[0, 0]
    ax.plot(xs, [asymptotic(x) for x in xs], label="asymptotic")
    for n in ns:
        ax.plot(xs, [exact(n, x) for x in xs], linestyle="--", label=f"exact, n = {n}")
    ax.set(xlabel=xlabel, ylabel=ylabel, title=title)
    ax.legend()
    return fig


def epsilon_vs_p_figure(delta: float = 0.01, l: int = 1, ns=(30, 1000)):
    """Figure 4: ε of the p-mix as a function of p for δ = 0.01 (Theorem 4.2)."""
    return _pmix_curve_figure(
        np.linspace(0.01, 1.0, 100), lambda p: asymptotic_epsilon(p, delta, l),
        lambda n, p: pmix_epsilon(n, p, delta, l).exact, ns, "p", "ε",
        f"Fig. 4: ε of the p-mix, δ = {delta:g}, l = {l}")


def delta_vs_p_figure(epsilon: float = 0.5, l: int = 1, ns=(30, 1000)):
    """Figure 5: δ of the p-mix as a function of p for ε = 0.5 (Corollary 2)."""
    return _pmix_curve_figure(
        np.linspace(0.0, 1.0, 101), lambda p: asymptotic_delta(p, epsilon, l),
        lambda n, p: pmix_delta(n, p, epsilon, l).exact, ns, "p", "δ",
        f"Fig. 5: δ of the p-mix, ε = {epsilon:g}, l = {l}")


def p_vs_epsilon_figure(delta: float = 0.05, l: int = 1, ns=(30, 1000)):
    """Figure 6: the largest private p as a function of ε for δ = 0.05 (Corollary 3)."""
    return _pmix_curve_figure(
        np.linspace(0.0, 1.2, 121), lambda e: asymptotic_largest_p(e, delta, l),
        lambda n, e: pmix_largest_p(n, e, delta, l).exact, ns, "ε", "p",
        f"Fig. 6: largest private p, δ = {delta:g}, l = {l}")


def optimal_vs_pmix_figure(ns=(10, 30, 100), epsilons=np.linspace(0.05, 1.5, 12),
                           delta: float = 0.01, l: int = 1):
    """New: success (probability of selecting the best) of the optimal (ε, δ)-DP rule
    (solid) and of the best p-mix at the same (ε, δ, l) (dashed) against ε, for several n.
    Returns the figure and the table ``(n, ε, optimal, p-mix)`` it plots."""
    fig, axes = new_figure()
    ax = axes[0, 0]
    rows = []
    jobs = [(n, e) for n in ns for e in epsilons]
    for n, e in progress(jobs, total=len(jobs), desc="optimal vs p-mix"):
        result = compare_with_pmix(n, float(e), delta, l)
        rows.append((n, float(e), result.optimal_success, result.pmix_success))
    table = np.array(rows)
    for k, n in enumerate(ns):
        part = table[table[:, 0] == n]
        color = f"C{k}"
        ax.plot(part[:, 1], part[:, 2], color=color, label=f"optimal rule, n = {n}")
        ax.plot(part[:, 1], part[:, 3], color=color, linestyle="--", label=f"best p-mix, n = {n}")
    ax.set(xlabel="ε", ylabel="P(select the best)",
           title=f"Optimal private rule vs best p-mix, δ = {delta:g}, l = {l}")
    ax.legend(fontsize="small")
    return fig, rows


def rank_distributions_figure(comparison, ranks: int = 30):
    """Rank distributions of the optimal rule and of the best p-mix (first ``ranks``)."""
    fig, axes = new_figure()
    ax = axes[0, 0]
    best = comparison.optimal
    k = np.arange(1, min(ranks, best.n) + 1)
    ax.plot(k, best.rank_distribution[:k.size], marker="o", label="optimal rule")
    ax.plot(k, comparison.pmix_rank_distribution[:k.size], marker="s",
            label=f"best p-mix (p = {comparison.pmix_p:.3g})")
    ax.set(xlabel="absolute rank k", ylabel="P(select the k-th best)",
           title=f"n = {best.n}, ε = {best.epsilon:g}, δ = {best.delta:g}, l = {best.l}")
    ax.legend()
    return fig
