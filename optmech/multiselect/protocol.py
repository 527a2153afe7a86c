"""The multi-selection protocol end to end: user noise, server response, user's choice.

1. the user with private value ``u`` sends ``s = u + Y`` (``Y`` from
   :mod:`optmech.multiselect.noise`, Laplace of scale ``1/eps`` by default: eps-geographic
   DP, Definition 2 of the paper);
2. the server answers the ``k`` results ``s + a_1, ..., s + a_k`` (fixed offsets);
3. the user keeps the result nearest to ``u`` (``h`` is increasing) and pays ``h(|u - r|)``.

:class:`MultiSelection` holds one configuration; ``cost`` is the exact expected
disutility (:func:`~optmech.multiselect.noise.expected_cost`; it is the same for every user),
``sample`` draws whole runs of the protocol and ``monte_carlo_cost`` estimates the cost with
its standard error, so tests can compare the two within a tolerance derived from the sample
size.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from lp_models.display import Displayed
from optmech.multiselect.noise import SymmetricNoise, expected_cost, quantile_offsets
from optmech.multiselect.offsets import (
    Disutility,
    ServerResponse,
    check_results,
    optimal_response,
    resolve_disutility,
)
from optmech.resources import Estimate, require_memory
from optmech.selection.mechanisms import PrivacyGuarantee
from optmech.validation import (
    InvalidArgumentError,
    check_finite_result,
    check_integer,
    check_rng,
    check_scores,
)

__all__ = ["MonteCarloEstimate", "MultiSelection", "ProtocolDraws", "work_estimate"]

# CPU seconds per result of the offsets and the exact cost: the closed forms for the
# identity under Laplace noise (0.6 s for 10^6 results), the quantile offsets and the
# closed-form cost for other noise (3 us a result), the recurrence and the quadrature of
# every other disutility (2.2 ms a result measured for Laplace noise and h = square, 4.6 ms
# for Gaussian noise and h = sqrt); and per run of sample() with k results (1e-7 s and
# 50 bytes at k = 1, 5e-7 s and 250 bytes at k = 10).  Measured on a loaded 2-core machine,
# rounded up.
_CLOSED_FORM_SECONDS, _QUANTILE_SECONDS, _QUADRATURE_SECONDS = 2e-6, 1e-5, 6e-3
_RUN_SECONDS, _RUN_SECONDS_PER_RESULT = 1e-7, 6e-8
_RUN_BYTES, _RUN_BYTES_PER_RESULT = 32, 24


@dataclass(frozen=True, repr=False)
class ProtocolDraws(Displayed):
    """Independent runs of the protocol: ``user`` values, ``signal`` sent, ``results``
    (shape ``(..., k)``), index ``chosen`` of the kept result, and the ``disutility`` paid."""

    #: The users' true values.
    user: np.ndarray
    #: The noisy signals they sent.
    signal: np.ndarray
    #: The server's results, shape ``(..., k)``.
    results: np.ndarray
    #: Index of the result each user kept.
    chosen: np.ndarray
    #: The disutility each user paid.
    disutility: np.ndarray

    _display = ("user", "signal", "chosen", "disutility")


@dataclass(frozen=True, repr=False)
class MonteCarloEstimate(Displayed):
    """Sample mean of the disutility and its standard error (sample std / sqrt(size))."""

    #: The sample mean of the disutility.
    mean: float
    #: Sample standard deviation over ``sqrt(size)``.
    standard_error: float
    #: The number of draws.
    size: int

    _display = ("mean", "standard_error", "size")


@dataclass(frozen=True, repr=False)
class MultiSelection(Displayed):
    """One multi-selection configuration.

    ``offsets=None`` picks the optimal offsets for Laplace noise
    (:func:`~optmech.multiselect.offsets.optimal_response`, kept as ``response``, which also
    gives the closed-form cost under the identity) and the Appendix A.3 quantile offsets for
    the other families (``response`` is then None).  ``privacy`` is eps-geographic DP for
    Laplace noise and None otherwise (Gaussian and logistic noise give no pure
    geographic-DP guarantee).
    """

    #: The number of results the server returns.
    k: int
    #: The privacy parameter ε.
    epsilon: float
    #: The disutility: a name or a function (None: the identity).
    h: object = None
    #: The noise family the user adds.
    noise: str = "laplace"
    #: The server's offsets (None: the optimal or quantile offsets, see above).
    offsets: np.ndarray | None = None
    #: The validated noise (from ``noise`` and ``epsilon``).
    _noise: SymmetricNoise = field(init=False, repr=False)
    #: The validated disutility (from ``h``).
    _disutility: Disutility = field(init=False, repr=False)
    #: The optimal Laplace response the offsets came from, or None (see above).
    response: ServerResponse | None = field(init=False, repr=False, default=None)

    def __post_init__(self):
        set_ = object.__setattr__
        set_(self, "k", check_results(self.k))
        noise = SymmetricNoise(self.noise, self.epsilon)
        set_(self, "_noise", noise)
        set_(self, "epsilon", noise.epsilon)
        set_(self, "_disutility", resolve_disutility(self.h, noise.epsilon))
        if self.offsets is None and noise.family == "laplace":
            set_(self, "response", optimal_response(self.k, noise.epsilon, self._disutility))
            offsets = self.response.offsets
        elif self.offsets is None:
            offsets = quantile_offsets(self.k, noise.epsilon, noise)
        else:
            offsets = np.sort(check_scores(np.array(self.offsets, dtype=float, ndmin=1),
                                           "offsets"))
            if offsets.size != self.k:
                raise InvalidArgumentError("offsets", self.offsets, f"{self.k} numbers (k)")
        set_(self, "offsets", offsets)

    _display = ("k", "epsilon", "h", "noise", "offsets")

    def _display_items(self):
        return [*self._repr_items(), ("disutility", self._disutility.name),
                ("cost", self.cost), ("privacy", self.privacy)]

    @property
    def cost(self) -> float:
        """Exact expected disutility of every user (the closed form for the optimal Laplace
        offsets under the identity, else :func:`~optmech.multiselect.noise.expected_cost`)."""
        if self.response is not None and self._disutility.is_identity:
            return self.response.cost           # ln(1 + 1/K)/eps or its odd twin, exact
        return expected_cost(self.offsets, self.epsilon, self._disutility, self._noise)

    @property
    def privacy(self) -> PrivacyGuarantee | None:
        if self._noise.family != "laplace":
            return None
        return PrivacyGuarantee(self.epsilon, 0.0,
                                "eps-geographic DP: Pr[signal in S | u1] <= "
                                "exp(eps |u1 - u2|) Pr[signal in S | u2]")

    def sample(self, user=0.0, size=None, rng: np.random.Generator | None = None) -> ProtocolDraws:
        """Run the protocol for ``user`` (a number or an array, broadcast with ``size``);
        ``rng`` is None, an integer seed or a ``numpy.random.Generator``."""
        rng = check_rng(rng)
        try:
            user = np.asarray(user, dtype=float)
        except (TypeError, ValueError, OverflowError):
            raise InvalidArgumentError("user", user, "finite numbers") from None
        if not np.isfinite(user).all():
            raise InvalidArgumentError("user", user, "finite numbers")
        # Distances |u - r| are differences of numbers near u: beyond 2^32 noise scales from
        # 0 the spacing of doubles there exceeds 2^-20 of the noise and they lose their
        # digits (at u = 1e300, eps = 1 every simulated distance would be 0).
        if float(np.abs(user).max(initial=0.0)) > 2.0**32 * self._noise.scale:
            raise InvalidArgumentError("user", float(np.abs(user).max()),
                                       f"a number of magnitude at most "
                                       f"{2.0**32 * self._noise.scale:.3g} (2^32 noise scales; "
                                       "beyond it the simulated distances lose their digits)")
        # A noise draw is at most ~745 scales (the log of the smallest uniform double): the
        # signals and results must fit in a double.
        reach = float(np.abs(user).max(initial=0.0)) + 800.0 * self._noise.scale \
            + float(np.abs(self.offsets).max())
        if not reach < 1e308:
            raise InvalidArgumentError("epsilon", self.epsilon,
                                       "large enough (and user small enough) that signals, "
                                       "about |user| + 800 / epsilon + the offsets, fit in a "
                                       "double")
        if size is not None:
            size = tuple(check_integer(n, "size", minimum=0) for n in np.atleast_1d(size))
            # signal, results, distances and their temporaries: 4 + 3 k doubles per run
            require_memory(math.prod(size) * (_RUN_BYTES + _RUN_BYTES_PER_RESULT * self.k),
                           "size", size)
            user = np.broadcast_to(user, np.broadcast_shapes(user.shape, size))
        shape = user.shape
        signal = user + self._noise.sample(shape, rng)
        results = signal[..., None] + self.offsets
        chosen = np.abs(results - user[..., None]).argmin(axis=-1)
        distance = np.abs(np.take_along_axis(results, chosen[..., None], -1)[..., 0] - user)
        return ProtocolDraws(user, signal, results, chosen, self._disutility(distance))

    def monte_carlo_cost(self, size: int, rng: np.random.Generator | None = None,
                         user: float = 0.0) -> MonteCarloEstimate:
        """Mean disutility of ``size`` runs (``size >= 2``) and its standard error."""
        size = check_integer(size, "size", minimum=2)
        paid = self.sample(user, size, rng).disutility
        # Scaled by the largest cost so the sums cannot overflow (costs near 1e308 at tiny
        # epsilon are finite; their sum over the runs need not be).
        scale = float(paid.max()) or 1.0
        scaled = paid / scale
        return MonteCarloEstimate(
            check_finite_result(scale * float(scaled.mean()), "the Monte Carlo mean"),
            check_finite_result(scale * float(scaled.std(ddof=1)) / math.sqrt(size),
                                "the standard error"), size)


def work_estimate(k: int, identity: bool = True, noise: str = "laplace", size: int = 0,
                  argument: str = "k") -> Estimate:
    """Upper estimate of building :class:`MultiSelection` (``k`` results, the identity
    disutility or not, a noise family), its exact ``cost``, and ``size`` runs of
    :meth:`~MultiSelection.sample`; ``argument`` names what sets it (module constants)."""
    per_result = (_QUADRATURE_SECONDS if not identity
                  else _CLOSED_FORM_SECONDS if noise == "laplace" else _QUANTILE_SECONDS)
    build = Estimate(k * per_result, k * 64, argument, k)
    if not size:
        return build
    runs = Estimate(size * (_RUN_SECONDS + _RUN_SECONDS_PER_RESULT * k),
                    size * (_RUN_BYTES + _RUN_BYTES_PER_RESULT * k), "size", size)
    return build + runs
