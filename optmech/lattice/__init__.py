"""The optimal regular mechanism on the bounded 2Δ-lattice, and optimality ratios.

Permute-and-flip paper — R. McKenna and D. Sheldon, *Permute-and-Flip: A new mechanism for
differentially private selection*, NeurIPS 2020, arXiv:2010.12603 — Section 5 (Theorem 3,
Figure 2) and Appendix D.  The LP itself is built in :mod:`lp_models.lattice`.

* :mod:`~.optimum`: :func:`solve_lattice`, the certified optimum (exactly feasible primal
  checked with numpy, dual bound recomputed, gap reported);
* :mod:`~.solve_loop`: the HiGHS rounds behind it (held rows, row generation);
* :mod:`~.bound`: :func:`bound_lattice`, a certified bracket on the optimum at sizes the
  exact solve cannot reach (restarted PDHG, no LP solver), and ratio brackets from it;
* :mod:`~.ratios`: exact optimality ratios of PF, EM, report-noisy-max or any mechanism
  with a ``pmf``, and the sweeps behind Figure 2;
* :mod:`~.inputs`: argument checks shared by both.

Beyond the paper (its Section 8, question 3): :mod:`~.objectives` (the minimax and weighted
objectives and the Δ-lattice, solved by HiGHS for :func:`solve_lattice`),
:mod:`~.aggregate_ratios` (ratios of PF, EM, report-noisy-max for those objectives) and
:mod:`~.delta` (the step that shows PF is never optimal on the Δ-lattice).
"""

from optmech._lazy import lazy_exports as _lazy_exports

__all__, __getattr__, __dir__ = _lazy_exports(__name__, {
    "optmech.lattice.aggregate_ratios": ("mechanism_class_errors", "objective_ratios"),
    "optmech.lattice.bound": (
        "LatticeBracket", "RatioBands", "bound_lattice", "bound_sweep", "bracket_ratios",
    ),
    "optmech.lattice.delta": ("ImprovingStep", "pf_improving_step"),
    "optmech.lattice.objectives": ("OBJECTIVES", "objective_weights"),
    "optmech.lattice.optimum": (
        "GAP_TOLERANCE", "METHODS", "LatticeOptimum", "LatticeSolutionMechanism",
        "lattice_lp_size", "realised_privacy_loss", "solve_lattice",
    ),
    "optmech.lattice.ratios": (
        "RATIO_MECHANISMS", "RatioCurve", "class_errors", "optimality_ratio", "optimality_ratios",
        "ratio_cell", "ratio_sweep", "total_error",
    ),
})
