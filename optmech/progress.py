"""Progress bars for long sweeps (tqdm on stderr; silent when stderr is not a terminal)."""

from __future__ import annotations

import sys
from typing import Iterable, Iterator, TypeVar

T = TypeVar("T")

__all__ = ["progress"]


class _Silent:
    """What a progress bar offers (iteration, ``update``, ``close``, ``with``), doing
    nothing: used when no bar is shown, so tqdm is not even imported."""

    def __init__(self, iterable: Iterable[T]):
        self._iterable = iterable

    def __iter__(self) -> Iterator[T]:
        return iter(self._iterable)

    def update(self, n: int = 1) -> None:
        pass

    def close(self) -> None:
        pass

    def __enter__(self) -> "_Silent":
        return self

    def __exit__(self, *exc) -> None:
        pass


def progress(iterable: Iterable[T], *, total: int | None = None, desc: str | None = None,
             enabled: bool | None = None):
    """Wrap ``iterable`` in a progress bar written to stderr (a ``tqdm`` object: iterate it,
    or ``update`` it inside ``with``).

    ``enabled=None`` shows the bar only when stderr is a terminal, so ``--json`` output
    piped into another program stays clean.
    """
    disable = (not sys.stderr.isatty()) if enabled is None else (not enabled)
    if disable:
        return _Silent(iterable)
    from tqdm.auto import tqdm  # imported only when a bar is shown

    return tqdm(iterable, total=total, desc=desc, file=sys.stderr, leave=False,
                dynamic_ncols=True)
