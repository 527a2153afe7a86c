"""What is proven about repeat-and-select (:mod:`optmech.privacy.repeat`): the published
theorems as code, and the sharp pure-DP bound proved here.

**What was read.**  Papernot and Steinke's text (arXiv:2110.03620) was not available here:
the stored copies (the ar5iv page and the ICLR 2022 text) hold only the abstract and the
introduction.  Their statements are taken from three texts that restate them, which agree:
``dp_accounting``'s ``rdp/rdp_privacy_accountant.py`` at commit ``b5b0286`` of
google/differential-privacy (``_compute_rdp_repeat_and_select``, citing "Theorem 2" on page
5 and "Theorem 6" on page 7 of arXiv:2110.03620v2, and ``_truncated_negative_binomial_mean``
citing its Definition 1); Wang, Gao, Zhang, Su and Shen, *DP-HyPO*, NeurIPS 2023,
arXiv:2306.05734, Theorem 1 (with ``C = c = 1`` it "precisely recovers Theorem 2" of
Papernot and Steinke) and its proof (Appendix A, Lemma A.5: the bound for any law of
``K`` through its generating function, read in full), and its Theorem 2 (pure DP,
recovering Liu and Talwar's geometric result); and ``autodp``'s ``PrivateSelection``
transformer (a third implementation of Theorems 2 and 6).  Liu and Talwar's text
(arXiv:1811.07971) was not available either; their random-stopping result (3ε with
geometric ``K``) is as DP-HyPO restates it (its Section 2.2 and 3.1.1, "Theorem 3.2 in
[LT]"; :mod:`optmech.heterogeneous.random_stopping` cites it as Theorem 3.4 after the
heterogeneous-sensitivities paper).  Every bound below is checked against exact curves of
explicit pairs (tests, and the claims of :mod:`optmech.privacy.claims`).

**The published theorems** (the base ``Q`` runs ``K`` times; the best output by a public
total order is released, ``⊥`` when ``K = 0``):

* Liu and Talwar (geometric ``K``, ``Pr[K = k] = γ (1-γ)^(k-1)``, γ in (0, 1]; ``Q``
  ε-DP): 3ε-DP.  :func:`liu_talwar_epsilon`.
* Papernot and Steinke, Theorem 2 (``K ~ D_{η,γ}``, η > -1, γ in (0, 1); ``Q``
  ``(λ, ε)``-RDP and ``(λ̂, ε̂)``-RDP, λ in (1, ∞), λ̂ in [1, ∞)): ``(λ, ε')``-RDP with
  ``ε' = ε + (1+η)(1 - 1/λ̂) ε̂ + (1+η) log(1/γ)/λ̂ + log E[K]/(λ - 1)``.
  :func:`tnb_rdp` takes the best λ̂ of a dense grid (each λ̂ is a valid bound) and the
  monotone closure in λ (Rényi divergence does not decrease with the order).
* Papernot and Steinke, Corollary 3 (the pure-DP case of Theorem 2, λ, λ̂ -> ∞):
  ``(2+η)ε``-DP; η = 1 is the geometric law and Liu and Talwar's 3ε.  :func:`tnb_epsilon`.
* Papernot and Steinke, Theorem 6 (``K ~ Poisson(μ)``; ``Q`` ``(λ, ε)``-RDP and ``(ε̂,
  δ̂)``-DP with ``e^ε̂ <= 1 + 1/(λ - 1)``): ``ε' = ε + μ δ̂ + log(μ)/(λ - 1)``.
  :func:`poisson_rdp` (ε̂ at its largest allowed value, as ``dp_accounting`` does).  Only
  for μ >= 1 (``dp_accounting`` refuses a mean below 1): for μ < 1 the formula is negative
  near λ = 1, below every divergence.  Its proof through Lemma A.5 leaves out the output
  ``⊥`` (the lemma sums over the base's outputs only); with it,
  ``ε' = log(e^-μ + μ e^((λ-1)(ε + μ δ̂))) / (λ - 1)``: :func:`poisson_rdp_with_bottom`,
  proved (Lemma A.5 with the ``⊥`` term ``G(0) = e^-μ`` added; the last step:
  ``λ q + (1-λ) q' - 1 = (λ-1)((1-q') - (λ/(λ-1))(1-q)) <= (λ-1) δ̂`` because ``1 - q' <=
  e^ε̂ (1-q) + δ̂`` and ``e^ε̂ <= λ/(λ-1)``), valid for every μ > 0 and what
  :func:`proven_rdp` uses.  Its λ -> ∞ limit is ``ε + μ TV`` (TV, the base's total
  variation, at most ``tanh(ε/2)``): :func:`poisson_epsilon`.
* Fixed ``K = k``: the best of ``k`` runs is a post-processing of their composition, so
  ``kε``-DP and ``k ε(λ)`` (Mironov, arXiv:1702.07476, Proposition 1).  :func:`fixed_rdp`.

**The sharp pure-DP bound (proved here).**  Let the base be ε-DP, ``G`` the generating
function of ``K``, ``φ(t) = G'(1 - t)`` (non-increasing: ``G'`` has non-negative
coefficients) and ``m(t) = min(e^ε t, 1 - e^-ε (1 - t))``.  Then the repeated mechanism is
ε'-DP with

    ε' = ε + log sup_{0 <= t <= 1} φ(t) / φ(m(t)),

and for three or more outputs no smaller ε' holds for every ε-DP base.  *Proof.*  Fix an
output ``j``; ``t, u`` are the ``P``-masses above ``j`` and at or above it, ``t', u'``
the ``Q``-masses.  ``Pr_P[j] = int_t^u φ(r) dr`` (module :mod:`~optmech.privacy.repeat`).
ε-DP on the sets above ``j`` and at or below it gives ``t' <= m(t)``; likewise ``u' <=
m(u)``; on ``{j}``, ``u' - t' >= e^-ε (u - t)``.  The linear map ``s(r)`` from ``[t, u]``
onto ``[t', u']`` has ``s <= m`` at both ends, so everywhere (``m`` is concave); so
``φ(s(r)) >= φ(m(r)) >= φ(r) / R`` (R the sup) and ``Pr_Q[j] = int φ(s(r)) s'(r) dr >=
e^-ε Pr_P[j] / R``.  ``⊥`` has probability ``G(0)`` under both; ``P`` and ``Q`` swap.
*Tightness.*  ``P = (e^ε (1-s), e^ε s, 1) / (1+e^ε)`` against ``Q = (1-s, s, e^ε) /
(1+e^ε)`` (ε-DP; outputs in increasing quality): the middle output has ``t = t* = 1/(1 +
e^ε)``, ``t' = m(t*)``, and its loss tends to ``ε + log φ(t*)/φ(m(t*))`` as ``s -> 0``.  For
the laws here the sup is at ``t*`` (``m(t) - t``, and for the truncated negative binomial
``(γ + (1-γ) m(t)) / (γ + (1-γ) t)``, rise up to ``t*`` and fall after it):

* Poisson: ``ε' = ε + μ tanh(ε/2)`` (Theorem 6's λ -> ∞ limit, the same value);
* ``D_{η,γ}`` (geometric: η = 1): ``ε' = ε + (1+η) log((e^ε + γ)/(1 + γ e^ε))``, below
  ``(2+η)ε`` for every γ > 0 and equal to it as γ -> 0;
* fixed ``k``: ``ε' = kε`` (the ratio is ``e^((k-1)ε)`` from ``t*`` on).

:func:`sharp_epsilon`; tests check it against the three-output pairs (approached to
``1e-7``) and against random and searched ε-DP pairs (never exceeded).
"""

from __future__ import annotations

import math
from typing import Callable

import numpy as np

from optmech.privacy.accountants import compute_epsilon
from optmech.privacy.divergences import check_grid, hockey_stick, renyi
from optmech.privacy.repeat import Repetitions
from optmech.validation import InvalidArgumentError, check_nonnegative

__all__ = ["HAT_ORDERS", "base_curves", "base_epsilon", "fixed_rdp", "literature_epsilon",
           "literature_guarantee", "literature_rdp", "liu_talwar_epsilon", "poisson_epsilon",
           "poisson_formula", "poisson_rdp", "poisson_rdp_with_bottom", "proven_rdp", "rdp_epsilon",
           "sharp_epsilon", "tnb_epsilon", "tnb_rdp"]

#: The λ̂ of Theorem 2 tried (each gives a valid bound; the smallest is kept): 1 (KL), 600
#: orders with ``λ̂ - 1`` geometric in [1e-3, 1e6], and the limit λ̂ -> ∞.
HAT_ORDERS = np.concatenate([[1.0], 1.0 + np.geomspace(1e-3, 1e6, 600), [np.inf]])

LIU_TALWAR = ("Liu & Talwar, arXiv:1811.07971, random stopping with geometric K (Theorem 3.2 "
              "as DP-HyPO, arXiv:2306.05734, cites it): 3 eps-DP for an eps-DP base")
PS_COROLLARY = ("Papernot & Steinke, arXiv:2110.03620, Corollary 3 (pure-DP case of Theorem "
                "2): (2 + eta) eps-DP for K ~ D_{eta,gamma} and an eps-DP base")
PS_THEOREM_2 = ("Papernot & Steinke, arXiv:2110.03620v2, Theorem 2: eps + (1+eta)(1 - "
                "1/lhat) epshat + (1+eta) log(1/gamma)/lhat + log E[K]/(lambda - 1)")
PS_THEOREM_6 = ("Papernot & Steinke, arXiv:2110.03620v2, Theorem 6: eps + mu deltahat + "
                "log(mu)/(lambda - 1), e^epshat <= 1 + 1/(lambda - 1), mu >= 1")
POISSON_LIMIT = ("Papernot & Steinke's Theorem 6 as lambda -> infinity (taken here): eps + "
                 "mu TV <= eps + mu tanh(eps/2), equal to the sharp bound")
COMPOSITION = ("basic composition and post-processing (Dwork & Roth 2014, Theorem 3.16): "
               "k eps-DP for the best of k runs")
SHARP = ("eps + log sup_t G'(1-t)/G'(1-m(t)), m(t) = min(e^eps t, 1 - e^-eps (1-t)): proved "
         "and tight in optmech.privacy.repeat_bounds")


def _orders(orders) -> np.ndarray:
    return check_grid(orders, "orders", 1.0)


def _monotone(orders: np.ndarray, values: np.ndarray) -> np.ndarray:
    """``min`` over the orders at or above each order (``D_λ`` does not decrease in λ)."""
    index = np.argsort(orders, kind="stable")
    closed = np.minimum.accumulate(values[index][::-1])[::-1]
    out = np.empty_like(values)
    out[index] = closed
    return out


# --- pure DP ------------------------------------------------------------------------------------

def liu_talwar_epsilon(epsilon: float) -> float:
    """``3 ε``: Liu and Talwar's bound for geometric ``K`` (module docstring)."""
    return 3.0 * check_nonnegative(epsilon, "epsilon")


def tnb_epsilon(epsilon: float, eta: float) -> float:
    """``(2 + η) ε``: Papernot and Steinke's Corollary 3 for ``K ~ D_{η,γ}``."""
    if not eta > -1:
        raise InvalidArgumentError("eta", eta, "a number > -1")
    return (2.0 + eta) * check_nonnegative(epsilon, "epsilon")


def poisson_epsilon(epsilon: float, mu: float, total_variation: float | None = None) -> float:
    """``ε + μ TV``: Theorem 6 as λ -> ∞, TV (default its largest value for an ε-DP base,
    ``tanh(ε/2)``) the base's total variation distance."""
    epsilon = check_nonnegative(epsilon, "epsilon")
    tv = math.tanh(epsilon / 2.0) if total_variation is None else total_variation
    return epsilon + mu * tv


def _log_ratio_at_t_star(law: Repetitions, epsilon: float) -> float:
    """``log φ(t*) / φ(m(t*))`` (module docstring), the sharp bound's excess over ε."""
    if law.kind == "poisson":
        return law.parameters[0] * math.tanh(epsilon / 2.0)
    if law._runs is not None:
        return (law._runs - 1) * epsilon
    eta, gamma = law._tnb
    lg = math.log(gamma)
    # log((e^ε + γ) / (1 + γ e^ε)) without overflow
    return (1.0 + eta) * (np.logaddexp(epsilon, lg) - np.logaddexp(0.0, lg + epsilon))


def sharp_epsilon(law, epsilon: float) -> float:
    """The sharp pure-DP ε' of repeat-and-select of an ε-DP base with ``K`` from ``law``
    (proved in the module docstring; the supremum over ε-DP bases with three or more
    outputs)."""
    law = Repetitions.parse(law)
    if epsilon == math.inf:              # a base that is not ε-DP for any ε
        return math.inf
    epsilon = check_nonnegative(epsilon, "epsilon")
    return epsilon + float(_log_ratio_at_t_star(law, epsilon))


def literature_epsilon(law, epsilon: float) -> tuple[float, str] | None:
    """``(ε', source)``: the published pure-DP bound for ``law`` and an ε-DP base."""
    law = Repetitions.parse(law)
    if law._runs is not None:
        return fixed_epsilon(epsilon, law._runs), COMPOSITION
    if law.kind == "geometric":
        return liu_talwar_epsilon(epsilon), LIU_TALWAR
    if law.kind == "negbin":
        return tnb_epsilon(epsilon, law.parameters[0]), PS_COROLLARY
    return poisson_epsilon(epsilon, law.parameters[0]), POISSON_LIMIT


def fixed_epsilon(epsilon: float, k: int) -> float:
    """``k ε``."""
    return k * check_nonnegative(epsilon, "epsilon")


# --- Rényi DP -----------------------------------------------------------------------------------

Curve = Callable[[np.ndarray], np.ndarray]


def tnb_rdp(orders, base_renyi: Curve, eta: float, gamma: float, mean: float | None = None,
            hat_orders=HAT_ORDERS) -> np.ndarray:
    """Papernot and Steinke's Theorem 2 at each order (``inf`` at λ = 1 unless an order
    above gives less; the λ -> ∞ limit at ``inf``), for a base whose Rényi divergence at
    each order is at most ``base_renyi(orders)``."""
    grid = _orders(orders)
    law = Repetitions.negbin(eta, gamma, argument="repeat")
    mean = law.mean if mean is None else mean
    hat = _orders(hat_orders)
    eps_hat = np.asarray(base_renyi(hat), dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(np.isinf(hat), eps_hat,
                         (1.0 - 1.0 / hat) * eps_hat + math.log(1.0 / gamma) / hat)
    constant = (1.0 + eta) * float(np.min(terms))
    eps = np.asarray(base_renyi(grid), dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        tail = np.where(np.isinf(grid), 0.0, math.log(mean) / (grid - 1.0))
    values = np.where(grid > 1.0, eps + constant + tail, np.inf)
    return _monotone(grid, values)


def poisson_rdp(orders, base_renyi: Curve, base_delta: Curve, mu: float) -> np.ndarray:
    """Papernot and Steinke's Theorem 6 at each order, ``ε̂ = log(1 + 1/(λ-1))`` (its
    largest allowed value; ``δ̂ = base_delta(ε̂)``); ``inf`` for every order when μ < 1
    (module docstring)."""
    grid = _orders(orders)
    if not mu >= 1:
        return np.full(grid.shape, np.inf)
    return _monotone(grid, poisson_formula(grid, base_renyi, base_delta, mu))


def poisson_formula(orders, base_renyi: Curve, base_delta: Curve, mu: float) -> np.ndarray:
    """Theorem 6's formula ``ε + μ δ̂ + log(μ)/(λ - 1)`` at each order as written, for any
    μ > 0 (``inf`` at λ = 1; no closure): below every divergence near λ = 1 when μ < 1,
    which is why :func:`poisson_rdp` takes μ >= 1 only."""
    grid = _orders(orders)
    eps, delta_hat = _poisson_terms(grid, base_renyi, base_delta)
    with np.errstate(divide="ignore", invalid="ignore"):
        tail = np.where(np.isinf(grid), 0.0, math.log(mu) / (grid - 1.0))
    return np.where(grid > 1.0, eps + mu * delta_hat + tail, np.inf)


def poisson_rdp_with_bottom(orders, base_renyi: Curve, base_delta: Curve, mu: float
                            ) -> np.ndarray:
    """Theorem 6 with the output ``⊥`` counted (module docstring; every μ > 0):
    ``log(e^-μ + μ e^((λ-1)(ε + μ δ̂))) / (λ - 1)``."""
    grid = _orders(orders)
    eps, delta_hat = _poisson_terms(grid, base_renyi, base_delta)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        h = grid - 1.0
        inner = np.logaddexp(-mu, math.log(mu) + h * (eps + mu * delta_hat))
        values = np.where(np.isinf(grid), eps + mu * delta_hat, inner / h)
    return _monotone(grid, np.where(grid > 1.0, values, np.inf))


def _poisson_terms(grid: np.ndarray, base_renyi: Curve, base_delta: Curve):
    eps = np.asarray(base_renyi(grid), dtype=float)
    with np.errstate(divide="ignore"):
        eps_hat = np.where(np.isinf(grid), 0.0,
                           np.log1p(1.0 / np.where(grid > 1.0, grid - 1.0, 1.0)))
    delta_hat = np.asarray(base_delta(eps_hat), dtype=float)
    return eps, delta_hat


def fixed_rdp(orders, base_renyi: Curve, k: int) -> np.ndarray:
    """``k ε(λ)``: composition of ``k`` runs (Mironov, Proposition 1)."""
    grid = _orders(orders)
    return k * np.asarray(base_renyi(grid), dtype=float)


def literature_rdp(law, orders, base_renyi: Curve, base_delta: Curve) -> np.ndarray:
    """The published Rényi bound for ``law`` (Theorem 2 for ``D_{η,γ}`` and the geometric
    law, Theorem 6 for Poisson with μ >= 1, composition for a fixed ``K``)."""
    law = Repetitions.parse(law)
    if law._runs is not None:
        return fixed_rdp(orders, base_renyi, law._runs)
    if law.kind == "poisson":
        return poisson_rdp(orders, base_renyi, base_delta, law.parameters[0])
    eta, gamma = law._tnb
    return tnb_rdp(orders, base_renyi, eta, gamma, law.mean)


def rdp_epsilon(orders, rdp, delta: float) -> tuple[float, float]:
    """``(ε', order)`` at ``delta`` from a Rényi curve, by the conversion of Canonne,
    Kamath and Steinke (arXiv:2004.00010, Proposition 12) as ``dp_accounting`` applies it
    (:func:`~optmech.privacy.accountants.compute_epsilon`; infinite orders are left out)."""
    grid = _orders(orders)
    values = np.asarray(rdp, dtype=float)
    finite = np.isfinite(grid) & (grid > 1.0)
    return compute_epsilon(grid[finite], values[finite], delta)


# --- a RepeatAndSelect's base and what is proven about it ---------------------------------------

def _pair_curves(log_p: np.ndarray, log_q: np.ndarray) -> tuple[Curve, Curve]:
    forward = np.stack([log_p, log_q])
    backward = forward[::-1]

    def renyi_curve(orders):
        return renyi(forward, backward, orders).max(axis=0)

    def delta_curve(eps_prime):
        return hockey_stick(forward, backward, np.atleast_1d(eps_prime)).max(axis=0)
    return renyi_curve, delta_curve


def base_curves(repeated) -> tuple[Curve, Curve] | None:
    """``(Rényi curve, δ curve)`` that bound every neighbouring pair of the base: a pair's
    own (both directions), a mechanism's proven bound
    (:func:`~optmech.privacy.bounds.proven_bound`); None without one."""
    if repeated.is_pair:
        return _pair_curves(*repeated._pair)
    from optmech.privacy.bounds import proven_bound

    bound = proven_bound(repeated.base)
    if bound is None:
        return None
    return bound.renyi, bound.delta


def base_epsilon(repeated) -> float | None:
    """The base's proven ε (a pair's largest ``|log(p_r / q_r)|``, ``inf`` when only one
    of them can produce an output), or None."""
    if repeated.is_pair:
        log_p, log_q = repeated._pair
        with np.errstate(invalid="ignore"):
            loss = np.abs(log_p - log_q)
        both_zero = np.isneginf(log_p) & np.isneginf(log_q)
        return float(np.max(np.where(both_zero, 0.0, loss)))
    from optmech.privacy.bounds import proven_bound

    bound = proven_bound(repeated.base)
    return None if bound is None else float(bound.epsilon)


def literature_guarantee(repeated):
    """The published pure-DP guarantee of ``repeated``
    (:class:`~optmech.selection.mechanisms.PrivacyGuarantee`, its statement naming the
    paper, the theorem and the conditions), or None when the base has no proven ε."""
    from optmech.selection.mechanisms import PrivacyGuarantee

    eps = base_epsilon(repeated)
    if eps is None or math.isinf(eps):
        return None
    value, source = literature_epsilon(repeated.repeat, eps)
    return PrivacyGuarantee(value, 0.0, f"{repeated.repeat} runs of an {eps:g}-DP base, "
                                        f"the best kept ({source})")


def proven_rdp(repeated, orders) -> np.ndarray:
    """A proven Rényi curve of ``repeated`` at ``orders``: the smaller of the published
    bound (Theorem 6 with ``⊥`` counted for Poisson) and randomised response's curve at the
    sharp ε (:func:`sharp_epsilon`); ``inf`` where neither applies."""
    from optmech.privacy.bounds import randomised_response_renyi

    grid = _orders(orders)
    curves = base_curves(repeated)
    eps = base_epsilon(repeated)
    if curves is None or eps is None or math.isinf(eps):
        return np.full(grid.shape, np.inf)
    law = repeated.repeat
    if law.kind == "poisson":
        published = poisson_rdp_with_bottom(grid, *curves, law.parameters[0])
    else:
        published = literature_rdp(law, grid, *curves)
    return np.minimum(published, randomised_response_renyi(sharp_epsilon(law, eps), grid))
