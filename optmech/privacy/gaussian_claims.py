"""The referee's claims about report-noisy-max with Gaussian noise (:mod:`optmech.privacy.claims`
lists them last): Lebensold, Precup and Balle, *On the privacy of selection mechanisms with
Gaussian noise*, AISTATS 2024, arXiv:2402.06137.

What was read (:data:`READ`): the paper's abstract (arXiv's HTML rendering of v1, and the
AISTATS 2024 poster page); the statement of its theorems was not available here, so each
claim's formula is read from the authors' code, the repository
``jlebensold/pure-dp-gaussian-mech`` at commit ``a29f71888bd997001be61c43c21438f1c1514c54``,
``utils.py``: ``gnmax_expost_mvn`` with ``mpmath_mvn`` (the pure-DP loss of report-noisy-max,
"GNMax", on queries bounded in ``[a, b]``) and ``gnmax_exante_mvn`` (its approximate DP through
the Gaussian mechanism).  The code calls the pure bound "ex-post", the abstract calls the
bound for report-noisy-max "pure ex-ante"; the formula is the same object.

Each verdict rests on two derivations: the claim's closed form (the authors' integral, at 50
digits) and the exact computation on explicit pairs
(:mod:`optmech.selection.gaussian_noisy_max` in double precision,
:mod:`optmech.selection.gaussian_reference` at 50 digits, sharing nothing), with a proof
where one is known; without one the verdict is ``not refuted`` after a search.
"""

from __future__ import annotations

import itertools
import math

import mpmath as mp
import numpy as np

from optmech.privacy import high_precision as hp
from optmech.privacy.bounds import gaussian_delta
from optmech.privacy.claims import Claim, Source, _fmt
from optmech.privacy.curves import pair_curves
from optmech.privacy.worst import worst_pair
from optmech.selection.gaussian_noisy_max import gaussian_noisy_max_logpmf
from optmech.selection.gaussian_reference import gaussian_log_pmf_mp
from optmech.selection.mechanisms import GaussianNoisyMax

__all__ = ["READ", "bounded_epsilon_mp", "claims"]

_PAPER = ("Lebensold, Precup & Balle, On the privacy of selection mechanisms with Gaussian "
          "noise, AISTATS 2024, arXiv:2402.06137")
_CODE = ("authors' code, jlebensold/pure-dp-gaussian-mech at commit a29f71888bd997001be61c43"
         "c21438f1c1514c54, utils.py")
#: What was read of the paper, and what was not.
READ = ("read: the abstract (arXiv:2402.06137v1, HTML; AISTATS 2024 poster page) and the "
        "authors' code (utils.py at commit a29f718); not available here: the theorems' text")


def bounded_epsilon_mp(sigma, d: int, delta, width) -> mp.mpf:
    """The claimed pure ε of report-noisy-max with ``N(0, sigma^2)`` noise on ``d`` queries in
    an interval of ``width`` ``B = b - a``, each moving by at most ``delta``, at 50 digits: the
    authors' ``gnmax_expost_mvn``, ``log I(2 delta - B) - log I(-B)`` with ``I(y) = integral
    phi_sigma(z) Phi_sigma(z + y)^(d-1) dz`` (``mpmath_mvn``), integrated by mpmath's
    tanh-sinh quadrature in units of ``sigma``."""
    with mp.workdps(hp.DIGITS + 10):
        s, delta, width = mp.mpf(sigma), mp.mpf(delta), mp.mpf(width)

        def integral(y):
            shift = y / s
            # the integrand's mass sits near z = -shift (d - 1) / d; split around it
            centre = -shift * (d - 1) / d
            points = [-mp.inf] + [centre + k for k in (-30, -10, -3, 0, 3, 10, 30)] + [mp.inf]
            return mp.quad(lambda z: mp.npdf(z) * mp.ncdf(z + shift) ** (d - 1), points)

        return mp.log(integral(2 * delta - width)) - mp.log(integral(-width))


def _loss(q: np.ndarray, sigma: float, delta: float, width: float) -> float:
    """``log P'(0) - log P(0)`` with the neighbour that raises candidate 0's probability most
    for scores in ``[0, width]``: ``q'_0 = min(q_0 + delta, width)``, every other ``q'_s =
    max(q_s - delta, 0)`` (the pmf of 0 rises with ``q_0`` and falls with every other
    score)."""
    other = np.maximum(q - delta, 0.0)
    other[0] = min(q[0] + delta, width)
    return float(gaussian_noisy_max_logpmf(other, sigma)[0]
                 - gaussian_noisy_max_logpmf(q, sigma)[0])


def _bounded_pure_dp(quick: bool):
    cases = [(0.5, 3, 0.1, 1.0)] if quick else [(0.5, 3, 0.1, 1.0), (1.0, 2, 0.5, 2.0),
                                                 (0.3, 4, 0.2, 1.0)]
    rows, consistent = [], True
    for sigma, d, delta, width in cases:
        claimed_mp = bounded_epsilon_mp(repr(sigma), d, repr(delta), repr(width))
        claimed = float(claimed_mp)
        extremal = np.array([0.0] + [width] * (d - 1))
        moved = np.array([delta] + [width - delta] * (d - 1))
        attained = _loss(extremal, sigma, delta, width)
        logs = [gaussian_log_pmf_mp([repr(float(v)) for v in vector], repr(sigma),
                                    candidates=[0])[0] for vector in (moved, extremal)]
        attained_mp = float(logs[0] - logs[1])
        # every score on a grid of 9 levels (6 for d = 4) in [0, B]: the largest loss of
        # output 0 (by symmetry, of every output and both directions)
        levels = np.linspace(0.0, width, 9 if d <= 3 else 6)
        found, where = -math.inf, None
        for q in itertools.product(levels, repeat=d):
            value = _loss(np.array(q), sigma, delta, width)
            if value > found:
                found, where = value, q
        consistent &= (abs(attained - claimed) <= 1e-12 * claimed
                       and abs(attained_mp - claimed) <= 1e-12 * claimed
                       and found <= claimed * (1 + 1e-12))
        rows.append(f"sigma = {sigma:g}, d = {d}, Delta = {delta:g}, B = {width:g}: claimed "
                    f"eps {_fmt(claimed, 12)} (their integral, 50 digits); the pair "
                    f"{extremal.tolist()} / {moved.tolist()} has loss {_fmt(attained, 12)} "
                    f"(double) / {_fmt(attained_mp, 12)} (50 digits); largest over "
                    f"{levels.size}^{d} score vectors {_fmt(found, 12)} at "
                    f"{[float(v) for v in where]}")
    evidence = (
        "The claim's formula is the log-ratio of candidate r's probability at one "
        "pair: r at the bottom a moving up by Delta, the d - 1 others at the top b moving "
        "down by Delta, so it is attained (tight): computed twice, it equals the exact loss "
        "of that pair.  That no pair does worse was not proved here: the loss of output r "
        "rises with q'_r and falls with each other q'_s (so the neighbour is the one above, "
        "clipped to [a, b]), and the search over every score vector of a grid on [a, b] "
        f"finds nothing above the formula: {'; '.join(rows)}.  Without the bound on the "
        "scores the mechanism is not eps-DP for any eps (a candidate g below the top has a "
        "loss growing like g Delta / sigma^2; optmech.selection.mechanisms."
        "GaussianGuarantee).  Cannot be settled here: a proof that "
        "the worst pair of the box is this corner (log P(r) is concave and supermodular in "
        f"the score gaps, which does not settle it alone).  Source {READ}.")
    return evidence, None, consistent


def _gaussian_mechanism(quick: bool):
    sigma = 1.0
    sizes = (2, 3) if quick else (2, 3, 4)
    rows, consistent = [], True
    for n in sizes:
        mechanism = GaussianNoisyMax(sigma)
        claimed_mu = math.sqrt(n) / sigma                 # l2 sensitivity sqrt(n) Delta
        ours = mechanism.privacy.mu(n)
        found = worst_pair(mechanism, n, objective="delta", at=1.0, span=40.0 * sigma,
                           starts=1 if quick else 2)
        curves = pair_curves(mechanism, found.curves.scores, found.curves.neighbour,
                             eps_prime=[1.0])
        scores, neighbour = found.curves.scores, found.curves.neighbour
        log_p = gaussian_log_pmf_mp([repr(float(v)) for v in scores], repr(sigma))
        log_q = gaussian_log_pmf_mp([repr(float(v)) for v in neighbour], repr(sigma))
        value_mp = float(max(hp.hockey_stick_mp(log_p, log_q, 1.0),
                             hp.hockey_stick_mp(log_q, log_p, 1.0)))
        claimed = float(gaussian_delta(claimed_mu, [1.0])[0])
        with mp.workdps(hp.DIGITS):
            mu = mp.mpf(claimed_mu)
            claimed_mp = float(mp.ncdf(mu / 2 - 1 / mu) - mp.e * mp.ncdf(-mu / 2 - 1 / mu))
        value = float(curves.delta[0])
        consistent &= (max(value, value_mp) <= min(claimed, claimed_mp) * (1 + 1e-12)
                       and abs(claimed - claimed_mp) <= 1e-13 * claimed
                       and ours <= claimed_mu * (1 + 1e-15))
        rows.append(f"n = {n}: their mu = sqrt(n) Delta/sigma = {_fmt(claimed_mu)} (ours "
                    f"{_fmt(ours)}), their delta(1) = {_fmt(claimed, 10)} (Balle & Wang, "
                    f"double) / {_fmt(claimed_mp, 10)} (50 digits); worst pair found "
                    f"{_fmt(value, 10)} (double) / {_fmt(value_mp, 10)} (50 digits)")
    evidence = (
        "Proof: report-noisy-max post-processes the noisy score vector, i.e. the "
        "Gaussian mechanism with l2 sensitivity sqrt(d) Delta (each of d queries moves by at "
        "most Delta), so it has that mechanism's (eps, delta) curve.  The shift invariance of "
        "argmax gives a little more (optmech.selection.mechanisms.GaussianGuarantee: the "
        "scores with their mean removed, whose largest squared move is (d - (d mod 2)/d) "
        "Delta^2): the same for even d, smaller for odd d.  Checks at sigma = 1, Delta = 1, "
        f"eps' = 1 (the worst pair found for delta(1), scores within 40 sigma): "
        f"{'; '.join(rows)}.  At n = 2 the curve is attained: the selection is the sign of "
        "the Gaussian mechanism on the gap, and a threshold on it is that mechanism's best "
        f"test.  Source {READ}.")
    return evidence, None, consistent


def claims() -> tuple[Claim, ...]:
    """The registry entries (appended to :func:`optmech.privacy.claims.claims`)."""
    return (
        Claim("lebensold.rnm-gaussian.bounded-pure-dp",
              Source(_PAPER, f"abstract; formula from the {_CODE}",
                     "utils.py, gnmax_expost_mvn and mpmath_mvn",
                     "under the additional assumption that the underlying queries are "
                     "bounded, it is possible to provide pure ex-ante DP bounds for Report "
                     "Noisy Max ... The resulting bounds are tight; y = a - b; alpha = "
                     "mpmath_mvn(d=d - 1, sigma=sigma, y=y + 2*GS); beta = mpmath_mvn(d=d - "
                     "1, sigma=sigma, y=y); result = float(alpha - beta)"),
              "Report-noisy-max with N(0, sigma^2) noise on d queries in [a, b] (B = b - a), "
              "each moving by at most Delta, is eps-DP with eps = log I(2 Delta - B) - log "
              "I(-B), I(y) = integral phi_sigma(z) Phi_sigma(z + y)^(d-1) dz, and the bound "
              "is tight.", "not refuted", _bounded_pure_dp),
        Claim("lebensold.rnm-gaussian.gaussian-mechanism",
              Source(_PAPER, f"{_CODE}", "utils.py, gnmax_exante_mvn",
                     "GS_q = np.sqrt(d) * GS; return mz.ExactGaussianMechanism(sigma=sigma/"
                     "GS_q).get_approxDP(delta)"),
              "Report-noisy-max with N(0, sigma^2) noise on d queries of sensitivity Delta "
              "has the (eps, delta) curve of the Gaussian mechanism with l2 sensitivity "
              "sqrt(d) Delta.", "holds", _gaussian_mechanism),
    )
