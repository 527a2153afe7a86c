"""Every command's ``--json`` output names its schema (optmech.schemas) and follows it.

Each command runs here at a small size and its actual output is validated with
``jsonschema`` against the schema file shipped in the package; the schemas are strict (no
undescribed key), so a key added to an output without its schema fails here.
"""

import itertools
import json

import jsonschema
import numpy as np
import pytest

import optmech
from optmech import PermuteAndFlip
from optmech.cli import _leaf_parsers, build_parser, main
from optmech.schemas import load, names, schema_name, validate
from tests.cli_helpers import without_status

RUNS = {
    "select.pmf": [["select", "pmf", "--mechanism", "pf", "--scores", "0,-1,-3", "--eps", "1.3"]],
    "select.error": [["select", "error", "--mechanism", "em", "--scores", "0,-1", "--eps", "1"]],
    "select.sample": [["select", "sample", "--mechanism", "pf", "--scores", "0,-1", "--eps", "1",
                       "--size", "4", "--seed", "1"]],
    "select.em-pf-search": [["select", "em-pf-search", "--n", "2,3", "--eps", "1",
                             "--starts", "1"]],
    "select.compare": [["select", "compare", "--rho", "0.01", "--datasets", "MEDCOST",
                        "--tasks", "mode", "--gaps", "1", "--n", "3", "--found-n", "0"],
                       ["select", "compare", "--eps", "0.5", "--datasets", "none", "--gaps",
                        "2", "--n", "4", "--found-n", "2"]],
    "data.error": [["data", "error", "--dataset", "HEPTH", "--task", "median", "--eps", "0.1",
                    "--bins", "64"]],
    "hetero.run": [["hetero", "run", "--scenario", "1", "--eps", "0.5,1", "--trials", "2"]],
    "lattice.solve": [["lattice", "solve", "--n", "3", "--k", "2", "--eps", "0.5"],
                      ["lattice", "solve", "--n", "3", "--k", "2", "--eps", "0.5",
                       "--objective", "max"],
                      ["lattice", "solve", "--n", "3", "--k", "2", "--eps", "1.5",
                       "--objective", "weighted", "--weights", "geometric:0.5"],
                      ["lattice", "solve", "--n", "3", "--k", "2", "--eps", "1.0"],
                      ["lattice", "solve", "--n", "3", "--k", "2", "--eps", "0.5",
                       "--lattice", "delta", "--probabilities"]],
    "lattice.bound": [["lattice", "bound", "--n", "3", "--k", "2", "--eps", "0.3"]],
    "lattice.ratio": [["lattice", "ratio", "--n", "3", "--k", "2", "--eps", "0.5,1"],
                      ["lattice", "ratio", "--n", "3", "--k", "2", "--eps", "0.5,1",
                       "--bound"]],
    "multiselect.cost": [["multiselect", "cost", "--k", "2", "--eps", "1"],
                         ["multiselect", "cost", "--k", "2", "--eps", "1", "--noise",
                          "gaussian"]],
    "multiselect.dilp": [["multiselect", "dilp", "--k", "2", "--eps", "1", "--grid", "30"]],
    "multiselect.sample": [["multiselect", "sample", "--k", "2", "--eps", "1", "--size", "100",
                            "--seed", "1"]],
    "secretary.profile": [["secretary", "profile", "--n", "10", "--p", "0.5", "--l", "1",
                           "--delta", "0.1"],
                          ["secretary", "profile", "--n", "10", "--p", "1", "--l", "1",
                           "--eps", "1"]],
    "secretary.optimal": [["secretary", "optimal", "--n", "8", "--eps", "1", "--delta", "0",
                           "--l", "1"],
                          ["secretary", "optimal", "--n", "8", "--eps", "1", "--delta", "0",
                           "--l", "1", "--payoff", "top-m", "--m", "2", "--rule"]],
    "proofs.check": [["proofs", "check", "--only", "secretary.rank_distribution", "--only",
                      "secretary.threshold"]],
    "topk.pmf": [["topk", "pmf", "--mechanism", "joint-pf", "--scores", "3,1,2,0", "--top", "2",
                  "--eps", "1"]],
    "topk.error": [["topk", "error", "--mechanism", "peel-pf", "--scores", "3,1,2,0", "--top",
                    "2", "--eps", "1"],
                   ["topk", "error", "--mechanism", "gumbel", "--scores", "3,1,2,0", "--top",
                    "2", "--eps", "1", "--method", "monte-carlo", "--draws", "100",
                    "--seed", "2"]],
    "topk.sample": [["topk", "sample", "--mechanism", "canonical-lipschitz", "--scores",
                     "3,1,2,0", "--top", "2", "--eps", "1", "--size", "3", "--seed", "1"]],
    "reproduce": [["reproduce", "--quick", "--only", "selection"]],
    "topk.lp": [["topk", "lp", "--n", "3", "--k", "2", "--top", "2", "--eps", "0.5"],
                ["topk", "lp", "--n", "3", "--k", "1", "--top", "2", "--eps", "0.5,1",
                 "--subsets", "--constraints", "private", "--mechanisms", "peel-pf"]],
    "privacy.pair": [["privacy", "pair", "--mechanism", "pf", "--eps", "2", "--scores", "0,0",
                      "--neighbour", "1,-1", "--orders", "1,2,inf"],
                     ["privacy", "pair", "--mechanism", "rnm_gaussian", "--sigma", "1",
                      "--scores", "0,0", "--neighbour", "1,-1", "--orders", "1,2,inf"]],
    "privacy.account": [["privacy", "account", "--step", "em:0.2:3", "--step", "pf:1",
                         "--eps-prime", "0,0.5"]],
    "privacy.worst": [["privacy", "worst", "--mechanism", "em", "--eps", "1", "--n", "2",
                       "--depth", "2", "--starts", "0", "--iterations", "10"],
                      ["privacy", "worst", "--mechanism", "rnm_gaussian", "--rho", "0.5", "--n",
                       "2", "--depth", "2", "--starts", "0", "--iterations", "10"]],
    "privacy.referee": [["privacy", "referee", "--quick", "--only",
                         "dp-accounting.rdp.em-count", "--only", "opendp.noisy-max.zcdp-map"]],
}


def _json_output(capsys, argv):
    code = main([*argv, "--json", "--quiet"])
    out = capsys.readouterr()
    assert code == 0 and without_status(out.err) == [], out.err
    assert out.out.count("\n") == 1
    return json.loads(out.out)


def _json_leaves():
    """``command.action`` of every command that takes ``--json`` (``select`` and ``data``
    take their action as a positional argument, the others as a sub-command)."""
    found = set()
    for leaf in _leaf_parsers(build_parser()):
        if any("--json" in action.option_strings for action in leaf._actions):
            prefix = ".".join(leaf.prog.split()[1:])
            actions = [a.choices for a in leaf._actions if a.dest == "action" and a.choices]
            found.update([f"{prefix}.{choice}" for choice in actions[0]] if actions
                         else [prefix])
    return found


def test_every_command_output_has_one_schema_and_a_run_here():
    assert {name.removeprefix("optmech.").split("/")[0] for name in names()} == _json_leaves()
    assert set(RUNS) | {"bench", "proofs.regenerate"} == _json_leaves()


@pytest.mark.parametrize("name", names())
def test_each_schema_is_valid_json_schema_and_names_itself(name):
    schema = load(name)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["title"] == name and name.endswith("/1")
    assert schema["additionalProperties"] is False
    assert schema["required"][:2] == ["optmech_version", "schema"]


@pytest.mark.parametrize("key, argv", [(key, argv) for key, runs in RUNS.items()
                                       for argv in runs],
                         ids=lambda value: value if isinstance(value, str) else None)
def test_command_output_follows_its_schema(key, argv, capsys, tmp_path, monkeypatch,
                                           reproduce_from_quick_runs):
    monkeypatch.chdir(tmp_path)         # reproduce writes its report here (its rows: shared)
    document = _json_output(capsys, argv)
    assert document["optmech_version"] == optmech.__version__
    assert document["schema"] == schema_name(*key.split(".", 1)) == f"optmech.{key}/1"
    assert list(document)[:2] == ["optmech_version", "schema"]
    validate(document)


def test_regenerate_and_bench_outputs_follow_their_schemas(capsys, tmp_path, monkeypatch):
    """The two commands whose real runs are long: regenerate with every check replaced by a
    stub outcome, bench with the benchmark runner's process replaced by its JSON."""
    import subprocess

    import proofs.registry
    from proofs.registry import CheckResult, Outcome

    monkeypatch.setattr(proofs.registry, "check_one",
                        lambda ident: Outcome(ident, CheckResult("verified", "stub")))
    document = _json_output(capsys, ["proofs", "regenerate", "--output",
                                     str(tmp_path / "i.md"), "--claims-output",
                                     str(tmp_path / "c.md")])
    validate(document)
    assert document["schema"] == "optmech.proofs.regenerate/1"

    runner = {"quick": True, "modules": ["gem"], "seconds": {"gem": 1.5},
              "tables": {"gem": ["benchmarks/results/quick/gem.md"]},
              "results": "benchmarks/results/quick/RESULTS.md"}
    monkeypatch.setattr(subprocess, "run", lambda command, cwd, stdout, text:
                        subprocess.CompletedProcess(command, 0, json.dumps(runner)))
    monkeypatch.chdir(optmech.schemas.FOLDER.parents[1])      # the source checkout
    document = _json_output(capsys, ["bench", "--quick", "--only", "gem"])
    validate(document)
    assert document == {"optmech_version": optmech.__version__,
                        "schema": "optmech.bench/1", **runner}


def _reproduce_document(ours):
    return {"optmech_version": optmech.__version__, "schema": "optmech.reproduce/1",
            "report": "out/report.md", "seconds": {"heterogeneous": 1.0}, "failures": 0,
            "results": [{"area": "heterogeneous", "name": "loss", "source": "x", "ours": ours,
                         "status": "new", "explanation": "", "key": "k", "ok": True}]}


def test_an_unbounded_value_is_allowed_where_a_result_can_be_unbounded():
    validate(_reproduce_document({"unbounded": True}))
    validate(_reproduce_document(2.5))
    for wrong in ({"unbounded": False}, {"unbounded": True, "x": 1}, None):
        with pytest.raises(jsonschema.ValidationError):
            validate(_reproduce_document(wrong))


def test_the_schemas_refuse_what_a_command_does_not_print(capsys):
    document = _json_output(capsys, ["lattice", "solve", "--n", "3", "--k", "2", "--eps", "1"])
    validate(document)
    for change in ({"total_error": {"unbounded": True}},          # a finite number here
                   {"extra": 1},                                  # an undescribed key
                   {"schema": "optmech.lattice.solve/2"},         # another major
                   {"aggregates": {**document["aggregates"], "total_error": "max"}}):
        with pytest.raises((jsonschema.ValidationError, KeyError)):
            validate(document | change)
    for key in ("optmech_version", "ratios"):
        with pytest.raises(jsonschema.ValidationError):
            validate({k: v for k, v in document.items() if k != key})


def _pf_errors_on_q(n, k, eps):
    """PF's expected error on every vector of Q (levels 0..k, one at 0; score -2 * level),
    by its pmf: a reference that shares nothing with the lattice classes."""
    mechanism = PermuteAndFlip(eps)
    return np.array([mechanism.expected_error(-2.0 * np.array(levels))
                     for levels in itertools.product(range(k + 1), repeat=n)
                     if min(levels) == 0])


@pytest.mark.parametrize("objective, weights", [("sum", None), ("max", None),
                                                ("weighted", "geometric:0.5")])
def test_lattice_solve_labels_each_aggregate(objective, weights, capsys):
    """``aggregates`` says which aggregate over Q each number is, and the numbers are those
    aggregates: the PF ratio times ``objective_value`` is PF's sum / max / weighted sum of
    errors over Q (enumerated), ``lower_bound`` certifies ``objective_value``, and
    ``total_error`` is a sum (never below the sum-optimum)."""
    n, k, eps = 3, 2, 0.5
    argv = ["lattice", "solve", "--n", str(n), "--k", str(k), "--eps", str(eps),
            "--objective", objective, *(["--weights", weights] if weights else [])]
    document = _json_output(capsys, argv)
    validate(document)
    assert document["aggregates"] == {"total_error": "sum", "objective_value": objective,
                                      "lower_bound": objective, "ratios": objective}
    assert ("weights" in document) == (objective == "weighted")
    levels = [max(v) for v in itertools.product(range(k + 1), repeat=n) if min(v) == 0]
    pf = _pf_errors_on_q(n, k, eps)
    expected = {"sum": pf.sum(), "max": pf.max(),
                "weighted": float(0.5 ** np.array(levels) @ pf)}[objective]
    value = document["objective_value"]
    assert document["ratios"]["pf"] * value == pytest.approx(expected, rel=1e-9)
    assert document["lower_bound"] <= value <= document["lower_bound"] * (1 + 1e-7)
    sum_optimum = _json_output(capsys, argv[:8])["total_error"]
    assert document["total_error"] >= sum_optimum * (1 - 1e-9)
    if objective == "max":
        assert value < pf.max() and document["total_error"] > 10 * value
