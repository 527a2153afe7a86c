"""The y axis of the optimality-ratio figures: log where the ratios span a decade, linear
otherwise, or as asked; the CLI's plots (``topk lp --plot``, ``lattice ratio --plot``)
follow it (``--yscale``)."""

from types import SimpleNamespace

import numpy as np
import pytest

from optmech.figures import ratio_yscale
from optmech.figures.lattice import plot_ratio_bands, plot_ratio_curves
from optmech.figures.topk_ratios import plot_topk_ratios
from optmech.validation import InvalidArgumentError
from tests.cli_helpers import run_cli as run


@pytest.mark.parametrize("ratios, expected", [
    ([[1.0, 1.5], [1.2, 9.99]], "linear"),
    ([[1.0, 1.5], [1.2, 10.0]], "log"),
    ([[1.04, 64.6]], "log"),
    ([[2.0, np.inf, np.nan]], "linear"),         # only finite positive values count
    ([[]], "linear"),
])
def test_auto_is_log_from_a_decade(ratios, expected):
    assert ratio_yscale(ratios) == expected
    assert ratio_yscale(ratios, "log") == "log" and ratio_yscale(ratios, "linear") == "linear"


def test_an_unknown_scale_is_refused():
    with pytest.raises(InvalidArgumentError, match="yscale"):
        ratio_yscale([[1.0]], "logit")


def _topk_curve(top_ratio):
    return SimpleNamespace(epsilons=np.array([0.1, 1.0, 4.0]), objective="l1", ordered=True,
                           top=2, n=4, k=4, constraint_set="private",
                           ratios={"peel-pf": np.array([1.04, 1.9, 7.7]),
                                   "canonical-lipschitz": np.array([1.07, 3.0, top_ratio])})


def test_the_figures_take_the_scale_of_their_ratios():
    ax = plot_topk_ratios(_topk_curve(64.6)).axes[0]
    assert ax.get_yscale() == "log"
    labels = {t.get_text() for t in ax.get_yticklabels()}
    assert {"1", "2", "5", "10", "20", "50"} <= labels    # not only the powers of ten
    assert plot_topk_ratios(_topk_curve(9.0)).axes[0].get_yscale() == "linear"
    curve = SimpleNamespace(epsilons=np.array([0.5, 5.0]), n=3, k=3,
                            ratios={"pf": np.array([1.0, 1.0]), "em": np.array([1.3, 12.0])})
    fig = plot_ratio_curves([curve], ["pf", "em"])
    assert [ax.get_yscale() for ax in fig.axes] == ["log", "log"]     # one scale for both
    band = SimpleNamespace(epsilons=curve.epsilons, n=3, k=3,
                           ratios={"pf": np.array([[1.0, 1.01], [1.0, 1.02]])})
    assert plot_ratio_bands([band], ["pf"]).axes[0].get_yscale() == "linear"
    assert plot_ratio_bands([band], ["pf"], "log").axes[0].get_yscale() == "log"


def _drawn_scales(monkeypatch, module):
    scales = []

    def save_figure(fig, path):
        scales.extend(ax.get_yscale() for ax in fig.axes)
    monkeypatch.setattr(module, "save_figure", save_figure)
    return scales


def test_the_cli_plots_choose_log_when_the_ratios_span_decades(capsys, monkeypatch, tmp_path):
    """``topk lp`` at n = 4, depth 4, T = 2: the canonical Lipschitz mechanism's ratio is
    64.6 at eps = 4 (1.07 at 0.1), the plot's y axis is log; ``--yscale linear`` keeps it
    linear; ``lattice ratio``'s PF and EM curves at n = k = 3 stay below 2 and linear."""
    import optmech.figures.lattice as lattice
    import optmech.figures.topk_ratios as topk_ratios

    scales = _drawn_scales(monkeypatch, topk_ratios)
    argv = ["topk", "lp", "--n", "4", "--depth", "4", "--top", "2", "--eps", "0.1,4", "--plot",
            str(tmp_path / "r.png")]
    assert run(capsys, *argv)[0] == 0 and run(capsys, *argv, "--yscale", "linear")[0] == 0
    assert scales == ["log", "linear"]
    scales = _drawn_scales(monkeypatch, lattice)
    argv = ["lattice", "ratio", "--n", "3", "--depth", "3", "--eps", "0.5,10", "--plot",
            str(tmp_path / "l.png")]
    assert run(capsys, *argv)[0] == 0 and run(capsys, *argv, "--yscale", "log")[0] == 0
    assert scales == ["linear", "linear", "log", "log"]
