"""Privacy curves of the selection mechanisms and the accountants' claims
(:mod:`optmech.privacy`): the referee's verdicts, the worst pair found against the proven
bound for each mechanism, and the one number a library prints that we recompute.

Rows:

* one per claim of the registry (``new``): its verdict, with the counterexample's figure for
  a refutation;
* ``match``: dp-accounting's test of its exponential-mechanism RDP branch expects
  0.123301561 at order 1 (``test_compute_rdp_exponential_mechanism``); EM's worst KL
  divergence, ``u - 1 - log u`` attained on two candidates, recomputed from a searched pair;
* worst found against proven bound (``new``): the largest max loss, ``delta(eps/2)`` and zCDP
  ``rho`` found over pairs of neighbouring score vectors
  (:func:`~optmech.privacy.worst.worst_pair`, depth-3 grid and local search), beside the
  bound of the mechanism's guarantee.  Quick: EM, PF and report-noisy-max with Laplace
  noise at eps = 1, n = 2, 3; full: six mechanisms at eps = 0.5, 1, 2 and n = 2, 3, 5.
* the figure ``privacy_delta_curves.png`` (:func:`delta_figure`): for EM, PF and
  report-noisy-max with Laplace noise (eps = 1, n = 3), ``delta(eps')`` of the pair found
  worst at ``eps' = 0.5``, labelled as that pair's curve (a lower bound on the mechanism's
  curve, the worst found only at 0.5: EM's falls to 1.6e-6 at 0.75 where its bound is
  0.022), beside the proven bounds.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from optmech.figures.privacy import plot_delta_curves, save_figure
from optmech.privacy.claims import claims, referee
from optmech.privacy.curves import default_eps_prime
from optmech.privacy.worst import worst_pair
from optmech.reproduce import Result, compare, new_result
from optmech.selection.mechanisms import make_mechanism

AREA = "privacy curves and the accountants' claims"
QUICK = {"mechanisms": ("em", "pf", "rnm_laplace"), "ns": (2, 3), "epsilons": (1.0,)}
FULL = {"mechanisms": ("em", "pf", "rnm_laplace", "rnm_gumbel", "rnm_exponential", "rr"),
        "ns": (2, 3, 5), "epsilons": (0.5, 1.0, 2.0)}
OBJECTIVES = ("max_loss", "delta", "zcdp_rho")
DP_ACCOUNTING_TEST = ("dp-accounting source b5b0286, rdp/rdp_privacy_accountant_test.py, "
                      "test_compute_rdp_exponential_mechanism")


def _bracket_key(mechanism: str, n: int, eps: float, objective: str) -> str:
    return f"worst-found-{mechanism}-n{n}-eps{eps:g}-{objective}"


def _bracket_keys(grid: dict) -> set[str]:
    return {_bracket_key(m, n, e, o) for m in grid["mechanisms"] for n in grid["ns"]
            for e in grid["epsilons"] for o in OBJECTIVES}


KEYS = frozenset({*(f"referee-{c.id}" for c in claims()), "em-rdp-order-1",
                  *_bracket_keys(FULL)})
FULL_ONLY_KEYS = frozenset(_bracket_keys(FULL) - _bracket_keys(QUICK))


def _referee_rows(quick: bool) -> list[Result]:
    rows = []
    for r in referee(quick=quick):
        ours = r.verdict if r.consistent else f"{r.verdict} (NOT supported by the computation)"
        if r.counterexample is not None:
            c = r.counterexample
            ours += (f": {c.figure} = {c.value:.6g} (50 digits: {c.value_mpmath:.6g}) > "
                     f"{c.claimed:.6g}")
        rows.append(new_result(AREA, f"referee: {r.claim}", ours, source=str(r.source),
                               key=f"referee-{r.id}"))
    return rows


def _bracket_rows(grid: dict) -> tuple[list[Result], dict]:
    rows, curves = [], {}
    for name in grid["mechanisms"]:
        for eps in grid["epsilons"]:
            mechanism = make_mechanism(name, eps)
            for n in grid["ns"]:
                for objective in OBJECTIVES:
                    worst = worst_pair(mechanism, n, objective=objective, depth=3, starts=0,
                                       polish=1, iterations=30, rng=0)
                    bound = worst.bound_value
                    gap = bound - worst.value
                    gap_text = "0 (to rounding)" if abs(gap) <= 1e-12 * bound else f"{gap:.3g}"
                    ours = (f"worst found {worst.value:.6g}, proven bound {bound:.6g} "
                            f"({worst.bound.kind}), gap {gap_text}; pair "
                            f"{np.round(worst.curves.scores, 4).tolist()} / "
                            f"{np.round(worst.curves.neighbour, 4).tolist()}")
                    label = {"max_loss": "max loss", "delta": f"delta(eps' = {eps / 2:g})",
                             "zcdp_rho": "zCDP rho"}[objective]
                    rows.append(new_result(AREA, f"{name}, n = {n}, eps = {eps:g}: {label}",
                                           ours, key=_bracket_key(name, n, eps, objective)))
                    if objective == "delta" and eps == 1.0 and n == 3:
                        curves[name] = worst
    return rows, curves


# How the figure names a proven bound (ProvenBound.kind).
BOUND_NAMES = {"pure-dp": "pure ε-DP bound (randomised response)",
               "bounded-range": "ε-bounded-range bound",
               "laplace": "Laplace-pair bound (post-processing of the Laplace mechanism)"}


def delta_figure(eps: float = 1.0, n: int = 3, at: float | None = None, points: int = 41,
                 mechanisms=QUICK["mechanisms"]):
    """The figure of ``privacy_delta_curves.png``: for each mechanism the curve
    ``delta(eps')`` of the pair of neighbouring score vectors found worst at ``eps' = at``
    (default ``eps / 2``; a lower bound on the mechanism's curve at every ``eps'``, the
    worst found only at ``at``, marked) beside its proven bound
    (:func:`~optmech.figures.privacy.plot_delta_curves`)."""
    at = eps / 2 if at is None else at
    grid = default_eps_prime(eps, points)
    lines = []
    for name in mechanisms:
        worst = worst_pair(make_mechanism(name, eps), n, objective="delta", at=at, depth=3,
                           starts=0, polish=1, iterations=30, rng=0, eps_prime=grid)
        lines.append((f"{name}: the pair worst at ε′ = {at:g}", grid, worst.curves.delta,
                      (BOUND_NAMES[worst.bound.kind], worst.bound.delta(grid))))
    title = (f"δ(ε′) at ε = {eps:g}, n = {n}: one pair's curve per mechanism and the "
             "proven bounds")
    return plot_delta_curves(lines, title=title, chosen_at=at)


def _figure(curves: dict, out: Path) -> str | None:
    if not curves:
        return None
    name = "privacy_delta_curves.png"
    save_figure(delta_figure(mechanisms=tuple(curves)), out / name)
    return name


def run(quick: bool, out: Path) -> list[Result]:
    """The referee's rows, the library constant recomputed, the worst-vs-bound table and the
    figure (module docstring)."""
    results = _referee_rows(quick)
    em = worst_pair(make_mechanism("em", 1.0), 2, objective="renyi", at=1.0, depth=3,
                    starts=1, polish=2, iterations=40, rng=0)
    results.append(compare(AREA, "exponential mechanism, eps = 1: largest KL divergence over "
                                 "pairs (dp-accounting's expected RDP at order 1)",
                           DP_ACCOUNTING_TEST, 0.123301561, em.value, 5e-10,
                           key="em-rdp-order-1"))
    rows, curves = _bracket_rows(QUICK if quick else FULL)
    figure = _figure(curves, out)
    return results + [Result(**{**r.__dict__, "figure": figure}) if figure else r
                      for r in rows]
