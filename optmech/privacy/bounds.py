"""Proven upper bounds on a mechanism's privacy curves, with their sources.

Three guarantees cover every mechanism here; each bounds every pair of neighbouring inputs
(the third, the Laplace pair, is :mod:`optmech.privacy.dominating`'s theorem: permute-and-flip
and report-noisy-max with Laplace or exponential noise are post-processings of the Laplace
mechanism with parameter ``1/ε``, so every curve of theirs is at most the Laplace pair's:
``delta(eps') <= 1 - e^((eps' - ε)/2)``, ``D_alpha`` at most the Laplace mechanism's
(:func:`~optmech.privacy.accountants.laplace_rdp`), ``rho`` the certified sup of that curve).

**Pure ε-DP** (every mechanism: PF, EM, report-noisy-max, randomised response, the GEM
family, the optimal lattice mechanism).  The likelihood ratio ``z = P_r / Q_r`` of every
output lies in ``[e^-ε, e^ε]`` and has mean ``E_Q z = 1``.  Any divergence ``E_Q f(z)`` with
``f`` convex (the hockey-stick ``f(z) = max(0, z - e^eps')``, Rényi's ``z^alpha``) is at most
its value when ``z`` takes only the two end values (Jensen, on the randomised rounding of
``z`` to the ends): the binary randomised-response pair ``(e^ε, 1) / (1 + e^ε)`` against
``(1, e^ε) / (1 + e^ε)``.  So

    delta(eps') <= (e^ε - e^eps') / (1 + e^ε)    for 0 <= eps' <= ε,
    D_alpha <= ε - log((1 + e^-ε) / (1 + e^(-(2 alpha - 1) ε))) / (alpha - 1),

the privacy region of randomised response (Kairouz, Oh and Viswanath, *The composition
theorem for differential privacy*, arXiv:1311.0776, Section 2) and the Rényi bound of Bun and
Steinke's Proposition 3.3 argument (*Concentrated differential privacy: simplifications,
extensions, and lower bounds*, arXiv:1605.02065; sharp form: T. Steinke, *Sharp RDP & zCDP
from pure DP*, differentialprivacy.org, 2024, Theorem 4).  The zCDP bound is the certified
sup over ``alpha`` of that Rényi curve (:func:`~optmech.privacy.divergences.zcdp_rho_bound`),
at most ``ε^2 / 2`` (Bun and Steinke, Proposition 3.3).

**ε-bounded range** (the exponential mechanism and report-noisy-max with Gumbel noise: Dong,
Durfee and Rogers, *Optimal differential privacy composition for exponential mechanisms*,
arXiv:1909.13830, Proposition 2; the notion is from Durfee and Rogers, arXiv:1905.04273).  For
each pair the losses lie in some ``[t - ε, t]``, so ``z`` lies in ``[e^(t-ε), e^t]`` and the
same Jensen step makes the binary pair with losses exactly ``t`` and ``t - ε`` the worst for
that ``t``: ``delta_t(eps') = (1 - e^(t-ε)) (1 - e^(eps'-t)) / (1 - e^-ε)``, largest at ``t =
(ε + eps') / 2``, so

    delta(eps') <= (1 - e^(-(ε - eps')/2))^2 / (1 - e^-ε)    for 0 <= eps' <= ε,

attained by the exponential mechanism on two candidates (it realises every ``t``).  The
largest KL divergence of such a binary pair is ``u - 1 - log u`` with ``u = ε / (e^ε - 1)`` (at
``e^t = 1/u``), and Hoeffding's lemma on the loss (range ε) gives ``(alpha - 1) D_alpha <=
(alpha - 1) KL + (alpha - 1)^2 ε^2 / 8``, so ``D_alpha <= min(u - 1 - log u + (alpha - 1)
ε^2 / 8, ε)``; ``rho <= ε^2 / 8`` (Cesar and Rogers, *Bounding, concentrating, and
truncating: unifying privacy loss composition for data analytics*, arXiv:2004.07223, Lemma
3.2).

**The Gaussian pair** (report-noisy-max with Gaussian noise, which is not ε-DP for any ε:
:class:`~optmech.selection.mechanisms.GaussianGuarantee` proves that every pair on ``n``
candidates is a post-processing of ``N(0, 1)`` against ``N(mu, 1)``, ``mu = Δ sqrt(c(n)) /
sigma``).  So ``delta(eps') <= Phi(mu/2 - eps'/mu) - e^eps' Phi(-mu/2 - eps'/mu)`` (Balle and
Wang, *Improving the Gaussian mechanism for differential privacy*, arXiv:1805.06530, Theorem
8), ``D_alpha <= alpha mu^2 / 2`` and ``rho = mu^2 / 2`` (Bun and Steinke, Proposition 1.6);
the max loss is unbounded.  The bound depends on ``n``: :func:`proven_bound` takes it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from optmech.privacy.accountants import laplace_delta, laplace_rdp
from optmech.privacy.divergences import DEFAULT_ORDERS, check_grid, zcdp_rho_bound
from optmech.selection.mechanisms import GaussianGuarantee, PmfMechanism, PrivacyGuarantee
from optmech.validation import check_nonnegative

__all__ = ["BOUNDED_RANGE", "GAUSSIAN", "LAPLACE", "PURE_DP", "ProvenBound",
           "bounded_range_delta", "bounded_range_renyi", "gaussian_delta", "proven_bound",
           "randomised_response_delta", "randomised_response_renyi"]

PURE_DP = "pure-dp"
BOUNDED_RANGE = "bounded-range"
LAPLACE = "laplace"
GAUSSIAN = "gaussian"

_PURE_SOURCE = ("pure eps-DP: randomised response dominates every eps-DP pair (Kairouz, Oh & "
                "Viswanath, arXiv:1311.0776, Section 2; Bun & Steinke, arXiv:1605.02065, "
                "Proposition 3.3); rho: certified sup of its Renyi curve, <= eps^2/2")
_RANGE_SOURCE = ("eps-bounded range (Dong, Durfee & Rogers, arXiv:1909.13830, Proposition 2): "
                 "delta from the binary pair with losses (eps + eps')/2 and (eps' - eps)/2; "
                 "Renyi by Hoeffding's lemma; rho <= eps^2/8 (Cesar & Rogers, "
                 "arXiv:2004.07223, Lemma 3.2)")
_LAPLACE_SOURCE = ("a post-processing of the Laplace mechanism with parameter 1/eps: every "
                   "neighbouring pair is a Markov kernel applied to Laplace(0, 1) against "
                   "Laplace(eps, 1) (optmech.privacy.dominating, proved there: the noise's "
                   "survival function S has S'' <= S); rho: certified sup of its Renyi curve")


_GAUSSIAN_SOURCE = ("a post-processing of N(0, 1) against N(mu, 1), mu = Delta sqrt(c(n)) / "
                    "sigma: the Gaussian mechanism on the scores with their mean removed "
                    "(optmech.selection.mechanisms.GaussianGuarantee); delta: Balle & Wang, "
                    "arXiv:1805.06530, Theorem 8; rho = mu^2/2 (Bun & Steinke, "
                    "arXiv:1605.02065, Proposition 1.6); not eps-DP for any eps")


def _eps_prime(eps_prime) -> np.ndarray:
    return check_grid(eps_prime, "eps_prime", 0.0, finite=True)


def gaussian_delta(mu: float, eps_prime) -> np.ndarray:
    """``Phi(mu/2 - eps'/mu) - e^eps' Phi(-mu/2 - eps'/mu)``: the hockey-stick divergence of
    ``N(mu, 1)`` against ``N(0, 1)`` (Balle & Wang, Theorem 8); 0 for ``mu = 0``.  With ``c =
    eps'/mu - mu/2``, the difference is ``Phibar(c) - e^(mu c + mu^2/2) Phibar(c + mu) =
    e^(-c^2/2) (erfcx(c / sqrt 2) - erfcx((c + mu) / sqrt 2)) / 2`` (Mills ratios): used for
    ``c > 0``, where the two terms are tiny and nearly equal (no overflow of ``e^eps'``, and
    only the scaled ``erfcx`` difference cancels: 3e-14 relative at ``mu = 0.1``,
    ``eps' = 3``, against 4e-12 from ``ndtr``)."""
    mu = check_nonnegative(mu, "mu")
    grid = _eps_prime(eps_prime)
    if mu == 0:
        return np.zeros(grid.shape)
    c = grid / mu - mu / 2.0
    with np.errstate(divide="ignore", over="ignore", under="ignore", invalid="ignore"):
        direct = special.ndtr(-c) - np.exp(grid + special.log_ndtr(-c - mu))
        root2 = math.sqrt(2.0)
        mills = 0.5 * np.exp(-0.5 * c * c) * (special.erfcx(c / root2)
                                              - special.erfcx((c + mu) / root2))
    return np.maximum(np.where(c > 0, mills, direct), 0.0)


def randomised_response_delta(epsilon: float, eps_prime) -> np.ndarray:
    """``(e^ε - e^eps') / (1 + e^ε)`` (0 beyond ``eps' = ε``): the largest ``delta(eps')`` of
    any ε-DP pair."""
    epsilon = check_nonnegative(epsilon, "epsilon")
    gap = np.minimum(_eps_prime(eps_prime) - epsilon, 0.0)
    return np.maximum(-np.expm1(gap), 0.0) / (1.0 + math.exp(-epsilon))   # never -0.0


def bounded_range_delta(epsilon: float, eps_prime) -> np.ndarray:
    """``(1 - e^(-(ε - eps')/2))^2 / (1 - e^-ε)`` (0 beyond ``eps' = ε``): the largest
    ``delta(eps')`` of any ε-bounded-range pair."""
    epsilon = check_nonnegative(epsilon, "epsilon")
    if epsilon == 0:
        return np.zeros(_eps_prime(eps_prime).shape)
    half = np.minimum(_eps_prime(eps_prime) - epsilon, 0.0) / 2.0
    return np.expm1(half) ** 2 / -math.expm1(-epsilon)


def _orders(orders) -> np.ndarray:
    return check_grid(orders, "orders", 1.0)


def randomised_response_renyi(epsilon: float, orders) -> np.ndarray:
    """``D_alpha`` of the binary randomised-response pair: the largest of any ε-DP pair
    (``alpha = 1``: ``ε tanh(ε/2)``; ``inf``: ``ε``)."""
    epsilon = check_nonnegative(epsilon, "epsilon")
    out = []
    for a in _orders(orders).tolist():       # Python floats: (2a - 1) ε may be inf
        if math.isinf(a) or epsilon == 0:
            out.append(epsilon)
        elif a == 1.0:
            out.append(epsilon * math.tanh(epsilon / 2))
        else:
            out.append(epsilon - (math.log1p(math.exp(-epsilon))
                                  - math.log1p(math.exp(-(2 * a - 1) * epsilon))) / (a - 1))
    return np.array(out)


def bounded_range_kl(epsilon: float) -> float:
    """``u - 1 - log u`` with ``u = ε / (e^ε - 1)``: the largest KL divergence of an
    ε-bounded-range pair."""
    epsilon = check_nonnegative(epsilon, "epsilon")
    if epsilon == 0:
        return 0.0
    if epsilon > 1.0:                 # log u in logs: expm1 overflows beyond eps = 709
        log_u = math.log(epsilon) - epsilon - math.log1p(-math.exp(-epsilon))
        return (math.exp(log_u) - 1.0) - log_u
    u = epsilon / math.expm1(epsilon)
    # u - 1 - log u = (u - 1)^2 / 2 - ...: log1p keeps the digits when u is near 1
    return (u - 1.0) - math.log1p(u - 1.0)


def bounded_range_renyi(epsilon: float, orders) -> np.ndarray:
    """``min(u - 1 - log u + (alpha - 1) ε^2 / 8, ε)``: an upper bound on ``D_alpha`` of any
    ε-bounded-range pair (exact at ``alpha = 1``)."""
    kl = bounded_range_kl(epsilon)
    grid = _orders(orders)
    with np.errstate(invalid="ignore", over="ignore"):
        value = kl + (grid - 1.0) * epsilon ** 2 / 8.0
    return np.where(np.isinf(grid), epsilon, np.minimum(value, epsilon))


@dataclass(frozen=True)
class ProvenBound:
    """A proven upper bound on every pair's curves, from a mechanism's guarantee."""

    #: ``"pure-dp"``, ``"bounded-range"``, ``"laplace"`` or ``"gaussian"``.
    kind: str
    #: The ε of the guarantee (``inf`` for the Gaussian pair: no pure DP).
    epsilon: float
    #: Where the bound is proved (papers and their theorem numbers).
    source: str
    #: The Gaussian pair's ``mu`` (None for the other kinds).
    mu: float | None = None

    @property
    def max_loss(self) -> float:
        """Every pair's largest ``|log(P_r / Q_r)|`` is at most ε."""
        return self.epsilon

    @property
    def zcdp_rho(self) -> float:
        """``rho``: ``ε^2 / 8`` (bounded range), the certified sup over ``alpha`` of the
        randomised-response or Laplace Rényi curve (pure DP, Laplace)."""
        if self.kind == GAUSSIAN:
            return self.mu ** 2 / 2.0
        if self.kind == BOUNDED_RANGE:       # D_alpha <= eps too: rho <= min(eps^2/8, eps)
            return self.epsilon if self.epsilon >= 8.0 else self.epsilon ** 2 / 8.0
        finite = DEFAULT_ORDERS[np.isfinite(DEFAULT_ORDERS)]
        curve = self.renyi(finite)
        return float(min(zcdp_rho_bound(curve, finite, self.epsilon),
                         self.epsilon if self.epsilon >= 2.0 else self.epsilon ** 2 / 2.0))

    def delta(self, eps_prime) -> np.ndarray:
        """The bound on ``delta(eps')``."""
        if self.kind == GAUSSIAN:
            return gaussian_delta(self.mu, eps_prime)
        if self.kind == BOUNDED_RANGE:
            return bounded_range_delta(self.epsilon, eps_prime)
        if self.kind == LAPLACE:
            return laplace_delta(self.epsilon, _eps_prime(eps_prime))
        return randomised_response_delta(self.epsilon, eps_prime)

    def renyi(self, orders) -> np.ndarray:
        """The bound on ``D_alpha``."""
        if self.kind == GAUSSIAN:
            grid = _orders(orders)
            with np.errstate(invalid="ignore"):
                return np.where(np.isinf(grid), np.inf, grid * self.mu ** 2 / 2.0)
        if self.kind == BOUNDED_RANGE:
            return bounded_range_renyi(self.epsilon, orders)
        if self.kind == LAPLACE:
            grid = _orders(orders)
            finite = np.isfinite(grid)
            out = np.full(grid.shape, float(self.epsilon))
            if finite.any():
                out[finite] = laplace_rdp(self.epsilon, grid[finite])
            return out
        return randomised_response_renyi(self.epsilon, orders)


def proven_bound(mechanism, candidates: int | None = None) -> ProvenBound | None:
    """The bound a mechanism's guarantee proves, from the dominance it states beside its
    code (``privacy.dominance`` of a one-round mechanism: bounded range for the exponential
    mechanism and report-noisy-max with Gumbel noise, the Laplace pair for permute-and-flip
    and report-noisy-max with Laplace or exponential noise), else pure ε-DP for any mechanism
    whose ``privacy`` is a pure ε-DP :class:`~optmech.selection.mechanisms.PrivacyGuarantee`
    (its statement cites the proof); the Gaussian pair of a
    :class:`~optmech.selection.mechanisms.GaussianGuarantee` on ``candidates`` candidates
    (None without them: its bound grows with ``n``); None for a mechanism with no proven
    guarantee (a :class:`~optmech.selection.mechanisms.PmfMechanism`'s declared ε is not a
    proof)."""
    if isinstance(mechanism, PmfMechanism):
        return None
    guarantee = getattr(mechanism, "privacy", None)
    if isinstance(guarantee, GaussianGuarantee):
        if candidates is None:
            return None
        return ProvenBound(GAUSSIAN, math.inf, _GAUSSIAN_SOURCE, guarantee.mu(candidates))
    dominance = getattr(guarantee, "dominance", None)
    if dominance is not None and dominance[2] == 1:
        kind, epsilon, _ = dominance
        if kind == "bounded-range":
            return ProvenBound(BOUNDED_RANGE, epsilon, _RANGE_SOURCE)
        if kind == "laplace":
            return ProvenBound(LAPLACE, epsilon, _LAPLACE_SOURCE)
    if isinstance(guarantee, PrivacyGuarantee) and guarantee.delta == 0:
        source = _PURE_SOURCE + (f"; eps-DP: {guarantee.statement}" if guarantee.statement
                                 else "")
        return ProvenBound(PURE_DP, guarantee.epsilon, source)
    return None
