"""optmech.lattice.ratios: exact optimality ratios against the certified optimum.

Independent references: brute force over every vector of Q (or of the cube) with the
mechanisms' own pmf; the paper's statements (Theorem 3, Figure 2).
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from lp_models.lattice.classes import lattice_classes
from optmech.lattice.optimum import solve_lattice
from optmech.lattice.ratios import (
    class_errors,
    optimality_ratio,
    optimality_ratios,
    ratio_sweep,
    total_error,
)
from optmech.selection.mechanisms import (
    ExponentialMechanism,
    PermuteAndFlip,
    PmfMechanism,
    ReportNoisyMax,
)
from optmech.validation import InvalidArgumentError

PAPER_THRESHOLD = math.log((3 + math.sqrt(5)) / 2)


def brute_force_total(mechanism, n, k, weighting):
    """Sum of E[error] over every vector of Q (lattice) or of the cube (cube), by pmf."""
    total = 0.0
    for levels in itertools.product(range(k + 1), repeat=n):
        if weighting == "lattice" and min(levels) != 0:
            continue
        scores = -2.0 * np.array(levels)
        total += mechanism.expected_error(scores)
    return total


@pytest.mark.parametrize("weighting", ["lattice", "cube"])
def test_total_error_matches_enumeration_of_every_vector(weighting):
    for mechanism in (PermuteAndFlip(0.7), ExponentialMechanism(0.7),
                      ReportNoisyMax(0.7, noise="laplace")):
        expected = brute_force_total(mechanism, 3, 3, weighting)
        assert total_error(mechanism, 3, 3, weighting) == pytest.approx(expected, rel=1e-12)


def test_closed_forms_agree_with_the_pmf_path():
    classes = lattice_classes(5, 4)
    for mechanism in (PermuteAndFlip(0.3), ExponentialMechanism(1.3),
                      PermuteAndFlip(0.8, sensitivity=2.0),
                      ReportNoisyMax(0.7, noise="laplace"),
                      ReportNoisyMax(0.01, noise="laplace"),
                      ReportNoisyMax(6.0, sensitivity=0.5, noise="laplace")):
        fast = class_errors(mechanism, classes)
        slow = np.array([mechanism.expected_error(q) / mechanism.sensitivity
                         for q in classes.scores(np.arange(classes.num_classes),
                                                 mechanism.sensitivity)])
        assert np.allclose(fast, slow, rtol=1e-12, atol=1e-14)


def test_pf_ratio_is_one_above_the_paper_threshold():
    for n, k in [(3, 4), (4, 4), (6, 4), (4, 2), (4, 8)]:
        for eps in (PAPER_THRESHOLD, 1.5, 4.0, 10.0):
            for weighting in ("lattice", "cube"):
                optimum = solve_lattice(n, k, eps, weighting=weighting)
                assert optimum.method == "pf-chain-dual"
                ratio = optimality_ratio(PermuteAndFlip(eps), optimum)
                assert abs(ratio - 1) <= 1e-9


def test_pf_ratio_stays_close_to_one_below_the_threshold():
    """Paper, Section 5: 'the largest measured value is about 1.01'."""
    for n, k in [(3, 4), (4, 4), (5, 4), (4, 6)]:
        for eps in (0.05, 0.2, 0.4, 0.6):
            ratio = optimality_ratio(PermuteAndFlip(eps), solve_lattice(n, k, eps))
            assert 1.0 <= ratio < 1.012


def test_em_ratio_grows_towards_two():
    curves = ratio_sweep([4], [2, 8], [0.01, 0.1, 0.5, 1.0, 3.0, 10.0], mechanisms=["em"])
    for curve in curves:
        em = curve.ratios["em"]
        assert np.all(np.diff(em) > 0)
        assert em[0] < 1.01 and 1.8 < em[-1] < 2.0
    assert curves[1].ratios["em"][-1] > curves[0].ratios["em"][-1]   # larger k: closer to 2


def test_ratios_use_the_optimum_weighting():
    optimum = solve_lattice(4, 3, 0.3, weighting="cube", constraints="paper")
    ratios = optimality_ratios(optimum)
    assert set(ratios) == {"pf", "em", "rnm_laplace"}
    expected = brute_force_total(PermuteAndFlip(0.3), 4, 3, "cube") / optimum.total_error
    assert ratios["pf"] == pytest.approx(expected, rel=1e-12)


def test_any_mechanism_with_a_pmf_is_compared_at_the_optimum_epsilon():
    """A plain function of the scores, an object with pmf(), and the built-in names in both
    spellings give the ratio of the built-in mechanism they stand for."""
    optimum = solve_lattice(3, 3, 0.7)
    pf = PermuteAndFlip(0.7)
    expected = optimality_ratio(pf, optimum)

    class OnlyPmf:
        def pmf(self, scores):
            return pf.pmf(scores)

    assert optimality_ratio(pf.pmf, optimum) == pytest.approx(expected, rel=1e-15)
    assert optimality_ratio(OnlyPmf(), optimum) == pytest.approx(expected, rel=1e-15)
    ratios = optimality_ratios(optimum, ["pf", "rnm-laplace"])
    assert list(ratios) == ["pf", "rnm_laplace"]               # keys in the one spelling
    assert ratios["pf"] == pytest.approx(expected, rel=1e-15)
    assert ratios["rnm_laplace"] == optimality_ratio("rnm_laplace", optimum)
    assert optimality_ratios(optimum, "em") == {"em": optimality_ratio("em", optimum)}
    with pytest.raises(InvalidArgumentError, match="twice"):      # one key for two entries
        optimality_ratios(optimum, ["rnm-laplace", "rnm_laplace"])


def test_a_dict_maps_labels_to_mechanisms():
    """{"mine": mechanism, "pf": "pf"}: "mine" is a label, not a mechanism name; PF's pmf
    behind a plain function gives PF's ratio (computed there by its recurrence)."""
    optimum = solve_lattice(3, 3, 0.7)
    mine = PmfMechanism(PermuteAndFlip(0.7).pmf, epsilon=0.7, name="ignored")
    ratios = optimality_ratios(optimum, {"mine": mine, "pf": "pf", "noisy": "rnm-laplace"})
    assert list(ratios) == ["mine", "pf", "noisy"]
    assert ratios["mine"] == pytest.approx(ratios["pf"], rel=1e-14)
    assert ratios["noisy"] == optimality_ratio("rnm_laplace", optimum)
    with pytest.raises(InvalidArgumentError):
        ratio_sweep([3], [2], [0.3], {})


def test_a_mechanism_at_another_epsilon_is_refused():
    optimum = solve_lattice(3, 3, 0.7)
    with pytest.raises(InvalidArgumentError, match="epsilon = 0.7"):
        optimality_ratio(PermuteAndFlip(0.5), optimum)
    with pytest.raises(InvalidArgumentError):
        optimality_ratio(lambda q: np.full(len(q), 0.3), optimum)    # not a pmf
    with pytest.raises(InvalidArgumentError):
        optimality_ratios(optimum, ["pf", "nope"])


def reversed_pf(epsilon):
    """PF with its pmf reached only through a plain function (a user's own mechanism)."""
    return PmfMechanism(PermuteAndFlip(epsilon).pmf, epsilon=epsilon, name="my-pf")


def test_ratio_sweep_takes_your_own_mechanisms_beside_the_built_in_ones():
    curves = ratio_sweep([3], [2], [0.3, 1.0], {"pf": "pf", "mine": reversed_pf,
                                                "noisy": "rnm-laplace"})
    (curve,) = curves
    np.testing.assert_allclose(curve.ratios["mine"], curve.ratios["pf"], rtol=1e-14)
    assert set(curve.ratios) == {"pf", "mine", "noisy"}
    np.testing.assert_allclose(curve.ratios["noisy"],
                               ratio_sweep([3], [2], [0.3, 1.0], ["rnm-laplace"])[0]
                               .ratios["rnm_laplace"], rtol=1e-15)
    listed = ratio_sweep([3], [2], [0.3], [reversed_pf])[0]
    assert list(listed.ratios) == ["reversed_pf"]
    with pytest.raises(InvalidArgumentError):
        ratio_sweep([3], [2], [0.3], [lambda eps: PermuteAndFlip(2 * eps)])   # wrong epsilon
