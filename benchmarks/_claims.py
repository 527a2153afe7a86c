"""Does a run reproduce the claims of another?  ``python -m benchmarks._claims FIRST SECOND``.

FIRST and SECOND are benchmark tables, ``RESULTS.md`` files or folders of tables.  Every
claim line (written by :func:`benchmarks._report.claim`: ``- `key`: text: **centre**
[low, high] (...)``) found in both is listed with both runs' values; a claim reproduces
when the second run's centre lies within the spread the first run states.  Prints a
markdown table (``--write PATH`` also writes it) and exits 0 when every shared claim
reproduces, 1 otherwise.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from lp_models.atomic import write_text
from optmech.tables import markdown_table

__all__ = ["CLAIM_LINE", "Claim", "compare", "parse_claims", "read_claims"]

_NUMBER = r"[-+0-9.e]+"
CLAIM_LINE = re.compile(rf"^- `(?P<key>[^`]+)`: (?P<text>.*): "
                        rf"\*\*(?P<center>{_NUMBER})(?P<unit>x| s)"
                        rf"\*\* \[(?P<low>{_NUMBER}), (?P<high>{_NUMBER})\]")


@dataclass(frozen=True)
class Claim:
    key: str
    text: str
    center: float
    low: float
    high: float
    unit: str

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high

    def __str__(self) -> str:
        return f"{self.center:g}{self.unit} [{self.low:g}, {self.high:g}]"


def parse_claims(text: str) -> dict[str, Claim]:
    """The claims in a markdown text, by key (a key seen twice keeps its first line)."""
    claims: dict[str, Claim] = {}
    for line in text.splitlines():
        match = CLAIM_LINE.match(line)
        if match and match["key"] not in claims:
            claims[match["key"]] = Claim(match["key"], match["text"], float(match["center"]),
                                         float(match["low"]), float(match["high"]),
                                         match["unit"].strip())
    return claims


def read_claims(path: Path) -> dict[str, Claim]:
    """The claims of a file, or of every ``*.md`` file directly in a folder."""
    files = sorted(path.glob("*.md")) if path.is_dir() else [path]
    claims: dict[str, Claim] = {}
    for file in files:
        for key, value in parse_claims(file.read_text()).items():
            claims.setdefault(key, value)
    return claims


def compare(first: dict[str, Claim], second: dict[str, Claim]) -> tuple[list[list[str]], int]:
    """Rows ``[key, first, second, reproduces]`` for the keys of both, and how many fail."""
    rows, failures = [], 0
    for key in sorted(first.keys() & second.keys()):
        ok = first[key].contains(second[key].center)
        failures += not ok
        rows.append([f"`{key}`", str(first[key]), str(second[key]),
                     "yes" if ok else "no"])
    return rows, failures


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("first", type=Path)
    parser.add_argument("second", type=Path)
    parser.add_argument("--write", type=Path, metavar="PATH",
                        help="also write the comparison table to this markdown file")
    args = parser.parse_args(argv)
    for path in (args.first, args.second):
        if not path.exists():
            parser.error(f"no such file or folder: {path}")
    first, second = read_claims(args.first), read_claims(args.second)
    rows, failures = compare(first, second)
    lines = markdown_table(["claim", "first run", "second run",
                            "second centre within the first's spread"], rows)
    only = sorted(first.keys() ^ second.keys())
    lines += ["", f"{len(rows) - failures} of {len(rows)} claims reproduce"
              + (f"; in one run only: {', '.join(only)}" if only else "") + "."]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.write:
        write_text(args.write, text)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
