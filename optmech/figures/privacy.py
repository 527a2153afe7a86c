"""Privacy curves: ``delta(eps')`` of pairs of neighbouring score vectors beside the proven
bounds.

:func:`plot_delta_curves` draws one line per curve (one pair's, solid) and per bound
(dashed), ``eps'`` on the x axis and ``delta`` on a log y axis, where the bounds' gaps show
at every scale.

A pair's curve is a lower bound on its mechanism's curve at every ``eps'``, but the pair a
search finds worst at one ``eps'`` is not the worst at the others: the exponential
mechanism's pair worst at ``eps' = 0.5`` (eps = 1, n = 3) has ``delta(0.75) = 1.6e-6``
where the mechanism's proven (and attained) bound is 0.022.  So a curve is labelled as the
pair's, each curve may name its own mechanism's bound (drawn dashed in the curve's colour),
and ``chosen_at`` marks the ``eps'`` where the pairs were chosen (a dotted line and a dot
on each curve): only there does a curve stand for the worst pair found.
"""

from __future__ import annotations

import numpy as np

from optmech.figures import new_figure, save_figure

__all__ = ["PAIRS_KEY", "plot_delta_curves", "save_figure"]

_SHADES = ("0.3", "0.55", "0.75")        # the shared bounds' greys


#: The legend's key of a figure of pairs' curves against proven bounds.
PAIRS_KEY = "solid: one pair's curve, a lower bound on its mechanism's; dashed: proven bounds"


def plot_delta_curves(curves, bounds=(), title: str = "privacy curves", *,
                      chosen_at: float | None = None, key: str = PAIRS_KEY):
    """A figure of ``delta(eps')``.

    ``curves``: ``(label, eps_prime, delta)`` triples, one pair's curve each (solid), or
    ``(label, eps_prime, delta, (bound_label, bound_delta))``: that pair's curve and its
    mechanism's proven bound on the same ``eps_prime``, dashed in the curve's colour
    (labelled with the curve label's first part, before ``:``, and ``bound_label``); a
    bound that several curves give (the same label and values: randomised response's
    curve bounds every pure ε-DP mechanism) is drawn once, in grey, naming them by their
    labels' first part (before ``:``).  ``bounds``: more ``(label, eps_prime, delta)``
    bounds (dashed, grey).  ``chosen_at``: the ``eps'`` at which the pairs were chosen (a
    dotted vertical line, and a dot on each curve there).  Zero values are left out of the
    log axis.  ``key``: what the line styles mean, above the legend."""
    fig, axes = new_figure(width=6.6, height=5.6)
    ax = axes[0, 0]
    owners: dict[tuple, list[str]] = {}
    for entry in curves:
        if len(entry) > 3:
            owners.setdefault(_bound_key(entry), []).append(entry[0].split(":")[0])
    shared = []
    for entry in curves:
        label, eps_prime, delta = entry[:3]
        x, y = np.asarray(eps_prime, dtype=float), np.asarray(delta, dtype=float)
        (line,) = _draw(ax, x, y, "-", 1.8, label)
        if len(entry) > 3:
            names = owners[_bound_key(entry)]
            bound_label, bound = entry[3]
            if len(names) == 1:
                _draw(ax, x, np.asarray(bound, dtype=float), "--", 1.3,
                      f"{names[0]}: {bound_label}", color=line.get_color())
            elif names[0] == label.split(":")[0]:
                shared.append((f"{bound_label}: {', '.join(names)}", x, bound))
        if chosen_at is not None:
            at = int(np.argmin(np.abs(x - chosen_at)))
            if y[at] > 0:
                ax.plot([x[at]], [y[at]], "o", color=line.get_color(), markersize=4)
    for i, (label, eps_prime, delta) in enumerate([*shared, *bounds]):
        _draw(ax, np.asarray(eps_prime, dtype=float), np.asarray(delta, dtype=float), "--",
              1.5, label, color=_SHADES[i % len(_SHADES)])
    if chosen_at is not None:
        ax.axvline(chosen_at, linestyle=":", color="0.5", linewidth=1.0,
                   label=f"ε′ = {chosen_at:g}: where each pair was chosen")
    ax.set_yscale("log")
    ax.set_xlabel("ε′")
    ax.set_ylabel("δ(ε′)")
    ax.set_title(title, fontsize="medium")
    # below the axes: inside, it hid the steep ends of the curves
    ax.legend(fontsize="x-small", loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=1,
              title=key, title_fontsize="x-small")
    return fig


def _bound_key(entry) -> tuple:
    """What makes two curves' bounds the same bound: its label and its values."""
    bound_label, bound = entry[3]
    return bound_label, tuple(np.asarray(bound, dtype=float).tolist())


def _draw(ax, x: np.ndarray, y: np.ndarray, style: str, width: float, label: str, **kwargs):
    shown = y > 0
    return ax.plot(x[shown], y[shown], style, linewidth=width, label=label, **kwargs)
