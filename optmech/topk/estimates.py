"""Monte Carlo estimates of a top-T mechanism's expected error, with a confidence interval.

Beyond the sizes an exact pmf enumerates (:data:`~optmech.topk.enumeration.MAX_OUTCOMES`), the
expected error of a mechanism is estimated from its own sampler: the mean of the error
measure over ``draws`` independent outputs, its standard error ``s / sqrt(draws)`` (``s``
the sample standard deviation) and the normal-approximation interval
``mean ± z s / sqrt(draws)``, ``z`` the ``(1 + confidence) / 2`` quantile of the standard
normal.  The errors are bounded (by the spread of the scores, or T times it for ``l1``),
so the central limit theorem applies; the interval is asymptotic, and the tests check its
coverage against exact expectations at small sizes.  A seed makes the estimate
reproducible (same seed, same draws, same numbers).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist

from lp_models.display import Displayed
from optmech.topk.utilities import check_measure, check_topk_rows, error_rows
from optmech.validation import InvalidArgumentError, check_integer, check_rng

__all__ = ["MonteCarloEstimate", "estimate_error"]


@dataclass(frozen=True, repr=False)
class MonteCarloEstimate(Displayed):
    """A Monte Carlo estimate of an expected error, with its uncertainty."""

    _display = ("measure", "mean", "standard_error", "interval", "draws", "seed")

    #: The error measure estimated (``"l1"``, ``"l_inf"`` or ``"k_relative"``).
    measure: str
    #: The mean error over the draws: the estimate of the expected error.
    mean: float
    #: The standard error of the mean, ``s / sqrt(draws)`` with ``s`` the sample standard
    #: deviation.
    standard_error: float
    #: The normal-approximation confidence interval ``(low, high)`` for the expected error.
    interval: tuple[float, float]
    #: The confidence level of ``interval`` (e.g. 0.95).
    confidence: float
    #: Number of sampled outputs.
    draws: int
    #: The integer seed the draws came from, or None when a Generator (or fresh entropy) was
    #: used.
    seed: int | None


def estimate_error(mechanism, scores, measure: str = "l1", draws: int = 10_000, rng=None,
                   confidence: float = 0.95) -> MonteCarloEstimate:
    """Estimate ``E[error]`` of ``measure`` for ``mechanism`` (a
    :class:`~optmech.topk.mechanisms.TopKMechanism`) on one score vector from ``draws``
    samples (module docstring)."""
    measure = check_measure(measure)
    draws = check_integer(draws, "draws", minimum=2)
    if not (isinstance(confidence, (int, float)) and 0 < confidence < 1):
        raise InvalidArgumentError("confidence", confidence, "a number in (0, 1)")
    rows, _ = check_topk_rows(scores, mechanism.top)
    if rows.shape[0] != 1:
        raise InvalidArgumentError("scores", scores, "one score vector (1-D)")
    seed = rng if isinstance(rng, int) and not isinstance(rng, bool) else None
    sample = mechanism.sample(rows[0], size=draws, rng=check_rng(rng))
    errors = error_rows(rows, sample, measure, mechanism.ordered)[0]
    mean = float(errors.mean())
    error = float(errors.std(ddof=1)) / math.sqrt(draws)
    half = NormalDist().inv_cdf((1 + confidence) / 2) * error
    return MonteCarloEstimate(measure, mean, error, (mean - half, mean + half),
                              float(confidence), draws, seed)
