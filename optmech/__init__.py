"""optmech: optimal differentially private selection.

Mechanisms with exact output probabilities (:mod:`optmech.mechanisms`), numerical privacy
checks (:mod:`optmech.privacy`), worst-case error formulas (:mod:`optmech.worst_case`) and
the ``optmech`` command line (:mod:`optmech.cli`).  LP models live in :mod:`lp_models`,
symbolic verification of the papers' closed forms in :mod:`proofs`.
"""

from optmech.mechanisms import (
    ExponentialMechanism,
    PermuteAndFlip,
    PrivacyGuarantee,
    RandomizedResponse,
    ReportNoisyMax,
    SelectionMechanism,
    UniformSelection,
    make_mechanism,
)
from optmech.validation import InvalidArgumentError

__all__ = [
    "ExponentialMechanism",
    "InvalidArgumentError",
    "PermuteAndFlip",
    "PrivacyGuarantee",
    "RandomizedResponse",
    "ReportNoisyMax",
    "SelectionMechanism",
    "UniformSelection",
    "make_mechanism",
]

__version__ = "0.1.0"
