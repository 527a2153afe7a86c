"""Realised privacy loss of a top-T mechanism over every neighbour on a small grid.

A top-T mechanism is epsilon-DP under a neighbouring relation when for every pair of
neighbouring score vectors ``q ~ q'`` and every output ``s``,
``|log Pr[M(q) = s] - log Pr[M(q') = s]| <= epsilon``.  :func:`grid_privacy_loss` measures
the largest such loss exhaustively on a grid: every score vector of ``n`` candidates whose
scores are ``0, h, 2h, ..., (levels - 1) h`` with ``h = sensitivity / resolution``, every
move ``d`` in ``{-Δ, 0, Δ}^n`` (the general relation) or, for add/remove
(``monotonic=True``), the moves of ``{0, Δ}^n`` and ``{-Δ, 0}^n``, and every output.  The
log probabilities come from one batched ``logpmf`` call on the grid extended by Δ on each
side; the check costs ``(levels + 2 resolution)^n`` exact pmfs.

This checks vertices of the relation's box of moves on a finite grid; it can refute a
guarantee (an explicit pair with a larger loss) and measures how tight a calibration is,
it does not prove one.
"""

from __future__ import annotations

import itertools

import numpy as np

from optmech.resources import require_memory
from optmech.selection.privacy import PrivacyCheck
from optmech.topk.enumeration import require_enumeration
from optmech.validation import InvalidArgumentError, check_integer

__all__ = ["grid_privacy_loss"]


def grid_privacy_loss(mechanism, n: int, levels: int = 4, resolution: int = 1,
                      monotonic: bool | None = None) -> PrivacyCheck:
    """The largest privacy loss of ``mechanism`` (a
    :class:`~optmech.topk.mechanisms.TopKMechanism`) between neighbours on the grid of the
    module docstring, under the general relation (``monotonic=False``) or add/remove
    (``True``; None: the relation the mechanism is calibrated for).  The result's
    ``output`` is the index of the output in ``outcomes(n, top)``; ``scores`` and
    ``neighbour`` the pair that attains the loss."""
    n = check_integer(n, "n", minimum=mechanism.top)
    levels = check_integer(levels, "levels", minimum=1)
    resolution = check_integer(resolution, "resolution", minimum=1)
    if monotonic is None:
        monotonic = mechanism.monotonic
    if not isinstance(monotonic, (bool, np.bool_)):
        raise InvalidArgumentError("monotonic", monotonic, "True, False or None")
    width = levels + 2 * resolution
    require_enumeration(n, mechanism.top, width ** n, argument="levels")
    require_memory(16 * width ** n * 3 ** n, "levels", levels)
    step = mechanism.sensitivity / resolution
    # every vector of the extended grid, in units of step, offset so that the inner grid
    # starts at `resolution`
    units = np.array(list(itertools.product(range(width), repeat=n)))
    logp = mechanism.logpmf((units - resolution) * step)
    directions = np.array(list(itertools.product((-1, 0, 1), repeat=n)))
    if monotonic:
        directions = directions[(directions >= 0).all(axis=1) | (directions <= 0).all(axis=1)]
    directions = directions[np.abs(directions).sum(axis=1) > 0] * resolution
    inner = units[((units >= resolution) & (units < resolution + levels)).all(axis=1)]
    place = width ** np.arange(n - 1, -1, -1)
    base = inner @ place
    other = (inner[:, None, :] + directions[None, :, :]) @ place
    with np.errstate(invalid="ignore"):
        loss = np.abs(logp[base][:, None, :] - logp[other])
    loss[np.isnan(loss)] = 0.0              # both -inf: the output is impossible for both
    i, k, output = np.unravel_index(int(np.argmax(loss)), loss.shape)
    return PrivacyCheck(epsilon=float(loss[i, k, output]), output=int(output),
                        scores=(inner[i] - resolution) * step,
                        neighbour=(inner[i] + directions[k] - resolution) * step,
                        neighbours_checked=int(loss.shape[0] * loss.shape[1]))
