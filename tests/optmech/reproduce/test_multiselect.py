"""`optmech.reproduce.multiselect.run(quick=True)`: every row matches, is new, or differs
with an explanation; the figures it names are written."""

import math

import pytest

from optmech.reproduce.multiselect import antipodal_ring_cost, two_peak_ring_cost


@pytest.mark.slow      # SLOW_AREAS (tests/optmech/reproduce/__init__.py)
def test_quick_run(quick_run):
    rows, tmp_path = quick_run("multiselect")
    assert rows and all(r.ok for r in rows)
    assert {r.status for r in rows} <= {"match", "new", "differs"}
    for r in rows:
        if r.status == "differs":
            assert r.explanation
        if r.figure:
            assert (tmp_path / r.figure).stat().st_size > 1000
    names = " ".join(r.name for r in rows)
    assert "eps=3/8" in names and "line DILP k=3" in names
    keyed = {r.key: r for r in rows if r.key}
    assert keyed["figure-3-lambda-0.40"].status == keyed["figure-3-lambda-0.46"].status == "match"
    assert keyed["lemma-17-boundary"].status == "differs"
    assert 0.45 < keyed["lemma-17-boundary"].ours < 0.46


def test_g_gdp_lp_is_the_discrete_laplace():
    """The one-result LP under g-GDP with g(t) = t (plain GDP) equals the truncated discrete
    Laplace of ratio e^-h, computed here by hand."""
    import numpy as np

    from optmech.reproduce.multiselect import _g_gdp_lp

    h = 0.5
    steps = np.arange(-24, 25)
    weights = np.exp(-h * np.abs(steps))
    expected = float(h * np.abs(steps) @ weights / weights.sum())
    assert _g_gdp_lp(lambda t: t, h) == pytest.approx(expected, abs=1e-9)


def test_explanations_use_valid_mechanisms():
    """The two ring mechanisms cited in the explanations: the antipodal one at eps = 3/8
    is cheaper than 0.72, and the two-peak one at eps = 1 with peak 0 is the ring's
    Laplace with offsets +-gap/2 (cost 0.567740...)."""
    assert antipodal_ring_cost(0.375) == pytest.approx(0.708734, abs=1e-6)
    assert two_peak_ring_cost(1.3016818721, 0.0, 1.0) == pytest.approx(0.5677400575, abs=1e-9)
    assert two_peak_ring_cost(1.406, 0.2617, 1.0) < 0.5665
    # antipodal results, noise peaked at the results: the same mechanism, two ways
    assert two_peak_ring_cost(math.pi, math.pi / 2, 0.375) == pytest.approx(
        antipodal_ring_cost(0.375), rel=1e-10)
