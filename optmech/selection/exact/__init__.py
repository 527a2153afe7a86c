"""Exact-arithmetic sampling for permute-and-flip and the exponential mechanism.

Scores, ε and the sensitivity are read as the exact rationals they denote, and every random
decision is an exact coin built from uniform random integers (C. Canonne, G. Kamath and
T. Steinke, *The Discrete Gaussian for Differential Privacy*, NeurIPS 2020,
arXiv:2004.00010, Algorithm 1), so no floating-point rounding can leak (I. Mironov, *On
significance of the least significant bits for differential privacy*, CCS 2012).

* :mod:`~.rationals`: scores and privacy parameters as exact rationals;
* :mod:`~.random`: uniform random integers from the OS CSPRNG or a numpy Generator;
* :mod:`~.bernoulli`: exact Bernoulli(p) and Bernoulli(exp(-x)) coins, vectorised;
* :mod:`~.sampling`: the samplers behind ``sample(..., exact=True)`` (and the coins
  ``bernoulli(p)``, :func:`bernoulli_exp`, :func:`bernoulli_logistic`).
"""

from optmech._lazy import lazy_exports as _lazy_exports

__all__, __getattr__, __dir__ = _lazy_exports(__name__, {
    "optmech.selection.exact.sampling": (
        "bernoulli_exp", "bernoulli_logistic", "exponential_mechanism_exact",
        "permute_and_flip_exact",
    ),
})
