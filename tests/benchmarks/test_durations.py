"""README's stated durations are measured ones: each of README's two commands states the
CPU minutes and the wall minutes of the newest run recorded in
``benchmarks/results/test_suite.jsonl`` (``python -m benchmarks.test_suite``), with the load
that run met; the reproduction exited 0, and the test run wrote nothing on stderr.

README said "about 8 minutes" for the tests and the changelog 4, while a new user's run took
12.6 minutes at a load of 9 to 19: a wall time means nothing without its load, and a
figure nobody measured drifts."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchmarks.test_suite import read_records

ROOT = Path(__file__).resolve().parents[2]
# "1.1 CPU minutes; 2.4 minutes on a shared 2-core machine at load 5.7"
STATED = re.compile(r"(?P<cpu>\d+(?:\.\d+)?) CPU minutes?; (?P<wall>\d+(?:\.\d+)?) minutes on "
                    r"a shared 2-core machine at load (?P<load>\d+(?:\.\d+)?)")


def _stated() -> dict[str, re.Match]:
    """README's figures for the reproduction (the paragraph after the main command) and the
    tests (the sentence introducing the test command)."""
    text = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    reproduce = text.split("optmech reproduce --quick ```", 1)[1].split("```", 1)[0]
    tests = text.split("Run the tests (", 1)[1].split("```", 1)[0]
    return {"reproduce": STATED.search(reproduce), "tests": STATED.search(tests)}


def _decimals(text: str) -> int:
    return len(text.split(".")[1]) if "." in text else 0


@pytest.mark.parametrize("command", ["tests", "reproduce"])
def test_readme_states_the_newest_measured_run(command):
    stated = _stated()[command]
    assert stated, f"README states no measured duration for the {command} command"
    runs = [r for r in read_records(ROOT / "benchmarks" / "results")
            if r["command"] == command]
    assert runs, f"benchmarks/results/test_suite.jsonl has no run of the {command} command"
    newest = runs[-1]
    for key, value in (("cpu", newest["cpu_s"] / 60), ("wall", newest["wall_s"] / 60),
                       ("load", max(newest["load_before"], newest["load_after"]))):
        text = stated.group(key)
        assert round(value, _decimals(text)) == float(text), (command, key, text, value)
    if command == "tests":
        # the whole suite ran, and nothing followed its summary on stderr; a test that
        # failed is listed in the record (its time is the suite's all the same)
        assert newest["passed"] > 2000 and len(newest["failed"]) < 10, newest
        assert newest["stderr_lines"] == 0, newest["stderr_tail"]
    else:
        assert newest["status"] == 0, newest
