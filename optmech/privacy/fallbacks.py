"""What the field's accountants report for a sequence of selections, from published formulas.

Each fallback takes the rounds of :mod:`optmech.privacy.accountant` as ``(kind, ε of one
round, rounds)`` triples, the kind being the published guarantee a deployer would use:
``bounded-range`` (the exponential mechanism and its kin), ``laplace`` (permute-and-flip,
for which ``dp_accounting`` uses the Laplace mechanism's curves), ``gaussian`` (the
Gaussian mechanism, its μ in place of ε: report-noisy-max with Gaussian noise) or ``pure``
(every other ε-DP mechanism); a black-box step is ``(ε of the whole step, runs)``.  Each
returns its ε′ at a δ and its δ at a list of ε′ (``naive`` and ``randomised_response``
only when every step is pure DP):

* ``naive``: basic composition, ``eps' = sum of the ε's`` with δ = 0 (and no statement
  below it: δ = 1 there).
* ``randomised_response``: every step as a black-box ε-DP mechanism, composed exactly (the
  product of binary randomised-response pairs, in closed form per step; Kairouz, Oh and
  Viswanath, arXiv:1311.0776): what ``dp_accounting``'s PLD accountant reports for the
  exponential mechanism (``from_privacy_parameters(eps, 0)``).
* ``zcdp``: ``rho`` summed over the published bounds: ``ε²/8`` per bounded-range round
  (Cesar and Rogers, arXiv:2004.07223, Lemma 3.2), ``ε²/2`` per pure-DP round (Bun and
  Steinke, arXiv:1605.02065, Proposition 3.3), ``μ²/2`` per Gaussian round (their
  Proposition 1.6); ``eps' = rho + 2 sqrt(rho log(1/delta))``
  (their Proposition 1.3), so ``delta(eps') = exp(-(eps' - rho)^2 / (4 rho))``.
* ``rdp``: the published Rényi curves summed on ``dp_accounting``'s orders and converted as
  its RDP accountant converts them (Canonne, Kamath and Steinke, arXiv:2004.00010,
  Proposition 12): ``min(xi + alpha ε²/8, ε)`` per bounded-range round (the exponential
  mechanism's branch, with its count), the Laplace mechanism's curve per permute-and-flip
  round (the branch ``dp_accounting`` uses for it), ``alpha μ²/2`` per Gaussian round
  (Mironov, *Rényi differential privacy*, arXiv:1702.07476, Proposition 7), randomised
  response's curve per pure-DP round, and a round's own published curve where it has one
  (repeat-and-select: Papernot and Steinke's theorems, as ``dp_accounting``'s
  ``RepeatAndSelectDpEvent``).
"""

from __future__ import annotations

import math

import numpy as np

from optmech.privacy.accountants import RDP_ORDERS, compute_epsilon, em_event_rdp, laplace_rdp
from optmech.privacy.bounds import randomised_response_renyi
from optmech.privacy.loss_atoms import LossAtoms

__all__ = ["FALLBACKS", "PUBLISHED", "fallbacks"]

#: The published guarantee of a round: its kind in ``rounds`` (module docstring).
PUBLISHED = ("bounded-range", "laplace", "gaussian", "pure")
BOUNDED_RANGE, LAPLACE, GAUSSIAN, PURE = PUBLISHED

#: The fallbacks' names (JSON keys).
FALLBACKS = ("naive", "randomised_response", "zcdp", "rdp")
_EXACT_ATOMS = 200_000


def _naive(black_box, delta, eps_prime) -> dict:
    total = sum(eps * count for eps, count in black_box)
    return {"eps": total if delta is not None else None,
            "delta": [0.0 if e >= total else 1.0 for e in eps_prime],
            "source": "basic composition: the sum of the epsilons, delta = 0"}


def _rr_atoms(eps: float, count: int) -> LossAtoms:
    top = -math.log1p(math.exp(-eps))                     # log(e^eps / (1 + e^eps))
    bottom = -eps + top
    return LossAtoms.of([top, bottom], [bottom, top]).power(count)


def _randomised_response(black_box, delta, eps_prime, upper_of) -> dict:
    """Exact by atoms when the product stays small, else the certified grid composition
    of the randomised-response steps (``upper_of``; a fraction of a percent above)."""
    sizes = [count + 1 for _, count in black_box]
    if not black_box:                                   # only 0-DP steps
        curve = lambda e: np.zeros(np.shape(e))             # noqa: E731
        eps = None if delta is None else 0.0
        method = "exact (no private step)"
    elif math.prod(sizes) <= _EXACT_ATOMS:
        atoms = None
        for eps, count in black_box:
            step = _rr_atoms(eps, count)
            atoms = step if atoms is None else atoms.product(step)
        curve = lambda e: np.maximum(atoms.delta(e), 0.0)       # symmetric pair  # noqa: E731
        eps = None if delta is None else _invert(curve, delta, sum(e * c for e, c in
                                                                   black_box))
        method = "exact (binomial atoms)"
    else:
        bound = upper_of()
        curve = bound
        eps = None if delta is None else bound.epsilon(delta)
        method = "certified grid composition (upper)"
    return {"eps": eps, "delta": [float(v) for v in curve(np.asarray(eps_prime))]
            if len(eps_prime) else [],
            "source": "every step as a black-box eps-DP mechanism: randomised response "
                      f"composed, {method} (dp_accounting's PLD accountant for the "
                      "exponential mechanism)"}


def _invert(curve, delta: float, top: float) -> float:
    """The smallest ``eps'`` in ``[0, top]`` with ``curve(eps') <= delta`` (bisection)."""
    if curve(np.array([0.0]))[0] <= delta:
        return 0.0
    lo, hi = 0.0, top
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if curve(np.array([mid]))[0] <= delta else (mid, hi)
    return hi


def _zcdp(rounds, delta, eps_prime) -> dict:
    rho = sum(count * eps ** 2 / (8.0 if kind == BOUNDED_RANGE else 2.0)
              for kind, eps, count, *_ in rounds)          # a Gaussian's eps is its mu
    eps = None if delta is None else rho + 2.0 * math.sqrt(rho * math.log(1.0 / delta))
    # (e - rho) * (e - rho), not ** 2: a float product overflows to inf, a power raises
    curve = [0.0 if rho == 0 else 1.0 if e <= rho else
             math.exp(-(e - rho) * ((e - rho) / (4.0 * rho))) for e in eps_prime]
    return {"eps": eps, "rho": rho, "delta": curve,
            "source": "rho summed: eps^2/8 per bounded-range round (Cesar & Rogers, "
                      "arXiv:2004.07223, Lemma 3.2), eps^2/2 per pure-DP round (Bun & "
                      "Steinke, arXiv:1605.02065, Proposition 3.3), mu^2/2 per Gaussian "
                      "round (their Proposition 1.6); eps' = rho + "
                      "2 sqrt(rho log(1/delta)) (their Proposition 1.3)"}


def _rdp(rounds, delta, eps_prime) -> dict:
    orders = RDP_ORDERS
    total = np.zeros(orders.size)
    for kind, eps, count, *curve in rounds:
        if curve and curve[0] is not None:          # a published curve of its own
            total += count * np.minimum(curve[0](orders), randomised_response_renyi(eps,
                                                                                    orders))
        elif kind == BOUNDED_RANGE:
            total += count * em_event_rdp(eps, orders)
        elif kind == LAPLACE:
            total += count * laplace_rdp(eps, orders)
        elif kind == GAUSSIAN:
            total += count * orders * eps * eps / 2.0
        else:
            total += count * randomised_response_renyi(eps, orders)
    eps, order = (None, None) if delta is None else compute_epsilon(orders, total, delta)
    with np.errstate(divide="ignore", over="ignore"):       # -inf: delta 0 (eps' ~ 1e308)
        log_delta = ((orders[None, :] - 1) * (total[None, :] - np.asarray(eps_prime)[:, None]
                                             + np.log1p(-1.0 / orders[None, :]))
                     - np.log(orders[None, :]))
    curve = np.exp(np.minimum(np.min(log_delta, axis=1), 0.0)) if len(eps_prime) else []
    return {"eps": eps, "order": order, "delta": [float(v) for v in curve],
            "source": "Renyi curves summed on dp_accounting's orders: min(xi + a eps^2/8, "
                      "eps) per bounded-range round, the Laplace mechanism's per "
                      "permute-and-flip round, a mu^2/2 per Gaussian round (Mironov, "
                      "arXiv:1702.07476, Proposition 7), randomised response's per pure-DP "
                      "round; "
                      "converted as dp_accounting's compute_epsilon (Canonne, Kamath & "
                      "Steinke, arXiv:2004.00010, Proposition 12)"}


def fallbacks(rounds, black_box, delta, eps_prime, upper_of) -> dict:
    """Every fallback (module docstring) as ``{name: {"eps", "delta", "source", ...}}``.

    ``rounds``: ``(kind, ε, count)`` of every round (kind ``bounded-range``, ``laplace``,
    ``gaussian`` or ``pure``), with a fourth entry, a function ``orders -> Rényi curve``,
    for a round with a published curve of its own (repeat-and-select: Papernot and
    Steinke); ``black_box``: ``(ε, count)`` of every step as a whole, None when a step is
    not pure DP (then no ``naive`` and ``randomised_response``); ``upper_of``: computes the
    randomised-response composition on the certified grid when the exact product is too
    large."""
    eps_prime = [float(e) for e in eps_prime]
    pure = {} if black_box is None else {
        "naive": _naive(black_box, delta, eps_prime),
        "randomised_response": _randomised_response(black_box, delta, eps_prime, upper_of)}
    return {**pure, "zcdp": _zcdp(rounds, delta, eps_prime),
            "rdp": _rdp(rounds, delta, eps_prime)}
