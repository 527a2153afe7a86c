"""Progress bars for long sweeps (tqdm on stderr; silent when stderr is not a terminal)."""

from __future__ import annotations

import sys
from typing import Iterable, TypeVar

from tqdm.auto import tqdm

T = TypeVar("T")

__all__ = ["progress"]


def progress(iterable: Iterable[T], *, total: int | None = None, desc: str | None = None,
             enabled: bool | None = None) -> Iterable[T]:
    """Wrap ``iterable`` in a progress bar written to stderr.

    ``enabled=None`` shows the bar only when stderr is a terminal, so ``--json`` output
    piped into another program stays clean.
    """
    disable = (not sys.stderr.isatty()) if enabled is None else (not enabled)
    return tqdm(iterable, total=total, desc=desc, disable=disable, file=sys.stderr,
                leave=False, dynamic_ncols=True)
