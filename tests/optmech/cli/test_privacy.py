"""``optmech privacy``: each action as a user runs it (a table, --json, --plot), the values
it prints checked against the API and closed forms, bad input one line with exit status 2,
the ends of the documented ranges, every JSON key documented in docs/cli.md, and the curves
of the mechanisms the CLI builds for the area (the heterogeneous GEM family, the optimal
lattice mechanism) against the divergences' definitions at 60 digits."""

import json
import math

import numpy as np
import pytest

from optmech.privacy.accountants import laplace_delta
from optmech.privacy.bounds import bounded_range_kl
from tests.cli_helpers import refusal, run_cli, without_status
from tests.optmech.cli.test_reference import REFERENCE, _section
from tests.optmech.privacy.references import delta_reference, renyi_reference

ENVELOPE = {"optmech_version", "schema"}


def _keys(value) -> set[str]:
    """Every key of a JSON document, at any depth."""
    if isinstance(value, dict):
        return set(value).union(*(_keys(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(_keys(v) for v in value))
    return set()


def _json(capsys, *argv):
    """The parsed --json output, after checking that docs/cli.md lists every key it has
    under the command's heading (the envelope keys are documented once, above)."""
    code, out, err = run_cli(capsys, *argv, "--json", "--quiet")
    assert code == 0 and without_status(err) == [], err
    doc = json.loads(out)
    section = _section(REFERENCE.read_text(), f"optmech {argv[0]} {argv[1]}")
    for key in _keys(doc) - ENVELOPE:
        assert f'"{key}"' in section, f"optmech {argv[0]} {argv[1]}: JSON key {key!r} " \
                                      "is not documented in docs/cli.md"
    return doc


def test_pair_prints_the_curves_of_the_issue_example(capsys):
    doc = _json(capsys, "privacy", "pair", "--mechanism", "pf", "--eps", "2", "--scores",
                "0,0", "--neighbour", "1,-1", "--eps-prime", "0,1", "--orders", "1,2,inf")
    assert doc["max_loss"] == pytest.approx(2.0)
    p, q = np.array([0.5, 0.5]), np.array([1 - math.exp(-2) / 2, math.exp(-2) / 2])
    assert doc["renyi"]["divergence"][1] == pytest.approx(math.log((p ** 2 / q).sum()),
                                                          rel=1e-13)
    assert doc["renyi"]["orders"][2] == {"unbounded": True}
    assert doc["delta"]["delta"][0] == pytest.approx(np.abs(p - q).sum() / 2, rel=1e-13)
    assert doc["zcdp_rho"] > 2 ** 2 / 8


def test_pair_table_and_plot(capsys, tmp_path):
    plot = tmp_path / "curve.png"
    code, out, err = run_cli(capsys, "privacy", "pair", "--mechanism", "rnm-laplace", "--eps",
                             "1", "--scores", "0,-1", "--neighbour", "1,-2", "--plot",
                             str(plot), "--quiet")
    assert code == 0 and "delta(eps')" in out and plot.stat().st_size > 1000


def test_worst_finds_the_largest_em_kl_with_its_bound(capsys):
    doc = _json(capsys, "privacy", "worst", "--mechanism", "em", "--eps", "1", "--n", "2",
                "--objective", "renyi", "--at", "1", "--depth", "2", "--starts", "1",
                "--iterations", "30")
    assert doc["value"] == pytest.approx(bounded_range_kl(1.0), rel=1e-9)
    assert doc["bound"]["kind"] == "bounded-range" and doc["bound"]["value"] >= doc["value"]
    scores, neighbour = np.array(doc["scores"]), np.array(doc["neighbour"])
    assert np.abs(scores - neighbour).max() <= 1 + 1e-12


def test_worst_of_the_optimal_lattice_mechanism(capsys):
    doc = _json(capsys, "privacy", "worst", "--mechanism", "lattice", "--k", "2", "--eps",
                "0.5", "--n", "3", "--objective", "max_loss")
    assert doc["value"] <= 0.5 * (1 + 1e-7) and doc["bound"]["kind"] == "pure-dp"
    assert doc["method"].startswith("every pair of neighbours of its finite domain")


def _pmf_of(name, eps, scores, sensitivity):
    """The pmf the CLI hands to the area, built here from the owning area's API."""
    if name == "lattice":
        from optmech.lattice.optimum import solve_lattice

        return solve_lattice(len(scores), 2, eps).mechanism().pmf(np.array(scores))
    from optmech.heterogeneous import make_heterogeneous

    return make_heterogeneous(name, eps).pmf(np.array(scores), np.array(sensitivity))


@pytest.mark.parametrize("name, scores, neighbour, sensitivity", [
    ("gem", [0.0, -1.0, -2.0], [0.5, -2.0, -1.5], [1.0, 1.0, 0.5]),
    ("mgem", [0.0, -1.0, -2.0], [-1.0, 0.0, -2.5], [1.0, 1.0, 0.5]),
    ("lattice", [0.0, 0.0, -2.0], [1.0, -1.0, -1.0], [1.0, 1.0, 1.0]),
])
def test_curves_of_the_mechanisms_the_cli_builds_match_their_definitions(
        capsys, name, scores, neighbour, sensitivity):
    """The heterogeneous GEM family and the optimal lattice mechanism: every curve the CLI
    prints against the divergences' definitions at 60 digits on the pmfs of their own areas
    (whose tests check the pmfs)."""
    eps, orders, grid = 1.0, [1.0, 2.0, 8.0], [0.0, 0.5]
    extra = [] if name == "lattice" else ["--sensitivity", ",".join(map(str, sensitivity))]
    doc = _json(capsys, "privacy", "pair", "--mechanism", name, "--eps", str(eps),
                *(["--depth", "2"] if name == "lattice" else []), *extra,
                "--scores", ",".join(map(str, scores)),
                "--neighbour", ",".join(map(str, neighbour)),
                "--orders", ",".join(map(str, orders)), "--eps-prime", "0,0.5")
    lp = np.log(_pmf_of(name, eps, scores, sensitivity)).tolist()
    lq = np.log(_pmf_of(name, eps, neighbour, sensitivity)).tolist()
    for a, value in zip(orders, doc["renyi"]["divergence"]):
        reference = max(renyi_reference(lp, lq, a), renyi_reference(lq, lp, a))
        assert value == pytest.approx(float(reference), rel=1e-12, abs=1e-15), (name, a)
    for e, value in zip(grid, doc["delta"]["delta"]):
        reference = max(delta_reference(lp, lq, e), delta_reference(lq, lp, e))
        assert value == pytest.approx(float(reference), rel=1e-12, abs=1e-15), (name, e)
    loss = max(abs(x - y) for x, y in zip(lp, lq))
    assert doc["max_loss"] == pytest.approx(loss, rel=1e-12) and loss <= eps * (1 + 1e-9)


def test_permute_and_flip_delta_equals_laplace_on_two_candidates(capsys):
    doc = _json(capsys, "privacy", "pair", "--mechanism", "pf", "--eps", "1", "--scores",
                "0,-0.5", "--neighbour", "-1,0.5", "--eps-prime", "0.5")
    assert doc["delta"]["delta"][0] == pytest.approx(laplace_delta(1.0, [0.5])[0], rel=1e-13)


def test_referee_json_refutation(capsys):
    doc = _json(capsys, "privacy", "referee", "--only", "dp-accounting.rdp.em-count")
    (claim,) = doc["claims"]
    example = claim["counterexample"]
    assert claim["verdict"] == "refuted" and claim["consistent"]
    assert min(example["value"], example["value_mpmath"]) > example["claimed"]
    assert example["count"] == 10 and example["mechanism"] == "em"


def test_referee_table_and_markdown(capsys):
    code, out, _ = run_cli(capsys, "privacy", "referee", "--only",
                           "dp-accounting.rdp.em-count", "--quiet")
    assert code == 0 and "refuted" in out
    code, out, _ = run_cli(capsys, "privacy", "referee", "--only",
                           "dp-accounting.rdp.em-count", "--markdown", "--quiet")
    assert code == 0 and out.startswith("# The accountants' claims")


@pytest.mark.parametrize("argv, option", [
    (["pair", "--mechanism", "pf", "--eps", "1", "--scores", "0,0", "--neighbour", "2,0"],
     "--neighbour"),
    (["pair", "--mechanism", "pf", "--eps", "0", "--scores", "0,0", "--neighbour", "1,0"],
     "--eps"),
    (["pair", "--mechanism", "pf", "--eps", "1", "--scores", "0,0", "--neighbour", "1,0",
      "--orders", "0.5"], "--orders"),
    (["pair", "--mechanism", "lattice", "--eps", "1", "--scores", "0,-1", "--neighbour",
      "1,-2"], "--depth"),
    (["worst", "--mechanism", "lattice", "--eps", "1", "--n", "3"], "--k"),
    (["worst", "--mechanism", "em", "--eps", "1", "--n", "1"], "--n"),
    (["worst", "--mechanism", "em", "--eps", "1", "--n", "201"], "--n"),
    (["worst", "--mechanism", "em", "--eps", "1", "--n", "3", "--objective", "tv"],
     "--objective"),
    (["worst", "--mechanism", "rnm-laplace", "--eps", "1", "--n", "50", "--max-work", "1s"],
     "--n"),
    (["referee", "--only", "nope"], "--only"),
    (["account", "--step", "em"], "--step"),
    (["account", "--step", "em:-1"], "--step"),
    (["account", "--step", "nope:1:2"], "--step"),
    (["account", "--step", "em:1:0"], "--step"),
    (["account", "--step", "em:0.1", "--delta", "1"], "--delta"),
    (["account", "--step", "em:0.1", "--eps-prime", "-1"], "--eps-prime"),
    (["account", "--step", "em:0.1", "--top", "65"], "--top"),
    (["account", "--step", "em:0.1", "--n", "1"], "--n"),
    (["account", "--step", "em:0.001:10000000", "--max-work", "1s"], "--step"),
    (["account", "--step", "gem:1:2", "--relation", "monotonic"], "--relation"),
    (["account", "--step", "lattice:1:2", "--n", "3"], "--depth"),
    (["account", "--step", "em:1:2", "--repeat", "poisson:0"], "--repeat"),
    (["account", "--step", "rnm_gaussian:4:2"], "--n"),
    (["account", "--step", "rnm_gaussian:1e-9:2", "--n", "1000000"], "--step"),
    (["account", "--step", "rr:700", "--step", "em:1e-9"], "--step"),
    (["account", "--step", "rnm_gaussian:4:2", "--n", "2", "--repeat", "poisson:2"],
     "--repeat"),
])
def test_bad_input_is_one_line_naming_the_option(capsys, argv, option):
    assert option in refusal(capsys, "privacy", *argv)


def test_account_json_follows_its_schema_and_brackets(capsys):
    from optmech.schemas import validate

    doc = _json(capsys, "privacy", "account", "--step", "em:0.1:20", "--step", "pf:0.5:3",
                "--step", "peel-em:1:2", "--top", "2", "--delta", "1e-5")
    validate(doc)
    assert [s["dominating"] for s in doc["steps"]] == ["bounded-range", "laplace",
                                                       "bounded-range"]
    assert doc["upper"]["eps"] >= doc["lower"]["eps"] > 0
    assert doc["saving"]["absolute"] >= 0
    assert doc["upper"]["eps"] <= min(v["eps"] for v in doc["fallbacks"].values())
    doc = _json(capsys, "privacy", "account", "--step", "rr:1:3", "--n", "3",
                "--eps-prime", "0,1,2.5")
    validate(doc)
    assert "eps" not in doc["upper"] and "saving" not in doc
    assert all(up >= low for up, low in zip(doc["upper"]["delta"]["delta"],
                                            doc["lower"]["delta"]["delta"]))


def test_account_of_the_optimal_lattice_mechanism(capsys):
    from optmech.schemas import validate

    # --k: the old spelling of --depth
    doc = _json(capsys, "privacy", "account", "--step", "lattice:0.5:20", "--n", "3", "--k",
                "2", "--delta", "1e-6")
    validate(doc)
    assert doc["steps"][0]["dominating"] == "family"
    # the family's exact worst beats randomised response, and an explicit pair is close
    assert doc["lower"]["eps"] <= doc["upper"]["eps"] < doc["fallbacks"][
        "randomised_response"]["eps"]
    assert doc["upper"]["eps"] - doc["lower"]["eps"] < 0.02 * doc["upper"]["eps"]


def test_account_of_repeat_and_select_steps(capsys):
    from optmech.privacy.repeat import Repetitions
    from optmech.privacy.repeat_bounds import sharp_epsilon
    from optmech.schemas import validate

    doc = _json(capsys, "privacy", "account", "--step", "em:0.1:20", "--repeat",
                "geometric:0.1", "--delta", "1e-6")
    validate(doc)
    step = doc["steps"][0]
    assert step["dominating"] == "randomised-response"
    assert step["round_eps"] == pytest.approx(sharp_epsilon(Repetitions.parse(
        "geometric:0.1"), 0.1), rel=1e-12)
    assert doc["lower"]["eps"] <= doc["upper"]["eps"] <= doc["fallbacks"]["rdp"]["eps"]
    # the published 3 eps per run (Liu-Talwar) is what the naive fallback sums
    assert doc["fallbacks"]["naive"]["eps"] == pytest.approx(20 * 0.3, rel=1e-12)


@pytest.mark.parametrize("argv", [
    ["--step", "em:0.1:10", "--eps-prime", "0,1e300"],
    ["--step", "em:1:3", "--repeat", "fixed:1000000"],
    ["--step", "em:1:3", "--repeat", "poisson:1e6"],
    ["--step", "rnm_gaussian:0.5:3", "--n", "2", "--eps-prime", "0,1e308"],
    ["--step", "rr:700:5"],
    ["--step", "em:1e-9:10", "--n", "1000000"],
])
def test_account_at_the_ends_of_its_ranges(capsys, argv):
    """Each of these exited 1 (an eps' of 1e300 overflowed the zCDP fallback and had no node
    index; a repeated step's sharp eps of 1e5 overflowed the grid's e^h; the lower pairs'
    target overflowed), now a curve: delta 0 far out, never above 1."""
    doc = _json(capsys, "privacy", "account", *argv)
    curves = [doc["upper"], doc["lower"], *doc["fallbacks"].values()]
    for curve in curves:
        assert all(0.0 <= d <= 1.0 for d in curve["delta"]["delta"])
    if "--eps-prime" in argv:
        assert doc["upper"]["delta"]["delta"][-1] == 0.0
    else:
        assert doc["upper"]["eps"] >= doc["lower"]["eps"]


def test_account_refuses_a_delta_below_the_gaussian_tails(capsys):
    line = refusal(capsys, "privacy", "account", "--step", "rnm_gaussian:0.0015:1", "--n", "2",
                   "--delta", "1e-300")
    assert "--delta" in line and "1e-40" in line


def test_account_of_gaussian_steps(capsys):
    """rnm_gaussian:SIGMA:COUNT on --n candidates: its mu(n) = sqrt(c(n))/sigma (c(5) =
    5 - 1/5), above the exact sqrt(count) mu-GDP curve and within 1 % of it, zCDP's rho
    the closed form, and no pure-DP fallback."""
    from optmech.schemas import validate
    from tests.optmech.privacy.test_accountant import _gdp_epsilon

    doc = _json(capsys, "privacy", "account", "--step", "rnm_gaussian:6:40", "--n", "5",
                "--delta", "1e-6")
    validate(doc)
    mu = math.sqrt(5 - 1 / 5) / 6
    step = doc["steps"][0]
    assert step["dominating"] == "gaussian" and "eps" not in step
    assert step["mu"] == pytest.approx(mu, rel=1e-15)
    exact = _gdp_epsilon(mu * math.sqrt(40), 1e-6)
    assert exact <= doc["upper"]["eps"] <= 1.01 * exact
    assert doc["fallbacks"]["zcdp"]["rho"] == pytest.approx(40 * mu * mu / 2, rel=1e-14)
    assert set(doc["fallbacks"]) == {"zcdp", "rdp"}


def test_account_table_and_plot(capsys, tmp_path):
    plot = tmp_path / "curves.png"
    code, out, _ = run_cli(capsys, "privacy", "account", "--step", "em:0.1:10", "--plot",
                           str(plot), "--quiet")
    assert code == 0 and "upper (certified, adaptive)" in out and "saving" in out
    assert plot.stat().st_size > 1000


@pytest.mark.parametrize("mechanism", ["pf", "rnm_laplace", "rr", "gem", "em"])
def test_worst_at_the_largest_eps_the_parser_accepts(capsys, mechanism):
    """eps = 1e308: the proven bound's Rényi curve took eps (1 - 2 alpha) in numpy scalars
    and overflowed (exit 1 for pf, rnm_laplace, rr and the GEM family); every bound is eps
    there (rho = eps: pure DP's eps^2/2 exceeds eps)."""
    doc = _json(capsys, "privacy", "worst", "--mechanism", mechanism, "--eps", "1e308",
                "--n", "2", "--starts", "0", "--depth", "1", "--iterations", "1")
    assert doc["bound"]["max_loss"] == 1e308
    assert doc["bound"]["zcdp_rho"] == 1e308


def test_ends_of_the_documented_ranges(capsys):
    doc = _json(capsys, "privacy", "worst", "--mechanism", "pf", "--eps", "1", "--n", "2",
                "--depth", "1", "--starts", "0", "--iterations", "1")
    assert doc["n"] == 2 and doc["pairs_evaluated"] >= 1
    doc = _json(capsys, "privacy", "pair", "--mechanism", "uniform", "--eps", "1e-9",
                "--scores", "0,0", "--neighbour", "1,1")
    assert doc["max_loss"] == 0.0 and doc["zcdp_rho"] == 0.0
