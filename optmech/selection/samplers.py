"""Fast exact samplers for permute-and-flip and the exponential mechanism.

Both take log weights ``z_r = c (q_r - q*) <= 0`` (``max z = 0``).  Candidates far below the
maximum (``z_r <= CUT = -40``) almost never win, so both samplers touch them only through
their count, and stay exact:

* PF (:func:`sample_permute_and_flip`) is the exponential race ``argmax_r (z_r + E_r)`` with
  ``E_r ~ Exp(1)``.  The top candidate has ``z + E >= 0``, so a far candidate can win only if
  ``E_r > -z_r >= 40``.  The number of far candidates with ``E_r > 40`` is
  ``Binomial(n_far, e^{-40})``; those are chosen uniformly and, by memorylessness, get
  ``E_r = 40 + Exp(1)``.  Every other far candidate has ``z_r + E_r < 0`` and cannot win.
* EM (:func:`sample_exponential_mechanism`) is rejection sampling from the proposal
  "near candidates with weight ``e^{z_r}``, far candidates with weight ``e^{-40}`` each":
  a far proposal ``r`` is accepted with probability ``e^{z_r + 40}``, which makes every
  accepted draw proportional to ``e^{z_r}``; near proposals are always accepted.

Cost per draw: one pass to find the near candidates, then work on those only.
"""

from __future__ import annotations

import math

import numpy as np

from optmech.validation import check_integer

__all__ = [
    "CELLS",
    "CUT",
    "row_blocks",
    "sample_shape",
    "shaped",
    "sample_exponential_mechanism",
    "sample_from_pmf",
    "sample_noisy_argmax",
    "sample_permute_and_flip",
]

CUT = -40.0
#: Noise draws per vectorised block (:func:`row_blocks`).
CELLS = 1 << 22


def sample_shape(size) -> tuple[tuple[int, ...] | None, int]:
    """``(shape, count)`` for a ``size`` argument (None: one scalar draw)."""
    if size is None:
        return None, 1
    if isinstance(size, tuple):
        shape = tuple(check_integer(s, "size", minimum=0) for s in size)
    else:
        shape = (check_integer(size, "size", minimum=0),)
    return shape, math.prod(shape)


def shaped(draws: np.ndarray, shape):
    """``count`` draws as the caller asked: an ``int`` (shape None) or an array."""
    return int(draws[0]) if shape is None else draws.reshape(shape)


def row_blocks(count: int, width: int):
    """Slices of at most ``CELLS / width`` rows covering ``range(count)``."""
    rows = max(1, CELLS // max(width, 1))
    for start in range(0, count, rows):
        yield slice(start, min(start + rows, count))


def sample_from_pmf(probs: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
    """``count`` i.i.d. indices drawn from ``probs`` by inverse transform."""
    cdf = np.cumsum(probs)
    idx = np.searchsorted(cdf, rng.random(count) * cdf[-1], side="right")
    return np.minimum(idx, probs.size - 1)


def sample_noisy_argmax(scores: np.ndarray, count: int, rng: np.random.Generator,
                        draw) -> np.ndarray:
    """``count`` draws of ``argmax(scores + draw(rng, shape))`` in memory-bounded blocks."""
    out = np.empty(count, dtype=np.int64)
    for block in row_blocks(count, scores.size):
        noise = draw(rng, (block.stop - block.start, scores.size))
        out[block] = np.argmax(scores + noise, axis=1)
    return out


def _split(log_weights: np.ndarray, cut: float):
    near = np.flatnonzero(log_weights > cut)
    return near, log_weights.size - near.size


def sample_permute_and_flip(log_weights: np.ndarray, count: int, rng: np.random.Generator,
                            cut: float = CUT) -> np.ndarray:
    """``count`` i.i.d. draws of ``argmax_r (z_r + E_r)`` (= permute-and-flip).

    ``cut`` (< 0) separates near from far candidates; any value gives the same distribution.
    """
    near, far_count = _split(log_weights, cut)
    z_near = log_weights[near]
    out = np.empty(count, dtype=np.int64)
    for block in row_blocks(count, near.size):
        m = block.stop - block.start
        race = z_near + rng.standard_exponential((m, near.size))
        best = race.max(axis=1)
        out[block] = near[race.argmax(axis=1)]
        if far_count == 0:
            continue
        lucky = rng.binomial(far_count, math.exp(cut), size=m)
        for i in np.flatnonzero(lucky):
            far = np.flatnonzero(log_weights <= cut)
            picked = rng.choice(far, size=lucky[i], replace=False)
            values = log_weights[picked] - cut + rng.standard_exponential(lucky[i])
            if values.max() > best[i]:
                out[block.start + i] = picked[values.argmax()]
    return out


def sample_exponential_mechanism(log_weights: np.ndarray, count: int,
                                 rng: np.random.Generator, cut: float = CUT) -> np.ndarray:
    """``count`` i.i.d. draws with ``Pr[r] ∝ exp(z_r)`` (= the exponential mechanism).

    ``cut`` (< 0) separates near from far candidates; any value gives the same distribution.
    """
    near, far_count = _split(log_weights, cut)
    cdf = np.cumsum(np.exp(log_weights[near]))
    near_total = cdf[-1]
    total = near_total + far_count * math.exp(cut)
    out = np.empty(count, dtype=np.int64)
    pending = np.arange(count)
    far = None
    while pending.size:
        u = rng.random(pending.size) * total
        in_near = u < near_total
        idx = np.minimum(np.searchsorted(cdf, u[in_near], side="right"), near.size - 1)
        out[pending[in_near]] = near[idx]
        rest = pending[~in_near]
        if rest.size == 0:
            break
        if far is None:
            far = np.flatnonzero(log_weights <= cut)
        proposal = far[rng.integers(far.size, size=rest.size)]
        accept = rng.random(rest.size) < np.exp(log_weights[proposal] - cut)
        out[rest[accept]] = proposal[accept]
        pending = rest[~accept]
    return out
