"""How much worse than permute-and-flip can the exponential mechanism be?  A search for the
largest ratio ``E[error of EM] / E[error of PF]``, and the bound that caps it.

Permute-and-flip paper, Section 4: Theorem 2 gives ``E[err PF] <= E[err EM]``; the paper
has "never observed a ratio greater than two for any q" and leaves open whether one exists.

The answer is no, and the supremum is exactly 2 (:mod:`proofs.em_pf_ratio` checks the steps
symbolically).  With coins ``p_s = exp(eps (q_s - q*) / (2Δ))`` and ``S_r = sum_{s != r} p_s``
(``>= 1`` for a non-top ``r``, since the top coin is 1), the Weierstrass product inequality
``prod (1 - a_s) >= 1 - sum a_s`` gives ``prod_{s != r} (1 - p_s t) >= 1 - S_r t``, so

    Pr[PF = r] = p_r int_0^1 prod_{s != r}(1 - p_s t) dt >= p_r int_0^{1/S_r} (1 - S_r t) dt
               = p_r / (2 S_r) > p_r / (2 (S_r + p_r)) = Pr[EM = r] / 2

for every non-top ``r``; multiplying by ``q* - q_r`` and summing, ``E[err EM] < 2 E[err PF]``
whenever the scores are not all equal (and ``Pr[err EM >= t] < 2 Pr[err PF >= t]`` for
every ``t > 0``).  More precisely ``E_EM / E_PF <= 2 - 2 min_r p_r / sum_s p_s`` over the
non-top ``r``.  On ``(c, ..., c, 0)`` the ratio of equations (7)/(8) tends to 2 as
``c -> -inf`` for every ``n``, so 2 is the supremum, never attained.

The ratio depends on the scores only through the log coins ``y = eps (q - q*) / (2Δ)``: the
search runs over ``y in [-Y_MAX, 0]^(n-1)`` with the top at 0, and a score vector found at
one ``eps`` is the same vector rescaled at any other.  The grid of ``eps`` enters through
the starting points, drawn in score space (``q_s`` uniform in ``[-start_box Δ, 0]``), so that
small ``eps`` starts near ties and large ``eps`` far from them.  ``Y_MAX = 30`` keeps every
coin above 1e-13, where the deficit ``2 - ratio`` (about ``2 min p / S``) is still far above
the 4e-16 resolution of a ratio computed in double precision.

Search (:func:`search_em_pf_ratio`), per ``(n, eps)``:

* structured families on a grid of ``y``: the step ``(c, ..., c, 0)`` (equations (7)-(8)
  of Proposition 4) and two-level vectors ``(0, a, ..., a, b, ..., b)``;
* ``starts`` local maximisations of ``log E_EM - log E_PF`` by L-BFGS-B in the box, from
  seeded random starts (``numpy.random.default_rng((seed, n, index of eps))``), with the
  exact gradient of :func:`log_ratio_and_gradient`.

Every candidate's ratio is then recomputed with the mechanisms' own exact pmfs
(:meth:`~optmech.selection.mechanisms.PermuteAndFlip.expected_error`, softmax for EM).
Cost: one evaluation is ``O(n^2)`` (``ceil((n + 1) / 2)`` quadrature nodes) and L-BFGS-B
takes ``O(n)`` iterations, so one start costs ``O(n^3)``: about 0.05 s CPU at n = 10 and
0.3 s at n = 100 on an idle machine, up to 0.2 s and 7 s at n = 10 and 200 on a loaded
one.  The search is refused up front (:func:`~optmech.resources.require_work`, naming
``starts``) when :func:`estimated_seconds`, an upper estimate from those loaded timings,
exceeds the work budget (one hour of CPU time by default).

Range of ``eps``: the score vectors found are ``2 y / eps`` with ``y`` down to
``-Y_MAX``, so ``eps`` must be at least :data:`MIN_EPSILON` (1e-306) for them to be
doubles; any larger finite ``eps`` works (at huge ``eps`` the starts sit at ``Y_MAX``, far
from ties, and the scores are tiny).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy.optimize import minimize

from optmech.progress import progress
from optmech.resources import require_work
from optmech.selection.mechanisms import ExponentialMechanism, PermuteAndFlip
from optmech.selection.worst_case import em_error_on_step, pf_error_on_step
from optmech.validation import (
    InvalidArgumentError,
    check_integer,
    check_positive,
    check_scores,
)

__all__ = [
    "FAMILIES",
    "MIN_EPSILON",
    "Y_MAX",
    "RatioSearch",
    "em_pf_ratio",
    "estimated_seconds",
    "log_ratio_and_gradient",
    "ratio_bound",
    "search_em_pf_ratio",
]

Y_MAX = 30.0
FAMILIES = ("step", "two-level", "multistart")
MAX_N = 200
MIN_EPSILON = 1e-306
_GRID = 21


def em_pf_ratio(scores, epsilon: float = 1.0, sensitivity: float = 1.0) -> float:
    """``E[err EM] / E[err PF]`` on ``scores`` from the mechanisms' exact pmfs (relative
    accuracy about 1e-15); the scores must not all be equal (both errors are 0 then)."""
    q = check_scores(scores)
    if q.max() == q.min():
        raise InvalidArgumentError("scores", scores, "scores that are not all equal")
    em = ExponentialMechanism(epsilon, sensitivity).expected_error(q)
    pf = PermuteAndFlip(epsilon, sensitivity).expected_error(q)
    return float(em / pf)


def ratio_bound(scores, epsilon: float = 1.0, sensitivity: float = 1.0) -> float:
    """The bound of the module docstring, ``2 - 2 min_r p_r / sum_s p_s`` over the non-top
    items: ``E[err EM] / E[err PF]`` is at most this (and below 2)."""
    q = check_scores(scores)
    if q.max() == q.min():
        raise InvalidArgumentError("scores", scores, "scores that are not all equal")
    coins = np.exp(check_positive(epsilon, "epsilon") / (2 * check_positive(
        sensitivity, "sensitivity")) * (q - q.max()))
    return float(2.0 - 2.0 * coins[q < q.max()].min() / coins.sum())


def log_ratio_and_gradient(log_coins: np.ndarray) -> tuple[float, np.ndarray]:
    """``log E_EM - log E_PF`` at log coins ``y`` (``max y = 0``) and its gradient in ``y``.

    With ``d = -y``, ``F(t) = prod_s (1 - p_s t)``, ``g_s(t) = p_s / (1 - p_s t)`` and
    ``A(t) = sum_r d_r g_r(t)``:  ``E_PF = int F A dt`` and

        dE_PF/dy_s = int F g_s [d_s - 1 - t (A - d_s g_s)] dt,

    all integrands polynomials of degree at most ``n``, so Gauss–Legendre with
    ``ceil((n + 1) / 2)`` nodes is exact up to rounding (the terms in ``g_s^2`` cancel).
    For EM with ``pi = softmax(y)``: ``dE_EM/dy_s = pi_s (d_s - 1 - E_EM)``.  ``F g_s`` is
    taken as ``exp(log F - log(1 - p_s t))``, so a coin of 1 (the top) divides nothing by 0.
    """
    y = np.asarray(log_coins, dtype=float)
    d = -y
    p = np.exp(y)
    pi = p / p.sum()
    em = float(pi @ d)
    em_grad = pi * (d - 1.0 - em)
    t, w = np.polynomial.legendre.leggauss((y.size + 2) // 2)
    t, w = 0.5 * (t + 1.0), 0.5 * w
    log_factors = np.log1p(-np.outer(p, t))                       # (n, nodes), t < 1
    fg = np.exp(log_factors.sum(axis=0) - log_factors) * p[:, None]   # F g_s
    dg = d[:, None] * p[:, None] / (1.0 - np.outer(p, t))        # d_s g_s
    pf = float((fg * w).sum(axis=1) @ d)
    inner = d[:, None] - 1.0 - t[None, :] * (dg.sum(axis=0)[None, :] - dg)
    pf_grad = (fg * inner * w).sum(axis=1)
    return float(np.log(em) - np.log(pf)), em_grad / em - pf_grad / pf


@dataclass(frozen=True)
class RatioSearch:
    """The largest ``E[err EM] / E[err PF]`` found for ``n`` candidates at ``epsilon``
    (sensitivity 1): ``scores`` attains ``ratio`` (recomputed from the exact pmfs), found by
    ``family``; ``deficit = 2 - ratio``; ``bound`` is :func:`ratio_bound` at ``scores``;
    ``ratios`` the best ratio of each family; ``evaluations`` the ratio evaluations made."""

    #: Number of candidates (2 to 200).
    n: int
    #: The privacy parameter ε of the search (> 0; sensitivity 1).
    epsilon: float
    #: Largest ``E[err EM] / E[err PF]`` found, recomputed from the exact pmfs at ``scores`` (in [1,
    #: 2): 2 is the supremum, never attained).
    ratio: float
    #: ``2 - ratio`` (> 0).
    deficit: float
    #: :func:`ratio_bound` at ``scores``: an upper bound on the ratio there
    #: (``ratio <= bound < 2``).
    bound: float
    #: What found it: ``"step"``, ``"two-level"`` or ``"multistart"``.
    family: str
    #: The score vector attaining ``ratio`` (length n, top score 0, the others <= 0, units of the
    #: sensitivity).
    scores: np.ndarray = field(repr=False)
    #: The best ratio of each family that ran (family name -> ratio, from the exact pmfs).
    ratios: dict
    #: Ratio evaluations made, over every family (grid points and L-BFGS-B function evaluations).
    evaluations: int


def _log_coins(z: np.ndarray) -> np.ndarray:
    return np.concatenate([[0.0], -np.asarray(z, dtype=float)])


def _step_family(n: int) -> tuple[float, np.ndarray, int]:
    """Best ratio of equations (7)/(8) on a grid of ``log p`` in ``[-Y_MAX, 0)``."""
    log_p = -np.linspace(Y_MAX, 0.0, 64 * _GRID, endpoint=False)
    ratio = em_error_on_step(n, np.exp(log_p), 2.0) / pf_error_on_step(n, np.exp(log_p), 2.0)
    best = int(np.argmax(ratio))
    return float(ratio[best]), np.concatenate([[0.0], np.full(n - 1, log_p[best])]), log_p.size


def _two_level_family(n: int) -> tuple[float, np.ndarray, int]:
    """Best ratio over ``(0, a x m, b x (n - 1 - m))`` on a grid of ``0 >= a >= b``."""
    grid = -np.linspace(0.0, Y_MAX, _GRID)
    best, best_y, count = -np.inf, None, 0
    for m in sorted({1, 2, (n - 1) // 2, n - 2} & set(range(1, n - 1))):
        for i, a in enumerate(grid):
            for b in grid[i + 1:]:
                y = np.concatenate([[0.0], np.full(m, a), np.full(n - 1 - m, b)])
                value = np.exp(log_ratio_and_gradient(y)[0])
                count += 1
                if value > best:
                    best, best_y = value, y
    return float(best), best_y, count


def estimated_seconds(ns, num_epsilons: int, starts: int) -> float:
    """Upper estimate of the CPU seconds of :func:`search_em_pf_ratio` (module docstring):
    per ``n`` the families, ``0.05 + 2e-6 n^3`` s, and per ``(n, eps)`` and start
    ``0.2 + 1e-6 n^3`` s.  Each ``n`` is checked (an integer in ``[2, MAX_N]``)."""
    ns = [check_integer(n, "n", minimum=2, maximum=MAX_N) for n in np.atleast_1d(ns).tolist()]
    return float(sum(0.05 + 2e-6 * n**3 + num_epsilons * max(starts, 1) * (0.2 + 1e-6 * n**3)
                     for n in ns))


def _multistart(n: int, epsilon: float, starts: int, start_box: float,
                rng: np.random.Generator, bar) -> tuple[float, np.ndarray, int]:
    best, best_y, count = -np.inf, None, 0
    bounds = [(0.0, Y_MAX)] * (n - 1)
    # min(eps / 2 * start_box * u, Y_MAX) for uniform u, without overflowing at huge eps
    # (a factor capped at 1e300 still sends every draw u >= 2^-53 to Y_MAX)
    scale = min(epsilon / 2.0, 1e300) * start_box
    for _ in range(starts):
        z0 = np.minimum(scale * rng.random(n - 1), Y_MAX)

        def objective(z):
            value, gradient = log_ratio_and_gradient(_log_coins(z))
            return -value, gradient[1:]              # dy/dz = -1 on the free coordinates

        result = minimize(objective, z0, jac=True, method="L-BFGS-B", bounds=bounds,
                          options={"ftol": 1e-15, "gtol": 1e-13, "maxiter": 2000})
        count += int(result.nfev)
        if -result.fun > best:
            best, best_y = float(np.exp(-result.fun)), _log_coins(result.x)
        bar.update(1)
    return best, best_y, count


def search_em_pf_ratio(ns, epsilons, *, starts: int = 10, seed: int = 0,
                       start_box: float = 10.0, show_progress: bool | None = None
                       ) -> list[RatioSearch]:
    """The search of the module docstring for every ``n`` in ``ns`` (2 to 200) and every
    ``eps`` in ``epsilons`` (at least :data:`MIN_EPSILON`): one :class:`RatioSearch` per
    pair, same ``seed``, same result.  ``start_box`` (units of Δ, at most 1e6) bounds the
    random starting scores.  Refused up front when :func:`estimated_seconds` exceeds the
    work budget (:mod:`optmech.resources`)."""
    ns = [check_integer(n, "n", minimum=2, maximum=MAX_N) for n in np.atleast_1d(ns).tolist()]
    eps = [check_positive(e, "epsilon") for e in np.atleast_1d(epsilons).tolist()]
    if any(e < MIN_EPSILON for e in eps):
        raise InvalidArgumentError("epsilon", min(eps), f"a number >= {MIN_EPSILON:g} (the "
                                   "score vectors found, 2 y / eps with y down to "
                                   f"-{Y_MAX:g}, must fit in a double)")
    starts = check_integer(starts, "starts", minimum=0)
    seed = check_integer(seed, "seed", minimum=0)
    start_box = check_positive(start_box, "start_box")
    if start_box > 1e6:
        raise InvalidArgumentError("start_box", start_box, "a number in (0, 1e6]")
    if not ns or not eps:
        raise InvalidArgumentError("ns, epsilons", (ns, eps), "non-empty lists")
    require_work(estimated_seconds(ns, len(eps), starts), "starts", starts)
    results = []
    bar = progress(range(len(ns) * len(eps) * max(starts, 1)), desc="EM/PF ratio search",
                   enabled=show_progress)
    with bar:
        for n in ns:
            # the families are grids of log coins: the same vectors at every eps
            families = {"step": _step_family(n)}
            if n >= 3:
                families["two-level"] = _two_level_family(n)
            for index, epsilon in enumerate(eps):
                results.append(_search_cell(n, index, epsilon, families, starts, seed,
                                            start_box, bar))
    return results


def _search_cell(n, index, epsilon, families, starts, seed, start_box, bar) -> RatioSearch:
    """One ``(n, eps)`` of :func:`search_em_pf_ratio`: the families' best vectors, the
    multistart, and every candidate's ratio from the mechanisms' pmfs."""
    found = dict(families)
    if starts:
        rng = np.random.default_rng((seed, n, index))
        found["multistart"] = _multistart(n, epsilon, starts, start_box, rng, bar)
    else:
        bar.update(1)
    exact = {name: em_pf_ratio(y, 2.0) for name, (_, y, _) in found.items()}
    family = max(exact, key=exact.get)
    scores = 2.0 / epsilon * found[family][1]
    return RatioSearch(n=n, epsilon=epsilon, ratio=exact[family], deficit=2.0 - exact[family],
                       bound=ratio_bound(scores, epsilon), family=family, scores=scores,
                       ratios=exact, evaluations=sum(c for *_, c in found.values()))
