"""LP builders and the one solver layer (HiGHS through highspy).

Builders return a plain :class:`~lp_models.program.LinearProgram` (rows and columns labelled,
objective in documented units); :func:`~lp_models.program.solve` turns it into a
:class:`~lp_models.program.Solution`, :meth:`~lp_models.program.LinearProgram.write` and
:func:`~lp_models.program.read_lp` move it through MPS files.  The user guide is
``docs/guide/lp_models.md``.  Every file optmech writes (an MPS file here, a CSV table of
:mod:`lp_models.display`, a figure, a report, a cache entry) goes through
:mod:`lp_models.atomic`: whole or not at all, never through a symbolic link.  This package
imports neither ``optmech`` nor ``proofs``.
"""

from lp_models._lazy import lazy_exports as _lazy_exports

# Imported on first use: importing lp_models (e.g. for lp_models.display) loads neither
# scipy nor highspy.
__all__, __getattr__, __dir__ = _lazy_exports(__name__, {
    "lp_models.labels": ("LabelBlock",),
    "lp_models.program": ("HighsModel", "InvalidModelError", "LinearProgram", "Solution",
                          "SolverError", "dual_objective", "read_lp", "solve", "to_cvxpy",
                          "write_lp"),
})
