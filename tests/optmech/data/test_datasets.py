"""Loading histograms: built-in DPBench files, .npy/.csv paths, coarsening, bad input."""

import numpy as np
import pytest

from optmech.data.datasets import (
    DATASETS,
    PAPER_BINS,
    PAPER_DATASETS,
    check_histogram,
    coarsen,
    load_histogram,
)
from optmech.validation import InvalidArgumentError

# Bins, total count and largest bin of each file, as tabulated in
# optmech/data/dpbench/README.md (HEPTH's total 347 414 is also DPBench's published scale).
README = {
    "HEPTH": (4096, 347414, 755),
    "ADULTFRANK": (4096, 17665, 16836),
    "INCOME": (4096, 20787122, 2587110),
    "MEDCOST": (4096, 9415, 2782),
    "PATENT": (4096, 27948226, 19480),
    "SEARCHLOGS": (4096, 335889, 3794),
    "NETFLIX": (17770, 23168232, 96535),
}


@pytest.mark.parametrize("name", DATASETS)
def test_builtin_datasets_match_the_readme(name):
    h = load_histogram(name)
    assert h.dtype == np.int64
    assert (h.size, int(h.sum()), int(h.max())) == README[name]


def test_names_are_case_insensitive_and_paper_datasets_are_builtin():
    np.testing.assert_array_equal(load_histogram("hepth"), load_histogram("HEPTH"))
    assert PAPER_DATASETS == ("HEPTH", "ADULTFRANK", "MEDCOST", "SEARCHLOGS", "PATENT")
    assert set(PAPER_DATASETS) <= set(DATASETS)


def test_adultfrank_is_the_capital_loss_histogram():
    """UCI Adult's "capital loss": 17 665 individuals (DPBench's ADULTFRANK sample), most of
    them with no capital loss at all (bin 0), the rest spread over 81 other bins."""
    h = load_histogram("ADULTFRANK")
    assert int(h[0]) == 16836 and int(np.count_nonzero(h)) == 82
    coarse = load_histogram("ADULTFRANK", PAPER_BINS)
    assert int(coarse.sum()) == 17665 and int(np.count_nonzero(coarse)) == 77


def test_coarsen_sums_consecutive_bins():
    np.testing.assert_array_equal(coarsen(np.arange(12), 3), [0 + 1 + 2 + 3, 4 + 5 + 6 + 7,
                                                              8 + 9 + 10 + 11])
    np.testing.assert_array_equal(coarsen([1, 2, 3], 3), [1, 2, 3])
    h = load_histogram("HEPTH")
    paper = load_histogram("HEPTH", PAPER_BINS)
    assert paper.size == 1024 and paper.sum() == h.sum()
    assert paper[5] == h[20:24].sum()


@pytest.mark.parametrize("bins", [5, 0, 13])
def test_coarsen_needs_a_divisor(bins):
    with pytest.raises(InvalidArgumentError, match="bins"):
        coarsen(np.ones(12, dtype=int), bins)


def test_npy_and_csv_files(tmp_path):
    counts = np.array([3, 0, 9, 4])
    np.save(tmp_path / "h.npy", counts)
    (tmp_path / "column.csv").write_text("3\n0\n9\n4\n")
    (tmp_path / "row.csv").write_text("3,0,9,4\n")
    (tmp_path / "floats.csv").write_text("3.0,0,9.0,4\n")
    for name in ("h.npy", "column.csv", "row.csv", "floats.csv"):
        loaded = load_histogram(tmp_path / name)
        np.testing.assert_array_equal(loaded, counts)
        assert loaded.dtype == np.int64
    np.testing.assert_array_equal(load_histogram(str(tmp_path / "h.npy"), bins=2), [3, 13])


@pytest.mark.parametrize("content, message", [
    ("3\n-1\n2\n", "bin 1 is -1"),
    ("", "no bins"),
    ("0,0,0\n", "all bins are 0"),
    ("1.5,2\n", "non-integer"),
    ("1,nan\n", "non-integer"),
    # shapes other than the three accepted ones (optmech.data.csv_counts)
    ("1,2\n3,4\n", "no header line naming the 'count' column"),
    ("bin,value\n0,3\n1,4\n", "no single 'count' column"),
    ("count,count\n1,2\n3,4\n", "no single 'count' column"),
    ("a,b\n", "no single 'count' column"),
    ("count\n3\nx\n4\n", "line 3: 'x' is not a number"),
    ("3\n1,2\n", "rows of different lengths"),
    ("bin,count\n0,3\n1\n", "rows of different lengths"),
    ("bin,count,extra\n0,3\n1,4\n", "the header has 3 fields, the rows 2"),
])
def test_bad_csv_files(tmp_path, content, message):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    with pytest.raises(InvalidArgumentError) as info:
        load_histogram(path)
    assert info.value.argument == "dataset" and info.value.value == str(path)
    assert message in str(info.value)


def test_missing_and_unsupported_files(tmp_path):
    with pytest.raises(InvalidArgumentError, match="file not found"):
        load_histogram(tmp_path / "missing.npy")
    with pytest.raises(InvalidArgumentError, match="file not found"):
        load_histogram("ADULT")
    other = tmp_path / "h.txt"
    other.write_text("1\n2\n")
    with pytest.raises(InvalidArgumentError, match=r"\.npy or \.csv"):
        load_histogram(other)
    np.save(tmp_path / "grid.npy", np.ones((2, 2)))
    with pytest.raises(InvalidArgumentError, match="2-D"):
        load_histogram(tmp_path / "grid.npy")


def test_check_histogram_copies_and_validates():
    source = np.array([1, 2, 3])
    checked = check_histogram(source)
    checked[0] = 99
    assert source[0] == 1
    with pytest.raises(InvalidArgumentError, match="no bins"):
        check_histogram([])
    with pytest.raises(InvalidArgumentError, match="counts"):
        check_histogram(["x"])


def test_shipped_files_are_the_ones_the_readme_describes():
    """Every .npy file in optmech/data/dpbench has the SHA-256 the README lists, and the
    README lists every file: the data are shipped unchanged."""
    import hashlib
    import re
    from importlib import resources

    folder = resources.files("optmech.data").joinpath("dpbench")
    readme = folder.joinpath("README.md").read_text(encoding="utf-8")
    listed = dict(re.findall(r"^\| (\S+\.npy) \|.*`([0-9a-f]{64})` \|$", readme, re.M))
    shipped = {entry.name for entry in folder.iterdir() if entry.name.endswith(".npy")}
    assert set(listed) == shipped and len(shipped) == len(DATASETS)
    for name, digest in listed.items():
        assert hashlib.sha256(folder.joinpath(name).read_bytes()).hexdigest() == digest, name


def test_a_npy_header_that_claims_more_than_the_file_holds_is_refused(tmp_path, capsys):
    """128 bytes whose header claims 10^12 elements: refused naming the dataset before any
    allocation (np.load tried 7.3 TiB: exit 1 "out of memory"), from the API and the CLI."""
    header = {"descr": "<i8", "fortran_order": False, "shape": (10**12,)}
    liar = tmp_path / "liar.npy"
    with open(liar, "wb") as handle:
        np.lib.format.write_array_header_1_0(handle, header)
        handle.write(b"\0" * 8)
    with pytest.raises(InvalidArgumentError, match="claims 1000000000000 elements"):
        load_histogram(liar)
    from tests.cli_helpers import run_cli_error

    code, out, err = run_cli_error(capsys, "data", "error", "--dataset", str(liar), "--task",
                                   "mode", "--eps", "1")
    assert code == 2 and out == "" and err.count("\n") == 1 and "--dataset" in err
