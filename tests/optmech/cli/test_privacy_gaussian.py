"""`optmech privacy pair|worst --mechanism rnm_gaussian`: set by --sigma or --rho, the Gaussian
pair's bound beside the worst pair found, one-line errors naming the option."""

import json
import math

import pytest

from optmech.privacy.bounds import gaussian_delta
from optmech.privacy.curves import pair_curves
from optmech.selection.mechanisms import GaussianNoisyMax
from tests.cli_helpers import refusal, run_cli, without_status


def _json(capsys, *argv):
    code, out, err = run_cli(capsys, "privacy", *argv, "--json", "--quiet")
    assert code == 0 and without_status(err) == [], err
    return json.loads(out)


def test_pair_by_sigma_matches_the_library(capsys):
    doc = _json(capsys, "pair", "--mechanism", "rnm_gaussian", "--sigma", "1.5", "--scores",
                "0,-2,0", "--neighbour", "1,-3,1")
    curves = pair_curves(GaussianNoisyMax(1.5), [0.0, -2.0, 0.0], [1.0, -3.0, 1.0],
                         eps_prime=doc["delta"]["eps_prime"])
    assert doc["sigma"] == 1.5 and "eps" not in doc and "rho" not in doc
    assert doc["zcdp_rho"] == pytest.approx(curves.zcdp_rho, rel=1e-14)
    assert doc["delta"]["delta"] == pytest.approx(curves.delta.tolist(), rel=1e-14, abs=1e-300)
    # the default eps' grid reaches mu (mu/2 + 4), mu of the proven pair on 3 candidates
    mu = math.sqrt(3 - 1 / 3) / 1.5
    assert doc["delta"]["eps_prime"][-1] == pytest.approx(mu * (mu / 2 + 4), rel=1e-15)


def test_worst_by_rho_brackets_the_rho_asked(capsys):
    doc = _json(capsys, "worst", "--mechanism", "rnm_gaussian", "--rho", "0.5", "--n", "2",
                "--starts", "1", "--iterations", "20")
    bound = doc["bound"]
    assert bound["kind"] == "gaussian" and bound["zcdp_rho"] == pytest.approx(0.5)
    assert bound["max_loss"] == {"unbounded": True}
    # c(2) = 2: sigma = sqrt(2 / (2 rho)) = sqrt 2, mu = sqrt 2 / sigma = 1
    assert doc["sigma"] == pytest.approx(math.sqrt(2.0)) and doc["rho"] == 0.5
    assert 0.9 * 0.5 <= doc["value"] <= 0.5 * (1 + 1e-9)
    assert bound["delta"] == pytest.approx(
        gaussian_delta(1.0, doc["delta"]["eps_prime"]).tolist(), rel=1e-15)


@pytest.mark.parametrize("argv, option", [
    (["pair", "--mechanism", "rnm_gaussian", "--sigma", "0", "--scores", "0,0",
      "--neighbour", "1,-1"], "--sigma"),
    (["pair", "--mechanism", "rnm_gaussian", "--rho", "-1", "--scores", "0,0",
      "--neighbour", "1,-1"], "--rho"),
    (["pair", "--mechanism", "rnm_gaussian", "--eps", "1", "--scores", "0,0",
      "--neighbour", "1,-1"], "--eps"),
    (["pair", "--mechanism", "rnm_gaussian", "--scores", "0,0", "--neighbour", "1,-1"],
     "--sigma"),
    (["worst", "--mechanism", "rnm_gaussian", "--sigma", "1", "--rho", "1", "--n", "2"],
     "--sigma"),
    (["worst", "--mechanism", "rnm_gaussian", "--sigma", "1", "--n", "2", "--repeat",
      "fixed:2"], "--repeat"),
    (["worst", "--mechanism", "em", "--eps", "1", "--rho", "1", "--n", "2"], "--rho"),
    (["pair", "--p", "0.5,0.5", "--q", "0.4,0.6", "--sigma", "1"], "--sigma"),
])
def test_bad_input_is_one_line_naming_the_option(capsys, argv, option):
    assert option in refusal(capsys, "privacy", *argv)
