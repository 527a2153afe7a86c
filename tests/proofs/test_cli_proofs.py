"""`optmech proofs`: the JSON contract (one object, the identities in a list), exit
statuses, one-line errors, a current, deterministic docs/identities.md and docs/claims.md,
and where `regenerate` writes."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from proofs.registry import CheckResult, Identity, Outcome, identities
from proofs.report import DEFAULT_PATH, render
from tests.cli_helpers import run_cli_error, without_status

KNOWN_ERRATA = {"secretary.rank_distribution", "secretary.lemma3_difference_recurrence",
                "multiselect.section_2_3_2_plot_constant",
                "heterogeneous.rnmh_laplace_privacy_bound", "multiselect.ring_optimal_cost",
                "permute_flip.theorem_2_proof_step", "heterogeneous.appendix_b_rs_exponential"}
CLAIMS_PATH = Path(DEFAULT_PATH).parent / "claims.md"


def optmech(*argv):
    return subprocess.run([sys.executable, "-m", "optmech", *argv], capture_output=True,
                          text=True, timeout=600)


def test_check_json_contract_and_clean_stderr():
    done = optmech("proofs", "check", "--json", "--only", "secretary.rank_distribution",
                   "--only", "permute_flip.lemma7_threshold")
    assert done.returncode == 0, done.stdout[-2000:]
    assert without_status(done.stderr) == [], "no warning may reach stderr"
    document = json.loads(done.stdout)
    assert set(document) == {"optmech_version", "schema", "identities", "counts"}
    assert document["schema"] == "optmech.proofs.check/1"
    assert document["counts"] == {"total": 2, "verified": 1, "erratum": 1, "failed": 0}
    rows = document["identities"]
    assert [r["name"] for r in rows] == ["secretary.rank_distribution",
                                         "permute_flip.lemma7_threshold"]
    for row in rows:
        # corrected / counterexample exist for errata only: never printed as null
        assert {"name", "paper", "source", "method", "status", "statement", "sympy",
                "evidence"} | ({"corrected", "counterexample"} if row["status"] == "erratum"
                               else set()) == set(row)
    assert rows[0]["status"] == "erratum" and rows[0]["counterexample"] and rows[0]["corrected"]
    assert rows[1]["status"] == "verified"


@pytest.mark.parametrize("name", [i.name for i in identities()])
def test_identity_is_verified_or_a_known_erratum(check, name):
    """One registered identity, checked in this process (once per run: the per-paper tests
    and the registry-wide test below reuse the outcome, on any worker)."""
    outcome = check(name)
    assert outcome.status == ("erratum" if name in KNOWN_ERRATA else "verified"), \
        outcome.result.evidence


def test_every_identity_is_verified_or_a_known_erratum(check):
    """Every registered identity, checked in this process (once per run: the per-paper
    tests reuse the outcomes)."""
    statuses = {name: outcome.status
                for name, outcome in check.many(i.name for i in identities()).items()}
    assert len(statuses) >= 24
    assert set(statuses.values()) <= {"verified", "erratum"}, \
        [n for n, s in statuses.items() if s == "failed"]
    assert {n for n, s in statuses.items() if s == "erratum"} == KNOWN_ERRATA


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
    ["proofs", "regenerate", "--claims-output", "/nonexistent-dir/claims.md"],
    ["proofs", "regenerate", "--output", "/tmp/x.md", "--claims-output", "/tmp/x.md"],
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

    ident = Identity("x", "secretary", "s", "x", "Grining et al. (arXiv:2005.01586v4), Fact 1",
                     ("asymptotic limit",), lambda: CheckResult("failed", "broken"))
    monkeypatch.setattr(cli, "_run", lambda names: [Outcome(ident, ident.check())])
    assert main(["proofs", "check"]) == 1
    assert "FAILED" in capsys.readouterr().out


def test_regenerate_reproduces_the_committed_files(tmp_path, capsys, monkeypatch, check):
    """`optmech proofs regenerate` writes files byte-identical to the committed
    docs/identities.md and docs/claims.md (they are current, and rendering is
    deterministic); --json prints one object with the paths and the counts, and nothing
    reaches stderr.  The identities are checked once per session (the ``check`` fixture,
    shared with the per-paper tests) instead of a second time here."""
    import proofs.registry
    from optmech.cli import main

    check.many(i.name for i in identities())
    monkeypatch.setattr(proofs.registry, "check_one", lambda ident: check(ident.name))
    out, claims_out = tmp_path / "identities.md", tmp_path / "c.md"
    assert main(["proofs", "regenerate", "--output", str(out), "--claims-output",
                 str(claims_out), "--json"]) == 0
    captured = capsys.readouterr()
    assert without_status(captured.err) == []
    payload = json.loads(captured.out)
    assert payload["written"] == [str(out), str(claims_out)]
    assert payload["identities"]["failed"] == 0
    assert payload["identities"]["total"] == sum(payload["identities"][s] for s in
                                                 ("verified", "erratum", "failed"))
    assert payload["claims"]["listed"] == payload["claims"]["covered"] + \
        payload["claims"]["not checkable here"]
    assert out.read_bytes() == Path(DEFAULT_PATH).read_bytes(), \
        "docs/identities.md is stale: run `optmech proofs regenerate`"
    assert claims_out.read_bytes() == CLAIMS_PATH.read_bytes(), \
        "docs/claims.md is stale: run `optmech proofs regenerate`"


def test_default_paths_of_an_installed_copy(tmp_path, monkeypatch):
    """Run as if installed (no source checkout beside the package): the default is docs/
    under the current directory, created if missing, with claims.md beside identities.md;
    the paths are checked before any identity runs."""
    from optmech.cli import proofs as cli
    from proofs import report

    monkeypatch.setattr(report, "checkout_docs", lambda: None)
    monkeypatch.chdir(tmp_path)
    assert cli.output_paths(None, None) == (tmp_path / "docs" / "identities.md",
                                            tmp_path / "docs" / "claims.md")
    assert (tmp_path / "docs").is_dir()
    custom = tmp_path / "out.md"
    assert cli.output_paths(custom, None) == (custom, tmp_path / "claims.md")


def test_an_impossible_default_asks_for_output_before_any_work(tmp_path, monkeypatch,
                                                                capsys):
    """Installed copy, and ./docs cannot be created (a file of that name is in the way):
    one line on stderr asking for --output, exit 2, no identity checked."""
    from optmech.cli import proofs as cli
    from proofs import report

    (tmp_path / "docs").write_text("not a folder")
    monkeypatch.setattr(report, "checkout_docs", lambda: None)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(cli, "_run", lambda names: pytest.fail("checks ran before the path "
                                                               "was validated"))
    code, _, err = run_cli_error(capsys, "proofs", "regenerate")
    assert code == 2 and err.count("\n") == 1 and "--output" in err


def test_render_is_a_pure_function():
    ident = Identity("secretary.demo", "secretary", "statement", "Eq(x, 1)",
                     "Grining et al., Fact 1 | Fact 2", ("asymptotic limit",),
                     lambda: CheckResult("verified", "line 1\nline 2"))
    outcomes = [Outcome(ident, ident.check())]
    text = render(outcomes)
    assert text == render(outcomes)
    assert "| [`secretary.demo`](#secretarydemo) | verified | asymptotic limit | " \
           "Grining et al., Fact 1 \\| Fact 2 |" in text
    assert "Paper: K. Grining, M. Klonowski, M. Sulkowska" in text
    assert "### secretary.demo" in text and "```text\nline 1\nline 2\n```" in text
