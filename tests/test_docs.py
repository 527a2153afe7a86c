"""Every Python example in README.md, the user guide and the site's own pages runs and prints
what the document says (doctest), every script of the gallery runs and draws its figure, and
the guides' prose links into the API reference and to the other documents."""

import doctest
import functools
import importlib
import inspect
import re
import runpy
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
GUIDES = [ROOT / "README.md", *sorted((ROOT / "docs" / "guide").glob("*.md"))]
# the site's pages with examples of their own (the others include docs/*.md)
PAGES = [ROOT / "docs" / "api" / "index.rst", ROOT / "docs" / "api" / "coming_from.md"]
GALLERY = sorted((ROOT / "docs" / "gallery").glob("plot_*.py"))


@pytest.mark.parametrize("guide", GUIDES + PAGES, ids=[g.stem for g in GUIDES + PAGES])
def test_guide_examples(guide):
    result = doctest.testfile(str(guide), module_relative=False, verbose=False,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0, f"{guide.name} has no examples"
    assert result.failed == 0, f"{result.failed} example(s) in {guide.name} failed"


def test_the_gallery_has_the_three_jobs_and_the_figures_researchers_draw():
    names = [script.stem for script in GALLERY]
    assert names == sorted(names) and len(names) >= 8
    for topic in ("solve_an_lp", "rate_your_mechanism", "check_an_identity", "ratio_curves",
                  "bracket_bands", "secretary_profile", "heterogeneous_scenario",
                  "multiselect_cost"):
        assert any(topic in name for name in names), topic


# The longest script (6-7 CPU s: 9 values of eps x 20 trials of seven mechanisms) runs in the
# slow step and in the docs build, which runs every script; the default run keeps the others.
SLOW_GALLERY = {"plot_07_heterogeneous_scenario"}


@pytest.mark.parametrize("script", [
    pytest.param(s, id=s.stem, marks=[pytest.mark.slow] if s.stem in SLOW_GALLERY else [])
    for s in GALLERY])
def test_gallery_script_runs_and_draws_a_figure(script, capsys, monkeypatch):
    """What sphinx-gallery does when the site is built: run the script, keep its figures."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.close("all")
    monkeypatch.setattr(plt, "show", lambda *args, **kwargs: None)
    runpy.run_path(str(script), run_name="__main__")
    assert plt.get_fignums(), f"{script.name} drew no figure"
    assert capsys.readouterr().out, f"{script.name} printed nothing to check"
    plt.close("all")


# The guides' prose names the packages' modules, classes and functions through MyST roles,
# {py:func}`~optmech.lattice.solve_lattice`, and other documents through relative links,
# [the lattice guide](lattice.md) (docs/api/conf.py: how the site resolves both).
GUIDE_DIR = ROOT / "docs" / "guide"
FENCE = re.compile(r"^```.*?^```[ \t]*$", re.MULTILINE | re.DOTALL)
ROLE = re.compile(r"\{py:\w+\}`[^`]*`")
LITERAL = re.compile(r"(?<![`\w])`([A-Za-z_][\w.]*)(?:\(\))?`(?!`)")
LINK = re.compile(r"\]\(([^)#\s]+\.md)(?:#[^)]*)?\)")
PATH_LITERAL = re.compile(r"`(?:docs/(?:\w+/)*|guide/)?\w+\.md`")   # not benchmarks/...


def prose(text: str) -> str:
    """``text`` without its fenced blocks (examples, run and compared by the tests) and
    without the role links it already has."""
    return ROLE.sub("", FENCE.sub("", text))


@functools.lru_cache(maxsize=1)
def _public_callables() -> dict[str, str]:
    """Name -> path of every class and function a public module of the packages exports."""
    import pkgutil

    found = {}
    for top in ("optmech", "lp_models", "proofs"):
        package = importlib.import_module(top)
        names = [top] + [info.name for info in pkgutil.walk_packages(package.__path__, f"{top}.")]
        for name in names:
            if any(part.startswith("_") for part in name.split(".")):
                continue
            module = importlib.import_module(name)
            for member in getattr(module, "__all__", ()):
                obj = getattr(module, member, None)
                if inspect.isclass(obj) or inspect.isfunction(obj):
                    found.setdefault(member, f"{name}.{member}")
    return found


@functools.lru_cache(maxsize=1)
def _public_names():
    """docs/api/_ext/public_names.py, the site's resolver of public import paths."""
    import importlib.util

    path = ROOT / "docs" / "api" / "_ext" / "public_names.py"
    spec = importlib.util.spec_from_file_location("public_names", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _names_the_api(dotted: str) -> bool:
    """True when ``dotted`` (``optmech.lattice.solve_lattice``) is a module, class, function
    or method of the packages: an entry of the API reference a role would link to."""
    obj = _public_names().lookup(dotted)
    return (inspect.ismodule(obj) or inspect.isclass(obj) or inspect.isroutine(obj)
            or isinstance(obj, property))


def unlinked(guide: Path) -> list[str]:
    """Plain literals in the prose of ``guide`` that should be role links: a dotted path
    into the packages naming a module, class, function or method, or the bare name of an
    exported class (CamelCase) or function (with an underscore: ``solve_lattice``, not a word
    such as ``identity`` that prose uses as a value)."""
    exported = _public_callables()
    found = []
    for name in LITERAL.findall(prose(guide.read_text(encoding="utf-8"))):
        if name.split(".")[0] in ("optmech", "lp_models", "proofs"):
            if _names_the_api(name):
                found.append(name)
        elif name in exported and ("_" in name or name[:1].isupper()):
            found.append(name)
    return found


def unlinked_documents(guide: Path) -> list[str]:
    """Documents of docs/ named by their file path in the prose of ``guide`` instead of a
    link (the path reads as a link neither on GitHub nor on the site)."""
    return PATH_LITERAL.findall(prose(guide.read_text(encoding="utf-8")))


LINKED = sorted(GUIDE_DIR.glob("*.md"))


@pytest.mark.parametrize("guide", LINKED, ids=[g.stem for g in LINKED])
def test_guide_prose_links_the_api_and_the_documents(guide):
    assert unlinked(guide) == [], "name these with {py:mod}, {py:class}, {py:func}, ..."
    assert unlinked_documents(guide) == [], "link documents: [the lattice guide](lattice.md)"


@pytest.mark.parametrize("guide", sorted(GUIDE_DIR.glob("*.md")),
                         ids=[g.stem for g in sorted(GUIDE_DIR.glob("*.md"))])
def test_links_between_documents_are_relative_and_resolve(guide):
    """A relative link resolves on GitHub (the file) and on the site (which mirrors docs/)."""
    for target in LINK.findall(guide.read_text(encoding="utf-8")):
        assert "://" not in target and not target.startswith(("/", "docs/")), target
        assert (guide.parent / target).resolve().is_file(), target


def test_the_checks_catch_what_they_look_for(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("Use `optmech.lattice.solve_lattice` or `solve_lattice`, see "
                    "`docs/guide/lattice.md`; `optmech.data.TASKS` is data, `identity` a "
                    "word, {py:func}`~optmech.lattice.ratio_sweep` a link.\n```python\n"
                    ">>> `optmech.lattice.bound_lattice`\n```\n", encoding="utf-8")
    assert unlinked(page) == ["optmech.lattice.solve_lattice", "solve_lattice"]
    assert unlinked_documents(page) == ["`docs/guide/lattice.md`"]
