"""``--csv FILE`` on the sweep commands: the file read back equals the JSON output."""

import csv
import json

import pytest

from tests.cli_helpers import run_cli, run_cli_error


def read_csv(path):
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def test_lattice_ratio_csv_equals_its_json(capsys, tmp_path):
    path = tmp_path / "ratios.csv"
    code, out, _ = run_cli(capsys, "lattice", "ratio", "--n", "3,4", "--k", "2", "--eps",
                           "0.5,1", "--mechanisms", "pf,em,rnm_laplace", "--csv", str(path),
                           "--json", "--quiet")
    assert code == 0
    payload = json.loads(out)
    rows = read_csv(path)
    expected = [{"n": c["n"], "k": c["k"], "epsilon": e, "total_error": c["total_error"][i],
                 **{m: c["ratios"][m][i] for m in payload["mechanisms"]}}
                for c in payload["curves"] for i, e in enumerate(c["epsilon"])]
    assert list(rows[0]) == ["n", "k", "epsilon", "total_error", "pf", "em", "rnm_laplace"]
    assert [{k: float(v) for k, v in r.items()} for r in rows] == expected     # exact doubles


def test_lattice_ratio_bound_csv_equals_its_json(capsys, tmp_path):
    path = tmp_path / "bands.csv"
    code, out, _ = run_cli(capsys, "lattice", "ratio", "--n", "3", "--k", "2", "--eps",
                           "0.5,1", "--bound", "--csv", str(path), "--json", "--quiet")
    assert code == 0
    curve, = json.loads(out)["curves"]
    rows = read_csv(path)
    assert list(rows[0]) == ["n", "k", "epsilon", "lower", "upper", "status", "pf_lo", "pf_hi",
                             "em_lo", "em_hi"]
    for i, row in enumerate(rows):
        assert row["status"] == curve["status"][i]
        assert float(row["lower"]) == curve["lower"][i] and float(row["upper"]) == \
            curve["upper"][i]
        for m in ("pf", "em"):
            assert [float(row[f"{m}_lo"]), float(row[f"{m}_hi"])] == curve["ratios"][m][i]


def test_hetero_run_csv_equals_its_json_and_the_table_says_where(capsys, tmp_path):
    path = tmp_path / "mse.csv"
    argv = ("hetero", "run", "--scenario", "4", "--eps", "0.5,2", "--trials", "3",
            "--mechanisms", "gem,rnm", "--csv", str(path), "--quiet")
    code, out, _ = run_cli(capsys, *argv, "--json")
    assert code == 0
    results = json.loads(out)["results"]
    rows = read_csv(path)
    assert [r["mechanism"] for r in rows] == [r["mechanism"] for r in results]
    assert [[float(r[k]) for k in ("epsilon", "mse", "ci_low", "ci_high")] for r in rows] == \
        [[r[k] for k in ("epsilon", "mse", "ci_low", "ci_high")] for r in results]
    code, out, _ = run_cli(capsys, *argv)
    assert code == 0 and out.rstrip().endswith(f"table written to {path}")


@pytest.mark.parametrize("target", ["missing/t.csv", "t.txt"])
def test_a_bad_csv_path_is_refused_before_any_work(capsys, tmp_path, target):
    code, out, err = run_cli_error(capsys, "hetero", "run", "--scenario", "1", "--eps", "1",
                                   "--csv", str(tmp_path / target))
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and "--csv" in err
