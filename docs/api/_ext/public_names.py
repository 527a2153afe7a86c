"""Sphinx extension: a cross-reference may name a Python object by the path users import it
from (``optmech.lattice.solve_lattice``, ``optmech.PermuteAndFlip``, ``proofs.Registry``);
it links to the entry of the module that defines the object (``optmech.lattice.optimum.
solve_lattice``), where the reference describes it once.

Only names of the project's packages are looked up (imported); anything else is left to
Sphinx.  With ``nitpicky`` on (conf.py) a reference into the packages that still does not
resolve is a warning, so a broken link fails the build.
"""

from __future__ import annotations

import importlib

PACKAGES = ("optmech", "lp_models", "proofs")


def _lookup(target: str):
    """The object a dotted ``target`` names (the longest importable module, then
    attributes), or None."""
    parts = target.split(".")
    for split in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        for name in parts[split:]:
            obj = getattr(obj, name, None)
            if obj is None:
                return None
        return obj
    return None


def defining_path(target: str) -> str | None:
    """``module.qualname`` of the object that ``target`` (a dotted import path) names,
    where that differs from ``target``: a name re-exported by a package
    (``optmech.lattice.solve_lattice``) or a method a class inherits
    (``PermuteAndFlip.expected_error``); else None."""
    if target.split(".")[0] not in PACKAGES:
        return None
    obj = _lookup(target)
    if isinstance(obj, (classmethod, staticmethod, property)):
        obj = getattr(obj, "__func__", getattr(obj, "fget", obj))
    module = getattr(obj, "__module__", None)
    qualname = getattr(obj, "__qualname__", None)
    if not isinstance(module, str) or not isinstance(qualname, str) or "<" in qualname:
        return None
    found = f"{module}.{qualname}"
    return None if found == target else found


def resolve(app, env, node, contnode):
    """``missing-reference`` handler: retry a py reference under its defining path."""
    if node.get("refdomain") != "py":
        return None
    found = defining_path(node["reftarget"])
    if found is None:
        return None
    domain = env.get_domain("py")
    builder = app.builder
    for role in (node["reftype"], "obj"):
        node["reftarget"] = found
        resolved = domain.resolve_xref(env, node["refdoc"], builder, role, found, node,
                                       contnode)
        if resolved is not None:
            return resolved
    return None


def setup(app):
    app.connect("missing-reference", resolve)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
