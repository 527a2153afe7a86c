"""Progress of long work on stderr: a tqdm bar on a terminal, status lines elsewhere.

One reporter serves every long computation (sweeps, the reproduction, identity checks, the
lattice bracket).  Its output depends on where stderr goes:

* a terminal: a ``tqdm`` bar per :func:`progress` (nested bars stack);
* anything else (a file, a pipe, a CI log), when status lines are switched on (the
  ``optmech`` command does so unless ``--quiet``): every :data:`INTERVAL` seconds while a
  loop is active, one short line such as
  ``optmech: reproduce 3/9 (secretary) > optimal vs p-mix 12/40, 45 s`` naming every active
  loop from the outermost in, with the current item each loop was given by
  ``set_postfix_str`` (the bracket of ``lattice bound``).  A background thread writes the
  lines, so a single long step (one large LP solve) does not silence them.  Nothing is
  written for work that ends within the first interval, except that a command estimated
  to take a second or more writes its first line at once (:func:`activity`);
* nothing at all when quiet (:func:`reporting`), and off a terminal by default when optmech
  is used as a library, so a script's stderr stays its own.

stdout is never written, so ``--json`` output stays parseable.  The interval is read from
the environment variable ``OPTMECH_PROGRESS_SECONDS`` (default 5) when reporting is set
up (:func:`reporting`).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from typing import Iterable, Iterator, TypeVar

T = TypeVar("T")

__all__ = ["INTERVAL", "activity", "progress", "reporting"]

INTERVAL = 5.0          # seconds between two status lines off a terminal


class _Reporter:
    """Process-wide settings, the stack of active loops (outermost first) and the thread
    that writes their status line every ``interval`` seconds while the stack is not empty."""

    def __init__(self) -> None:
        self.lines = False          # status lines off a terminal
        self.quiet = False          # nothing at all, terminal or not
        self.interval = INTERVAL
        self.stack: list[_Lines] = []
        self.started = self.last = time.monotonic()
        self.wake = threading.Event()
        self.thread: threading.Thread | None = None

    def push(self, loop: "_Lines") -> None:
        self.stack.append(loop)
        if self.thread is None or not self.thread.is_alive():
            self.thread = threading.Thread(target=self._tick, name="optmech-progress",
                                           daemon=True)
            self.thread.start()
        self.wake.set()

    def pop(self, loop: "_Lines") -> None:
        if loop in self.stack:
            self.stack.remove(loop)

    def _tick(self) -> None:
        """Write a line once ``interval`` seconds have passed since the start of reporting
        or the last line, while a loop is active; sleep while idle."""
        while True:
            self.wake.wait()
            self.wake.clear()
            while self.stack:
                time.sleep(min(max(self.interval, 0.001), 0.25))
                stack = list(self.stack)
                if stack and time.monotonic() - self.last >= self.interval:
                    self.last = time.monotonic()
                    self.write(stack)

    def write_now(self) -> None:
        """Write the status line of the active loops now (the next one follows an interval
        later)."""
        self.last = time.monotonic()
        self.write(list(self.stack))

    def write(self, stack: list["_Lines"]) -> None:
        text = " > ".join(p for p in (loop.describe() for loop in stack) if p)
        elapsed = time.monotonic() - self.started
        try:
            print(f"optmech: {text}, {elapsed:.0f} s", file=sys.stderr, flush=True)
        except (OSError, ValueError):   # stderr closed or gone: progress is not the result
            pass


_REPORTER = _Reporter()


def _forked_child() -> None:
    """A forked pool worker reports nothing: its parent's loop already counts its cells."""
    global _REPORTER
    _REPORTER = _Reporter()


os.register_at_fork(after_in_child=_forked_child)


@contextlib.contextmanager
def reporting(*, lines: bool | None = None, quiet: bool | None = None,
              interval: float | None = None):
    """Within the ``with`` block, report progress this way (the ``optmech`` command wraps
    each run in it); the previous settings come back afterwards.

    ``lines``: write status lines when stderr is not a terminal; ``quiet``: report nothing
    (no bar either); ``interval``: seconds between status lines (default: the environment
    variable ``OPTMECH_PROGRESS_SECONDS``, else :data:`INTERVAL`).  The elapsed time in the
    lines counts from the start of the block.
    """
    saved = (_REPORTER.lines, _REPORTER.quiet, _REPORTER.interval, _REPORTER.started,
             _REPORTER.last)
    if lines is not None:
        _REPORTER.lines = bool(lines)
    if quiet is not None:
        _REPORTER.quiet = bool(quiet)
    if interval is None:
        try:
            interval = float(os.environ.get("OPTMECH_PROGRESS_SECONDS", INTERVAL))
        except ValueError:
            interval = INTERVAL
    _REPORTER.interval = interval if interval >= 0 else INTERVAL
    _REPORTER.started = _REPORTER.last = time.monotonic()
    try:
        yield
    finally:
        (_REPORTER.lines, _REPORTER.quiet, _REPORTER.interval, _REPORTER.started,
         _REPORTER.last) = saved


class _Lines:
    """A loop reported by status lines: iterate it, or ``update`` it inside ``with``;
    ``set_postfix_str`` names the current item (as tqdm's does)."""

    def __init__(self, iterable: Iterable[T] | None, total: int | None, desc: str | None,
                 at_once: bool = False):
        self._iterable = iterable
        self._at_once = at_once
        self.total = total
        self.desc = desc or ""
        self.n = 0
        self.postfix = ""
        self._open = False

    def describe(self) -> str:
        count = f"{self.n}/{self.total}" if self.total else (str(self.n) if self.n else "")
        text = " ".join(p for p in (self.desc, count) if p)
        return f"{text} ({self.postfix})" if self.postfix else text

    def _enter(self) -> None:
        if not self._open:
            self._open = True
            _REPORTER.push(self)
            if self._at_once:
                _REPORTER.write_now()

    def __iter__(self) -> Iterator[T]:
        self._enter()
        try:
            for item in self._iterable if self._iterable is not None else ():
                yield item
                self.n += 1
        finally:
            self.close()

    def update(self, n: int = 1) -> None:
        self._enter()
        self.n += n

    def set_postfix_str(self, text: str = "", refresh: bool = True) -> None:
        self._enter()
        self.postfix = str(text)

    def close(self) -> None:
        if self._open:
            self._open = False
            _REPORTER.pop(self)

    def __enter__(self) -> "_Lines":
        self._enter()
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class _Silent(_Lines):
    """A loop reported nowhere (quiet, or a library call off a terminal)."""

    def _enter(self) -> None:
        pass


def progress(iterable: Iterable[T] | None = None, *, total: int | None = None,
             desc: str | None = None, enabled: bool | None = None):
    """Wrap ``iterable`` in a progress report on stderr: iterate it, or ``update`` it
    inside ``with``; ``set_postfix_str`` names the current item or state.

    ``enabled=None`` (the default) shows a tqdm bar when stderr is a terminal and status
    lines otherwise when they are switched on (:func:`reporting`); ``enabled=False``
    reports nothing; ``enabled=True`` shows a bar wherever stderr goes.  Quiet wins over
    everything.
    """
    if total is None and iterable is not None and hasattr(iterable, "__len__"):
        total = len(iterable)
    if _REPORTER.quiet or enabled is False:
        return _Silent(iterable, total, desc)
    if enabled or sys.stderr.isatty():
        from tqdm.auto import tqdm  # imported only when a bar is shown

        return tqdm(iterable, total=total, desc=desc, file=sys.stderr, leave=False,
                    dynamic_ncols=True)
    if _REPORTER.lines:
        return _Lines(iterable, total, desc)
    return _Silent(iterable, total, desc)


def activity(desc: str, at_once: bool = False):
    """A status-line entry for work as a whole (the ``optmech`` command names itself with
    it, so every command that runs longer than an interval says what it is doing off a
    terminal, whether or not it has loops of its own); nothing on a terminal, where the
    loops' bars speak, and nothing when quiet.  ``at_once``: write the first line now
    rather than after an interval (the command expects to take a while: a busy machine
    then shows at once that it started).  Use it with ``with``."""
    if _REPORTER.lines and not _REPORTER.quiet and not sys.stderr.isatty():
        return _Lines(None, None, desc, at_once=at_once)
    return _Silent(None, None, desc)
