"""The on-disk cache of a sweep.

Cache: with ``cache_dir`` each cell's result is stored as ``<key>.json``, the key being the
sha256 of the function's qualified name, the cell's parameters and the optmech version.
An entry records its format version, its key, its value and an HMAC-SHA256 signature of
key and value under a secret key of the user (:func:`cache_secret_path`: 32 random bytes,
created whole on first use, readable by the user only; a key file that is a link, a FIFO,
a device or over 1,024 bytes is refused, naming it).  Entries are written atomically
(:mod:`lp_models.atomic`: a temporary file renamed into place; a failed write removes its
temporary file, and the temporary files of sweeps that were killed are removed by the next
sweep).  On reading,
an entry is opened without following symbolic links and without blocking, and used only if
it is a regular file of at most :data:`MAX_ENTRY_BYTES` holding JSON of this format, with
this key and a valid signature; anything else (a damaged, foreign, forged or
other-version entry, a FIFO, a directory, a link to ``/dev/zero``, JSON nested too deep) is
*never used*: it is recomputed and overwritten, with one line on stderr saying so.  A cache
folder that cannot be written (a full disk, an entry that is a directory) does not stop
the sweep: one line on stderr says so and the remaining cells are computed without caching.
What the signature does and does not protect against is in ``docs/security.md``.
"""

from __future__ import annotations

import errno
import hashlib
import hmac
import json
import os
import secrets
import stat
import sys
from pathlib import Path

from lp_models.atomic import create_exclusive, remove_stale_temporaries, write_text
from optmech.jsonable import from_json
from optmech.sweep.cells import _canonical
from optmech.validation import InvalidArgumentError

__all__ = ["CACHE_FORMAT", "MAX_ENTRY_BYTES", "cache_secret_path"]

CACHE_FORMAT = 2
MAX_ENTRY_BYTES = 64 * 2**20  # a cache entry larger than this is damaged, not read


def _note(message: str) -> None:
    print(f"optmech: warning: {message}", file=sys.stderr)


def cache_secret_path() -> Path:
    """Where the key that signs cache entries lives: ``$OPTMECH_CACHE_KEY`` if set, else
    ``optmech/cache-key`` in the user's configuration folder (``$XDG_CONFIG_HOME`` or
    ``~/.config``)."""
    explicit = os.environ.get("OPTMECH_CACHE_KEY")
    if explicit:
        return Path(explicit)
    config = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"),
                                                               ".config")
    return Path(config) / "optmech" / "cache-key"


def _cache_secret() -> bytes:
    """The user's signing key (created whole, readable by the user only, on first use).
    A key file that is not a regular file of 32 to 1,024 bytes (a link, a FIFO, a device,
    a folder) is bad input naming the file, never followed or read from."""
    path = cache_secret_path()
    for _ in range(2):
        try:
            secret = _read_regular(path, 1024)
        except FileNotFoundError:
            secret = None
        except (_Damaged, OSError) as error:
            why = (f"it is {error}" if isinstance(error, _Damaged)
                   else f"it cannot be read: {error.strerror}")
            # a link or an oversized file may be deleted; never advise deleting a device
            remedy = ("delete it to have a new one made, or set OPTMECH_CACHE_KEY to another "
                      "file" if str(error) in ("a symbolic link", "larger than 1024 bytes")
                      else "set OPTMECH_CACHE_KEY to another file")
            raise InvalidArgumentError(
                "cache_dir", str(path), f"usable with its signing key file {str(path)!r}, "
                f"a regular file of 32 to 1024 bytes ({why}; {remedy})") from None
        if secret is not None:
            if len(secret) < 32:
                raise InvalidArgumentError("cache_dir", str(path),
                                           "usable with a signing key of at least 32 bytes "
                                           "(delete the file to have a new one made)")
            return secret
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            create_exclusive(path, secrets.token_bytes(32), permissions=0o600)
        except OSError as error:
            raise InvalidArgumentError("cache_dir", str(path), "usable with a signing key "
                                       f"that can be created ({error.strerror}; set "
                                       "OPTMECH_CACHE_KEY to a writable file)") from None
    return _read_regular(path, 1024)


def _signature(secret: bytes, key: str, value) -> str:
    message = f"{CACHE_FORMAT}\n{key}\n{_canonical(value)}".encode()
    return hmac.new(secret, message, hashlib.sha256).hexdigest()


class _Damaged(Exception):
    """A cache entry that must not be used (the reason is the message)."""


def _read_regular(path: Path, limit: int) -> bytes:
    """The bytes of the regular file ``path`` (at most ``limit``), opened without following
    a symbolic link and without blocking; :class:`_Damaged` for anything else."""
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        handle = os.open(path, flags)
    except OSError as error:
        if error.errno == errno.ENOENT:
            raise
        what = ("a symbolic link" if error.errno == errno.ELOOP
                else f"unreadable ({error.strerror})")
        raise _Damaged(what) from None
    try:
        mode = os.fstat(handle)
        if not stat.S_ISREG(mode.st_mode):
            raise _Damaged("a folder" if stat.S_ISDIR(mode.st_mode) else "not a regular file")
    except BaseException:
        os.close(handle)
        raise
    with os.fdopen(handle, "rb") as entry:
        if mode.st_size > limit:
            raise _Damaged(f"larger than {limit} bytes")
        data = entry.read(limit + 1)
    if len(data) > limit:
        raise _Damaged(f"larger than {limit} bytes")
    return data


def _load(path: Path, key: str, secret: bytes):
    """``(True, value)`` for a valid cache entry; ``(False, None)`` if there is none or it is
    not to be used (then it is reported and will be recomputed)."""
    try:
        entry = json.loads(_read_regular(path, MAX_ENTRY_BYTES))
        valid = (isinstance(entry, dict) and entry.get("format") == CACHE_FORMAT
                 and entry.get("key") == key and "value" in entry
                 and isinstance(entry.get("signature"), str)
                 and hmac.compare_digest(entry["signature"],
                                         _signature(secret, key, entry["value"])))
        if valid:
            return True, from_json(_canonical(entry["value"]))
        reason = "damaged, unsigned, or from another version"
    except FileNotFoundError:
        return False, None
    except _Damaged as damage:
        reason = str(damage)
    except (ValueError, RecursionError, UnicodeDecodeError, OSError, TypeError):
        reason = "not valid JSON"
    _note(f"cache entry {path.name} is not used ({reason}); recomputing it")
    return False, None


class _Cache:
    """The cache folder of one sweep (or none): reads entries, writes them atomically, and
    stops writing (one warning) when the folder cannot take them."""

    def __init__(self, cache_dir):
        self.folder = None if cache_dir is None else _cache_folder(cache_dir)
        self.secret = b"" if self.folder is None else _cache_secret()
        if self.folder is not None:
            remove_stale_temporaries(self.folder)

    def load(self, key: str):
        if self.folder is None:
            return False, None
        return _load(self.folder / f"{key}.json", key, self.secret)

    def store(self, key: str, value) -> None:
        if self.folder is None:
            return
        entry = {"format": CACHE_FORMAT, "key": key, "value": value,
                 "signature": _signature(self.secret, key, value)}
        try:   # whole or not at all: a killed sweep leaves no half entry
            write_text(self.folder / f"{key}.json", _canonical(entry), permissions=0o644)
        except OSError as error:
            _note(f"cannot write cache entries in {self.folder} ({error.strerror}); the "
                  "remaining cells are computed without caching")
            self.folder = None


def _cache_folder(cache_dir) -> Path:
    cache = Path(cache_dir)
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError:
        raise InvalidArgumentError("cache_dir", str(cache_dir),
                                   "a folder that exists or can be created") from None
    if not os.access(cache, os.W_OK):
        raise InvalidArgumentError("cache_dir", str(cache_dir), "a writable folder")
    return cache
