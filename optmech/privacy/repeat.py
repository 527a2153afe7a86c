"""Repeat-and-select: run a private algorithm a random number ``K`` of times, keep the best.

Papers: Liu and Talwar, *Private selection from private candidates*, STOC 2019,
arXiv:1811.07971 (geometric ``K``); Papernot and Steinke, *Hyperparameter tuning with Rényi
differential privacy*, ICLR 2022, arXiv:2110.03620 (Poisson and truncated negative binomial
``K``).  Their guarantees, re-derived and checked, are :mod:`optmech.privacy.repeat_bounds`.

**The output law.**  The base's outputs ``0 .. m-1`` are in increasing quality, a public
order fixed before the data; ``p`` is the base's pmf and ``t_j = sum_{i > j} p_i`` the mass
strictly above ``j``.  Given ``K = k`` the ``k`` runs are independent, and the best is at
most ``j`` when every run is: ``(1 - t_j)^k``.  So with ``G(x) = E[x^K]`` the probability
generating function of ``K`` (independent of the runs),

    Pr[best <= j] = G(1 - t_j),    Pr[best = j] = G(1 - t_j) - G(1 - t_j - p_j),

and when ``K`` can be 0 the output is ``⊥`` (no run) with probability ``G(0)``; it is the
last entry of the pmf, after the ``m`` outputs (the entries sum to ``G(1) = 1``).

=============  =====================================  =============================================
``--repeat``   ``K``                                  ``G(x)``, with ``w = 1 - (1 - γ) x``
=============  =====================================  =============================================
poisson:μ      Poisson(μ), μ > 0 (``K = 0``: ⊥)       ``exp(μ (x - 1))``
negbin:η,γ     truncated negative binomial            ``(w^-η - 1) / (γ^-η - 1)``; η = 0:
               ``D_{η,γ}``, η > -1, γ in (0, 1):      ``log w / log γ``
               ``Pr[K = k] ∝ (1-γ)^k prod_{l<k}
               (l+η)/(l+1)``, ``k >= 1`` (Papernot
               and Steinke, Definition 1)
geometric:γ    ``Pr[K = k] = γ (1-γ)^(k-1)``,         ``γ x / w`` (the case η = 1)
               γ in (0, 1]
fixed:k        ``K = k >= 1``                         ``x^k``
=============  =====================================  =============================================

**Stable differences.**  Every ``Pr[best = j]`` is formed as a product of factors that are
each accurate to a few ulps, in logarithms, never as a difference of two values of ``G``
(which loses every digit when ``p_j`` is below ``1e-16`` of ``G``).  With ``w_j = γ + (1 -
γ) t_j`` and ``x_j = (1 - γ) p_j / w_j``:

* Poisson: ``e^(-μ t_j) (1 - e^(-μ p_j))``;
* negbin, η != 0: ``w_j^-η (1 - (1 + x_j)^-η) / (γ^-η - 1)``, the middle factor
  ``-expm1(-η log1p(x_j))``; η = 0: ``log1p(x_j) / log(1/γ)``; geometric: η = 1 (which is
  ``γ p_j / (w_j w_{j-1})``);
* fixed: ``F_j^k (1 - (1 - p_j / F_j)^k)`` with ``F_j = 1 - t_j`` the mass at or below ``j``
  (summed from the bottom where it is below 1/2, ``log1p(-t_j)`` above), the second factor
  ``-expm1(k log1p(-p_j / F_j))``.

``t_j`` and ``F_j`` are cumulative log-sum-exps of the base's log-pmf, so masses far below
``1e-308`` (a ``logpmf`` of -800) keep their digits.  ``log1p(x)``, ``-log1p(-x)`` and
``expm1(y)`` below ``1e-4`` and ``1e-5`` are taken by their series (the first omitted term
is below ``1e-16`` relative).  Measured against the same quantities at 50 significant
digits (:func:`repeated_log_pmf_mp`, which differences ``G`` directly at a working precision
raised by the digits the difference cancels), for every law and base masses from ``1e-300``
to 1 (and log-masses of -800 and -1200): each log-probability within ``2.5e-13`` absolute,
so each probability within ``2.5e-13`` relative, the rounding of a logarithm near -700
(beyond it, within ``1e-15`` relative of the logarithm); and equal to the exact enumeration
of all ``m^k`` run sequences for small fixed ``k`` within ``1e-14`` (tests).

**A mechanism as the base.**  A selection mechanism's outputs are candidates; the quality
order is a public ranking ``quality`` (one number per candidate, higher is better, ties
broken by index: the higher index is better), by default the candidate index itself (the
last candidate is the best).  It must not come from the scores the mechanism is run on: the
two neighbouring runs would then rank the candidates differently, the repeated pair would
not be repeat-and-select of one mechanism, and no theorem applies.  The base's ``privacy``
(pure ε-DP) is what the published theorems take.

**A pair of pmfs as the base** (``RepeatAndSelect((p, q), repeat)``): the mechanism on the
two inputs 0 and 1 (the neighbours ``x``, ``x'``), outputs in increasing quality; its ε is
the pair's largest ``|log(p_r / q_r)|``.  :func:`repeated_pair` gives the repeated pair's
:class:`~optmech.privacy.loss.LossDistribution`, so every curve of
:mod:`optmech.privacy.divergences` is exact for it.

**The sampler** runs the base ``K`` times and keeps the best (``⊥`` is the index ``m``).
``K`` is drawn exactly: numpy's Poisson and geometric samplers; for ``D_{η,γ}`` with η > 0 a
negative binomial ``NB(η, γ)`` (failures before the η-th success) conditioned on ``K >= 1``
by rejection (its generating function is ``(γ / w)^η``, and conditioning on ``K >= 1`` gives
``(w^-η - 1)/(γ^-η - 1)``; acceptance ``1 - γ^η``), for η = 0 numpy's logarithmic
(``logseries``) sampler with ``p = 1 - γ``, for -1 < η < 0 the inverse cdf of the pmf
tabulated until the tail is below 1e-17 (the pmf falls by at least ``1 - γ`` a step; at most
5e7 entries, else refused).  Tests compare the sampler with :meth:`RepeatAndSelect.pmf` by a
chi-square test with a fixed seed.  (The same law of ``K`` drives
:mod:`optmech.heterogeneous.random_stopping`; an area may not import another, so each
states it.)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from optmech.resources import require_memory
from optmech.selection.parametrised import Parametrised, check_random_state
from optmech.selection.samplers import sample_from_pmf, sample_shape, shaped
from optmech.validation import (
    InvalidArgumentError,
    check_finite,
    check_integer,
    check_rng,
    check_scores,
)

__all__ = ["LAWS", "RepeatAndSelect", "Repetitions", "check_pmf_pair", "repeated_log_pmf_mp",
           "repeated_pair"]

#: The laws of ``K`` by name (the ``--repeat`` spellings).
LAWS = ("poisson", "negbin", "geometric", "fixed")
_SPEC = "poisson:MU (MU > 0), negbin:ETA,GAMMA (ETA > -1, GAMMA in (0, 1)), geometric:GAMMA " \
        "(GAMMA in (0, 1]) or fixed:K (an integer K >= 1)"
_LOG_SERIES = math.log(1e-4)         # log1p(x), -log1p(-x) by their series below x = 1e-4
_EXPM1_SERIES = math.log(1e-5)       # expm1(y) by its series below |y| = 1e-5
_MAX_FIXED = 10 ** 9
#: A base pmf must sum to 1 within this (as the privacy area checks every pmf).
SUM_TOLERANCE = 1e-9
_BYTES_PER_RUN = 48                   # sampler: a run's draw, its rank and its run index
_TABLE_TAIL = 1e-17                   # the inverse-cdf table of K ends where less remains
_TABLE_LIMIT = 50_000_000


# --- series-accurate logarithms of the factors (module docstring) ---------------------------

def _log_log1p(log_x: np.ndarray) -> np.ndarray:
    """``log(log1p(x))`` for ``x = e^log_x >= 0``."""
    x = np.exp(np.minimum(log_x, 700.0))
    small = log_x < _LOG_SERIES
    xs = np.where(small, x, 0.0)
    with np.errstate(divide="ignore"):
        series = log_x + np.log1p(xs * (-0.5 + xs * (1.0 / 3.0 - 0.25 * xs)))
        direct = np.where(log_x > 700.0,
                          np.log(log_x + np.log1p(np.exp(-np.maximum(log_x, 700.0)))),
                          np.log(np.log1p(np.where(small, 1.0, x))))
    return np.where(np.isneginf(log_x), -np.inf, np.where(small, series, direct))


def _log_neg_log1p_neg(log_x: np.ndarray) -> np.ndarray:
    """``log(-log1p(-x))`` for ``x = e^log_x`` in ``[0, 1]`` (``inf`` at ``x = 1``)."""
    log_x = np.minimum(log_x, 0.0)
    x = np.exp(log_x)
    small = log_x < _LOG_SERIES
    xs = np.where(small, x, 0.0)
    with np.errstate(divide="ignore"):
        series = log_x + np.log1p(xs * (0.5 + xs * (1.0 / 3.0 + 0.25 * xs)))
        direct = np.log(-np.log1p(-np.where(small, 0.5, x)))
    return np.where(np.isneginf(log_x), -np.inf, np.where(small, series, direct))


def _log_abs_expm1(sign: float, log_abs_y: np.ndarray) -> np.ndarray:
    """``log|e^y - 1|`` for ``y = sign * e^log_abs_y`` (``sign`` is +1 or -1)."""
    a = np.exp(np.minimum(log_abs_y, 700.0))
    small = log_abs_y < _EXPM1_SERIES
    ys = sign * np.where(small, a, 0.0)
    with np.errstate(divide="ignore", over="ignore"):
        series = log_abs_y + np.log1p(ys * (0.5 + ys * (1.0 / 6.0 + ys / 24.0)))
        big = np.where(small, 1.0, np.where(np.isinf(log_abs_y), np.inf, a))
        if sign > 0:      # log(e^y - 1) = y + log(1 - e^-y), no overflow
            direct = big + np.log(-np.expm1(-big))
        else:
            direct = np.log(-np.expm1(-big))
    return np.where(np.isneginf(log_abs_y), -np.inf, np.where(small, series, direct))


def _cumulative(log_p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(log t_j, log F_j)``: the mass strictly above ``j`` and at or below ``j``."""
    with np.errstate(divide="ignore", invalid="ignore"):
        from_top = np.logaddexp.accumulate(log_p[..., ::-1], axis=-1)[..., ::-1]
        above = np.concatenate([from_top[..., 1:], np.full(log_p.shape[:-1] + (1,), -np.inf)],
                               axis=-1)
        below = np.logaddexp.accumulate(log_p, axis=-1)
    return above, below


# --- the law of K ------------------------------------------------------------------------------

def _number(text: str, spec) -> float:
    try:
        return float(text)
    except (TypeError, ValueError):
        raise InvalidArgumentError("repeat", spec, _SPEC) from None


@dataclass(frozen=True)
class Repetitions:
    """The law of the number of runs ``K`` (module docstring's table).

    Build it with :meth:`poisson`, :meth:`negbin`, :meth:`geometric`, :meth:`fixed` or
    :meth:`parse` (``"poisson:10"``, ``"negbin:0,0.02"``, ``"geometric:0.1"``, ``"fixed:5"``);
    a parameter out of range raises :class:`~optmech.validation.InvalidArgumentError` naming
    ``repeat`` (or the argument given).
    """

    #: One of :data:`LAWS`.
    kind: str
    #: ``(μ,)``, ``(η, γ)``, ``(γ,)`` or ``(k,)``.
    parameters: tuple

    @classmethod
    def poisson(cls, mu: float, argument: str = "repeat") -> "Repetitions":
        """``K ~ Poisson(mu)``, ``mu > 0`` (finite)."""
        mu = check_finite(mu, argument)
        if not mu > 0:
            raise InvalidArgumentError(argument, f"poisson:{mu:g}", "poisson:MU with MU > 0")
        return cls("poisson", (mu,))

    @classmethod
    def negbin(cls, eta: float, gamma: float, argument: str = "repeat") -> "Repetitions":
        """``K ~ D_{eta, gamma}``: ``eta > -1``, ``gamma`` in (0, 1)."""
        eta, gamma = check_finite(eta, argument), check_finite(gamma, argument)
        if not (eta > -1 and 0 < gamma < 1):
            raise InvalidArgumentError(argument, f"negbin:{eta:g},{gamma:g}",
                                       "negbin:ETA,GAMMA with ETA > -1 and GAMMA in (0, 1)")
        return cls("negbin", (eta, gamma))

    @classmethod
    def negbin_with_mean(cls, eta: float, mean: float) -> "Repetitions":
        """``D_{eta, gamma}`` with the γ that gives ``E[K] = mean`` (> 1; the mean falls
        from infinity to 1 as γ rises from 0 to 1), to a relative 1e-14 in γ."""
        from scipy.optimize import brentq

        mean = check_finite(mean, "mean")
        if not mean > 1:
            raise InvalidArgumentError("mean", mean, "a number > 1")
        low = 1e-300
        if cls.negbin(eta, low).mean < mean:
            raise InvalidArgumentError("mean", mean, f"at most {cls.negbin(eta, low).mean:g} "
                                                     f"for eta = {eta:g}")
        gamma = brentq(lambda g: cls.negbin(eta, g).mean - mean, low, 1.0 - 1e-16,
                       xtol=1e-300, rtol=1e-14)
        return cls.negbin(eta, gamma)

    @classmethod
    def geometric(cls, gamma: float, argument: str = "repeat") -> "Repetitions":
        """``Pr[K = k] = gamma (1 - gamma)^(k - 1)``, ``gamma`` in (0, 1]."""
        gamma = check_finite(gamma, argument)
        if not 0 < gamma <= 1:
            raise InvalidArgumentError(argument, f"geometric:{gamma:g}",
                                       "geometric:GAMMA with GAMMA in (0, 1]")
        return cls("geometric", (gamma,))

    @classmethod
    def fixed(cls, k: int, argument: str = "repeat") -> "Repetitions":
        """``K = k``, an integer in ``[1, 10^9]``."""
        try:
            k = check_integer(k, argument, minimum=1, maximum=_MAX_FIXED)
        except InvalidArgumentError:
            raise InvalidArgumentError(argument, f"fixed:{k}", "fixed:K with K an integer "
                                                               ">= 1 (at most 10^9)") from None
        return cls("fixed", (k,))

    @classmethod
    def parse(cls, spec, argument: str = "repeat") -> "Repetitions":
        """A law from ``KIND:PARAMETERS`` (module docstring), or a :class:`Repetitions`."""
        if isinstance(spec, Repetitions):
            return spec
        kind, _, rest = str(spec).strip().partition(":")
        kind = kind.strip().lower()
        values = [v.strip() for v in rest.split(",")] if rest else []
        sizes = {"poisson": 1, "negbin": 2, "geometric": 1, "fixed": 1}
        if kind not in sizes or len(values) != sizes[kind]:
            raise InvalidArgumentError(argument, spec, _SPEC)
        if kind == "fixed":
            try:
                k = int(values[0])
            except ValueError:
                raise InvalidArgumentError(argument, spec, _SPEC) from None
            return cls.fixed(k, argument)
        numbers = [_number(v, spec) for v in values]
        if not all(math.isfinite(v) for v in numbers):
            raise InvalidArgumentError(argument, spec, _SPEC)
        return getattr(cls, kind)(*numbers, argument=argument)

    def __str__(self) -> str:
        """``KIND:PARAMETERS``, which :meth:`parse` reads back to this law exactly."""
        def shown(v) -> str:
            short = f"{v:g}"
            return short if float(short) == v else repr(float(v))
        return f"{self.kind}:" + ",".join(shown(v) for v in self.parameters)

    # The truncated-negative-binomial family: negbin, and geometric as η = 1 (γ < 1).
    @property
    def _tnb(self) -> tuple[float, float] | None:
        if self.kind == "negbin":
            return self.parameters
        if self.kind == "geometric" and self.parameters[0] < 1:
            return 1.0, self.parameters[0]
        return None

    @property
    def _runs(self) -> int | None:
        """``k`` of a fixed number of runs (geometric with γ = 1 is one run)."""
        if self.kind == "fixed":
            return self.parameters[0]
        return 1 if self.kind == "geometric" and self.parameters[0] == 1 else None

    @property
    def mean(self) -> float:
        """``E[K]``: μ; ``η (1-γ) / (γ (1 - γ^η))`` (η = 0: ``(1/γ - 1) / log(1/γ)``);
        ``1/γ``; ``k``."""
        if self.kind == "poisson":
            return self.parameters[0]
        if self._runs is not None:
            return float(self._runs)
        eta, gamma = self._tnb
        log_g = math.log(gamma)
        if eta == 0:
            return -math.expm1(-log_g) / log_g            # (1/γ - 1) / log(1/γ)
        return eta * (1.0 - gamma) / (gamma * -math.expm1(eta * log_g))

    @property
    def zero_mass(self) -> float:
        """``Pr[K = 0] = G(0)``: ``e^-μ`` for Poisson, else 0 (then there is no ``⊥``)."""
        return math.exp(-self.parameters[0]) if self.kind == "poisson" else 0.0

    @property
    def extra_outputs(self) -> int:
        """1 when ``K`` can be 0 (the output ``⊥``), else 0."""
        return 1 if self.kind == "poisson" else 0

    def pmf(self, k) -> np.ndarray:
        """``Pr[K = k]`` for integers ``k``."""
        k = np.asarray(k, dtype=float)
        if self.kind == "poisson":
            from scipy.stats import poisson

            return poisson.pmf(k, self.parameters[0])
        if self._runs is not None:
            return (k == self._runs).astype(float)
        from scipy.special import gammaln

        eta, gamma = self._tnb
        log_g = math.log(gamma)
        with np.errstate(divide="ignore", invalid="ignore"):
            if eta == 0:
                log_pmf = k * math.log1p(-gamma) - np.log(k) - math.log(-log_g)
            else:
                # prod_{l<k} (l+η)/(l+1) = Γ(k+η)/(Γ(η) Γ(k+1)), of the sign of η, as is
                # γ^-η - 1: the ratio is positive
                log_pmf = (k * math.log1p(-gamma) + gammaln(k + eta) - gammaln(k + 1.0)
                           - gammaln(eta) - math.log(abs(math.expm1(-eta * log_g))))
            return np.where(k >= 1, np.exp(log_pmf), 0.0)

    def pgf(self, x) -> np.ndarray:
        """``G(x) = E[x^K]`` for ``x`` in [0, 1] (direct formula; the pmf of the best uses
        the stable differences of the module docstring instead)."""
        x = np.asarray(x, dtype=float)
        if self.kind == "poisson":
            return np.exp(self.parameters[0] * (x - 1.0))
        if self._runs is not None:
            return x ** self._runs
        eta, gamma = self._tnb
        w = 1.0 - (1.0 - gamma) * x
        if eta == 0:
            return np.log(w) / math.log(gamma)
        return np.expm1(-eta * np.log(w)) / math.expm1(-eta * math.log(gamma))

    def log_best(self, log_p) -> np.ndarray:
        """``log Pr[best = j]`` for base log-pmfs ``log_p`` (shape ``(..., m)``, outputs in
        increasing quality), with ``log Pr[⊥]`` appended when ``K`` can be 0: shape
        ``(..., m + extra_outputs)``.  ``-inf`` where the base gives the output probability
        0."""
        log_p = np.asarray(log_p, dtype=float)
        above, below = _cumulative(log_p)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if self.kind == "poisson":
                mu = self.parameters[0]
                out = -mu * np.exp(above) + _log_abs_expm1(-1.0, math.log(mu) + log_p)
            elif self._runs is not None:
                k = self._runs
                log_f = np.where(below < math.log(0.5), below, np.log1p(-np.exp(above)))
                out = k * log_f + _log_abs_expm1(
                    -1.0, math.log(k) + _log_neg_log1p_neg(log_p - log_f))
            else:
                eta, gamma = self._tnb
                log_w = np.logaddexp(math.log(gamma), math.log1p(-gamma) + above)
                log_x = math.log1p(-gamma) + log_p - log_w
                if eta == 0:
                    out = _log_log1p(log_x) - math.log(-math.log(gamma))
                else:
                    norm = _log_abs_expm1(1.0 if eta > 0 else -1.0,
                                          math.log(abs(eta) * -math.log(gamma)))
                    out = -eta * log_w + _log_abs_expm1(
                        -1.0 if eta > 0 else 1.0,
                        math.log(abs(eta)) + _log_log1p(log_x)) - float(norm)
        out = np.where(np.isneginf(log_p), -np.inf, np.minimum(out, 0.0))
        if self.extra_outputs:
            bottom = np.full(log_p.shape[:-1] + (1,), -self.parameters[0])
            out = np.concatenate([out, bottom], axis=-1)
        return out

    def sample(self, count: int, rng) -> np.ndarray:
        """``count`` i.i.d. draws of ``K``."""
        count = check_integer(count, "count", minimum=0)
        generator = check_rng(rng)
        if self.kind == "poisson":
            return generator.poisson(self.parameters[0], size=count).astype(np.int64)
        if self._runs is not None:
            return np.full(count, self._runs, dtype=np.int64)
        eta, gamma = self._tnb
        if self.kind == "geometric":
            return generator.geometric(gamma, size=count).astype(np.int64)
        if eta == 0:
            return generator.logseries(1.0 - gamma, size=count).astype(np.int64)
        if eta > 0:
            return self._positive_negbin(count, generator)
        cdf = np.cumsum(self._table())
        k = np.searchsorted(cdf, generator.random(count) * cdf[-1], side="right")
        return np.minimum(k, cdf.size - 1).astype(np.int64) + 1

    def _positive_negbin(self, count: int, generator) -> np.ndarray:
        """``NB(η, γ)`` draws conditioned on ``K >= 1`` by rejection (η > 0)."""
        eta, gamma = self._tnb
        out = np.empty(count, dtype=np.int64)
        filled = 0
        while filled < count:
            want = count - filled
            accept = -math.expm1(eta * math.log(gamma))         # 1 - γ^η
            draws = generator.negative_binomial(eta, gamma, size=int(want / accept) + 16)
            draws = draws[draws >= 1][:want]
            out[filled:filled + draws.size] = draws
            filled += draws.size
        return out

    def _table(self) -> np.ndarray:
        """``Pr[K = k]``, ``k = 1 ..``, for -1 < η < 0: the pmf falls by a factor ``(1-γ)(k+η)
        /(k+1) <= 1 - γ`` a step, so the tail beyond ``k`` is below ``pmf(k) (1-γ)/γ``."""
        gamma = self._tnb[1]
        size = 1024
        while True:
            table = self.pmf(np.arange(1, size + 1))
            if table[-1] * (1.0 - gamma) / gamma < _TABLE_TAIL:
                return table
            if size >= _TABLE_LIMIT:
                raise InvalidArgumentError("repeat", str(self), "a gamma large enough that "
                                           "the law of K fits a table of 5e7 entries")
            size = min(4 * size, _TABLE_LIMIT)

    def sample_best(self, rank_draws, ranks: int, count: int, rng) -> np.ndarray:
        """``count`` outputs of repeat-and-select: ``K`` per output, then
        ``rank_draws(total, rng)`` base outputs as quality ranks ``0 .. ranks-1``, the best
        rank of each run kept; ``ranks`` (``⊥``) where ``K = 0``."""
        generator = check_rng(rng)
        runs = self.sample(count, generator)
        total = int(runs.sum())
        require_memory(_BYTES_PER_RUN * total, "size", count)
        draws = np.asarray(rank_draws(total, generator), dtype=np.int64)
        out = np.full(count, ranks, dtype=np.int64)
        some = runs > 0
        if total:
            starts = (np.cumsum(runs) - runs)[some]
            out[some] = np.maximum.reduceat(draws, starts)
        return out


# --- the combinator ----------------------------------------------------------------------------

def check_pmf_pair(p, q, names: tuple[str, str] = ("p", "q")) -> tuple[np.ndarray, np.ndarray]:
    """Two pmfs of the same length >= 1: finite, >= 0, each summing to 1 within 1e-9;
    anything else raises naming the argument (``names``)."""
    out = []
    for value, name in zip((p, q), names):
        try:
            array = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            raise InvalidArgumentError(name, value, "a list of probabilities") from None
        if array.ndim != 1 or array.size < 1 or not np.isfinite(array).all() \
                or (array < 0).any():
            raise InvalidArgumentError(name, value, "a list of finite probabilities >= 0")
        if not abs(array.sum() - 1.0) <= SUM_TOLERANCE:
            raise InvalidArgumentError(name, value, f"probabilities summing to 1 (within "
                                                    f"{SUM_TOLERANCE:g}; they sum to "
                                                    f"{array.sum():.12g})")
        out.append(array)
    if out[0].size != out[1].size:
        raise InvalidArgumentError(names[1], q, f"{out[0].size} probabilities, as many as "
                                                f"{names[0]}")
    return out[0], out[1]


def _log(p: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.log(p)


class RepeatAndSelect(Parametrised):
    """Repeat-and-select of ``base`` with ``K`` from ``repeat`` (module docstring).

    ``base``: a mechanism (an object with ``logpmf(scores)`` or ``pmf(scores)``, e.g. of
    :mod:`optmech.selection`), or a pair of pmfs ``(p, q)`` over outputs in increasing
    quality, taken as the mechanism on the inputs 0 and 1.  ``repeat``: a
    :class:`Repetitions` or its spelling (``"poisson:10"``).  ``quality``: the public
    ranking of a mechanism's candidates (higher is better, ties to the higher index); None
    ranks them by index.

    ``pmf(x)`` / ``logpmf(x)`` (``x``: a score vector, or 0 / 1 for a pair; ``⊥`` last when
    ``K`` can be 0), ``sample(x, size=None, rng=None)`` / ``rvs``, ``privacy`` (the published
    pure-DP guarantee, or None), ``proven_epsilon()`` and ``proven_rdp(orders)`` (what an
    accountant may use; :mod:`optmech.privacy.repeat_bounds`).  Attributes ``epsilon``,
    ``sensitivity`` and ``monotonic`` are the base's (``epsilon`` is the base's ε, not the
    repeated mechanism's: that is ``privacy.epsilon``).
    """

    #: ``logpmf`` takes a 2-D batch of score vectors
    #: (:func:`~optmech.privacy.loss.log_probabilities` calls it once for a whole search step).
    batches = True

    def __init__(self, base, repeat, quality=None):
        self.repeat = Repetitions.parse(repeat)
        self._pair = None
        if isinstance(base, (tuple, list)) and len(base) == 2 and not callable(
                getattr(base, "pmf", None)):
            p, q = check_pmf_pair(*base)
            if quality is not None:
                raise InvalidArgumentError("quality", quality, "None for a pair of pmfs (its "
                                                               "outputs are in quality order)")
            self._pair = (_log(p), _log(q))
            self.base = (tuple(p.tolist()), tuple(q.tolist()))
        else:
            if not (callable(getattr(base, "logpmf", None))
                    or callable(getattr(base, "pmf", None))):
                raise InvalidArgumentError("base", base, "a mechanism (logpmf or pmf of a "
                                                         "score vector) or a pair of pmfs")
            self.base = base
        if quality is not None:
            quality = tuple(float(v) for v in check_scores(quality, "quality"))
        self.quality = quality
        name = "pair" if self._pair is not None else (getattr(base, "name", None)
                                                      or type(base).__name__)
        self.name = f"{name}+repeat({self.repeat})"
        self.extra_outputs = self.repeat.extra_outputs
        object.__setattr__(self, "_frozen", True)

    def _parameters(self) -> dict:
        return {"base": self.base, "repeat": str(self.repeat), "quality": self.quality}

    def __setattr__(self, name, value):
        if getattr(self, "_frozen", False):
            raise AttributeError(f"{type(self).__name__} is immutable")
        super().__setattr__(name, value)

    @property
    def epsilon(self) -> float | None:
        """The base's ε (a pair's largest ``|log(p_r / q_r)|``); None without a proven
        pure-DP guarantee."""
        from optmech.privacy.repeat_bounds import base_epsilon

        return base_epsilon(self)

    @property
    def sensitivity(self):
        return getattr(self.base, "sensitivity", 1.0)

    @property
    def monotonic(self) -> bool:
        return bool(getattr(self.base, "monotonic", False))

    @property
    def is_pair(self) -> bool:
        """Whether the base is a pair of pmfs."""
        return self._pair is not None

    def _order(self, n: int) -> np.ndarray:
        """The candidates from the worst to the best."""
        if self.quality is None:
            return np.arange(n)
        if len(self.quality) != n:
            raise InvalidArgumentError("quality", self.quality, f"{n} numbers, one per "
                                                                "candidate")
        return np.lexsort((np.arange(n), np.asarray(self.quality)))

    def _base_log_rows(self, x) -> tuple[np.ndarray, bool]:
        """The base's log-pmf rows for ``x`` and whether ``x`` was a batch."""
        if self._pair is not None:
            which = np.atleast_1d(np.asarray(x))
            if which.ndim != 1 or not all(v in (0, 1) for v in which.tolist()):
                raise InvalidArgumentError("x", x, "0 or 1 (the pair's two inputs)")
            rows = np.stack([self._pair[int(v)] for v in which])
            return rows, np.ndim(x) > 0
        from optmech.privacy.loss import log_probabilities

        rows = np.asarray(x, dtype=float)
        batch = rows.ndim == 2
        return log_probabilities(self.base, np.atleast_2d(rows)), batch

    def logpmf(self, x) -> np.ndarray:
        """``log Pr[output = r]`` for every output ``r`` (``⊥`` last when ``K`` can be 0);
        one row per input for a batch (a 2-D array of score vectors, or a list of 0/1)."""
        rows, batch = self._base_log_rows(x)
        order = self._order(rows.shape[1])
        best = self.repeat.log_best(rows[:, order])
        out = np.empty_like(best)
        out[:, order] = best[:, :order.size]
        out[:, order.size:] = best[:, order.size:]
        return out if batch else out[0]

    def pmf(self, x) -> np.ndarray:
        """``exp(logpmf(x))``."""
        return np.exp(self.logpmf(x))

    def sample(self, x, size=None, rng=None):
        """Draws: run the base ``K`` times on ``x`` and keep the best (``m``, one past the
        last output, for ``⊥``); an ``int`` if ``size`` is None, else an array."""
        shape, count = sample_shape(size)
        generator = check_rng(rng)
        if self._pair is not None:
            p = np.exp(self._base_log_rows(x)[0][0])
            n = p.size
            order = np.arange(n)

            def draw(total, g):
                return sample_from_pmf(p, total, g)
        else:
            q = check_scores(x)
            n = q.size
            order = self._order(n)
            rank = np.empty(n, dtype=np.int64)
            rank[order] = np.arange(n)

            def draw(total, g):
                picks = self.base.sample(q, size=total, rng=g) if total else np.zeros(0, int)
                return rank[np.asarray(picks, dtype=np.int64)]
        best = self.repeat.sample_best(draw, n, count, generator)
        out = np.where(best < n, order[np.minimum(best, n - 1)], n)
        return shaped(out, shape)

    def rvs(self, x, size=None, random_state=None):
        """:meth:`sample` under ``scipy.stats``'s names."""
        return self.sample(x, size, check_random_state(random_state))

    @property
    def privacy(self):
        """The published pure-DP guarantee
        (:func:`~optmech.privacy.repeat_bounds.literature_guarantee`), or None."""
        from optmech.privacy.repeat_bounds import literature_guarantee

        return literature_guarantee(self)

    def proven_epsilon(self) -> float | None:
        """The smallest proven ε of the repeated mechanism (pure DP), or None:
        :func:`~optmech.privacy.repeat_bounds.sharp_epsilon` of the base's ε."""
        from optmech.privacy.repeat_bounds import sharp_epsilon

        eps = self.epsilon
        return None if eps is None else sharp_epsilon(self.repeat, eps)

    def proven_rdp(self, orders) -> np.ndarray:
        """A proven Rényi curve of the repeated mechanism at ``orders`` (``inf`` where no
        theorem gives a finite value): :func:`~optmech.privacy.repeat_bounds.proven_rdp`."""
        from optmech.privacy.repeat_bounds import proven_rdp

        return proven_rdp(self, orders)

    def loss_distribution(self, x=None, neighbour=None):
        """The repeated pair's :class:`~optmech.privacy.loss.LossDistribution`: for a pair
        base, of its two inputs (no arguments); for a mechanism, of ``x`` and ``neighbour``
        (checked to be neighbours for the base's sensitivity)."""
        if self._pair is not None:
            return repeated_pair(np.exp(self._pair[0]), np.exp(self._pair[1]), self.repeat)
        from optmech.privacy.loss import loss_distribution

        return loss_distribution(self, x, neighbour, self.sensitivity, self.monotonic)


def repeated_pair(p, q, repeat):
    """The :class:`~optmech.privacy.loss.LossDistribution` of repeat-and-select of the pair
    of pmfs ``(p, q)`` (outputs in increasing quality) with ``K`` from ``repeat``: its
    ``log_p`` and ``log_q`` are the repeated pmfs (``⊥`` last when ``K`` can be 0); its
    ``scores`` and ``neighbour`` are the outputs' quality ranks ``0 .. m-1``, the same for
    both (a pair of pmfs has no scores)."""
    from optmech.privacy.loss import LossDistribution

    p, q = check_pmf_pair(p, q)
    law = Repetitions.parse(repeat)
    logs = law.log_best(np.stack([_log(p), _log(q)]))
    ranks = np.arange(p.size, dtype=float)
    return LossDistribution(ranks, ranks.copy(), logs[0], logs[1])


# --- the second computation, at 50 significant digits -----------------------------------------

def repeated_log_pmf_mp(p, repeat, digits: int = 50) -> list:
    """``log Pr[best = j]`` (and ``log Pr[⊥]``) with mpmath, from the definition: ``G``
    evaluated at ``F_j`` and ``F_{j-1}`` (``F`` summed from the bottom, exact in the
    working precision) and differenced, at ``digits`` plus the digits the difference
    cancels (``-log10`` of the smallest mass) plus 20.  ``p``: probabilities as strings or
    numbers (converted exactly).  Shares nothing with :meth:`Repetitions.log_best`."""
    import mpmath as mp

    law = Repetitions.parse(repeat)
    masses = [mp.mpf(v) for v in p]
    positive = [v for v in masses if v > 0]
    lost = 0 if not positive else max(0, int(-mp.log10(min(positive))) + 1)
    with mp.workdps(digits + lost + 20):
        masses = [mp.mpf(v) for v in p]
        total = mp.fsum(masses)
        masses = [v / total for v in masses]
        cumulative = [mp.mpf(0)]
        for v in masses:
            cumulative.append(cumulative[-1] + v)
        cumulative[-1] = mp.mpf(1)
        kind, values = law.kind, [mp.mpf(v) for v in law.parameters]

        def pgf(x):
            if kind == "poisson":
                return mp.exp(values[0] * (x - 1))
            if kind == "fixed":
                return x ** int(values[0])
            if kind == "geometric":
                g = values[0]
                return g * x / (1 - (1 - g) * x)
            eta, g = values
            w = 1 - (1 - g) * x
            return mp.log(w) / mp.log(g) if eta == 0 else (w ** -eta - 1) / (g ** -eta - 1)

        values_g = [pgf(x) for x in cumulative]
        out = [mp.log(b - a) if b > a else mp.ninf
               for a, b in zip(values_g[:-1], values_g[1:])]
        if law.extra_outputs:
            out.append(mp.log(pgf(mp.mpf(0))))
        return [+v for v in out]
