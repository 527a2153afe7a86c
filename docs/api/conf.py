"""Sphinx configuration of optmech's API reference (``docs/api``).

Build it from the repository root (``pip install ".[docs]"`` first)::

    sphinx-build -W --keep-going -b html docs/api docs/api/_build/html

Offline by default: nothing here fetches from the network.  Set
``OPTMECH_DOCS_INTERSPHINX=1`` to link the types of numpy, scipy and Python to their own
documentation (intersphinx then downloads their ``objects.inv``); CI leaves it unset.
"""

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # document this checkout, installed or not

from optmech import __version__

project = "optmech"
author = "the optmech authors"
copyright = "the optmech authors, MIT licence"
version = release = __version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.intersphinx",
    "myst_parser",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]

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

# MyST: anchors for headings down to level 3, so a document's links to its own sections
# (``[name](#anchor)`` in docs/identities.md) resolve.
myst_heading_anchors = 3

html_theme = "alabaster"
html_title = f"optmech {release}"
