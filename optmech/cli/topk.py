"""``optmech topk pmf|error|sample``: one top-T mechanism on one score vector
(:mod:`optmech.topk`); ``optmech topk lp``: the optimal top-T mechanism on the bounded
lattice and the optimality ratios (:mod:`optmech.cli._topk_lp`)."""

from __future__ import annotations

import argparse

from optmech.cli._common import (
    add_actions,
    add_json_flag,
    emit,
    names,
    positive_float,
    positive_int,
    seed,
)
from optmech.cli._topk_lp import add_lp_action
from optmech.cli.select import finite_scores
from optmech.resources import Estimate
from optmech.tables import text_table
from optmech.topk.enumeration import check_top, enumeration_estimate, outcome_count
from optmech.topk.mechanisms import TOPK_MECHANISMS, make_topk_mechanism

ACTIONS = ("pmf", "error", "sample")
#: Most outputs drawn by one command (--size, --draws): printing 10^7 pairs took 30 CPU s
#: and 2.6 GB (measured), the Monte Carlo errors of 10^7 draws 11 CPU s
MAX_DRAWS = 10**7
# `error --method auto` is exact up to this many ordered outputs (well under a second),
# Monte Carlo beyond
AUTO_EXACT = 200_000
# CPU seconds per drawn index beyond the sampler's own cost (optmech.topk.sampler_costs):
# scoring and printing, whatever the size
_SECONDS_PER_INDEX = 1e-6
# The JSON keys of the error measures (optmech.topk.utilities.MEASURES spells l_1 as "l1")
KEYS = {"l_inf": "l_inf", "l_1": "l1", "k_relative": "k_relative"}
_EXAMPLES = {
    "pmf": "optmech topk pmf --mechanism joint-em --scores 3,1,2,0 --top 2 --eps 1",
    "error": "optmech topk error --mechanism peel-pf --scores 3,1,2,0 --top 2 --eps 1",
    "sample": "optmech topk sample --mechanism gumbel --scores 3,1,2 --top 2 --eps 1 --size 5",
}


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "topk", help="probabilities, expected errors or samples of a top-T mechanism; the "
                     "optimal top-T mechanism",
        description="Exact pmf over ordered T-tuples, expected errors (l_inf, l_1, "
                    "k-relative) or samples of a private top-T selection mechanism on one "
                    "score vector; lp: the certified optimal top-T mechanism on the bounded "
                    "lattice and the optimality ratios.  --eps is the budget of the whole "
                    "T-tuple.",
        epilog="example: optmech topk pmf --mechanism peel-em --scores 3,1,2 --top 2 --eps 1")
    actions = add_actions(parser, metavar="{" + ",".join((*ACTIONS, "lp")) + "}")
    helps = {"pmf": "exact probability of every ordered output",
             "error": "expected l_inf, l_1 and k-relative errors",
             "sample": "random outputs"}
    for action, text in helps.items():
        one = actions.add_parser(
            action, help=text, description=text + " of one top-T mechanism on one score "
            "vector", epilog="example: " + _EXAMPLES[action])
        one.add_argument("--mechanism", required=True, type=names(TOPK_MECHANISMS),
                         metavar="NAME",
                         help="the mechanism: " + ", ".join(TOPK_MECHANISMS)
                              + " (peel_em spells peel-em too)")
        one.add_argument("--scores", required=True, type=finite_scores,
                         help="comma-separated utilities, e.g. 3,1,2,0")
        one.add_argument("--top", required=True, type=positive_int,
                         help="T, the number of candidates selected (1 to the number of "
                              "scores)")
        one.add_argument("--eps", required=True, type=positive_float,
                         help="epsilon > 0, the budget of the whole T-tuple")
        one.add_argument("--sensitivity", type=positive_float, default=1.0,
                         help="score sensitivity Δ > 0 (default 1)")
        one.add_argument("--monotonic", action="store_true",
                         help="add/remove of one record: all scores move in one direction "
                              "between neighbours (default: any direction)")
        if action == "error":
            one.add_argument("--method", choices=("auto", "exact", "monte-carlo"),
                             default="auto",
                             help=f"exact by enumeration, or Monte Carlo with a 95%% "
                                  f"interval (auto: exact up to {AUTO_EXACT} ordered "
                                  "outputs)")
            one.add_argument("--draws", type=_draws(2), default=10_000,
                             help=f"Monte Carlo draws, 2 to {MAX_DRAWS} (default 10000)")
        if action == "sample":
            one.add_argument("--size", type=_draws(1), default=10,
                             help=f"number of outputs, 1 to {MAX_DRAWS} (default 10)")
        if action in ("error", "sample"):
            one.add_argument("--seed", type=seed, default=None,
                             help="random seed" + (" (Monte Carlo only)" if action == "error"
                                                   else ""))
        add_json_flag(one)
        one.set_defaults(func=run, estimate=estimate)
    add_lp_action(actions)


def _draws(minimum: int):
    """argparse type: a number of draws in ``[minimum, MAX_DRAWS]``."""
    def parse(text: str) -> int:
        value = positive_int(text)
        if not minimum <= value <= MAX_DRAWS:
            raise argparse.ArgumentTypeError(f"must be an integer in [{minimum}, {MAX_DRAWS}], "
                                             f"got {text!r}")
        return value
    return parse


def estimate(args: argparse.Namespace) -> Estimate:
    """pmf, and error when exact: the enumeration of every ordered output
    (:func:`optmech.topk.enumeration.enumeration_estimate`; three measures for error);
    Monte Carlo errors and samples: the sampler's set-up and draws
    (:meth:`~optmech.topk.mechanisms.TopKMechanism.sample_estimate`: the joint
    mechanisms' classes are about 120 bytes per score and position), named by the
    option of the draws."""
    n = len(args.scores)
    check_top(args.top, n, "--top")
    if args.action == "pmf" or (args.action == "error" and _exact(args)):
        work = enumeration_estimate(n, args.top, argument="--scores, --top")
        return work + work + work if args.action == "error" else work
    count = args.draws if args.action == "error" else args.size
    draws = make_topk_mechanism(args.mechanism, args.eps, args.top, args.sensitivity,
                                args.monotonic).sample_estimate(args.scores, count)
    option = "--scores, --top, " + ("--draws" if args.action == "error" else "--size")
    if args.action == "error":
        # three measures, each from its own draws, scored as 8-byte errors per index
        once = Estimate(draws.seconds + _SECONDS_PER_INDEX * count * args.top,
                        draws.nbytes + 8 * count * args.top, option, draws.value)
        return once + once + once
    # Printing turns every output into a list of Python ints and a line of text: measured
    # 2.6 GB for 10^7 pairs (T = 2), so 64 bytes a row and 128 an index, rounded up.
    return Estimate(draws.seconds + _SECONDS_PER_INDEX * count * args.top,
                    draws.nbytes + (64 + 128 * args.top) * count, option, draws.value)


def _exact(args) -> bool:
    """Whether ``error`` enumerates (``--method exact``, or auto on few outputs)."""
    return args.method == "exact" or (
        args.method == "auto" and outcome_count(len(args.scores), args.top) <= AUTO_EXACT)


def run(args: argparse.Namespace) -> int:
    mechanism = make_topk_mechanism(args.mechanism, args.eps, args.top, args.sensitivity,
                                    args.monotonic)
    {"pmf": _pmf, "error": _error, "sample": _sample}[args.action](args, mechanism)
    return 0


def _pmf(args, mechanism) -> None:
    from optmech.topk.enumeration import outcomes

    probabilities = mechanism.pmf(args.scores)
    tuples = outcomes(len(args.scores), args.top)
    emit(args, {"outcomes": tuples, "pmf": probabilities},
         lambda p: text_table(["output", "scores", "probability"],
                              [(" ".join(map(str, s)),
                                " ".join(f"{args.scores[i]:g}" for i in s), float(v))
                               for s, v in zip(tuples.tolist(), probabilities)]))


def _error(args, mechanism) -> None:
    if _exact(args):
        payload = {"method": "exact", **{key: mechanism.expected_error(args.scores, measure)
                                         for key, measure in KEYS.items()}}
    else:
        estimates = {key: mechanism.estimate_error(args.scores, measure, args.draws,
                                                   args.seed)
                     for key, measure in KEYS.items()}
        payload = {"method": "monte-carlo",
                   **{key: e.mean for key, e in estimates.items()},
                   "standard_errors": {key: e.standard_error for key, e in estimates.items()},
                   "intervals": {key: list(e.interval) for key, e in estimates.items()},
                   "confidence": 0.95, "draws": args.draws, "seed": args.seed}
    emit(args, payload, _error_table)


def _error_table(p: dict) -> str:
    rows = []
    for key in KEYS:
        row = [key, p[key]]
        if p["method"] == "monte-carlo":
            low, high = p["intervals"][key]
            row += [p["standard_errors"][key], f"[{low:.6g}, {high:.6g}]"]
        rows.append(row)
    headers = ["measure", "expected error"]
    if p["method"] == "monte-carlo":
        headers += ["standard error", "95% interval"]
        note = f"\nMonte Carlo, {p['draws']} draws" + (f", seed {p['seed']}"
                                                       if p.get("seed") is not None else "")
    else:
        note = "\nexact (every ordered output enumerated)"
    return text_table(headers, rows) + note


def _sample(args, mechanism) -> None:
    draws = mechanism.sample(args.scores, size=args.size, rng=args.seed)
    emit(args, {"samples": draws},
         lambda p: "\n".join(" ".join(map(str, row)) for row in p["samples"].tolist()))

