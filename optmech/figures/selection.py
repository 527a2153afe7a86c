"""The permute-and-flip paper's Figure 1: EM vs PF on the worst-case vectors (c,...,c,0)."""

from __future__ import annotations

import numpy as np

from optmech.figures import new_figure
from optmech.selection.worst_case import em_error_on_step, pf_error_on_step, worst_case_error

__all__ = ["figure_1", "figure_4"]


def figure_1(ns_ratio=(2, 3, 5, 10, 100), ns_worst=None, epsilon: float = 1.0):
    """(a) expected error vs p at n = 3; (b) EM/PF ratio vs p for several n; (c) worst-case
    error vs n with the bounds of Proposition 1 / Corollary 1 (2Δ/ε log n) and Proposition 5
    (Δ/(2ε) log n).  Returns the figure and the plotted data."""
    p = np.logspace(-6, 0, 400)[:-1]
    fig, axes = new_figure(ncols=3)
    a, b, c = axes[0]
    linear = np.linspace(1e-4, 1, 400)
    a.plot(linear, em_error_on_step(3, linear, epsilon), label="EM (eq. 7)")
    a.plot(linear, pf_error_on_step(3, linear, epsilon), label="PF (eq. 8)")
    a.set(xlabel="p", ylabel="expected error", title="(a) n = 3, ε = Δ = 1")
    a.legend()
    for n in ns_ratio:
        b.plot(p, em_error_on_step(n, p, epsilon) / pf_error_on_step(n, p, epsilon),
               label=f"n = {n}")
    b.set(xlabel="p", ylabel="EM error / PF error", title="(b) ratio", xscale="log")
    b.legend()
    ns = np.array(ns_worst if ns_worst is not None
                  else np.unique(np.geomspace(2, 10_000, 30).round().astype(int)))
    em = np.array([worst_case_error("em", int(n), epsilon).error for n in ns])
    pf = np.array([worst_case_error("pf", int(n), epsilon).error for n in ns])
    c.plot(ns, em, label="EM worst case")
    c.plot(ns, pf, label="PF worst case")
    c.plot(ns, 2 / epsilon * np.log(ns), "k--", label="upper bound (2Δ/ε) log n")
    c.plot(ns, np.log(ns) / (2 * epsilon), "k:", label="lower bound (Δ/2ε) log n")
    c.set(xlabel="n", ylabel="worst-case expected error", title="(c) ε = Δ = 1",
          xscale="log")
    c.legend()
    return fig, {"n": ns, "em_worst": em, "pf_worst": pf}


def figure_4(cs, errors: dict[str, np.ndarray], n: int = 3, epsilon: float = 1.0):
    """Appendix F, Figure 4: expected error of EM, PF and report-noisy-max with Laplace noise
    (scale 2Δ/ε) on ``(c, ..., c, 0)`` against ``c``; ``errors`` maps a label to the curve."""
    fig, axes = new_figure()
    ax = axes[0, 0]
    for label, values in errors.items():
        ax.plot(cs, values, label=label)
    ax.set(xlabel="c", ylabel="expected error",
           title=f"Appendix F: n = {n}, ε = {epsilon:g}, Δ = 1")
    ax.legend()
    return fig
