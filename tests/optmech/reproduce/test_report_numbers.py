"""How the report prints a number against a bound, a sampled number, and a long row.

References: a comparison made in exact rational arithmetic (fractions), the Wilson interval
as the roots of its defining quadratic (numpy), the coverage of an order-statistic interval
by summing the binomial distribution exactly (fractions)."""

from __future__ import annotations

import math
import re
from fractions import Fraction

import numpy as np
import pytest

from optmech.reproduce import (
    Result,
    inequality,
    margin_text,
    median_interval,
    new_result,
    sampled_text,
)
from optmech.reproduce._runner import ROW_CHARACTERS, AreaRun, render_report
from tools.markdown_tables import table_problems


@pytest.mark.parametrize("value, bound", [(1.999999999999813, 2), (2.0, 2), (1.0, 1),
                                          (0.988954075337011, 1), (2 + 2**-51, 2),
                                          (1 - 2**-53, 1), (3e-300, 0)])
def test_a_margin_never_rounds_onto_the_bound(value, bound):
    """The printed value reads back as the value, and the printed side of the bound is the
    true side (compared exactly)."""
    text = margin_text(value, bound)
    printed = float(text.split(" ")[0])
    assert printed == value
    exact = Fraction(value) - Fraction(bound)
    side = "=" if exact == 0 else "+" if exact > 0 else "-"
    assert f"({bound:g} {side} " in text or (side == "=" and f"(= {bound:g})" in text)


@pytest.mark.parametrize("relation, value, bound, slack, status, verdict", [
    ("<", 1.5, 2, 0.0, "match", "holds"),
    ("<", 2.0, 2, 0.0, "differs", "does not hold"),
    ("<", 2.0, 2, 1e-12, "match", "holds to rounding (1e-12)"),
    ("<=", 2.0, 2, 0.0, "match", "holds"),
    ("<=", 2.0 + 1e-9, 2, 1e-12, "differs", "does not hold"),
    (">=", 1 - 1e-13, 1, 1e-12, "match", "holds to rounding (1e-12)"),
    (">", 1.0, 1, 0.0, "differs", "does not hold"),
])
def test_an_inequality_row_says_what_was_compared(relation, value, bound, slack, status,
                                                  verdict):
    row = inequality("demo", "a claim", "paper", value, relation, bound, slack=slack,
                     why_not="a reason", key="k")
    assert row.paper == f"{relation} {bound:g}" and row.status == status
    assert row.ours == f"{margin_text(value, bound)}: {relation} {bound:g} {verdict}"
    assert row.ok


def _wilson_roots(successes: int, draws: int, z: float) -> tuple[float, float]:
    """The p with (p_hat - p)^2 = z^2 p (1 - p) / n, as the roots of a quadratic."""
    p_hat = successes / draws
    a = 1 + z * z / draws
    b = -(2 * p_hat + z * z / draws)
    c = p_hat * p_hat
    low, high = sorted(np.roots([a, b, c]).real)
    return max(low, 0.0), min(high, 1.0)


@pytest.mark.parametrize("successes, draws", [(149, 200), (9, 10), (10, 10), (0, 10),
                                              (678, 1000)])
def test_a_sampled_proportion_carries_its_wilson_interval(successes, draws):
    text = sampled_text(successes, draws)
    value, low, high = map(float, re.fullmatch(r"(\S+) \[(\S+), (\S+)\]", text).groups())
    expected = _wilson_roots(successes, draws, 2.5758293035489004)
    assert value == pytest.approx(successes / draws, abs=5e-4)
    assert (low, high) == pytest.approx(expected, abs=5e-3)      # printed to 2 decimals
    # the case: 0.745 of 200 draws, beside the 0.678 of 20,000
    if (successes, draws) == (149, 200):
        assert low <= 0.678 <= high


def _coverage(n: int, j: int) -> Fraction:
    """P[x_(j) <= median <= x_(n+1-j)] = 1 - 2 P[Binomial(n, 1/2) <= j - 1], exactly."""
    tail = sum(Fraction(math.comb(n, i), 2**n) for i in range(j))
    return 1 - 2 * tail


@pytest.mark.parametrize("n", [1, 2, 5, 10, 11, 50, 200])
def test_a_median_interval_is_the_narrowest_order_statistics_of_its_level(n):
    values = np.arange(n, dtype=float)[::-1] * 3.0       # unsorted on purpose
    low, high = median_interval(values, level=0.99)
    j = int(low / 3.0) + 1                                # x_(j) = 3 (j - 1)
    assert high == 3.0 * (n - j)
    if n >= 2 and _coverage(n, 1) >= Fraction(99, 100):
        assert _coverage(n, j) >= Fraction(99, 100)
        assert j + 1 > n // 2 or _coverage(n, j + 1) < Fraction(99, 100)


def test_long_rows_move_their_detail_to_notes_and_every_row_fits():
    long = Result("demo", "a long description " * 12, "a source " * 30, None,
                  "value; " * 80, None, "differs", "because " * 70, key="long")
    short = new_result("demo", "short", 1.5, key="short")
    text = render_report([AreaRun("demo", [long, short], 0.0)], quick=True)
    rows = [line for line in text.split("## demo", 1)[1].split("\n\n")[1].splitlines()]
    assert len(rows) == 4 and max(map(len, rows)) <= ROW_CHARACTERS
    rows = [rows[0], rows[2], rows[3]]
    assert table_problems(text) == []
    assert "| `demo:short` | short | optmech | — | 1.5 | — | new |  |" in rows
    # every pointer has its note, and the note holds the whole text
    pointers = re.findall(r"\(note (\d+)\)", rows[1])
    notes = {m.group(1): m.group(2) for m in re.finditer(r"^(\d+)\. (.*)$", text, re.M)}
    assert sorted(pointers) == sorted(notes) and len(notes) >= 3
    whole = " ".join(notes.values())
    for part in ("because " * 70, "value; " * 80, "a source " * 30):
        assert part.strip() in whole
    assert "differs (explained: " in rows[1]
