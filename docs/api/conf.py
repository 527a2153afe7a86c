"""Sphinx configuration of optmech's documentation site (``docs/api``).

Build it from the repository root (``pip install ".[docs]"`` first)::

    sphinx-build -W --keep-going -b html docs/api docs/api/_build/html

The build runs the gallery's scripts (``docs/gallery/plot_*.py``, sphinx-gallery) and writes
their pages into ``docs/api/gallery/`` (generated, not tracked).  Offline by default:
nothing here fetches from the network.  Set
``OPTMECH_DOCS_INTERSPHINX=1`` to link the types of numpy, scipy and Python to their own
documentation (intersphinx then downloads their ``objects.inv``); CI leaves it unset.
"""

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # document this checkout, installed or not
sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))

from optmech import __version__

project = "optmech"
author = "the optmech authors"
copyright = "the optmech authors, MIT licence"
version = release = __version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
    "sphinx.ext.intersphinx",
    "myst_parser",
    "sphinx_gallery.gen_gallery",
    "public_names",
    "reading_order",
]

# Every cross-reference into optmech, lp_models or proofs must resolve (a broken link is a
# warning, so an error with -W); names outside them (numpy, Python's types in signatures)
# resolve only with intersphinx, and are not checked.
nitpicky = True
# Private names (a base class shown by show-inheritance, a private helper a docstring
# mentions) and type variables are not pages of the reference either.
nitpick_ignore_regex = [(r"py:.*", r"(?!(optmech|lp_models|proofs)\b).*"),
                        (r"py:.*", r".*\._.*"),
                        (r"py:class", r"optmech\.progress\.T")]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "gallery/*.ipynb", "gallery/*.py", "gallery/*.zip"]

# A name in double backquotes with no role (``solve_lattice``) stays a literal; Python
# objects link with :func:, :class:, :mod: (reStructuredText) or {py:func}`...` (MyST).
default_role = None

# autodoc: every public member of a module (its ``__all__`` where it has one), with a
# docstring or not, in the order of the source.  Packages are documented with
# ``:ignore-module-all:`` in their pages, so a name a package re-exports is described once,
# in the module that defines it.
autodoc_default_options = {"members": True, "undoc-members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_preserve_defaults = True

# napoleon: the few NumPy-style sections (``Parameters`` / ``----------``); the rest of the
# docstrings are plain reStructuredText.  An ``Attributes`` section becomes a field list
# (``napoleon_use_ivar``), not a second description of the attributes autodoc lists.
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_ivar = True

# intersphinx: off unless asked for (see the module docstring).
intersphinx_mapping = {}
if os.environ.get("OPTMECH_DOCS_INTERSPHINX") == "1":
    intersphinx_mapping = {
        "python": ("https://docs.python.org/3", None),
        "numpy": ("https://numpy.org/doc/stable", None),
        "scipy": ("https://docs.scipy.org/doc/scipy", None),
    }

# autosummary: the tables of main entry points (reference/index.rst) link to the entries
# the module pages describe; no stub pages are generated.
autosummary_generate = False

# MyST: anchors for headings down to level 3, so a document's links to its own sections
# (``[name](#anchor)`` in docs/identities.md) resolve.  The guides (docs/guide/*.md, read on
# GitHub as well) link into the API reference with MyST roles, {py:func}`~optmech.lattice.
# solve_lattice`, and to each other as documents, [the lattice guide](lattice.md): the site
# mirrors the layout of docs/ (docs/api/guide/x.md includes docs/guide/x.md, docs/api/cli.md
# includes docs/cli.md), so a relative link between two documents resolves in both.
myst_heading_anchors = 3

# sphinx-gallery: every docs/gallery/plot_*.py runs at build time (in file-name order), its
# figures are captured from matplotlib, and an example that raises fails the build.  Names
# of optmech, lp_models and proofs in the code link to this reference.
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "docs" / "gallery"),
    "gallery_dirs": "gallery",
    "filename_pattern": r"/plot_",
    "within_subsection_order": "FileNameSortKey",
    "image_scrapers": ("matplotlib",),
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "remove_config_comments": True,
    "min_reported_time": 0,
    "reference_url": {"optmech": None, "lp_models": None, "proofs": None},
    "default_thumb_file": None,
}

html_theme = "pydata_sphinx_theme"
html_title = f"optmech {release}"
html_static_path = ["_static"]
html_css_files = ["optmech.css"]
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 5,
    "secondary_sidebar_items": ["page-toc"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_sidebars = {"index": [], "about": [], "coming_from": []}
