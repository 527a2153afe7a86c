"""Valid input computes or is refused up front, never a wrong number, a warning or an
internal error: every mechanism (optmech.selection's and GEM's family) on an epsilon log grid
up to 1.7e308 through pair_curves and worst_pair; work bounded (many candidates, many
orders); the lattice mechanism from Python; the loss distribution's display."""

import math
import warnings

import numpy as np
import pytest

from optmech.heterogeneous import make_heterogeneous
from optmech.privacy.curves import pair_curves
from optmech.privacy.divergences import renyi
from optmech.privacy.loss import loss_distribution
from optmech.privacy.worst import worst_over_pairs, worst_pair
from optmech.resources import work_budget
from optmech.selection.mechanisms import MECHANISMS, make_mechanism
from optmech.validation import InvalidArgumentError, ResourceLimitError

EPSILONS = [1e-300, 1e-10, 1e-3, 1.0, 20.0, 700.0, 1e5, 1e50, 1e154, 1e200, 1e300, 1e307,
            1e308, 1.7e308]
PAIRS = [((0.0, -1.0), (1.0, -2.0)), ((0.0, 0.0), (1.0, -1.0)),
         ((0.0, -1.0, -3.0), (1.0, -2.0, -2.0)), ((0.0, -50.0, -100.0), (1.0, -51.0, -99.0)),
         ((0.0, -1e10), (1.0, -1e10))]


class _WithSensitivities:
    """A heterogeneous mechanism with its sensitivities bound, by its log-pmf."""

    monotonic, logpmf_finite = False, True

    def __init__(self, mechanism, n):
        self.mechanism, self.epsilon = mechanism, mechanism.epsilon
        self.sensitivity = np.ones(n)

    def logpmf(self, scores):
        return self.mechanism.logpmf(scores, self.sensitivity)

    def logpmf_error(self, logs):
        return self.mechanism.logpmf_error(logs)


def _finite_curves(curves) -> np.ndarray:
    return np.concatenate([curves.delta, curves.divergence, curves.delta_error,
                           curves.divergence_error,
                           [curves.max_loss, curves.zcdp_rho, curves.zcdp_rho_bound,
                            curves.max_loss_error]])


@pytest.mark.parametrize("name", [*MECHANISMS, "gem", "mgem", "combined_gem"])
def test_pair_curves_over_epsilon_up_to_the_double_range(name):
    """Every curve a number (no NaN; inf only as UNBOUNDED, which these pairs are not),
    no warning; or InvalidArgumentError naming epsilon with its limit (a score gap times
    epsilon / 2 beyond 1.8e308, where the log-probabilities are not doubles)."""
    refused = 0
    for eps in EPSILONS:
        for scores, neighbour in PAIRS:
            if name in ("gem", "mgem", "combined_gem"):
                mechanism = _WithSensitivities(make_heterogeneous(name, eps), len(scores))
            else:
                mechanism = make_mechanism(name, eps)
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                try:
                    curves = pair_curves(mechanism, scores, neighbour,
                                         eps_prime=[0.0, min(eps / 2, 1e300)],
                                         orders=[1.0, 2.0, 1e4, math.inf])
                except InvalidArgumentError as error:
                    assert "epsilon must be at most" in str(error), str(error)
                    refused += 1
                    continue
            values = _finite_curves(curves)
            assert not np.isnan(values).any(), (eps, scores)
            assert np.isfinite(values[:-4]).all() or name == "uniform", (eps, scores)
            assert curves.max_loss <= eps * 2 * (1 + 1e-12) + curves.max_loss_error
    if name in ("rr", "uniform"):
        assert refused == 0
    else:
        assert refused > 0                   # the far pair at eps >= 1e300, at least


@pytest.mark.parametrize("name", MECHANISMS)
def test_worst_pair_over_epsilon_up_to_the_double_range(name):
    for eps in EPSILONS[::2] + EPSILONS[-1:]:
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            worst = worst_pair(make_mechanism(name, eps), 2, depth=1, starts=1, polish=1,
                               iterations=5)
        assert math.isfinite(worst.value) and worst.value >= 0, eps
        assert not np.isnan(_finite_curves(worst.curves)).any(), eps


def test_large_epsilon_renyi_does_not_overflow():
    """EM at eps = 1e308 on (0, -1) against (1, -2): D_alpha at orders up to 1e4 is finite
    (it was inf: h L overflowed), below the max loss 1e308, and the zCDP bound finite."""
    curves = pair_curves(make_mechanism("em", 1e308), (0.0, -1.0), (1.0, -2.0))
    assert np.isfinite(curves.divergence).all()
    assert curves.divergence.max() <= 1e308 * (1 + 1e-12)
    assert math.isfinite(curves.zcdp_rho_bound) and curves.zcdp_rho <= curves.zcdp_rho_bound


def test_gem_at_large_epsilon_by_its_log_pmf():
    """GEM at eps = 700 on (0, -3, -10): the probability of the last candidate underflows
    (e^-1750); through logpmf its loss is finite, the max loss at most eps (it was
    UNBOUNDED through log(pmf))."""
    mechanism = _WithSensitivities(make_heterogeneous("gem", 700.0), 3)
    curves = pair_curves(mechanism, (0.0, -3.0, -10.0), (1.0, -4.0, -9.0))
    assert math.isfinite(curves.max_loss) and curves.max_loss <= 700 * (1 + 1e-12)


def test_many_candidates_and_many_orders_are_fast_or_refused():
    """pair_curves on 10^6 candidates that tie in pairs of outputs (zeros against ones: one
    distinct output) and on 10^6 orders: computed (merging equal outputs; all orders in a
    few array operations), or refused up front naming the argument under a small budget."""
    pf = make_mechanism("pf", 1.0)
    curves = pair_curves(pf, np.zeros(10**6), np.ones(10**6))
    assert curves.max_loss == 0.0 and curves.zcdp_rho == 0.0
    orders = np.concatenate([[1.0], 1.0 + np.geomspace(1e-3, 1e4, 10**6)])
    many = pair_curves(pf, (0.0, -1.0, -3.0), (1.0, -2.0, -2.0), orders=orders)
    few = pair_curves(pf, (0.0, -1.0, -3.0), (1.0, -2.0, -2.0), orders=orders[::1000])
    np.testing.assert_allclose(many.divergence[::1000], few.divergence, rtol=1e-15)
    with work_budget(0.5), pytest.raises(ResourceLimitError, match="orders"):
        pair_curves(pf, (0.0, -1.0, -3.0), (1.0, -2.0, -2.0), orders=orders)
    distinct = -np.linspace(0.0, 30.0, 2 * 10**5)
    with work_budget(1.0), pytest.raises(ResourceLimitError, match="scores"):
        pair_curves(pf, distinct, distinct + 0.5)


def test_merged_outputs_give_the_curves_of_the_whole_pair():
    """Outputs with equal log-probabilities merged: the same curves as every output kept
    (the divergences on the unmerged log-pmfs), within the merging's rounding."""
    scores = np.array([0.0, -1.0, -1.0, -1.0, -2.0, -2.0])
    neighbour = scores + np.array([1.0, -1.0, -1.0, -1.0, 0.0, 0.0])
    curves = pair_curves(make_mechanism("em", 1.0), scores, neighbour, orders=[1.0, 3.0])
    d = loss_distribution(make_mechanism("em", 1.0), scores, neighbour)
    both = np.stack([d.log_p, d.log_q])
    direct = renyi(both, both[::-1], [1.0, 3.0]).max(axis=0)
    np.testing.assert_allclose(curves.divergence, direct, rtol=1e-14)
    assert (np.abs(curves.divergence - direct) <= curves.divergence_error).all()


def test_worst_pair_of_the_lattice_mechanism_from_python():
    """solve_lattice(3, 2, eps).mechanism(): worst_pair searches every pair of its lattice
    (before: refused on the search's off-lattice scores), the same value as the best of
    those pairs evaluated one by one."""
    from optmech.lattice.optimum import solve_lattice

    mechanism = solve_lattice(3, 2, 1.0).mechanism()
    worst = worst_pair(mechanism, 3, objective="max_loss")
    scores, neighbours = mechanism.neighbour_pairs()
    each = [float(pair_curves(mechanism, q, o).max_loss) for q, o in zip(scores, neighbours)]
    assert worst.value == pytest.approx(max(each), rel=1e-14)
    assert worst.value <= 1.0 + worst.curves.max_loss_error + 1e-12
    assert worst_over_pairs(mechanism, scores, neighbours, objective="max_loss").value \
        == worst.value
    with pytest.raises(InvalidArgumentError, match="n"):
        worst_pair(mechanism, 4)


def test_loss_distribution_displays_its_pair():
    d = loss_distribution(make_mechanism("pf", 1.0), (0.0, -1.0), (1.0, -2.0))
    text = repr(d)
    assert text.startswith("LossDistribution(scores=") and "max_loss=1" in text
    assert "max_loss_backward=" in text and "<table>" in d._repr_html_()
