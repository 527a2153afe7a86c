"""Every file a command writes appears whole or not at all, never through a link: links
planted inside an output folder are replaced (their targets untouched), a link the user
names is refused before any work (exit 2), and a full disk leaves no file behind."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from optmech.cli import main
from optmech.reproduce import new_result
from proofs.registry import CheckResult, Identity, Outcome
from tests.cli_helpers import run_cli_error, without_status

REPO = Path(__file__).resolve().parents[3]
SMALL_SWEEP = ["hetero", "run", "--scenario", "1", "--eps", "1", "--trials", "1",
               "--mechanisms", "uniform,rnm"]


def _victim(tmp_path) -> Path:
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    return victim


def test_reproduce_replaces_a_link_planted_in_its_folder(tmp_path, capsys, monkeypatch):
    import optmech.reproduce._runner as runner

    victim, out = _victim(tmp_path), tmp_path / "rep"
    out.mkdir()
    (out / "report.md").symlink_to(victim)
    monkeypatch.setattr(runner, "run_areas", lambda names, quick, folder: [
        runner.AreaRun("demo", [new_result("demo", "a row", 1.0)], 0.0)])
    assert main(["reproduce", "--out", str(out), "--json"]) == 0
    capsys.readouterr()
    assert victim.read_text() == "precious"
    assert not (out / "report.md").is_symlink() and "## demo" in (out / "report.md").read_text()


def test_regenerate_refuses_a_link_at_the_file_it_was_not_named(tmp_path, capsys,
                                                                monkeypatch):
    """claims.md beside the identities file is checked with it, before any identity runs:
    a link there is refused (exit 2, naming --claims-output), never written through."""
    from optmech.cli import proofs as cli

    victim, folder = _victim(tmp_path), tmp_path / "pr"
    folder.mkdir()
    (folder / "claims.md").symlink_to(victim)
    monkeypatch.setattr(cli, "_run", lambda names: pytest.fail("checks ran first"))
    code, out, err = run_cli_error(capsys, "proofs", "regenerate", "--output",
                                   str(folder / "identities.md"))
    lines = without_status(err)
    assert code == 2 and len(lines) == 1 and "--claims-output" in lines[0]
    assert victim.read_text() == "precious" and sorted(os.listdir(folder)) == ["claims.md"]


def test_a_failed_check_writes_nothing(tmp_path, capsys, monkeypatch):
    """regenerate writes only from a run where every check passed (one line, exit 1)."""
    from optmech.cli import proofs as cli

    good = Identity("secretary.good", "secretary", "s", "x", "Fact 1", ("asymptotic limit",),
                    lambda: CheckResult("verified", "ok"))
    bad = Identity("secretary.bad", "secretary", "s", "x", "Fact 2", ("asymptotic limit",),
                   lambda: CheckResult("failed", "out of memory"))
    monkeypatch.setattr(cli, "_run", lambda names: [Outcome(i, i.check()) for i in (good, bad)])
    identities, claims = tmp_path / "identities.md", tmp_path / "claims.md"
    assert main(["proofs", "regenerate", "--output", str(identities), "--claims-output",
                 str(claims)]) == 1
    lines = without_status(capsys.readouterr().err)
    assert len(lines) == 1 and "nothing written" in lines[0] and "secretary.bad" in lines[0]
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("option, name", [("--csv", "table.csv"), ("--plot", "figure.png")])
def test_a_named_link_is_refused_before_any_work(tmp_path, capsys, option, name):
    victim = _victim(tmp_path)
    (tmp_path / name).symlink_to(victim)
    code, out, err = run_cli_error(capsys, *SMALL_SWEEP, option, str(tmp_path / name))
    assert code == 2 and out == "" and err.count("\n") == 1
    assert option in err and "symbolic link" in err and victim.read_text() == "precious"


def _disk_full() -> None:
    """In the child: every file write beyond 16 bytes fails (EFBIG), as on a full disk."""
    import resource

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (16, 16))


def test_a_full_disk_leaves_no_file_behind(tmp_path):
    """Exit 1 with one line; neither the CSV nor the PNG nor a temporary file is left."""
    done = subprocess.run([sys.executable, "-m", "optmech", *SMALL_SWEEP, "--csv",
                           str(tmp_path / "t.csv"), "--plot", str(tmp_path / "f.png")],
                          cwd=REPO, capture_output=True, text=True, preexec_fn=_disk_full,
                          timeout=600)
    lines = without_status(done.stderr)
    assert done.returncode == 1 and len(lines) == 1 and "Traceback" not in done.stderr, \
        done.stderr[-2000:]
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("kind", ["link", "fifo", "device", "oversized", "folder"])
def test_a_cache_key_that_is_not_a_small_regular_file_is_refused_by_name(
        tmp_path, capsys, monkeypatch, kind):
    key = tmp_path / "cache-key"
    if kind == "link":
        key.symlink_to(tmp_path / "elsewhere")
        (tmp_path / "elsewhere").write_bytes(b"k" * 32)
    elif kind == "fifo":
        os.mkfifo(key)
    elif kind == "device":
        key = Path(os.devnull)
    elif kind == "oversized":
        key.write_bytes(b"k" * 1025)
    else:
        key.mkdir()
    monkeypatch.setenv("OPTMECH_CACHE_KEY", str(key))
    code, out, err = run_cli_error(capsys, *SMALL_SWEEP, "--cache", str(tmp_path / "cache"))
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert "--cache" in err and str(key) in err and "signing key" in err
    # deleting is advised for what may be deleted, never for a device or a FIFO
    assert ("delete it" in err) == (kind in ("link", "oversized")), err
