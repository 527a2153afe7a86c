"""Export to dp_accounting (optional extra; skipped without it): its hockey-stick values of
an exported pair and of its k-fold self-composition bracket optmech's exact values from
above within the discretisation; the formulas re-derived in optmech.privacy.accountants
equal the released package's where it has them."""

import math

import numpy as np
import pytest

dp_accounting = pytest.importorskip("dp_accounting")

from dp_accounting.pld import privacy_loss_distribution as pld  # noqa: E402
from dp_accounting.rdp import rdp_privacy_accountant as rdp  # noqa: E402

from optmech.privacy.accountants import (  # noqa: E402
    RDP_ORDERS,
    compute_epsilon,
    laplace_delta,
    laplace_rdp,
)
from optmech.privacy.accounting import to_dp_accounting  # noqa: E402
from optmech.privacy.bounds import randomised_response_delta  # noqa: E402
from optmech.privacy.composition import compose  # noqa: E402
from optmech.privacy.divergences import hockey_stick  # noqa: E402
from optmech.privacy.loss import loss_distribution  # noqa: E402
from optmech.selection.mechanisms import make_mechanism  # noqa: E402

INTERVAL = 1e-4
EPS_PRIME = [0.0, 0.5, 1.0, 2.0]


def _exact(distribution):
    both = (np.stack([distribution.log_p, distribution.log_q]),
            np.stack([distribution.log_q, distribution.log_p]))
    return hockey_stick(*both, EPS_PRIME).max(axis=0)


@pytest.mark.parametrize("k", [1, 3])
def test_export_and_composition_agree_with_exact_composition(k):
    single = loss_distribution(make_mechanism("pf", 1.0), (0.0, -0.5, -2.0),
                               (-1.0, 0.5, -1.0))
    exported = to_dp_accounting(single, INTERVAL)
    if k > 1:
        exported = exported.self_compose(k)
    theirs = np.array([exported.get_delta_for_epsilon(e) for e in EPS_PRIME])
    ours = _exact(compose(single, k) if k > 1 else single)
    assert (theirs >= ours - 1e-12).all()                  # pessimistic
    np.testing.assert_allclose(theirs, ours, atol=k * INTERVAL * 2)


def test_released_formulas_equal_the_rederived_ones():
    for order in (1.0, 1.05, 2.0, 10.0):
        assert laplace_rdp(1.3, [order])[0] == pytest.approx(rdp._laplace_rdp(1.3, order),
                                                             rel=1e-13)
    curve = 0.05 * RDP_ORDERS
    assert compute_epsilon(RDP_ORDERS, curve, 1e-6) == pytest.approx(
        rdp.compute_epsilon(RDP_ORDERS, curve, 1e-6), rel=1e-13)
    laplace = pld.from_laplace_mechanism(parameter=1.0, value_discretization_interval=INTERVAL)
    np.testing.assert_allclose([laplace.get_delta_for_epsilon(e) for e in EPS_PRIME],
                               laplace_delta(1.0, EPS_PRIME), atol=2 * INTERVAL)
    eps_dp = pld.from_privacy_parameters(
        dp_accounting.pld.common.DifferentialPrivacyParameters(epsilon=1.0, delta=0),
        value_discretization_interval=INTERVAL)
    np.testing.assert_allclose([eps_dp.get_delta_for_epsilon(e) for e in EPS_PRIME],
                               randomised_response_delta(1.0, EPS_PRIME), atol=2 * INTERVAL)
    assert math.isfinite(eps_dp.get_epsilon_for_delta(1e-6))
