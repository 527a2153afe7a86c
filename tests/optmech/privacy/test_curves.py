"""Every curve of a pair, for every mechanism of optmech.selection, against references that
share nothing with the double-precision path: pmfs at 50 digits (permute-and-flip by
enumerating Algorithm 1's visiting orders, the exponential mechanism as a softmax,
report-noisy-max with Laplace noise by mpmath quadrature) and divergences from their
definitions; closed forms at n = 2; neighbours checked."""

import functools
import math

import numpy as np
import pytest

from optmech.privacy.curves import pair_curves
from optmech.privacy.high_precision import log_pmf_mp
from optmech.privacy.loss import check_neighbours, loss_distribution
from optmech.selection.mechanisms import MECHANISMS, PmfMechanism, make_mechanism
from optmech.validation import InvalidArgumentError
from tests.optmech.privacy.references import delta_reference, pf_by_orders, renyi_reference

EPS = 1.3
SCORES = (0.0, -0.7, -2.5)
NEIGHBOUR = (-1.0, 0.3, -1.5)
ORDERS = [1.0, 2.0, 5.0, math.inf]
EPS_PRIME = [0.0, 0.4, 1.0]


@functools.lru_cache(maxsize=None)
def _reference(name):
    """(log P, log Q) at 50 digits (Laplace quadrature: 25): PF and RNM-exponential by
    enumeration, the others by optmech.privacy.high_precision (EM softmax, Laplace
    quadrature, RR closed form)."""
    if name in ("pf", "rnm_exponential"):
        return pf_by_orders(SCORES, EPS), pf_by_orders(NEIGHBOUR, EPS)
    digits = 25 if name == "rnm_laplace" else 50      # 25 digits: quadrature in 1 s
    return (log_pmf_mp(name, str(EPS), [str(s) for s in SCORES], digits=digits),
            log_pmf_mp(name, str(EPS), [str(s) for s in NEIGHBOUR], digits=digits))


@pytest.mark.parametrize("name", MECHANISMS)
def test_curves_match_the_50_digit_reference(name):
    curves = pair_curves(make_mechanism(name, EPS), SCORES, NEIGHBOUR, eps_prime=EPS_PRIME,
                         orders=ORDERS)
    lp, lq = _reference(name)
    for a, value in zip(ORDERS, curves.divergence):
        reference = max(renyi_reference(lp, lq, a), renyi_reference(lq, lp, a))
        assert value == pytest.approx(float(reference), rel=1e-12, abs=1e-40), a
    for e, value in zip(EPS_PRIME, curves.delta):
        reference = max(delta_reference(lp, lq, e), delta_reference(lq, lp, e))
        assert value == pytest.approx(float(reference), rel=1e-12, abs=1e-40), e
    assert curves.max_loss == pytest.approx(float(max(abs(x - y) for x, y in zip(lp, lq))),
                                            rel=1e-12, abs=1e-300)


def test_two_candidate_closed_forms():
    """n = 2: PF on a gap g is the Laplace CDF, so the pair (0, -g) / (-1, 1 - g) has
    delta(eps') = (e^(-c(g-1)... ) computed from P(top) = 1 - e^{-c g}/2; EM is a logistic."""
    eps, g = 1.0, 0.4
    c = eps / 2
    top = 1 - math.exp(-c * g) / 2                 # PF on (0, -g), g >= 0
    other = math.exp(c * (g - 2)) / 2             # PF on (-1, 1 - g): gap g - 2 < 0
    curves = pair_curves(make_mechanism("pf", eps), (0.0, -g), (-1.0, 1.0 - g),
                         eps_prime=[0.2], orders=[2.0])
    p, q = np.array([top, 1 - top]), np.array([other, 1 - other])
    expected = max(np.maximum(p - math.exp(0.2) * q, 0).sum(),
                   np.maximum(q - math.exp(0.2) * p, 0).sum())
    assert curves.delta[0] == pytest.approx(expected, rel=1e-14)
    em = pair_curves(make_mechanism("em", eps), (0.0, -g), (-1.0, 1.0 - g), orders=[1.0])
    pe = np.array([1, math.exp(-c * g)]) / (1 + math.exp(-c * g))
    qe = np.array([math.exp(-c), math.exp(c * (1 - g))])
    qe = qe / qe.sum()
    kl = max((pe * np.log(pe / qe)).sum(), (qe * np.log(qe / pe)).sum())
    assert em.divergence[0] == pytest.approx(kl, rel=1e-13)


def test_log_space_keeps_losses_beyond_the_double_range():
    """A candidate 900 scales below the top (probability ~1e-391): its loss is still
    exact, from PF's log-pmf (log(pmf) would be -inf)."""
    d = loss_distribution(make_mechanism("pf", 1.0), (0.0, -1800.0), (-1.0, -1799.0))
    assert np.isfinite(d.losses).all()
    lp = pf_by_orders((0.0, -1800.0), 1.0)
    lq = pf_by_orders((-1.0, -1799.0), 1.0)
    assert d.losses[1] == pytest.approx(float(lp[1] - lq[1]), rel=1e-12)


def test_a_duck_typed_pmf_gives_the_same_curves():
    pf = make_mechanism("pf", EPS)

    class PmfOnly:
        epsilon = EPS

        def pmf(self, scores):
            return pf.pmf(scores)

    ours = pair_curves(PmfOnly(), SCORES, NEIGHBOUR, eps_prime=EPS_PRIME, orders=ORDERS)
    direct = pair_curves(pf, SCORES, NEIGHBOUR, eps_prime=EPS_PRIME, orders=ORDERS)
    np.testing.assert_allclose(ours.divergence, direct.divergence, rtol=1e-12)
    np.testing.assert_allclose(ours.delta, direct.delta, rtol=1e-12)


def test_neighbours_are_checked():
    with pytest.raises(InvalidArgumentError, match="neighbour"):
        check_neighbours((0.0, 0.0), (1.5, 0.0))
    with pytest.raises(InvalidArgumentError, match="neighbour"):
        check_neighbours((0.0, 0.0), (1.0, -1.0), monotonic=True)
    with pytest.raises(InvalidArgumentError, match="neighbour"):
        check_neighbours((0.0, 0.0), (1.0, 0.0, 0.0))
    check_neighbours((0.9, 0.0), (1.1, 0.0), sensitivity=0.2)       # decimal rounding
    check_neighbours((0.0, 0.0), (2.0, 0.5), sensitivity=(2.0, 0.5))


def test_a_pmf_that_does_not_sum_to_one_is_refused():
    bad = PmfMechanism(lambda q: np.full(q.size, 0.6), epsilon=1.0)
    with pytest.raises(InvalidArgumentError, match="mechanism"):
        pair_curves(bad, (0.0, 0.0), (1.0, 0.0))
