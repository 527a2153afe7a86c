"""Check the Markdown tables of a file: every row has as many cells as its header.

Usage: ``python -m tools.markdown_tables FILE...`` (exit 1 and one line per faulty row).

Cells are split as a GitHub-flavoured Markdown renderer splits them: at every ``|`` that is
not escaped as ``\\|`` (also inside code spans), after dropping the row's leading and
trailing pipe.  A table starts at a header row followed by a delimiter row (``|---|:--:|``).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

_DELIMITER = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


def cells(row: str) -> list[str]:
    """The cells of one table row, unescaped."""
    inner = row.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    parts = re.split(r"(?<!\\)\|", inner)
    return [p.strip().replace("\\|", "|") for p in parts]


def table_problems(text: str) -> list[str]:
    """``"line N: 9 cells, the header has 8"`` for every row of every table whose width
    differs from its header's."""
    lines = text.splitlines()
    problems, i = [], 0
    while i + 1 < len(lines):
        if lines[i].lstrip().startswith("|") and _DELIMITER.match(lines[i + 1].strip()):
            width = len(cells(lines[i]))
            if len(cells(lines[i + 1])) != width:
                problems.append(f"line {i + 2}: the delimiter row does not match the header")
            i += 2
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                found = len(cells(lines[i]))
                if found != width:
                    problems.append(f"line {i + 1}: {found} cells, the header has {width}")
                i += 1
        else:
            i += 1
    return problems


def count_tables(text: str) -> int:
    lines = text.splitlines()
    return sum(lines[i].lstrip().startswith("|") and bool(_DELIMITER.match(lines[i + 1].strip()))
               for i in range(len(lines) - 1))


def main(argv: list[str] | None = None) -> int:
    paths = [Path(p) for p in (sys.argv[1:] if argv is None else argv)]
    failed = False
    for path in paths:
        text = path.read_text(encoding="utf-8")
        problems = table_problems(text)
        for problem in problems:
            print(f"{path}: {problem}")
        failed |= bool(problems)
        if not problems:
            print(f"{path}: {count_tables(text)} tables, every row as wide as its header")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
