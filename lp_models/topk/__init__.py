"""The LP of the optimal top-k mechanism on the bounded 2Δ-lattice: the permute-and-flip
paper's optimal-regular-mechanism LP (R. McKenna and D. Sheldon, *Permute-and-Flip: A new
mechanism for differentially private selection*, NeurIPS 2020, arXiv:2010.12603, Section 5
and Appendix D) for mechanisms that return ``T`` items, as the top-k papers do (D. Durfee
and R. Rogers, arXiv:1905.04273; J. Gillenwater, M. Joseph, A. Muñoz Medina and M. Ribero,
arXiv:2201.12333; M. Shekelyan and G. Loukides, arXiv:2201.13376).  For ``T = 1`` its
optimum is that of :mod:`lp_models.lattice`.

The path, module by module:

=================================  ===========================================================
module                             its one concern
=================================  ===========================================================
:mod:`~.orbits`                    the variables: one per (class of score vectors, orbit of
                                   outputs), their sizes, errors and scales, counted in
                                   closed form
:mod:`~.model`                     the LP: neighbour pairs, monotonicity rows, the builder
:mod:`~.labels`                    row and column labels, rendered on demand
=================================  ===========================================================

A builder returns a :class:`~lp_models.program.LinearProgram`; :func:`~lp_models.program.solve`
solves it with HiGHS, and :mod:`optmech.topk.optimum` certifies the optimum.
"""

from lp_models._lazy import lazy_exports as _lazy_exports

__all__, __getattr__, __dir__ = _lazy_exports(__name__, {
    "lp_models.topk.model": ("CONSTRAINTS", "monotonicity_rows", "neighbour_pairs",
                             "prefix_marginals", "privacy_row_bound", "topk_lp"),
    "lp_models.topk.orbits": ("ERRORS", "TopKOrbits", "orbit_count", "orbit_count_exceeds",
                              "topk_orbits"),
})
