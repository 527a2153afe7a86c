"""MPS and LP files through highspy: round trips of every builder's LP, and refusals.

Independent references: a small free-MPS parser written here (so the file's content is
checked without HiGHS's reader), and scipy's ``linprog`` on the LP read back.
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linprog

from lp_models.dilp import line_dilp, ring_dilp, ring_dilp_per_user
from lp_models.labels import LabelBlock
from lp_models.lattice import (
    delta_lattice_lp,
    full_lattice_lp,
    reduced_lattice_lp,
    relaxed_lattice_lp,
)
from lp_models.lattice.objectives import class_error_matrix, with_max_objective
from lp_models.program import InvalidModelError, LinearProgram, read_lp, solve, write_lp
from lp_models.stopping import mixture_lp, privacy_pairs, rank_payoff, stopping_lp


def minimax_lp():
    lp = reduced_lattice_lp(3, 3, 0.5)
    return with_max_objective(lp, class_error_matrix(lp.metadata["classes"]), 6.0)


def edited_lp():
    """A two-sided row (MPS RANGES), a column with a negative lower bound, an offset."""
    lp = reduced_lattice_lp(3, 2, 0.5).with_columns([1.0], lower=-2.0, upper=3.0, label="shift")
    lp = lp.with_rows(np.ones((1, lp.num_cols)), 0.5, 7.0, label="box")
    return lp.with_objective(lp.cost, offset=0.25)


BUILDERS = {
    "edited": edited_lp,
    "reduced": lambda: reduced_lattice_lp(3, 3, 0.5),
    "reduced-cube-paper": lambda: reduced_lattice_lp(4, 2, 0.3, "cube", "paper"),
    "delta": lambda: delta_lattice_lp(3, 3, 0.8),
    "relaxed": lambda: relaxed_lattice_lp(3, 3, 0.6),
    "full": lambda: full_lattice_lp(3, 2, 0.5),
    "minimax": minimax_lp,
    "stopping": lambda: stopping_lp(8, 0.5, 0.01, 2, rank_payoff(8, "top-m", 2)),
    "mixture": lambda: mixture_lp(np.eye(5)[:4] * 0.5 + 0.1, rank_payoff(5, "rank"), 0.7,
                                  0.05, privacy_pairs(5, 1)),
    "dilp-line-primal": lambda: line_dilp(2, 1.0, 0.5, 2, 2).primal,
    "dilp-ring-dual": lambda: ring_dilp(2, 1.0, 8).dual,
    "dilp-per-user": lambda: ring_dilp_per_user(1, 0.7, 5),
}


def parse_free_mps(path):
    """(cost, matrix, row bounds, column bounds, sense, offset, row names, column names)
    from a free MPS file as HiGHS writes it (ROWS, COLUMNS, RHS, RANGES, BOUNDS)."""
    section, sense = None, "min"
    rows, kinds, columns = [], {}, []
    entries, cost, rhs, ranges = [], defaultdict(float), {}, {}
    lower, upper, offset = {}, {}, 0.0
    for line in open(path):
        if not line.strip():
            continue
        if not line[0].isspace():
            section = line.split()[0]
            continue
        parts = line.split()
        if section == "OBJSENSE":
            sense = "max" if parts[0] == "MAX" else "min"
        elif section == "ROWS":
            if parts[0] == "N":
                objective = parts[1]
            else:
                rows.append(parts[1])
                kinds[parts[1]] = parts[0]
        elif section == "COLUMNS":
            if not columns or columns[-1] != parts[0]:
                columns.append(parts[0])
            for row, value in zip(parts[1::2], parts[2::2]):
                if row == objective:
                    cost[parts[0]] = float(value)
                else:
                    entries.append((row, parts[0], float(value)))
        elif section == "RHS":
            for row, value in zip(parts[1::2], parts[2::2]):
                if row == objective:
                    offset = -float(value)
                else:
                    rhs[row] = float(value)
        elif section == "RANGES":
            ranges[parts[1]] = float(parts[2])
        elif section == "BOUNDS":
            kind, name = parts[0], parts[2]
            value = float(parts[3]) if len(parts) > 3 else None
            if kind in ("UP", "FX"):
                upper[name] = value
            if kind in ("LO", "FX"):
                lower[name] = value
            if kind in ("MI", "FR"):
                lower[name] = -math.inf
            if kind == "FR":
                upper[name] = math.inf
            if kind == "PL":
                upper[name] = math.inf
    row_index = {name: i for i, name in enumerate(rows)}
    col_index = {name: j for j, name in enumerate(columns)}
    r, c, v = zip(*[(row_index[a], col_index[b], x) for a, b, x in entries]) or ((), (), ())
    matrix = sp.csc_matrix((v, (r, c)), shape=(len(rows), len(columns)))
    row_lower, row_upper = [], []
    for name in rows:
        b, kind = rhs.get(name, 0.0), kinds[name]
        lo, hi = {"E": (b, b), "L": (-math.inf, b), "G": (b, math.inf)}[kind]
        if name in ranges:
            width = abs(ranges[name])
            lo, hi = (b - width, b) if kind == "L" else (b, b + width)
        row_lower.append(lo)
        row_upper.append(hi)
    col_lower = [lower.get(name, 0.0) for name in columns]
    col_upper = [upper.get(name, math.inf) for name in columns]
    return (np.array([cost[name] for name in columns]), matrix, np.array(row_lower),
            np.array(row_upper), np.array(col_lower), np.array(col_upper), sense, offset,
            rows, columns)


@pytest.mark.parametrize("name", BUILDERS)
def test_mps_round_trip_is_the_same_lp(name, tmp_path):
    lp = BUILDERS[name]()
    path = lp.write(tmp_path / f"{name}.mps")
    back = LinearProgram.read(path)
    assert back.same_model(lp)
    assert back.row_labels() == lp.row_names() and back.column_labels() == lp.column_names()
    # the file itself, read without HiGHS
    cost, matrix, rlo, rhi, clo, chi, sense, offset, rows, columns = parse_free_mps(path)
    assert rows == lp.row_names() and columns == lp.column_names()
    np.testing.assert_array_equal(cost, lp.cost)
    assert (matrix != lp.matrix).nnz == 0
    for got, want in ((rlo, lp.row_lower), (rhi, lp.row_upper), (clo, lp.col_lower),
                      (chi, lp.col_upper)):
        np.testing.assert_array_equal(got, want)
    assert (sense, offset) == (lp.sense, lp.offset)
    # both solve to the same optimum
    assert solve(back).objective == pytest.approx(solve(lp).objective, rel=1e-12, abs=1e-14)


def _linprog_value(lp: LinearProgram) -> float:
    """Optimum of ``lp`` by scipy's linprog: rows split into A_eq and two-sided A_ub."""
    sign = 1.0 if lp.sense == "min" else -1.0
    A = sp.csr_matrix(lp.matrix)
    equal = lp.row_lower == lp.row_upper
    lo = ~equal & np.isfinite(lp.row_lower)
    hi = ~equal & np.isfinite(lp.row_upper)
    A_ub = sp.vstack([A[hi], -A[lo]])
    b_ub = np.concatenate([lp.row_upper[hi], -lp.row_lower[lo]])
    result = linprog(sign * lp.cost, A_ub=A_ub, b_ub=b_ub, A_eq=A[equal],
                     b_eq=lp.row_lower[equal], bounds=np.column_stack(
                         [lp.col_lower, lp.col_upper]).tolist(), method="highs-ipm")
    assert result.status == 0, result.message
    return sign * result.fun + lp.offset


@pytest.mark.parametrize("name", ["reduced", "stopping", "dilp-ring-dual"])
def test_linprog_on_the_lp_read_back(name, tmp_path):
    lp = BUILDERS[name]()
    back = read_lp(write_lp(lp, tmp_path / "model.mps"))
    assert _linprog_value(back) == pytest.approx(solve(lp).objective, rel=1e-8, abs=1e-10)


@pytest.mark.parametrize("name", ["reduced", "stopping", "minimax"])
def test_lp_format_gives_an_equivalent_lp(name, tmp_path):
    """HiGHS's LP writer splits two-sided rows and reorders columns by first appearance:
    the LP read back is equivalent (same optimum), not the same."""
    lp = BUILDERS[name]()
    back = read_lp(lp.write(tmp_path / "model.lp"))
    assert back.sense == lp.sense
    assert solve(back).objective == pytest.approx(solve(lp).objective, rel=1e-12, abs=1e-14)
    assert set(back.column_labels()) <= set(lp.column_names())


def test_tiny_entries_the_solver_would_drop_survive_the_round_trip(tmp_path):
    """e^-eps at eps = 22 (2.8e-10) is below HiGHS's default small_matrix_value (1e-9)."""
    lp = reduced_lattice_lp(2, 2, 22.0)
    assert lp.matrix.data.min() < 1e-9
    back = read_lp(lp.write(tmp_path / "tiny.mps"))
    assert back.same_model(lp)


def test_refusals(tmp_path):
    base = LinearProgram(cost=[1.0, 1.0], matrix=sp.csc_matrix([[1.0, 2.0]]), row_lower=[1.0],
                         row_upper=[np.inf])
    with pytest.raises(InvalidModelError, match="end in .mps or .lp"):
        base.write(tmp_path / "model.txt")
    free = base.with_rows([[1.0, -1.0]], -np.inf, np.inf, label="free")
    with pytest.raises(InvalidModelError, match=r"row 1 \(free\[0\]\) has no finite bound"):
        free.write(tmp_path / "free.mps")
    huge = base.with_columns([0.0], upper=1e25)
    with pytest.raises(InvalidModelError, match="infinite"):
        huge.write(tmp_path / "huge.mps")
    tiny = base.with_rows([[1e-13, 1.0]], 0.0, 1.0)
    with pytest.raises(InvalidModelError, match="magnitude"):
        tiny.write(tmp_path / "tiny.mps")
    twice = base.with_rows([[1.0, 0.0]], 0.0, 1.0, label=LabelBlock("a", 1, "a", names=["r0"]))
    with pytest.raises(InvalidModelError, match="row names are not unique"):
        twice.write(tmp_path / "twice.mps")
    assert not (tmp_path / "free.mps").exists()
    with pytest.raises(FileNotFoundError):
        read_lp(tmp_path / "missing.mps")
    (tmp_path / "junk.mps").write_text("this is not a model\n")
    with pytest.raises(InvalidModelError, match="could not read"):
        read_lp(tmp_path / "junk.mps")
    (tmp_path / "integer.mps").write_text(
        "NAME x\nROWS\n N obj\n L c\nCOLUMNS\n MARKER 'MARKER' 'INTORG'\n"
        " x obj 1 c 1\n MARKER 'MARKER' 'INTEND'\nRHS\n RHS c 4\nBOUNDS\n UP BND x 3\nENDATA\n")
    with pytest.raises(InvalidModelError, match="integer"):
        read_lp(tmp_path / "integer.mps")
