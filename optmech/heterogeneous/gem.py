"""The generalised exponential mechanism (GEM), its modified form (mGEM) and combined GEM.

GEM (Raskhodnikova & Smith 2015, as run in the heterogeneous-sensitivities paper, Section
IV-C): transform the scores with :func:`~optmech.heterogeneous.gem_transform.gem_scores`
(eqn 7) and run report-noisy-max with exponential noise, i.e. permute-and-flip, on the
transformed scores with sensitivity 1:

    Pr[GEM = r] = PF_{ε, Δ=1}(q')_r,   q' = gem_scores(q, Δ, t),   t = 2 log(n/β)/ε.

Privacy: ``q'`` has sensitivity at most 1 whenever each ``q_a`` moves by at most ``Δ_a``
(module :mod:`~optmech.heterogeneous.gem_transform`), and PF is ε-DP for sensitivity-1
scores (McKenna & Sheldon 2020, Theorem 1), so GEM is ε-DP for every fixed ``t``.
mGEM (Section IV-D) is the same with ``t = -2 log(n/β)/ε``: it penalises low-sensitivity
candidates instead of high-sensitivity ones.

``pmf`` is exact (the foundation's cancellation-free PF integral, ~1e-15), evaluated on the
log coins ``(ε/2) q'`` formed without overflow (exact power-of-two rescaling, see
:func:`~optmech.heterogeneous.gem_transform.scaled_gem_scores`): supported are scores,
sensitivities and ε anywhere in the finite doubles with
``max(ε|q_a|/2, (1 + log(n/β)) Δ_a) / min Δ_a <= 2^2030`` (about 1e611); beyond it the
input is refused with :class:`~optmech.validation.InvalidArgumentError`.  ``logpmf`` is its
logarithm from PF's log form (finite where a probability underflows: at ε = 700 a
candidate 3 below the top has probability e^-1050), the top candidate's from the others
(:func:`~optmech.selection.scores.log_top_from_rest`), and ``logpmf_error`` bounds its
error as :meth:`PermuteAndFlip.logpmf_error` does, with the transform's rounding added
(four more units of ``2^-53 |log p|``).  ``sample``
delegates to :meth:`PermuteAndFlip.sample` with any extra keyword options.

Combined GEM (Algorithm 2): 2-ary randomised response with budget ``ε_c`` on the bit
``[spearman(q, Δ) >= 0]``; mGEM with ``ε - ε_c`` if it reports 1, GEM with ``ε - ε_c``
otherwise.  ε-DP by basic composition (randomised response on any bit is ``ε_c``-DP).  Its
pmf is the exact two-component mixture.  The paper's experiments use ``ε_c = 0.6 ε``.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from optmech.heterogeneous.base import HeterogeneousMechanism
from optmech.heterogeneous.gem_transform import gem_scores, scaled_gem_scores
from optmech.selection.exact.sampling import bernoulli_logistic
from optmech.selection.mechanisms import PermuteAndFlip, PrivacyGuarantee
from optmech.selection.parametrised import given
from optmech.selection.pf_probabilities import (
    pf_probabilities_from_log_coins,
    pf_probability_rows,
)
from optmech.selection.samplers import sample_shape, shaped
from optmech.selection.scores import ROUNDING, log_error_rows, log_top_from_rest
from optmech.validation import (
    InvalidArgumentError,
    check_finite,
    check_finite_result,
    check_positive,
    check_rng,
)

__all__ = ["CombinedGEM", "GeneralisedExponentialMechanism", "ModifiedGEM",
           "spearman_correlation"]

DEFAULT_BETA = 0.05
DEFAULT_CORRELATION_SHARE = 0.6


def spearman_correlation(x, y) -> float:
    """Spearman's rank correlation (average ranks for ties); 0 when either is constant."""
    from scipy.stats import rankdata  # imported on use: the CLI starts fast

    rx, ry = rankdata(x), rankdata(y)
    rx, ry = rx - rx.mean(), ry - ry.mean()
    norm = math.sqrt(float(rx @ rx) * float(ry @ ry))
    return float(rx @ ry) / norm if norm > 0 else 0.0


class GeneralisedExponentialMechanism(HeterogeneousMechanism):
    """GEM: permute-and-flip on the normalised scores of eqn (7).

    ``beta`` in (0, 1) sets the default shift ``t = 2 log(n/β)/ε`` (``n`` candidates; the
    paper uses β = 0.05); an explicit ``t`` overrides it.

    Supported range of ``pmf`` (module docstring): any finite scores, sensitivities and ε
    with ``max(ε|q_a|/2, (1 + |ε t/2|) Δ_a) <= 2^2030 min Δ_a``; beyond it
    :class:`~optmech.validation.InvalidArgumentError`.  ``sample`` and
    :meth:`transformed_scores` use ``q'`` itself, which must be a finite double.
    """

    name = "gem"
    _direction = 1.0
    #: Every candidate has a positive probability: a ``-inf`` of :meth:`logpmf` is a
    #: log-probability below -1.8e308 (:mod:`optmech.privacy.loss` refuses such a pair).
    logpmf_finite = True

    def __init__(self, epsilon: float, beta: float = DEFAULT_BETA, t: float | None = None):
        super().__init__(epsilon)
        beta = check_positive(beta, "beta")
        if beta >= 1:
            raise InvalidArgumentError("beta", beta, "a number in (0, 1)")
        self.beta = beta
        self.t = None if t is None else check_finite(t, "t")

    def _parameters(self) -> dict:
        return {**super()._parameters(), "beta": self.beta, "t": self.t}

    def shift(self, n_candidates: int) -> float:
        """``t``: the explicit value, else ``±2 log(n/β)/ε`` (+ for GEM, - for mGEM)."""
        if self.t is not None:
            return self.t
        t = self._direction * 2.0 * math.log(n_candidates / self.beta) / self.epsilon
        if not math.isfinite(t):
            raise InvalidArgumentError("epsilon", self.epsilon, "large enough that the shift "
                                       "t = 2 log(n/beta)/epsilon is a finite double")
        return t

    def _exponent_shift(self, n_candidates: int) -> float:
        """``ε t / 2``: the shift of eqn (7) in units of the PF exponent (``±log(n/β)`` by
        default, so it exists even where ``t`` overflows)."""
        if self.t is None:
            return self._direction * math.log(n_candidates / self.beta)
        value = self.epsilon * self.t / 2
        if not math.isfinite(value):
            raise InvalidArgumentError("t", self.t, "a number with epsilon * t / 2 finite")
        return value

    def transformed_scores(self, scores, sensitivities) -> np.ndarray:
        """``q'`` of eqn (7) with this mechanism's ``t`` (sensitivity <= 1)."""
        q, d = self.inputs(scores, sensitivities)
        return gem_scores(q, d, self.shift(q.size))

    @property
    def privacy(self) -> PrivacyGuarantee:
        return PrivacyGuarantee(self.epsilon, 0.0,
                                "transformed scores have sensitivity <= 1 (Raskhodnikova-Smith "
                                "2015); permute-and-flip on them (McKenna-Sheldon 2020, Thm 1)")

    def _pf(self) -> PermuteAndFlip:
        return PermuteAndFlip(self._given_epsilon, 1)

    def _log_coins(self, q, d) -> np.ndarray:
        # PF with sensitivity 1 has log coins (ε/2) q'_a, which is eqn (7) on (ε q / 2, Δ)
        # with shift ε t / 2: computed that way, nothing overflows for any finite ε.  A log
        # coin below -1.8e308 is -inf (a weight of 0, its correctly rounded value).
        return scaled_gem_scores(q, d, self._exponent_shift(q.size), self.epsilon / 2)

    def _pmf(self, q, d):
        return check_finite_result(pf_probabilities_from_log_coins(self._log_coins(q, d)),
                                   f"the {self.name} probabilities")

    def logpmf(self, scores, sensitivities) -> np.ndarray:
        """``log pmf`` (module docstring), finite where a probability underflows."""
        return self._logpmf(*self.inputs(scores, sensitivities))

    def _logpmf(self, q, d):
        return pf_probability_rows(self._log_coins(q, d)[None, :], log=True)[0]

    def logpmf_error(self, logpmf) -> np.ndarray:
        """Bounds on the errors of :meth:`logpmf`'s values (module docstring)."""
        rows = np.atleast_2d(np.asarray(logpmf, dtype=float))
        out = log_error_rows(rows, 10.0, (2 * rows.shape[1] + 110) * ROUNDING, True)
        return out if np.ndim(logpmf) == 2 else out[0]

    def _sample(self, q, d, size, rng, **options):
        return self._pf().sample(gem_scores(q, d, self.shift(q.size)), size=size, rng=rng,
                                 **options)


class ModifiedGEM(GeneralisedExponentialMechanism):
    """mGEM (paper Section IV-D): GEM with ``t = -2 log(n/β)/ε`` by default."""

    name = "mgem"
    _direction = -1.0


class CombinedGEM(HeterogeneousMechanism):
    """Combined GEM (paper Algorithm 2): a private guess of the sign of the correlation
    picks mGEM (positive) or GEM (negative).

    ``epsilon_c`` (default ``0.6 ε``, the paper's choice) is spent on 2-ary randomised
    response; GEM/mGEM get ``ε - ε_c``.  ``0 < ε_c < ε`` is required.  Given as ints or
    ``Fraction``, both budgets and their difference stay exact for ``exact=True``.
    """

    name = "combined_gem"
    logpmf_finite = True

    def __init__(self, epsilon: float, epsilon_c: float | None = None,
                 beta: float = DEFAULT_BETA):
        super().__init__(epsilon)
        if epsilon_c is None:
            epsilon_c = DEFAULT_CORRELATION_SHARE * self.epsilon
            if isinstance(epsilon, (int, Fraction)) and not isinstance(epsilon, bool):
                epsilon_c = Fraction(str(DEFAULT_CORRELATION_SHARE)) * epsilon
        self.epsilon_c = check_positive(epsilon_c, "epsilon_c")
        if self.epsilon_c >= self.epsilon:
            raise InvalidArgumentError("epsilon_c", epsilon_c,
                                       f"a number in (0, epsilon = {self.epsilon:g})")
        self._given_epsilon_c = epsilon_c
        rest = epsilon - epsilon_c
        self.gem = GeneralisedExponentialMechanism(rest, beta)
        self.mgem = ModifiedGEM(rest, beta)

    def _parameters(self) -> dict:
        return {**super()._parameters(), "epsilon_c": given(self._given_epsilon_c),
                "beta": self.gem.beta}

    @property
    def privacy(self) -> PrivacyGuarantee:
        return PrivacyGuarantee(self.epsilon, 0.0,
                                f"randomised response on the correlation sign "
                                f"({self.epsilon_c:g}-DP) then GEM or mGEM "
                                f"({self.epsilon - self.epsilon_c:g}-DP), basic composition")

    def modified_probability(self, scores, sensitivities) -> float:
        """Probability that mGEM runs: ``e^{ε_c}/(1 + e^{ε_c})`` when ``spearman >= 0``."""
        q, d = self.inputs(scores, sensitivities)
        return self._modified_probability(q, d)

    def _modified_probability(self, q, d) -> float:
        truthful = 1.0 / (1.0 + math.exp(-self.epsilon_c))
        return truthful if spearman_correlation(q, d) >= 0 else 1.0 - truthful

    def _pmf(self, q, d):
        p = self._modified_probability(q, d)
        return p * self.mgem._pmf(q, d) + (1.0 - p) * self.gem._pmf(q, d)

    def logpmf(self, scores, sensitivities) -> np.ndarray:
        """``log pmf``: the mixture of GEM's and mGEM's log-probabilities by log-add-exp,
        the top candidate's from the others."""
        q, d = self.inputs(scores, sensitivities)
        # log e^c / (1 + e^c) and log 1 / (1 + e^c) without rounding either to log 1 - p
        truthful = -math.log1p(math.exp(-self.epsilon_c))
        other = -self.epsilon_c + truthful
        if spearman_correlation(q, d) < 0:
            truthful, other = other, truthful
        mixed = np.logaddexp(truthful + self.mgem._logpmf(q, d),
                             other + self.gem._logpmf(q, d))
        return log_top_from_rest(mixed[None, :])[0]

    def logpmf_error(self, logpmf) -> np.ndarray:
        """Bounds on the errors of :meth:`logpmf`'s values: GEM's, two roundings more."""
        rows = np.atleast_2d(np.asarray(logpmf, dtype=float))
        out = log_error_rows(rows, 12.0, (2 * rows.shape[1] + 114) * ROUNDING, True)
        return out if np.ndim(logpmf) == 2 else out[0]

    def _sample(self, q, d, size, rng, **options):
        # ``rng`` (None or a Generator) and ``options`` go to GEM/mGEM unchanged, so they
        # keep their own meaning of rng=None; with exact=True the randomised-response coin
        # is exact too (and rng=None means the OS CSPRNG).
        shape, count = sample_shape(size)
        if options.get("exact"):
            truthful = bernoulli_logistic(self._given_epsilon_c, count, rng)
        else:
            truthful = check_rng(rng).random(count) < 1.0 / (1.0 + math.exp(-self.epsilon_c))
        modified = truthful if spearman_correlation(q, d) >= 0 else ~truthful
        out = np.empty(count, dtype=np.int64)
        out[modified] = self.mgem._sample(q, d, int(modified.sum()), rng, **options)
        out[~modified] = self.gem._sample(q, d, int((~modified).sum()), rng, **options)
        return shaped(out, shape)
