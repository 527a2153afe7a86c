"""Output files that appear whole or not at all, and never through a symbolic link.

Every file optmech writes (a figure, a CSV table, a report, an MPS file, a benchmark table,
a cache entry, the cache's signing key) goes through this module; a new command writes its
files with the same calls:

* :func:`write_text` / :func:`write_bytes`: a whole file from a string or bytes;
* :func:`atomic_write`: a file written through a handle (``csv.writer``,
  ``Figure.savefig(handle, format="png")``), ``with atomic_write(path, "w") as handle:``;
* :func:`atomic_path`: a temporary path, in a private folder, for a writer that takes only
  a file name (HiGHS's ``writeModel``), renamed into place when the block ends;
* :func:`remove_stale_temporaries`: remove what writers killed mid-write left behind.

Method.  The data goes to a new temporary file in the target's own folder, created with
``O_CREAT | O_EXCL | O_NOFOLLOW`` relative to a descriptor of that folder (so neither a
file nor a link planted under the temporary name is ever opened), and is renamed over the
target with ``os.replace`` relative to the same descriptor.  Choices, each for one reason:

* *Same folder, then rename*: a rename within one file system is atomic, so a reader, a
  killed process (SIGKILL mid-write left a 65,668-byte PNG of 183,243 before) or a full
  disk (a failed write left 0-byte files) sees the old file or the new one, never a part.
  A failed write removes its temporary file; one killed by SIGKILL leaves a hidden
  ``.optmech-<pid>-<token>.part`` file, which :func:`remove_stale_temporaries` removes once
  that process is gone.
* *A link in the way is replaced, never followed*: a rename replaces the directory entry
  itself, so a symbolic link planted at the target (``report.md -> ../victim.txt`` inside
  an output folder) becomes a regular file and its target is untouched.  A path the user
  names on the command line is checked before any work instead, and a link there is
  refused (exit status 2): the user then learns that the file would not go where the link
  points.
* *The folder's descriptor*: the temporary file and the rename are both relative to one
  open descriptor of the folder, so a folder swapped for a link between the two steps
  cannot send the file elsewhere.
* *No fsync*: the guarantee is against the writing process dying or failing, not the
  machine losing power (an fsync per figure cost more than the figure on a busy disk).

New files get the permissions of an ordinary ``open`` (``0o666`` less the umask), or the
``mode`` given (``0o600`` for the cache's signing key).  The folder must exist (callers
create output folders first).  This module imports nothing from optmech, so
:mod:`lp_models` (``LinearProgram.write``, ``Tabular.to_csv``) uses it too.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
from pathlib import Path
from typing import IO, Iterator

__all__ = ["PREFIX", "atomic_path", "atomic_write", "create_exclusive",
           "remove_stale_temporaries", "write_bytes", "write_text"]

#: How the names of temporary files start (hidden, with the writing process's id).
PREFIX = ".optmech-"
_TEMPORARY = re.compile(r"^\.optmech-(\d+)-[0-9a-f]+\.part$")
_FLAGS = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
          | getattr(os, "O_CLOEXEC", 0))


def _folder_descriptor(folder: Path) -> int:
    return os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0)
                   | getattr(os, "O_CLOEXEC", 0))


def _temporary_name() -> str:
    return f"{PREFIX}{os.getpid()}-{secrets.token_hex(6)}.part"


def _create(folder_fd: int, name: str, mode: int) -> int:
    return os.open(name, _FLAGS, mode, dir_fd=folder_fd)


@contextlib.contextmanager
def _staged(path, mode: int) -> Iterator[int]:
    """The descriptor of a new temporary file beside ``path``, renamed over ``path`` when
    the block ends normally and removed otherwise."""
    path = Path(path)
    folder_fd = _folder_descriptor(path.parent if str(path.parent) else Path("."))
    try:
        name = _temporary_name()
        handle = _create(folder_fd, name, mode)
        try:
            yield handle
            os.replace(name, path.name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(name, dir_fd=folder_fd)
            raise
    finally:
        os.close(folder_fd)


@contextlib.contextmanager
def atomic_write(path, mode: str = "w", *, encoding: str | None = "utf-8",
                 newline: str | None = None, permissions: int = 0o666) -> Iterator[IO]:
    """A handle on a new temporary file; when the block ends normally the file replaces
    ``path`` (a link at ``path`` is replaced, not followed), otherwise it is removed and
    ``path`` is left as it was.  ``mode`` is ``"w"`` (text, ``encoding``, ``newline`` as
    for :func:`open`) or ``"wb"``."""
    if mode not in ("w", "wb"):
        raise ValueError(f"mode must be 'w' or 'wb', got {mode!r}")
    with _staged(path, permissions) as handle:
        text = {"encoding": encoding, "newline": newline} if mode == "w" else {}
        with os.fdopen(handle, mode, **text) as stream:
            yield stream


def write_text(path, text: str, *, encoding: str = "utf-8", newline: str | None = None,
               permissions: int = 0o666) -> Path:
    """Write ``text`` to ``path`` atomically (:func:`atomic_write`); returns the path."""
    with atomic_write(path, "w", encoding=encoding, newline=newline,
                      permissions=permissions) as out:
        out.write(text)
    return Path(path)


def write_bytes(path, data: bytes, *, permissions: int = 0o666) -> Path:
    """Write ``data`` to ``path`` atomically (:func:`atomic_write`); returns the path."""
    with atomic_write(path, "wb", permissions=permissions) as out:
        out.write(data)
    return Path(path)


@contextlib.contextmanager
def atomic_path(path) -> Iterator[Path]:
    """A temporary path for a writer that takes only a file name: ``path``'s name inside a
    new private folder (mode ``0o700``, so nobody else can put a link there) beside
    ``path``; when the block ends normally the file written there replaces ``path``, and the
    private folder is removed either way."""
    path = Path(path)
    folder_fd = _folder_descriptor(path.parent if str(path.parent) else Path("."))
    private = _temporary_name()
    try:
        os.mkdir(private, 0o700, dir_fd=folder_fd)
        try:
            yield path.parent / private / path.name
            os.replace(os.path.join(private, path.name), path.name, src_dir_fd=folder_fd,
                       dst_dir_fd=folder_fd)
        finally:
            with contextlib.suppress(OSError):
                os.unlink(os.path.join(private, path.name), dir_fd=folder_fd)
            with contextlib.suppress(OSError):
                os.rmdir(private, dir_fd=folder_fd)
    finally:
        os.close(folder_fd)


def create_exclusive(path, data: bytes, *, permissions: int = 0o600) -> bool:
    """Create ``path`` holding ``data`` unless it exists (whatever it is: a file, a link, a
    folder); True if this call created it.  The file appears whole (written under a
    temporary name, then hard-linked to ``path``, which never replaces an existing entry),
    so two processes racing to create it agree on one content."""
    path = Path(path)
    folder_fd = _folder_descriptor(path.parent if str(path.parent) else Path("."))
    name = _temporary_name()
    try:
        handle = _create(folder_fd, name, permissions)
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        try:
            os.link(name, path.name, src_dir_fd=folder_fd, dst_dir_fd=folder_fd,
                    follow_symlinks=False)
        except FileExistsError:
            return False
        return True
    finally:
        with contextlib.suppress(OSError):
            os.unlink(name, dir_fd=folder_fd)
        os.close(folder_fd)


def remove_stale_temporaries(folder) -> int:
    """Remove the temporary files in ``folder`` left by writers that were killed (their
    process no longer runs); returns how many were removed."""
    removed = 0
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            found = _TEMPORARY.match(entry.name)
            if found and int(found.group(1)) != os.getpid() and not _running(
                    int(found.group(1))):
                with contextlib.suppress(OSError):
                    if entry.is_dir(follow_symlinks=False):
                        for inner in os.listdir(entry.path):
                            os.unlink(os.path.join(entry.path, inner))
                        os.rmdir(entry.path)
                    else:
                        os.unlink(entry.path)
                    removed += 1
    return removed


def _running(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError as error:        # EPERM: it runs, as another user
        return error.errno == errno.EPERM
    return True
