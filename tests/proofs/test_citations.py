"""Papers are cited by authors, title, venue and arXiv id, defined once in proofs/papers.py:
docs/papers.md gives every full citation, each guide cites its paper that way, and no
source field, reproduce row or document names a paper by a file name."""

import re
from pathlib import Path

import pytest

from proofs.papers import PAPERS, cite
from proofs.registry import identities

ROOT = Path(__file__).resolve().parents[2]
FILE_NAMES = ("permute-and-flip.txt", "multi-selection.txt", "heterogeneous-sensitivities.txt",
              "private-secretary-v1", "private-secretary-v2", "papers/")
CHECKED = [*ROOT.glob("proofs/**/*.py"), *ROOT.glob("optmech/reproduce/*.py"),
           *ROOT.glob("docs/**/*.md"), ROOT / "optmech" / "multiselect" / "offsets.py",
           ROOT / "optmech" / "cli" / "proofs.py"]


def test_docs_papers_md_gives_every_full_citation():
    text = (ROOT / "docs" / "papers.md").read_text()
    for paper in PAPERS.values():
        assert paper.citation in text
        assert paper.short in text


def test_cite_is_short_form_and_location():
    assert cite("permute-and-flip", "§4.1") == "McKenna & Sheldon 2020 (arXiv:2010.12603), §4.1"
    assert cite("secretary") == "Grining et al. (arXiv:2005.01586v4)"


@pytest.mark.parametrize("path", CHECKED, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_paper_is_named_by_a_file_name(path):
    text = path.read_text(encoding="utf-8")
    for name in FILE_NAMES:
        assert name not in text, f"{path.relative_to(ROOT)} names {name!r}"


def test_every_guide_cites_its_paper_by_arxiv_id():
    for guide in sorted((ROOT / "docs" / "guide").glob("*.md")):
        for line in re.findall(r"^Paper: .*$", guide.read_text(), re.M):
            assert "arXiv:" in line, f"{guide.name}: {line}"


def test_every_identity_source_starts_with_a_citation():
    shorts = {p.short for p in PAPERS.values()}
    for ident in identities():
        assert any(ident.source.startswith(s) for s in shorts), ident.name


def test_docs_papers_md_says_which_text_was_read():
    """Every paper records which text optmech read (Paper.text), and docs/papers.md's table
    says the same."""
    section = (ROOT / "docs" / "papers.md").read_text().split("## Which text optmech read")[1]
    section = section.split("\n## ")[0]
    rows = dict(re.findall(r"^\| ([^|]+?) \| ([^|]+?) \|", section, re.M)[2:])
    assert len(rows) == len(PAPERS)
    for paper in PAPERS.values():
        version = re.search(r"v(\d+)$", paper.arxiv)
        name = (f"{paper.short_authors} (version {version.group(1)})" if version
                else f"{paper.short_authors} {paper.year}")
        assert paper.text and rows[name] == paper.text, name
