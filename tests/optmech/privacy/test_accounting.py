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


@pytest.mark.parametrize("steps", [["em:0.1:100"], ["pf:1:10"], ["em:0.1:30", "pf:0.5:10",
                                                                  "rr:0.3:5"]])
def test_exported_account_never_reports_below_the_certified_curve(steps):
    from optmech.privacy.accountant import Accountant

    accountant = Accountant(steps)
    report = accountant.report(1e-6)
    exported = accountant.to_dp_accounting()
    # the same pairs on the same grids, rounded up again by dp_accounting: at or above the
    # certified curve, which carries optmech's own rounding inflation (1e-12 per term and
    # step, 1e-10 relative here) that dp_accounting does not add
    assert exported.get_epsilon_for_delta(1e-6) >= report.epsilon * (1 - 1e-9)
    for e, delta in zip(report.payload["upper"]["delta"]["eps_prime"],
                        report.payload["upper"]["delta"]["delta"]):
        assert exported.get_delta_for_epsilon(e) >= delta * (1 - 1e-9) - 1e-15


def test_the_accounting_guides_dp_accounting_example_runs(capsys):
    """The guide's block, as written: its two numbers are at least the certified curve's."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[3] / "docs" / "guide" / "accounting.md").read_text()
    block = text.split("(a test runs this code):\n\n```python\n", 1)[1].split("```", 1)[0]
    exec(compile(block, "accounting.md", "exec"), {})
    alone, composed = map(float, capsys.readouterr().out.split())
    assert 9.9989 <= alone <= 10.0 and composed > alone


def test_opendp_profile_carries_the_certified_curve():
    pytest.importorskip("opendp")
    from optmech.privacy.accountant import Accountant
    from optmech.privacy.accounting import to_opendp_profile

    report = Accountant(["em:0.1:100"]).report(1e-6)
    profile = to_opendp_profile(report)
    assert profile.epsilon(1e-6) == pytest.approx(report.epsilon, rel=1e-9)
    grid = report.payload["upper"]["delta"]["eps_prime"]
    values = report.payload["upper"]["delta"]["delta"]
    for e, delta in zip(grid, values):
        assert profile.delta(e) == pytest.approx(delta, rel=1e-12, abs=1e-300)


def test_a_gaussian_step_exports_as_dp_accountings_own_gaussian_pld():
    """A Gaussian step goes over as dp_accounting's Gaussian PLD (pessimistic): above the
    exact sqrt(K) mu-GDP curve and close to it, composed with the pure steps' pairs."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from test_accountant import _gaussian, _gdp_epsilon

    from optmech.privacy.accountant import Accountant

    gaussian = _gaussian(4.0)
    mu = math.sqrt(2.0) / 4.0
    exported = Accountant([(gaussian, 50)], n=2).to_dp_accounting()
    exact = _gdp_epsilon(mu * math.sqrt(50), 1e-6)
    assert exact <= exported.get_epsilon_for_delta(1e-6) <= exact * 1.01
    mixed = Accountant(["em:0.1:30", (gaussian, 50)], n=2).to_dp_accounting()
    assert mixed.get_epsilon_for_delta(1e-6) > exported.get_epsilon_for_delta(1e-6)


def test_a_repeat_and_select_step_exports_where_dp_accounting_has_no_pld():
    """dp_accounting has repeat-and-select in its RDP accountant only: the export is the
    step's dominating pair (randomised response at the sharp ε), composing there with other
    events, never below the certified curve."""
    from optmech.privacy.accountant import Accountant
    from optmech.privacy.repeat import RepeatAndSelect, Repetitions
    from optmech.selection.mechanisms import make_mechanism

    tuned = RepeatAndSelect(make_mechanism("em", 0.3), Repetitions.parse("geometric:0.1"))
    accountant = Accountant([(tuned, 6), "pf:0.5:4"], n=3)
    report = accountant.report(1e-6)
    exported = accountant.to_dp_accounting()
    assert exported.get_epsilon_for_delta(1e-6) >= report.epsilon * (1 - 1e-9)
    assert exported.get_epsilon_for_delta(1e-6) <= 1.05 * report.epsilon
