"""`optmech proofs`: the JSON list contract, exit statuses, one-line errors, and a current,
deterministic docs/identities.md."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from proofs.registry import CheckResult, Identity, Outcome
from proofs.report import DEFAULT_PATH, render
from tests.cli_helpers import run_cli_error

KNOWN_ERRATA = {"secretary.rank_distribution", "secretary.lemma3_difference_recurrence",
                "multiselect.section_2_3_2_plot_constant",
                "heterogeneous.rnmh_laplace_privacy_bound", "multiselect.ring_optimal_cost"}


def optmech(*argv):
    return subprocess.run([sys.executable, "-m", "optmech", *argv], capture_output=True,
                          text=True, timeout=600)


def test_check_json_lists_every_identity_and_exits_0():
    done = optmech("proofs", "check", "--json")
    assert done.returncode == 0, done.stdout[-2000:]
    rows = json.loads(done.stdout)
    assert isinstance(rows, list) and len(rows) >= 24
    for row in rows:
        assert {"name", "source", "method", "status", "evidence"} <= set(row)
        assert row["status"] in ("verified", "erratum")
    assert {r["name"] for r in rows if r["status"] == "erratum"} == KNOWN_ERRATA
    for row in rows:
        if row["status"] == "erratum":
            assert row["counterexample"] and row["corrected"]


def test_check_table_for_one_identity(capsys):
    from optmech.cli import main

    assert main(["proofs", "check", "--only", "heterogeneous.rnmh_counterexample"]) == 0
    out = capsys.readouterr().out
    assert "heterogeneous.rnmh_counterexample  verified" in out and "1 verified" in out


@pytest.mark.parametrize("argv", [
    ["proofs"],
    ["proofs", "check", "--bogus"],
    ["proofs", "check", "--only", "no.such.identity"],
    ["proofs", "regenerate", "--output", "/nonexistent-dir/identities.md"],
    ["proofs", "regenerate", "--output", "."],
])
def test_bad_input_is_one_line_and_exit_2(argv, capsys):
    code, _, err = run_cli_error(capsys, *argv)
    assert code == 2
    assert err.startswith("optmech: error: ") and err.count("\n") == 1


def test_bad_input_from_the_shell_has_no_traceback():
    done = optmech("proofs", "check", "--only", "no.such.identity")
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_failed_status_gives_exit_1(monkeypatch, capsys):
    from optmech.cli import main
    from optmech.cli import proofs as cli

    ident = Identity("x", "secretary", "s", "x", "private-secretary-v2.txt", ("asymptotic limit",),
                     lambda: CheckResult("failed", "broken"))
    monkeypatch.setattr(cli, "_run", lambda names: [Outcome(ident, ident.check())])
    assert main(["proofs", "check"]) == 1
    assert "FAILED" in capsys.readouterr().out


def test_regenerate_reproduces_the_committed_file(tmp_path):
    """A fresh run in a new process is byte-identical to the committed docs/identities.md:
    the file is current and regeneration is deterministic across runs."""
    out = tmp_path / "identities.md"
    done = optmech("proofs", "regenerate", "--output", str(out))
    assert done.returncode == 0, done.stdout
    assert out.read_bytes() == Path(DEFAULT_PATH).read_bytes(), \
        "docs/identities.md is stale: run `optmech proofs regenerate`"


def test_render_is_a_pure_function():
    ident = Identity("secretary.demo", "secretary", "statement", "Eq(x, 1)",
                     "private-secretary-v2.txt, Fact 1 | Fact 2", ("asymptotic limit",),
                     lambda: CheckResult("verified", "line 1\nline 2"))
    outcomes = [Outcome(ident, ident.check())]
    text = render(outcomes)
    assert text == render(outcomes)
    assert "| [`secretary.demo`](#secretarydemo) | verified | asymptotic limit | " \
           "private-secretary-v2.txt, Fact 1 \\| Fact 2 |" in text
    assert "### secretary.demo" in text and "```text\nline 1\nline 2\n```" in text
