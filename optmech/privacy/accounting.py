"""Export a pair's privacy loss distribution to Google's ``dp_accounting`` (optional extra).

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
"""

from __future__ import annotations

import math

import numpy as np

from optmech.privacy.loss import LossDistribution
from optmech.validation import check_positive

__all__ = ["ACCOUNTING_EXTRA", "require_dp_accounting", "to_dp_accounting"]

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
