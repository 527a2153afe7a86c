"""CPU seconds and peak bytes of the top-T samplers, from the score vector and the number
of draws, so that ``sample`` (and the CLI's ``sample`` and Monte Carlo ``error``) refuse up
front what the budgets of :mod:`optmech.resources` cannot give.

Each sampler of :mod:`optmech.topk.samplers` costs a set-up once per call and a cost per
draw (the constants are measured on the 2-core reference machine, n = 4000, T = 1000,
rounded up):

=====================  ===============================  ===================================
sampler                set-up                           per draw
=====================  ===============================  ===================================
peeling (EM, PF)       none                             ``T x near`` race cells, 2e-8 s
                                                        each (EM 1.9e-8, PF 6e-9 measured)
one-shot Gumbel        none                             ``n + T`` cells, 1e-7 s each
                                                        (4.3e-8 measured); the peeling
                                                        cost where it falls back to it
joint EM / PF          ``n x T`` entries of D: 120 B    ``T^2`` cells of the completion,
                       (108 B measured, ten arrays of   1e-8 s each (5.6e-9 measured); PF
                       the entries and their sort) and  also one noise per utility level,
                       5e-7 s (3e-7 measured) each      5e-8 s each
canonical Lipschitz    ``T x (n - T)`` class weights,   ``n`` cells, 2e-7 s each
                       48 B (43 measured) and 1e-7 s    (1.2e-7 measured)
=====================  ===============================  ===================================

``near`` is the number of candidates within 40 log-weight units of the T-th largest
(:func:`~optmech.topk.samplers.peeling_frame`); the joint samplers' levels are at most the
number of distinct top-T scores times the number of distinct scores.  The blocks of noise
a sampler holds at once are bounded by :func:`~optmech.selection.samplers.row_blocks`
(about 4 million cells, 24 bytes each); the draws themselves are ``8 T`` bytes each, held
three times (the output, a sorted copy, the errors of Monte Carlo).
"""

from __future__ import annotations

import numpy as np

from optmech.resources import Estimate
from optmech.selection.samplers import CELLS
from optmech.topk.samplers import FAR, peeling_frame

__all__ = ["sampler_estimate"]

_PEEL_CELL = 2e-8
_GUMBEL_CELL = 1e-7
_JOINT_ENTRY_BYTES = 120
_JOINT_ENTRY_SECONDS = 5e-7
_JOINT_CELL = 1e-8
_LEVEL_CELL = 5e-8
_CANONICAL_BYTES = 48
_CANONICAL_CLASS = 1e-7
_CANONICAL_CELL = 2e-7
_BLOCK_BYTES = 24 * CELLS


def _distinct(ordered: np.ndarray) -> int:
    """How many distinct values a sorted array holds (not ``np.unique``, which imports
    ``numpy.ma``: 'topk sample --mechanism joint-pf' then loaded it at start-up)."""
    return int(ordered.size > 0) + int(np.count_nonzero(ordered[1:] != ordered[:-1]))


def sampler_estimate(name: str, scores: np.ndarray, top: int, exponent: float,
                     count: int) -> Estimate:
    """The estimate of ``count`` draws of mechanism ``name`` (one of
    :data:`~optmech.topk.mechanisms.TOPK_MECHANISMS`) on the validated ``scores``; the
    refusal names ``scores, top, size``."""
    n = scores.size
    draws = 3 * 8 * top * count
    if name in ("peel-em", "peel-pf") or (name == "gumbel"
                                          and not peeling_frame(scores, exponent, top)[2]):
        near = int(np.count_nonzero(~(peeling_frame(scores, exponent, top)[1] > FAR)))
        seconds, nbytes = _PEEL_CELL * count * top * near, _BLOCK_BYTES
    elif name == "gumbel":
        seconds, nbytes = _GUMBEL_CELL * count * (n + top), _BLOCK_BYTES
    elif name in ("joint-em", "joint-pf"):
        entries = n * top
        per_draw = _JOINT_CELL * top * top
        if name == "joint-pf":
            ordered = np.sort(scores)
            levels = _distinct(ordered[n - top:]) * _distinct(ordered)
            per_draw += _LEVEL_CELL * min(levels, entries)
        seconds = _JOINT_ENTRY_SECONDS * entries + per_draw * count
        nbytes = _JOINT_ENTRY_BYTES * entries
    else:
        classes = top * (n - top + 1)
        seconds = _CANONICAL_CLASS * classes + _CANONICAL_CELL * count * n
        nbytes = _CANONICAL_BYTES * classes + _BLOCK_BYTES
    return Estimate(seconds, nbytes + draws, "scores, top, size",
                    f"{n} scores, top {top}, {count} draws")
