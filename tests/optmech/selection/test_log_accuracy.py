"""Each mechanism's stated accuracy of its log-probabilities (``logpmf_error``) against
50-digit mpmath (optmech.privacy.high_precision: softmax, PF's expanded polynomial, the
exact piecewise-exponential Laplace integral, randomised response's closed form) on random
score vectors with gaps up to 10^4 and epsilon from 0.01 to 30: every error below two thirds
of its bound; and the top candidate's log-probability from the others (a top near 1 keeps
its digits; PF's quadrature no longer rounds it above 0)."""

import mpmath as mp
import numpy as np
import pytest

from optmech.privacy.high_precision import log_pmf_mp
from optmech.selection.mechanisms import PermuteAndFlip, make_mechanism
from optmech.selection.scores import log_top_from_rest

COUNTS = {"em": 300, "pf": 300, "rr": 300, "uniform": 50, "rnm_laplace": 60}


def _vectors(count: int, seed: int):
    rng = np.random.default_rng(seed)
    for trial in range(count):
        n = int(rng.integers(2, 9))
        eps = float(rng.choice([0.01, 0.1, 0.5, 1.0, 3.0, 8.0, 30.0]))
        kind = trial % 4
        if kind == 0:
            q = -rng.uniform(0, 10, n)
        elif kind == 1:                     # ties and far-apart levels
            q = -rng.choice([0, 1, 30, 50, 100, 400], n) + rng.integers(-1, 2, n) * 0.5
        elif kind == 2:
            q = -rng.exponential(50, n)
        else:
            q = -rng.uniform(0, 1e4, n) * (rng.uniform(size=n) < 0.5)
        yield eps, q


@pytest.mark.parametrize("name", sorted(COUNTS))
def test_log_probabilities_within_two_thirds_of_their_stated_bound(name):
    worst = 0.0
    for eps, q in _vectors(COUNTS[name], seed=sorted(COUNTS).index(name)):
        mechanism = make_mechanism(name, eps)
        logs = mechanism.logpmf(q)
        bounds = mechanism.logpmf_error(logs)
        reference = log_pmf_mp(name, eps, [float(v) for v in q], digits=30)
        for value, exact, bound in zip(logs, reference, bounds):
            worst = max(worst, float(abs(mp.mpf(float(value)) - exact)) / bound)
    assert worst <= 2 / 3


def test_a_top_near_one_keeps_its_digits():
    """EM, PF and report-noisy-max with Laplace noise on (0, -50, -100) at eps = 1: the top
    probability is 1 - 1e-11; its logarithm to 1e-14 relative (it was 1.4e-5 off: the log
    of a double near 1)."""
    for name in ("em", "pf", "rnm_laplace"):
        logs = make_mechanism(name, 1.0).logpmf([0.0, -50.0, -100.0])
        exact = log_pmf_mp(name, 1, [0, -50, -100], digits=30)
        assert logs[0] == pytest.approx(float(exact[0]), rel=1e-13), name


def test_no_log_probability_above_zero():
    """PF at eps = 20 on random pairs: the quadrature's rounding put some top
    probabilities at 1 + 2.2e-16 (log > 0, refused downstream as 'NaN or a value > 0');
    445 of 2,000 vectors before, none now."""
    rng = np.random.default_rng(0)
    rows = np.concatenate([np.zeros((4000, 1)), -rng.uniform(0, 8, (4000, 3))], axis=1)
    rows = rows + np.where(np.arange(4000)[:, None] % 2 == 1, rng.uniform(-1, 1, (4000, 4)), 0)
    logs = PermuteAndFlip(20.0).logpmf(rows)
    assert np.isfinite(logs).all() and (logs <= 0).all()


def test_log_top_from_rest():
    """The largest entry of each row becomes log1p(-sum of the others) where they sum
    below 1/2; rows without such a top (ties at 1/2, many small ones) are left as they
    were."""
    rows = np.array([[0.0, np.log(1e-20), np.log(2e-20)], [np.log(0.5), np.log(0.5), -np.inf],
                     np.log([0.3, 0.3, 0.4])])
    out = log_top_from_rest(rows.copy())
    assert out[0, 0] == pytest.approx(-3e-20, rel=1e-15)
    np.testing.assert_array_equal(out[1:], rows[1:])
