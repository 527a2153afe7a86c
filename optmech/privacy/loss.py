"""The privacy loss distribution of a mechanism on one pair of neighbouring score vectors.

For a mechanism ``M``, scores ``q`` and a neighbour ``q'`` (every score moves by at most its
sensitivity: ``|q_r - q'_r| <= Δ_r``; with ``monotonic=True`` all in one direction), the pair
of output distributions ``P = M(q)`` and ``Q = M(q')`` is all there is to the privacy of that
pair.  Its privacy loss distribution is the ``n`` log-ratios ``L_r = log(P_r / Q_r)`` with
their probabilities ``P_r`` (the direction ``P`` against ``Q``), and ``-L_r`` with ``Q_r``
(the other direction).  :class:`LossDistribution` keeps the two log-pmfs, from which
:mod:`optmech.privacy.divergences` computes every curve.

The mechanism is anything with a ``logpmf(scores)`` or a ``pmf(scores)`` method (the
mechanisms of :mod:`optmech.selection`, a heterogeneous mechanism with its sensitivities
bound, the optimal lattice mechanism), taken by duck typing.  ``logpmf`` is preferred: it is
finite where a probability underflows to 0 (the permute-and-flip and exponential-mechanism
log-pmfs of :mod:`optmech.selection` are), so the losses stay exact beyond 1e-308.  A
``pmf`` is used through its logarithm (an output it gives probability 0 has loss
``±inf``).  Each output is checked: ``n`` log-probabilities (``n + extra_outputs`` for a mechanism
with that attribute: repeat-and-select's ``⊥``, :mod:`optmech.privacy.repeat`) whose
probabilities sum to 1 within 1e-9; a mechanism with ``batches = True`` takes a 2-D batch.

Each log-probability carries a bound on its error (:func:`log_probability_errors`): the
mechanism's own (:meth:`~optmech.selection.mechanisms.SelectionMechanism.logpmf_error`, from
the accuracy each mechanism of :mod:`optmech.selection` states), or, for a mechanism of
your own, the rounding of the logarithm of its probabilities as given (they are taken as
exact).  :mod:`optmech.privacy.curves` turns them into the error bound of every curve.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from lp_models.display import Displayed, Tabular
from optmech.selection.mechanisms import SelectionMechanism
from optmech.selection.scores import ROUNDING, log_error_rows
from optmech.validation import InvalidArgumentError, as_real_array, check_scores

__all__ = ["LossDistribution", "check_neighbours", "log_probabilities",
           "log_probability_errors", "loss_distribution", "pair_distribution",
           "sensitivities"]

# Scores and neighbour may differ by Δ plus this much relative slack (decimal inputs such as
# 1.1 - 0.9 round to 0.20000000000000007).
NEIGHBOUR_SLACK = 1e-12


@dataclass(frozen=True, repr=False)
class LossDistribution(Displayed, Tabular):
    """The output distributions of one mechanism on a pair of neighbouring score vectors.

    ``losses`` are ``log(P_r / Q_r)`` (``inf`` where only ``P`` can produce ``r``);
    :meth:`reversed` swaps the two directions.  ``to_frame()`` is one row per output.  Its
    repr names the pair and the largest loss each way.
    """

    #: The score vector ``q``.
    scores: np.ndarray = field(repr=False)
    #: The neighbouring score vector ``q'``.
    neighbour: np.ndarray = field(repr=False)
    #: ``log Pr[M(q) = r]`` for each output ``r`` (``-inf`` for probability 0).
    log_p: np.ndarray = field(repr=False)
    #: ``log Pr[M(q') = r]`` for each output ``r``.
    log_q: np.ndarray = field(repr=False)
    #: Bounds on the errors of :attr:`log_p` (None: the rounding of the values as given).
    log_p_error: np.ndarray | None = field(default=None, repr=False)
    #: Bounds on the errors of :attr:`log_q`.
    log_q_error: np.ndarray | None = field(default=None, repr=False)

    _display = ("scores", "neighbour", "max_loss", "max_loss_backward")

    @property
    def max_loss(self) -> float:
        """``max_r L_r`` over the outputs ``P`` can produce (``D_inf(P||Q)``)."""
        return float(np.max(self.losses))

    @property
    def max_loss_backward(self) -> float:
        """The max loss of the other direction (``D_inf(Q||P)``)."""
        return self.reversed().max_loss

    def errors(self) -> tuple[np.ndarray, np.ndarray]:
        """``(log_p_error, log_q_error)``, the rounding of the given values where unknown
        (:func:`log_probability_errors` of a mechanism of your own)."""
        return tuple(given_errors(logs) if error is None else error
                     for logs, error in ((self.log_p, self.log_p_error),
                                         (self.log_q, self.log_q_error)))

    @property
    def losses(self) -> np.ndarray:
        """``L_r = log(P_r / Q_r)`` (``-inf`` where ``P_r = 0``, ``inf`` where only
        ``Q_r = 0``)."""
        with np.errstate(invalid="ignore"):
            loss = self.log_p - self.log_q
        return np.where(np.isneginf(self.log_p), -np.inf, loss)

    def reversed(self) -> "LossDistribution":
        """The same pair in the other direction (``q'`` against ``q``)."""
        return LossDistribution(self.neighbour, self.scores, self.log_q, self.log_p,
                                self.log_q_error, self.log_p_error)

    def records(self) -> list[dict]:
        # an output past the candidates (repeat-and-select's ⊥) has no score
        return [{"output": r, "score": float(self.scores[r]) if r < self.scores.size else None,
                 "neighbour_score": (float(self.neighbour[r]) if r < self.neighbour.size
                                     else None),
                 "probability": float(np.exp(self.log_p[r])),
                 "neighbour_probability": float(np.exp(self.log_q[r])),
                 "loss": float(loss)} for r, loss in enumerate(self.losses)]


def sensitivities(n: int, sensitivity) -> np.ndarray:
    """One sensitivity per candidate from one number or ``n`` numbers (finite, >= 0, at least
    one > 0)."""
    allowed = "finite numbers >= 0, at least one > 0 (one, or one per candidate)"
    values = as_real_array(sensitivity, "sensitivity", allowed)
    if values.ndim > 1 or values.size not in (1, n):
        raise InvalidArgumentError("sensitivity", sensitivity, allowed)
    delta = np.broadcast_to(values, (n,)).astype(float)
    if not (np.isfinite(delta).all() and (delta >= 0).all() and delta.max() > 0):
        raise InvalidArgumentError("sensitivity", sensitivity, allowed)
    return delta


def check_neighbours(scores, neighbour, sensitivity=1.0, monotonic: bool = False
                     ) -> tuple[np.ndarray, np.ndarray]:
    """``(q, q')`` as float arrays, refused unless ``|q_r - q'_r| <= Δ_r`` for every ``r``
    (with a relative slack of 1e-12 for decimal rounding) and, when ``monotonic``, all
    differences share a sign."""
    q = check_scores(scores, "scores")
    other = check_scores(neighbour, "neighbour")
    if other.shape != q.shape:
        raise InvalidArgumentError("neighbour", neighbour, f"{q.size} scores, like --scores")
    delta = sensitivities(q.size, sensitivity)
    move = other - q
    slack = NEIGHBOUR_SLACK * np.maximum(delta, np.maximum(np.abs(q), np.abs(other)))
    if not (np.abs(move) <= delta + slack).all():
        r = int(np.argmax(np.abs(move) - delta))
        raise InvalidArgumentError("neighbour", neighbour,
                                   f"scores within the sensitivity of --scores (candidate {r} "
                                   f"moves by {abs(move[r]):g} > {delta[r]:g})")
    if monotonic and (move > 0).any() and (move < 0).any():
        raise InvalidArgumentError("neighbour", neighbour, "a neighbour whose scores all "
                                   "move in one direction (--monotonic)")
    return q, other


def log_probabilities(mechanism, rows: np.ndarray) -> np.ndarray:
    """``log Pr[M(row) = r]`` for each row of score vectors (shape ``(m, n)``), from the
    mechanism's ``logpmf`` (a batch call where it takes one) or the log of its ``pmf``;
    checked to be log-probabilities summing to 1 within 1e-9."""
    rows = np.atleast_2d(np.asarray(rows, dtype=float))
    logpmf = getattr(mechanism, "logpmf", None)
    pmf = getattr(mechanism, "pmf", None)
    if not callable(logpmf) and not callable(pmf):
        raise InvalidArgumentError("mechanism", mechanism,
                                   "an object with a logpmf(scores) or pmf(scores) method")
    with np.errstate(divide="ignore"):
        if isinstance(mechanism, SelectionMechanism) or getattr(mechanism, "batches", False):
            out = np.asarray(mechanism.logpmf(rows), dtype=float)
        elif callable(logpmf):
            out = np.array([np.asarray(logpmf(row), dtype=float) for row in rows])
        else:
            out = np.log(np.array([np.asarray(pmf(row), dtype=float) for row in rows]))
    _check_log_pmf(out, rows, mechanism)
    return out


def _check_log_pmf(out: np.ndarray, rows: np.ndarray, mechanism) -> None:
    name = getattr(mechanism, "name", None) or type(mechanism).__name__
    # outputs beyond the candidates: repeat-and-select's ⊥ (optmech.privacy.repeat)
    width = rows.shape[1] + int(getattr(mechanism, "extra_outputs", 0) or 0)
    if out.shape != (rows.shape[0], width) or np.isnan(out).any() or (out > 1e-12).any():
        raise InvalidArgumentError("mechanism", name, "a pmf with one probability per "
                                   "candidate, each in [0, 1]")
    top = out.max(axis=1, keepdims=True)
    total = np.exp(out - top).sum(axis=1) * np.exp(top[:, 0])
    if not (np.abs(total - 1.0) <= 1e-9).all():
        raise InvalidArgumentError("mechanism", name, "a pmf whose probabilities sum to 1 "
                                   "(within 1e-9)")


def given_errors(logs: np.ndarray) -> np.ndarray:
    """Error bounds of log-probabilities taken as exact values of a pmf: one ulp of the
    logarithm (:func:`~optmech.selection.scores.log_error_rows`, ``kappa = rho / u = 2``)."""
    logs = np.asarray(logs, dtype=float)
    return log_error_rows(np.atleast_2d(logs), 2.0, 2.0 * ROUNDING, False).reshape(logs.shape)


def log_probability_errors(mechanism, logs: np.ndarray) -> np.ndarray:
    """Bounds on the errors of ``logs`` (rows of log-probabilities ``mechanism`` gave): its
    ``logpmf_error`` where it has one, else :func:`given_errors` (the probabilities as
    given)."""
    stated = getattr(mechanism, "logpmf_error", None)
    if callable(stated):
        return np.asarray(stated(logs), dtype=float)
    return given_errors(logs)


def pair_distribution(mechanism, q: np.ndarray, other: np.ndarray) -> LossDistribution:
    """The :class:`LossDistribution` of two validated score vectors, with error bounds.

    A mechanism that gives every candidate a positive probability (``logpmf_finite``: those
    of :mod:`optmech.selection`, GEM's family) has a ``-inf`` log-probability only below
    -1.8e308 (a score gap times ``epsilon / (2 sensitivity)`` beyond the double range): the
    losses there cannot be formed, and the pair is refused naming ``epsilon`` and about the
    largest it can be for these scores."""
    logs = log_probabilities(mechanism, np.stack([q, other]))
    if getattr(mechanism, "logpmf_finite", False) and np.isneginf(logs).any():
        sigma = getattr(mechanism, "sigma", None)
        if sigma is not None:            # Gaussian noise: log p ~ -(gap / sigma)^2 / 4
            gap = float(max(np.ptp(q), np.ptp(other)))
            raise InvalidArgumentError(
                "sigma", sigma, f"at least about {gap / 2.6e154:.3g} for these scores (every "
                "log-probability of the pair a double: (score gap / sigma)^2 / 4 below "
                "1.8e308)")
        epsilon = getattr(mechanism, "epsilon", None)
        exponent = getattr(mechanism, "exponent", None) or (epsilon or 2.0) / 2.0
        with np.errstate(over="ignore", divide="ignore"):
            gap = float(max(np.ptp(q), np.ptp(other)))
            # log p ~ -exponent * gap, exponent = epsilon / (2 sensitivity) or epsilon / it
            largest = (epsilon or 1.0) / exponent * (np.finfo(float).max / gap)
        raise InvalidArgumentError(
            "epsilon", epsilon, f"at most about {largest:.3g} for these scores (every "
            "log-probability of the pair a double: the largest score gap times epsilon / "
            "(2 sensitivity) below 1.8e308)")
    errors = log_probability_errors(mechanism, logs)
    return LossDistribution(q.copy(), other.copy(), np.minimum(logs[0], 0.0),
                            np.minimum(logs[1], 0.0), errors[0], errors[1])


def loss_distribution(mechanism, scores, neighbour, sensitivity=1.0,
                      monotonic: bool = False) -> LossDistribution:
    """The privacy loss distribution of ``mechanism`` on the pair ``(scores, neighbour)``,
    refused unless they are neighbours for ``sensitivity`` (:func:`check_neighbours`)."""
    q, other = check_neighbours(scores, neighbour, sensitivity, monotonic)
    return pair_distribution(mechanism, q, other)
