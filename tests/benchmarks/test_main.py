"""``python -m benchmarks``: the runner's --json object and where a quick run writes (the
modules are replaced by a stand-in that writes one table, so nothing is timed)."""

import json

import pytest

from benchmarks import __main__ as runner
from benchmarks import _report

COMMITTED = "## committed full-size table\n"


@pytest.fixture
def results(tmp_path, monkeypatch):
    folder = tmp_path / "benchmarks" / "results"
    folder.mkdir(parents=True)
    (folder / "gem.md").write_text(COMMITTED)
    monkeypatch.setattr(_report, "RESULTS", folder)

    def fake_module(name, quick, json_mode):
        target = _report.results_folder(quick) / f"{name}.md"
        target.write_text(f"## {name}\n\n- `{name}.x`: a claim: **2.5x** [2, 3] (CPU time)\n")
        return 0, ""

    monkeypatch.setattr(runner, "run_module", fake_module)
    return folder


def test_quick_json_names_the_modules_their_seconds_and_the_quick_tables(results, capsys):
    assert runner.main(["--quick", "--only", "gem", "--only", "stopping", "--json"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    payload = json.loads(out)
    assert set(payload) == {"quick", "modules", "seconds", "tables", "results"}
    assert payload["quick"] is True and payload["modules"] == ["gem", "stopping"]
    assert set(payload["seconds"]) == {"gem", "stopping"}
    assert all(s >= 0 for s in payload["seconds"].values())
    quick = results / "quick"
    assert payload["tables"] == {"gem": [str(quick / "gem.md")],
                                 "stopping": [str(quick / "stopping.md")]}
    assert payload["results"] == str(quick / "RESULTS.md")
    assert (results / "gem.md").read_text() == COMMITTED          # full table untouched
    assert not (results.parent / "RESULTS.md").exists()
    collected = (quick / "RESULTS.md").read_text()
    assert "quick run" in collected and "- `gem.x`: a claim" in collected


def test_a_full_run_collects_results_md_beside_the_results_folder(results, capsys):
    assert runner.main(["--only", "gem"]) == 0
    assert "wrote" in capsys.readouterr().out
    assert (results / "gem.md").read_text() != COMMITTED
    assert "- `gem.x`: a claim" in (results.parent / "RESULTS.md").read_text()
    assert not (results / "quick").exists() or not any((results / "quick").iterdir())


def test_a_failing_module_is_one_line_and_exit_1(results, monkeypatch, capsys):
    monkeypatch.setattr(runner, "run_module",
                        lambda name, quick, json_mode: (3, "Traceback\nValueError: boom\n"))
    assert runner.main(["--quick", "--only", "gem", "--json"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.splitlines()[-1] == (
        "benchmarks: error: benchmarks.gem exited with status 3: ValueError: boom")
