"""Restarted primal–dual hybrid gradient (PDHG) for a :class:`~lp_models.program.LinearProgram`
whose columns are boxed: a first-order method that needs no solver and no factorisation.

The scheme is PDLP's (D. Applegate, M. Díaz, O. Hinder, H. Lu, M. Lubin, B. O'Donoghue,
W. Schudy, *Practical Large-Scale Linear Programming using Primal-Dual Hybrid Gradient*,
NeurIPS 2021, arXiv:2106.04756), for

    minimise  c @ x   subject to   A_eq @ x = b_eq,   A_ge @ x >= b_ge,   lo <= x <= hi

(every row an equality or a ``>=`` row; every column bound finite), as the saddle point of
``c @ x - y @ (A x - b)`` over the box and ``y`` with ``y_ge >= 0``.  One step is

    x+ = clip(x - tau (c - A.T y), lo, hi),     y+ = proj(y + sigma (b - A (2 x+ - x))),

``tau = eta / omega``, ``sigma = eta * omega``, on the problem rescaled by diagonal matrices
(four Ruiz equilibration passes in the max norm, then one Pock–Chambolle pass, alpha = 1).
The step ``eta`` adapts (accepted when ``eta <= ||dz||_omega^2 / (2 |dy @ A dx|)``); every
64 steps the KKT error ``sqrt(omega^2 |primal residual|^2 + gap^2)`` of the current and the
step-weighted average iterate are compared and the better one becomes a restart point when
the error fell by a factor 0.2, or by 0.8 and stopped falling, or when the last restart is
more than 36 % of all steps back; the primal weight ``omega`` moves to the geometric mean of
itself and ``|dy| / |dx|`` at each restart.  Because every column is boxed, the Lagrangian
``min_{lo <= x <= hi} (c - A.T y) @ x + b @ y`` is finite for every ``y``: the gap in the KKT
error uses it, and nothing else needs a dual residual.

The rescaled problem may be stored in single precision (``ScaledProblem.from_lp(lp,
numpy.float32)``; the iterates then are too): half the memory traffic per step, at the price
of iterates that stop improving at a relative accuracy of about 1e-6.

Nothing here is certified: PDHG's iterates satisfy the rows only in the limit.  Callers turn
them into bounds with their own certificates (for the lattice LP:
:mod:`lp_models.lattice.certificates`).  Cost per step: two sparse products with ``A`` (held
in CSR form, read as CSC for the transpose) and about 20 vector operations; memory about
three copies of ``A`` and 15 vectors of the size of ``x`` or ``y``.  Rows with two entries
(the lattice LP's privacy and monotonicity rows) stay in the CSR matrix: products from
their index arrays by numpy's gathers and scatters took 24 ms against 11 ms for scipy's
kernels (n = k = 10 of the lattice LP, its 3.1 million monotonicity rows, single precision).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from lp_models.program import InvalidModelError, LinearProgram

try:    # scipy's kernels out += A x (CSR) and out += A.T y (the CSR arrays read as CSC)
    from scipy.sparse._sparsetools import csc_matvec as _csc_matvec
    from scipy.sparse._sparsetools import csr_matvec as _csr_matvec
except ImportError:  # pragma: no cover - a scipy without the private kernel module
    def _csr_matvec(rows, cols, indptr, indices, data, vector, out):
        out += sp.csr_matrix((data, indices, indptr), shape=(rows, cols)) @ vector

    def _csc_matvec(rows, cols, indptr, indices, data, vector, out):
        out += sp.csc_matrix((data, indices, indptr), shape=(rows, cols)) @ vector

__all__ = ["RestartedPDHG", "ScaledProblem"]

_RUIZ_PASSES = 4
_RESTART_CHECK = 64
_SUFFICIENT, _NECESSARY, _ARTIFICIAL = 0.2, 0.8, 0.36


def _row_types(lp: LinearProgram) -> np.ndarray:
    """Boolean mask of the equality rows; raises unless every other row is ``>=``."""
    equality = lp.row_lower == lp.row_upper
    greater = np.isfinite(lp.row_lower) & np.isposinf(lp.row_upper)
    if not (equality | greater).all():
        raise InvalidModelError("PDHG needs every row to be an equality or a >= row")
    if not (np.isfinite(lp.col_lower).all() and np.isfinite(lp.col_upper).all()):
        raise InvalidModelError("PDHG needs a finite lower and upper bound on every column")
    return equality


def _equilibrate(matrix: sp.csr_matrix) -> tuple[sp.csr_matrix, np.ndarray, np.ndarray]:
    """``(D_r A D_c, D_r, D_c)``: Ruiz passes (max norm) then one Pock–Chambolle pass."""
    a = matrix.tocsr(copy=True)
    negative = a.data < 0
    a.data = np.abs(a.data)
    row_scale = np.ones(a.shape[0])
    col_scale = np.ones(a.shape[1])
    index = np.int32 if a.shape[0] < 2 ** 31 else np.int64
    row_of = np.repeat(np.arange(a.shape[0], dtype=index), np.diff(a.indptr))

    def rescale(r, c):
        a.data *= r[row_of] * c[a.indices]
        row_scale[:] *= r
        col_scale[:] *= c

    def inverse_sqrt(v):
        return 1.0 / np.sqrt(np.where(v > 0, v, 1.0))

    for _ in range(_RUIZ_PASSES):
        row_max = np.zeros(a.shape[0])
        np.maximum.at(row_max, row_of, a.data)
        col_max = np.zeros(a.shape[1])
        np.maximum.at(col_max, a.indices, a.data)
        rescale(inverse_sqrt(row_max), inverse_sqrt(col_max))
    row_sum = np.bincount(row_of, weights=a.data, minlength=a.shape[0])
    col_sum = np.bincount(a.indices, weights=a.data, minlength=a.shape[1])
    rescale(inverse_sqrt(row_sum), inverse_sqrt(col_sum))
    np.negative(a.data, out=a.data, where=negative)      # |D_r A D_c| -> D_r A D_c
    return a, row_scale, col_scale


@dataclass(frozen=True, eq=False)
class ScaledProblem:
    """The rescaled LP that PDHG iterates on: ``a = D_r A D_c`` (CSR; products with its
    transpose read the same arrays as CSC, so no second copy is held), ``b = D_r
    row_lower``, ``c = D_c cost``, ``lo, hi = col bounds / D_c``, the equality-row mask,
    and ``row_scale = D_r``, ``col_scale = D_c`` (a point ``x_hat`` of the scaled problem
    is ``D_c x_hat`` in the LP's units, a multiplier ``y_hat`` is ``D_r y_hat``).  ``a``,
    ``b``, ``c``, ``lo`` and ``hi`` share one floating-point type, the iterates' (the scales
    are always double)."""

    #: The rescaled constraint matrix ``D_r A D_c`` (CSR, the LP's rows by its columns).
    a: sp.csr_matrix
    #: Rescaled right-hand sides ``D_r row_lower`` (an equality row's value, a ``>=`` row's lower
    #: bound).
    b: np.ndarray
    #: Rescaled cost ``D_c cost``.
    c: np.ndarray
    #: Rescaled column lower bounds ``col_lower / D_c`` (finite).
    lo: np.ndarray
    #: Rescaled column upper bounds ``col_upper / D_c`` (finite).
    hi: np.ndarray
    #: Boolean mask of the equality rows; every other row is a ``>=`` row.
    equality: np.ndarray
    #: ``D_r``, one positive factor per row: a multiplier ``y_hat`` of the scaled problem is
    #: ``D_r y_hat`` in the LP's units.
    row_scale: np.ndarray
    #: ``D_c``, one positive factor per column: a point ``x_hat`` of the scaled problem is
    #: ``D_c x_hat`` in the LP's units.
    col_scale: np.ndarray

    @classmethod
    def from_lp(cls, lp: LinearProgram, dtype: type = np.float64) -> ScaledProblem:
        """The rescaled ``lp``, its matrix, right-hand sides, cost and bounds stored as
        ``dtype`` (the scales stay double)."""
        if lp.sense != "min":
            raise InvalidModelError("PDHG is implemented for minimisation only")
        equality = _row_types(lp)
        a, row_scale, col_scale = _equilibrate(lp.matrix)
        a.data = a.data.astype(dtype, copy=False)
        return cls(a=a, b=(lp.row_lower * row_scale).astype(dtype, copy=False),
                   c=(lp.cost * col_scale).astype(dtype, copy=False),
                   lo=(lp.col_lower / col_scale).astype(dtype, copy=False),
                   hi=(lp.col_upper / col_scale).astype(dtype, copy=False),
                   equality=equality, row_scale=row_scale, col_scale=col_scale)

    def without_cost(self) -> ScaledProblem:
        """The same rows and bounds with cost 0 (a feasibility problem)."""
        return dataclasses.replace(self, c=np.zeros_like(self.c))


class RestartedPDHG:
    """PDHG on one LP (see the module docstring), advanced in chunks.

    ``RestartedPDHG(lp, x0, y0)`` rescales ``lp`` (a :class:`LinearProgram`, or a
    :class:`ScaledProblem` already rescaled, whose floating-point type the iterates take) and
    starts from ``(x0, y0)`` (the LP's units; zeros by default).  :meth:`iterate` runs more
    steps; :attr:`x` and :attr:`y` are the current iterate in the LP's units, in double
    precision (``y`` in :func:`lp_models.program.dual_objective`'s convention: ``>= 0`` on
    ``>=`` rows for a minimisation).  ``iterations`` counts every
    step tried (two products with ``A`` each), ``restarts`` the restarts.
    """

    def __init__(self, lp: LinearProgram | ScaledProblem, x0: np.ndarray | None = None,
                 y0: np.ndarray | None = None):
        problem = lp if isinstance(lp, ScaledProblem) else ScaledProblem.from_lp(lp)
        self.problem = problem
        self.a, self.b, self.c = problem.a, problem.b, problem.c
        self.lo, self.hi = problem.lo, problem.hi
        self.equality, self.inequality = problem.equality, ~problem.equality
        self.row_scale, self.col_scale = problem.row_scale, problem.col_scale
        num_rows, num_cols = self.a.shape
        dtype = self.a.dtype
        first = int(np.argmax(self.inequality)) if self.inequality.any() else num_rows
        # the >= rows as one slice when they are the last rows (a faster projection), the
        # rows with a nonzero right-hand side as the shortest leading slice holding them all
        self._tail = first if not self.equality[first:].any() else None
        self._rhs = slice(0, int(np.flatnonzero(self.b)[-1]) + 1 if self.b.any() else 0)
        self._zero_lower = not self.lo.any()
        x = np.zeros(num_cols) if x0 is None else np.asarray(x0, float) / self.col_scale
        y = np.zeros(num_rows) if y0 is None else np.asarray(y0, float) / self.row_scale
        self._x = np.clip(x, self.lo, self.hi).astype(dtype)
        self._y = self._project(y.astype(dtype))
        self._ax = self.a @ self._x
        self._aty = self.a.T @ self._y
        self._x_new, self._work_x = np.empty(num_cols, dtype), np.empty(num_cols, dtype)
        self._sum_x, self._anchor_x = np.empty(num_cols, dtype), np.empty(num_cols, dtype)
        self._y_new, self._work_y = np.empty(num_rows, dtype), np.empty(num_rows, dtype)
        self._work_y2, self._ax_new = np.empty(num_rows, dtype), np.empty(num_rows, dtype)
        self._sum_y, self._anchor_y = np.empty(num_rows, dtype), np.empty(num_rows, dtype)
        self._aty_new = np.empty(num_cols, dtype)
        self.eta = 1.0 / max(float(np.abs(self.a.data).max(initial=0.0)), 1e-300)
        c_norm, b_norm = np.linalg.norm(self.c), np.linalg.norm(self.b)
        self.omega = c_norm / b_norm if c_norm > 0 and b_norm > 0 else 1.0
        self.iterations = 0
        self.restarts = 0
        self._start_restart_epoch(self._kkt(self._x, self._y, self._ax, self._aty))

    # ------------------------------------------------------------------ public state
    @property
    def x(self) -> np.ndarray:
        """Current primal iterate in the LP's units."""
        return self._x * self.col_scale

    @property
    def y(self) -> np.ndarray:
        """Current row multipliers in the LP's units."""
        return self._y * self.row_scale

    def iterate(self, steps: int) -> None:
        """Run ``steps`` more accepted steps (restart checks every 64 steps)."""
        for _ in range(int(steps)):
            self._step()
            if self._epoch_steps % _RESTART_CHECK == 0:
                self._maybe_restart()

    # ------------------------------------------------------------------ internals
    def _clip(self, x: np.ndarray) -> None:
        """Clip into the box (in place)."""
        if self._zero_lower:
            np.maximum(x, 0.0, out=x)
            np.minimum(x, self.hi, out=x)
        else:
            np.clip(x, self.lo, self.hi, out=x)

    def _project(self, y: np.ndarray) -> np.ndarray:
        """Clip the multipliers of ``>=`` rows at 0 (in place)."""
        if self._tail is not None:
            np.maximum(y[self._tail:], 0.0, out=y[self._tail:])
        else:
            np.maximum(y, 0.0, out=y, where=self.inequality)
        return y

    def _kkt(self, x, y, ax, aty) -> float:
        """``sqrt(omega^2 |primal residual|^2 + gap^2)`` in the scaled problem."""
        residual = self.b - ax
        np.maximum(residual, 0.0, out=residual, where=self.inequality)
        reduced = self.c - aty
        dual = _dot(self.b, y) + float(np.where(reduced > 0, reduced * self.lo,
                                                reduced * self.hi).sum())
        gap = _dot(self.c, x) - dual
        return math.sqrt(self.omega ** 2 * _dot(residual, residual) + gap * gap)

    def _start_restart_epoch(self, kkt: float) -> None:
        self._anchor_x[:] = self._x
        self._anchor_y[:] = self._y
        self._sum_x.fill(0.0)
        self._sum_y.fill(0.0)
        self._weight = 0.0
        self._epoch_steps = 0
        self._kkt_restart = kkt
        self._kkt_previous = math.inf

    def _step(self) -> None:
        """One accepted adaptive step (retries with a smaller ``eta`` when rejected).  Every
        vector lives in a buffer allocated once: at n = k = 12 of the lattice LP a fresh
        temporary of 10^7 doubles costs more in page faults than the arithmetic."""
        x, y, ax, aty = self._x, self._y, self._ax, self._aty
        x_new, y_new, ax_new, aty_new = self._x_new, self._y_new, self._ax_new, self._aty_new
        wx, wy, wy2 = self._work_x, self._work_y, self._work_y2
        while True:
            tau, sigma = self.eta / self.omega, self.eta * self.omega
            np.subtract(aty, self.c, out=wx)                 # x+ = clip(x - tau (c - A'y))
            wx *= tau
            np.add(x, wx, out=x_new)
            self._clip(x_new)
            _product(self.a, x_new, ax_new)
            np.subtract(ax, ax_new, out=wy)                  # y+ = proj(y + sigma (b - A(2x+ - x)))
            wy -= ax_new
            wy[self._rhs] += self.b[self._rhs]
            wy *= sigma
            np.add(y, wy, out=y_new)
            self._project(y_new)
            _transposed_product(self.a, y_new, aty_new)
            np.subtract(x_new, x, out=wx)
            np.subtract(y_new, y, out=wy)
            np.subtract(ax_new, ax, out=wy2)
            interaction = abs(_dot(wy, wy2))
            movement = 0.5 * (self.omega * _dot(wx, wx) + _dot(wy, wy) / self.omega)
            limit = movement / interaction if interaction > 0 else math.inf
            count = self.iterations + 1
            next_eta = min((1 - (count + 1) ** -0.3) * limit,
                           (1 + (count + 1) ** -0.6) * self.eta)
            if movement == 0:       # a fixed point (single precision reaches one): keep eta,
                next_eta = self.eta     # which would otherwise grow without bound
            accepted = self.eta <= limit
            step = self.eta
            self.eta = next_eta
            self.iterations = count
            if accepted:
                break
        self._x, self._x_new = x_new, x
        self._y, self._y_new = y_new, y
        self._ax, self._ax_new = ax_new, ax
        self._aty, self._aty_new = aty_new, aty
        np.multiply(x_new, step, out=wx)
        self._sum_x += wx
        np.multiply(y_new, step, out=wy)
        self._sum_y += wy
        self._weight += step
        self._epoch_steps += 1

    def _maybe_restart(self) -> None:
        average_x = self._sum_x / self._weight
        average_y = self._sum_y / self._weight
        average_ax, average_aty = self.a @ average_x, self.a.T @ average_y
        kkt_current = self._kkt(self._x, self._y, self._ax, self._aty)
        kkt_average = self._kkt(average_x, average_y, average_ax, average_aty)
        if kkt_average < kkt_current:
            candidate = (average_x, average_y, average_ax, average_aty, kkt_average)
        else:
            candidate = (self._x, self._y, self._ax, self._aty, kkt_current)
        kkt = candidate[-1]
        restart = (kkt <= _SUFFICIENT * self._kkt_restart
                   or (kkt <= _NECESSARY * self._kkt_restart and kkt > self._kkt_previous)
                   or self._epoch_steps >= _ARTIFICIAL * self.iterations)
        self._kkt_previous = kkt
        if not restart:
            return
        move_x = math.sqrt(_squared_distance(candidate[0], self._anchor_x, self._work_x))
        move_y = math.sqrt(_squared_distance(candidate[1], self._anchor_y, self._work_y))
        if move_x > 1e-10 and move_y > 1e-10:
            self.omega = math.exp(0.5 * math.log(move_y / move_x) + 0.5 * math.log(self.omega))
        if candidate[0] is not self._x:
            self._x[:], self._y[:], self._ax[:], self._aty[:] = candidate[:4]
        self.restarts += 1
        self._start_restart_epoch(kkt)


def _dot(u: np.ndarray, v: np.ndarray) -> float:
    """``u @ v`` without BLAS: OpenBLAS's threaded dot product took 6 ms instead of 20 us
    for 8e4 entries on a loaded 2-core machine (thread hand-offs)."""
    return float(np.einsum("i,i->", u, v))


def _squared_distance(u: np.ndarray, v: np.ndarray, work: np.ndarray) -> float:
    np.subtract(u, v, out=work)
    return _dot(work, work)


def _product(matrix: sp.csr_matrix, vector: np.ndarray, out: np.ndarray) -> None:
    """``out[:] = matrix @ vector`` into an existing buffer (scipy's own CSR kernel)."""
    out.fill(0.0)
    _csr_matvec(matrix.shape[0], matrix.shape[1], matrix.indptr, matrix.indices,
                matrix.data, vector, out)


def _transposed_product(matrix: sp.csr_matrix, vector: np.ndarray, out: np.ndarray) -> None:
    """``out[:] = matrix.T @ vector`` into an existing buffer: the CSR arrays of ``matrix``
    are the CSC arrays of its transpose (measured 2.5 ms against 2.4 ms for a transposed CSR
    copy at 2e6 nonzeros, which would double the memory)."""
    out.fill(0.0)
    _csc_matvec(matrix.shape[1], matrix.shape[0], matrix.indptr, matrix.indices,
                matrix.data, vector, out)
