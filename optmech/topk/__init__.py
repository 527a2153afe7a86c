"""Private top-T selection: exact pmfs, samplers and errors of the field's mechanisms.

Peeling (T rounds of a selection mechanism at epsilon/T each) with the exponential
mechanism or permute-and-flip (R. McKenna and D. Sheldon, *Permute-and-Flip: A new
mechanism for differentially private selection*, NeurIPS 2020, arXiv:2010.12603), and its
one-shot Gumbel form (D. Durfee and R. Rogers, *Practical Differentially Private Top-k
Selection with Pay-what-you-get Composition*, NeurIPS 2019, arXiv:1905.04273); the joint
exponential mechanism (J. Gillenwater, M. Joseph, A. Muñoz Medina and M. Ribero Diaz, *A
Joint Exponential Mechanism for Differentially Private Top-k*, ICML 2022,
arXiv:2201.12333) and its permute-and-flip counterpart from their code; the canonical
Lipschitz mechanism (M. Shekelyan and G. Loukides, *Differentially Private Top-k Selection
via Canonical Lipschitz Mechanism*, arXiv:2201.13376).

The path of a computation: a score vector and a mechanism (its privacy calibrated for the
neighbouring relation asked for) give the exact probability of every output, enumerated,
or samples beyond enumeration; the error measures turn either into expected errors.  On the
bounded 2Δ-lattice of the permute-and-flip paper's optimal-mechanism LP, the LP for T
outputs (:mod:`lp_models.topk`) gives the certified optimal mechanism, and the exact
errors of a mechanism on every class of score vectors, summed over the lattice, give its
optimality ratio against it.

=================================  ==========================================================
module                             what it implements
=================================  ==========================================================
:mod:`~.enumeration`               the ordered T-tuples (and T-sets) enumerated in
                                   ``itertools`` order; the enumeration limit
:mod:`~.utilities`                 joint utility, canonical loss, the error measures l1,
                                   l_inf and k-relative of every output
:mod:`~.mechanisms`                the six mechanisms: ``pmf`` / ``logpmf`` /
                                   ``subset_pmf`` / ``expected_error`` / ``sample`` and the
                                   privacy guarantee of each
:mod:`~.samplers`                  vectorised exact samplers (peeling races, one-shot Gumbel,
                                   Gillenwater et al.'s joint classes, the canonical classes)
:mod:`~.estimates`                 Monte Carlo expected errors with a confidence interval
:mod:`~.privacy`                   realised privacy loss over every neighbour of a small
                                   integer grid
:mod:`~.optimum`                   the optimal top-T mechanism on the bounded 2Δ-lattice:
                                   the LP of :mod:`lp_models.topk` solved by HiGHS, refined,
                                   repaired and certified
:mod:`~.ratios`                    optimality ratios of the mechanisms against it, exact,
                                   from batch pmfs on the lattice's classes
=================================  ==========================================================
"""

from optmech._lazy import lazy_exports as _lazy_exports

__all__, __getattr__, __dir__ = _lazy_exports(__name__, {
    "optmech.topk.enumeration": ("MAX_OUTCOMES", "outcome_count", "outcomes"),
    "optmech.topk.utilities": ("MEASURES",),
    "optmech.topk.mechanisms": (
        "CanonicalLipschitz", "GumbelTopK", "JointEM", "JointPF", "PeelingEM", "PeelingPF",
        "TOPK_MECHANISMS", "TopKMechanism", "make_topk_mechanism",
    ),
    "optmech.topk.estimates": ("MonteCarloEstimate", "estimate_error"),
    "optmech.topk.optimum": ("TopKOptimum", "solve_topk", "topk_lp_size"),
    "optmech.topk.privacy": ("grid_privacy_loss",),
    "optmech.topk.ratios": ("TopKRatio", "TopKRatioCurve", "mechanism_point",
                            "topk_ratio_sweep", "topk_ratios"),
})
