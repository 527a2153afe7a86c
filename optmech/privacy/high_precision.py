"""A second, independent computation of a pair's curves at 50 significant digits (mpmath).

The referee (:mod:`optmech.privacy.claims`) checks every figure of a counterexample twice: in
double precision (:mod:`optmech.privacy.divergences` on the mechanisms' own log-pmfs) and
here, where nothing is shared with that path:

* pmfs from their definitions: the exponential mechanism (and report-noisy-max with Gumbel
  noise) as a softmax; permute-and-flip (and report-noisy-max with exponential noise) as
  ``p_r int_0^1 prod_{s != r} (1 - p_s t) dt`` with the polynomial expanded and integrated
  term by term (exact, no quadrature; the alternating coefficients cost at most ``n/2``
  digits, which the working precision adds); report-noisy-max with Laplace noise as
  ``int f(x - q_r) prod_{s != r} F(x - q_s) dx`` by tanh-sinh quadrature split at the scores
  (where the integrand has kinks); randomised response in closed form;
* divergences from their definitions: ``sum max(0, P - e^eps' Q)``, ``log(sum P^alpha
  Q^(1-alpha)) / (alpha - 1)``, ``sum P log(P/Q)``, ``max log(P/Q)``.

Values are mpmath numbers at :data:`DIGITS` digits; :func:`to_float` rounds them.
"""

from __future__ import annotations

import mpmath as mp

from optmech.validation import InvalidArgumentError

__all__ = ["DIGITS", "compose_mp", "hockey_stick_mp", "log_pmf_mp", "max_loss_mp", "renyi_mp",
           "to_float"]

#: Significant digits of every computation here.
DIGITS = 50
_FAMILIES = {"em": "em", "rnm_gumbel": "em", "pf": "pf", "rnm_exponential": "pf",
             "rnm_laplace": "laplace", "rr": "rr", "uniform": "uniform"}


def to_float(value) -> float:
    """The nearest double."""
    return float(value)


def _context(n: int, digits: int = DIGITS):
    return mp.workdps(digits + n // 2 + 10)


def log_pmf_mp(name: str, epsilon, scores, sensitivity=1, monotonic: bool = False,
               digits: int = DIGITS) -> list:
    """``log Pr[M(scores) = r]`` at ``digits`` digits for a mechanism of
    ``optmech.selection.mechanisms.MECHANISMS`` (``epsilon`` and ``sensitivity`` as
    exact decimal strings or numbers; fewer digits make the Laplace quadrature faster)."""
    family = _FAMILIES.get(str(name).replace("-", "_"))
    if family is None:
        raise InvalidArgumentError("mechanism", name, "one of " + ", ".join(_FAMILIES))
    with _context(len(scores), digits):
        q = [mp.mpf(s) for s in scores]
        eps, delta = mp.mpf(epsilon), mp.mpf(sensitivity)
        c = eps / ((1 if monotonic else 2) * delta)          # exponent; 1/scale for RNM
        top = max(q)
        if family == "em":
            z = [c * (x - top) for x in q]
            norm = mp.log(mp.fsum(mp.exp(v) for v in z))
            out = [v - norm for v in z]
        elif family == "pf":
            out = _pf(q, c)
        elif family == "laplace":
            out = _laplace(q, 1 / c)
        elif family == "rr":
            best = [x == top for x in q]
            m, k = sum(best), len(q)
            denominator = mp.exp(eps) + k - 1
            out = [mp.log((mp.exp(eps) + m - 1) / (m * denominator)) if b
                   else -mp.log(denominator) for b in best]
        else:
            out = [-mp.log(len(q))] * len(q)
        return [+v for v in out]


def _pf(q: list, c) -> list:
    """``log(p_r int_0^1 prod_{s != r}(1 - p_s t) dt)`` with the product expanded."""
    top = max(q)
    coins = [mp.exp(c * (x - top)) for x in q]
    out = []
    for r, coin in enumerate(coins):
        poly = [mp.mpf(1)]                                   # coefficients in t
        for s, other in enumerate(coins):
            if s != r:
                poly = [a - other * b for a, b in zip(poly + [0], [0] + poly)]
        integral = mp.fsum(a / (j + 1) for j, a in enumerate(poly))
        out.append(c * (q[r] - top) + mp.log(integral))
    return out


def _laplace(q: list, scale) -> list:
    """Report-noisy-max with Laplace(``scale``) noise by quadrature, split at the scores."""
    def log_cdf(y):
        return y - mp.log(2) if y < 0 else mp.log1p(-mp.exp(-y) / 2)

    def density(y):
        return mp.exp(-abs(y)) / 2

    points = sorted(set(q))
    edges = [mp.ninf, *points, mp.inf]
    out = []
    for r in range(len(q)):
        def integrand(x, r=r):
            log_rest = mp.fsum(log_cdf((x - q[s]) / scale) for s in range(len(q)) if s != r)
            return density((x - q[r]) / scale) / scale * mp.exp(log_rest)
        out.append(mp.log(mp.quad(integrand, edges)))
    return out


def max_loss_mp(log_p: list, log_q: list):
    """``max_r log(P_r / Q_r)``."""
    return max(a - b for a, b in zip(log_p, log_q))


def hockey_stick_mp(log_p: list, log_q: list, eps_prime):
    """``sum_r max(0, P_r - e^eps' Q_r)``."""
    with _context(len(log_p)):
        e = mp.exp(mp.mpf(eps_prime))
        return +mp.fsum(max(mp.mpf(0), mp.exp(a) - e * mp.exp(b))
                        for a, b in zip(log_p, log_q))


def renyi_mp(log_p: list, log_q: list, order):
    """``D_alpha(P||Q)`` from its definition (``alpha = 1``: KL, ``inf``: max loss)."""
    with _context(len(log_p)):
        alpha = mp.mpf(order)
        if alpha == 1:
            return +mp.fsum(mp.exp(a) * (a - b) for a, b in zip(log_p, log_q))
        if mp.isinf(alpha):
            return max_loss_mp(log_p, log_q)
        total = mp.fsum(mp.exp(alpha * a + (1 - alpha) * b) for a, b in zip(log_p, log_q))
        return +(mp.log(total) / (alpha - 1))


def compose_mp(log_p: list, log_q: list, k: int) -> tuple[list, list]:
    """The pair of ``k``-fold products, one entry per multiset of outputs (enumerated with
    ``itertools.combinations_with_replacement``), with its multinomial weight."""
    import itertools
    from collections import Counter

    with _context(len(log_p)):
        out_p, out_q = [], []
        for combo in itertools.combinations_with_replacement(range(len(log_p)), k):
            counts = Counter(combo).values()
            weight = mp.log(mp.factorial(k)) - mp.fsum(mp.log(mp.factorial(c)) for c in counts)
            out_p.append(weight + mp.fsum(log_p[r] for r in combo))
            out_q.append(weight + mp.fsum(log_q[r] for r in combo))
        return out_p, out_q
