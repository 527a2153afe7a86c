"""Exact privacy curves of selection mechanisms, the worst pair, and a referee for the
accountants' claims.

Papers: Kairouz, Oh and Viswanath, *The composition theorem for differential privacy*,
arXiv:1311.0776; Zhu, Dong and Wang, *Optimal accounting of differential privacy via
characteristic function*, arXiv:2106.08567; Ding, Kifer, Steinke et al., *The
permute-and-flip mechanism is identical to report-noisy-max with exponential noise*,
arXiv:2105.07260; Bun and Steinke, *Concentrated differential privacy*, arXiv:1605.02065;
Durfee and Rogers, *Practical differentially private top-k selection with pay-what-you-get
composition*, arXiv:1905.04273; Dong, Durfee and Rogers, *Optimal differential privacy
composition for exponential mechanisms*, arXiv:1909.13830; Cesar and Rogers, *Bounding,
concentrating, and truncating*, arXiv:2004.07223; the mechanisms are those of McKenna and
Sheldon, *Permute-and-flip*, arXiv:2010.12603 (:mod:`optmech.selection`).

The path: a mechanism and a pair of neighbouring score vectors give two output
distributions; their log-ratios are the pair's privacy loss distribution; every curve is a
function of it; the worst pair over neighbours is searched (a lower bound); a theorem's bound
stands beside it: the dominating pair each mechanism states beside its code (randomised
response, bounded range, the Laplace pair, proved here for permute-and-flip and
report-noisy-max); the accountant composes the dominating pairs of a sequence of steps into
one certified curve (an upper bound, adaptive composition) and explicit pairs into an
attained one, beside the published fallbacks; the referee checks other libraries' claims.
Repeat-and-select (Liu and Talwar, arXiv:1811.07971; Papernot and Steinke, arXiv:2110.03620)
wraps any mechanism or pair: its pair is again a pair of pmfs, so every curve above is exact
for it, with its proven bounds beside them.

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
:mod:`~.dominating`                what dominates one run of each mechanism, with the proofs
:mod:`~.loss_atoms`                exact discrete loss distributions: merge, compose
:mod:`~.composition`               exact ``k``-fold composition of a pair (its atoms)
:mod:`~.adaptive`                  the certified adaptive composition (dynamic programme)
:mod:`~.fallbacks`                 what published formulas give (RR, zCDP, RDP, naive)
:mod:`~.accountant`                the certified accountant: upper, lower, fallbacks, saving
:mod:`~.accounting`                exports: ``dp_accounting`` PLDs, an OpenDP privacy profile
:mod:`~.accountants`               what the accountants compute, re-derived from their source
:mod:`~.repeat`                    repeat-and-select: the exact law of the best of ``K`` runs
:mod:`~.repeat_bounds`             what is proven about it: the published bounds, a sharp one
:mod:`~.repeat_search`             the worst ε-DP base pair for it (a lower bound)
:mod:`~.noise_choice`              the noise choice measured: every selection mechanism at
                                   one proven ρ (or ε), exact expected errors side by side
:mod:`~.high_precision`            the second computation: pmfs and divergences at 50 digits
:mod:`~.claims`                    the registry of claims and the referee's verdicts
:mod:`~.repeat_claims`             the referee's claims about repeat-and-select
:mod:`~.gaussian_claims`           the referee's claims about Gaussian report-noisy-max
:mod:`~.report`                    ``docs/accountants.md`` from the referee's results
=================================  ==========================================================
"""

from optmech._lazy import lazy_exports as _lazy_exports

__all__, __getattr__, __dir__ = _lazy_exports(__name__, {
    "optmech.privacy.accountant": ("AccountReport", "Accountant", "Step"),
    "optmech.privacy.accounting": ("account_to_dp_accounting", "to_dp_accounting",
                                   "to_opendp_profile"),
    "optmech.privacy.dominating": ("Dominance",),
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
    "optmech.privacy.repeat": ("RepeatAndSelect", "Repetitions", "repeated_pair"),
    "optmech.privacy.worst": ("WorstPair", "worst_pair"),
})
