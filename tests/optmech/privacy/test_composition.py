"""Exact composition against brute force: the k-fold product distributions enumerated over
all n^k output sequences (itertools.product) give the same delta curve and Rényi divergence
as the atoms (distinct losses, merged); Rényi divergence adds up over runs; two different
pairs; the memory estimate holds (tracemalloc) and refuses up front."""

import itertools
import math

import numpy as np
import pytest

from optmech.privacy.composition import compose, composition_size, product
from optmech.privacy.divergences import hockey_stick, renyi
from optmech.privacy.loss import loss_distribution
from optmech.resources import memory_budget
from optmech.selection.mechanisms import make_mechanism
from optmech.validation import InvalidArgumentError

EPS_PRIME = [0.0, 0.5, 1.5, 3.0]


def _single(name="pf", scores=(0.0, -0.5, -2.0), neighbour=(-1.0, 0.5, -1.0)):
    return loss_distribution(make_mechanism(name, 1.0), scores, neighbour)


def _brute(first, second=None, k=None):
    """Every output sequence of the product, with its probability under P and Q."""
    parts = [first] * k if second is None else [first, second]
    sequences = itertools.product(*[range(p.log_p.size) for p in parts])
    p, q = [], []
    for seq in sequences:
        p.append(math.prod(math.exp(part.log_p[r]) for part, r in zip(parts, seq)))
        q.append(math.prod(math.exp(part.log_q[r]) for part, r in zip(parts, seq)))
    return np.log(p), np.log(q)


def _curves(log_p, log_q):
    both = np.stack([log_p, log_q]), np.stack([log_q, log_p])
    return (hockey_stick(*both, EPS_PRIME).max(axis=0),
            renyi(*both, [1.0, 2.0, 5.0]).max(axis=0))


@pytest.mark.parametrize("k", [1, 2, 4])
def test_composition_matches_brute_force_products(k):
    single = _single()
    composed = compose(single, k)
    assert composed.log_p.size <= composition_size(3, k)
    ours = _curves(composed.log_p, composed.log_q)
    brute = _curves(*_brute(single, k=k))
    np.testing.assert_allclose(ours[0], brute[0], rtol=1e-12, atol=1e-300)
    np.testing.assert_allclose(ours[1], brute[1], rtol=1e-12)


def _mp_delta(single, k, eps_prime):
    """delta(eps') of the k-fold product in both directions, 40 digits, every sequence."""
    import mpmath
    with mpmath.workdps(40):
        p = [mpmath.exp(mpmath.mpf(x)) for x in single.log_p]
        q = [mpmath.exp(mpmath.mpf(x)) for x in single.log_q]
        values = []
        for e in eps_prime:
            scale = mpmath.exp(mpmath.mpf(e))
            directions = [mpmath.mpf(0), mpmath.mpf(0)]
            for seq in itertools.product(range(len(p)), repeat=k):
                a = mpmath.fprod(p[r] for r in seq)
                b = mpmath.fprod(q[r] for r in seq)
                directions[0] += max(0, a - scale * b)
                directions[1] += max(0, b - scale * a)
            values.append(max(directions))
        return values


@pytest.mark.parametrize("name, k", [("pf", 5), ("em", 6)])
def test_composed_error_intervals_contain_the_exact_curve(name, k):
    """compose carries the single run's log-probability errors: the curves' stated error
    holds against 40-digit sums over every sequence, and stays at the rounding level."""
    from optmech.privacy.curves import curves_of
    single = _single(name)
    curves = curves_of(compose(single, k), EPS_PRIME, [2.0])
    exact = _mp_delta(single, k, EPS_PRIME)
    for value, error, reference in zip(curves.delta, curves.delta_error, exact):
        assert abs(value - float(reference)) <= error
        assert error <= 1e-12 * float(reference)               # measured: 4e-13 at most


def test_composed_errors_include_the_runs_errors():
    single = _single()
    inflated = type(single)(single.scores, single.neighbour, single.log_p, single.log_q,
                            np.full(3, 1e-6), np.full(3, 1e-6))
    composed = compose(inflated, 4)
    assert np.all(composed.errors()[0] >= 4e-6)
    assert np.all(product(inflated, single).errors()[1] >= 1e-6)


def test_renyi_divergence_adds_up_over_runs():
    single = _single("em")
    orders = [1.0, 1.5, 3.0]
    one = renyi(single.log_p, single.log_q, orders)
    ten = compose(single, 10)
    np.testing.assert_allclose(renyi(ten.log_p, ten.log_q, orders), 10 * one, rtol=1e-12)
    assert np.exp(ten.log_p).sum() == pytest.approx(1.0, abs=1e-13)


def test_product_of_two_different_pairs():
    a, b = _single("pf"), _single("em", (0.0, -1.0), (1.0, -2.0))
    ours = _curves(product(a, b).log_p, product(a, b).log_q)
    brute = _curves(*_brute(a, b))
    np.testing.assert_allclose(ours[0], brute[0], rtol=1e-12, atol=1e-300)


def test_equal_losses_merge():
    # three outputs, two of them with the same loss (PF on two tied candidates): after
    # k runs the atoms are the distinct sums, k + 1 of them at most per pair of losses
    single = _single("pf", (0.0, -1.5, -1.5), (-1.0, -0.5, -0.5))
    composed = compose(single, 6)
    assert composed.log_p.size == 7                     # 2 distinct losses -> 6 + 1 atoms
    ours = _curves(composed.log_p, composed.log_q)
    brute = _curves(*_brute(single, k=6))
    np.testing.assert_allclose(ours[0], brute[0], rtol=1e-12, atol=1e-300)


def test_memory_estimate_holds():
    import tracemalloc

    from optmech.privacy.loss_atoms import BYTES_PER_PRODUCT_ATOM, power_size

    single = _single("pf", (0.0, -0.3, -0.9, -1.7, -2.2), (-1.0, 0.7, -1.9, -0.7, -3.2))
    k = 7
    estimate = BYTES_PER_PRODUCT_ATOM * power_size(5, k)
    tracemalloc.start()
    compose(single, k)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak <= estimate <= 1.5 * peak


def test_memory_is_refused_up_front():
    with memory_budget(10_000), pytest.raises(InvalidArgumentError, match="k"):
        compose(_single(), 40)
