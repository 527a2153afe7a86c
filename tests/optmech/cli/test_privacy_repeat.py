"""``optmech privacy pair|worst --repeat``: repeat-and-select as a user runs it (a base of two
pmfs with ``--p``, ``--q``, or a mechanism), the values checked against the API and the
divergences' definitions at 60 digits, every JSON key documented and in its schema, and bad
input one line with exit status 2 naming the option."""

import math

import numpy as np
import pytest

from optmech.privacy.repeat import RepeatAndSelect, Repetitions, repeated_pair
from optmech.privacy.repeat_bounds import sharp_epsilon
from optmech.schemas import validate
from optmech.selection.mechanisms import make_mechanism
from tests.cli_helpers import refusal, run_cli
from tests.optmech.cli.test_privacy import _json
from tests.optmech.privacy.references import delta_reference, renyi_reference


def test_pair_of_pmfs_repeated(capsys):
    doc = _json(capsys, "privacy", "pair", "--p", "0.5,0.3,0.2", "--q", "0.4,0.3,0.3",
                "--repeat", "poisson:10", "--eps-prime", "0,0.3", "--orders", "1,2,inf")
    validate(doc)
    pair = repeated_pair([0.5, 0.3, 0.2], [0.4, 0.3, 0.3], "poisson:10")
    assert doc["p"] == [0.5, 0.3, 0.2] and "scores" not in doc and "eps" not in doc
    for j, x in enumerate((0.0, 0.3)):
        assert doc["delta"]["delta"][j] == pytest.approx(
            max(delta_reference(pair.log_p, pair.log_q, x),
                delta_reference(pair.log_q, pair.log_p, x)), rel=1e-12, abs=1e-300)
    assert doc["renyi"]["divergence"][1] == pytest.approx(
        max(renyi_reference(pair.log_p, pair.log_q, 2), renyi_reference(pair.log_q,
                                                                        pair.log_p, 2)),
        rel=1e-12)
    repeat = doc["repeat"]
    assert repeat["spec"] == "poisson:10" and repeat["mean"] == 10
    assert repeat["zero_mass"] == pytest.approx(math.exp(-10))
    assert repeat["base_eps"] == pytest.approx(math.log(1.5))
    assert repeat["sharp_eps"] == pytest.approx(sharp_epsilon("poisson:10", math.log(1.5)))
    assert doc["max_loss"] <= repeat["sharp_eps"]


def test_pair_of_pmfs_without_repeat_is_the_pair_itself(capsys):
    doc = _json(capsys, "privacy", "pair", "--p", "0.5,0.5", "--q", "0.25,0.75",
                "--orders", "2")
    validate(doc)
    assert doc["max_loss"] == pytest.approx(math.log(2)) and "repeat" not in doc
    assert doc["renyi"]["divergence"][0] == pytest.approx(
        max(renyi_reference(np.log([0.5, 0.5]), np.log([0.25, 0.75]), 2),
            renyi_reference(np.log([0.25, 0.75]), np.log([0.5, 0.5]), 2)), rel=1e-12)


def test_a_mechanism_repeated_ranks_by_scores(capsys):
    doc = _json(capsys, "privacy", "pair", "--mechanism", "pf", "--eps", "1", "--scores",
                "0,-1,-0.5", "--neighbour", "1,-2,0.5", "--repeat", "geometric:0.1",
                "--orders", "2")
    validate(doc)
    repeated = RepeatAndSelect(make_mechanism("pf", 1.0), "geometric:0.1", [0, -1, -0.5])
    pair = repeated.loss_distribution([0, -1, -0.5], [1, -2, 0.5])
    assert doc["max_loss"] == pytest.approx(np.abs(pair.log_p - pair.log_q).max(), rel=1e-12)
    assert doc["repeat"]["published"]["eps"] == 3.0
    assert doc["delta"]["eps_prime"][-1] == pytest.approx(sharp_epsilon("geometric:0.1", 1))
    code, out, err = run_cli(capsys, "privacy", "pair", "--mechanism", "pf", "--eps", "1",
                             "--scores", "0,-1", "--neighbour", "1,-2", "--repeat",
                             "negbin:0,0.02", "--quiet")
    assert code == 0 and "repeat-and-select negbin:0,0.02" in out and "published 2" in out


def test_worst_repeated_brackets_with_the_sharp_bound(capsys):
    doc = _json(capsys, "privacy", "worst", "--mechanism", "em", "--eps", "1", "--n", "3",
                "--repeat", "fixed:3", "--objective", "max_loss", "--depth", "2",
                "--starts", "1", "--iterations", "20")
    validate(doc)
    assert doc["bound"]["value"] == pytest.approx(3.0)          # fixed:3 of 1-DP: 3
    assert doc["value"] <= doc["bound"]["value"]
    repeated = RepeatAndSelect(make_mechanism("em", 1.0), Repetitions.fixed(3))
    pair = repeated.loss_distribution(doc["scores"], doc["neighbour"])
    assert doc["value"] == pytest.approx(np.abs(pair.log_p - pair.log_q).max(), rel=1e-12)
    assert doc["repeat"]["order"].startswith("candidates by index")


@pytest.mark.parametrize("argv, option", [
    (["pair", "--p", "0.5,0.5", "--q", "0.4,0.6", "--repeat", "poisson:0"], "--repeat"),
    (["pair", "--p", "0.5,0.5", "--q", "0.4,0.6", "--repeat", "poisson:-2"], "--repeat"),
    (["pair", "--p", "0.5,0.5", "--q", "0.4,0.6", "--repeat", "geometric:0"], "--repeat"),
    (["pair", "--p", "0.5,0.5", "--q", "0.4,0.6", "--repeat", "geometric:1.01"], "--repeat"),
    (["pair", "--p", "0.5,0.5", "--q", "0.4,0.6", "--repeat", "negbin:-1,0.5"], "--repeat"),
    (["pair", "--p", "0.5,0.5", "--q", "0.4,0.6", "--repeat", "negbin:0,1"], "--repeat"),
    (["pair", "--p", "0.5,0.5", "--q", "0.4,0.6", "--repeat", "fixed:0"], "--repeat"),
    (["pair", "--p", "0.5,0.5", "--q", "0.4,0.6", "--repeat", "many:3"], "--repeat"),
    (["pair", "--p", "0.5,0.6", "--q", "0.4,0.6"], "--p"),
    (["pair", "--p", "0.5,0.5", "--q", "0.2,0.3,0.5"], "--q"),
    (["pair", "--p", "0.5,0.5"], "--q"),
    (["pair", "--q", "0.5,0.5"], "--p"),
    (["pair", "--p", "1.5,-0.5", "--q", "0.5,0.5"], "--p"),
    (["pair", "--p", "0.5,0.5", "--q", "0.5,0.5", "--mechanism", "pf"], "--mechanism"),
    (["pair", "--p", "0.5,0.5", "--q", "0.5,0.5", "--scores", "0,1"], "--scores"),
    (["pair", "--eps", "1", "--scores", "0,1", "--neighbour", "1,0"], "--mechanism"),
    (["pair", "--mechanism", "pf", "--scores", "0,1", "--neighbour", "1,0"], "--eps"),
    (["pair", "--mechanism", "pf", "--eps", "1", "--neighbour", "1,0"], "--scores"),
    (["worst", "--eps", "1", "--n", "3", "--repeat", "fixed:2"], "--mechanism"),
    (["worst", "--mechanism", "pf", "--eps", "1", "--n", "3", "--repeat", "poisson:0"],
     "--repeat"),
])
def test_bad_input_is_one_line_naming_the_option(capsys, argv, option):
    assert option in refusal(capsys, "privacy", *argv)
