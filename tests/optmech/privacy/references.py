"""Independent references for the privacy tests, at 60 significant digits (mpmath): the
divergences from their definitions, and permute-and-flip's pmf by enumerating the visiting
orders of its Algorithm 1."""

import itertools
import math

import mpmath as mp


def renyi_reference(log_p, log_q, order):
    """``D_alpha(P||Q)`` from its definition (1: KL, ``inf``: max loss)."""
    with mp.workdps(60):
        if order == 1:
            return mp.fsum(mp.exp(x) * (x - y) for x, y in zip(log_p, log_q))
        if math.isinf(order):
            return max(x - y for x, y in zip(log_p, log_q))
        a = mp.mpf(order)
        return mp.log(mp.fsum(mp.exp(a * x + (1 - a) * y)
                              for x, y in zip(log_p, log_q))) / (a - 1)


def delta_reference(log_p, log_q, eps_prime):
    """``sum_r max(0, P_r - e^eps' Q_r)``."""
    with mp.workdps(60):
        return mp.fsum(max(mp.mpf(0), mp.exp(x) - mp.exp(mp.mpf(eps_prime) + y))
                       for x, y in zip(log_p, log_q))


def pf_by_orders(scores, eps):
    """Permute-and-flip's log-pmf by enumerating every visiting order (McKenna & Sheldon,
    Algorithm 1): the first visited candidate whose coin succeeds is selected."""
    with mp.workdps(60):
        top = max(scores)
        coins = [mp.exp(mp.mpf(eps) / 2 * (mp.mpf(s) - top)) for s in scores]
        n = len(scores)
        pmf = [mp.mpf(0)] * n
        for order in itertools.permutations(range(n)):
            fail = mp.mpf(1) / math.factorial(n)
            for r in order:
                pmf[r] += fail * coins[r]
                fail *= 1 - coins[r]
        return [mp.log(p) for p in pmf]
