"""Validation of a score vector together with its candidate-wise sensitivities."""

from __future__ import annotations

import numpy as np

from optmech.validation import InvalidArgumentError, as_real_array, check_scores

__all__ = ["check_scores_and_sensitivities"]


def check_scores_and_sensitivities(scores, sensitivities, allow_zero: bool = False
                                   ) -> tuple[np.ndarray, np.ndarray]:
    """Scores ``q`` and sensitivities ``Δ`` as float arrays of the same length.

    ``Δ_a`` is the largest change of ``q_a`` between neighbouring datasets (the paper's
    eqn 1); every ``Δ_a`` must be finite and ``> 0`` (``>= 0`` with ``allow_zero``, for
    mechanisms that are defined with noiseless candidates).  A single number is broadcast
    to every candidate.  As for the scores, bools, strings, ``None`` and complex values are
    refused, not converted.
    """
    q = check_scores(scores)
    allowed = ("finite numbers >= 0" if allow_zero else "finite numbers > 0") + \
        f", one per score ({q.size})"
    d = as_real_array(sensitivities, "sensitivities", allowed)
    if d.ndim == 0:
        d = np.full(q.shape, float(d))
    if d.shape != q.shape or not np.isfinite(d).all() or \
            not ((d >= 0).all() if allow_zero else (d > 0).all()):
        raise InvalidArgumentError("sensitivities", sensitivities, allowed)
    return q, d
