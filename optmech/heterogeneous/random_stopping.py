"""Random stopping with heterogeneous sensitivities: RS_γ and its truncated-negative-binomial
variant, with their exact output distribution.

RS_γ (heterogeneous-sensitivities paper, Algorithm 1; Liu & Talwar 2019): repeat {draw a
candidate ``a`` uniformly, record ``q_a + Lap(3Δ_a/ε)``} and after each draw stop with
probability γ; output the candidate with the highest recorded value.  The number of draws
``K`` is geometric, ``Pr[K = k] = γ(1-γ)^{k-1}``.  The TNB variant (Papernot & Steinke
2022; paper Appendix C) draws ``K`` from the truncated negative binomial ``D_{η,γ}``

    Pr[K = k] = (1-γ)^k / (γ^{-η} - 1) * prod_{l<k} (l+η)/(l+1)   (η != 0),
    Pr[K = k] = (1-γ)^k / (k log(1/γ))                             (η = 0),

and, to keep the total budget ε, uses ``Lap((2+η)Δ_a/ε)``.  (``η = 1`` gives the geometric
law and the scale ``3Δ_a/ε`` again: RS_γ is the case η = 1.)

Privacy: one draw (uniform candidate, its score plus ``Lap(cΔ_a/ε)``) is ``ε/c``-DP
(Laplace mechanism).  Random stopping of an ``ε/c``-DP algorithm is ``3ε/c``-DP with
geometric ``K`` (Liu & Talwar 2019, Theorem 3.4) and ``(2+η)ε/c``-DP with ``D_{η,γ}``
(Papernot & Steinke 2022, Corollary 3, as quoted in the paper); with ``c = 3`` resp.
``c = 2+η`` both are ε-DP.

Exact distribution.  Given ``K = k`` the draws are i.i.d.: a candidate uniform on the
``n`` candidates and a value with the mixture cdf ``G(v) = (1/n) sum_s F_s(v)`` (``F_s`` the
cdf of ``q_s + Lap(b_s)``).  The output is ``r`` when one of the ``k`` draws is ``r`` with
the largest value, so with ``φ(x) = E[x^K]``

    Pr[RS = r] = E_K[ K ∫ f_r(v)/n G(v)^{K-1} dv ] = (1/n) ∫ f_r(v) φ'(G(v)) dv,

with ``φ'(x) = γ/w²`` (geometric), ``η(1-γ) w^{-η-1}/(γ^{-η}-1)`` (TNB, η != 0) or
``(1-γ)/(w log(1/γ))`` (η = 0), where ``w = 1 - (1-γ)x``.  ``w`` is evaluated as
``γ + (1-γ) S(v)`` with the mixture survival function ``S = 1 - G`` summed directly, so
nothing cancels in the upper tail where the integrand lives.  (Summing over ``r`` and
substituting ``x = G(v)`` gives ``φ(1) - φ(0) = 1``.)

Quadrature.  The integrand is analytic except at the scores (Laplace kinks), which are
panel edges.  Around each candidate, out to ``L b_s`` with ``L = 40 + log max φ'`` (the
density beyond has mass ``e^{-L}``, so the truncation error is below ``4e-18`` per
probability), panels are at most ``4 b_s`` long (candidates are grouped by octave of
``b_s`` and each group's merged windows are filled uniformly).  The nearest complex
singularity of ``φ'(G(v))`` is about ``π b`` from the real axis (``b`` the smallest scale
that matters there), so 16-node Gauss-Legendre per panel converges like ``3.4^{-32}``.
The probabilities must sum to 1 within ``1e-10``, else
:class:`~optmech.selection.noisy_max.IntegrationError` is raised.  Tests compare with mpmath at 30
digits (agreement about 1e-13) and with Monte Carlo runs of :meth:`RandomStopping.sample`.
Cost: ``O(U * J)`` for ``U`` distinct (score, sensitivity) pairs and ``J`` nodes
(a few hundred per distinct scale and octave).

Extreme inputs.  The distribution is invariant under a common scale of scores and noise
scales, so both are multiplied by an exact power of two (none for ordinary inputs) to
bring ``max(|q_a|, 64 b_a)`` below ``2^1010`` and ``min b_a`` above ``2^-1010``; ``b_a``
never overflows on the way.  Candidates whose windows ``q_s ± L b_s`` do not overlap form
separate clusters: below a cluster the others contribute ``S_s = 0`` and above it
``S_s = 1`` (up to the same ``e^{-L}`` truncation), so each cluster is integrated alone,
with the weight above it added to ``S``, in coordinates centred on its narrowest
candidate (so scores 1e300 apart with unit noise lose nothing to the spacing of doubles
there).  Node positions are exact to ``2^-52`` of their distance from that centre, so the
quadrature error grows like ``2^-52 |q_s - centre| / b_s``.  Supported range, refused
up front with :class:`~optmech.validation.InvalidArgumentError` (``sensitivities``)
beyond it: ``max(|q_a|, 64 b_a) <= 2^2020 min b_a`` (about 1e608), and inside each
cluster ``|q_s - centre| <= 2^24 b_s``.
"""

from __future__ import annotations

import math

import numpy as np

from optmech.heterogeneous._scaling import log2_range, power_of_two_shift, times_power_of_two
from optmech.heterogeneous.base import DrawnMechanism
from optmech.heterogeneous.inputs import check_scores_and_sensitivities
from optmech.selection.mechanisms import PrivacyGuarantee
from optmech.selection.noisy_max import IntegrationError
from optmech.validation import (
    InvalidArgumentError,
    NonFiniteResultError,
    check_finite,
    check_finite_result,
    check_integer,
)

__all__ = ["RandomStopping", "StoppingDistribution", "random_stopping_pmf"]

DEFAULT_GAMMA = 0.05
TAIL_EXPONENT = 40.0
SUM_TOLERANCE = 1e-10
_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(16)
_MAX_NODES = 4_000_000
_CHUNK = 1 << 10
_KEEP_CELLS = 1 << 24    # kernel values kept between the two passes (128 MiB)
_TABLE_LIMIT = 50_000_000
_TABLE_TAIL = 1e-17
_DRAWS_PER_BLOCK = 1 << 22
_RANGE_LOG2 = 1010
_REACH_BOUND = 64.0      # above the tail reach (TAIL_EXPONENT + log max φ') of the defaults
_RESOLUTION = float(2 ** 24)


class StoppingDistribution:
    """Law of the number of draws ``K >= 1``: geometric (``eta=None``) or ``D_{η,γ}``.

    ``gamma`` in (0, 1] for the geometric law (γ = 1: a single draw) and in (0, 1) for the
    truncated negative binomial, whose ``eta`` must exceed -1.
    """

    def __init__(self, gamma: float, eta: float | None = None):
        gamma = check_finite(gamma, "gamma")
        if eta is None:
            if not 0 < gamma <= 1:
                raise InvalidArgumentError("gamma", gamma, "a number in (0, 1]")
        else:
            if not 0 < gamma < 1:
                raise InvalidArgumentError("gamma", gamma, "a number in (0, 1) for the "
                                                           "truncated negative binomial")
            eta = check_finite(eta, "eta")
            if eta <= -1:
                raise InvalidArgumentError("eta", eta, "a number > -1")
        self.gamma = gamma
        self.eta = eta

    @property
    def geometric(self) -> bool:
        return self.eta is None

    def _log_normaliser(self) -> float:
        """``log |γ^{-η} - 1|`` (η != 0), computed with expm1."""
        return math.log(abs(math.expm1(-self.eta * math.log(self.gamma))))

    def pmf(self, k) -> np.ndarray:
        """``Pr[K = k]`` for integers ``k`` (0 for ``k < 1``)."""
        k = np.asarray(k, dtype=float)
        g = self.gamma
        with np.errstate(divide="ignore", invalid="ignore"):
            if self.geometric:
                out = g * np.power(1.0 - g, k - 1)
            elif self.eta == 0:
                out = np.exp(k * math.log1p(-g)) / (k * math.log(1.0 / g))
            else:
                # prod_{l<k} (l+η)/(l+1) = Γ(k+η) / (Γ(η) Γ(k+1)); its sign (that of η)
                # cancels the sign of γ^{-η} - 1.
                from scipy.special import gammaln  # imported on use: the CLI starts fast

                out = np.exp(k * math.log1p(-g) + gammaln(k + self.eta) - gammaln(self.eta)
                             - gammaln(k + 1) - self._log_normaliser())
        return np.where(k >= 1, out, 0.0)

    def mean(self) -> float:
        """``E[K]``: ``1/γ``; ``(1/γ - 1)/log(1/γ)`` (η = 0); ``η(1-γ)/(γ(1-γ^η))``."""
        g = self.gamma
        if self.geometric:
            return 1.0 / g
        if self.eta == 0:
            return (1.0 / g - 1.0) / math.log(1.0 / g)
        return self.eta * (1.0 - g) / (g * -math.expm1(self.eta * math.log(g)))

    def log_pgf_derivative(self, w: np.ndarray) -> np.ndarray:
        """``log φ'(x)`` as a function of ``w = 1 - (1-γ)x`` (``w`` in [γ, 1])."""
        g = self.gamma
        if self.geometric:
            return math.log(g) - 2.0 * np.log(w)
        if self.eta == 0:
            return math.log1p(-g) - math.log(math.log(1.0 / g)) - np.log(w)
        return (math.log(abs(self.eta)) + math.log1p(-g) - (self.eta + 1.0) * np.log(w)
                - self._log_normaliser())

    def sample(self, count: int, rng: np.random.Generator) -> np.ndarray:
        """``count`` i.i.d. draws of ``K``.

        Geometric: ``Generator.geometric`` (exact).  TNB: inverse cdf of the pmf tabulated
        until the remaining tail mass is below 1e-17 (a total-variation error below 1e-17).
        """
        count = check_integer(count, "count", minimum=0)
        if self.geometric:
            return rng.geometric(self.gamma, size=count).astype(np.int64)
        cdf = np.cumsum(self._table())
        k = np.searchsorted(cdf, rng.random(count) * cdf[-1], side="right")
        return np.minimum(k, cdf.size - 1).astype(np.int64) + 1

    def _table(self) -> np.ndarray:
        """``Pr[K = k]`` for ``k = 1..k_max`` with tail ``Pr[K > k_max] < 1e-17``.

        Beyond the mode the ratio ``Pr[k+1]/Pr[k] = (1-γ)(k+η)/(k+1)`` is at most ``ρ < 1``,
        so the tail is below ``Pr[k_max] ρ/(1-ρ)``.
        """
        g, eta = self.gamma, self.eta
        block = max(1024, int(8 / g))
        pieces, start = [], 1
        while True:
            if start > _TABLE_LIMIT:
                raise InvalidArgumentError("gamma", g, "large enough that the truncated "
                                           "negative binomial fits a table of 5e7 entries")
            k = np.arange(start, start + block, dtype=float)
            pieces.append(self.pmf(k))
            last = k[-1]
            ratio = (1.0 - g) * max(1.0, (last + eta) / (last + 1.0))
            if ratio < 1 and pieces[-1][-1] * ratio / (1.0 - ratio) < _TABLE_TAIL:
                return np.concatenate(pieces)
            start += block


def _chunks(count: int):
    for start in range(0, count, _CHUNK):
        yield slice(start, start + _CHUNK)


def _half_kernel(x: np.ndarray, q: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``exp(-|x - q_s|/b_s)/2`` for every score ``s`` (rows) and node ``x`` (columns).

    Values below ``e^-700`` are 0 (they do not matter, and subnormal results are slow;
    not a floor of ``e^-700``, which a panel wider than 1e290, for scales that differ by
    that much, would turn into a visible mass).  A quotient beyond the double range is
    such a value.
    """
    y = np.subtract(x[None, :], q[:, None])
    np.abs(y, out=y)
    with np.errstate(over="ignore"):
        y /= -b[:, None]
    y[y < -700.0] = -np.inf
    np.exp(y, out=y)
    y *= 0.5
    return y


def _panel_edges(q: np.ndarray, b: np.ndarray, reach: float) -> np.ndarray:
    """Sorted panel edges: every score, and per octave of ``b`` the merged windows
    ``[q_s - reach b_s, q_s + reach b_s]`` cut into pieces of length <= ``4 * 2^octave``."""
    octave = np.floor(np.log2(b))
    edges = [q]
    for k in np.unique(octave):
        mine = octave == k
        lo, hi = q[mine] - reach * b[mine], q[mine] + reach * b[mine]
        order = np.argsort(lo)
        lo, hi = lo[order], np.maximum.accumulate(hi[order])
        opens = np.r_[True, lo[1:] > hi[:-1]]
        starts = lo[opens]
        ends = hi[np.r_[np.flatnonzero(opens)[1:] - 1, lo.size - 1]]
        # At least one piece: a window can be narrower than the spacing of doubles near q.
        pieces = np.maximum(np.ceil((ends - starts) / (4.0 * 2.0 ** k)), 1).astype(np.int64)
        which = np.repeat(np.arange(starts.size), pieces + 1)
        step = np.arange(which.size) - np.repeat(np.cumsum(pieces + 1) - pieces - 1, pieces + 1)
        edges.append(starts[which] + (ends - starts)[which] * (step / pieces[which]))
    return np.unique(np.concatenate(edges))


def _cluster_probabilities(uq: np.ndarray, ub: np.ndarray, weight: np.ndarray,
                           mass_above: float, n: int, stopping: StoppingDistribution,
                           reach: float) -> np.ndarray:
    """``Pr[RS = r]`` for the distinct candidates ``(uq, ub)`` (sorted by ``uq``) of one
    cluster, given the weight ``mass_above`` of the candidates whose values all lie above
    it (those below contribute ``S_s = 0`` there)."""
    edges = _panel_edges(uq, ub, reach)
    if (edges.size - 1) * _NODES.size > _MAX_NODES:
        raise IntegrationError(f"random stopping needs {edges.size - 1} panels; the "
                               "sensitivities differ too much for this quadrature")
    half = np.diff(edges) / 2
    x = ((edges[:-1] + half)[:, None] + half[:, None] * _NODES).ravel()
    w = (half[:, None] * _WEIGHTS).ravel()

    # S(x) = sum_s weight_s S_s(x) with S_s = h_s above q_s and 1 - h_s below, where
    # h_s = exp(-|x - q_s|/b_s)/2 (which is also b_s times the density f_s).  The sums are
    # einsum, not BLAS: a multithreaded BLAS call on a busy machine is 50x slower here.
    # The nodes x are increasing, so h_s enters with a minus sign on a prefix of them (x <
    # q_s): add every h_s, then subtract twice the prefix, row by row (no (S, T) temporary
    # besides the kernel itself).  The kernel is kept for the second pass when it fits in
    # _KEEP_CELLS doubles: computing it is most of the cost.
    weight_above = np.r_[np.cumsum(weight[::-1])[::-1], 0.0] + mass_above
    survival = weight_above[np.searchsorted(uq, x, side="right")]
    keep = uq.size * x.size <= _KEEP_CELLS
    kernels = []
    for s in _chunks(uq.size):
        h = _half_kernel(x, uq[s], ub[s])
        survival += np.einsum("s,sj->j", weight[s], h)
        for row, (cut, share) in enumerate(zip(np.searchsorted(x, uq[s]), weight[s])):
            survival[:cut] -= (2.0 * share) * h[row, :cut]
        if keep:
            kernels.append(h)
    g = stopping.gamma
    weighted_kernel = w * np.exp(stopping.log_pgf_derivative(g + (1.0 - g) * survival))
    probs = np.empty(uq.size)
    for index, s in enumerate(_chunks(uq.size)):
        h = kernels[index] if keep else _half_kernel(x, uq[s], ub[s])
        probs[s] = np.einsum("sj,j->s", h, weighted_kernel) / (ub[s] * n)
    return probs


def _clusters(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Cluster index of each window ``[lo, hi]`` (windows given sorted by their centres):
    the connected components of the union of the windows, numbered upwards."""
    order = np.argsort(lo, kind="stable")
    reach_so_far = np.maximum.accumulate(hi[order])
    opens = np.r_[True, lo[order][1:] > reach_so_far[:-1]]
    cluster = np.empty(lo.size, dtype=np.int64)
    cluster[order] = np.cumsum(opens) - 1
    return cluster


def _scaled_inputs(q: np.ndarray, d: np.ndarray, factor: float, epsilon: float
                   ) -> tuple[np.ndarray, np.ndarray]:
    """``2^k q`` and the Laplace scales ``b = 2^k factor d / epsilon``, with ``k = 0`` (and
    ``b`` computed as ``factor * d / epsilon``) when ``max(|q|, 64 b) <= 2^1010`` and
    ``min b >= 2^-1010`` already; otherwise rescaled into that window (the distribution and
    the draws' ranking are invariant under a common scale of scores and noise scales).
    Refused when the window is too narrow for them (``max(|q|, 64 b) / min b > 2^2020``)."""
    mantissa, exponent = math.frexp(epsilon)
    multiplier = factor / mantissa              # b = multiplier * 2^-exponent * d
    d_low, d_top = log2_range(d)
    scale_low = d_low + math.floor(math.log2(multiplier)) - exponent
    scale_top = d_top + math.ceil(math.log2(multiplier * _REACH_BOUND)) - exponent
    k = power_of_two_shift(scale_low, max(log2_range(q)[1], scale_top), _RANGE_LOG2)
    if k is None:
        raise InvalidArgumentError(
            "sensitivities", d, "such that 64 times the largest Laplace scale "
            "c * sensitivity / epsilon and the largest |score| are within a factor 2^2020 "
            "(about 1e608) of the smallest scale")
    if k == 0:
        with np.errstate(over="ignore"):
            b = factor * d / epsilon
        if np.isfinite(b).all():
            return q, b
    return times_power_of_two(q, 1.0, k), times_power_of_two(d, multiplier, k - exponent)


def _random_stopping_pmf(q: np.ndarray, d: np.ndarray, factor: float, epsilon: float,
                         stopping: StoppingDistribution) -> np.ndarray:
    """``Pr[RS = r]`` for validated scores ``q`` and Laplace scales
    ``b = factor * d / epsilon``."""
    n = q.size
    if n == 1:
        return np.ones(1)
    g = stopping.gamma
    reach = TAIL_EXPONENT + max(0.0, float(stopping.log_pgf_derivative(np.array(g))))
    q, b = _scaled_inputs(q, d, factor, epsilon)
    keys, inverse, counts = np.unique(np.stack([q, b], axis=1), axis=0, return_inverse=True,
                                      return_counts=True)
    uq, ub, weight = keys[:, 0], keys[:, 1], counts / n
    cluster = _clusters(uq - reach * ub, uq + reach * ub)
    cluster_weight = np.bincount(cluster, weights=weight)
    mass_above = np.r_[np.cumsum(cluster_weight[::-1])[::-1][1:], 0.0]
    probs = np.empty(uq.size)
    for c in range(cluster_weight.size):
        mine = np.flatnonzero(cluster == c)
        # Local coordinates around the cluster's narrowest candidate: exact shifts for
        # nearby scores, and no resolution lost to a distant origin.
        anchor = uq[mine[np.argmin(ub[mine])]]
        local = uq[mine] - anchor
        with np.errstate(over="ignore"):        # an infinite bound is no bound
            unresolved = (np.abs(local) > _RESOLUTION * ub[mine]).any()
        if unresolved:
            raise InvalidArgumentError(
                "sensitivities", d, "such that, among candidates whose noisy values "
                "overlap, each score is within 2^24 of its own Laplace scales of the score "
                "whose Laplace scale is smallest (doubles cannot resolve its noise there)")
        probs[mine] = _cluster_probabilities(local, ub[mine], weight[mine], mass_above[c],
                                             n, stopping, reach)
    total = float(counts @ probs)
    if not abs(total - 1.0) <= SUM_TOLERANCE:
        raise IntegrationError(
            f"random-stopping probabilities sum to {total!r}, off by more than {SUM_TOLERANCE}")
    return check_finite_result(probs[inverse.ravel()], "the random-stopping probabilities")


def random_stopping_pmf(scores, scales, stopping: StoppingDistribution) -> np.ndarray:
    """``Pr[RS = r]`` for draws ``q_a + Lap(b_a)`` (``b_a > 0``) and stopping law ``K``.

    See the module docstring for the formula, the quadrature, its accuracy and the
    supported range.
    """
    q, b = check_scores_and_sensitivities(scores, scales)
    return _random_stopping_pmf(q, b, 1.0, 1.0, stopping)


class RandomStopping(DrawnMechanism):
    """RS_γ (``eta=None``, the paper's Algorithm 1) or its TNB variant with parameter η.

    Defaults: γ = 0.05 (the paper's synthetic experiments); η = 0 is the paper's "improved
    RS_γ".  ε-DP for every γ (see the module docstring).  ``pmf`` is the exact
    distribution by quadrature (about 1e-13; the sum is certified within 1e-10);
    ``sample`` runs the algorithm.  Both accept scores, sensitivities and ε anywhere in the
    finite doubles within the supported range of the module docstring:
    ``max(|q_a|, 64 b_a) <= 2^2020 min b_a`` for the scales ``b_a = c Δ_a / ε``, and
    candidates whose noise overlaps within ``2^24`` scales of the narrowest one among them;
    beyond it they raise :class:`~optmech.validation.InvalidArgumentError`.
    """

    def __init__(self, epsilon: float, gamma: float = DEFAULT_GAMMA, eta: float | None = None):
        super().__init__(epsilon)
        self.stopping = StoppingDistribution(gamma, eta)
        self.noise_factor = 3.0 if eta is None else 2.0 + self.stopping.eta
        self.name = "rs_gamma" if eta is None else "rs_gamma_tnb"

    def _parameters(self) -> dict:
        return {**super()._parameters(), "gamma": self.stopping.gamma, "eta": self.stopping.eta}

    def scales(self, sensitivities: np.ndarray) -> np.ndarray:
        """Laplace scales ``c Δ_a / ε`` with ``c = 3`` (geometric) or ``2 + η`` (TNB);
        :class:`~optmech.validation.NonFiniteResultError` if one is beyond the double range
        (``pmf`` and ``sample`` rescale instead)."""
        with np.errstate(over="ignore", under="ignore"):
            scales = self.noise_factor * np.asarray(sensitivities, dtype=float) / self.epsilon
        if (scales == 0).any():
            raise NonFiniteResultError("a Laplace scale c * sensitivity / epsilon underflows "
                                       "to 0")
        return check_finite_result(scales, "a Laplace scale c * sensitivity / epsilon")

    @property
    def privacy(self) -> PrivacyGuarantee:
        if self.stopping.geometric:
            source = "Liu-Talwar 2019, Theorem 3.4: 3 x (epsilon/3)"
        else:
            source = (f"Papernot-Steinke 2022, Corollary 3: (2 + eta) x epsilon/(2 + eta), "
                      f"eta = {self.stopping.eta:g}")
        return PrivacyGuarantee(self.epsilon, 0.0,
                                f"random stopping over draws that are epsilon/"
                                f"{self.noise_factor:g}-DP ({source})")

    def _pmf(self, q, d):
        return _random_stopping_pmf(q, d, self.noise_factor, self.epsilon, self.stopping)

    def _draw(self, q, d, count, rng):
        # Rescaled like the pmf: a Laplace draw is below 37.5 in magnitude (inverse cdf of
        # a double), so no value overflows.
        q, scales = _scaled_inputs(q, d, self.noise_factor, self.epsilon)
        out = np.empty(count, dtype=np.int64)
        per_block = max(1, int(_DRAWS_PER_BLOCK / self.stopping.mean()))
        for start in range(0, count, per_block):
            m = min(per_block, count - start)
            draws = self.stopping.sample(m, rng)
            candidate = rng.integers(q.size, size=int(draws.sum()))
            value = q[candidate] + scales[candidate] * rng.laplace(0.0, 1.0, candidate.size)
            first = np.cumsum(draws) - draws
            best = np.maximum.reduceat(value, first)
            winners = np.flatnonzero(value == np.repeat(best, draws))
            run = np.repeat(np.arange(m), draws)[winners]
            keep = np.r_[True, run[1:] != run[:-1]]
            out[start:start + m] = candidate[winners[keep]]
        return out
