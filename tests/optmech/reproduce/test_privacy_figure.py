"""The privacy-curves figure (``privacy_delta_curves.png`` of ``optmech reproduce`` and the
gallery's example 10): each curve is one pair's, labelled so, beside its mechanism's proven
bound, and the eps' where the pairs were chosen is marked.

Reference for the numbers: the closed-form bounds of optmech.privacy.bounds and the pair's
own curve recomputed by pair_curves."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest

from optmech.figures.privacy import plot_delta_curves
from optmech.privacy.accountants import laplace_delta
from optmech.privacy.bounds import bounded_range_delta, randomised_response_delta
from optmech.privacy.curves import pair_curves
from optmech.reproduce.privacy import delta_figure
from optmech.selection.mechanisms import make_mechanism


def _lines(fig) -> dict[str, object]:
    return {line.get_label(): line for line in fig.axes[0].get_lines()
            if not line.get_label().startswith("_")}


@pytest.fixture(scope="module")
def figure():
    fig = delta_figure()
    yield fig
    plt.close(fig)


def test_every_curve_is_labelled_as_one_pair_and_none_as_the_worst(figure):
    lines = _lines(figure)
    solid = {label for label, line in lines.items() if line.get_linestyle() == "-"}
    assert solid == {f"{m}: the pair worst at ε′ = 0.5" for m in ("em", "pf", "rnm_laplace")}
    assert not [label for label in lines if "worst pair found" in label]
    assert "ε′ = 0.5: where each pair was chosen" in lines


def test_each_mechanism_has_its_proven_bound_beside_it(figure):
    lines = _lines(figure)
    em_bound = lines["em: ε-bounded-range bound"]
    assert em_bound.get_color() == lines["em: the pair worst at ε′ = 0.5"].get_color()
    br = bounded_range_delta(1.0, em_bound.get_xdata())
    assert len(br) > 30 and np.allclose(em_bound.get_ydata(), br, rtol=1e-12)
    shared = lines["Laplace-pair bound (post-processing of the Laplace mechanism): pf, "
                   "rnm_laplace"]
    laplace = laplace_delta(1.0, shared.get_xdata())
    assert np.allclose(shared.get_ydata(), laplace, rtol=1e-12)
    assert (laplace <= randomised_response_delta(1.0, shared.get_xdata()) + 1e-15).all()


def test_the_em_pair_falls_far_below_its_bound_away_from_where_it_was_chosen(figure):
    """What the labels are for: the EM pair's curve at eps' = 0.75 is below 1e-4 of the bound
    there (0, not drawn on the log axis, beyond the pair's largest loss), while at 0.5 it
    meets it (the pair's curve, recomputed independently)."""
    lines = _lines(figure)
    em = lines["em: the pair worst at ε′ = 0.5"]
    x, y = em.get_xdata(), em.get_ydata()
    at = {round(float(e), 6): float(d) for e, d in zip(x, y)}
    at.setdefault(0.75, 0.0)
    assert at[0.75] < 1e-4 * float(bounded_range_delta(1.0, [0.75])[0])
    assert at[0.5] == pytest.approx(float(bounded_range_delta(1.0, [0.5])[0]), rel=1e-6)
    # the line is that pair's curve (the pair re-evaluated by pair_curves)
    from optmech.privacy import worst_pair
    found = worst_pair(make_mechanism("em", 1.0), 3, objective="delta", at=0.5, depth=3,
                       starts=0, polish=1, iterations=30, rng=0)
    again = pair_curves(make_mechanism("em", 1.0), found.curves.scores,
                        found.curves.neighbour, eps_prime=[0.5, 0.75])
    assert again.delta == pytest.approx([at[0.5], at[0.75]], rel=1e-9)


def test_a_bound_given_by_one_curve_takes_its_colour_and_a_shared_one_is_drawn_once():
    x = np.linspace(0, 1, 5)
    fig = plot_delta_curves(
        [("a: pair", x, x + 0.1, ("bound A", x + 1)), ("b: pair", x, x + 0.2, ("bound B", x + 2)),
         ("c: pair", x, x + 0.3, ("bound B", x + 2))], title="t", chosen_at=0.5)
    lines = _lines(fig)
    assert lines["a: bound A"].get_color() == lines["a: pair"].get_color()
    assert "bound B: b, c" in lines and "b: bound B" not in lines
    assert sum(label.startswith("bound B") for label in lines) == 1
    plt.close(fig)
