"""The noise choice, measured: every selection mechanism at one proven ρ (or one ε), its
exact expected error side by side.

OpenDP issue #950 (open) argues that report-noisy-max should add Laplace noise under pure
DP and Gumbel noise under zCDP.  Here each mechanism is calibrated to the same *proven*
guarantee and its exact expected error ``E[q* - q_M]`` (from its pmf, no sampling) is
computed on each setting:

* ``em`` (= report-noisy-max with Gumbel noise, ``rnm_gumbel``): ε-bounded range, so
  ``rho = ε^2 / 8`` (Cesar & Rogers, arXiv:2004.07223, Lemma 3.2; ``min(ε^2/8, ε)``);
* ``pf`` (= report-noisy-max with exponential noise, ``rnm_exponential``) and
  ``rnm_laplace``: post-processings of the Laplace pair at ε
  (:mod:`optmech.privacy.dominating`), so ``rho`` is the certified sup over ``alpha`` of
  the Laplace mechanism's Rényi curve (:class:`~optmech.privacy.bounds.ProvenBound`, kind
  ``"laplace"``; about ``ε^2 / 2`` for small ε);
* ``rnm_gaussian``: ``rho = Δ^2 c / (2 sigma^2)`` with ``c`` the largest squared move of the
  scores with their mean removed (:class:`~optmech.selection.mechanisms.GaussianGuarantee`):
  ``c(n) = n - (n mod 2)/n`` when every score may move either way, ``floor(n/2)
  ceil(n/2)/n`` when all move the same way, and ``1 - 1/n`` for a histogram's counts, where
  one individual changes one count (the mode task: the move is ``Δ e_j``).

Calibrating to ``rho`` solves for ε (bisection on ``log ε``: every bound is increasing in
ε, to 1e-12 relative) or for ``sigma`` (closed form).  Only a proven bound calibrates.
Beside it, the worst pair *found* on ``found_n`` candidates (default 2) at the calibrated
parameter, :func:`~optmech.privacy.worst.worst_pair`: a lower bound on the mechanism's
true ρ, which says how much of the proven figure is real.  With ``epsilon`` instead, every
mechanism runs at that ε (the pure-DP direction); the Gaussian, which is not ε-DP for any
ε, is left out, and each mechanism's proven ρ at that ε is given.

Settings (:mod:`optmech.selection.settings`), passed in: the DPBench histograms
(:func:`optmech.data.tasks.histogram_settings`) with the mode task (counts, sensitivity 1,
one count moves: the ε-mechanisms' monotonic variants, as the permute-and-flip paper's
Figure 3) and the median task (sensitivity 1, scores move either way), and synthetic gaps
(:func:`~optmech.selection.settings.gap_settings`: ``n`` candidates, one best and ``n - 1``
at ``g`` below it, the worst-case shape of the permute-and-flip paper's Proposition 4,
sensitivity 1, either way).  Everything here is selection and privacy: the data come in as
settings, so this module depends on no other area.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from optmech.resources import Estimate
from optmech.selection.settings import RELATIONS, Setting, gap_settings
from optmech.validation import InvalidArgumentError, check_choice, check_integer, check_positive

__all__ = ["COMPARED", "NOISE_OF", "Comparison", "compare", "compare_estimate",
           "epsilon_for_rho", "gaussian_spread_of", "proven_rho"]

#: The mechanisms compared, in the order of every table.
COMPARED = ("em", "pf", "rnm_laplace", "rnm_gumbel", "rnm_exponential", "rnm_gaussian")
#: The report-noisy-max noise each mechanism is (EM is Gumbel noise, PF exponential noise).
NOISE_OF = {"em": "gumbel", "pf": "exponential", "rnm_laplace": "laplace",
            "rnm_gumbel": "gumbel", "rnm_exponential": "exponential",
            "rnm_gaussian": "gaussian"}
#: The kind of proven bound of each ε-mechanism (:class:`~optmech.privacy.bounds.ProvenBound`).
_KIND = {"em": "bounded-range", "rnm_gumbel": "bounded-range", "pf": "laplace",
         "rnm_laplace": "laplace", "rnm_exponential": "laplace"}
#: Below this a quadrature's probability is accurate only absolutely (its floor, with a
#: margin: :mod:`optmech.selection.gaussian_noisy_max`, ``laplace_noisy_max``).
ABSOLUTE = 1e-235


def gaussian_spread_of(n: int, relation: str) -> float:
    """``c`` of the Gaussian's ``rho = Δ^2 c / (2 sigma^2)`` (module docstring)."""
    from optmech.selection.mechanisms import gaussian_spread

    relation = check_choice(relation, "relation", RELATIONS)
    if relation == "histogram":
        return 1.0 - 1.0 / n
    return gaussian_spread(n, relation == "monotonic")


def proven_rho(name: str, epsilon: float) -> float:
    """The proven ρ of the ε-mechanism ``name`` at ``epsilon``."""
    from optmech.privacy.bounds import ProvenBound

    kind = check_choice(name, "mechanism", tuple(_KIND))
    return ProvenBound(_KIND[kind], check_positive(epsilon, "epsilon"), "").zcdp_rho


def epsilon_for_rho(name: str, rho: float) -> float:
    """The ε at which the proven ρ of ``name`` is ``rho``: bisection on ``log ε`` (the
    bounds increase with ε), to 1e-12 relative; the result's proven ρ is at most
    ``rho``."""
    rho = check_positive(rho, "rho")
    lo, hi = -40.0, 40.0
    if not proven_rho(name, math.exp(hi)) >= rho:
        raise InvalidArgumentError("rho", rho, f"a value reached by {name} below eps = e^40")
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if proven_rho(name, math.exp(mid)) <= rho:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-12:
            break
    return math.exp(lo)


@dataclass(frozen=True)
class Comparison:
    """The comparison's numbers (module docstring)."""

    #: ``"rho"`` (every mechanism at one proven ρ) or ``"epsilon"`` (at one ε).
    direction: str
    #: The common ρ or ε.
    target: float
    #: The mechanisms compared.
    mechanisms: tuple
    #: Per ε-mechanism, its ε (at ``target`` ρ, or ``target`` itself).
    epsilon: dict
    #: Per mechanism, its proven ρ (the Gaussian: ``target``, its sigma set per setting).
    rho: dict
    #: Per mechanism, the worst ρ found on ``found_n`` candidates (a lower bound), or None.
    found_rho: dict
    #: Candidates of the search behind :attr:`found_rho` (0: not searched).
    found_n: int
    #: Per setting: name, n, relation, the Gaussian's sigma (None at equal ε), each
    #: mechanism's exact expected error, the mechanisms with the least error (``best``: all
    #: within 1e-9 relative of it) and their noises (``best_noises``).
    rows: list

    def wins(self) -> dict:
        """Per noise, the settings where it is among the best (ties counted for each)."""
        out = {NOISE_OF[m]: 0 for m in self.mechanisms}
        for row in self.rows:
            for noise in row["best_noises"]:
                out[noise] += 1
        return out


def compare(rho: float | None = None, epsilon: float | None = None, *, settings=None,
            found_n: int = 2, mechanisms=COMPARED) -> Comparison:
    """Every mechanism of ``mechanisms`` calibrated to the proven ``rho`` (or run at
    ``epsilon``; exactly one of them), its exact expected error on each of ``settings``
    (:class:`~optmech.selection.settings.Setting` objects: the DPBench histograms'
    :func:`~optmech.data.tasks.histogram_settings`, the synthetic
    :func:`~optmech.selection.settings.gap_settings`, your own; None: the gaps 1, 4 and 16
    on 10 candidates), the best noise per setting, and the worst ρ found on ``found_n``
    candidates beside each proven one (``found_n = 0``: not searched)."""
    settings = gap_settings() if settings is None else list(settings)
    if not settings or not all(isinstance(s, Setting) for s in settings):
        raise InvalidArgumentError("settings", settings, "a non-empty list of Setting")
    if (rho is None) == (epsilon is None):
        raise InvalidArgumentError("rho, epsilon", (rho, epsilon), "exactly one of them")
    direction = "rho" if rho is not None else "epsilon"
    target = check_positive(rho if rho is not None else epsilon, direction)
    found_n = check_integer(found_n, "found_n", minimum=0, maximum=50)
    if found_n == 1:
        raise InvalidArgumentError("found_n", found_n, "0 (no search) or 2 to 50")
    names = [check_choice(m, "mechanisms", COMPARED) for m in mechanisms]
    if direction == "epsilon":
        names = [m for m in names if m != "rnm_gaussian"]
    eps = {m: epsilon_for_rho(m, target) if direction == "rho" else target
           for m in names if m != "rnm_gaussian"}
    rhos = {m: proven_rho(m, e) for m, e in eps.items()}
    if direction == "rho" and "rnm_gaussian" in names:
        rhos["rnm_gaussian"] = target          # sigma calibrated per setting (its n)
    rows = [_row(setting, names, eps, target if direction == "rho" else None)
            for setting in settings]
    found = {m: _found(m, eps.get(m), target, found_n) for m in names} if found_n else {}
    return Comparison(direction, target, tuple(names), eps, rhos, found, found_n, rows)


def _mechanism(name: str, epsilon: float | None, sigma: float | None, setting: Setting):
    from optmech.selection.mechanisms import make_mechanism

    if name == "rnm_gaussian":
        return make_mechanism(name, None, setting.sensitivity, setting.relation == "monotonic",
                              sigma=sigma)
    return make_mechanism(name, epsilon, setting.sensitivity, setting.monotonic)


def _row(setting: Setting, names, eps: dict, rho: float | None) -> dict:
    """One setting's errors and best noise."""
    n = setting.scores.size
    sigma = None
    if rho is not None and "rnm_gaussian" in names:
        sigma = setting.sensitivity * math.sqrt(gaussian_spread_of(n, setting.relation)
                                                / (2.0 * rho))
    errors = {m: float(_mechanism(m, eps.get(m), sigma, setting).expected_error(
        setting.scores)) for m in names}
    least = min(errors.values())
    # equal errors tie (EM and Gumbel noise are one distribution): within 1e-9 relative of
    # the least, or within the pmfs' absolute accuracy (1e-235 per candidate and unit gap:
    # below it the quadratures' probabilities are only absolutely accurate)
    spread = float(setting.scores.max() - setting.scores.min())
    floor = ABSOLUTE * n * spread
    best = [m for m, value in errors.items() if value <= least * (1 + 1e-9) + floor]
    return {"setting": setting.name, "n": n, "relation": setting.relation, "sigma": sigma,
            "errors": errors, "best": best,
            "best_noises": sorted({NOISE_OF[m] for m in best})}


def _found(name: str, epsilon: float | None, rho: float, n: int) -> float:
    """The worst ρ found for ``name`` on ``n`` candidates (general relation, sensitivity 1),
    the Gaussian calibrated to ``rho`` on those ``n`` candidates."""
    from optmech.privacy.worst import worst_pair
    from optmech.selection.mechanisms import GaussianNoisyMax, make_mechanism

    if name == "rnm_gaussian":
        mechanism = GaussianNoisyMax.for_rho(rho, n)
        return worst_pair(mechanism, n, span=40.0 * mechanism.sigma).value
    return worst_pair(make_mechanism(name, epsilon), n).value


#: CPU seconds of one expected error per score (the Gaussian's quadrature: about 4e-6 a
#: distinct score at 600 nodes on a loaded machine; the others far less) and of one
#: worst-pair search on 2 candidates (measured 0.2 to 1.5 s).
SECONDS_PER_SCORE, SECONDS_PER_SEARCH = 1e-5, 3.0


def compare_estimate(n_scores: int, searches: int) -> Estimate:
    """The work of :func:`compare` on ``n_scores`` scores in all (every setting) and
    ``searches`` worst-pair searches."""
    return Estimate(SECONDS_PER_SCORE * n_scores + SECONDS_PER_SEARCH * searches,
                    2000.0 * n_scores + (1 << 26), "--datasets, --gaps, --n",
                    f"{n_scores} scores")
