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
"""

from optmech.lattice.bound import (
    LatticeBracket,
    RatioBands,
    bound_lattice,
    bound_sweep,
    bracket_ratios,
)
from optmech.lattice.optimum import (
    GAP_TOLERANCE,
    METHODS,
    LatticeOptimum,
    LatticeSolutionMechanism,
    lattice_lp_size,
    realised_privacy_loss,
    solve_lattice,
)
from optmech.lattice.ratios import (
    RATIO_MECHANISMS,
    RatioCurve,
    class_errors,
    optimality_ratio,
    optimality_ratios,
    ratio_cell,
    ratio_sweep,
    total_error,
)

__all__ = [
    "GAP_TOLERANCE",
    "LatticeBracket",
    "LatticeOptimum",
    "LatticeSolutionMechanism",
    "METHODS",
    "RATIO_MECHANISMS",
    "RatioBands",
    "RatioCurve",
    "bound_lattice",
    "bound_sweep",
    "bracket_ratios",
    "class_errors",
    "lattice_lp_size",
    "optimality_ratio",
    "optimality_ratios",
    "ratio_cell",
    "ratio_sweep",
    "realised_privacy_loss",
    "solve_lattice",
    "total_error",
]
