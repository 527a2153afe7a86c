"""Every command estimates its work and memory before it starts: large requests are refused
under a small budget (exit 2, one line naming the option) before any work, and option
abbreviations are not accepted."""

import numpy as np
import pytest

from optmech.cli import _leaf_parsers, build_parser
from tests.cli_helpers import refusal, run_cli_error


def test_every_command_has_an_estimate():
    missing = [leaf.prog for leaf in _leaf_parsers(build_parser())
               if not callable(leaf.get_default("estimate"))]
    assert missing == []


# The requests of issue 40 that ran under --max-work 1s (their CPU seconds then), and more.
@pytest.mark.parametrize("argv, option", [
    (["select", "sample", "--mechanism", "pf", "--scores", "0,-1", "--eps", "1", "--size",
      "30000000"], "--size"),                                           # 7.8 CPU s
    (["multiselect", "sample", "--k", "2", "--eps", "1", "--size", "100000000"],
     "--size"),                                                         # 22 CPU s, 5.3 GiB
    (["lattice", "solve", "--n", "8", "--k", "8", "--eps", "0.5"], "--n, --depth"),   # 6.1 s
    (["lattice", "ratio", "--n", "4,5", "--k", "4,5", "--eps", "0.05:0.6:12"],
     "--n, --depth, --eps"),                                            # 48 cells, 8.8 s
    (["reproduce", "--quick", "--only", "selection"], "--only"),
    (["proofs", "check"], "--only"),
    (["multiselect", "cost", "--k", "10000", "--eps", "1", "--h", "square"], "--k"),  # 5.2 s
    (["secretary", "profile", "--n", "100000000", "--p", "0.5"], "--n, --l"),
    (["hetero", "run", "--scenario", "4", "--eps", "0.1:10:20:log"], "--trials"),
    (["multiselect", "dilp", "--k", "2", "--eps", "1", "--ring", "--grid", "400"], "--grid"),
    (["lattice", "bound", "--n", "8", "--k", "8", "--eps", "0.5"], "--n, --depth"),
    (["topk", "sample", "--mechanism", "gumbel", "--scores", "3,1,2", "--top", "2", "--eps",
      "1", "--size", "10000000"], "--scores, --top, --size"),
    (["topk", "error", "--mechanism", "peel-pf", "--scores", ",".join(map(str, range(12))),
      "--top", "6", "--eps", "1", "--method", "exact"], "--scores, --top"),
    (["topk", "lp", "--n", "6", "--k", "8", "--top", "3", "--eps", "1"], "--n, --depth, --top"),
    (["privacy", "worst", "--mechanism", "rnm_laplace", "--eps", "1", "--n", "50"], "--n"),
    (["privacy", "referee"], "--only, --quick"),
    (["privacy", "account", "--step", "em:0.01:100000"], "--step"),
    (["privacy", "pair", "--mechanism", "pf", "--eps", "1", "--scores", ",".join(["0"] * 3000),
      "--neighbour", ",".join(["1"] * 3000), "--orders", ",".join(["2"] * 3000)],
     "--scores, --orders"),
], ids=lambda value: value if isinstance(value, str) else " ".join(value[:2]))
def test_large_requests_are_refused_before_any_work(capsys, argv, option):
    # (a memory budget above every estimate here: the refusal is the work's, whatever memory
    # this machine has)
    line = refusal(capsys, *argv, "--max-work", "1s", "--max-memory", "1TB")
    assert line.startswith(f"optmech: error: {option} must be small enough")
    assert "of CPU time" in line


def test_the_default_budget_lets_the_documented_sizes_run(capsys):
    """The same arguments as the refused ones, under the default budget of one hour: the
    estimate lets them through (the work itself is not run here)."""
    from optmech.cli._budget import require_estimate

    parser = build_parser()
    for argv in (["lattice", "ratio", "--n", "3,4,5,6", "--k", "4", "--eps", "0.01:10:50:log"],
                 ["secretary", "profile", "--n", "100000000", "--p", "0.5"],
                 ["reproduce"], ["proofs", "check"],
                 ["hetero", "run", "--scenario", "4", "--eps", "0.1:10:20:log"]):
        estimate = require_estimate(parser.parse_args(argv))
        assert 0 < estimate.seconds < 3600, argv


@pytest.mark.parametrize("argv", [
    ["bench", "--jso"],
    ["select", "pmf", "--mech", "pf", "--scores", "0,-1", "--eps", "1"],
    ["lattice", "solve", "--n", "2", "--k", "1", "--ep", "1"],
    ["select", "pmf", "--mechanism", "pf", "--scores", "0,-1", "--eps", "1", "--max-mem",
     "1GiB"],
])
def test_options_are_not_abbreviated(capsys, argv):
    code, out, err = run_cli_error(capsys, *argv)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "unrecognized arguments" in err or "required" in err, err


def test_no_parser_at_any_depth_takes_abbreviations():
    """Every parser the command builds (``optmech``, each area, each action), whoever
    registers it: ``allow_abbrev`` is off."""
    from optmech.cli import _all_parsers

    parsers = list(_all_parsers(build_parser()))
    assert len(parsers) > 20
    assert [p.prog for p in parsers if p.allow_abbrev] == []


def test_weights_on_tied_vectors_only_are_refused_naming_weights(capsys):
    """n = 2, k = 1, all weight on the vector (0, 0): every mechanism's weighted error is 0
    and every ratio 0/0 (it exited 1 with a numerical warning)."""
    assert "--weights" in refusal(capsys, "lattice", "solve", "--n", "2", "--k", "1", "--eps",
                                  "1", "--objective", "weighted", "--weights", "depth:1,0")


def test_mechanisms_refuse_work_beyond_the_memory_budget_before_allocating():
    """10^9 scores or a 10^5 x 10^5 batch (views that take no memory) are refused naming
    ``scores``; 10^10 draws naming ``size``."""
    from optmech import ExponentialMechanism, PermuteAndFlip, ReportNoisyMax
    from optmech.validation import InvalidArgumentError

    many, batch = np.broadcast_to(0.0, (10**9,)), np.broadcast_to(0.0, (10**5, 10**5))
    for mechanism in (PermuteAndFlip(1.0), ExponentialMechanism(1.0), ReportNoisyMax(1.0)):
        for method in ("pmf", "logpmf", "expected_error", "log_expected_error"):
            for scores in (many, batch):
                with pytest.raises(InvalidArgumentError, match="^scores must be small enough"):
                    getattr(mechanism, method)(scores)
        for method in ("sample", "rvs"):
            with pytest.raises(InvalidArgumentError, match="^scores must"):
                getattr(mechanism, method)(many, 3)
            with pytest.raises(InvalidArgumentError, match="^size must"):
                getattr(mechanism, method)([0.0, -1.0], 10**10)
