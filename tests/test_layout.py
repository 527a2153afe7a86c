"""The package layout: one subpackage per area, imports one way (tools/import_graph.py)."""

import importlib
from pathlib import Path

import pytest

from tools import import_graph

ROOT = Path(__file__).resolve().parents[1]
SUBPACKAGES = ["selection", "selection.exact", "lattice", "multiselect", "secretary",
               "heterogeneous", "data", "topk", "privacy"]


def test_no_import_points_up_or_sideways():
    report = import_graph.report(ROOT)
    assert report.upward == []
    assert report.sideways == []


def test_the_graph_sees_function_level_and_relative_imports(tmp_path):
    """The counter must catch an upward import hidden inside a function, or it proves
    nothing: build a two-module tree where the lower module imports the CLI lazily."""
    (tmp_path / "optmech" / "cli").mkdir(parents=True)
    (tmp_path / "optmech" / "__init__.py").write_text("")
    (tmp_path / "optmech" / "cli" / "__init__.py").write_text("X = 1\n")
    (tmp_path / "optmech" / "validation.py").write_text(
        "def f():\n    from optmech.cli import X\n    return X\n")
    (tmp_path / "optmech" / "lattice").mkdir()
    (tmp_path / "optmech" / "lattice" / "__init__.py").write_text("from .a import y\n")
    (tmp_path / "optmech" / "lattice" / "a.py").write_text("y = 2\n")
    (tmp_path / "optmech" / "data").mkdir()
    (tmp_path / "optmech" / "data" / "__init__.py").write_text("import optmech.lattice.a\n")
    report = import_graph.report(tmp_path)
    assert report.upward == [("optmech.validation", "optmech.cli")]
    assert report.sideways == [("optmech.data", "optmech.lattice.a")]
    assert ("optmech.lattice", "optmech.lattice.a") in import_graph.edges(tmp_path)


@pytest.mark.parametrize("name", SUBPACKAGES)
def test_each_subpackage_cites_its_paper_and_exports_its_names(name):
    module = importlib.import_module(f"optmech.{name}")
    assert module.__doc__ and "arXiv:" in module.__doc__
    assert module.__all__ == sorted(module.__all__)
    for exported in module.__all__:
        assert hasattr(module, exported), exported


def test_no_module_is_left_at_the_top_of_optmech():
    top = sorted(p.name for p in (ROOT / "optmech").glob("*.py"))
    assert top == ["__init__.py", "__main__.py", "_lazy.py", "_version.py", "jsonable.py",
                   "progress.py", "resources.py", "tables.py", "unbounded.py",
                   "validation.py"]


def test_tests_mirror_the_package_tree():
    """Every test directory under tests/optmech names a subpackage of optmech."""
    for directory in (ROOT / "tests" / "optmech").rglob("*"):
        if directory.is_dir() and directory.name != "__pycache__":
            relative = directory.relative_to(ROOT / "tests")
            assert (ROOT / relative).is_dir(), relative


def test_version_has_one_source():
    import optmech

    assert 'attr = "optmech._version.__version__"' in (ROOT / "pyproject.toml").read_text()
    assert optmech.__version__ == importlib.import_module("optmech._version").__version__
