r"""What dominates one run of each mechanism, with the theorem that says so.

A step of a composition is certified through a *dominance*: a statement that every pair of
neighbouring inputs gives a pair of output distributions no more distinguishable than a
known pair (or family of pairs).  Three statements cover every mechanism of optmech; each
holds for every pair of neighbours and every ``alpha >= 0`` of the hockey-stick divergence
``E_Q[(P/Q - alpha)_+]``, both directions, so it survives adaptive composition (Zhu, Dong and
Wang, *Optimal accounting of differential privacy via characteristic function*,
arXiv:2106.08567, Theorem 10: dominating pairs compose; :mod:`optmech.privacy.adaptive`
composes them).

**Randomised response** (pure ε-DP: randomised response on candidates, the GEM family,
the optimal lattice mechanism as a fallback).  An ε-DP pair is a post-processing of the
binary pair ``(e^ε, 1) / (1 + e^ε)`` against ``(1, e^ε) / (1 + e^ε)`` (Kairouz, Oh and
Viswanath, *The composition theorem for differential privacy*, arXiv:1311.0776, Section 3:
the privacy region of ε-DP is that of randomised response); its composition is the optimal
composition of ε-DP mechanisms, heterogeneous ones included (Murtagh and Vadhan, *The
complexity of computing the optimal composition of differential privacy*,
arXiv:1507.03113).

**ε-bounded range** (the exponential mechanism, report-noisy-max with Gumbel noise, joint
and canonical top-k (they are exponential mechanisms), each round of peeling with the
exponential mechanism; Dong, Durfee and Rogers, *Optimal differential privacy composition
for exponential mechanisms*, arXiv:1909.13830, whose generalised randomised response is
the binary pair with losses ``t`` and ``t - ε``).  Not one pair but a family, ``0 <= t <=
ε``: the composition takes the sup over ``t`` at every step, given everything before it
(:meth:`~optmech.privacy.adaptive.HockeyStickBound.apply_bounded_range`).  One run's curve
is ``(1 - e^(-(ε - eps')/2))^2 / (1 - e^-ε)`` (at ``t = (ε + eps')/2``).

**The Laplace pair** ``Lap(0, 1)`` against ``Lap(ε, 1)`` (the Laplace mechanism with
parameter ``1/ε`` on a sensitivity-1 query): permute-and-flip, report-noisy-max with
exponential or Laplace noise (and Gumbel: the exponential mechanism, though bounded range
is tighter for it), each round of peeling with permute-and-flip.  Proved here, for every
number of candidates and both neighbouring relations:

    *Theorem.*  Let ``M(q) = argmax_r (q_r / b + Z_r)`` with ``Z_r`` i.i.d., continuous,
    whose survival function ``S(u) = Pr[Z > u]`` satisfies ``S'' <= S`` as measures.  If
    every score moves by at most ``Δ`` and ``b = 2Δ/ε`` (all moves of one sign and ``b =
    Δ/ε`` for the add/remove relation), then ``(M(q), M(q'))`` is a post-processing of
    ``(Lap(0, 1), Lap(ε, 1))``.

    *Proof.*  Write ``z = q / b``; after a common shift (which changes no output), ``z' = z
    + ε w`` with every ``w_s`` in ``[0, 1]``.  Follow the path ``z(y) = z + y w``, ``y`` real,
    and let ``P_y(r) = Pr[M = r]`` on it.  With ``N_r(y) = max_{s != r} (z_s(y) + Z_s) -
    z_r(y)``, ``P_y(r) = E[S(N_r(y))]``.  For fixed noise ``N_r`` is convex and piecewise
    linear in ``y`` with slopes ``w_s - w_r`` in ``[-1, 1]``, so, as measures,
    ``(S o N)'' = S''(N) N'^2 + S'(N) N'' <= S(N)``: where ``S''(N) >= 0``, ``N'^2 <= 1``;
    elsewhere the term is ``<= 0``; and ``S' <= 0 <= N''``.  Averaging over the noise,
    ``P'' <= P``, and ``P`` is ``C^1`` (the kinks sit at continuously distributed places).  So
    ``kappa_r = P(r) - P(r)''`` is a non-negative measure and ``sum_r kappa_r`` is Lebesgue
    measure (``sum_r P(r) = 1``): ``kappa_r`` has a density in ``[0, 1]``, a Markov kernel
    from the real line to the candidates.  ``G(x) = e^(-|x|)/2`` solves ``G - G'' =
    delta_0``, and a bounded solution of ``u - u'' = kappa`` is unique (the homogeneous
    solutions ``e^{±y}`` are unbounded), so ``P_y(r) = ∫ kappa_r(x) G(x - y) dx``: ``M(z(y))``
    is the kernel applied to ``Lap(y, 1)``.  At ``y = 0`` and ``y = ε`` this is the pair. ∎

    The noises: exponential (``S = min(1, e^-u)``: ``S'' = S`` above 0, 0 below, a negative
    point mass at 0), which is permute-and-flip (Ding, Kifer, Steinke et al., *The
    permute-and-flip mechanism is identical to report-noisy-max with exponential noise*,
    arXiv:2105.07260); Laplace (``S'' = S`` above 0, ``-e^u/2`` below); Gumbel (``S'' =
    e^-u exp(-e^-u) (1 - e^-u) <= 1 - exp(-e^-u)``).  SymPy checks the three inequalities
    and a numerical test rebuilds the kernel ``kappa`` of random permute-and-flip pairs
    (``tests/optmech/privacy/test_dominating.py``).  Consequence: ``dp_accounting``'s
    choice of the Laplace PLD for permute-and-flip is a valid upper bound for every number
    of candidates (tight on two: there permute-and-flip is the sign of the Laplace
    mechanism on the gap), though the two distributions are not identical.

**The Gaussian pair** ``N(0, 1)`` against ``N(μ, 1)`` (μ-Gaussian differential privacy:
Dong, Roth and Su, *Gaussian differential privacy*, arXiv:1905.02383, Definition 2.6; the
Gaussian mechanism with noise ``σ`` on a query of ℓ2 sensitivity ``Δ₂`` is ``Δ₂/σ``-GDP, their
Theorem 2.7): report-noisy-max with Gaussian noise is a post-processing of the Gaussian
mechanism on the score vector.  Its loss is unbounded (``N(μ²/2, μ²)`` under ``P``); the
grid keeps ``|l| <= μ²/2 + z μ`` with ``Φ(-z) = 1e-40`` and moves each tail to outputs only
one side gives (``P``-mass to the loss ``+inf``, ``Q``-mass to ``-inf``): for every set of
outputs ``(P(S) - α Q(S))_+ <= P(S)``, so the result dominates the pair.  Its curve is
``Φ(μ/2 - eps'/μ) - e^eps' Φ(-μ/2 - eps'/μ)`` (Dong, Roth and Su, Corollary 2.13).

**A finite family** (the optimal lattice mechanism): its every pair of lattice neighbours,
both directions; the composition takes the worst member at every step.

One run of a top-k mechanism with ``T`` rounds is ``T`` steps (peeling) or one
(one-shot exponential mechanisms); joint and canonical mechanisms are exponential mechanisms
on their own utility, calibrated to be ε-bounded range under the relation asked
(:mod:`optmech.topk.mechanisms`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy import special

from optmech.privacy.accountants import laplace_delta
from optmech.privacy.adaptive import FixedStep
from optmech.privacy.bounds import bounded_range_delta, randomised_response_delta
from optmech.validation import InvalidArgumentError, check_nonnegative

__all__ = ["BOUNDED_RANGE", "FAMILY", "GAUSSIAN", "IDENTITY", "LAPLACE",
           "RANDOMISED_RESPONSE", "Dominance", "Paper", "gaussian_cut", "gaussian_delta",
           "gaussian_step", "spread_on_grid"]

BOUNDED_RANGE = "bounded-range"
LAPLACE = "laplace"
RANDOMISED_RESPONSE = "randomised-response"
FAMILY = "family"
IDENTITY = "identity"
GAUSSIAN = "gaussian"


@dataclass(frozen=True)
class Paper:
    """A source: title, authors, arXiv id (None for this package's own proof)."""

    #: The paper's title.
    title: str
    #: Its authors.
    authors: str
    #: Its arXiv id (None for this package's own proof).
    arxiv: str | None = None
    #: The part of it that proves the statement.
    where: str = ""

    def __str__(self) -> str:
        cite = f"{self.authors}, {self.title}"
        return (cite + (f", arXiv:{self.arxiv}" if self.arxiv else "")
                + (f" ({self.where})" if self.where else ""))


KOV = Paper("The composition theorem for differential privacy", "Kairouz, Oh and Viswanath",
            "1311.0776", "Section 3")
MURTAGH_VADHAN = Paper("The complexity of computing the optimal composition of differential "
                       "privacy", "Murtagh and Vadhan", "1507.03113")
DDR = Paper("Optimal differential privacy composition for exponential mechanisms",
            "Dong, Durfee and Rogers", "1909.13830", "bounded range, generalised randomised "
                                                     "response")
ZDW = Paper("Optimal accounting of differential privacy via characteristic function",
            "Zhu, Dong and Wang", "2106.08567", "Theorem 10, dominating pairs compose")
DING = Paper("The permute-and-flip mechanism is identical to report-noisy-max with "
             "exponential noise", "Ding, Kifer, Steinke, Wang, Xiao, Zhang and Zhang",
             "2105.07260")
OWN = Paper("Laplace domination of report-noisy-max", "optmech",
            None, "optmech.privacy.dominating, proof in the module docstring")
GDP = Paper("Gaussian differential privacy", "Dong, Roth and Su", "1905.02383",
            "Theorem 2.7 (the Gaussian mechanism), Corollary 2.13 (its curve)")
LATTICE = Paper("Permute-and-flip: a new mechanism for differentially private selection",
                "McKenna and Sheldon", "2010.12603", "Appendix D's LP: eps-DP on the "
                                                     "bounded 2Delta-lattice")

_STATEMENTS = {
    RANDOMISED_RESPONSE: "every eps-DP pair is a post-processing of binary randomised "
                         "response at eps",
    BOUNDED_RANGE: "every eps-bounded-range pair is dominated by a binary pair with losses "
                   "t and t - eps, 0 <= t <= eps; the composition takes the sup over t at "
                   "every step (adaptive optimum)",
    LAPLACE: "every pair is a post-processing of Laplace(0, 1) against Laplace(eps, 1)",
    FAMILY: "the exact worst over every pair of the finite domain, at every step",
    IDENTITY: "the output does not depend on the data",
    GAUSSIAN: "every pair is a post-processing of N(0, 1) against N(mu, 1) (mu-GDP)",
}
_PAPERS = {RANDOMISED_RESPONSE: (KOV, MURTAGH_VADHAN, ZDW), BOUNDED_RANGE: (DDR, ZDW),
           LAPLACE: (OWN, DING, ZDW), FAMILY: (LATTICE, ZDW), IDENTITY: (),
           GAUSSIAN: (GDP, ZDW)}

#: ``z`` with ``Φ(-z) = 1e-40``: where the Gaussian pair's loss is cut (module docstring).
GAUSSIAN_CUT = float(-special.ndtri(1e-40))


# Gauss-Legendre nodes and weights on [0, 1] for the density part of a spread (8 nodes: the
# integrands are e^(l/2) times a tent weight, analytic on each piece; the error is below
# 1e-20 relative for pieces up to 1 wide).
_GL_X, _GL_W = np.polynomial.legendre.leggauss(8)
_GL_X, _GL_W = (_GL_X + 1.0) / 2.0, _GL_W / 2.0


def spread_on_grid(step: float, losses=(), masses=(), density=None,
                   escape: float = 0.0, proxy: float | None = None) -> FixedStep:
    """The pair moved onto the losses ``j * step``: each likelihood ratio ``y = e^l`` split
    between its neighbouring nodes ``e^(j h) <= y <= e^((j+1) h)`` keeping the ``Q``-mean
    (a mean-preserving spread, so the result dominates the pair for every ``alpha >= 0``:
    its hockey-stick curve is the chord interpolation of the pair's at the nodes).

    ``losses``, ``masses``: atoms (finite losses, ``P``-masses); ``density``: ``(f, lo,
    hi)`` for a ``P``-density ``f(l)`` of the loss on ``(lo, hi)``, analytic there (the
    continuous part of the Laplace and Gaussian pairs); ``escape``: ``P``-mass of the loss
    ``+inf``; ``proxy``: :attr:`FixedStep.proxy`.  In ``P``-masses a loss ``l = (j + s/h)
    h`` sends ``expm1(h - s) / expm1(h)`` of its mass to node ``j`` and the rest, ``e^(h -
    s) expm1(s) / expm1(h)``, to node ``j + 1``.  The step's mean is that of its finite
    losses given that none escaped (the Azuma-Hoeffding bound of
    :mod:`optmech.privacy.adaptive` adds the escaped mass).
    """
    h = float(step)
    losses = np.asarray(losses, dtype=float)
    masses = np.asarray(masses, dtype=float)
    points, weights = [losses], [masses]
    if density is not None:
        f, lo, hi = density
        edges = np.concatenate([[lo], np.arange(math.floor(lo / h) + 1, math.ceil(hi / h))
                                * h, [hi]])
        width = np.diff(edges)
        x = edges[:-1, None] + width[:, None] * _GL_X[None, :]
        points.append(x.ravel())
        weights.append((f(x) * width[:, None] * _GL_W[None, :]).ravel())
    points = np.concatenate(points)
    weights = np.concatenate(weights)
    j = np.floor(points / h)
    s = points - j * h
    on_node = s <= 1e-12 * h
    s = np.where(on_node, 0.0, s)
    # expm1(h - s) / expm1(h) and e^(h - s) expm1(s) / expm1(h), divided through by e^h so
    # that no term overflows however coarse the grid (a round at a large ε)
    scale = -math.expm1(-h)
    lower = np.where(on_node, 1.0, np.exp(-s) * -np.expm1(s - h) / scale)
    upper = np.where(on_node, 0.0, -np.expm1(-s) / scale)
    first = int(j.min())
    out = np.zeros(int(j.max()) - first + 2)
    np.add.at(out, (j - first).astype(np.int64), weights * lower)
    np.add.at(out, (j - first + 1).astype(np.int64), weights * upper)
    nodes = (first + np.arange(out.size)) * h
    keep = np.flatnonzero(out > 0)
    out = out[keep[0]:keep[-1] + 1]
    nodes = nodes[keep[0]:keep[-1] + 1]
    return FixedStep(first + int(keep[0]), out, float(nodes[-1] - nodes[0]),
                     float((out * nodes).sum() / out.sum()), float(escape), proxy)


def gaussian_delta(mu: float, eps_prime) -> np.ndarray:
    """``delta(eps') = Φ(μ/2 - eps'/μ) - e^eps' Φ(-μ/2 - eps'/μ)`` of the μ-GDP pair, in
    logarithms (``log Φ``) so that values far below 1e-300 keep their digits."""
    e = np.asarray(eps_prime, dtype=float)
    mu = float(mu)
    if mu == 0.0:
        return np.zeros(e.shape)
    log_a = special.log_ndtr(mu / 2.0 - e / mu)
    log_b = special.log_ndtr(-mu / 2.0 - e / mu) + e
    with np.errstate(divide="ignore"):
        return np.exp(log_a) * -np.expm1(np.minimum(log_b - log_a, 0.0))


def gaussian_cut(mu: float) -> float:
    """``μ²/2 + zμ``: the largest finite loss of the μ-GDP pair on the grid (before the
    spread onto its nodes)."""
    return mu * mu / 2.0 + GAUSSIAN_CUT * mu


def gaussian_step(mu: float, step: float) -> FixedStep:
    """The μ-GDP pair on the grid ``step``: its loss density ``φ((l - μ²/2)/μ)/μ`` on ``|l|
    <= μ²/2 + zμ`` spread onto the nodes, both tails' ``P``-mass escaping to ``+inf``
    (module docstring); its loss is sub-Gaussian with proxy ``(μ + step)²``
    (:mod:`optmech.privacy.adaptive`)."""
    mu = float(mu)
    half, cut = mu * mu / 2.0, gaussian_cut(mu)
    escape = float(special.ndtr(-GAUSSIAN_CUT) + special.ndtr(-GAUSSIAN_CUT - mu))

    def density(loss):
        z = (loss - half) / mu
        return np.exp(-0.5 * z * z) / (mu * math.sqrt(2.0 * math.pi))
    return spread_on_grid(step, density=(density, -cut, cut), escape=escape,
                          proxy=4.0 * (mu + step) ** 2)


@dataclass(frozen=True)
class Dominance:
    """What dominates one run of a mechanism: ``kind`` (module docstring) at ``epsilon`` per
    round, ``rounds`` rounds a run; ``family``: for :data:`FAMILY`, the pairs as
    ``(losses, P-masses)`` rows."""

    #: What dominates one round: :data:`BOUNDED_RANGE`, :data:`LAPLACE`,
    #: :data:`RANDOMISED_RESPONSE`, :data:`GAUSSIAN`, :data:`FAMILY` or :data:`IDENTITY`.
    kind: str
    #: The parameter of one round's pair: its ε (for :data:`GAUSSIAN`, μ).
    epsilon: float
    #: Rounds in one run (T for peeling top-T).
    rounds: int = 1
    #: For :data:`FAMILY`: ``(losses, P-masses)``, one row per pair of the family.
    family: tuple = field(default=(), repr=False)
    #: Where the finite family comes from (for the report).
    origin: str = ""

    def __post_init__(self):
        check_nonnegative(self.epsilon, "epsilon")
        if self.kind not in _STATEMENTS:
            raise InvalidArgumentError("kind", self.kind, ", ".join(_STATEMENTS))

    @property
    def statement(self) -> str:
        """The theorem, in one line."""
        return _STATEMENTS[self.kind]

    @property
    def papers(self) -> tuple[Paper, ...]:
        """Where it is proved (and the composition theorem)."""
        return _PAPERS[self.kind]

    @property
    def adaptive(self) -> bool:
        """Every dominance here holds for each step given the past (adaptive composition)."""
        return True

    def delta(self, eps_prime) -> np.ndarray:
        """One round's dominating curve ``delta(eps')`` (``eps' >= 0``)."""
        e = np.asarray(eps_prime, dtype=float)
        if self.kind == BOUNDED_RANGE:
            return bounded_range_delta(self.epsilon, e)
        if self.kind == LAPLACE:
            return laplace_delta(self.epsilon, e)
        if self.kind == RANDOMISED_RESPONSE:
            return randomised_response_delta(self.epsilon, e)
        if self.kind == GAUSSIAN:
            return gaussian_delta(self.epsilon, e)
        if self.kind == FAMILY:
            from optmech.privacy.divergences import hockey_stick

            curves = [hockey_stick(np.log(p), np.log(p) - l, np.atleast_1d(e))
                      for l, p in self.family]
            return np.max(curves, axis=0).reshape(e.shape)
        return np.zeros(e.shape)

    def fixed_step(self, step: float) -> FixedStep:
        """The dominating pair spread onto the grid ``step`` (Laplace, randomised
        response, identity; for bounded range the *envelope* pair, whose curve is the
        one-round curve at every ``eps'``: a single pair for the accountants that need
        one, valid for every round but looser in composition than the sup over ``t`` at
        every step).

        The envelope: ``P``-density ``e^((l - ε)/2) / (2 (1 - e^-ε))`` of the loss on
        ``(-ε, ε)`` (its ``Q``-density is the mirror image, so the pair is symmetric);
        integrating gives ``delta(eps') = (1 - e^(-(ε - eps')/2))^2 / (1 - e^-ε)``, the
        largest ``delta`` of any binary pair with losses ``t``, ``t - ε`` (tests check it)."""
        eps = self.epsilon
        if self.kind == BOUNDED_RANGE:
            c = math.exp(-eps / 2.0) / (2 * -math.expm1(-eps))
            return spread_on_grid(step, density=(lambda l: c * np.exp(l / 2.0), -eps, eps))
        if self.kind == LAPLACE:
            c = 0.25 * math.exp(-eps / 2.0)
            return spread_on_grid(step, [eps, -eps], [0.5, 0.5 * math.exp(-eps)],
                                  (lambda l: c * np.exp(l / 2.0), -eps, eps))
        if self.kind == GAUSSIAN:
            return gaussian_step(eps, step)
        if self.kind == RANDOMISED_RESPONSE:
            top = 1.0 / (1.0 + math.exp(-eps))
            return spread_on_grid(step, [eps, -eps], [top, 1.0 - top])
        if self.kind == IDENTITY:
            return spread_on_grid(step, [0.0], [1.0])
        raise InvalidArgumentError("kind", self.kind, "a single dominating pair (laplace, "
                                   "randomised-response, gaussian, identity)")
