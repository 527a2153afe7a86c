"""Exports: a pair's privacy loss distribution, or a whole certified account, to Google's
``dp_accounting`` (optional extra), and the certified curve to OpenDP.

``dp_accounting`` (``pip install optmech[accounting]``, release 0.6.0 or later) composes
privacy loss distributions (PLDs) of many mechanisms.  :func:`to_dp_accounting` hands it the
exact pmfs of a selection mechanism on a pair of neighbouring score vectors (typically the
worst pair :func:`~optmech.privacy.worst.worst_pair` found) through its
``pld.privacy_loss_distribution.from_two_probability_mass_functions``: both directions
(``symmetric=False``), pessimistic rounding of the losses to multiples of
``value_discretization_interval`` (so its hockey-stick values are upper estimates of the
pair's).  The result composes there with any other mechanism (``compose``,
``self_compose``).

That a pair's PLD covers the mechanism is the caller's claim: a worst pair *found* is a lower
bound on the mechanism's curves, so a composition of it is a lower bound on the composed
mechanism's curves too, not a guarantee; for a guarantee, export a dominating pair (the
randomised-response or bounded-range pair of :mod:`optmech.privacy.bounds` has every
mechanism's curves below it).  :mod:`optmech.privacy.composition` composes exactly without
``dp_accounting``; tests check the two agree to the discretisation.

:func:`account_to_dp_accounting` hands over a whole sequence
(:class:`~optmech.privacy.accountant.Accountant`) as the composition of each step's
dominating pair (:meth:`~optmech.privacy.dominating.Dominance.fixed_step`: randomised
response, the Laplace pair, and for bounded-range steps the envelope pair, one pair valid at
every step), spread onto the accountant's own grids and rounded up again by
``dp_accounting``: a PLD that composes there with any other event and never reports below
the accountant's certified curve (a test checks it; the envelope makes it looser than the
accountant's sup over ``t`` at every step).  A Gaussian step (μ-GDP) is ``dp_accounting``'s
own Gaussian PLD (``from_gaussian_mechanism`` with standard deviation ``1/μ``,
pessimistic); repeat-and-select, for which ``dp_accounting`` has no PLD, is randomised
response at its sharp ε.

:func:`to_opendp_profile` is the certified curve as an OpenDP ``PrivacyProfile``
(``opendp.prelude.new_privacy_profile``, which OpenDP 0.16 accepts only with its
``honest-but-curious`` feature: it cannot check a user's curve).  Attach it to your own
pipeline with ``make_user_measurement(..., output_measure=smoothed_max_divergence(),
privacy_map=lambda d_in: profile)``; the curve holds for neighbours at distance 1 in the
mechanisms' own sensitivity, so a map should refuse a larger ``d_in``.  OpenDP has no
measurement that takes a privacy loss distribution.
"""

from __future__ import annotations

import math

import numpy as np

from optmech.privacy.dominating import FAMILY, GAUSSIAN, RANDOMISED_RESPONSE, Dominance
from optmech.privacy.loss import LossDistribution
from optmech.validation import check_positive

__all__ = ["ACCOUNTING_EXTRA", "account_to_dp_accounting", "require_dp_accounting",
           "to_dp_accounting", "to_opendp_profile"]

#: The optional extra that installs ``dp_accounting``.
ACCOUNTING_EXTRA = "pip install 'optmech[accounting]'"


def require_dp_accounting():
    """The ``dp_accounting`` module, or :class:`ModuleNotFoundError` saying how to get it."""
    try:
        import dp_accounting
    except ModuleNotFoundError:
        raise ModuleNotFoundError(f"dp_accounting is not installed ({ACCOUNTING_EXTRA})") \
            from None
    return dp_accounting


def _log_pmf(log_probabilities: np.ndarray) -> dict[int, float]:
    return {r: float(v) if math.isfinite(v) else -math.inf
            for r, v in enumerate(log_probabilities)}


def to_dp_accounting(distribution: LossDistribution,
                     value_discretization_interval: float = 1e-4):
    """The pair as a ``dp_accounting`` ``PrivacyLossDistribution`` (both directions,
    pessimistic rounding; module docstring)."""
    interval = check_positive(value_discretization_interval, "value_discretization_interval")
    require_dp_accounting()
    from dp_accounting.pld import privacy_loss_distribution as pld

    # dp_accounting's loss is log(upper / lower): upper = M(q), lower = M(q')
    return pld.from_two_probability_mass_functions(
        _log_pmf(distribution.log_q), _log_pmf(distribution.log_p),
        pessimistic_estimate=True, value_discretization_interval=interval,
        symmetric=False)


def account_to_dp_accounting(accountant, value_discretization_interval: float = 1e-4):
    """The whole sequence of an :class:`~optmech.privacy.accountant.Accountant` as one
    ``dp_accounting`` PLD: each step's dominating pair, self-composed over its rounds, then
    composed (module docstring)."""
    from optmech.privacy.accountant import plan_of

    interval = check_positive(value_discretization_interval, "value_discretization_interval")
    require_dp_accounting()
    from dp_accounting.pld import privacy_loss_distribution as pld

    total = pld.identity(value_discretization_interval=interval)
    for group in plan_of(accountant):           # the accountant's own grids, last step first
        d = group.dominance
        if d.kind == GAUSSIAN:
            exported = pld.from_gaussian_mechanism(
                1.0 / d.epsilon, pessimistic_estimate=True,
                value_discretization_interval=interval)
        else:
            if d.kind == FAMILY:    # one pair for the whole family: randomised response
                d = Dominance(RANDOMISED_RESPONSE, d.epsilon)
            fixed = group.fixed or d.fixed_step(group.step)
            losses = (fixed.start + np.arange(fixed.masses.size)) * group.step
            with np.errstate(divide="ignore"):
                log_p = np.log(fixed.masses)
            exported = to_dp_accounting(
                LossDistribution(losses, losses, log_p, log_p - losses), interval)
        total = total.compose(exported.self_compose(group.count) if group.count > 1
                              else exported)
    return total


def to_opendp_profile(report_or_curve):
    """The certified curve as an OpenDP ``PrivacyProfile`` (module docstring): from an
    :class:`~optmech.privacy.accountant.AccountReport` (its certified upper curve, linear in
    ``e^eps'`` between the ``eps'`` it was computed at, which lies above the convex true
    curve) or from a function ``eps' -> delta``."""
    try:
        import opendp.prelude as dp
    except ModuleNotFoundError:
        raise ModuleNotFoundError("opendp is not installed (pip install 'optmech[peers]')") \
            from None
    curve = report_or_curve
    payload = getattr(report_or_curve, "payload", None)
    if payload is not None:
        grid = np.asarray(payload["upper"]["delta"]["eps_prime"], dtype=float)
        values = np.asarray(payload["upper"]["delta"]["delta"], dtype=float)

        def curve(eps_prime: float) -> float:
            # below the grid nothing is known (1); beyond it delta only decreases
            if eps_prime < grid[0]:
                return 1.0
            return float(np.interp(math.exp(min(eps_prime, grid[-1])), np.exp(grid),
                                   values))
    dp.enable_features("contrib", "honest-but-curious")
    return dp.new_privacy_profile(lambda eps_prime: min(1.0, max(0.0, curve(eps_prime))))
