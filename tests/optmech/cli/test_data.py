"""`optmech data error`: JSON contract, table, and one-line errors with exit status 2."""

import json
import math

import numpy as np
import pytest

from tests.cli_helpers import run_cli as run
from tests.cli_helpers import run_cli_error


def test_json_contract_on_two_bins(capsys, tmp_path):
    # Mode of [5, 3] with the monotonic variants at eps = 0.5: gap g = 2, exponent eps,
    # p = exp(-1).  PF: g p / 2; EM: g p / (1 + p); RNM-Laplace with scale b = 1/eps = 2:
    # g exp(-g/b)(2 + g/b)/4 = 1.5 exp(-1).
    np.save(tmp_path / "h.npy", np.array([5, 3]))
    code, out, err = run(capsys, "data", "error", "--dataset", str(tmp_path / "h.npy"),
                         "--task", "mode", "--eps", "0.5", "--monotonic", "--json")
    assert code == 0 and err == ""
    payload = json.loads(out)
    assert list(payload) == ["optmech_version", "schema", "pf", "em", "rnm_laplace",
                             "ratio_em_pf"]
    p = math.exp(-1)
    assert payload["pf"] == pytest.approx(p, rel=1e-12)
    assert payload["em"] == pytest.approx(2 * p / (1 + p), rel=1e-12)
    assert payload["rnm_laplace"] == pytest.approx(1.5 * p, rel=1e-10)
    assert payload["ratio_em_pf"] == pytest.approx(2 / (1 + p), rel=1e-12)


def test_hepth_mode_reproduces_the_paper_ratio(capsys):
    code, out, _ = run(capsys, "data", "error", "--dataset", "HEPTH", "--task", "mode",
                       "--eps", "0.04", "--bins", "1024", "--monotonic", "--json")
    assert code == 0 and round(json.loads(out)["ratio_em_pf"], 2) == 1.84  # Section 6


def test_table_output_and_csv_median(capsys, tmp_path):
    (tmp_path / "h.csv").write_text("1\n1\n1\n")  # median scores (-1, 0, -2)
    code, out, _ = run(capsys, "data", "error", "--dataset", str(tmp_path / "h.csv"),
                       "--task", "median", "--eps", "1")
    assert code == 0
    assert "3 bins, 3 individuals" in out and "rnm_laplace" in out and "EM/PF ratio" in out


def test_ratio_stays_exact_when_both_errors_underflow(capsys, tmp_path):
    # [5000, 0] at eps 1: coin p = e^-2500 underflows; PF's error is 5000 p / 2 + O(p^2)
    # and EM's 5000 p / (1 + p), so the ratio is 2 to double precision.
    np.save(tmp_path / "h.npy", np.array([5000, 0]))
    _, out, _ = run(capsys, "data", "error", "--dataset", str(tmp_path / "h.npy"), "--task",
                    "mode", "--eps", "1", "--json")
    payload = json.loads(out)
    assert payload["pf"] == 0.0 and payload["em"] == 0.0
    assert payload["ratio_em_pf"] == pytest.approx(2.0, rel=1e-12)


def test_ratio_is_one_when_every_bin_ties(capsys, tmp_path):
    np.save(tmp_path / "h.npy", np.array([7, 7, 7]))
    _, out, _ = run(capsys, "data", "error", "--dataset", str(tmp_path / "h.npy"), "--task",
                    "mode", "--eps", "1", "--json")
    payload = json.loads(out)
    assert payload["pf"] == payload["em"] == 0.0 and payload["ratio_em_pf"] == 1.0


@pytest.mark.parametrize("extra, file_text, needle", [
    (["--dataset", "{tmp}/missing.npy"], None, "file not found"),
    (["--dataset", "{tmp}/h.csv"], "4\n-2\n", "bin 1 is -2"),
    (["--dataset", "{tmp}/h.csv"], "", "no bins"),
    (["--dataset", "{tmp}/h.csv"], "0\n0\n", "all bins are 0"),
    (["--dataset", "HEPTH", "--bins", "1000"], None, "divisor"),
    (["--dataset", "HEPTH", "--task", "median", "--monotonic"], None, "monotonic"),
    (["--dataset", "HEPTH", "--eps", "0"], None, "--eps"),
    (["--dataset", "HEPTH", "--task", "mean"], None, "--task"),
    (["--dataset", "HEPTH", "--bins", "0"], None, "--bins"),
])
def test_bad_input_is_one_line_with_status_2(capsys, tmp_path, extra, file_text, needle):
    if file_text is not None:
        (tmp_path / "h.csv").write_text(file_text)
    args = ["data", "error", "--task", "mode", "--eps", "1"]
    args += [a.replace("{tmp}", str(tmp_path)) for a in extra]
    code, out, err = run_cli_error(capsys, *args)
    assert code == 2
    assert out == ""
    assert err.count("\n") == 1 and needle in err
    assert "Traceback" not in err
