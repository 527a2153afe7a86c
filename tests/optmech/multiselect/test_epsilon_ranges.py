"""Every privacy parameter multi-selection accepts computes, and the rest is refused up front.

The accepted range of each disutility (``optmech.multiselect.offsets.epsilon_range``) is
swept on a log grid for the cost (every noise family), the protocol simulation and the
discretised DILP: each value gives finite, positive numbers under the CLI's warning policy
(a numerical warning is an error).  The values are checked against independent references:
mpmath quadrature at 30 digits at eps = 1e-6 (where the raw-scale quadrature used to fail),
and, across the range, the exact scaling of the problem (``Y = X / eps``: the cost of a
homogeneous ``h`` of degree ``p`` is ``eps^-p`` times its cost at eps = 1, evaluated here
in mpmath from the eps = 1 value, never from the code's scaled path).
"""

import math
import warnings

import mpmath as mp
import numpy as np
import pytest

from optmech.multiselect.dilp import EPSILON_RANGE as DILP_RANGE
from optmech.multiselect.dilp import solve_dilp
from optmech.multiselect.offsets import DISUTILITIES, epsilon_range, resolve_disutility
from optmech.multiselect.protocol import MultiSelection
from optmech.validation import InvalidArgumentError
from tests.optmech.multiselect.test_offsets import mp_laplace_cost

DEGREES = {"identity": 1, "square": 2, "sqrt": 0.5, "cube": 3}
NOISES = ("laplace", "gaussian", "logistic")


def _grid(lo: float, hi: float, num: int = 9) -> list[float]:
    return [lo, *np.geomspace(lo, hi, num)[1:-1].tolist(), hi]


@pytest.fixture(autouse=True)
def _numerical_warnings_are_errors():
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.simplefilter("error", UserWarning)
        yield


@pytest.mark.parametrize("h", list(DISUTILITIES))
def test_the_ranges_are_the_documented_ones(h):
    lo, hi = epsilon_range(resolve_disutility(h))
    exponent = {"identity": 300, "sqrt": 300, "log1p": 300, "square": 150, "cube": 100}[h]
    assert (lo, hi) == (10.0 ** -exponent, 10.0 ** exponent)
    for outside in (lo / 2, hi * 2):
        with pytest.raises(InvalidArgumentError, match=r"epsilon must be a number in \["):
            MultiSelection(3, outside, h)


@pytest.mark.parametrize("noise", NOISES)
@pytest.mark.parametrize("h", list(DISUTILITIES))
def test_every_accepted_epsilon_gives_a_finite_cost(h, noise):
    lo, hi = epsilon_range(resolve_disutility(h))
    unit = MultiSelection(4, 1.0, h, noise)
    for eps in _grid(lo, hi):
        protocol = MultiSelection(4, eps, h, noise)
        cost, offsets = protocol.cost, protocol.offsets
        assert math.isfinite(cost) and cost > 0, (eps, cost)
        assert np.isfinite(offsets).all()
        assert np.all(offsets[offsets != 0] != 0) and offsets.max() > 0
        if h in DEGREES:     # exact scaling, evaluated in mpmath from the eps = 1 cost
            expected = mp.mpf(unit.cost) * mp.mpf(eps) ** -DEGREES[h]
            assert cost == pytest.approx(float(expected), rel=1e-9), eps
            np.testing.assert_allclose(offsets * eps, unit.offsets, rtol=1e-9,
                                       atol=1e-12 * np.abs(unit.offsets).max())


@pytest.mark.parametrize("h", ["sqrt", "cube", "square", "log1p"])
def test_small_epsilon_costs_against_mpmath(h):
    """eps = 1e-6 with the recurrence's offsets (the raw-scale integrals did not converge
    there): the cost against mpmath quadrature at 30 digits."""
    eps = 1e-6
    protocol = MultiSelection(3, eps, h)
    function = {"sqrt": mp.sqrt, "cube": lambda t: t**3, "square": lambda t: t**2,
                "log1p": mp.log1p}[h]
    reference = mp_laplace_cost(protocol.offsets.tolist(), eps, function)
    assert protocol.cost == pytest.approx(float(reference), rel=1e-10)


@pytest.mark.parametrize("h", ["identity", "square"])
def test_every_accepted_epsilon_can_be_simulated(h):
    lo, hi = epsilon_range(resolve_disutility(h))
    for eps in _grid(lo, hi, 5):
        protocol = MultiSelection(3, eps, h)
        estimate = protocol.monte_carlo_cost(20_000, np.random.default_rng(1))
        # a fixed seed; the tolerance is 6 standard errors of the mean
        assert abs(estimate.mean - protocol.cost) < 6 * estimate.standard_error, eps


def test_a_user_too_far_from_zero_for_the_noise_is_refused():
    protocol = MultiSelection(3, 1.0)
    protocol.monte_carlo_cost(100, np.random.default_rng(0), user=2.0**32)
    with pytest.raises(InvalidArgumentError, match="user must be a number of magnitude"):
        protocol.monte_carlo_cost(100, np.random.default_rng(0), user=1e300)


@pytest.mark.parametrize("ring", [False, True])
@pytest.mark.parametrize("k", [1, 2])
def test_every_epsilon_the_dilp_accepts_is_solved_and_certified(ring, k):
    lo, hi = DILP_RANGE
    for eps in _grid(lo, hi, 7):
        grid = 15 if ring else 41
        try:
            result = solve_dilp(k, eps, grid, ring=ring)
        except InvalidArgumentError as error:        # a grid too coarse is bad input
            assert error.argument == "grid", error
            continue
        assert result.dual <= result.primal * (1 + 1e-9)
        assert abs(result.primal - result.dual) <= 1e-6 * result.primal, eps
        assert result.primal <= result.laplace_cost_discrete * (1 + 1e-9)
    for outside in (lo / 2, hi * 2):
        with pytest.raises(InvalidArgumentError, match=r"epsilon must be a number in"):
            solve_dilp(k, outside, 15, ring=ring)


def test_a_dilp_beyond_the_budgets_is_refused_before_it_is_built():
    from optmech.resources import work_budget
    from optmech.validation import ResourceLimitError

    with pytest.raises(ResourceLimitError, match="grid .*memory"):
        solve_dilp(1, 1.0, 100_000)
    with work_budget(10.0), pytest.raises(ResourceLimitError, match="grid .*CPU time"):
        solve_dilp(2, 1.0, 801, method="joint")
