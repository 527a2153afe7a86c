"""Exact privacy curves of selection mechanisms, the worst pair, and a referee for the
accountants' claims.

Papers: Kairouz, Oh and Viswanath, *The composition theorem for differential privacy*,
arXiv:1311.0776; Bun and Steinke, *Concentrated differential privacy*, arXiv:1605.02065;
Durfee and Rogers, *Practical differentially private top-k selection with pay-what-you-get
composition*, arXiv:1905.04273; Dong, Durfee and Rogers, *Optimal differential privacy
composition for exponential mechanisms*, arXiv:1909.13830; Cesar and Rogers, *Bounding,
concentrating, and truncating*, arXiv:2004.07223; the mechanisms are those of McKenna and
Sheldon, *Permute-and-flip*, arXiv:2010.12603 (:mod:`optmech.selection`).

The path: a mechanism and a pair of neighbouring score vectors give two output
distributions; their log-ratios are the pair's privacy loss distribution; every curve is a
function of it; the worst pair over neighbours is searched; a theorem's bound stands beside
it; composition and the accountants take it from there.

=================================  ==========================================================
module                             what it implements
=================================  ==========================================================
:mod:`~.loss`                      the pair's privacy loss distribution from the mechanism's
                                   log-pmf (neighbours checked, both directions)
:mod:`~.divergences`               hockey-stick ``delta(eps')``, Rényi ``D_alpha``, max loss,
                                   zCDP ``rho`` with a certified bound, stable in logs
:mod:`~.curves`                    every curve of one pair (:class:`PairCurves`)
:mod:`~.bounds`                    proven upper curves: pure ε-DP (randomised response),
                                   ε-bounded range (exponential mechanism)
:mod:`~.worst`                     the worst pair: exhaustive grid, then multi-start local
                                   search (a certified lower bound)
:mod:`~.composition`               exact ``k``-fold composition of a pair (count vectors)
:mod:`~.accounting`                export to ``dp_accounting``'s PLD (optional extra)
:mod:`~.accountants`               what the accountants compute, re-derived from their source
:mod:`~.high_precision`            the second computation: pmfs and divergences at 50 digits
:mod:`~.claims`                    the registry of claims and the referee's verdicts
:mod:`~.report`                    ``docs/accountants.md`` from the referee's results
=================================  ==========================================================
"""

from optmech._lazy import lazy_exports as _lazy_exports

__all__, __getattr__, __dir__ = _lazy_exports(__name__, {
    "optmech.privacy.accounting": ("to_dp_accounting",),
    "optmech.privacy.bounds": (
        "ProvenBound", "bounded_range_delta", "proven_bound", "randomised_response_delta",
    ),
    "optmech.privacy.claims": ("Claim", "ClaimResult", "Counterexample", "claims", "referee"),
    "optmech.privacy.composition": ("compose", "product"),
    "optmech.privacy.curves": ("PairCurves", "pair_curves"),
    "optmech.privacy.divergences": (
        "hockey_stick", "kl_divergence", "max_loss", "renyi", "zcdp_rho", "zcdp_rho_bound",
    ),
    "optmech.privacy.loss": ("LossDistribution", "loss_distribution"),
    "optmech.privacy.worst": ("WorstPair", "worst_pair"),
})
