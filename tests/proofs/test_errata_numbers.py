"""docs/errata.md against its sources: an erratum that quotes its counter-example quotes the
one the identity's check prints, in the check's convention.

Erratum 10 said "1.913ε at gap 20" while ``optmech proofs check`` printed 1.904690 for scores
(0, −20) against (−1, −19): both right, under two conventions for the gap (the neighbour
widening the gap, or narrowing it).  Each erratum item tagged ``[proofs: NAME]`` whose
identity's counter-example names a pair of score vectors must quote that pair and its value
to the digits the check prints, and so must the claims inventory's evidence wherever it
quotes the value."""

from __future__ import annotations

import re
from pathlib import Path

from proofs.claims import claims

ROOT = Path(__file__).resolve().parents[2]
PAIR = re.compile(r"scores (\([^)]*\)) vs (\([^)]*\)): [^=]*= ([0-9.]+)")


def _plain(text: str) -> str:
    """``text`` with Unicode minus signs as ASCII and its lines joined."""
    return " ".join(text.replace("−", "-").split())


def _proofs_items() -> list[tuple[str, list[str]]]:
    """Each numbered item of the errata list with the identities it is tagged with."""
    text = (ROOT / "docs" / "errata.md").read_text().split("## Withdrawn")[0]
    items = re.split(r"\n(?=\d+\. \*\*)", text)[1:]
    tagged = []
    for item in items:
        tag = re.search(r"\[proofs:([^\]]*)\]", _plain(item))
        if tag:
            tagged.append((_plain(item), re.findall(r"`([\w.]+)`", tag.group(1))))
    return tagged


def test_an_erratum_quotes_the_counterexample_its_check_prints(check):
    quoted = 0
    inventory = {c.id: c for c in claims()}
    for item, names in _proofs_items():
        for name in names:
            found = PAIR.search(check(name).result.counterexample or "")
            if found is None:
                continue
            first, second, value = found.groups()
            quoted += 1
            assert value in item and first in item and second in item, (name, value, item)
            # the claims the item names: their evidence quotes the same value, if any
            for claim_id in re.findall(r"claim: `([^`]+)`", item):
                for evidence in inventory[claim_id].evidence:
                    numbers = re.findall(r"\d+\.\d{3,}", evidence.method)
                    assert all(n == value for n in numbers), (claim_id, numbers, value)
    assert quoted >= 1          # erratum 10 (heterogeneous.rnmh_laplace_privacy_bound)
