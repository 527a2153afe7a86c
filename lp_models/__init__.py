"""LP builders and the one solver layer (HiGHS through highspy).

Builders return a plain :class:`~lp_models.program.LinearProgram` (rows and columns labelled,
objective in documented units); :func:`~lp_models.program.solve` turns it into a
:class:`~lp_models.program.Solution`, :meth:`~lp_models.program.LinearProgram.write` and
:func:`~lp_models.program.read_lp` move it through MPS files.  The user guide is
``docs/guide/lp_models.md``.  This package imports neither ``optmech`` nor ``proofs``.
"""

from lp_models.labels import LabelBlock
from lp_models.program import (
    HighsModel,
    InvalidModelError,
    LinearProgram,
    Solution,
    SolverError,
    dual_objective,
    read_lp,
    solve,
    to_cvxpy,
    write_lp,
)

__all__ = ["HighsModel", "InvalidModelError", "LabelBlock", "LinearProgram", "Solution",
           "SolverError", "dual_objective", "read_lp", "solve", "to_cvxpy", "write_lp"]
