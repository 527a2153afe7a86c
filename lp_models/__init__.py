"""LP builders and the one solver layer (HiGHS through highspy).

Builders return a plain :class:`~lp_models.program.LinearProgram`; :func:`~lp_models.program.solve`
turns it into a :class:`~lp_models.program.Solution`.  This package imports neither
``optmech`` nor ``proofs``.
"""

from lp_models.program import (
    InvalidModelError,
    LinearProgram,
    Solution,
    SolverError,
    dual_objective,
    solve,
    to_cvxpy,
)

__all__ = ["InvalidModelError", "LinearProgram", "Solution", "SolverError",
           "dual_objective", "solve", "to_cvxpy"]
