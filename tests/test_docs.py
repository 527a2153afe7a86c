"""Every Python example in README.md, the user guide and the site's own pages runs and prints
what the document says (doctest), and every script of the gallery runs and draws its
figure."""

import doctest
import runpy
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GUIDES = [ROOT / "README.md", *sorted((ROOT / "docs" / "guide").glob("*.md"))]
# the site's pages with examples of their own (the others include docs/*.md)
PAGES = [ROOT / "docs" / "api" / "index.rst", ROOT / "docs" / "api" / "coming_from.md"]
GALLERY = sorted((ROOT / "docs" / "gallery").glob("plot_*.py"))


@pytest.mark.parametrize("guide", GUIDES + PAGES, ids=[g.stem for g in GUIDES + PAGES])
def test_guide_examples(guide):
    result = doctest.testfile(str(guide), module_relative=False, verbose=False,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{guide.name} has no examples"
    assert result.failed == 0, f"{result.failed} example(s) in {guide.name} failed"


def test_the_gallery_has_the_three_jobs_and_the_figures_researchers_draw():
    names = [script.stem for script in GALLERY]
    assert names == sorted(names) and len(names) >= 8
    for topic in ("solve_an_lp", "rate_your_mechanism", "check_an_identity", "ratio_curves",
                  "bracket_bands", "secretary_profile", "heterogeneous_scenario",
                  "multiselect_cost"):
        assert any(topic in name for name in names), topic


@pytest.mark.parametrize("script", GALLERY, ids=[s.stem for s in GALLERY])
def test_gallery_script_runs_and_draws_a_figure(script, capsys, monkeypatch):
    """What sphinx-gallery does when the site is built: run the script, keep its figures."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.close("all")
    monkeypatch.setattr(plt, "show", lambda *args, **kwargs: None)
    runpy.run_path(str(script), run_name="__main__")
    assert plt.get_fignums(), f"{script.name} drew no figure"
    assert capsys.readouterr().out, f"{script.name} printed nothing to check"
    plt.close("all")
