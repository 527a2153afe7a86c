"""Private selection: the common mechanisms and their exact analysis.

Permute-and-flip paper — R. McKenna and D. Sheldon, *Permute-and-Flip: A new mechanism for
differentially private selection*, NeurIPS 2020, arXiv:2010.12603 — Sections 2-4 and
Appendices E-F; every other area of :mod:`optmech` builds on this package.

=================================  ==========================================================
module                             what it implements
=================================  ==========================================================
:mod:`~.mechanisms`                EM, PF, report-noisy-max (Laplace, Gumbel, exponential,
                                   Gaussian noise), randomised response, uniform: ``pmf`` /
                                   ``expected_error`` / ``sample`` and the privacy guarantee
                                   of each (Algorithms 1-2, Definition 4)
:mod:`~.pf_probabilities`          PF's exact pmf without cancellation (Lemma 2 and
                                   Appendix E, rewritten as a positive integral)
:mod:`~.noisy_max`                 report-noisy-max probabilities for any noise family
                                   (Appendix F)
:mod:`~.iid_noisy_max`             the exact pmf of report-noisy-max with i.i.d. noise, the
                                   path shared by its Laplace and Gaussian families
                                   (:mod:`~.laplace_noisy_max`, :mod:`~.gaussian_noisy_max`)
:mod:`~.gaussian_reference`        the Gaussian family's pmf at 50 digits (mpmath)
:mod:`~.settings`                  a score vector with its sensitivity and neighbouring
                                   relation, and the synthetic worst-case gaps (the noise
                                   choice, :mod:`optmech.privacy.noise_choice`, compares
                                   every mechanism on them)
:mod:`~.samplers`                  fast exact samplers for PF and EM
:mod:`~.worst_case`                worst-case expected error of EM and PF (Proposition 4,
                                   equations (7)-(8))
:mod:`~.privacy`                   realised privacy loss from a pmf over neighbours
                                   (Proposition 2's worst-case neighbours)
:mod:`~.exact`                     exact-arithmetic samplers (rationals, Bernoulli coins)
=================================  ==========================================================
"""

from optmech._lazy import lazy_exports as _lazy_exports

__all__, __getattr__, __dir__ = _lazy_exports(__name__, {
    "optmech.selection.mechanisms": (
        "MECHANISMS", "SELECTION_NAMES", "ExponentialMechanism", "GaussianGuarantee",
        "GaussianNoisyMax", "PermuteAndFlip", "PmfMechanism", "PrivacyGuarantee",
        "RandomizedResponse", "ReportNoisyMax", "SelectionMechanism", "UniformSelection",
        "as_mechanism", "labelled_mechanisms", "make_mechanism",
    ),
    "optmech.selection.noisy_max": ("IntegrationError", "noisy_max_pmf"),
    "optmech.selection.pf_probabilities": ("pf_probabilities",),
    "optmech.selection.privacy": (
        "PrivacyCheck", "hockey_stick_delta", "lattice_neighbours", "max_divergence",
        "privacy_loss", "realised_epsilon", "worst_case_neighbours",
    ),
    "optmech.selection.worst_case": (
        "WorstCase", "em_error_on_step", "pf_error_on_step", "worst_case_error",
    ),
})
