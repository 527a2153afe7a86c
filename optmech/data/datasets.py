"""Histograms for the data experiments: the built-in DPBench files or any ``.npy``/``.csv``.

A histogram is a one-dimensional array of non-negative integer counts (individuals per
bin, bins in domain order) with a positive total.  The built-in datasets are the DPBench
one-dimensional histograms (Hay et al., SIGMOD 2016) shipped in ``optmech/data/dpbench``
(see the README there) and read with :mod:`importlib.resources`, so they work from an
installed wheel:

=========== ======= ============ =====================================================
name        bins    total        used by the permute-and-flip paper (Section 6)
=========== ======= ============ =====================================================
HEPTH       4096    347 414      yes, coarsened to 1024 bins
ADULTFRANK  4096    17 665       yes, coarsened to 1024 bins
MEDCOST     4096    9 415        yes, coarsened to 1024 bins
SEARCHLOGS  4096    335 889      yes, coarsened to 1024 bins
PATENT      4096    27 948 226   yes, coarsened to 1024 bins
INCOME      4096    20 787 122   no (extra)
NETFLIX     17770   23 168 232   no (extra; 17770 has no divisor near 1024)
=========== ======= ============ =====================================================

ADULTFRANK is the "capital loss" attribute of the UCI Adult census data (Becker & Kohavi
1996, CC BY 4.0), as DPBench histograms it.  The paper coarsens every histogram to 1024
bins by summing 4 consecutive bins (:func:`coarsen`; the authors' notebook does
``x.reshape(1024, -1).sum(axis=1)``).

A ``.csv`` file holds the counts in one of three shapes
(:func:`optmech.data.csv_counts.read_csv_counts`): one count per line, optionally under a
one-field header line; the counts on one line separated by commas; or a table whose header
line names a ``count`` column.  Anything else is refused.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from optmech.data.csv_counts import read_csv_counts
from optmech.resources import Estimate, require_memory
from optmech.validation import InvalidArgumentError, as_real_array, check_integer

__all__ = [
    "DATASETS",
    "PAPER_BINS",
    "PAPER_DATASETS",
    "check_histogram",
    "coarsen",
    "dataset_estimate",
    "load_histogram",
]

_FILES = {
    "HEPTH": "HEPTH.n4096.npy",
    "ADULTFRANK": "ADULTFRANK.n4096.npy",
    "INCOME": "INCOME.n4096.npy",
    "MEDCOST": "MEDCOST.n4096.npy",
    "PATENT": "PATENT.n4096.npy",
    "SEARCHLOGS": "SEARCHLOGS.n4096.npy",
    "NETFLIX": "NETFLIX.n17770.npy",
}
_BUILTIN_BINS = {name: int(file.split(".n")[1].split(".")[0]) for name, file in _FILES.items()}
DATASETS = tuple(_FILES)
PAPER_DATASETS = ("HEPTH", "ADULTFRANK", "MEDCOST", "SEARCHLOGS", "PATENT")
PAPER_BINS = 1024

_HISTOGRAM = "a non-empty 1-D array of non-negative integer counts with a positive total"


def check_histogram(counts, argument: str = "counts") -> np.ndarray:
    """Validate a histogram and return it as an ``int64`` array (a copy).

    Raises :class:`InvalidArgumentError` for anything but a non-empty one-dimensional array
    of finite, non-negative, integer-valued counts whose total is positive (an all-zero
    histogram has no individuals: no mode or median).
    """
    values = as_real_array(counts, argument, _HISTOGRAM)
    if values.ndim != 1:
        raise InvalidArgumentError(argument, counts, _HISTOGRAM + f" (got {values.ndim}-D)")
    if values.size == 0:
        raise InvalidArgumentError(argument, counts, _HISTOGRAM + " (got no bins)")
    if not np.isfinite(values).all() or (values != np.round(values)).any():
        raise InvalidArgumentError(argument, counts, _HISTOGRAM + " (got a non-integer)")
    if (values < 0).any():
        first = int(np.flatnonzero(values < 0)[0])
        raise InvalidArgumentError(
            argument, counts, _HISTOGRAM + f" (bin {first} is {values[first]:g})")
    if values.max() > 2.0 ** 53:
        raise InvalidArgumentError(argument, counts, _HISTOGRAM + " (counts below 2**53)")
    histogram = values.astype(np.int64)
    if histogram.sum() == 0:
        raise InvalidArgumentError(argument, counts, _HISTOGRAM + " (all bins are 0)")
    return histogram


def coarsen(counts, bins: int) -> np.ndarray:
    """Sum consecutive groups of ``len(counts) // bins`` bins into ``bins`` bins.

    ``bins`` must divide the number of bins (4096 -> 1024 sums groups of 4, as the paper
    does); ``bins == len(counts)`` returns the histogram unchanged.  Counts are preserved
    exactly (integer sums).
    """
    histogram = check_histogram(counts)
    n = histogram.size
    bins = check_integer(bins, "bins", minimum=1, maximum=n)
    if n % bins:
        raise InvalidArgumentError("bins", bins, f"a divisor of the number of bins ({n})")
    return histogram.reshape(bins, n // bins).sum(axis=1)


def _builtin(name: str) -> np.ndarray:
    from importlib import resources  # here, not at import: it costs the CLI ~10 ms

    resource = resources.files("optmech.data").joinpath("dpbench", _FILES[name])
    with resources.as_file(resource) as path:
        return np.load(path, allow_pickle=False)


def _read_file(path: Path) -> np.ndarray:
    try:        # a regular file only: a FIFO or a device would block or never end
        size = path.stat().st_size if path.is_file() else None
    except OSError as error:         # e.g. a name too long for the file system
        raise InvalidArgumentError("dataset", str(path), "a built-in name or a readable "
                                   f".npy/.csv file ({error.strerror})") from None
    if size is None:
        raise InvalidArgumentError("dataset", str(path),
                                   "a built-in name (" + ", ".join(DATASETS)
                                   + ") or an existing .npy/.csv file (file not found)")
    suffix = path.suffix.lower()
    # Parsing a CSV holds every field as a string in a list per row (about 200 bytes for a
    # short line): 64 bytes per byte of file bounds it.
    require_memory(64 * size, "dataset", str(path))
    try:
        if suffix == ".npy":
            _check_npy_header(path, size)
            data = np.load(path, allow_pickle=False)
        elif suffix == ".csv":
            data = read_csv_counts(path)
        else:
            raise InvalidArgumentError("dataset", str(path), "a file ending in .npy or .csv")
    except InvalidArgumentError:
        raise
    except (OSError, ValueError) as error:
        raise InvalidArgumentError("dataset", str(path),
                                   f"a readable .npy/.csv file of counts ({error})") from None
    return data


def _check_npy_header(path: Path, size: int) -> None:
    """Refuse a ``.npy`` file whose header promises more data than the file holds (a
    128-byte file claiming 10^12 elements made ``np.load`` try to allocate 7.3 TiB), or an
    array that does not fit the memory budget, before reading the data."""
    with open(path, "rb") as handle:
        version = np.lib.format.read_magic(handle)
        read = (np.lib.format.read_array_header_1_0 if version == (1, 0)
                else np.lib.format.read_array_header_2_0)
        shape, _, dtype = read(handle)
        start = handle.tell()
    count = 1
    for length in shape:
        count *= int(length)
    nbytes = count * dtype.itemsize
    if start + nbytes > size:
        raise InvalidArgumentError(
            "dataset", str(path), f"a whole .npy file (its header claims {count} elements of "
            f"{dtype.itemsize} bytes, the file holds {size - start} bytes of data)")
    require_memory(2 * nbytes, "dataset", str(path))


def dataset_estimate(dataset) -> Estimate:
    """Work and memory of the exact errors of the mechanisms on ``dataset``, from the size
    of its file before reading it: a bin costs about 1 us of CPU and 1 KiB of memory in the
    pmfs (upper estimates; 17,770 bins take 0.02 s), and a ``.npy`` holds at most one bin
    per byte (a CSV, one per two)."""
    name = str(dataset).upper()
    try:
        size = (_BUILTIN_BINS[name] if name in _FILES
                else os.stat(dataset).st_size if os.path.isfile(dataset) else 0)
    except (OSError, ValueError):
        size = 0
    return Estimate(1e-6 * size, 1024 * size, "dataset", str(dataset))


def load_histogram(dataset, bins: int | None = None) -> np.ndarray:
    """The histogram of a built-in dataset (name, case-insensitive) or of a file.

    ``dataset``: one of :data:`DATASETS`, or a path to a ``.npy`` array or a ``.csv`` in
    one of the shapes of :mod:`optmech.data.csv_counts` (one count per line, optionally
    under a header line; one comma-separated line; a header naming a ``count`` column).
    ``bins``: coarsen to this many bins with :func:`coarsen` (None: keep the file's bins;
    the paper uses ``PAPER_BINS = 1024``).  Returns an ``int64`` array; missing files,
    unreadable files, other CSV shapes, negative or non-integer counts and empty histograms
    raise :class:`InvalidArgumentError`.
    """
    name = str(dataset).upper()
    if name in _FILES:
        data = _builtin(name)
    else:
        data = _read_file(Path(dataset))
    try:
        histogram = check_histogram(data)
    except InvalidArgumentError as error:
        raise InvalidArgumentError("dataset", str(dataset), error.allowed) from None
    return histogram if bins is None else coarsen(histogram, bins)
