"""Benchmark tables, claims and the quick folder (no time is asserted).

Each test points ``benchmarks._report.RESULTS`` at a temporary folder holding a stand-in
for a committed full-size table, and checks that a quick run leaves it untouched."""

import argparse
import re
from pathlib import Path

import pytest

from benchmarks import _report, _timing, gem
from benchmarks._claims import compare, parse_claims
from benchmarks._timing import Draws, Ratio, Runs

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = "## committed full-size table\n"


@pytest.fixture
def results(tmp_path, monkeypatch):
    """A results folder with one 'committed' table; session and budget restored after."""
    folder = tmp_path / "results"
    folder.mkdir()
    (folder / "gem.md").write_text(COMMITTED)
    monkeypatch.setattr(_report, "RESULTS", folder)
    monkeypatch.setattr(_report, "_session", _report._Session())
    monkeypatch.setattr(_timing, "settings", _timing.Settings())
    return folder


def test_a_quick_run_of_a_module_writes_to_the_quick_folder_only(results, monkeypatch):
    """The real gem module at a tiny size: its table lands in results/quick/."""
    monkeypatch.setattr(gem, "QUICK_SIZES", [40])
    monkeypatch.setattr(gem, "QUICK_LIMITS", {"pure Python": 40, "numpy": 40})
    monkeypatch.setattr(_report, "QUICK_BUDGET", 0.0)
    # two short runs per measured call: the tables' shape is tested here, not their times
    monkeypatch.setattr(_timing, "settings", _timing.Settings(min_runs=2, batch_seconds=0.005))
    gem.main(["--quick"])
    assert (results / "gem.md").read_text() == COMMITTED
    assert sorted(p.relative_to(results).as_posix() for p in results.rglob("*.md")) == [
        "gem.md", "quick/gem.md"]
    text = (results / "quick" / "gem.md").read_text()
    header = text.splitlines()[2]
    assert "quick run" in header and "BLAS" in header and "load" in header
    assert "cores" in header
    claims = parse_claims(text)
    assert {"gem.python.random.40", "gem.numpy.hull.40", "gem.pmf.40"} <= claims.keys()
    assert all(c.low <= c.center <= c.high for c in claims.values())


def test_a_full_run_writes_the_results_folder(results):
    _report.start(argparse.ArgumentParser(), [])
    path = _report.write_table("gem", "t", ["a"], [[1.5]])
    assert path == results / "gem.md" and "full run" in path.read_text()
    assert not (results / "quick").exists()


def test_the_header_says_when_blas_is_pinned(results):
    pytest.importorskip("threadpoolctl")
    _report.start(argparse.ArgumentParser(), ["--quick"])
    with _report.blas_threads(1) as pinned:
        text = _report.write_table("pinned", "t", ["a"], [[1]]).read_text()
    assert pinned and "1 thread" in text and "pinned to 1 by threadpoolctl" in text
    assert "not pinned" in _report.write_table("free", "t", ["a"], [[1]]).read_text()


def test_a_claim_line_reads_back_and_is_compared():
    lines = [_report.claim("a.ratio", "speed-up of a, n = 1000", Ratio(13.14, 10.2, 16.04)),
             _report.claim("a.time", "time of a", Runs((0.25, 0.125, 0.5))),
             _report.claim("a.draw", "one draw", Draws((1.0, 2.0, 3.0, 4.0)))]
    assert lines[0] == ("- `a.ratio`: speed-up of a, n = 1000: **13.1x** [10.2, 16] (CPU "
                        "time; ratio of medians or means, spread from their extremes)")
    first = parse_claims("\n".join(["# title", *lines, "- not a claim"]))
    assert list(first) == ["a.ratio", "a.time", "a.draw"]
    assert (first["a.ratio"].center, first["a.ratio"].low, first["a.ratio"].unit) == (
        13.1, 10.2, "x")
    assert (first["a.time"].center, first["a.time"].high, first["a.time"].unit) == (
        0.25, 0.5, "s")
    assert first["a.draw"].center == 2.5 and "4 draws" in lines[2]
    second = parse_claims("\n".join([
        _report.claim("a.ratio", "x", Ratio(15.9, 12.0, 20.0)),     # inside [10.2, 16]
        _report.claim("a.time", "x", Runs((0.75, 0.7, 0.8))),       # outside [0.125, 0.5]
    ]))
    rows, failures = compare(first, second)
    assert failures == 1
    assert [row[0] for row in rows] == ["`a.ratio`", "`a.time`"]
    assert [row[-1] for row in rows] == ["yes", "no"]


def test_every_module_times_through_the_shared_helper():
    """No benchmark module keeps its own timing loop: only _timing.py reads the clocks, and
    every module starts its run and writes its tables through _report."""
    for path in sorted((ROOT / "benchmarks").glob("*.py")):
        text = path.read_text()
        if path.name != "_timing.py":
            assert not re.search(r"(perf_counter|process_time|time\.time)\s*\(|timeit", text), \
                path.name
        if not path.name.startswith("_"):
            assert "start(parser, argv)" in text and "write_table(" in text, path.name


def test_the_quick_folder_is_ignored_by_git():
    assert "benchmarks/results/quick/" in (ROOT / ".gitignore").read_text().splitlines()


def test_a_lattice_bound_cell_shows_the_runs_of_its_newest_code(tmp_path):
    """Runs of older code stay in the records but leave the table's cell once the cell was
    measured again; records from before revisions were kept count as one revision."""
    import json

    from benchmarks.lattice_bound import _cells

    def record(cpu, revision=None):
        r = {"kind": "bound", "n": 10, "epsilon": 0.5, "tol": 1e-4, "extra_load": 0,
             "cpu_seconds": cpu}
        return r if revision is None else {**r, "revision": revision}

    path = tmp_path / "records.jsonl"
    runs = [record(400), record(420), record(150, "abc1234"), record(140, "abc1234")]
    path.write_text("".join(json.dumps(r) + "\n" for r in runs))
    (cell,) = _cells(path, keep=5).values()
    assert [r["cpu_seconds"] for r in cell] == [150, 140]
    path.write_text("".join(json.dumps(r) + "\n" for r in runs[:2]))
    (cell,) = _cells(path, keep=5).values()
    assert [r["cpu_seconds"] for r in cell] == [400, 420]


def test_a_lattice_bound_record_names_the_measured_code():
    """The last commit that changed lp_models/ or optmech/ (``+``: changed since), as git
    itself reports it; None outside a checkout."""
    import subprocess

    from benchmarks.lattice_bound import MEASURED_CODE, _revision

    try:
        expected = subprocess.run(
            ["git", "log", "-1", "--format=%h", "--", *MEASURED_CODE], cwd=ROOT, text=True,
            capture_output=True, check=False).stdout.strip()
    except OSError:                     # no git on this machine
        expected = ""
    if expected:
        assert _revision() in (expected, expected + "+")
    else:
        assert _revision() is None
