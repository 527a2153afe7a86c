"""Uniform random integers for the exact samplers, from the OS CSPRNG or a numpy Generator.

Every random decision of the exact samplers (:mod:`optmech.selection.exact.sampling`) is made from
uniform integers drawn here, and all of them come from one stream of uniform random
bytes, :class:`RandomBytes`:

* ``rng=None`` (the default): :func:`secrets.token_bytes`, the operating system's
  cryptographically secure generator (``getrandom`` / ``/dev/urandom``);
* a ``numpy.random.Generator`` passed explicitly: its ``bytes`` method.  Only for
  reproducible tests: PCG64 is not a cryptographic generator (``docs/security.md``).

Uniform integers on ``{0, ..., bound - 1}`` by rejection: take ``k = bit_length(bound - 1)``
uniform bits (the top ``k`` bits of a uniform word) and accept the value if it is below
``bound``.  Each attempt gives every value ``< bound`` probability ``2^-k`` and attempts are
independent, so an accepted value is exactly uniform; an attempt succeeds with probability
``bound / 2^k > 1/2``.  Rejected positions are redrawn until none is left, which keeps the
accepted values independent of each other.  :meth:`RandomBytes.below` draws arrays of
them (bounds up to ``2^63``, numpy words); :meth:`RandomBytes.integer_below` draws one
Python integer, for any bound, from the top ``k`` bits of ``ceil(k / 8)`` bytes (the
samplers' one-coin-at-a-time paths, where numpy's per-call cost would dominate).
"""

from __future__ import annotations

import secrets

import numpy as np

from optmech.validation import InvalidArgumentError

__all__ = ["INT64_MAX", "RandomBytes", "bit_length", "to_int64_if_fits"]

INT64_MAX = (1 << 63) - 1
_BUFFER = 1 << 16            # largest block read from the source for small requests
_POWERS_OF_TWO = np.array([1 << k for k in range(63)], dtype=np.int64)
# the narrowest unsigned word holding k bits, for k = 0..64
_WORDS = [next(w for w in (8, 16, 32, 64) if w >= k) for k in range(65)]
_DTYPES = {8: np.uint8, 16: np.uint16, 32: np.uint32, 64: np.uint64}


def to_int64_if_fits(values: np.ndarray) -> np.ndarray:
    """``values`` (integers) as int64 if they all fit (not copied if int64 already), else
    unchanged."""
    try:
        return values.astype(np.int64, copy=False)
    except OverflowError:
        return values


def bit_length(values: np.ndarray) -> np.ndarray:
    """``int.bit_length`` of every non-negative int64: the number of powers of two
    ``2^0, ..., 2^62`` that are ``<= value``."""
    return np.searchsorted(_POWERS_OF_TWO, values, side="right")


class RandomBytes:
    """The one source of randomness of an exact sampler (see the module docstring)."""

    def __init__(self, rng=None):
        if rng is None:
            self._source = secrets.token_bytes
        elif isinstance(rng, np.random.Generator):
            self._source = rng.bytes
        else:
            raise InvalidArgumentError(
                "rng", rng, "None (the OS CSPRNG) or a numpy.random.Generator (tests only)")
        self._buffer, self._used = b"", 0

    def _bytes(self, count: int) -> bytes:
        """The next ``count`` bytes of the stream.  Small requests are served from a block
        (one system call instead of many; blocks double from 256 bytes up to ``_BUFFER``
        bytes); bytes left in a block are dropped, never reused, which leaves the stream
        uniform."""
        if count > _BUFFER // 4:
            return self._source(count)
        if self._used + count > len(self._buffer):
            size = min(max(2 * len(self._buffer), 256, 2 * count), _BUFFER)
            self._buffer, self._used = self._source(size), 0
        self._used += count
        return self._buffer[self._used - count:self._used]

    def integer_below(self, bound: int) -> int:
        """One uniform integer on ``[0, bound)`` (a Python int, any ``bound >= 1``)."""
        k = (bound - 1).bit_length()
        size = (k + 7) >> 3
        while True:
            value = int.from_bytes(self._bytes(size), "little") >> (8 * size - k)
            if value < bound:
                return value

    def words(self, count: int, dtype) -> np.ndarray:
        """``count`` independent uniform unsigned integers of ``dtype``."""
        dtype = np.dtype(dtype)
        return np.frombuffer(self._bytes(count * dtype.itemsize), dtype=dtype)

    def _top_bits(self, count: int, k: int) -> np.ndarray:
        """``count`` independent uniform integers on ``[0, 2^k)`` (``1 <= k <= 63``)."""
        width = _WORDS[k]
        dtype = _DTYPES[width]
        return (self.words(count, dtype) >> dtype(width - k)).astype(np.int64)

    def below(self, bound: int, count: int) -> np.ndarray:
        """``count`` independent uniform integers on ``[0, bound)``, ``1 <= bound <= 2^63``."""
        if bound == 1:
            return np.zeros(count, dtype=np.int64)
        k = (bound - 1).bit_length()
        out = self._top_bits(count, k)
        if bound == 1 << k:                   # a power of two: nothing to reject
            return out
        redo = (out >= bound).nonzero()[0]
        while redo.size:
            out[redo] = self._top_bits(redo.size, k)
            redo = redo[out[redo] >= bound]
        return out

    def below_each(self, bounds: np.ndarray) -> np.ndarray:
        """One uniform integer on ``[0, bounds[i])`` for every int64 ``bounds[i]`` in
        ``[1, 2^63 - 1]``, all independent."""
        if bounds.size and bounds.min() < 1:
            raise ValueError("below_each needs bounds >= 1")
        k = bit_length(bounds - 1).astype(np.uint64)
        out = np.empty(bounds.size, dtype=np.int64)
        redo = np.arange(bounds.size)
        while redo.size:
            # (w >> 1) >> (63 - k): the top k bits of a uniform 63-bit word (0 when k = 0).
            words = self.words(redo.size, np.uint64) >> np.uint64(1)
            out[redo] = (words >> (np.uint64(63) - k[redo])).astype(np.int64)
            redo = redo[out[redo] >= bounds[redo]]
        return out
