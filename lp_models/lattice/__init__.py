"""The LP of the optimal regular mechanism on the bounded lattice (permute-and-flip paper:
R. McKenna and D. Sheldon, *Permute-and-Flip: A new mechanism for differentially private
selection*, NeurIPS 2020, arXiv:2010.12603, Section 5 and Appendix D), and the methods that
solve it, bound it and certify it.

The whole path, from the lattice to a certified number::

    classes ──> model (the LP) ──┬─> PF's basis: recurrences ──────────────> certificates
                                 │     (above the chain-dual threshold: no solve at all)
                                 ├─> HiGHS simplex (optmech.lattice.solve_loop) ─> certificates
                                 └─> bracket: PDHG (lp_models.pdhg) ────────────> certificates
                                        │   L from any multipliers (dual_repair),
                                        │   U from a point checked against every row
                                        └─> exact finish: basis (forest of tight rows)
                                              ─> HiGHS simplex + row generation ─> certificates

=================================  ===========================================================
module                             its one concern
=================================  ===========================================================
:mod:`~.classes`                   the symmetry classes ``m = (m_0, ..., m_k)`` of score
                                   vectors and the maps between them (one lattice step up)
:mod:`~.model`                     the LP itself: reduced (one variable per class and occupied
                                   level), full and relaxed forms, weightings, constraint sets
                                   and the 2Δ- and Δ-lattices; the monotonicity rows generated
                                   block by block
:mod:`~.labels`                    row and column labels, rendered on demand
:mod:`~.objectives`                the worst-case and weighted objectives
:mod:`~.recurrences`               what needs no solver: PF's probabilities on the classes and
                                   the chain dual, in closed recurrences
:mod:`~.certificates`              certified bounds: a lower bound from any row multipliers
                                   (the Lagrangian, rounded downwards), an upper bound from a
                                   point checked against every row (its value rounded upwards)
:mod:`~.dual_repair`               multipliers made dual feasible for the certificate
:mod:`~.bracket`                   the certified bracket ``[L, U]`` by restarted PDHG
                                   (:mod:`lp_models.pdhg`) with row generation and polishing
:mod:`~.basis`                     a simplex basis read off the bracket's PDHG point: the
                                   start of the exact finish
=================================  ===========================================================

A builder returns a :class:`~lp_models.program.LinearProgram`; :func:`~lp_models.program.solve`
and :class:`~lp_models.program.HighsModel` solve it with HiGHS.  Every number the path reports
is certified by :mod:`~.certificates`, whatever produced it: PF's basis, HiGHS, PDHG or the
exact finish (:func:`optmech.lattice.optimum.solve_lattice`,
:func:`optmech.lattice.bound.bound_lattice`).
"""

from lp_models._lazy import lazy_exports as _lazy_exports

__all__, __getattr__, __dir__ = _lazy_exports(__name__, {
    "lp_models.lattice.model": (
        "CONSTRAINTS", "LATTICES", "WEIGHTINGS", "class_weights", "delta_lattice_lp",
        "full_lattice_lp", "level_error", "monotonicity_pair_blocks", "monotonicity_pairs",
        "monotonicity_row_count",
        "pair_rows", "privacy_pairs", "reduced_lattice_lp", "relaxed_lattice_lp",
        "scaled_coefficients", "variable_costs",
    ),
})
