"""CITATION.cff: well-formed Citation File Format, and consistent with the package.

The references are checked against docs/papers.md (titles) and the package metadata (the
four arXiv URLs, the source URL, the version), so the three cannot drift apart.
"""

import re
from pathlib import Path

import pytest
import yaml

import optmech

try:
    import tomllib
except ModuleNotFoundError:          # Python 3.10
    tomllib = pytest.importorskip("tomli")

ROOT = Path(__file__).resolve().parent.parent
CITATION = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
ARXIV = re.compile(r"^arXiv:(\d{4}\.\d{5})$")


def _is_person_or_entity(author) -> bool:
    return isinstance(author, dict) and (
        bool(author.get("name")) or bool(author.get("family-names") and
                                         author.get("given-names")))


def test_the_file_has_the_keys_and_types_the_format_requires():
    assert CITATION["cff-version"] == "1.2.0"
    for key in ("message", "title", "authors"):
        assert isinstance(CITATION[key], str if key != "authors" else list) and CITATION[key]
    assert CITATION["type"] == "software"
    assert all(_is_person_or_entity(a) for a in CITATION["authors"])
    for reference in CITATION["references"]:
        assert reference["type"] == "article" and reference["title"]
        assert reference["authors"] and all(_is_person_or_entity(a)
                                            for a in reference["authors"])
        assert isinstance(reference["year"], int)


def test_the_toolkit_is_cited_at_its_version_and_release_date():
    """``date-released`` is the date of the current version's CHANGELOG heading."""
    import datetime

    headings = re.findall(r"^## (\S+) \((\d{4}-\d{2}-\d{2})\)$",
                          (ROOT / "CHANGELOG.md").read_text(encoding="utf-8"), re.MULTILINE)
    dates = [date for version, date in headings if version == optmech.__version__]
    released = CITATION["date-released"]
    released = released if isinstance(released, str) else released.isoformat()
    assert dates == [released]
    datetime.date.fromisoformat(released)


def test_the_toolkit_is_cited_at_its_version_and_source():
    assert CITATION["version"] == optmech.__version__
    assert CITATION["license"] == PROJECT["license"]
    assert CITATION["repository-code"] == PROJECT["urls"]["Source"]


def test_the_four_papers_are_the_references_with_the_titles_of_docs_papers_md():
    papers = (ROOT / "docs" / "papers.md").read_text(encoding="utf-8")
    arxiv_urls = {url for url in PROJECT["urls"].values() if "arxiv.org" in url}
    cited = []
    for reference in CITATION["references"]:
        [identifier] = reference["identifiers"]
        number = ARXIV.match(identifier["value"]).group(1)
        assert reference["url"] == f"https://arxiv.org/abs/{number}"
        # docs/papers.md gives each paper as "*Title*, ..., arXiv:NNNN.NNNNN"
        assert re.search(rf"\*{re.escape(reference['title'])}\*, [^|]*arXiv:{number}", papers)
        surnames = [a["family-names"] for a in reference["authors"]]
        row = next(line for line in papers.splitlines() if f"*{reference['title']}*" in line)
        assert all(name in row for name in surnames), (surnames, row)
        cited.append(reference["url"])
    assert len(cited) == 4 and set(cited) == arxiv_urls


def test_the_package_metadata_links_source_documentation_changelog_and_issues():
    urls = PROJECT["urls"]
    base = "https://github.com/optmech/optmech"
    assert urls["Source"] == base
    assert urls["Issues"] == f"{base}/issues"
    assert urls["Changelog"].startswith(base) and urls["Changelog"].endswith("/CHANGELOG.md")
    assert urls["Documentation"].startswith(base)
