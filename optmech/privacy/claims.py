"""The referee: other libraries' privacy claims about selection mechanisms, with verdicts.

Each :class:`Claim` names its source (library, version or commit, file and function, or an
issue) with the claim's text as it reads there, and carries a verdict:

* ``holds``: proved (the proof is cited, or given in full where it is short), or checked
  exhaustively over the claim's whole scope; numbers beside it are consistency checks;
* ``refuted``: an explicit counterexample pair violates the claimed figure, computed twice,
  in double precision (:mod:`optmech.privacy.divergences` on the mechanisms' log-pmfs) and
  at 50 digits (:mod:`optmech.privacy.high_precision`, sharing nothing with the first);
* ``not refuted``: searched and not violated, and no proof found (the evidence says
  ``cannot be settled here``).  Never written as ``holds``.

:func:`referee` runs every claim's check (the searches are seeded, so the same numbers come
out every time) and confirms that what it computes supports the verdict
(:attr:`ClaimResult.consistent`); ``docs/accountants.md`` is rendered from its results
(:mod:`optmech.privacy.report`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from optmech.privacy import high_precision as hp
from optmech.privacy.accountants import (
    DP_ACCOUNTING_COMMIT,
    DP_ACCOUNTING_RELEASE,
    RDP_ORDERS,
    compute_epsilon,
    em_event_rdp,
    laplace_delta,
    laplace_rdp,
    rdp_accountant_em,
)
from optmech.privacy.bounds import (
    bounded_range_delta,
    bounded_range_kl,
    randomised_response_delta,
)
from optmech.privacy.composition import compose
from optmech.privacy.divergences import hockey_stick, renyi
from optmech.privacy.loss import LossDistribution, loss_distribution
from optmech.privacy.worst import worst_pair
from optmech.selection.mechanisms import make_mechanism
from optmech.validation import InvalidArgumentError

__all__ = ["VERDICTS", "Claim", "ClaimResult", "Counterexample", "Source", "claims",
           "figure_twice", "referee"]

VERDICTS = ("holds", "refuted", "not refuted")
_SHORT = DP_ACCOUNTING_COMMIT[:7]
_DPA = "dp-accounting (google/differential-privacy, python/dp_accounting)"
_DPA_VERSION = (f"source at commit {_SHORT} ({DP_ACCOUNTING_COMMIT}); not in release "
                f"{DP_ACCOUNTING_RELEASE}")
_OPENDP_TAG = "v0.15.1 (commit c34d3d04a8872a51af523d9a2244be6171173b7d)"


@dataclass(frozen=True)
class Source:
    """Where a claim is made and how it reads there."""

    #: The library (or paper) making the claim.
    library: str
    #: Its version: a release, a commit, or an issue's date and state.
    version: str
    #: File and function, or the issue, where the claim is made.
    location: str
    #: The claim's own words there (a quotation, shortened with "...").
    quote: str

    def __str__(self) -> str:
        return f"{self.library}, {self.version}: {self.location}"


@dataclass(frozen=True)
class Counterexample:
    """An explicit pair that violates a claimed figure, computed twice."""

    #: The mechanism (a name of ``optmech.selection.mechanisms.MECHANISMS``).
    mechanism: str
    #: Its ε (sensitivity 1, scores move by at most 1).
    eps: float
    #: The score vector ``q``.
    scores: tuple
    #: The neighbouring score vector ``q'``.
    neighbour: tuple
    #: What is violated, in words (e.g. the Rényi divergence of 10 composed runs at order 2).
    figure: str
    #: The value the claim implies (an upper bound on the figure).
    claimed: float
    #: The figure at the pair in double precision.
    value: float
    #: The figure at the pair at 50 digits, rounded to a double.
    value_mpmath: float
    #: Runs composed (1: a single run).
    count: int = 1


@dataclass(frozen=True)
class ClaimResult:
    """A claim with its verdict and what the referee computed for it."""

    #: The claim's id (``library.accountant.subject``).
    id: str
    #: Where the claim is made.
    source: Source
    #: The claim, in our words.
    claim: str
    #: ``"holds"``, ``"refuted"`` or ``"not refuted"``.
    verdict: str
    #: The evidence: proof (cited), computed numbers, and what cannot be settled here.
    evidence: str
    #: The violating pair of a ``refuted`` claim (None otherwise).
    counterexample: Counterexample | None = None
    #: Whether the computations support the verdict (a refutation violated in both
    #: computations; nothing computed above a claim that holds or is not refuted).
    consistent: bool = True


@dataclass(frozen=True)
class Claim:
    """A registry entry: the claim and the check that produces its evidence."""

    #: Stable id.
    id: str
    #: Where the claim is made.
    source: Source
    #: The claim, in our words.
    claim: str
    #: ``"holds"``, ``"refuted"`` or ``"not refuted"``.
    verdict: str
    #: ``check(quick) -> (evidence, counterexample or None, consistent)``.
    check: Callable = field(repr=False)

    def __post_init__(self):
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}, got {self.verdict!r}")


# --- the two computations of a figure -----------------------------------------------------

def _figure_double(distribution: LossDistribution, figure: str, parameter: float) -> float:
    pair = np.stack([distribution.log_p, distribution.log_q])
    if figure == "delta":
        return float(hockey_stick(pair, pair[::-1], [parameter]).max())
    if figure == "renyi":
        return float(renyi(pair, pair[::-1], [parameter]).max())
    raise InvalidArgumentError("figure", figure, "delta or renyi")


def _figure_mp(log_p: list, log_q: list, figure: str, parameter: float) -> float:
    if figure == "delta":
        return hp.to_float(max(hp.hockey_stick_mp(log_p, log_q, parameter),
                               hp.hockey_stick_mp(log_q, log_p, parameter)))
    return hp.to_float(max(hp.renyi_mp(log_p, log_q, parameter),
                           hp.renyi_mp(log_q, log_p, parameter)))


def figure_twice(mechanism: str, eps: float, scores, neighbour, figure: str, parameter: float,
                 count: int = 1) -> tuple[float, float]:
    """``figure`` (``"delta"`` at ``eps' = parameter`` or ``"renyi"`` at order ``parameter``,
    the larger direction) of ``count`` composed runs of ``mechanism`` on the pair: in double
    precision and at 50 digits (pmfs, composition and divergence all recomputed)."""
    single = loss_distribution(make_mechanism(mechanism, eps), scores, neighbour)
    double = _figure_double(compose(single, count) if count > 1 else single, figure,
                            parameter)
    log_p = hp.log_pmf_mp(mechanism, str(eps), [str(s) for s in scores])
    log_q = hp.log_pmf_mp(mechanism, str(eps), [str(s) for s in neighbour])
    if count > 1:
        log_p, log_q = hp.compose_mp(log_p, log_q, count)
    return double, _figure_mp(log_p, log_q, figure, parameter)


def _fmt(value: float, digits: int = 6) -> str:
    return f"{value:.{digits}g}"


# --- the checks ------------------------------------------------------------------------------

def _em_count(quick: bool):
    eps, count, delta = 1.0, 10, 1e-5
    scores, neighbour = (0.0, 0.0), (1.0, -1.0)
    reported, order = compute_epsilon(RDP_ORDERS, rdp_accountant_em(eps, RDP_ORDERS, count),
                                      delta)
    exact, exact_mp = figure_twice("em", eps, scores, neighbour, "delta", reported, count)
    renyi2, renyi2_mp = figure_twice("em", eps, scores, neighbour, "renyi", 2.0, count)
    claimed_renyi = float(em_event_rdp(eps, [2.0])[0])
    correct, _ = compute_epsilon(RDP_ORDERS, count * em_event_rdp(eps, RDP_ORDERS), delta)
    example = Counterexample("em", eps, scores, neighbour,
                             f"delta(eps' = {_fmt(reported)}) of {count} composed runs "
                             f"(the accountant reports ({_fmt(reported)}, {delta:g})-DP)",
                             delta, exact, exact_mp, count)
    evidence = (
        f"The branch adds one event's RDP and ignores `count`: composing "
        f"`SelfComposedDpEvent(ExponentialMechanismDpEvent({eps:g}), {count})` leaves the "
        f"accountant at one event's curve, so `get_epsilon({delta:g})` = {_fmt(reported)} "
        f"(order {order:g}), the value for a single run; with `count *` it is "
        f"{_fmt(correct)}.  Counterexample: EM at eps = {eps:g} on scores {list(scores)} and "
        f"neighbour {list(neighbour)} (each score moves by 1), run {count} times: the exact "
        f"delta at eps' = {_fmt(reported)} is {_fmt(exact)} (double) / {_fmt(exact_mp)} "
        f"(50 digits) > {delta:g}; the Renyi divergence at order 2 is {_fmt(renyi2)} / "
        f"{_fmt(renyi2_mp)} > the accountant's {_fmt(claimed_renyi)}.  The source's tests "
        "compose one event only (`test_compute_rdp_exponential_mechanism`).  The per-event "
        "value itself is right (claim dp-accounting.rdp.em-event).")
    consistent = min(exact, exact_mp) > delta and min(renyi2, renyi2_mp) > claimed_renyi
    return evidence, example, consistent


def _em_event(quick: bool):
    eps = 1.0
    u = eps / math.expm1(eps)
    # EM on two candidates realises the bounded-range pair whose loss is t = -log u, the
    # KL maximiser: P(top) / Q(top) = e^t with a gap g in scores (0, -g) vs (-1, 1 - g)
    gap = -(2.0 / eps) * math.log((1.0 / u - 1.0) / (math.exp(eps) - 1.0 / u))
    scores, neighbour = (0.0, -gap), (-1.0, 1.0 - gap)
    kl, kl_mp = figure_twice("em", eps, scores, neighbour, "renyi", 1.0)
    claimed = float(em_event_rdp(eps, [1.0])[0])
    orders = [1.5, 2.0, 4.0, 16.0]
    values = [figure_twice("em", eps, scores, neighbour, "renyi", a)[0] for a in orders]
    above = [v > c * (1 + 1e-12) for v, c in zip(values, em_event_rdp(eps, orders))]
    evidence = (
        "Proof: EM is eps-bounded range (Dong, Durfee & Rogers, arXiv:1909.13830, "
        "Proposition 2), so its privacy loss Z lies in an interval of length eps; Hoeffding's "
        "lemma gives log E[e^{(a-1)Z}] <= (a-1) KL + (a-1)^2 eps^2/8, and the largest KL of an "
        "eps-bounded-range pair is u - 1 - log u with u = eps/(e^eps - 1) (the binary pair is "
        "the worst by Jensen; maximise over its loss t: e^t = 1/u).  Hence D_a <= u - 1 - "
        "log u + (a-1) eps^2/8 = xi + a eps^2/8, and D_a <= D_inf <= eps.  Tight at a = 1: "
        f"EM at eps = {eps:g} on scores (0, {_fmt(-gap)}) and neighbour "
        f"(-1, {_fmt(1 - gap)}) has KL {_fmt(kl)} (double) / {_fmt(kl_mp)} (50 digits), the "
        f"branch's value at order 1 is {_fmt(claimed)}; at orders "
        f"{', '.join(_fmt(a) for a in orders)} the pair stays below it.")
    consistent = abs(kl - claimed) <= 1e-12 and abs(kl_mp - claimed) <= 1e-12 and not any(above)
    return evidence, None, consistent


def _pf_two_candidates(quick: bool):
    eps = 1.0
    checks = []
    for figure, parameter, scores, neighbour, claimed in [
            ("delta", 0.0, (0.0, 1.0), (1.0, 0.0), float(laplace_delta(eps, [0.0])[0])),
            ("delta", 0.5, (0.0, -0.5), (-1.0, 0.5), float(laplace_delta(eps, [0.5])[0])),
            ("renyi", 2.0, (0.0, 1.0), (1.0, 0.0), float(laplace_rdp(eps, [2.0])[0]))]:
        value, value_mp = figure_twice("pf", eps, scores, neighbour, figure, parameter)
        checks.append((figure, parameter, scores, neighbour, value, value_mp, claimed))
    listing = "; ".join(f"{f}({_fmt(p)}) on {list(q)} / {list(o)}: {_fmt(v)} (double) / "
                        f"{_fmt(m)} (50 digits) vs Laplace {_fmt(c)}"
                        for f, p, q, o, v, m, c in checks)
    evidence = (
        "Proof (for two candidates): PF on two candidates selects the first with probability "
        "1 - e^{-cg}/2 for a gap g >= 0 and e^{cg}/2 below (c = eps/(2 Delta)), which is "
        "Pr[g + Z > 0] for Z ~ Laplace(2 Delta/eps): PF is the sign of the Laplace mechanism "
        "on the gap, whose sensitivity is 2 Delta, i.e. the Laplace mechanism with parameter "
        "1/eps in units of the gap's sensitivity.  Post-processing (data processing "
        "inequality) keeps every hockey-stick and Renyi divergence at or below the Laplace "
        "mechanism's.  The hockey-stick bound is attained: the set where Laplace's loss "
        "exceeds eps' is a threshold on the gap, which PF's output realises for the right "
        "gap.  Read literally ('identical'), the claim does not hold (a PF pair has a "
        f"discrete PLD; its Renyi divergences stay below Laplace's).  At eps = 1: {listing}.")
    consistent = all(max(v, m) <= c * (1 + 1e-12) for *_, v, m, c in checks) and \
        all(abs(v - c) <= 1e-12 for f, *_, v, m, c in checks if f == "delta")
    return evidence, None, consistent


def _pf_three_or_more(quick: bool):
    eps = 1.0
    mechanism = make_mechanism("pf", eps)
    sizes = (3,) if quick else (3, 4, 5, 6)
    figures = [("delta", 0.0, float(laplace_delta(eps, [0.0])[0])),
               ("delta", 0.5, float(laplace_delta(eps, [0.5])[0])),
               ("renyi", 2.0, float(laplace_rdp(eps, [2.0])[0])),
               ("renyi", 8.0, float(laplace_rdp(eps, [8.0])[0]))]
    worst_ratio, rows = 0.0, []
    for figure, parameter, claimed in figures:
        found = [worst_pair(mechanism, n, objective=figure, at=parameter, depth=3, starts=0,
                            polish=2, iterations=30, rng=0) for n in sizes]
        best = max(found, key=lambda w: w.value)
        worst_ratio = max(worst_ratio, best.value / claimed)
        rows.append(f"{figure}({_fmt(parameter)}): {_fmt(best.value)} at n = {best.n} vs "
                    f"Laplace {_fmt(claimed)}")
    evidence = (
        "Proof (every number of candidates, both neighbouring relations; "
        "optmech.privacy.dominating): PF is report-noisy-max with exponential noise (Ding, "
        "Kifer, Steinke et al., arXiv:2105.07260).  In units of the noise scale 2 Delta/eps "
        "the neighbour is z + eps w with every w_s in [0, 1] (after a common shift).  Along "
        "the path z + y w, P_y(r) = E[S(N_r(y))] with S(u) = min(1, e^-u) the survival "
        "function of the noise and N_r(y) = max_{s != r}(z_s(y) + Z_s) - z_r(y) convex and "
        "piecewise linear in y with slopes in [-1, 1]; since S'' <= S as measures (equality "
        "above 0, a negative point mass at 0), (S o N)'' <= S o N pathwise, so P'' <= P.  "
        "Then kappa = P - P'' is a Markov kernel from the real line to the candidates and "
        "P_y(r) = integral kappa_r(x) e^{-|x - y|}/2 dx: PF on the pair is that kernel applied "
        "to Laplace(0, 1) and Laplace(eps, 1), so every hockey-stick and Renyi divergence, "
        "in both directions, is at most the Laplace mechanism's with parameter 1/eps, and "
        "dp_accounting's Laplace PLD is a valid upper bound to compose.  Read literally "
        "('identical'), the claim does not hold (a PF pair has a discrete PLD).  Checks: "
        "SymPy confirms S'' <= S; the kernel of random PF pairs rebuilt numerically is "
        "non-negative and gives back both output distributions; and the largest values "
        f"found at eps = {eps:g}, n = {', '.join(map(str, sizes))} (grid: levels 0..-3, "
        "moves -1, 0, +1, every pair up to order; then L-BFGS-B from the 2 best grid pairs, "
        f"jittered (seed 0), scores in [-40, 40]): {'; '.join(rows)}; the largest ratio to "
        f"Laplace's value is {worst_ratio:.7f}.  The worst pairs approach the two-candidate "
        "case, where Laplace's hockey-stick curve is attained.")
    return evidence, None, worst_ratio <= 1 + 1e-9


def _em_rr(quick: bool):
    eps = 1.0
    grid = [0.0, 0.5, 0.9]
    accountant = randomised_response_delta(eps, grid)
    exact = bounded_range_delta(eps, grid)
    count = 10
    # the worst single pair (loss t* = eps/2 at eps' = 0), composed count times
    scores, neighbour = (0.0, 0.0), (1.0, -1.0)
    single = loss_distribution(make_mechanism("em", eps), scores, neighbour)
    composed = compose(single, count)
    rr = _randomised_response_pair(eps)
    eps_prime = 3.0
    lower = _figure_double(composed, "delta", eps_prime)
    accountant_k = _figure_double(compose(rr, count), "delta", eps_prime)
    ratios = ", ".join(f"{_fmt(a / e, 4)} at eps' = {_fmt(x)}"
                       for a, e, x in zip(accountant, exact, grid))
    evidence = (
        "Proof: EM is eps-DP (McSherry & Talwar 2007), and randomised response's curve "
        "dominates every eps-DP pair (Kairouz, Oh & Viswanath, arXiv:1311.0776, Section 2; "
        "the Jensen argument in `optmech.privacy.bounds`), so the randomised-response PLD "
        "that `from_privacy_parameters(eps, delta=0)` builds is an upper bound.  How loose, "
        "for one selection (exact): EM's worst delta(eps') over all pairs is the "
        "bounded-range curve (1 - e^{-(eps-eps')/2})^2/(1 - e^{-eps}), attained by EM on two "
        f"candidates; the accountant's delta exceeds it by the factor {ratios} (eps = "
        f"{eps:g}).  For {count} selections the accountant's delta({_fmt(eps_prime)}) is "
        f"{_fmt(accountant_k)}; {count} runs on the pair {list(scores)} / {list(neighbour)} "
        f"give {_fmt(lower)} (exact composition), a lower bound on the truth.")
    consistent = bool((accountant >= exact).all()) and accountant_k >= lower
    return evidence, None, consistent


def _randomised_response_pair(eps: float) -> LossDistribution:
    top = -math.log1p(math.exp(-eps))
    other = -math.log1p(math.exp(eps))
    return LossDistribution(np.zeros(2), np.zeros(2), np.array([top, other]),
                            np.array([other, top]))


def _pf_zcdp(quick: bool):
    eps = 2.0                    # the example: scale 1, scores moving by 1
    scores, neighbour = (0.0, 0.0), (1.0, -1.0)
    claimed = 2.0 * eps ** 2 / 8
    value, value_mp = figure_twice("pf", eps, scores, neighbour, "renyi", 2.0)
    found = worst_pair(make_mechanism("pf", eps), 3, depth=2, starts=0, polish=2,
                       iterations=30, rng=0)
    example = Counterexample("pf", eps, scores, neighbour,
                             "Renyi divergence at order 2 (zCDP needs <= 2 rho = eps^2/4)",
                             claimed, value, value_mp)
    evidence = (
        f"PF at eps = {eps:g} (OpenDP's scale 1 with scores moving by 1: exponent 1/scale = "
        f"eps/(2 Delta)) on scores {list(scores)} and neighbour {list(neighbour)} has "
        f"D_2 = {_fmt(value)} (double) / {_fmt(value_mp)} (50 digits) > 2 rho = "
        f"{_fmt(claimed)}.  PF's worst rho found at n = 3 is {_fmt(found.value)} "
        f"= {_fmt(found.value / (eps ** 2 / 8), 3)} x eps^2/8 (scores "
        f"({', '.join(_fmt(s, 4) for s in found.curves.scores)}), neighbour "
        f"({', '.join(_fmt(s, 4) for s in found.curves.neighbour)})); eps-DP gives at most eps^2/2 "
        "(Bun & Steinke, arXiv:1605.02065, Proposition 3.3).  Whether OpenDP's release "
        "samples PF under zCDP is a separate question (claim opendp.noisy-max.zcdp-map).")
    consistent = min(value, value_mp) > claimed
    return evidence, example, consistent


def _opendp_release(quick: bool):
    evidence = (
        f"The source at tag {_OPENDP_TAG} runs `noisy_top_k` with `MO::REPLACEMENT`, which "
        "is `true` for `ZeroConcentratedDivergence`: `permute_and_flip` with replacement "
        "keeps drawing a uniform candidate and accepts it with probability "
        "exp(-(max - x)/scale), which samples the exponential mechanism (McKenna & Sheldon, "
        "arXiv:2010.12603, Algorithms 2-3), and EM satisfies the map (claim "
        "em.zcdp.eps2-8).  Released wheels sampled here at scores (1, -1), scale 1: "
        "Pr[second] = 0.1180 (0.15.1, 60,000 draws) and 0.1178 (0.16.0, 40,000 draws), EM's "
        "0.1192, PF's 0.0677: EM, not PF.  The issue's premise (PF sampled under zCDP) is not "
        "reproduced here.  The issue's resolution, OpenDP PR #2916 ('fix: respect noisy max "
        "optimize argument', merged 2026-09-11; read: its title, description and review, "
        "'Now the bool will be set accordingly for make_noisy_max'), sets make_noisy_max's "
        "negate flag from the optimize argument: the min/max swap of issue #2912, by the same "
        "reporter (checked on the 0.16.0 wheel at scale 0, scores (0, 1, 2, 100): "
        "make_report_noisy_max_gumbel returns 3 for optimize='max' and 0 for 'min', where "
        "0.15.1 returned them swapped).  It does not change the zCDP map or the replacement "
        "flag that selects EM under zCDP, so the verdict stands.  Cannot be settled here "
        "beyond that: the compiled library was checked by sampling, not proved.")
    return evidence, None, True


def _em_zcdp(quick: bool):
    sizes = (2, 3) if quick else (2, 3, 4, 5, 6)
    epsilons = (1.0,) if quick else (0.5, 1.0, 2.0)
    rows, consistent = [], True
    for eps in epsilons:
        mechanism = make_mechanism("em", eps)
        found = max((worst_pair(mechanism, n, depth=2, starts=0, polish=1, iterations=30,
                                rng=0) for n in sizes), key=lambda w: w.value)
        kl = bounded_range_kl(eps)
        consistent &= found.curves.zcdp_rho_bound <= eps ** 2 / 8 * (1 + 1e-9)
        rows.append(f"eps = {eps:g}: {_fmt(found.value)} (certified sup over alpha of the "
                    f"pair {_fmt(found.curves.zcdp_rho_bound)}; u - 1 - log u = {_fmt(kl)}) "
                    f"vs eps^2/8 = {_fmt(eps ** 2 / 8)}")
    evidence = (
        "Proof: EM is eps-bounded range (Dong, Durfee & Rogers, arXiv:1909.13830, "
        "Proposition 2) and eps-bounded range implies eps^2/8-zCDP (Cesar & Rogers, "
        "arXiv:2004.07223, Lemma 3.2).  Consistency check, worst rho found over n = "
        f"{', '.join(map(str, sizes))}: {'; '.join(rows)}.  The sup over alpha is reached "
        "as alpha -> 1 (the KL of the worst bounded-range pair), slightly below eps^2/8.")
    return evidence, None, consistent


def _rnm_laplace(quick: bool):
    eps = 1.0
    mechanism = make_mechanism("rnm_laplace", eps)
    sizes = (2,) if quick else (2, 3)
    found = [worst_pair(mechanism, n, objective="max_loss", depth=3, starts=0, polish=1,
                        iterations=30, rng=0) for n in sizes]
    rho = [worst_pair(mechanism, n, depth=3, starts=0, polish=1, iterations=30, rng=0)
           for n in sizes]
    loss = max(w.value for w in found)
    evidence = (
        "Proof: Dwork & Roth 2014, Claim 3.9 proves report-noisy-max eps-DP with "
        "Laplace(1/eps) noise on counting queries, whose scores all move the same way by at "
        "most 1.  For scores of sensitivity Delta moving either way, adding Delta to every "
        "score of the neighbour changes no output probability and makes the move one-signed "
        "and at most 2 Delta, so the same proof with scale 2 Delta/eps applies.  "
        "Consistency check at eps = 1, n = "
        f"{', '.join(map(str, sizes))}: largest loss found {_fmt(loss)} <= 1; worst rho found "
        f"{', '.join(_fmt(w.value) for w in rho)} against eps^2/2 = 0.5 and eps^2/8 = 0.125"
        + ("" if max(w.value for w in rho) <= 0.125 else
           ": above eps^2/8, so the exponential mechanism's zCDP bound does not carry over "
           "to report-noisy-max with Laplace noise") + ".")
    return evidence, None, loss <= eps * (1 + 1e-9)


def _rnm_gumbel(quick: bool):
    from optmech.selection.noisy_max import noisy_max_pmf

    eps = 1.0
    scores = np.array([0.0, -0.5, -2.0, -3.5])
    em = make_mechanism("em", eps).pmf(scores)
    gumbel = noisy_max_pmf(scores, 2.0 / eps, noise="gumbel")
    gap = float(np.max(np.abs(em - gumbel)))
    found = worst_pair(make_mechanism("rnm_gumbel", eps), 3, depth=3, starts=0, polish=1,
                       iterations=30, rng=0)
    evidence = (
        "Proof: argmax of q_r + Gumbel(scale 2 Delta/eps) noise is the exponential mechanism "
        "(the Gumbel-max trick; Durfee & Rogers, arXiv:1905.04273, Section 4.1), so it "
        "inherits eps-bounded range and eps^2/8-zCDP.  Checked: the report-noisy-max "
        "quadrature with Gumbel noise equals EM's softmax within "
        f"{gap:.1e} on {scores.tolist()}; worst rho found at n = 3, eps = 1: "
        f"{_fmt(found.value)} <= 0.125.")
    return evidence, None, gap <= 1e-12 and found.value <= 0.125


# --- the registry ----------------------------------------------------------------------------

def claims() -> tuple[Claim, ...]:
    """Every registered claim, in the order of ``docs/accountants.md``."""
    rdp = "rdp/rdp_privacy_accountant.py, RdpAccountant._maybe_compose"
    pld = "pld/pld_privacy_accountant.py, PLDAccountant._maybe_compose"
    return (
        Claim("dp-accounting.rdp.em-count",
              Source(_DPA, _DPA_VERSION, f"{rdp}, ExponentialMechanismDpEvent branch "
                     "(lines 1064-1073)",
                     "xi = eps / np.expm1(eps) - 1 - np.log(eps / np.expm1(eps)) - eps**2 / 8; "
                     "self._rdp += np.minimum(xi + (eps**2 / 8) * self._orders, eps)"),
              "Composing `count` exponential-mechanism events (a `SelfComposedDpEvent`) "
              "accounts for `count` runs, as every other branch does (`self._rdp += count "
              "* ...`).", "refuted", _em_count),
        Claim("dp-accounting.rdp.em-event",
              Source(_DPA, _DPA_VERSION, f"{rdp}, ExponentialMechanismDpEvent branch; "
                     "dp_event.py, ExponentialMechanismDpEvent",
                     "zCDP bound from Section 3 of https://arxiv.org/pdf/2004.07223, plus "
                     "epsilon-DP implies all orders are at most epsilon."),
              "One eps-exponential mechanism has Renyi divergence at most min(xi + a eps^2/8, "
              "eps) at every order a, xi = u - 1 - log u - eps^2/8, u = eps/(e^eps - 1).",
              "holds", _em_event),
        Claim("dp-accounting.pf-laplace.two-candidates",
              Source(_DPA, _DPA_VERSION, "dp_event.py, PermuteAndFlipDpEvent; "
                     f"{pld} (from_laplace_mechanism(parameter=1/eps)); {rdp} "
                     "(_laplace_rdp)",
                     "Its privacy loss distribution is identical to that of the Laplace "
                     "mechanism with parameter 1/epsilon."),
              "With two candidates, permute-and-flip's curves (hockey-stick and Renyi) never "
              "exceed those of the Laplace mechanism with parameter 1/eps.", "holds",
              _pf_two_candidates),
        Claim("dp-accounting.pf-laplace.three-or-more",
              Source(_DPA, _DPA_VERSION, "dp_event.py, PermuteAndFlipDpEvent; the PLD and "
                     "RDP accountants' PermuteAndFlipDpEvent branches",
                     "Its privacy loss distribution is identical to that of the Laplace "
                     "mechanism with parameter 1/epsilon."),
              "With three or more candidates, permute-and-flip's curves never exceed those "
              "of the Laplace mechanism with parameter 1/eps.", "holds",
              _pf_three_or_more),
        Claim("dp-accounting.pld.em-randomised-response",
              Source(_DPA, _DPA_VERSION, f"{pld}, ExponentialMechanismDpEvent branch "
                     "(lines 182-196)",
                     "We use a worst-case PLD for any epsilon-DP mechanism, which is a "
                     "(loose) upper bound for the PLD of the exponental mechanism."),
              "The randomised-response PLD of eps-DP is an upper bound on the exponential "
              "mechanism's PLD.", "holds", _em_rr),
        Claim("opendp.issue-2911.pf-zcdp",
              Source("OpenDP", "issue #2911 (2026-08-26, closed), reported against 0.15.1",
                     "make_noisy_max with zero_concentrated_divergence (issue title: "
                     "'Report noisy max uses four times more privacy budget than claimed "
                     "under zCDP')",
                     "it declares a rho budget of eps^2/8 with zero-concentrated divergence. "
                     "... permute-and-flip is only eps-DP, not eps-BR."),
              "A noisy max that samples permute-and-flip with scale 2 Delta/eps is "
              "eps^2/8-zCDP (the rho declared for the exponential mechanism).", "refuted",
              _pf_zcdp),
        Claim("opendp.noisy-max.zcdp-map",
              Source("OpenDP", f"{_OPENDP_TAG}; wheels 0.15.1 and 0.16.0",
                     "rust/src/measurements/noisy_top_k/mod.rs, TopKMeasure for "
                     "ZeroConcentratedDivergence",
                     "const REPLACEMENT: bool = true; ... (d_in / scale)^2 / 8; issue "
                     "#2911's resolution: PR #2916"),
              "make_noisy_max under zero_concentrated_divergence is (d_range/scale)^2/8-zCDP.",
              "not refuted", _opendp_release),
        Claim("em.zcdp.eps2-8",
              Source("Cesar & Rogers, arXiv:2004.07223; used by OpenDP and dp-accounting",
                     "Lemma 3.2 (with Dong, Durfee & Rogers, arXiv:1909.13830, Proposition 2)",
                     "OpenDP TopKMeasure_ZeroConcentratedDivergence proof; dp-accounting's "
                     "ExponentialMechanismDpEvent RDP branch",
                     "Bounded Range satisfies [eps^2/8-zCDP]"),
              "The eps-exponential mechanism is eps^2/8-zCDP.", "holds", _em_zcdp),
        Claim("rnm-laplace.pure-dp",
              Source("Dwork & Roth 2014 (The Algorithmic Foundations of Differential "
                     "Privacy)", "Claim 3.9", "report noisy max with Laplace noise",
                     "Report Noisy Max is eps-differentially private."),
              "Report-noisy-max with Laplace(2 Delta/eps) noise is eps-DP.", "holds",
              _rnm_laplace),
        Claim("rnm-gumbel.exponential-mechanism",
              Source("Durfee & Rogers, arXiv:1905.04273", "Section 4.1",
                     "Exponential Mechanism and Gumbel Noise",
                     "adding Gumbel noise ... and reporting the max is the exponential "
                     "mechanism"),
              "Report-noisy-max with Gumbel(2 Delta/eps) noise is the exponential mechanism, "
              "so eps-bounded range and eps^2/8-zCDP.", "holds", _rnm_gumbel),
        *_repeat_and_select_claims(),
        *_gaussian_noisy_max_claims(),
    )


def _gaussian_noisy_max_claims() -> tuple[Claim, ...]:
    """Lebensold, Precup and Balle's claims about report-noisy-max with Gaussian noise
    (built, with their checks, in :mod:`optmech.privacy.gaussian_claims`)."""
    from optmech.privacy.gaussian_claims import claims as gaussian_claims

    return gaussian_claims()


def _repeat_and_select_claims() -> tuple[Claim, ...]:
    """Liu & Talwar's and Papernot & Steinke's claims about repeat-and-select (built, with
    their checks, in :mod:`optmech.privacy.repeat_claims`)."""
    from optmech.privacy.repeat_claims import claims as repeat_claims

    return repeat_claims()


def referee(quick: bool = False, only=None) -> list[ClaimResult]:
    """Run every claim's check (``only``: a list of ids) and return the results in registry
    order.  ``quick`` searches fewer sizes (about a third of the CPU time)."""
    registry = claims()
    known = [c.id for c in registry]
    if only is not None:
        unknown = [i for i in only if i not in known]
        if unknown:
            raise InvalidArgumentError("only", unknown[0], "one of " + ", ".join(known))
    results = []
    for claim in registry:
        if only is not None and claim.id not in only:
            continue
        evidence, example, consistent = claim.check(quick)
        results.append(ClaimResult(claim.id, claim.source, claim.claim, claim.verdict,
                                   evidence, example, bool(consistent)))
    return results
