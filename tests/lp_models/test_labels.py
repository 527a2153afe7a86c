"""Row and column labels of every builder, checked against the matrix they describe.

Independent references: the labels are parsed back into count vectors, levels, times and
ranks, and checked against the constraint matrix's coefficients and against the paper's
rules for which rows exist (the worst-case neighbour of Appendix D, the move of one item
for monotonicity), re-derived here from the count vectors without the builders' code.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import scipy.sparse as sp

from lp_models.dilp import line_dilp, ring_dilp, ring_dilp_per_user
from lp_models.labels import LabelBlock, PairLabels, render
from lp_models.lattice import (
    delta_lattice_lp,
    full_lattice_lp,
    reduced_lattice_lp,
    relaxed_lattice_lp,
)
from lp_models.lattice.objectives import class_error_matrix, with_max_objective
from lp_models.program import HighsModel, InvalidModelError, LinearProgram
from lp_models.stopping import (
    mixture_lp,
    privacy_pairs,
    privacy_relaxation_lp,
    rank_payoff,
    stopping_lp,
    triangle_index,
    triangle_position,
)

VARIABLE = re.compile(r"x\[class (\d+): m=\(([\d,]+)\), level (\d+)\]")


def parse_variable(text: str) -> tuple[int, tuple[int, ...], int]:
    match = VARIABLE.fullmatch(text)
    assert match, text
    return int(match[1]), tuple(int(v) for v in match[2].split(",")), int(match[3])


def row_entries(lp: LinearProgram, i: int) -> dict[int, float]:
    row = sp.csr_matrix(lp.matrix[i])
    return dict(zip(row.indices.tolist(), row.data.tolist()))


def pair_parts(label: str, kind: str) -> tuple[str, str, str]:
    """``kind[A REL B]`` -> (A, REL, B), A and B bracketed column labels."""
    assert label.startswith(kind + "[") and label.endswith("]"), label
    body = label[len(kind) + 1:-1]
    match = re.fullmatch(r"(.+\]) (>= e\^-eps|>= e\^-\(eps\*j\)|>=|=) (.+\])", body)
    assert match, label
    return match[1], match[2], match[3]


def worst_neighbour(m: tuple[int, ...], j: int) -> tuple[tuple[int, ...], int]:
    """Appendix D, by hand: the selected item at level j climbs one level; a top item stays
    on top while every other item sinks one level."""
    m = list(m)
    if j >= 1:
        m[j] -= 1
        m[j - 1] += 1
        return tuple(m), j - 1
    return tuple([1, m[0] - 1] + m[1:-1]), 0


@pytest.mark.parametrize("builder, n, k", [
    (reduced_lattice_lp, 3, 3), (reduced_lattice_lp, 4, 2), (delta_lattice_lp, 3, 3)])
def test_reduced_lattice_labels_match_the_matrix_and_the_paper(builder, n, k):
    eps = 0.5
    lp = builder(n, k, eps)
    columns = lp.column_labels()
    parsed = [parse_variable(text) for text in columns]
    # costs from the labels alone: multinomial(m) * m_j * (error of level j) / |Q|
    step = 1.0 if builder is delta_lattice_lp else 2.0
    size = (k + 1) ** n - k ** n
    for v, (_, m, j) in enumerate(parsed):
        assert m[j] >= 1 and sum(m) == n and m[0] >= 1
        weight = math.factorial(n) / math.prod(math.factorial(c) for c in m)
        assert lp.cost[v] == pytest.approx(weight * m[j] * step * j / size, rel=1e-14)
    layout = lp.row_layout()
    assert [kind for kind, _, _ in layout] == ["sum-to-one", "privacy", "monotone"]
    labels = lp.row_labels()
    for kind, start, stop in layout:
        for i in range(start, stop):
            entries = row_entries(lp, i)
            if kind == "sum-to-one":
                c, m = re.fullmatch(r"sum-to-one\[class (\d+): m=\(([\d,]+)\)\]",
                                    labels[i]).groups()
                m = tuple(int(v) for v in m.split(","))
                assert {v: parsed[v] for v in entries} == {
                    v: (int(c), m, parsed[v][2]) for v in entries}
                assert sorted(entries.values()) == sorted(c for c in m if c)
                continue
            a, relation, b = pair_parts(labels[i], kind)
            va, vb = columns.index(a), columns.index(b)
            coef = math.exp(-eps) if kind == "privacy" else 1.0
            assert entries == pytest.approx({va: 1.0, vb: -coef}, rel=1e-15)
            (_, ma, ja), (_, mb, jb) = parse_variable(a), parse_variable(b)
            if kind == "privacy":
                expected = worst_neighbour(ma, ja)
                if builder is delta_lattice_lp:
                    expected = worst_neighbour(*expected)
                assert (mb, jb) == expected
            else:
                assert monotone_move(mb, jb, ma, ja) and not monotone_move(ma, ja, mb, jb)


def monotone_move(mb, jb, ma, ja) -> bool:
    """x[a] >= x[b] for a regular mechanism: a is b's selected item raised one level
    (as in Appendix D's neighbour), or b is a with another item raised one level."""
    if worst_neighbour(mb, jb) == (ma, ja):
        return True
    for i in range(len(ma)):
        if ma[i] - (ja == i) < 1:                      # no other item at level i in a
            continue
        raised = list(ma)
        if i >= 1:
            raised[i] -= 1
            raised[i - 1] += 1
            if (tuple(raised), ja) == (mb, jb):
                return True
        elif ma[-1] == 0 and ja < len(ma) - 1:          # the raised item becomes the top
            if ((1, ma[0] - 1, *ma[1:-1]), ja + 1) == (mb, jb):
                return True
    return False


def test_relaxed_and_minimax_labels():
    lp = relaxed_lattice_lp(3, 3, 1.2)
    columns = lp.column_labels()
    start = lp.row_layout()[1][1]
    for i in range(start, lp.num_rows):
        a, relation, b = pair_parts(lp.row_label(i), "relaxed-privacy")
        _, _, j = parse_variable(a)
        assert row_entries(lp, i) == pytest.approx(
            {columns.index(a): 1.0, columns.index(b): -math.exp(-1.2 * j)}, rel=1e-15)
        assert parse_variable(b)[2] == 0
    base = reduced_lattice_lp(3, 2, 0.5)
    classes = base.metadata["classes"]
    mm = with_max_objective(base, class_error_matrix(classes), 4.0)
    assert mm.column_label(mm.num_cols - 1) == "t"
    assert mm.row_layout()[-1] == ("epigraph", base.num_rows, mm.num_rows)
    for c in range(classes.num_classes):
        m = ",".join(map(str, classes.counts[c]))
        assert mm.row_label(base.num_rows + c) == f"epigraph[t >= error of class {c}: m=({m})]"
        entries = row_entries(mm, base.num_rows + c)
        assert entries.pop(mm.num_cols - 1) == 1.0
        assert all(f"class {c}:" in mm.column_label(v) for v in entries)


def test_full_lattice_labels_name_the_two_columns_of_every_pair_row():
    lp = full_lattice_lp(3, 2, 0.7)
    columns = lp.column_labels()
    levels = lp.metadata["levels"]
    for v, text in enumerate(columns):
        q = "(" + ",".join(map(str, levels[v // 3])) + ")"
        assert text == f"x[q={q}, item {v % 3}]"
    kinds = {kind for kind, _, _ in lp.row_layout()}
    assert kinds == {"sum-to-one", "privacy", "monotone", "symmetry"}
    coef = {"privacy": math.exp(-0.7), "monotone": 1.0, "symmetry": 1.0}
    for kind, start, stop in lp.row_layout():
        for i in range(start, stop):
            if kind == "sum-to-one":
                q = lp.row_label(i)[len("sum-to-one[q="):-1]
                assert all(columns[v].startswith(f"x[q={q},") for v in row_entries(lp, i))
                continue
            a, _, b = pair_parts(lp.row_label(i), kind)
            assert row_entries(lp, i) == pytest.approx(
                {columns.index(a): 1.0, columns.index(b): -coef[kind]}, rel=1e-15)


def test_triangle_position_inverts_the_triangle_layout():
    for n in (1, 2, 3, 17, 200):
        times, ranks = triangle_index(n)
        got_t, got_r = triangle_position(np.arange(times.size))
        np.testing.assert_array_equal(got_t, times)
        np.testing.assert_array_equal(got_r, ranks)
    # far beyond any LP: exact integers where a float square root would round
    i = np.array([10**6, 3 * 10**7, 94_906_265])
    flat = i * (i - 1) // 2
    for shift, rank in ((0, 1), (-1, None)):
        t, r = triangle_position(flat + shift)
        if rank:
            np.testing.assert_array_equal(t, i)
            np.testing.assert_array_equal(r, 1)
        else:
            np.testing.assert_array_equal(t, i - 1)
            np.testing.assert_array_equal(r, i - 1)


def test_stopping_labels_match_the_matrix():
    n, eps = 6, 0.4
    lp = stopping_lp(n, eps, 0.01, 2, rank_payoff(n))
    columns = lp.column_labels()
    col = {text: v for v, text in enumerate(columns)}
    assert len(col) == lp.num_cols
    for i, label in enumerate(lp.row_labels()):
        entries = row_entries(lp, i)
        kind = label.split("[")[0]
        if kind == "feasibility":
            t, r = map(int, re.fullmatch(
                r"feasibility\[x\[time (\d+), relative rank (\d+)\] <= s\[time \1\] / \1\]",
                label).groups())
            assert entries == pytest.approx({col[f"x[time {t}, relative rank {r}]"]: 1.0,
                                             col[f"s[time {t}]"]: -1.0 / t})
        elif kind == "propagation":
            t, r = map(int, re.fullmatch(r"propagation\[z\[time (\d+), rank (\d+)\]\]",
                                         label).groups())
            expected = {col[f"z[time {t}, rank {r}]"]: 1.0,
                        col[f"x[time {t}, relative rank {r}]"]: -1.0}
            if r < t:
                expected[col[f"z[time {t - 1}, rank {r}]"]] = -(t - r) / t
            if r > 1:
                expected[col[f"z[time {t - 1}, rank {r - 1}]"]] = -(r - 1) / t
            assert entries == pytest.approx(expected)
        elif kind == "running":
            t = int(re.search(r"s\[time (\d+)\] - sum_r", label)[1])
            expected = {col[f"x[time {t}, relative rank {r}]"]: 1.0 for r in range(1, t + 1)}
            expected[col[f"s[time {t}]"]] = -1.0
            if t < n:
                assert label.startswith(f"running[s[time {t + 1}] = ")
                expected[col[f"s[time {t + 1}]"]] = 1.0
            else:
                assert label.startswith("running[0 = ")
            assert entries == pytest.approx(expected)
        else:
            a, b = map(int, re.fullmatch(
                r"privacy\[q\[rank (\d+)\] <= e\^eps q\[rank (\d+)\] \+ delta\]", label).groups())
            assert 0 < abs(a - b) <= 2
            assert entries == pytest.approx({col[f"z[time {n}, rank {a}]"]: 1.0,
                                             col[f"z[time {n}, rank {b}]"]: -math.exp(eps)})
    relaxation = privacy_relaxation_lp(n, eps, 0.01, 1, rank_payoff(n))
    assert relaxation.column_labels() == [f"q[rank {k}]" for k in range(1, n + 1)]
    first, second = privacy_pairs(4, 1)
    mix = mixture_lp(np.eye(4)[:3], rank_payoff(4), eps, 0.0, (first[:2], second[:2]))
    assert mix.column_labels() == ["w[rule 0]", "w[rule 1]", "w[rule 2]"]
    assert mix.row_labels() == ["privacy[q[rank 1] <= e^eps q[rank 2] + delta]",
                                "privacy[q[rank 2] <= e^eps q[rank 3] + delta]",
                                "sum-to-one[0]"]


@pytest.mark.parametrize("model", [ring_dilp(2, 1.0, 8), line_dilp(2, 1.0, 0.5, 2, 2)],
                         ids=["ring", "line"])
def test_dilp_labels_primal_rows_and_the_transposed_dual(model):
    primal, dual = model.primal, model.dual
    columns = primal.column_labels()
    for v, text in enumerate(columns):
        j = int(np.searchsorted(model.chain_start, v, side="right") - 1)
        d = "(" + ",".join(map(str, model.chains[j])) + ")"
        assert text == f"p[chain {j}: d={d}, position {model.position[v]}]"
    growth = math.exp(model.epsilon * model.spacing)
    for i in range(1, primal.num_rows):
        match = re.fullmatch(r"privacy\[e\^\(eps\*spacing\) (.+\]) >= (.+\])\]",
                             primal.row_label(i))
        assert row_entries(primal, i) == pytest.approx(
            {columns.index(match[1]): growth, columns.index(match[2]): -1.0})
    assert dual.column_labels()[0] == "w"
    assert dual.column_labels()[1:] == [("mu[" if i <= (primal.num_rows - 1) // 2 else "nu[")
                                        + primal.row_label(i) + "]"
                                        for i in range(1, primal.num_rows)]
    assert dual.row_labels() == [f"dual[{text}]" for text in columns]
    assert (dual.matrix != primal.matrix.T).nnz == 0
    chain_primal, _ = model.chain_lps(1)
    start = model.chain_start[1]
    assert chain_primal.column_labels() == columns[start:start + chain_primal.num_cols]


def test_per_user_ring_labels():
    lp = ring_dilp_per_user(2, 0.8, 4)
    results = lp.metadata["results"]
    columns = lp.column_labels()
    assert columns[0] == "kappa"
    for v in range(1, lp.num_cols):
        user, x = divmod(v - 1, len(results))
        assert columns[v] == f"g[user {user}, results=({','.join(map(str, results[x]))})]"
    growth = math.exp(0.8 * lp.metadata["spacing"])
    for i, label in enumerate(lp.row_labels()):
        entries = row_entries(lp, i)
        if label.startswith("privacy"):
            match = re.fullmatch(r"privacy\[e\^\(eps\*spacing\) (.+\]) >= (.+\])\]", label)
            a, b = columns.index(match[1]), columns.index(match[2])
            assert entries == pytest.approx({a: growth, b: -1.0})
            ua, ub = (int(re.search(r"user (\d+)", columns[v])[1]) for v in (a, b))
            assert (ua - ub) % 4 in (1, 3)
            assert columns[a].split(",", 1)[1] == columns[b].split(",", 1)[1]
        elif label.startswith("sum-to-one"):
            user = re.fullmatch(r"sum-to-one\[user (\d+)\]", label)[1]
            assert all(f"g[user {user}," in columns[v] for v in entries)
        else:
            user = re.fullmatch(r"epigraph\[kappa >= cost of user (\d+)\]", label)[1]
            assert entries.pop(0) == 1.0
            assert all(f"g[user {user}," in columns[v] for v in entries)


def test_labels_are_rendered_only_for_the_indices_asked():
    seen = []

    def describe(local):
        seen.append(local.copy())
        return [f"a{i}" for i in local]

    blocks = (LabelBlock("a", 5, "a", describe), LabelBlock("b", 3, "b"))
    assert render(blocks, [6, 1, 9, -1, 1], 11, "row") == ["b[1]", "a1", "row 9", "row 10", "a1"]
    assert len(seen) == 1 and seen[0].tolist() == [1, 1]
    with pytest.raises(IndexError):
        render(blocks, [11], 11, "row")
    # a big LP's blocks hold references to the builder's arrays, not strings
    lp = reduced_lattice_lp(7, 7, 0.5)
    pairs = lp.row_blocks[2].describe
    assert isinstance(pairs, PairLabels)
    assert pairs.first is lp.metadata["monotone_pairs"][0]
    assert lp.row_label(lp.num_rows - 1).startswith("monotone[x[class ")


def test_names_are_short_unique_and_valid():
    lp = stopping_lp(5, 0.5, 0.01, 1, rank_payoff(5))
    for names in (lp.row_names(), lp.column_names()):
        assert len(set(names)) == len(names)
        assert all(re.fullmatch(r"[A-Za-z_]+\d+", name) for name in names)
    assert lp.row_names()[:2] == ["prop0", "prop1"] and lp.column_names()[-1] == "s34"


def test_rows_added_later_and_label_blocks_that_do_not_fit():
    lp = reduced_lattice_lp(3, 2, 0.5, constraints="paper")
    model = HighsModel(lp, "simplex")
    model.add_rows(sp.csr_matrix(np.ones((2, lp.num_cols))), 0.0, 5.0)
    model.add_rows(sp.csr_matrix(np.ones((1, lp.num_cols))), 0.0, 5.0, label="cap")
    grown = model.lp
    assert grown.row_labels([lp.num_rows, lp.num_rows + 1, lp.num_rows + 2]) == [
        f"row {lp.num_rows}", f"row {lp.num_rows + 1}", "cap[0]"]
    assert grown.row_names()[-3:] == [f"r{lp.num_rows}", f"r{lp.num_rows + 1}",
                                      f"cap{lp.num_rows + 2}"]
    assert model.run().status == "Optimal"
    with pytest.raises(InvalidModelError, match="cover"):
        LinearProgram(cost=[1.0], matrix=sp.csc_matrix((1, 1)), row_lower=[0], row_upper=[1],
                      row_blocks=(LabelBlock("a", 2, "a"),))
    with pytest.raises(ValueError, match="prefix"):
        LabelBlock("a", 1, "a1")
    with pytest.raises(InvalidModelError, match="covers 2"):
        lp.with_rows(np.ones((1, lp.num_cols)), 0, 1, label=LabelBlock("a", 2, "a"))
