"""JSON Schemas of the ``optmech`` command's ``--json`` outputs, shipped with the package.

Every JSON object a command prints with ``--json`` starts with two keys:

* ``optmech_version``: the version of optmech that wrote it (``optmech.__version__``);
* ``schema``: the name of the schema it follows, ``optmech.<command>[.<action>]/<major>``,
  for example ``optmech.lattice.solve/1`` (``optmech lattice solve``) or
  ``optmech.reproduce/1`` (a command without actions).

The schema of a name is the file ``<command>[.<action>].schema.json`` in this folder
(JSON Schema draft 2020-12), one per command output; :func:`load` reads it and
:func:`validate` checks a document against the schema it names.  The major number changes
when a key is removed or renamed or changes type or meaning; a key may be added without a
change.  The schemas are strict (no key they do not describe), so they say exactly what the
version of optmech that ships them writes: validate a document against the schemas of the
``optmech_version`` it carries.

Shared definitions live in ``common.schema.json``, which the command schemas reference by
file name (``"$ref": "common.schema.json#/$defs/number"``): a finite number, or a number that
may be unbounded, ``{"unbounded": true}`` (:data:`optmech.unbounded.JSON_ENCODING`, the one
encoding of a truly unbounded result).  Any JSON Schema tool that resolves references
relative to the file reads them as they are.

Reading the files needs no third-party package; :func:`validate` needs ``jsonschema``
(``pip install jsonschema``; the ``dev`` extra has it).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

__all__ = ["COMMON", "FOLDER", "load", "names", "schema_name", "validate"]

#: The folder holding the schema files.
FOLDER = Path(__file__).resolve().parent
#: The file of the shared definitions.
COMMON = "common.schema.json"
_SUFFIX = ".schema.json"


def _file(key: str) -> Path:
    """The schema file of ``key`` (``"lattice.solve"``); KeyError when there is none."""
    path = FOLDER / f"{key}{_SUFFIX}"
    if not path.is_file() or path.name == COMMON:
        raise KeyError(f"no JSON schema for {key!r}; known: {', '.join(_keys())}")
    return path


def _keys() -> list[str]:
    return sorted(p.name[:-len(_SUFFIX)] for p in FOLDER.glob(f"*{_SUFFIX}")
                  if p.name != COMMON)


@cache
def _read(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def schema_name(command: str, action: str | None = None) -> str:
    """The schema name of the output of ``optmech COMMAND [ACTION] --json``, e.g.
    ``schema_name("lattice", "solve") == "optmech.lattice.solve/1"`` (read from the schema
    file, the one place its major number is written)."""
    key = command if action is None else f"{command}.{action}"
    return _read(_file(key))["properties"]["schema"]["const"]


def names() -> list[str]:
    """Every schema name, sorted (one per command output)."""
    return sorted(_read(_file(key))["properties"]["schema"]["const"] for key in _keys())


def load(name: str) -> dict:
    """The JSON Schema (a new dict) of a schema name such as ``"optmech.lattice.solve/1"``;
    KeyError for a name this version of optmech does not ship (another major included)."""
    key = name.removeprefix("optmech.").split("/")[0]
    schema = _read(_file(key))
    if schema["properties"]["schema"]["const"] != name:
        raise KeyError(f"optmech {_version()} ships {schema['properties']['schema']['const']!r}"
                       f", not {name!r}")
    return json.loads(json.dumps(schema))


def _version() -> str:
    from optmech._version import __version__

    return __version__


def validate(document: dict) -> None:
    """Check ``document`` (the parsed ``--json`` output of a command) against the schema its
    ``schema`` key names, with the shared definitions resolved; raises
    ``jsonschema.ValidationError`` naming the first place it differs, KeyError for an
    unknown schema name.  Needs ``jsonschema``."""
    import jsonschema
    from referencing import Registry, Resource

    common = Resource.from_contents(_read(FOLDER / COMMON))
    registry = Registry().with_resource(COMMON, common)
    schema = load(document.get("schema", "") if isinstance(document, dict) else "")
    validator = jsonschema.Draft202012Validator(schema, registry=registry)
    error = jsonschema.exceptions.best_match(validator.iter_errors(document))
    if error is not None:
        raise error
