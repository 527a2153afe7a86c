"""``optmech topk pmf|error|sample``: the T = 1 reductions to ``select``, exact errors
against the 50-digit references, Monte Carlo against exact, bad input, the help examples."""

import json
import math
import shlex

import mpmath
import numpy as np
import pytest

from optmech.cli import main
from optmech.cli.topk import _EXAMPLES
from tests.cli_helpers import run_cli, run_cli_error
from tests.optmech.topk.references import reference_pmf
from tests.optmech.topk.test_errors import loop_error

SCORES = "0.3,-1.2,2.5,2.5,0,-7"


def _json(capsys, *argv):
    code, out, err = run_cli(capsys, *argv, "--json")
    assert code == 0 and err == "", err
    return json.loads(out)


@pytest.mark.parametrize("topk, select", [("peel-em", "em"), ("joint-em", "em"),
                                          ("peel-pf", "pf"), ("joint-pf", "pf")])
@pytest.mark.parametrize("monotonic", [[], ["--monotonic"]])
def test_top_one_pmf_is_the_select_pmf(capsys, topk, select, monotonic):
    common = ["--scores", SCORES, "--eps", "1.3", "--sensitivity", "0.7", *monotonic]
    ours = _json(capsys, "topk", "pmf", "--mechanism", topk, "--top", "1", *common)
    theirs = _json(capsys, "select", "pmf", "--mechanism", select, *common)
    assert ours["outcomes"] == [[i] for i in range(6)]
    assert np.abs(np.array(ours["pmf"]) - theirs["pmf"]).max() < 1e-12


def test_exact_errors_are_the_reference_expectations(capsys):
    q = (4.0, 1.0, 3.0, 3.0, 0.0)
    document = _json(capsys, "topk", "error", "--mechanism", "joint-pf", "--scores",
                     ",".join(map(str, q)), "--top", "2", "--eps", "1.3", "--monotonic")
    reference = reference_pmf("joint-pf", q, 2, 1.3 / 2)
    assert document["method"] == "exact"
    for key, measure in (("l_inf", "l_inf"), ("l_1", "l1"), ("k_relative", "k_relative")):
        expected = mpmath.fsum(p * loop_error(q, s, measure) for s, p in reference.items())
        assert document[key] == pytest.approx(float(expected), rel=1e-12)


def test_monte_carlo_errors_agree_with_the_exact_ones(capsys):
    argv = ["topk", "error", "--mechanism", "canonical-lipschitz", "--scores", "4,1,3,3,0",
            "--top", "3", "--eps", "2"]
    exact = _json(capsys, *argv)
    estimate = _json(capsys, *argv, "--method", "monte-carlo", "--draws", "20000",
                     "--seed", "5")
    assert (estimate["method"], estimate["draws"], estimate["seed"]) == ("monte-carlo", 20000, 5)
    for key in ("l_inf", "l_1", "k_relative"):
        assert abs(estimate[key] - exact[key]) < 5 * estimate["standard_errors"][key]
        low, high = estimate["intervals"][key]
        assert low < estimate[key] < high


def test_samples_are_distinct_candidates_and_follow_the_seed(capsys):
    argv = ["topk", "sample", "--mechanism", "peel-pf", "--scores", SCORES, "--top", "3",
            "--eps", "1", "--size", "7", "--seed", "9"]
    first, second = _json(capsys, *argv)["samples"], _json(capsys, *argv)["samples"]
    assert first == second and len(first) == 7
    assert all(len(set(row)) == 3 and set(row) <= set(range(6)) for row in first)
    code, out, _ = run_cli(capsys, *argv)
    assert code == 0 and [list(map(int, line.split())) for line in out.splitlines()] == first


@pytest.mark.parametrize("argv, option", [
    (["--top", "0"], "--top"),
    (["--top", "7"], "--top"),
    (["--top", "2", "--eps", "-1"], "--eps"),
    (["--top", "2", "--mechanism", "joint"], "--mechanism"),
    (["--top", "2", "--sensitivity", "1e-320"], "--sensitivity"),
])
def test_bad_input_is_one_line_naming_the_option(capsys, argv, option):
    base = {"--mechanism": "joint-em", "--scores": SCORES, "--eps": "1"}
    for i in range(0, len(argv), 2):
        base[argv[i]] = argv[i + 1]
    code, out, err = run_cli_error(capsys, "topk", "pmf", *[x for kv in base.items()
                                                            for x in kv])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("optmech: error:") and option in err, err


def test_an_enumeration_too_large_is_refused_and_monte_carlo_is_not(capsys):
    scores = ",".join(map(str, range(40)))
    code, _, err = run_cli_error(capsys, "topk", "error", "--mechanism", "joint-em",
                                 "--scores", scores, "--top", "6", "--eps", "1", "--method",
                                 "exact")
    assert code == 2 and "33554432" in err and err.count("\n") == 1
    estimate = _json(capsys, "topk", "error", "--mechanism", "joint-em", "--scores", scores,
                     "--top", "6", "--eps", "1", "--draws", "200", "--seed", "1")
    assert estimate["method"] == "monte-carlo"


@pytest.mark.parametrize("action", sorted(_EXAMPLES))
def test_each_help_shows_an_example_that_runs(capsys, action):
    with pytest.raises(SystemExit):
        main(["topk", action, "--help"])
    shown = capsys.readouterr().out.replace(" \\\n    ", " ")    # a long example wraps
    assert "example: " + _EXAMPLES[action] in shown.replace("\n", " ")
    argv = shlex.split(_EXAMPLES[action])[1:]
    code, out, err = run_cli(capsys, *argv)
    assert code == 0 and out and err == ""


def test_samples_at_epsilon_1e20_are_the_certain_outcome(capsys):
    """Peeling PF printed ``0 0`` five times (a candidate taken twice); at epsilon 1e20 the
    pmf gives (0, 2) probability 1, and Monte Carlo's k-relative error is then 0 (it was
    -1.0, outside the schema)."""
    from optmech.schemas import validate

    common = ["--mechanism", "peel-pf", "--scores", "3,1,2", "--top", "2", "--eps", "1e20"]
    assert _json(capsys, "topk", "sample", *common, "--size", "5", "--seed", "1"
                 )["samples"] == [[0, 2]] * 5
    assert _json(capsys, "topk", "pmf", *common)["pmf"][1] == pytest.approx(1.0)  # (0, 2)
    document = _json(capsys, "topk", "error", *common, "--method", "monte-carlo",
                     "--seed", "1")
    validate(document)
    assert document["k_relative"] == document["l_1"] == 0.0


def test_an_enumeration_of_1600_factorial_outcomes_is_bad_input(capsys):
    """1600 scores, top 1600: the refusal printed the count, 1600! (4434 digits), which
    Python refuses to turn into text ('internal error', exit 1); it is its power of ten."""
    code, out, err = run_cli_error(capsys, "topk", "pmf", "--mechanism", "gumbel", "--scores",
                                   ",".join(map(str, range(1, 1601))), "--top", "1600",
                                   "--eps", "1")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("optmech: error: --scores, --top must be at most 33554432")
    assert f"about 10^{math.lgamma(1601) / math.log(10):.1f}" in err


@pytest.mark.parametrize("action", ["sample", "error"])
def test_joint_classes_beyond_the_memory_budget_are_refused_up_front(capsys, action):
    """30,000 scores, top 3000: about ten n x T arrays (10 GiB); sample reached 5.6 GB and
    exited 1 'out of memory', Monte Carlo error exited 1 with a bare MemoryError."""
    scores = ",".join(str(i % 997) for i in range(30_000))
    extra = ["--size", "1"] if action == "sample" else ["--method", "monte-carlo"]
    code, out, err = run_cli_error(capsys, "topk", action, "--mechanism", "joint-em",
                                   "--scores", scores, "--top", "3000", "--eps", "1", *extra,
                                   "--max-memory", "3GiB")
    assert code == 2 and out == "" and err.count("\n") == 1
    assert err.startswith("optmech: error: --scores, --top, --") and "GiB" in err
