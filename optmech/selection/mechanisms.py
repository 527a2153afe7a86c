"""Private selection mechanisms as objects in the style of ``scipy.stats``.

Every mechanism is built once with its privacy parameters and then applied to score
vectors (utilities: higher is better; error = max score - score of the selection):

* ``pmf(scores)``: exact probability of every candidate (method and accuracy in each
  class's docstring); ``logpmf(scores)`` its logarithm (finite where the probability
  underflows, for the mechanisms with a closed log form);
* ``expected_error(scores)``: ``sum_r pmf_r * (q* - q_r)``;
* ``sample(scores, size=None, rng=None)``: draws, vectorised with numpy; ``size=None``
  returns one ``int``; ``rng`` is None, an integer seed or a ``numpy.random.Generator``;
  ``rvs(scores, size=None, random_state=None)`` is the same under ``scipy.stats``'s names
  (a legacy ``numpy.random.RandomState`` is refused, see
  :mod:`optmech.selection.parametrised`);
* ``privacy``: the :class:`PrivacyGuarantee` the mechanism has, stated next to its code.

**Batches.**  ``pmf``, ``logpmf`` and ``expected_error`` also take a 2-D array of score
vectors, one per row (shape ``(m, n)``), and return one row of probabilities (an array of
``m`` errors) per vector.  Permute-and-flip, the exponential mechanism, report-noisy-max
with exponential or Gumbel noise, randomised response and the uniform choice compute the
whole batch with array operations (no Python loop per row; PF's quadrature kernel is
:func:`~optmech.selection.pf_probabilities.pf_rows`, for rows of up to
:data:`~optmech.selection.pf_probabilities.BATCH_MAX` candidates); report-noisy-max with
Laplace or Gaussian noise and :class:`PmfMechanism` evaluate row by row.  A row of a batch
equals the 1-D call on that vector (the 1-D call runs the same kernel on one row);
``benchmarks/batch_pmf.py`` measures the batch against ``scipy.special.softmax``.

**Values.**  A mechanism's repr is the constructor call that rebuilds it
(``PermuteAndFlip(epsilon=1.3, sensitivity=1.0, monotonic=False)``), and two mechanisms of
the same class with equal arguments are equal and hash alike
(:class:`~optmech.selection.parametrised.Parametrised`).

``monotonic=True`` declares that neighbouring datasets move all scores in the same
direction (e.g. counts); it halves the noise for the same guarantee.

**Gaussian noise** (:class:`GaussianNoisyMax`, ``rnm_gaussian``) is set by its noise scale
``sigma``, not by an ε: it is not ε-DP for any ε (two candidates far apart have an unbounded
privacy loss), and its ``privacy`` is a :class:`GaussianGuarantee`, a zCDP ``rho`` for each
number of candidates, with no ``epsilon`` or ``delta`` for code that expects pure DP to read.
"""

from __future__ import annotations

# The exact samplers and the report-noisy-max quadrature are imported where they are used,
# so that `optmech select pmf --mechanism pf` and `optmech --help` start fast.
import math
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from optmech.resources import require_memory
from optmech.selection.parametrised import Parametrised, check_random_state, given
from optmech.selection.pf_probabilities import pf_probability_rows
from optmech.selection.samplers import (
    sample_exponential_mechanism,
    sample_from_pmf,
    sample_noisy_argmax,
    sample_permute_and_flip,
    sample_shape,
    shaped,
)
from optmech.selection.scores import (
    ROUNDING,
    check_score_rows,
    expected_gap_rows,
    gaps,
    log_error_rows,
    log_weight_rows,
    log_weights,
)
from optmech.validation import (
    InvalidArgumentError,
    NonFiniteResultError,
    check_choice,
    check_integer,
    check_positive,
    check_rng,
    check_scores,
)

__all__ = [
    "ExponentialMechanism",
    "MECHANISMS",
    "PermuteAndFlip",
    "PmfMechanism",
    "DOMINANCES",
    "GAUSSIAN_NAME",
    "GaussianGuarantee",
    "GaussianNoisyMax",
    "PrivacyGuarantee",
    "SELECTION_NAMES",
    "RandomizedResponse",
    "ReportNoisyMax",
    "SelectionMechanism",
    "UniformSelection",
    "as_mechanism",
    "canonical_name",
    "labelled_mechanisms",
    "make_mechanism",
    "set_privacy_parameters",
]


#: The kinds of dominating pair a guarantee can declare (:attr:`PrivacyGuarantee.dominance`;
#: the theorems are in :mod:`optmech.privacy.dominating`).
DOMINANCES = ("bounded-range", "laplace", "randomised-response")


@dataclass(frozen=True)
class PrivacyGuarantee:
    """``(epsilon, delta)``-differential privacy for scores of the stated sensitivity."""

    #: The privacy parameter ε (>= 0; 0 for an output independent of the data).
    epsilon: float
    #: The privacy parameter δ, in [0, 1] (0: pure ε-DP, as every mechanism here).
    delta: float = 0.0
    #: For which scores the guarantee holds and where it is proved (e.g. a paper and theorem); may
    #: be empty.
    statement: str = ""
    #: What dominates one run, for composition: ``(kind, ε of a round, rounds)`` with a kind
    #: of :data:`DOMINANCES` (``"bounded-range"``: every pair's losses lie in an interval of
    #: length ε, Dong, Durfee and Rogers, arXiv:1909.13830; ``"laplace"``: every pair is a
    #: post-processing of the Laplace pair, :mod:`optmech.privacy.dominating`), or None when
    #: only the ``(ε, δ)`` statement is claimed (pure ε-DP is dominated by randomised response).
    dominance: tuple | None = None

    def __str__(self) -> str:
        kind = f"({self.epsilon:g}, {self.delta:g})-DP" if self.delta else f"{self.epsilon:g}-DP"
        return f"{kind}: {self.statement}" if self.statement else kind


def gaussian_spread(n: int, monotonic: bool) -> float:
    """``c(n) = max ||P d||^2 / Δ^2`` over the moves ``d`` of one neighbouring pair on ``n``
    candidates, ``P`` the projection that removes the mean (:class:`GaussianGuarantee`):
    ``n - (n mod 2) / n`` when every score moves by at most Δ either way (half up, half down),
    ``floor(n/2) ceil(n/2) / n`` when all move the same way."""
    if monotonic:
        return (n // 2) * ((n + 1) // 2) / n
    return n - (n % 2) / n


#: The largest ``mu(n)`` a :class:`GaussianGuarantee` gives: its ``rho = mu^2 / 2`` stays a
#: double (far beyond any useful guarantee: ``mu = 10`` is already ``rho = 50``).
MAX_GAUSSIAN_MU = 1e150


@dataclass(frozen=True)
class GaussianGuarantee:
    """Zero-concentrated differential privacy of report-noisy-max with Gaussian noise: for
    ``n`` candidates, ``rho(n) = Δ^2 c(n) / (2 sigma^2)``-zCDP, with ``c(n) = n - (n mod 2)/n``
    (``floor(n/2) ceil(n/2) / n`` for monotonic scores; :func:`gaussian_spread`).

    Proof (post-processing).  ``argmax_r (q_r + Z_r)`` does not change when the same number is
    added to every noisy score, so it is a function of ``P(q + Z) = Pq + PZ``, ``P`` the
    projection onto the vectors with mean 0; ``PZ`` is an isotropic ``N(0, sigma^2)`` vector of
    that ``(n - 1)``-dimensional space.  So the mechanism post-processes the Gaussian mechanism
    ``Pq + N(0, sigma^2 I_{n-1})``, whose two outputs on neighbours ``q, q' = q + d`` are, up to
    an isometry, ``N(0, 1)`` and ``N(mu, 1)`` with ``mu = ||P d|| / sigma``: every pair of the
    selection is a post-processing of that pair, so its hockey-stick curve is at most
    ``Phi(mu/2 - eps'/mu) - e^eps' Phi(-mu/2 - eps'/mu)`` and ``D_alpha <= alpha mu^2 / 2``.
    ``||P d||^2 = ||d||^2 - (sum d)^2 / n`` is convex in ``d``, so its largest value over the
    box of moves ``|d_r| <= Δ`` is at a corner: ``Δ^2 (n - (2k - n)^2 / n)`` with ``k`` moves
    up, largest at ``k = floor(n/2)``; over ``0 <= d_r <= Δ`` (monotonic): ``Δ^2 k (n - k) /
    n``.  This is the Gaussian mechanism's ``n Δ^2 / (2 sigma^2)`` on the score vector (its
    l2 sensitivity is ``Δ sqrt n``) made smaller by the shift invariance: the same for even
    ``n``, ``Δ^2 / (2 n sigma^2)`` less for odd ``n``, a quarter of it for monotonic scores.
    At ``n = 2`` the bound is the supremum over pairs: the selection is the sign of the
    Gaussian mechanism on the gap, whose Rényi divergence of order ``alpha`` at a gap of about
    ``alpha mu`` noise units approaches ``alpha mu^2 / 2``.

    Not ε-DP for any ε (a candidate ``g`` scales below the top that moves up by Δ while the top
    moves down has a loss growing like ``g Δ / sigma^2``), so there is no ``epsilon``, ``delta``
    or ``dominance`` here: code that accounts pure DP refuses this guarantee.  Lebensold,
    Precup and Balle (arXiv:2402.06137) give a pure ε for scores confined to a bounded range
    (:mod:`optmech.privacy.gaussian_claims` checks their statement).
    """

    #: The noise scale σ.
    sigma: float
    #: The score sensitivity Δ.
    sensitivity: float
    #: Whether neighbours move all scores the same way.
    monotonic: bool = False

    @property
    def statement(self) -> str:
        """Where the guarantee holds and where it is proved."""
        kind = "monotonic scores" if self.monotonic else "scores"
        return (f"{kind} of sensitivity {self.sensitivity:g}, noise scale {self.sigma:g} "
                "(post-processing of the Gaussian mechanism on the scores with their mean "
                "removed; optmech.selection.mechanisms.GaussianGuarantee)")

    def mu(self, n: int) -> float:
        """``mu(n) = Δ sqrt(c(n)) / sigma``: every pair on ``n`` candidates is a
        post-processing of ``N(0, 1)`` against ``N(mu, 1)``; refused above
        :data:`MAX_GAUSSIAN_MU` (naming ``sigma``), where ``rho(n)`` would not be a
        double."""
        root = self.sensitivity * math.sqrt(gaussian_spread(n, self.monotonic))
        mu = root / self.sigma
        if not mu <= MAX_GAUSSIAN_MU:
            raise InvalidArgumentError("sigma", self.sigma, f"at least about "
                                       f"{root / MAX_GAUSSIAN_MU:.3g} on {n} candidates "
                                       f"(mu = Delta sqrt(c(n)) / sigma at most "
                                       f"{MAX_GAUSSIAN_MU:g}: its rho a double)")
        return mu

    def rho(self, n: int) -> float:
        """``rho(n) = mu(n)^2 / 2``, the zCDP parameter on ``n`` candidates."""
        return self.mu(n) ** 2 / 2.0

    def __str__(self) -> str:
        return (f"rho(n) = {self.sensitivity:g}^2 c(n) / (2 * {self.sigma:g}^2)-zCDP for n "
                f"candidates: {self.statement}")


class SelectionMechanism(Parametrised, ABC):
    """Common interface; subclasses implement :meth:`_pmf` (one validated score vector) or
    :meth:`_pmf_rows` (a 2-D array of them, vectorised), :meth:`_draw` and
    :meth:`_parameters` (the constructor arguments, for repr, ``==`` and ``hash``)."""

    name: str = ""
    #: Whether every candidate has a positive probability, so that a ``-inf`` of
    #: :meth:`logpmf` means a log-probability below -1.8e308 (not a probability of 0): true
    #: for the mechanisms here, false for one given by its pmf.
    logpmf_finite: bool = False

    @property
    @abstractmethod
    def privacy(self) -> PrivacyGuarantee:
        """The differential-privacy guarantee of this mechanism."""

    def _pmf(self, q: np.ndarray) -> np.ndarray:
        """Probabilities for one validated score vector (by default the kernel of
        :meth:`_pmf_rows` on one row)."""
        return self._pmf_rows(q[None, :])[0]

    def _pmf_rows(self, rows: np.ndarray) -> np.ndarray:
        """Probabilities for each row of validated score vectors (by default :meth:`_pmf`
        row by row)."""
        return np.array([self._pmf(q) for q in rows])

    def _logpmf_rows(self, rows: np.ndarray) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.log(self._pmf_rows(rows))

    def _log_accuracy(self, n: int) -> tuple[float, float, bool]:
        """``(kappa, rho, top_from_rest)`` of
        :func:`~optmech.selection.scores.log_error_rows` for ``n`` candidates.  By default
        the logarithm of the pmf as computed (one ulp, ``2 u |log p|``, and ``2 u``; the
        pmf itself taken as exact)."""
        return 2.0, 2.0 * ROUNDING, False

    @abstractmethod
    def _draw(self, scores: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
        """``count`` i.i.d. selections for validated ``scores``."""

    def pmf(self, scores) -> np.ndarray:
        """Exact probability of selecting each candidate: a vector for one score vector, an
        array of shape ``(m, n)`` for ``m`` score vectors given as the rows of a 2-D
        array."""
        rows, batch = _score_rows(scores)
        out = self._pmf_rows(rows)
        return out if batch else out[0]

    def logpmf(self, scores) -> np.ndarray:
        """``log pmf(scores)`` (``-inf`` where the probability is 0 in double precision);
        one row per score vector for a 2-D ``scores``."""
        rows, batch = _score_rows(scores)
        out = self._logpmf_rows(rows)
        return out if batch else out[0]

    def logpmf_error(self, logpmf) -> np.ndarray:
        """Bounds on ``|logpmf - log(exact pmf)|`` for log-probabilities :meth:`logpmf`
        returned (one row, or a 2-D batch), from the accuracy this mechanism states:
        ``kappa 2^-53 |log p_r| + rho`` per candidate, the top one (above 1/2) from the
        others' (:func:`~optmech.selection.scores.log_error_rows`).  Each class states
        ``kappa`` and ``rho`` beside its method (derived, and measured against 50-digit
        mpmath with a margin: every error of about 1,000 random score vectors, gaps up to
        10^4, epsilon 0.01 to 30, is below two thirds of its bound)."""
        rows = np.atleast_2d(np.asarray(logpmf, dtype=float))
        out = log_error_rows(rows, *self._log_accuracy(rows.shape[1]))
        return out if np.ndim(logpmf) == 2 else out[0]

    def expected_error(self, scores):
        """``E[q* - q_M(q)] = sum_r pmf_r (q* - q_r)`` (refused if it overflows a double): a
        float for one score vector, an array of ``m`` errors for a 2-D ``scores``."""
        rows, batch = _score_rows(scores)
        errors = expected_gap_rows(self._pmf_rows(rows), rows)
        return errors if batch else float(errors[0])

    def log_expected_error(self, scores) -> float:
        """``log E[q* - q_M(q)]`` from :meth:`logpmf`, finite where the error itself
        underflows to 0 (e.g. a far-ahead best candidate at large epsilon); ``-inf`` when
        every candidate ties with the best (the error is exactly 0)."""
        q = _refuse_large(check_scores(_refuse_large(scores)))
        g = gaps(q)
        below = g > 0
        if not below.any():
            return -math.inf
        terms = self.logpmf(q)[below] + np.log(g[below])
        top = terms.max()
        if not math.isfinite(top):
            raise NonFiniteResultError(f"log expected error of {self.name or self!r} "
                                       "underflows (no log-space pmf for this mechanism)")
        return float(top + np.log(np.exp(terms - top).sum()))

    def sample(self, scores, size=None, rng=None, exact=False):
        """Random selections: an ``int`` if ``size`` is None, else an array of that shape.

        ``rng``: None (a fresh generator), an integer seed >= 0, or a
        ``numpy.random.Generator``.

        ``exact=True`` (:class:`PermuteAndFlip` and :class:`ExponentialMechanism` only)
        samples with exact rational arithmetic, so floating point cannot leak through the
        output (:mod:`optmech.selection.exact.sampling`, ``docs/security.md``): scores are read as
        exact rationals (ints, ``fractions.Fraction`` or finite floats), as are the
        mechanism's epsilon and sensitivity as given to its constructor (a ``Fraction``
        stays exact), and ``rng=None`` then
        means the operating system's CSPRNG (``secrets``); pass a seeded Generator only
        for reproducible tests.
        """
        if exact is not False:
            if exact is not True:
                raise InvalidArgumentError("exact", exact, "True or False")
            shape, count = _sample_count(size)
            return shaped(self._draw_exact(scores, count, rng), shape)
        _refuse_large(scores)
        q = _refuse_large(check_scores(scores))
        shape, count = _sample_count(size)
        return shaped(self._draw(q, count, check_rng(rng)), shape)

    def rvs(self, scores, size=None, random_state=None):
        """:meth:`sample` under ``scipy.stats``'s names: ``size`` draws (an ``int`` if
        ``size`` is None), ``random_state`` None, an integer seed >= 0 or a
        ``numpy.random.Generator`` (a legacy ``RandomState`` is refused; see
        :func:`~optmech.selection.parametrised.check_random_state`)."""
        return self.sample(scores, size, check_random_state(random_state))

    def _draw_exact(self, scores, count: int, rng) -> np.ndarray:
        """``count`` selections by an exact-arithmetic sampler; none by default."""
        raise InvalidArgumentError(
            "exact", True, f"False for {type(self).__name__} (exact samplers exist for "
                           "PermuteAndFlip and ExponentialMechanism)")



# Peak bytes of pmf, logpmf and expected_error per score, and of sample per draw, measured
# with tracemalloc and rounded up: up to 163 a score (report-noisy-max with Laplace noise,
# row by row), 107 (permute-and-flip, 10^6 scores), 33 (the exponential mechanism); 109 a
# draw (permute-and-flip's race on 1,000 scores).
_BYTES_PER_SCORE, _BYTES_PER_DRAW = 200, 128


def _refuse_large(scores):
    """``scores``, refused (naming ``scores``) when work on that many scores would exceed
    the memory budget; an array is checked before anything copies it (a broadcast view or
    an int8 array stands for 10^10 scores in little memory)."""
    if isinstance(scores, np.ndarray):
        require_memory(_BYTES_PER_SCORE * scores.size, "scores", scores)
    return scores


def _score_rows(scores) -> tuple[np.ndarray, bool]:
    """:func:`check_score_rows` of ``scores`` checked by :func:`_refuse_large` before and
    after the conversion (a list is measured once it is an array)."""
    rows, batch = check_score_rows(_refuse_large(scores))
    return _refuse_large(rows), batch


def _sample_count(size):
    """``(shape, count)`` of a ``size`` argument, refused up front when the draws exceed
    the memory budget."""
    shape, count = sample_shape(size)
    require_memory(_BYTES_PER_DRAW * count, "size", size)
    return shape, count


def set_privacy_parameters(mechanism, epsilon, sensitivity, monotonic) -> None:
    """Validate and set ``mechanism.epsilon``, ``.sensitivity`` (finite numbers > 0) and
    ``.monotonic`` (True or False), then refuse, naming ``sensitivity``, parameters for
    which the mechanism's ``exponent`` is not a positive finite double."""
    mechanism.epsilon = check_positive(epsilon, "epsilon")
    mechanism.sensitivity = check_positive(sensitivity, "sensitivity")
    if not isinstance(monotonic, (bool, np.bool_)):
        raise InvalidArgumentError("monotonic", monotonic, "True or False")
    mechanism.monotonic = bool(monotonic)
    if not (math.isfinite(mechanism.exponent) and mechanism.exponent > 0):
        raise InvalidArgumentError("sensitivity", sensitivity,
                                   "such that the exponent (epsilon over a multiple of the "
                                   "sensitivity) is a positive finite double (epsilon = "
                                   f"{mechanism.epsilon!r})")


class _ScaledMechanism(SelectionMechanism):
    """Mechanisms whose behaviour depends on ``epsilon / sensitivity`` (and monotonicity)."""

    logpmf_finite = True

    def __init__(self, epsilon: float, sensitivity: float = 1.0, monotonic: bool = False):
        set_privacy_parameters(self, epsilon, sensitivity, monotonic)
        # The values as given (an int or Fraction stays exact for sample(exact=True)).
        self._exact_parameters = (given(epsilon), given(sensitivity))

    def _parameters(self) -> dict:
        epsilon, sensitivity = self._exact_parameters
        return {"epsilon": epsilon, "sensitivity": sensitivity, "monotonic": self.monotonic}

    @property
    def exponent(self) -> float:
        """``epsilon / (2 sensitivity)``, or ``epsilon / sensitivity`` when monotonic."""
        return self.epsilon / ((1 if self.monotonic else 2) * self.sensitivity)

    def _statement(self, source: str) -> str:
        kind = "monotonic scores" if self.monotonic else "scores"
        return f"{kind} of sensitivity {self.sensitivity:g} ({source})"


class ExponentialMechanism(_ScaledMechanism):
    """Exponential mechanism: ``Pr[r] ∝ exp(epsilon * q_r / (2 sensitivity))``.

    Privacy: epsilon-DP (McSherry & Talwar 2007); with monotonic scores the exponent
    ``epsilon / sensitivity`` keeps epsilon-DP.  ``pmf`` is a max-shifted softmax, exact to
    floating-point rounding (relative 1e-15).  ``sample`` draws by exact rejection from the
    near-maximal candidates (:mod:`optmech.selection.samplers`); report-noisy-max with Gumbel noise
    has the same distribution.
    """

    name = "em"

    @property
    def privacy(self) -> PrivacyGuarantee:
        # ε-bounded range: the losses are (ε/(2Δ))(q_r - q'_r) plus one constant, and the
        # moves span at most 2Δ (Δ with the monotonic exponent ε/Δ)
        return PrivacyGuarantee(self.epsilon, 0.0, self._statement("McSherry-Talwar 2007"),
                                ("bounded-range", self.epsilon, 1))

    def _pmf_rows(self, rows):
        weights = log_weight_rows(rows, self.exponent)      # a new array: exp in place
        np.exp(weights, out=weights)
        weights /= weights.sum(axis=1, keepdims=True)
        return weights

    def _logpmf_rows(self, rows):
        # log sum_s e^(z_s) = log1p(sum over all but one top candidate): exact to rounding
        # even where the others are tiny (a top probability near 1 keeps its digits)
        z = log_weight_rows(rows, self.exponent)
        rest = np.exp(z)
        rest[np.arange(rows.shape[0]), np.argmax(z, axis=1)] = 0.0
        return z - np.log1p(rest.sum(axis=1, keepdims=True))

    def _log_accuracy(self, n):
        # z_r: two roundings relative to |z_r| <= |log p_r| (and one of log p_r: kappa 3,
        # 6 with a margin of 2); the normaliser log1p(sum):
        # sum_s e^(z_s) (2 u |z_s| + 2 u) + n u s <= (2n + 4) u absolute (x e^-x <= 1/e)
        return 6.0, (2 * n + 4) * ROUNDING, True

    def _draw(self, scores, count, rng):
        return sample_exponential_mechanism(log_weights(scores, self.exponent), count, rng)

    def _draw_exact(self, scores, count, rng):
        from optmech.selection.exact.sampling import exponential_mechanism_exact

        return exponential_mechanism_exact(scores, *self._exact_parameters, self.monotonic,
                                           count, rng)


class PermuteAndFlip(_ScaledMechanism):
    """Permute-and-flip (McKenna & Sheldon 2020, Algorithm 1).

    Visit candidates in random order and stop at ``r`` with probability
    ``p_r = exp(epsilon (q_r - q*) / (2 sensitivity))``.

    Privacy: epsilon-DP (their Theorem 1); with monotonic scores PF with the usual exponent
    is epsilon/2-DP, so ``monotonic=True`` uses the exponent ``epsilon / sensitivity``.
    ``pmf`` evaluates ``p_r * integral_0^1 prod_{s != r}(1 - p_s t) dt`` by Gauss–Legendre
    (see :mod:`optmech.selection.pf_probabilities`): exact for up to 192 candidates, within 1e-13
    absolute in tests against mpmath, and about a second for 10^6 candidates.
    ``sample`` runs the exponential race ``argmax_r (q_r + Exp(2 sensitivity / epsilon))``,
    which has the same output distribution, touching far-below-maximum candidates only
    through their count (:mod:`optmech.selection.samplers`).
    """

    name = "pf"

    @property
    def privacy(self) -> PrivacyGuarantee:
        # a post-processing of the Laplace pair at ε (optmech.privacy.dominating: the
        # exponential noise's survival function S has S'' <= S)
        return PrivacyGuarantee(self.epsilon, 0.0,
                                self._statement("McKenna-Sheldon 2020, Theorem 1"),
                                ("laplace", self.epsilon, 1))

    def _pmf_rows(self, rows):
        return pf_probability_rows(log_weight_rows(rows, self.exponent))

    def _logpmf_rows(self, rows):
        return pf_probability_rows(log_weight_rows(rows, self.exponent), log=True)

    def _log_accuracy(self, n):
        # the log coin as EM's z; the integral: a product of n factors, a division and a
        # sum of at most 96 positive nodes (relative (n + 100) u), quadrature below 2^-56
        return 6.0, (2 * n + 110) * ROUNDING, True

    def _draw(self, scores, count, rng):
        return sample_permute_and_flip(log_weights(scores, self.exponent), count, rng)

    def _draw_exact(self, scores, count, rng):
        from optmech.selection.exact.sampling import permute_and_flip_exact

        return permute_and_flip_exact(scores, *self._exact_parameters, self.monotonic,
                                      count, rng)


class ReportNoisyMax(_ScaledMechanism):
    """Report-noisy-max: ``argmax_r (q_r + Z_r)`` with i.i.d. noise of one family.

    ``noise="laplace"``: ``Z ~ Laplace(2 sensitivity / epsilon)`` (``sensitivity / epsilon``
    when monotonic); epsilon-DP (Dwork & Roth 2014, Claim 3.9; scale as in the
    permute-and-flip paper's Appendix F).  Its ``pmf`` has no closed form:
    ``Pr[r] = integral G(x) f(x - y_r) / F(x - y_r) dx`` with ``y = (q - q*) / scale`` and
    ``G`` the cdf of the noisy maximum, evaluated by
    :func:`optmech.selection.laplace_noisy_max.laplace_noisy_max_pmf`: Gauss–Legendre on a
    window that leaves out less than 2e-17 of every probability (1e-250 absolute for the
    tiniest), panel edges only at the <= 78 distinct scores nearest the top (n <= 10^6),
    everything below them through two Chebyshev interpolants.  Translation, unit and
    permutation invariant; every probability within 1e-14 absolute and 1e-13 relative
    of a 50-digit mpmath quadrature in tests, the sum checked to be 1 within 1e-12; 0.43 s
    for 10^6 distinct scores (``benchmarks/results/rnm_laplace.md``).  A noise
    scale that is not a finite float > 0 (``2 sensitivity / epsilon`` overflows or
    underflows) raises :class:`~optmech.validation.InvalidArgumentError`.  ``logpmf`` is
    finite for every candidate: below 1e-200 each log-probability comes from its own
    quadrature in log space
    (:func:`~optmech.selection.laplace_noisy_max.laplace_noisy_max_logpmf`).

    ``noise="exponential"``: ``Z ~ Exp(scale 2 sensitivity / epsilon)``: the same
    distribution as :class:`PermuteAndFlip` (Ding et al. 2021), epsilon-DP.
    ``noise="gumbel"``: ``Z ~ Gumbel(scale 2 sensitivity / epsilon)``: the same distribution
    as :class:`ExponentialMechanism`, epsilon-DP.  For these two ``pmf`` uses the closed
    forms; ``sample`` always adds the noise.
    """

    NOISES = ("laplace", "exponential", "gumbel")

    def __init__(self, epsilon: float, sensitivity: float = 1.0, monotonic: bool = False,
                 noise: str = "laplace"):
        super().__init__(epsilon, sensitivity, monotonic)
        self.noise = check_choice(noise, "noise", self.NOISES)
        self.name = f"rnm_{self.noise}"
        if self.noise == "laplace":   # its pmf needs the scale (the others, the exponent)
            self.scale  # noqa: B018 - a scale that is not a finite double > 0 is refused now

    @property
    def scale(self) -> float:
        """Noise scale ``1 / exponent``: ``2 sensitivity / epsilon`` (non-monotonic),
        ``sensitivity / epsilon`` (monotonic), computed with one rounding."""
        scale = (1 if self.monotonic else 2) * self.sensitivity / self.epsilon
        if not (math.isfinite(scale) and scale > 0):
            raise InvalidArgumentError(
                "epsilon, sensitivity", (self.epsilon, self.sensitivity),
                "values whose noise scale (1 or 2) * sensitivity / epsilon is a finite "
                "float > 0")
        return scale

    @property
    def privacy(self) -> PrivacyGuarantee:
        source = {"laplace": "Dwork-Roth 2014, Claim 3.9",
                  "exponential": "equals permute-and-flip; Ding et al. 2021",
                  "gumbel": "equals the exponential mechanism"}[self.noise]
        # Laplace and exponential noise: a post-processing of the Laplace pair at ε
        # (optmech.privacy.dominating); Gumbel noise: the exponential mechanism
        kind = "bounded-range" if self.noise == "gumbel" else "laplace"
        return PrivacyGuarantee(self.epsilon, 0.0, self._statement(source),
                                (kind, self.epsilon, 1))

    def _parameters(self) -> dict:
        return {**super()._parameters(), "noise": self.noise}

    def _twin(self) -> SelectionMechanism | None:
        """The mechanism with the same distribution and a closed form (exponential noise:
        PF, Gumbel noise: EM), or None (Laplace)."""
        twin = {"exponential": PermuteAndFlip, "gumbel": ExponentialMechanism}.get(self.noise)
        return None if twin is None else twin(self.epsilon, self.sensitivity, self.monotonic)

    def _pmf(self, q):
        if self.noise != "laplace":
            return self._twin()._pmf(q)
        from optmech.selection.laplace_noisy_max import laplace_noisy_max_pmf

        return laplace_noisy_max_pmf(q, self.scale)

    def _pmf_rows(self, rows):
        twin = self._twin()
        return super()._pmf_rows(rows) if twin is None else twin._pmf_rows(rows)

    def _logpmf_rows(self, rows):
        twin = self._twin()
        if twin is not None:
            return twin._logpmf_rows(rows)
        from optmech.selection.laplace_noisy_max import laplace_noisy_max_logpmf

        # in log space below 1e-200, so a candidate far below the top is not -inf
        return np.array([laplace_noisy_max_logpmf(q, self.scale) for q in rows])

    def _log_accuracy(self, n):
        twin = self._twin()
        if twin is not None:
            return twin._log_accuracy(n)
        # the quadrature's stated relative accuracy (1e-13 above 1e-250, log space below);
        # its log-space sums carry gaps in scale units: rounding relative to |log p|
        return 8.0, 1e-13, True

    def _draw(self, scores, count, rng):
        # argmax_r (q_r + b Y_r) = argmax_r (z_r + Y_r) with z = (q - q*) / b, Y standard.
        draw = {"laplace": lambda g, shape: g.laplace(0.0, 1.0, shape),
                "exponential": lambda g, shape: g.standard_exponential(shape),
                "gumbel": lambda g, shape: g.gumbel(0.0, 1.0, shape)}[self.noise]
        return sample_noisy_argmax(log_weights(scores, self.exponent), count, rng, draw)


class GaussianNoisyMax(ReportNoisyMax):
    """Report-noisy-max with Gaussian noise: ``argmax_r (q_r + Z_r)``, ``Z_r ~ N(0, sigma^2)``
    i.i.d.

    The noise scale ``sigma`` is the parameter (there is no ε: :class:`GaussianGuarantee`
    states its zCDP ``rho(n) = Δ^2 c(n) / (2 sigma^2)`` for ``n`` candidates, with the proof);
    :meth:`for_rho` calibrates ``sigma`` to a ``rho`` on ``n`` candidates.  ``pmf`` and
    ``logpmf``: :mod:`optmech.selection.gaussian_noisy_max`, the quadrature path shared with
    Laplace noise (:mod:`optmech.selection.iid_noisy_max`): every probability above 1e-200
    within ``1e-14 + 4e-16 |log p|`` relative of a 50-digit mpmath quadrature in tests, the
    sum checked to be 1 within 1e-12; ``logpmf`` finite for every
    candidate whose log-probability is a double.  ``sample`` adds the noise (numpy's normal
    generator) and takes the argmax, in blocks; every draw is an outcome of positive
    probability (all are).
    """

    NOISES = ("gaussian",)
    name = "rnm_gaussian"

    def __init__(self, sigma: float, sensitivity: float = 1.0, monotonic: bool = False):
        self.sigma = check_positive(sigma, "sigma")
        self.sensitivity = check_positive(sensitivity, "sensitivity")
        if not isinstance(monotonic, (bool, np.bool_)):
            raise InvalidArgumentError("monotonic", monotonic, "True or False")
        self.monotonic = bool(monotonic)
        self.noise = "gaussian"
        #: No ε: the mechanism is not ε-DP for any ε (:class:`GaussianGuarantee`).
        self.epsilon = None
        self._given = {"sigma": given(sigma), "sensitivity": given(sensitivity),
                       "monotonic": self.monotonic}

    @classmethod
    def for_rho(cls, rho: float, n: int, sensitivity: float = 1.0,
                monotonic: bool = False) -> GaussianNoisyMax:
        """The mechanism whose proven zCDP parameter on ``n`` candidates is ``rho``:
        ``sigma = Δ sqrt(c(n) / (2 rho))``."""
        rho = check_positive(rho, "rho")
        n = check_integer(n, "n", minimum=2)
        sensitivity = check_positive(sensitivity, "sensitivity")
        sigma = sensitivity * math.sqrt(gaussian_spread(n, bool(monotonic)) / (2.0 * rho))
        if not (math.isfinite(sigma) and sigma > 0):
            raise InvalidArgumentError("rho", rho, "a number > 0 whose noise scale "
                                       "sensitivity * sqrt(c(n) / (2 rho)) is a finite "
                                       "double > 0")
        return cls(sigma, sensitivity, monotonic)

    def _parameters(self) -> dict:
        return dict(self._given)

    @property
    def scale(self) -> float:
        """The noise scale ``sigma``."""
        return self.sigma

    @property
    def exponent(self) -> float:
        """``1 / sigma``: scores in units of the noise scale."""
        return 1.0 / self.sigma

    @property
    def privacy(self) -> GaussianGuarantee:
        return GaussianGuarantee(self.sigma, self.sensitivity, self.monotonic)

    def _twin(self):
        return None

    def _pmf(self, q):
        from optmech.selection.gaussian_noisy_max import gaussian_noisy_max_pmf

        return gaussian_noisy_max_pmf(q, self.sigma)

    def _logpmf_rows(self, rows):
        from optmech.selection.gaussian_noisy_max import gaussian_noisy_max_logpmf

        return np.array([gaussian_noisy_max_logpmf(q, self.sigma) for q in rows])

    def _log_accuracy(self, n):
        # as the Laplace path: 1e-13 relative above 1e-200, log-space sums in scale units
        return 8.0, 1e-13, True

    def _draw(self, scores, count, rng):
        return sample_noisy_argmax(log_weights(scores, self.exponent), count, rng,
                                   lambda g, shape: g.standard_normal(shape))


class RandomizedResponse(SelectionMechanism):
    """k-ary randomised response on the best candidate (``k = len(scores)``).

    Returns the best candidate with probability ``e^epsilon / (e^epsilon + k - 1)`` and each
    other candidate with probability ``1 / (e^epsilon + k - 1)``; with ``m`` tied best
    candidates the true answer is one of them uniformly, so each gets
    ``(e^epsilon + m - 1) / (m (e^epsilon + k - 1))``.  Privacy: epsilon-DP whatever the
    sensitivity (every row of the randomised-response matrix is within ``e^epsilon`` of every
    other, and so are their mixtures).
    """

    name = "rr"
    logpmf_finite = True

    def __init__(self, epsilon: float):
        self.epsilon = check_positive(epsilon, "epsilon")
        self._given_epsilon = given(epsilon)

    def _parameters(self) -> dict:
        return {"epsilon": self._given_epsilon}

    @property
    def privacy(self) -> PrivacyGuarantee:
        return PrivacyGuarantee(self.epsilon, 0.0, "any scores (Warner 1965, k-ary form)")

    def _pmf_rows(self, rows):
        return np.exp(self._logpmf_rows(rows))

    def _logpmf_rows(self, rows):
        best = rows == rows.max(axis=1, keepdims=True)
        m, k = best.sum(axis=1, keepdims=True), rows.shape[1]
        # 1 / (e^eps + k - 1) = e^-eps / (1 + (k - 1) e^-eps): no overflow for large epsilon,
        # in logs so that it stays finite beyond e^-745; the best get log1p of the rest.
        log_other = -self.epsilon - math.log1p((k - 1) * math.exp(-self.epsilon))
        rest = (k - m) * math.exp(log_other)
        with np.errstate(divide="ignore"):
            # a top above 1/2 from the rest (log1p keeps its digits near 1); below, directly
            # (log1p(-rest) would amplify rest's rounding by 1 / (1 - rest))
            log_top = np.where(rest < 0.5, np.log1p(-rest) - np.log(m),
                               self.epsilon + np.log1p((m - 1) * math.exp(-self.epsilon))
                               - np.log(m) + log_other)
        return np.where(best, log_top, log_other)

    def _log_accuracy(self, n):
        return 4.0, 8.0 * ROUNDING, True

    def _draw(self, scores, count, rng):
        return sample_from_pmf(self.pmf(scores), count, rng)


class UniformSelection(SelectionMechanism):
    """Select a candidate uniformly at random, ignoring the scores.  Privacy: 0-DP."""

    name = "uniform"
    logpmf_finite = True

    @property
    def privacy(self) -> PrivacyGuarantee:
        return PrivacyGuarantee(0.0, 0.0, "output independent of the data")

    def _parameters(self) -> dict:
        return {}

    def _pmf_rows(self, rows):
        return np.full(rows.shape, 1.0 / rows.shape[1])

    def _log_accuracy(self, n):
        return 2.0, ROUNDING, False

    def _draw(self, scores, count, rng):
        return rng.integers(scores.size, size=count)


# One spelling for every name and key (``rnm-laplace`` is read as ``rnm_laplace``).
#: The mechanisms set by an ε (pure ε-DP).
MECHANISMS = ("pf", "em", "rnm_laplace", "rnm_gumbel", "rnm_exponential", "rr", "uniform")
#: Report-noisy-max with Gaussian noise, set by its noise scale (:class:`GaussianNoisyMax`).
GAUSSIAN_NAME = "rnm_gaussian"
#: Every selection mechanism by name: :data:`MECHANISMS` and :data:`GAUSSIAN_NAME`.
SELECTION_NAMES = (*MECHANISMS, GAUSSIAN_NAME)


class PmfMechanism(SelectionMechanism):
    """Your own mechanism, given by its output probabilities.

    ``pmf`` is a function ``scores -> probabilities`` (or an object with such a ``pmf``
    method).  Every output is checked before it is used: one finite, non-negative
    probability per candidate, summing to 1 within 1e-9; anything else raises
    :class:`InvalidArgumentError` naming the mechanism.  ``sample`` draws from the pmf
    (inverse CDF on exact-to-rounding cumulative sums); ``expected_error`` and ``logpmf``
    come from the pmf.  ``epsilon``/``sensitivity``/``monotonic`` declare the guarantee the
    mechanism is meant to have: ``privacy`` states it as declared (not checked; measure it
    with :func:`optmech.selection.privacy.realised_epsilon`), or is None when no epsilon is
    declared.  Built-in comparisons (optimality ratios, privacy checks) use the declared
    epsilon and sensitivity.
    """

    def __init__(self, pmf, epsilon: float | None = None, sensitivity: float = 1.0,
                 monotonic: bool = False, name: str = "custom"):
        function = getattr(pmf, "pmf", pmf)
        if not callable(function):
            raise InvalidArgumentError("pmf", pmf, "a function of the scores, or an object "
                                                   "with a pmf(scores) method")
        self._function = function
        self._given = {"pmf": pmf, "epsilon": given(epsilon), "sensitivity": given(sensitivity),
                       "monotonic": monotonic, "name": name}
        self.epsilon = None if epsilon is None else check_positive(epsilon, "epsilon")
        self.sensitivity = check_positive(sensitivity, "sensitivity")
        if not isinstance(monotonic, (bool, np.bool_)):
            raise InvalidArgumentError("monotonic", monotonic, "True or False")
        self.monotonic = bool(monotonic)
        self.name = str(name)

    @property
    def privacy(self) -> PrivacyGuarantee | None:
        if self.epsilon is None:
            return None
        kind = "monotonic scores" if self.monotonic else "scores"
        return PrivacyGuarantee(self.epsilon, 0.0, f"declared for {kind} of sensitivity "
                                                   f"{self.sensitivity:g}, not checked")

    def _parameters(self) -> dict:
        return dict(self._given)

    def _pmf(self, q):
        try:
            p = np.asarray(self._function(q), dtype=float)
        except (TypeError, ValueError) as error:
            raise InvalidArgumentError("mechanism", self.name,
                                       f"a pmf returning numbers ({error})") from None
        if p.shape != q.shape or not np.isfinite(p).all() or (p < 0).any() \
                or not abs(p.sum() - 1.0) <= 1e-9:
            raise InvalidArgumentError("mechanism", self.name,
                                       f"a pmf returning {q.size} finite probabilities >= 0 "
                                       "that sum to 1 (within 1e-9)")
        return p

    def _draw(self, scores, count, rng):
        return sample_from_pmf(self.pmf(scores), count, rng)


def canonical_name(name: str) -> str:
    """A mechanism name in the one spelling of names and keys: ``"rnm-laplace"`` is
    ``"rnm_laplace"``."""
    return name.replace("-", "_") if isinstance(name, str) else name


def make_mechanism(name: str, epsilon: float | None, sensitivity: float = 1.0,
                   monotonic: bool = False, *, sigma: float | None = None) -> SelectionMechanism:
    """Build a mechanism from its short name (see ``SELECTION_NAMES``; ``rnm-laplace`` spelt
    with a hyphen works too); arguments a mechanism does not use (sensitivity for ``rr``,
    everything for ``uniform``) are ignored.  ``rnm_gaussian`` is set by its noise scale
    ``sigma`` (``epsilon`` None: it has no ε); every other mechanism by ``epsilon``."""
    name = check_choice(canonical_name(name), "mechanism", SELECTION_NAMES)
    if name == GAUSSIAN_NAME:
        if epsilon is not None:
            raise InvalidArgumentError("epsilon", epsilon, "None for rnm_gaussian (it is "
                                       "set by its noise scale sigma, and is not eps-DP)")
        if sigma is None:
            raise InvalidArgumentError("sigma", sigma, "a noise scale > 0 for rnm_gaussian")
        return GaussianNoisyMax(sigma, sensitivity, monotonic)
    if sigma is not None:
        raise InvalidArgumentError("sigma", sigma, f"None for {name} (only rnm_gaussian "
                                                   "takes a noise scale)")
    check_positive(epsilon, "epsilon")
    check_positive(sensitivity, "sensitivity")
    if name == "pf":
        return PermuteAndFlip(epsilon, sensitivity, monotonic)
    if name == "em":
        return ExponentialMechanism(epsilon, sensitivity, monotonic)
    if name.startswith("rnm_"):
        return ReportNoisyMax(epsilon, sensitivity, monotonic, noise=name[4:])
    if name == "rr":
        return RandomizedResponse(epsilon)
    return UniformSelection()


def as_mechanism(mechanism, epsilon: float | None = None, sensitivity: float = 1.0,
                 monotonic: bool = False) -> SelectionMechanism:
    """A :class:`SelectionMechanism` from whatever stands for one: a mechanism (as it is), a
    name of :data:`MECHANISMS` (built at ``epsilon``, which is then required), an object
    with a ``pmf(scores)`` method or a plain function of the scores (wrapped in
    :class:`PmfMechanism`, with the object's own ``epsilon``, ``sensitivity``,
    ``monotonic`` and ``name`` attributes where it has them)."""
    if isinstance(mechanism, SelectionMechanism):
        return mechanism
    if isinstance(mechanism, str):
        if epsilon is None:
            raise InvalidArgumentError("epsilon", epsilon, f"a number > 0 to build the "
                                                           f"mechanism {mechanism!r}")
        return make_mechanism(mechanism, epsilon, sensitivity, monotonic)
    if callable(getattr(mechanism, "pmf", None)) or callable(mechanism):
        return PmfMechanism(mechanism,
                            epsilon=getattr(mechanism, "epsilon", None),
                            sensitivity=getattr(mechanism, "sensitivity", sensitivity),
                            monotonic=getattr(mechanism, "monotonic", monotonic),
                            name=getattr(mechanism, "name", None)
                            or getattr(mechanism, "__name__", type(mechanism).__name__))
    raise InvalidArgumentError("mechanism", mechanism, "a mechanism, one of "
                               + ", ".join(MECHANISMS) + ", an object with pmf(scores) or "
                               "a function of the scores")


def labelled_mechanisms(mechanisms) -> list[tuple[str, object]]:
    """``[(label, mechanism), ...]`` from whatever stands for several mechanisms, the one
    reading of every function that takes them (optimality ratios, ratio and bound sweeps,
    heterogeneous scenarios, the data tasks):

    * a dict ``{label: mechanism}``: its items, in order (the label is yours);
    * a list or tuple: its entries, each labelled by itself: a name by its one spelling
      (``"rnm-laplace"`` -> ``"rnm_laplace"``), anything else by its ``name`` attribute,
      else its ``__name__`` (a function), else its type's name;
    * anything else (a name, a mechanism, a function): a list of one.

    What a "mechanism" may be is the caller's to check (a name, a mechanism object, a
    function ``epsilon -> mechanism``...).  Refuses (:class:`InvalidArgumentError`) two
    entries with the same label: the second would silently replace the first in a result
    keyed by label."""
    if isinstance(mechanisms, Mapping):
        items = [(str(label), value) for label, value in mechanisms.items()]
    else:
        entries = list(mechanisms) if isinstance(mechanisms, (list, tuple)) else [mechanisms]
        items = [(_label(value), value) for value in entries]
    labels = [label for label, _ in items]
    repeated = sorted({label for label in labels if labels.count(label) > 1})
    if repeated:
        raise InvalidArgumentError("mechanisms", mechanisms, "mechanisms with distinct labels "
                                   f"({repeated[0]!r} is given twice; a dict sets the labels)")
    return items


def _label(mechanism) -> str:
    """The label of a mechanism given without one (:func:`labelled_mechanisms`)."""
    if isinstance(mechanism, str):
        return canonical_name(mechanism)
    return str(getattr(mechanism, "name", None) or getattr(mechanism, "__name__", None)
               or type(mechanism).__name__)
