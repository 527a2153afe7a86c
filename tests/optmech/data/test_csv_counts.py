"""CSV histograms: the three accepted shapes (one count per line with or without a header,
one comma-separated line, a header naming a `count` column), the same file read by
`optmech data error`, anything else refused in one line naming --dataset (the refused
shapes are in test_datasets.py::test_bad_csv_files)."""

import json

import numpy as np
import pytest

from optmech.data.datasets import load_histogram
from optmech.validation import InvalidArgumentError
from tests.cli_helpers import run_cli, run_cli_error

COUNTS = [3, 0, 9, 4]


@pytest.mark.parametrize("text", [
    "3\n0\n9\n4\n",                                   # one count per line
    "count\n3\n0\n9\n4\n",                            # ... under a one-field header
    "Individuals\n3\n0\n9\n4",                        # any header word, no final newline
    "3,0,9,4\n",                                      # one line
    "bin,count\n0-10,3\n10-20,0\n20-30,9\n30-40,4\n",  # a count column
    "Count,lower,upper\n3,0,1\n0,1,2\n9,2,3\n4,3,4\n",  # the column first, any case
    "\ufeffcount\r\n3\r\n0\r\n\r\n9\r\n4\r\n",          # BOM, CRLF, a blank line
    " count \n 3\n0 \n9\n4\n",                        # spaces around fields
    "3.0\n0\n9e0\n4\n",                               # integers written as floats
])
def test_accepted_shapes(tmp_path, text):
    path = tmp_path / "h.csv"
    path.write_text(text, encoding="utf-8")
    histogram = load_histogram(path)
    np.testing.assert_array_equal(histogram, COUNTS)
    assert histogram.dtype == np.int64


def test_header_only_file_has_no_bins(tmp_path):
    path = tmp_path / "h.csv"
    path.write_text("count\n")
    with pytest.raises(InvalidArgumentError, match="no bins"):
        load_histogram(path)


def test_cli_reads_a_csv_with_a_header_like_the_same_counts_without(capsys, tmp_path):
    (tmp_path / "plain.csv").write_text("3\n0\n9\n4\n")
    (tmp_path / "header.csv").write_text("bin,count\na,3\nb,0\nc,9\nd,4\n")
    outputs = []
    for name in ("plain.csv", "header.csv"):
        code, out, _ = run_cli(capsys, "data", "error", "--dataset", str(tmp_path / name),
                               "--task", "median", "--eps", "0.5", "--json")
        assert code == 0
        outputs.append(json.loads(out))
    assert outputs[0] == outputs[1]


def test_cli_refuses_other_shapes_in_one_line_naming_the_option(capsys, tmp_path):
    path = tmp_path / "two_columns.csv"
    path.write_text("0,3\n1,0\n2,9\n")
    code, out, err = run_cli_error(capsys, "data", "error", "--dataset", str(path),
                                   "--task", "mode", "--eps", "1")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and "--dataset" in err and "'count' column" in err
