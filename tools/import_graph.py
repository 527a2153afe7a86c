"""The import graph of the project's packages: modules, edges, layers and upward imports.

Usage: ``python -m tools.import_graph [ROOT] [--json]``.

Every ``import`` and ``from ... import`` statement in a module of ``lp_models``, ``optmech``
or ``proofs`` (at any depth, so imports inside functions count too) that names another
module of those packages is one edge; ``from package import name`` counts as an edge to the
submodule ``package.name`` when that is a module, else to ``package``.  Repeated imports of
the same module from one module count once.

Each module has a *rank* from the layout (lower ranks are imported by higher ones):

====  =================================================================================
rank  modules
====  =================================================================================
0     ``lp_models``
1     the shared helpers of ``optmech`` (``validation``, ``progress``, ``jsonable``,
      ``resources``, ``sweep`` with its modules, ``tables``, ``unbounded``, ``_version``,
      ``_lazy``)
2     ``optmech.selection`` (with ``selection.exact``), the common mechanisms
3     the areas: ``optmech.lattice``, ``multiselect``, ``secretary``, ``heterogeneous``,
      ``data``
4     ``proofs`` and ``optmech.figures``
5     ``optmech.reproduce``
6     ``optmech.cli``, ``optmech.__main__`` and the façade ``optmech/__init__.py``
====  =================================================================================

An edge is *upward* when it goes from a lower rank to a higher one, and *sideways* when it
links two different areas of rank 3 (areas share code only through ``selection``).
``layers`` is the number of modules on the longest import chain.
"""

from __future__ import annotations

import argparse
import ast
import json
import sys
from dataclasses import dataclass
from pathlib import Path

PACKAGES = ("lp_models", "optmech", "proofs")
SHARED = ("optmech._lazy", "optmech._version", "optmech.validation", "optmech.progress",
          "optmech.jsonable", "optmech.resources", "optmech.sweep", "optmech.tables",
          "optmech.unbounded")
AREAS = ("lattice", "multiselect", "secretary", "heterogeneous", "data", "topk", "privacy")
TOP = ("optmech", "optmech.__main__")


def rank(module: str) -> int:
    """The layer of ``module`` in the layout (see the module docstring)."""
    if module.split(".")[0] == "lp_models":
        return 0
    if module in SHARED or module.startswith(tuple(f"{shared}." for shared in SHARED)):
        return 1
    if module in TOP:
        return 6
    if module.split(".")[0] == "proofs":
        return 4
    part = module.split(".")[1]
    if part == "selection":
        return 2
    if part in AREAS:
        return 3
    return {"figures": 4, "reproduce": 5, "cli": 6}.get(part, 3)


def area(module: str) -> str | None:
    """The area (rank-3 subpackage) of ``module``, or None."""
    parts = module.split(".")
    return parts[1] if parts[0] == "optmech" and len(parts) > 1 and parts[1] in AREAS else None


def modules(root: Path) -> dict[str, Path]:
    """Dotted name -> file, for every module of the project's packages under ``root``."""
    found = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            parts = list(path.relative_to(root).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _targets(node: ast.AST, module: str, is_package: bool, known: set[str]) -> set[str]:
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
        return {_longest_known(name, known) for name in names} - {None}
    base = node.module or ""
    if node.level:
        anchor = module.split(".") if is_package else module.split(".")[:-1]
        anchor = anchor[:len(anchor) - (node.level - 1)]
        base = ".".join(anchor + ([base] if base else []))
    found = set()
    for alias in node.names:
        full = f"{base}.{alias.name}" if base else alias.name
        target = full if full in known else _longest_known(base, known)
        if target is not None:
            found.add(target)
    return found


def _longest_known(name: str, known: set[str]) -> str | None:
    parts = name.split(".")
    while parts:
        if ".".join(parts) in known:
            return ".".join(parts)
        parts.pop()
    return None


def edges(root: Path) -> set[tuple[str, str]]:
    """Every ``(importer, imported)`` pair of project modules under ``root``."""
    mods = modules(root)
    known = set(mods)
    found = set()
    for name, path in mods.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in _targets(node, name, path.name == "__init__.py", known):
                    if target != name:
                        found.add((name, target))
    return found


def longest_chain(nodes: set[str], graph: set[tuple[str, str]]) -> int:
    """Modules on the longest import chain (a cycle counts its modules once)."""
    successors = {n: [] for n in nodes}
    for a, b in graph:
        successors[a].append(b)
    depth: dict[str, int] = {}

    def visit(n, stack):
        if n in depth:
            return depth[n]
        if n in stack:
            return 0
        stack.add(n)
        depth[n] = 1 + max((visit(m, stack) for m in successors[n]), default=0)
        stack.discard(n)
        return depth[n]

    sys.setrecursionlimit(max(1000, 10 * len(nodes)))
    return max((visit(n, set()) for n in nodes), default=0)


@dataclass(frozen=True)
class ImportReport:
    modules: int
    edges: int
    layers: int
    upward: list[tuple[str, str]]
    sideways: list[tuple[str, str]]

    def as_dict(self) -> dict:
        return {"modules": self.modules, "edges": self.edges, "layers": self.layers,
                "upward": [list(e) for e in self.upward],
                "sideways": [list(e) for e in self.sideways]}


def report(root: Path, rank_of=rank, area_of=area) -> ImportReport:
    """Counts of the import graph under ``root`` and its edges against the layout."""
    mods = set(modules(root))
    graph = edges(root)
    upward = sorted((a, b) for a, b in graph if rank_of(a) < rank_of(b))
    sideways = sorted((a, b) for a, b in graph
                      if area_of(a) and area_of(b) and area_of(a) != area_of(b))
    return ImportReport(modules=len(mods), edges=len(graph),
                        layers=longest_chain(mods, graph), upward=upward, sideways=sideways)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", nargs="?", default=".", type=Path)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = report(args.root)
    if args.json:
        print(json.dumps(result.as_dict(), indent=2))
    else:
        print(f"modules {result.modules}, import edges {result.edges}, "
              f"layers {result.layers}, upward {len(result.upward)}, "
              f"sideways {len(result.sideways)}")
        for a, b in result.upward:
            print(f"  upward:   {a} -> {b}")
        for a, b in result.sideways:
            print(f"  sideways: {a} -> {b}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
