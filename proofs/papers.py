"""The source papers, cited in one place.

Every ``source`` field of the identity registry, every row of ``optmech reproduce``, every
entry of the claims inventory and every guide cites a paper through :func:`cite`, e.g.
``cite("permute-and-flip", "§4.1")`` gives ``"McKenna & Sheldon 2020 (arXiv:2010.12603),
§4.1"``; ``docs/papers.md`` gives the full citations (:attr:`Paper.citation`) and says which
sections each part of optmech implements.

Keys are the registry's paper keys (``Identity.paper``).  The private secretary paper has
two versions on arXiv that differ in numbering: ``"secretary"`` is version 4 (the current
one, whose numbering the registry follows) and ``"secretary-v1"`` version 1.

:attr:`Paper.text` says which text of each paper optmech's reading is based on: arXiv's HTML
rendering of the LaTeX source (the current version) or a conversion of the PDF.  Converters
make their own mistakes (arXiv's HTML rendering renumbers figures that share one float), so
an erratum is only claimed after the passage has been compared with the other version of
the paper where one exists (:mod:`proofs.claims`).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["PAPERS", "Paper", "cite"]


@dataclass(frozen=True)
class Paper:
    """A paper: authors, title, venue and arXiv identifier (with version, if it matters)."""

    key: str
    authors: str
    title: str
    venue: str
    arxiv: str
    short_authors: str
    year: str = ""
    text: str = ""

    @property
    def citation(self) -> str:
        """The full citation: authors, *title*, venue, arXiv id."""
        venue = f"{self.venue}, " if self.venue else ""
        return f"{self.authors}, *{self.title}*, {venue}arXiv:{self.arxiv}"

    @property
    def short(self) -> str:
        """``"McKenna & Sheldon 2020 (arXiv:2010.12603)"``."""
        year = f" {self.year}" if self.year else ""
        return f"{self.short_authors}{year} (arXiv:{self.arxiv})"

    def cite(self, where: str = "") -> str:
        """The short citation followed by a location in the paper, if given."""
        return f"{self.short}, {where}" if where else self.short


HTML = "arXiv's HTML rendering"
PDF = "a conversion of the PDF"

PAPERS: dict[str, Paper] = {
    "permute-and-flip": Paper(
        "permute-and-flip", "R. McKenna, D. Sheldon",
        "Permute-and-Flip: A new mechanism for differentially private selection",
        "NeurIPS 2020", "2010.12603", "McKenna & Sheldon", "2020", HTML),
    "multi-selection": Paper(
        "multi-selection", "A. Goel, Z. Jiang, A. Korolova, K. Munagala, S. Sarmasarkar",
        "Differential Privacy Under Multiple Selections", "FORC 2025", "2407.14641",
        "Goel et al.", "2025", HTML),
    "secretary": Paper(
        "secretary", "K. Grining, M. Klonowski, M. Sulkowska",
        "What Do Our Choices Say About Our Preferences?", "", "2005.01586v4",
        "Grining et al.", text=HTML),
    "secretary-v1": Paper(
        "secretary-v1", "K. Grining, M. Klonowski, M. Sulkowska",
        "What Do Our Choices Say About Our Preferences?", "", "2005.01586v1",
        "Grining et al.", text=PDF),
    "heterogeneous": Paper(
        "heterogeneous", "D. Antonova, A. Laro, A. McMillan, L. Wolf",
        "Private Selection with Heterogeneous Sensitivities", "SaTML 2025", "2501.05309",
        "Antonova et al.", "2025", HTML),
}


def cite(key: str, where: str = "") -> str:
    """Short citation of paper ``key`` (a key of :data:`PAPERS`) and a location in it."""
    return PAPERS[key].cite(where)
