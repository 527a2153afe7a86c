"""The documentation site (docs/api) leaves nothing out and builds offline.

Sphinx itself (run by .ci/run with warnings as errors) catches a page that fails to build,
but not a module or a guide that no page mentions: these tests do.
"""

import importlib
import pkgutil
import re
import runpy
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
API = ROOT / "docs" / "api"
PACKAGES = ("optmech", "lp_models", "proofs")
AUTOMODULE = re.compile(r"^\.\. automodule:: *(\S+) *$", re.MULTILINE)
MYST_INCLUDE = re.compile(r"^```\{include\} *(\S+) *$", re.MULTILINE)


def public_modules() -> set[str]:
    """Every module of the three packages whose dotted name has no part starting with ``_``."""
    names = set()
    for top in PACKAGES:
        package = importlib.import_module(top)
        found = [top] + [info.name for info in pkgutil.walk_packages(package.__path__, f"{top}.")]
        names.update(n for n in found if not any(part.startswith("_") for part in n.split(".")))
    return names


def automodule_entries() -> list[str]:
    return [name for page in sorted(API.rglob("*.rst"))
            for name in AUTOMODULE.findall(page.read_text(encoding="utf-8"))]


def test_every_public_module_has_exactly_one_automodule_entry():
    public = public_modules()
    entries = automodule_entries()
    assert len(public) > 90  # the walk found the packages (105 modules when written)
    assert sorted(public - set(entries)) == [], "public modules missing from docs/api/*.rst"
    assert sorted(set(entries) - public) == [], "entries for modules that are gone or private"
    assert sorted({name for name in entries if entries.count(name) > 1}) == []


def test_every_markdown_document_is_included_once():
    """Each guide (and each other document under docs/) is a page of the site."""
    documents = {path.resolve() for path in (ROOT / "docs").rglob("*.md")
                 if API not in path.parents}
    included = [(page.parent / target).resolve() for page in sorted(API.rglob("*.md"))
                for target in MYST_INCLUDE.findall(page.read_text(encoding="utf-8"))]
    assert {path.name for path in documents} >= {"selection.md", "lattice.md", "papers.md"}
    assert sorted(map(str, documents - set(included))) == []
    assert sorted(map(str, set(included) - documents)) == []
    assert len(included) == len(set(included))


def test_the_build_needs_no_network_unless_asked(monkeypatch):
    """intersphinx downloads inventories only when OPTMECH_DOCS_INTERSPHINX=1."""
    monkeypatch.delenv("OPTMECH_DOCS_INTERSPHINX", raising=False)
    assert runpy.run_path(str(API / "conf.py"))["intersphinx_mapping"] == {}
    monkeypatch.setenv("OPTMECH_DOCS_INTERSPHINX", "1")
    assert set(runpy.run_path(str(API / "conf.py"))["intersphinx_mapping"]) == {
        "python", "numpy", "scipy"}
