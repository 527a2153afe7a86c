"""optmech: optimal differentially private selection.

One subpackage per area of the papers, on top of the common mechanisms:

* :mod:`optmech.selection`: EM, PF, report-noisy-max with exact pmfs, samplers (also in
  exact arithmetic, :mod:`optmech.selection.exact`), privacy checks, worst-case errors;
* :mod:`optmech.lattice`: the certified optimal regular mechanism and optimality ratios;
* :mod:`optmech.multiselect`: multi-selection under geographic DP;
* :mod:`optmech.secretary`: the private secretary problem;
* :mod:`optmech.heterogeneous`: selection with heterogeneous sensitivities;
* :mod:`optmech.data`: mode and median on the DPBench histograms;
* the outer ring: :mod:`optmech.figures`, :mod:`optmech.reproduce` and the ``optmech``
  command line (:mod:`optmech.cli`).

LP models live in :mod:`lp_models`, symbolic verification of the papers' closed forms in
:mod:`proofs`.
"""

from optmech._lazy import lazy_exports as _lazy_exports
from optmech._version import __version__ as __version__

__all__, __getattr__, __dir__ = _lazy_exports(__name__, {
    "optmech.selection.mechanisms": (
        "ExponentialMechanism", "GaussianNoisyMax", "PermuteAndFlip", "PmfMechanism",
        "PrivacyGuarantee", "RandomizedResponse", "ReportNoisyMax", "SelectionMechanism",
        "UniformSelection",
        "as_mechanism", "make_mechanism",
    ),
    "optmech.unbounded": ("UNBOUNDED",),
    "optmech.validation": ("InvalidArgumentError",),
})
__all__ = sorted([*__all__, "__version__"])
