"""Output files that appear whole or not at all, and never through a symbolic link.

Every file optmech writes (a figure, a CSV table, a report, an MPS file, a benchmark table,
a cache entry, the cache's signing key) goes through this module; a new command writes its
files with the same calls:

* :func:`write_text` / :func:`write_bytes`: a whole file from a string or bytes;
* :func:`atomic_write`: a file written through a handle (``csv.writer``,
  ``Figure.savefig(handle, format="png")``), ``with atomic_write(path, "w") as handle:``;
* :func:`atomic_path`: a temporary path, in a private folder, for a writer that takes only
  a file name (HiGHS's ``writeModel``), renamed into place when the block ends;
* :func:`remove_stale_temporaries`: remove what writers killed mid-write left behind (each
  of the calls above does so, once per process, in every folder it writes into).

Method.  The data goes to a new temporary file in the target's own folder, created with
``O_CREAT | O_EXCL | O_NOFOLLOW`` relative to a descriptor of that folder (so neither a
file nor a link planted under the temporary name is ever opened), and is renamed over the
target with ``os.replace`` relative to the same descriptor.  Choices, each for one reason:

* *Same folder, then rename*: a rename within one file system is atomic, so a reader, a
  killed process (SIGKILL mid-write left a 65,668-byte PNG of 183,243 before) or a full
  disk (a failed write left 0-byte files) sees the old file or the new one, never a part.
  A failed or interrupted write removes its temporary file (an exception anywhere from
  the file's creation on, SIGINT and, in the ``optmech`` command, SIGTERM included); one
  killed by SIGKILL leaves a hidden ``.optmech-<pid>-<token>.part`` file, which the next
  process to write into that folder removes (:func:`remove_stale_temporaries`, run once
  per process and folder: 3 of 30 runs killed by SIGTERM or SIGKILL mid-write had left a
  0-byte one beside the output, for good).  A temporary file is stale when no process of
  its id runs (asked of this machine's kernel, so a folder shared with the processes of
  another machine or PID namespace must not be written by both at once).
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


# The folders (device, inode) whose stale temporaries this process has removed.
_SWEPT: set[tuple[int, int]] = set()


def _open_folder(folder, dir_fd: int | None = None) -> int:
    """A descriptor of the folder ``folder``; with ``dir_fd``, of the entry ``folder`` of
    that folder, which must not be a link."""
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)
    if dir_fd is not None:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    return os.open(folder, flags, dir_fd=dir_fd)


def _folder_descriptor(folder: Path) -> int:
    """An open descriptor of ``folder``; the first time this process writes there, the
    stale temporaries in it are removed first (:func:`remove_stale_temporaries`)."""
    descriptor = _open_folder(folder)
    identity = os.fstat(descriptor)
    if (identity.st_dev, identity.st_ino) not in _SWEPT:
        _remove_stale(descriptor)
    return descriptor


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
        try:        # from before the file exists: an interrupt just after it does is caught
            handle = _create(folder_fd, name, mode)
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
        try:        # from before the folder exists, as for _staged
            os.mkdir(private, 0o700, dir_fd=folder_fd)
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
    process no longer runs); returns how many were removed.  Every write into a folder does
    this once per process (the first one)."""
    try:
        descriptor = _open_folder(folder)
    except OSError:
        return 0
    try:
        return _remove_stale(descriptor)
    finally:
        os.close(descriptor)


def _remove_stale(folder_fd: int) -> int:
    """:func:`remove_stale_temporaries` on an open folder (names relative to its
    descriptor, links never followed); the folder is marked as done for this process."""
    identity = os.fstat(folder_fd)
    _SWEPT.add((identity.st_dev, identity.st_ino))
    removed = 0
    with contextlib.suppress(OSError), os.scandir(folder_fd) as entries:
        for entry in entries:
            found = _TEMPORARY.match(entry.name)
            if not found or int(found.group(1)) == os.getpid() or _running(
                    int(found.group(1))):
                continue
            with contextlib.suppress(OSError):
                if entry.is_dir(follow_symlinks=False):       # atomic_path's private folder
                    inner = _open_folder(entry.name, folder_fd)
                    try:
                        for name in os.listdir(inner):
                            os.unlink(name, dir_fd=inner)
                    finally:
                        os.close(inner)
                    os.rmdir(entry.name, dir_fd=folder_fd)
                else:
                    os.unlink(entry.name, dir_fd=folder_fd)
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
