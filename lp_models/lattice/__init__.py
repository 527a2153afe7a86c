"""The LP of the optimal regular mechanism on the bounded lattice (permute-and-flip paper:
R. McKenna and D. Sheldon, *Permute-and-Flip: A new mechanism for differentially private
selection*, NeurIPS 2020, arXiv:2010.12603, Section 5 and Appendix D), and the methods that
solve it, bound it and certify it.

The path, module by module:

=================================  ===========================================================
module                             its one concern
=================================  ===========================================================
:mod:`~.classes`                   the symmetry classes ``m = (m_0, ..., m_k)`` of score
                                   vectors and the maps between them (one lattice step up)
:mod:`~.model`                     the LP itself: reduced (one variable per class and occupied
                                   level), full and relaxed forms, weightings, constraint sets
                                   and the 2Δ- and Δ-lattices
:mod:`~.labels`                    row and column labels, rendered on demand
:mod:`~.objectives`                the worst-case and weighted objectives
:mod:`~.recurrences`               what needs no solver: PF's probabilities on the classes and
                                   the chain dual, in closed recurrences
:mod:`~.certificates`              certified bounds: a lower bound from any dual multipliers
                                   (the Lagrangian, checked in double), an upper bound from a
                                   feasible primal point
:mod:`~.dual_repair`               multipliers made exactly feasible for the certificate
:mod:`~.bracket`                   the certified bracket ``[L, U]`` on the optimum by PDHG
                                   (:mod:`lp_models.pdhg`) with polishing and certificates
=================================  ===========================================================

A builder returns a :class:`~lp_models.program.LinearProgram`; :func:`~lp_models.program.solve`
solves it with HiGHS.  Where that is too slow, :mod:`~.bracket` brackets the optimum, and
every bound it reports is certified by :mod:`~.certificates`.
"""

from lp_models._lazy import lazy_exports as _lazy_exports

__all__, __getattr__, __dir__ = _lazy_exports(__name__, {
    "lp_models.lattice.model": (
        "CONSTRAINTS", "LATTICES", "WEIGHTINGS", "class_weights", "delta_lattice_lp",
        "full_lattice_lp", "level_error", "monotonicity_pair_blocks", "monotonicity_pairs",
        "pair_rows", "privacy_pairs", "reduced_lattice_lp", "relaxed_lattice_lp",
        "scaled_coefficients", "variable_costs",
    ),
})
