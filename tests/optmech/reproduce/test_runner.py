"""`optmech reproduce`: the report, the JSON summary, and the exit status."""

import json

import pytest

from optmech.cli import main
from optmech.reproduce import Result, compare, new_result
from optmech.reproduce._runner import ROW_CHARACTERS, AreaRun, areas, render_report


def test_areas_are_discovered():
    assert {"data", "heterogeneous", "lattice", "multiselect", "secretary",
            "selection"} <= set(areas())


def _check_one_area(tmp_path, figures, payload) -> None:
    assert payload["failures"] == 0
    report = (tmp_path / "report.md").read_text()
    assert "## selection" in report and "Proposition 5" in report
    assert (figures / "pf_figure1.png").stat().st_size > 10_000
    assert {r["status"] for r in payload["results"]} <= {"match", "new", "differs"}


def test_one_area_writes_report_and_figures(tmp_path, capsys, quick_run,
                                            reproduce_from_quick_runs):
    """The quick run of one area through the command (its rows computed once per test run,
    shared with the other tests)."""
    figures = quick_run("selection")[1]
    code = main(["reproduce", "--quick", "--only", "selection", "--out", str(tmp_path),
                 "--json"])
    assert code == 0
    _check_one_area(tmp_path, figures, json.loads(capsys.readouterr().out))


@pytest.mark.slow
def test_one_area_in_full_writes_report_and_figures(tmp_path, capsys):
    """The papers' sizes, end to end (the reproduce guide's first example runs this area in
    full too, in a process of its own, in the same slow step)."""
    code = main(["reproduce", "--only", "selection", "--out", str(tmp_path), "--json"])
    assert code == 0
    _check_one_area(tmp_path, tmp_path, json.loads(capsys.readouterr().out))


def test_unexplained_difference_fails_the_run(tmp_path, capsys, monkeypatch):
    bad = compare("demo", "a printed number", "paper", 0.72, 0.7087, 1e-3)
    fine = compare("demo", "another", "paper", 1.0, 1.0 + 1e-9, 1e-6)
    explained = compare("demo", "explained", "paper", 5.4, 5.32, 0.05, "units of 2")
    assert (bad.ok, fine.ok, explained.ok) == (False, True, True)
    import optmech.reproduce._runner as runner

    monkeypatch.setattr(runner, "run_areas",
                        lambda names, quick, out: [AreaRun("demo", [bad, fine, explained], 0.1)])
    assert main(["reproduce", "--out", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert "1 unexplained difference" in out and "a printed number" in out
    report = (tmp_path / "report.md").read_text()
    assert "**differs (unexplained)**" in report and "differs (explained: units of 2)" in report


def test_render_report_counts():
    results = [new_result("demo", "new thing", 3.0),
               Result("demo", "q", "src", 1.0, 1.0, 0.0, "match")]
    text = render_report([AreaRun("demo", results, 0.0)], quick=True)
    assert "2 results: 1 match, 0 differ with an explanation, 1 new, 0 unexplained" in text
    with pytest.raises(ValueError):
        Result("demo", "q", "src", 1.0, 1.0, 0.0, "maybe")


@pytest.mark.slow      # every area's quick run, SLOW_AREAS among them
@pytest.mark.parametrize("json_output", [True, False], ids=["json", "table"])
def test_every_area_goes_through_the_command(tmp_path, capsys, reproduce_from_quick_runs,
                                             json_output):
    """The rows of every area (their quick runs, shared with the other tests) go through
    `optmech reproduce` itself: exit 0, strict JSON with a truly unbounded loss as
    {"unbounded": true}, and a report whose every table row is as wide as its header."""
    from tools.markdown_tables import table_problems

    code = main(["reproduce", "--quick", "--out", str(tmp_path),
                 *(["--json"] if json_output else [])])
    out = capsys.readouterr().out
    assert code == 0, out[-2000:]
    report = (tmp_path / "report.md").read_text()
    assert table_problems(report) == []
    rows = [line for line in report.splitlines() if line.startswith("| ")]
    assert max(map(len, rows)) <= ROW_CHARACTERS      # 46 rows ran past 400, one to 837
    assert "| `heterogeneous:rnmh-exp-loss` |" in report and "| ∞ |" in report
    if json_output:
        rows = {r["id"]: r for r in json.loads(out)["results"] if "id" in r}
        assert rows["heterogeneous:rnmh-exp-loss"]["ours"] == {"unbounded": True}
        assert rows["heterogeneous:rnmh-exp-loss"]["status"] == "match"
