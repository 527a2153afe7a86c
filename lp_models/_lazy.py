"""Lazy re-exports for package ``__init__`` modules (PEP 562).

A package lists the public names of its submodules; a name is imported from its submodule
the first time it is used and then kept in the package's namespace.  So ``import optmech``,
``import optmech.lattice`` or ``import lp_models`` costs nothing beyond the package itself,
while ``from optmech.lattice import solve_lattice`` works as before: a command that needs
only permute-and-flip never imports scipy, highspy or matplotlib.  It lives in
:mod:`lp_models`, the lowest layer, so that every package can use it.
"""

from __future__ import annotations

import importlib
import sys
from typing import Callable, Mapping, Sequence

__all__ = ["lazy_exports"]


def lazy_exports(package: str, exports: Mapping[str, Sequence[str]]
                 ) -> tuple[list[str], Callable[[str], object], Callable[[], list[str]]]:
    """``(__all__, __getattr__, __dir__)`` for ``package`` re-exporting, for each submodule
    in ``exports`` (a full module name), the names listed with it."""
    where = {name: module for module, names in exports.items() for name in names}

    def __getattr__(name: str):
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(where))

    return sorted(where), __getattr__, __dir__
