"""Multi-selection under local geographic DP: the optimal server response to Laplace noise.

Paper: Goel, Jiang, Korolova, Munagala, Sarmasarkar, *Differential Privacy Under Multiple
Selections*, FORC 2025 (arXiv:2407.14641).  A user with private value ``u`` sends
``s = u + Y`` with ``Y ~ Laplace(0, 1/eps)`` (eps-geographic DP, Definition 2); the server
answers ``s + a_1, ..., s + a_k`` and the user keeps the result nearest to ``u``.  The user's
cost is ``E min_i h(|Y + a_i|)``, which equals ``E min_i h(|Y - a_i|)`` because ``Y`` and
``-Y`` have the same law, so ::

    f_h(eps, k) = min_{a in R^k} E_{Y ~ Laplace(1/eps)} min_i h(|Y - a_i|)        (14)

which Theorem 19 shows is the optimum over *all* eps-GDP mechanisms with k results.

Scaling.  ``Y = X / eps`` with ``X ~ Laplace(1)``, so with ``h_eps(t) = h(t / eps)`` the
offsets are ``A / eps`` where ``A`` solves the unit problem for ``h_eps``.  For the identity
``f(eps, k) = f(1, k) / eps``.

The recurrence (Appendix B).  Given ``X > 0`` (probability 1/2 by symmetry) ``X ~ Exp(1)``.
Let ``D_b`` be the least ``E h(|X - nearest point|)`` over ``b`` points ``0 = p_1 < ... < p_b``
anchored at 0.  Memorylessness gives ``D_1 = E h(X)`` and

    D_{b+1} = min_s  int_0^s min(h(t), h(s - t)) e^{-t} dt + e^{-s} D_b.

Writing ``y = s / 2`` and ``H_+(y) = int_0^y h(t) e^t dt`` the derivative of the bracket is
``e^{-2y} (G(y) - D_b)`` with ``G(y) = h(y) e^y - H_+(y) = h(0) + int_0^y h'(t) e^t dt``,
which is increasing; so the minimiser is the unique root ``y_b`` of ``G(y) = D_b`` (a
one-dimensional monotone root, not a search among local minima), the next gap is
``2 y_b``, and ``D_{b+1} = int_0^{y_b} h(t) e^{-t} dt + h(y_b) e^{-y_b} = E h(min(X, y_b))``.

Odd ``k = 2b - 1`` (Appendix B): ``{0, +-p_2, ..., +-p_b}`` with the anchored points
``p_{i+1} = p_i + 2 y_{b-i}``; cost ``D_b``.

Even ``k = 2b`` (derived here; the paper defers it to [41, Theorem C.3]): the symmetric set
``{+-c, +-(c + p_2), ..., +-(c + p_b)}`` with no point at 0.  Given ``X > 0`` the nearest
point is ``c`` on ``[0, c]`` and, beyond ``c``, the anchored ``b``-point set started at ``c``
(memorylessness again), so the cost is

    C(c) = int_0^c h(c - t) e^{-t} dt + e^{-c} D_b = e^{-c} (H_+(c) + D_b),
    C'(c) = e^{-c} (G(c) - D_b).

The same monotone equation: ``c = y_b`` and, since ``H_+(y_b) + D_b = h(y_b) e^{y_b}``,
**f_h(eps, 2b) = h_eps(y_b)**.  For the identity ``G(y) = e^y - 1`` and ``D_b = 1/b``
(paper), hence ``y_b = ln(1 + 1/b)`` and

    f(eps, 2b - 1) = 1 / (eps b),             offsets  +-(2/eps) ln(b / (b - i)),  i = 0..b-1
    f(eps, 2b)     = ln(1 + 1/b) / eps,        offsets  +-(1/eps) [ln(1 + 1/b) + 2 ln(b / (b - i))]

(``2 ln(b/(b-i))`` is the telescoped sum of the gaps ``2 ln(1 + 1/m)``, ``m = b-i..b-1``).
Check: k = 2 gives ``+-ln 2 / eps`` and cost ``ln 2 / eps``; k = 3 gives ``{0, +-ln 4 / eps}``
(the vector of the paper's Figure 3) and cost ``1 / (2 eps)``; ``1/(b+1) < ln(1+1/b) < 1/b``
so the costs decrease strictly in k.

Optimality over all offset vectors.  The construction optimises over symmetric sets (the
paper's "Assuming the symmetry of A").  For the identity the paper proves it optimal
([41, Theorem C.3]); for other increasing ``h`` it is the paper's construction and we have
checked it against unconstrained multi-start minimisation over ``R^k`` for
``h in {t, t^2, sqrt(t), t^0.2, log(1+t)}``, k <= 6, and against the discretised DILP
(:mod:`lp_models.dilp`), which optimises over all offsets and all noises, for k = 2, 3.

Scale.  A named ``h`` other than ``log1p`` is homogeneous, ``h(t / eps) = eps^-p h(t)``
(``p`` = 1, 2, 1/2, 3 for identity, square, sqrt, cube), so the recurrence runs once at
``eps = 1`` and ``f_h(eps, k) = eps^-p f_h(1, k)`` with offsets ``A / eps``: exact, and no
integral ever sees a scale of ``1/eps``.  ``log1p`` and user functions run the recurrence
on ``h(t / eps)`` at unit scale.  Multi-selection computes for ``eps`` in
:func:`epsilon_range`: ``[10^-E, 10^E]`` with ``E = 300 / max(p, 1)`` for a homogeneous
``h`` of degree ``p`` (1e±300 for the identity and sqrt, 1e±150 for square, 1e±100 for
cube), 1e±300 for ``log1p`` (between the identity and a logarithm) and for the noise alone,
1e±100 for a user function.  There every cost, offset and noise scale is a normal double
(``h = cube`` at ``eps = 1e-100`` costs about 6e300; a test sweeps every range on a log
grid); :func:`check_epsilon` refuses the rest up front, with the range.

Accuracy of the general-``h`` recurrence: each integral by adaptive Gauss-Kronrod
(``scipy.integrate.quad``, relative tolerance 1e-12), each root by Brent's method to 1e-15
relative.  ``D -> D_{b+1}`` has derivative ``e^{-2 y_b} < 1`` (envelope theorem), so errors
do not grow along the recurrence: costs are accurate to about 1e-11 relative and offsets
to about 1e-9 (tested against the closed forms with ``h`` passed as a plain function, and
against an mpmath evaluation at 30 digits).
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Callable

import numpy as np

from lp_models.display import Displayed
from optmech.resources import require_memory
from optmech.validation import InvalidArgumentError, check_integer, check_positive

__all__ = [
    "DISUTILITIES",
    "Disutility",
    "ServerResponse",
    "check_epsilon",
    "closed_form_cost",
    "closed_form_offsets",
    "epsilon_range",
    "optimal_response",
    "resolve_disutility",
]

#: Named disutility functions h (all increasing with h(0) = 0).
DISUTILITIES: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "identity": lambda t: np.asarray(t, dtype=float),
    "square": lambda t: np.square(t, dtype=float),
    "sqrt": lambda t: np.sqrt(t, dtype=float),
    "cube": lambda t: np.power(t, 3, dtype=float),
    "log1p": lambda t: np.log1p(t, dtype=float),
}

#: Degree ``p`` of the named disutilities that are homogeneous: ``h(c t) = c^p h(t)``.
_DEGREES = {"identity": 1.0, "square": 2.0, "sqrt": 0.5, "cube": 3.0}
_QUAD_RTOL = 1e-12


def epsilon_range(h: "Disutility | None" = None) -> tuple[float, float]:
    """The privacy parameters multi-selection computes for with disutility ``h`` (None:
    the noise alone); module docstring."""
    if h is None or h.name == "log1p":          # a user function is never named log1p
        degree = 1.0
    else:
        degree = h.degree if h.degree is not None else 3.0
    exponent = 300.0 / max(degree, 1.0)
    return 10.0 ** -exponent, 10.0 ** exponent


def check_epsilon(epsilon, h: "Disutility | None" = None) -> float:
    """``epsilon`` if it lies in :func:`epsilon_range` of ``h``, else
    :class:`InvalidArgumentError` with the range."""
    value = check_positive(epsilon, "epsilon")
    lo, hi = epsilon_range(h)
    if not lo <= value <= hi:
        what = "" if h is None else f" with h = {h.name}"
        raise InvalidArgumentError("epsilon", epsilon, f"a number in [{lo:.3g}, {hi:.3g}]"
                                   f"{what} (beyond it the costs, offsets or noise scales "
                                   "of multi-selection leave the range of normal doubles)")
    return value


@dataclass(frozen=True)
class Disutility:
    """A validated increasing disutility ``h`` (vectorised), with the name it was given by;
    ``degree`` is ``p`` when ``h`` is homogeneous of degree ``p`` (named functions only)."""

    #: The name it was given by.
    name: str
    #: ``h`` itself, vectorised.
    function: Callable[[np.ndarray], np.ndarray]

    @property
    def is_identity(self) -> bool:
        return self.name == "identity"

    @property
    def degree(self) -> float | None:
        return _DEGREES.get(self.name) if self.function is DISUTILITIES.get(self.name) \
            else None

    def at_unit_scale(self, epsilon: float) -> tuple["Disutility", float]:
        """``(g, c)`` with ``h(t / epsilon) = c g(t)``: ``(h, epsilon^-p)`` for a
        homogeneous ``h``, else ``(t -> h(t / epsilon), 1)``."""
        if self.degree is not None:
            return self, epsilon ** -self.degree
        function = self.function
        return Disutility(self.name, lambda t: function(np.asarray(t) / epsilon)), 1.0

    def __call__(self, t):
        return self.function(t)


def _vectorised(h: Callable) -> Callable[[np.ndarray], np.ndarray]:
    probe = np.array([0.0, 0.5, 1.0])
    try:
        out = np.asarray(h(probe), dtype=float)
        if out.shape == probe.shape:
            return lambda t: np.asarray(h(np.asarray(t, dtype=float)), dtype=float)
    except Exception:  # a scalar-only function: fall back to element-wise calls
        pass
    scalar = np.vectorize(lambda t: float(h(float(t))), otypes=[float])
    return lambda t: scalar(np.asarray(t, dtype=float))


def resolve_disutility(h=None, epsilon: float = 1.0) -> Disutility:
    """Validate ``h`` (None or a name in :data:`DISUTILITIES` or a callable).

    Checks for a callable, on 300 points of ``[0, 200/eps]``: finite values, ``h(0) = 0`` (paper's
    condition (2)), strictly increasing, and growth slower than ``e^{eps t}`` (so the cost
    under Laplace noise is finite; the paper's condition (3) is a version of this).
    """
    epsilon = check_epsilon(epsilon)
    if isinstance(h, Disutility):
        check_epsilon(epsilon, h)
        return h
    allowed = "None, a callable, or one of " + ", ".join(DISUTILITIES)
    if h is None:
        h = "identity"
    if isinstance(h, str):
        if h not in DISUTILITIES:
            raise InvalidArgumentError("h", h, allowed)
        named = Disutility(h, DISUTILITIES[h])  # the named functions satisfy the checks
        check_epsilon(epsilon, named)
        return named
    if callable(h):
        name, function = getattr(h, "__name__", "custom"), _vectorised(h)
        if name in DISUTILITIES or name == "<lambda>":
            name = "custom"
    else:
        raise InvalidArgumentError("h", h, allowed)
    t = np.unique(np.concatenate([np.linspace(0.0, 1.0, 101),
                                  np.geomspace(1e-6, 200.0, 200)])) / epsilon
    try:
        values = function(t)
    except Exception as error:
        raise InvalidArgumentError("h", h, f"a function of t >= 0 ({error})") from None
    increasing = "an increasing function with h(0) = 0"
    if not np.isfinite(values).all():
        raise InvalidArgumentError("h", h, increasing + " and finite values")
    typical = max(1.0, abs(values[t.searchsorted(1.0 / epsilon)]))
    if abs(values[0]) > 1e-12 * typical:
        raise InvalidArgumentError("h", h, increasing + f" (h(0) = {values[0]:.3g})")
    bad = np.flatnonzero(np.diff(values) <= 0)
    if bad.size:
        raise InvalidArgumentError(
            "h", h, increasing + f" (h({t[bad[0] + 1]:.4g}) <= h({t[bad[0]]:.4g}))")
    if not values[-1] * math.exp(-200.0) < 1e-6 * typical:
        raise InvalidArgumentError(
            "h", h, increasing + " growing slower than exp(eps t) (else the cost is infinite)")
    custom = Disutility(name, function)
    check_epsilon(epsilon, custom)
    return custom


@dataclass(frozen=True, repr=False)
class ServerResponse(Displayed):
    """The optimal server offsets for Laplace noise of scale ``1/epsilon``.

    ``offsets`` sorted ascending (symmetric about 0); ``cost`` is ``f_h(epsilon, k)``,
    the expected disutility of every user; ``method`` is ``"closed form"`` (identity) or
    ``"recurrence"`` (general ``h``, accuracy in the module docstring).
    """

    #: The number of results.
    k: int
    #: The privacy parameter ε (Laplace noise of scale ``1/epsilon``).
    epsilon: float
    #: The optimal offsets, ascending and symmetric about 0.
    offsets: np.ndarray
    #: ``f_h(epsilon, k)``: every user's expected disutility.
    cost: float
    #: The disutility's name.
    disutility: str
    #: ``"closed form"`` (identity) or ``"recurrence"`` (general ``h``).
    method: str

    _display = ("k", "epsilon", "disutility", "cost", "offsets", "method")


# Bytes per result of the arrays built for k results (offsets, costs, Voronoi boundaries).
_BYTES_PER_RESULT = 64
# The recurrence for a disutility other than the identity takes one root-finding step per
# pair of offsets (about 0.6 ms each, measured): 10^4 results take some 6 s.
MAX_RECURRENCE_RESULTS = 10_000


def check_results(k) -> int:
    """The number of results ``k >= 1``, refused up front when its arrays exceed the memory
    budget (:mod:`optmech.resources`)."""
    k = check_integer(k, "k", minimum=1)
    require_memory(k * _BYTES_PER_RESULT, "k", k)
    return k


def _check_k_eps(k, epsilon) -> tuple[int, float]:
    return check_results(k), check_epsilon(epsilon)


def closed_form_cost(k: int, epsilon: float) -> float:
    """``f(eps, k)`` for ``h(t) = t``: ``1/(eps b)`` if ``k = 2b-1``, else ``ln(1+1/b)/eps``
    (``k = 2b``)."""
    k, epsilon = _check_k_eps(k, epsilon)
    b = (k + 1) // 2
    if k % 2:
        return 1.0 / (epsilon * b)
    return math.log1p(1.0 / b) / epsilon


def _symmetric_offsets(anchored: np.ndarray, centre_gap: float | None) -> np.ndarray:
    """Odd k: ``{-p_b..., 0, ..., p_b}``; even k: ``+-(c + p_i)`` with ``c = centre_gap``."""
    if centre_gap is None:
        return np.concatenate([-anchored[:0:-1], anchored])
    right = centre_gap + anchored
    return np.concatenate([-right[::-1], right])


def closed_form_offsets(k: int, epsilon: float) -> np.ndarray:
    """Optimal offsets for ``h(t) = t`` (module docstring), sorted ascending."""
    k, epsilon = _check_k_eps(k, epsilon)
    b = (k + 1) // 2 if k % 2 else k // 2
    i = np.arange(b)
    anchored = 2.0 * np.log(b / (b - i))
    centre = None if k % 2 else math.log1p(1.0 / b)
    return _symmetric_offsets(anchored, centre) / epsilon


def _quad(f, a, b, scale) -> float:
    from scipy import integrate  # imported on use: the CLI starts fast

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        value, error = integrate.quad(f, a, b, epsabs=1e-15 * scale, epsrel=_QUAD_RTOL,
                                      limit=200)
    if not (math.isfinite(value) and error <= 1e-8 * max(scale, abs(value))):
        raise ArithmeticError(f"quadrature on [{a}, {b}] did not converge "
                              f"(value {value:.6g}, error estimate {error:.2g})")
    return value


class _UnitRecurrence:
    """The Appendix B recurrence for ``X ~ Exp(1)`` and a scaled disutility ``h1``."""

    def __init__(self, h1: Callable[[float], float]):
        self.h1 = h1
        self.d1 = _quad(lambda t: h1(t) * math.exp(-t), 0.0, math.inf, 1.0)
        self.scale = self.d1

    def half_gap(self, d: float) -> float:
        """The root ``y`` of ``G(y) = d``, computed as ``e^{-y} (G(y) - d) = 0`` with
        ``e^{-y} H_+(y) = int_0^y h(y - u) e^{-u} du`` (no overflow, no cancellation)."""
        h1, scale = self.h1, self.scale

        def stationarity(y):
            convolved = _quad(lambda u: h1(y - u) * math.exp(-u), 0.0, y, scale)
            return h1(y) - convolved - d * math.exp(-y)

        hi = 1.0
        while stationarity(hi) <= 0:
            hi *= 2.0
            if hi > 2.0 ** 12:
                raise ArithmeticError("no root of G(y) = D_b below 4096 (h too flat)")
        from scipy import optimize

        return optimize.brentq(stationarity, 0.0, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps,
                               maxiter=500)

    def next_cost(self, y: float) -> float:
        """``D_{b+1} = int_0^y h(t) e^{-t} dt + h(y) e^{-y}``."""
        return (_quad(lambda t: self.h1(t) * math.exp(-t), 0.0, y, self.scale)
                + self.h1(y) * math.exp(-y))

    def run(self, b: int, last_gap: bool) -> tuple[np.ndarray, np.ndarray]:
        """``D_1..D_b`` and half gaps ``y_1..y_{b-1}`` (``..y_b`` when ``last_gap``)."""
        costs, gaps = [self.d1], []
        for m in range(1, b + 1):
            if m == b and not last_gap:
                break
            gaps.append(self.half_gap(costs[-1]))
            if m < b:
                costs.append(self.next_cost(gaps[-1]))
        return np.array(costs), np.array(gaps)


def optimal_response(k: int, epsilon: float, h=None) -> ServerResponse:
    """Optimal offsets and cost ``f_h(epsilon, k)`` under Laplace noise (module docstring).

    ``h`` is None/"identity" (closed form), another name in :data:`DISUTILITIES`, or any
    increasing Python function with ``h(0) = 0`` (the recurrence with a monotone 1-D root
    at each step; about 0.6 ms per result, at most :data:`MAX_RECURRENCE_RESULTS`).
    """
    k, epsilon = _check_k_eps(k, epsilon)
    disutility = resolve_disutility(h, epsilon)
    if disutility.is_identity:
        return ServerResponse(k, epsilon, closed_form_offsets(k, epsilon),
                              closed_form_cost(k, epsilon), "identity", "closed form")
    if k > MAX_RECURRENCE_RESULTS:
        raise InvalidArgumentError("k", k, f"at most {MAX_RECURRENCE_RESULTS} for a disutility "
                                           "other than the identity (the recurrence takes one "
                                           "root-finding step per pair of offsets)")
    # the recurrence at unit scale: h(t / eps) = factor * unit(t) (module docstring)
    unit, factor = disutility.at_unit_scale(epsilon)

    def h1(t: float) -> float:
        return float(unit(np.array([t]))[0])

    odd = bool(k % 2)
    b = (k + 1) // 2 if odd else k // 2
    costs, gaps = _UnitRecurrence(h1).run(b, last_gap=not odd)
    # anchored b points: gaps 2 y_{b-1}, 2 y_{b-2}, ..., 2 y_1 outwards from the anchor
    anchored = np.concatenate([[0.0], np.cumsum(2.0 * gaps[:b - 1][::-1])])
    if odd:
        offsets, cost = _symmetric_offsets(anchored, None), costs[b - 1]
    else:
        offsets, cost = _symmetric_offsets(anchored, gaps[b - 1]), h1(gaps[b - 1])
    return ServerResponse(k, epsilon, offsets / epsilon, float(factor * cost),
                          disutility.name, "recurrence")
