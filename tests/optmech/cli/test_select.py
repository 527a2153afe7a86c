"""`optmech select`: JSON contract, tables, and one-line errors with exit status 2."""

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from tests.cli_helpers import run_cli as run
from tests.cli_helpers import run_cli_error


def test_pmf_json_is_the_exact_pmf(capsys):
    code, out, _ = run(capsys, "select", "pmf", "--mechanism", "em", "--scores", "0,-1,-3",
                       "--eps", "1.3", "--json")
    assert code == 0
    weights = np.exp(0.65 * np.array([0.0, -1.0, -3.0]))
    np.testing.assert_allclose(json.loads(out)["pmf"], weights / weights.sum(), rtol=1e-15)


def test_error_json(capsys):
    code, out, _ = run(capsys, "select", "error", "--mechanism", "pf", "--scores=-1,0",
                       "--eps", "2", "--sensitivity", "0.5", "--json")
    # n = 2: Pr[loser] = p/2, p = exp(2 * (-1) / (2 * 0.5)); error = 1 * p / 2
    assert code == 0
    assert json.loads(out)["expected_error"] == pytest.approx(math.exp(-2) / 2, rel=1e-15)


def test_sample_json_is_reproducible(capsys):
    argv = ("select", "sample", "--mechanism", "rnm-laplace", "--scores", "0,-1,-3", "--eps",
            "1.3", "--size", "25", "--seed", "7", "--json")
    _, first, _ = run(capsys, *argv)
    _, second, _ = run(capsys, *argv)
    samples = json.loads(first)["samples"]
    assert first == second and len(samples) == 25 and set(samples) <= {0, 1, 2}


def test_table_output(capsys):
    code, out, _ = run(capsys, "select", "pmf", "--mechanism", "uniform", "--scores", "1,2",
                       "--eps", "1")
    assert code == 0 and "probability" in out and "0.5" in out


@pytest.mark.parametrize("bad, argument", [
    (["--eps", "0"], "--eps"),
    (["--eps", "-1"], "--eps"),
    (["--eps", "nan"], "--eps"),
    (["--eps", "inf"], "--eps"),
    (["--scores="], "--scores"),
    (["--scores", "0,nan"], "--scores"),
    (["--scores", "0,inf"], "--scores"),
    (["--sensitivity", "0"], "--sensitivity"),
    (["--mechanism", "foo"], "--mechanism"),
])
def test_bad_input_is_one_line_with_status_2(capsys, bad, argument):
    defaults = {"--mechanism": "pf", "--scores": "0,-1", "--eps": "1"}
    overridden = {token.split("=")[0] for token in bad if token.startswith("--")}
    args = ["select", "pmf"]
    for key, value in defaults.items():
        if key not in overridden:
            args += [key, value]
    args += bad
    code, _, err = run_cli_error(capsys, *args)
    assert code == 2
    assert err.count("\n") == 1 and argument in err and "Traceback" not in err


def test_console_script_end_to_end():
    done = subprocess.run([sys.executable, "-m", "optmech", "select", "pmf", "--mechanism",
                           "pf", "--scores", "0,-1,-3", "--eps", "1.3", "--json"],
                          capture_output=True, text=True, check=True)
    probs = json.loads(done.stdout)["pmf"]
    assert len(probs) == 3 and abs(sum(probs) - 1) < 1e-12
    bad = subprocess.run([sys.executable, "-m", "optmech", "select", "pmf", "--mechanism",
                          "pf", "--scores", "0,1", "--eps", "-2"], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and bad.stdout == ""


def test_mechanism_names_in_either_spelling(capsys):
    """rnm_laplace names the same mechanism as rnm-laplace, in select and in lattice, where
    the JSON keeps its own key; a name that is neither is refused on one line."""
    pmfs = [json.loads(run(capsys, "select", "pmf", "--mechanism", name, "--scores",
                           "0,-1,-3", "--eps", "1.3", "--json")[1])["pmf"]
            for name in ("rnm-laplace", "rnm_laplace")]
    assert pmfs[0] == pmfs[1]
    code, out, _ = run(capsys, "lattice", "solve", "--n", "2", "--k", "1", "--eps", "1",
                       "--mechanisms", "rnm-laplace,pf", "--json")
    assert code == 0 and set(json.loads(out)["ratios"]) == {"rnm_laplace", "pf"}
    code, _, err = run_cli_error(capsys, "select", "pmf", "--mechanism", "rnm", "--scores",
                                 "0,-1", "--eps", "1")
    assert code == 2 and "--mechanism" in err and "unknown mechanism" in err
    assert len(err.strip().splitlines()) == 1


def test_gaussian_noise_by_sigma_or_by_rho(capsys):
    from optmech.selection.mechanisms import GaussianNoisyMax

    scores = [0.0, -1.0, -3.0, -0.5]
    _, out, _ = run(capsys, "select", "pmf", "--mechanism", "rnm_gaussian", "--scores",
                    "0,-1,-3,-0.5", "--sigma", "1.7", "--json")
    assert json.loads(out)["pmf"] == GaussianNoisyMax(1.7).pmf(scores).tolist()
    # rho on n = 4 candidates: sigma = sqrt(c(4) / (2 rho)) = sqrt(4 / 0.5) with Delta 1
    _, out, _ = run(capsys, "select", "error", "--mechanism", "rnm-gaussian", "--scores",
                    "0,-1,-3,-0.5", "--rho", "0.25", "--json")
    expected = GaussianNoisyMax(math.sqrt(8.0)).expected_error(scores)
    assert json.loads(out)["expected_error"] == pytest.approx(expected, rel=1e-15)
    _, out, _ = run(capsys, "select", "sample", "--mechanism", "rnm_gaussian", "--scores",
                    "0,-1", "--sigma", "1", "--size", "5", "--seed", "3", "--json")
    assert set(json.loads(out)["samples"]) <= {0, 1}


@pytest.mark.parametrize("extra, option", [
    (["--sigma", "0"], "--sigma"),
    (["--sigma", "-1"], "--sigma"),
    (["--rho", "0"], "--rho"),
    (["--rho", "-2"], "--rho"),
    (["--rho", "nan"], "--rho"),
    (["--sigma", "1", "--eps", "1"], "--eps"),
    (["--sigma", "1", "--rho", "1"], "--sigma"),
    ([], "--sigma"),
])
def test_gaussian_noise_options_are_refused_naming_them(capsys, extra, option):
    code, out, err = run_cli_error(capsys, "select", "pmf", "--mechanism", "rnm_gaussian",
                                   "--scores", "0,-1", *extra)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and option in err and "Traceback" not in err


def test_a_noise_scale_is_refused_for_the_eps_mechanisms(capsys):
    code, _, err = run_cli_error(capsys, "select", "pmf", "--mechanism", "pf", "--scores",
                                 "0,-1", "--eps", "1", "--sigma", "1")
    assert code == 2 and "--sigma" in err
    code, _, err = run_cli_error(capsys, "select", "pmf", "--mechanism", "pf", "--scores",
                                 "0,-1")
    assert code == 2 and "--eps" in err


def _compare_json(capsys, *argv):
    from optmech.schemas import validate
    from tests.optmech.cli.test_reference import REFERENCE, _section

    code, out, _ = run(capsys, "select", "compare", *argv, "--json", "--quiet")
    assert code == 0
    doc = json.loads(out)
    validate(doc)
    section = _section(REFERENCE.read_text(), "optmech select compare")
    for key in ("direction", "target", "mechanisms", "noise", "eps", "proven_rho",
                "found_rho", "found_n", "settings", "setting", "n", "relation", "sigma",
                "errors", "best", "best_noises", "wins"):
        assert f'"{key}"' in section
    return doc


def test_compare_at_equal_rho_calibrates_every_mechanism(capsys):
    from optmech.data.datasets import load_histogram
    from optmech.privacy.bounds import ProvenBound
    from optmech.selection.mechanisms import GaussianNoisyMax, make_mechanism

    rho = 0.01
    doc = _compare_json(capsys, "--rho", str(rho), "--datasets", "MEDCOST", "--tasks",
                        "mode,median", "--gaps", "2", "--n", "5", "--found-n", "0")
    mechanisms = doc["mechanisms"]
    # EM and Gumbel noise: eps^2 / 8 = rho; PF, Laplace, exponential: the Laplace pair's rho
    assert mechanisms["em"]["eps"] == pytest.approx(math.sqrt(8 * rho), rel=1e-11)
    assert ProvenBound("laplace", mechanisms["pf"]["eps"], "").zcdp_rho == pytest.approx(
        rho, rel=1e-11)
    assert "eps" not in mechanisms["rnm_gaussian"] and "found_rho" not in mechanisms["em"]
    counts = load_histogram("MEDCOST")
    gaps = doc["settings"][2]
    assert gaps["setting"] == "gaps n=5 g=2" and gaps["relation"] == "general"
    # the Gaussian's sigma: c(5) = 5 - 1/5 on the gaps; 1 - 1/n on the mode's counts
    assert gaps["sigma"] == pytest.approx(math.sqrt(4.8 / (2 * rho)), rel=1e-15)
    assert doc["settings"][0]["sigma"] == pytest.approx(
        math.sqrt((1 - 1 / counts.size) / (2 * rho)), rel=1e-15)
    q = np.array([0.0, -2.0, -2.0, -2.0, -2.0])
    for name in ("em", "pf", "rnm_laplace"):
        mechanism = make_mechanism(name, mechanisms[name]["eps"])
        assert gaps["errors"][name] == pytest.approx(mechanism.expected_error(q), rel=1e-15)
    assert gaps["errors"]["rnm_gaussian"] == pytest.approx(
        GaussianNoisyMax(gaps["sigma"]).expected_error(q), rel=1e-15)
    assert gaps["errors"]["em"] == gaps["errors"]["rnm_gumbel"]
    assert gaps["errors"]["pf"] == gaps["errors"]["rnm_exponential"]
    least = min(gaps["errors"].values())
    assert all(gaps["errors"][m] <= least * (1 + 1e-9) for m in gaps["best"])
    assert sum(doc["wins"].values()) >= len(doc["settings"])


def test_compare_at_equal_eps_leaves_the_gaussian_out(capsys):
    doc = _compare_json(capsys, "--eps", "0.5", "--datasets", "none", "--gaps", "1,8", "--n",
                        "4", "--found-n", "2")
    assert "rnm_gaussian" not in doc["mechanisms"]
    assert doc["mechanisms"]["em"]["proven_rho"] == pytest.approx(0.5 ** 2 / 8)
    for values in doc["mechanisms"].values():
        assert 0 < values["found_rho"] <= values["proven_rho"] * (1 + 1e-9)
    for row in doc["settings"]:
        # PF (exponential noise) is never worse than EM (permute-and-flip paper, Theorem 2)
        assert row["errors"]["pf"] <= row["errors"]["em"] * (1 + 1e-12)


@pytest.mark.parametrize("argv, option", [
    (["--rho", "0"], "--rho"),
    (["--eps", "-1"], "--eps"),
    (["--rho", "1", "--eps", "1"], "--eps"),
    (["--rho", "1", "--datasets", "NOPE"], "--datasets"),
    (["--rho", "1", "--datasets", "none", "--gaps", "none"], "--datasets"),
    (["--rho", "1", "--gaps", "0"], "--gaps"),
    (["--rho", "1", "--n", "1"], "--n"),
    (["--rho", "1", "--found-n", "1"], "--found-n"),
    (["--rho", "1", "--datasets", "none", "--n", "1000000", "--max-work", "1s"], "--datasets"),
])
def test_compare_bad_input_is_one_line_naming_the_option(capsys, argv, option):
    code, out, err = run_cli_error(capsys, "select", "compare", *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and option in err and "Traceback" not in err
