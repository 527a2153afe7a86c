"""Output files appear whole or not at all and never through a link (lp_models.atomic)."""

import errno
import os
import stat

import pytest

from lp_models.atomic import (
    atomic_path,
    atomic_write,
    create_exclusive,
    remove_stale_temporaries,
    write_bytes,
    write_text,
)


def _leftovers(folder):
    return [p.name for p in folder.iterdir() if p.name.startswith(".optmech-")]


def test_a_link_at_the_target_is_replaced_and_its_target_untouched(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("precious")
    out = tmp_path / "out"
    out.mkdir()
    (out / "report.md").symlink_to(victim)
    write_text(out / "report.md", "the report\n")
    assert victim.read_text() == "precious"
    assert not (out / "report.md").is_symlink()
    assert (out / "report.md").read_text() == "the report\n"
    assert _leftovers(out) == []


def test_a_write_that_fails_leaves_the_old_file_and_no_temporary(tmp_path):
    target = tmp_path / "table.csv"
    target.write_text("old\n")
    with pytest.raises(OSError, match="No space"):
        with atomic_write(target, "w") as handle:
            handle.write("half a tab")
            raise OSError(errno.ENOSPC, "No space left on device")
    assert target.read_text() == "old\n"
    assert _leftovers(tmp_path) == []


def test_a_new_file_that_fails_does_not_appear(tmp_path):
    with pytest.raises(KeyboardInterrupt):
        with atomic_write(tmp_path / "figure.png", "wb") as handle:
            handle.write(b"\x89PNG")
            raise KeyboardInterrupt
    assert list(tmp_path.iterdir()) == []


def test_bytes_and_text_round_trip_with_ordinary_permissions(tmp_path):
    umask = os.umask(0o022)
    os.umask(umask)
    write_bytes(tmp_path / "a.bin", b"\x00\x01")
    write_text(tmp_path / "b.md", "x\ny\n", newline="\n")
    assert (tmp_path / "a.bin").read_bytes() == b"\x00\x01"
    assert (tmp_path / "b.md").read_bytes() == b"x\ny\n"
    assert stat.S_IMODE((tmp_path / "b.md").stat().st_mode) == 0o666 & ~umask


def test_a_writer_that_takes_a_name_writes_in_a_private_folder(tmp_path):
    victim = tmp_path / "victim.mps"
    victim.write_text("precious")
    target = tmp_path / "model.mps"
    target.symlink_to(victim)
    with atomic_path(target) as staged:
        assert staged.name == "model.mps" and staged.parent != tmp_path
        assert stat.S_IMODE(staged.parent.stat().st_mode) & 0o077 == 0
        staged.write_text("NAME x\n")
    assert target.read_text() == "NAME x\n" and not target.is_symlink()
    assert victim.read_text() == "precious" and _leftovers(tmp_path) == []
    with pytest.raises(RuntimeError):
        with atomic_path(tmp_path / "other.mps") as staged:
            staged.write_text("half")
            raise RuntimeError("the writer failed")
    assert not (tmp_path / "other.mps").exists() and _leftovers(tmp_path) == []


def test_exclusive_creation_never_replaces_anything(tmp_path):
    key = tmp_path / "key"
    assert create_exclusive(key, b"first") is True
    assert create_exclusive(key, b"second") is False
    assert key.read_bytes() == b"first" and stat.S_IMODE(key.stat().st_mode) == 0o600
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "nowhere")
    assert create_exclusive(link, b"x") is False
    assert link.is_symlink() and not (tmp_path / "nowhere").exists()
    assert _leftovers(tmp_path) == []


def test_temporaries_of_dead_writers_are_removed(tmp_path):
    dead_file = tmp_path / ".optmech-999999999-0123456789ab.part"
    dead_folder = tmp_path / ".optmech-999999998-0123456789ab.part"
    alive = tmp_path / ".optmech-1-0123456789ab.part"       # init always runs
    other = tmp_path / ".optmech-notes"
    dead_file.write_text("{")
    dead_folder.mkdir()
    (dead_folder / "model.mps").write_text("x")
    alive.write_text("{")
    other.write_text("mine")
    assert remove_stale_temporaries(tmp_path) == 2
    assert sorted(_leftovers(tmp_path)) == [alive.name, other.name]
