"""A selection problem as a comparison of mechanisms sees it: one score vector, its
sensitivity and how neighbours move (:class:`Setting`), and the synthetic vectors of the
permute-and-flip paper's worst case (:func:`gap_settings`: one best candidate and the rest
``g`` below it, its Proposition 4).  The DPBench histograms' settings are
:func:`optmech.data.tasks.histogram_settings`; :mod:`optmech.privacy.noise_choice` compares
every mechanism on them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from optmech.validation import check_choice, check_integer, check_positive

__all__ = ["RELATIONS", "Setting", "gap_settings"]

#: How neighbours move: every score by at most Δ either way, all the same way, or one score
#: (a histogram's counts, where an individual changes one count).
RELATIONS = ("general", "monotonic", "histogram")


@dataclass(frozen=True)
class Setting:
    """One score vector and how its neighbours move."""

    #: Its name: ``"HEPTH mode"``, ``"gaps n=10 g=4"``.
    name: str
    #: The scores.
    scores: np.ndarray = field(repr=False)
    #: Sensitivity Δ.
    sensitivity: float
    #: ``"general"`` (every score moves by at most Δ either way), ``"monotonic"`` (all the
    #: same way) or ``"histogram"`` (one score moves: a histogram's counts).
    relation: str

    def __post_init__(self):
        check_choice(self.relation, "relation", RELATIONS)
        check_positive(self.sensitivity, "sensitivity")

    @property
    def monotonic(self) -> bool:
        """Whether the ε-mechanisms use their monotonic variants (one-signed moves)."""
        return self.relation != "general"


def gap_settings(gaps=(1.0, 4.0, 16.0), n: int = 10) -> list[Setting]:
    """``n`` candidates, one best and ``n - 1`` at ``g`` below it, for each ``g`` in
    ``gaps``: sensitivity 1, scores moving either way."""
    n = check_integer(n, "n", minimum=2, maximum=10**6)
    out = []
    for g in gaps:
        g = check_positive(g, "gaps")
        out.append(Setting(f"gaps n={n} g={g:g}", np.concatenate([[0.0], np.full(n - 1, -g)]),
                           1.0, "general"))
    return out
