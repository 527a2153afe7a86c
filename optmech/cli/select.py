"""``optmech select pmf|error|sample``: one selection mechanism on one score vector;
``optmech select em-pf-search``: the largest ``E[err EM] / E[err PF]`` found over score
vectors (:mod:`optmech.selection.em_pf_search`)."""

from __future__ import annotations

import argparse
import math

from optmech.cli._common import (
    add_actions,
    add_json_flag,
    emit,
    float_list,
    int_list,
    integer,
    names,
    positive_float,
    positive_int,
    seed,
)
from optmech.resources import Estimate
from optmech.selection.mechanisms import MECHANISMS, make_mechanism
from optmech.tables import text_table

ACTIONS = ("pmf", "error", "sample", "em-pf-search")
# One score of pmf/error (report-noisy-max with Laplace noise, the slowest: 0.43 s for 10^6
# scores, rounded up; a command line holds at most about 2 x 10^4 scores) and one draw of
# sample (measured 0.56 us and 97 bytes a draw, printing included, at --size 10^7 on a
# loaded machine: every draw becomes a Python int and its text).
SECONDS_PER_SCORE, BYTES_PER_SCORE = 1e-6, 400
SECONDS_PER_DRAW, BYTES_PER_DRAW = 8e-7, 110


def finite_scores(text: str) -> list[float]:
    """argparse type: comma-separated finite scores."""
    values = float_list(text)
    if not all(math.isfinite(v) for v in values):
        raise argparse.ArgumentTypeError(f"scores must be finite numbers, got {text!r}")
    return values


def positive_floats(text: str) -> list[float]:
    """argparse type: comma-separated finite numbers > 0."""
    values = float_list(text)
    if not all(v > 0 for v in values):
        raise argparse.ArgumentTypeError(f"expected numbers > 0, got {text!r}")
    return values


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "select", help="probabilities, expected error or samples of a selection mechanism",
        description="Exact pmf, expected error (max score - selected score) or samples of "
                    "a private selection mechanism on one score vector; em-pf-search: the "
                    "largest ratio E[err EM]/E[err PF] found over score vectors (it is "
                    "below 2 for every vector, and 2 is the supremum).",
        epilog="example: optmech select pmf --mechanism em --scores 0,-1,-3 --eps 1")
    actions = add_actions(parser, metavar="{" + ",".join(ACTIONS) + "}")
    helps = {"pmf": "exact selection probabilities", "error": "exact expected error",
             "sample": "random selections"}
    examples = {"pmf": "pmf --mechanism pf --scores 0,-1,-3 --eps 1.3",
                "error": "error --mechanism em --scores 0,-1,-3 --eps 1.3",
                "sample": "sample --mechanism pf --scores 0,-1 --eps 1 --seed 1"}
    for action, text in helps.items():
        one = actions.add_parser(action, help=text, description=text + " of one mechanism "
                                 "on one score vector",
                                 epilog=f"example: optmech select {examples[action]}")
        one.add_argument("--mechanism", required=True, type=names(MECHANISMS), metavar="NAME",
                         help="the mechanism: " + ", ".join(MECHANISMS)
                              + " (rnm-laplace spells rnm_laplace too)")
        one.add_argument("--scores", required=True, type=finite_scores,
                         help="comma-separated utilities, e.g. 0,-1,-3")
        one.add_argument("--eps", required=True, type=positive_float, help="epsilon > 0")
        one.add_argument("--sensitivity", type=positive_float, default=1.0,
                         help="score sensitivity Δ > 0 (default 1)")
        one.add_argument("--monotonic", action="store_true",
                         help="scores move in one direction between neighbours")
        if action == "sample":
            one.add_argument("--size", type=positive_int, default=10,
                             help="number of samples (default 10)")
            one.add_argument("--seed", type=seed, default=None, help="random seed")
        add_json_flag(one)
        one.set_defaults(func=run, estimate=estimate)
    search = actions.add_parser(
        "em-pf-search", help="search for the largest ratio E[err EM] / E[err PF]",
        description="The largest ratio E[err EM]/E[err PF] found over score vectors (below "
                    "2 for every vector; 2 is the supremum).",
        epilog="example: optmech select em-pf-search --n 2,3 --eps 1 --starts 1")
    search.add_argument("--n", required=True, type=int_list,
                        help="comma list of candidate counts (2 to 200)")
    search.add_argument("--eps", required=True, type=positive_floats,
                        help="comma list of epsilons > 0")
    search.add_argument("--starts", type=integer, default=10,
                        help="random starts per (n, eps), >= 0 (default 10)")
    search.add_argument("--seed", type=seed, default=0, help="random seed (default 0)")
    add_json_flag(search)
    search.set_defaults(func=run_search, estimate=estimate_search)


def estimate(args: argparse.Namespace) -> Estimate:
    """pmf and error: linear in the scores; sample: linear in ``--size``."""
    n = len(args.scores)
    work = Estimate(SECONDS_PER_SCORE * n, BYTES_PER_SCORE * n, "--scores", f"{n} scores")
    if args.action == "sample":
        work += Estimate(SECONDS_PER_DRAW * args.size, BYTES_PER_DRAW * args.size, "--size",
                         args.size)
    return work


def estimate_search(args: argparse.Namespace) -> Estimate:
    """The search's own estimate (:func:`optmech.selection.em_pf_search.estimated_seconds`)."""
    from optmech.selection.em_pf_search import estimated_seconds

    return Estimate(estimated_seconds(args.n, len(args.eps), max(args.starts, 0)),
                              0, "--starts", args.starts)


def run(args: argparse.Namespace) -> int:
    mechanism = make_mechanism(args.mechanism, args.eps, args.sensitivity, args.monotonic)
    if args.action == "pmf":
        probs = mechanism.pmf(args.scores)
        emit(args, {"pmf": probs},
             lambda p: text_table(["candidate", "score", "probability"],
                                  [(i, s, float(v)) for i, (s, v)
                                   in enumerate(zip(args.scores, p["pmf"]))]))
    elif args.action == "error":
        emit(args, {"expected_error": mechanism.expected_error(args.scores)},
             lambda p: f"expected error: {p['expected_error']:.12g}")
    else:
        draws = mechanism.sample(args.scores, size=args.size, rng=args.seed)
        emit(args, {"samples": draws}, lambda p: " ".join(map(str, p["samples"].tolist())))
    return 0


def run_search(args: argparse.Namespace) -> int:
    from optmech.selection.em_pf_search import search_em_pf_ratio

    results = search_em_pf_ratio(args.n, args.eps, starts=args.starts, seed=args.seed)
    best = max(results, key=lambda r: r.ratio)
    payload = {"searches": [{"n": r.n, "epsilon": r.epsilon, "ratio": r.ratio,
                             "deficit": r.deficit, "bound": r.bound, "family": r.family,
                             "scores": r.scores, "ratios": r.ratios,
                             "evaluations": r.evaluations} for r in results],
               "largest_ratio": best.ratio, "n": best.n, "epsilon": best.epsilon,
               "scores": best.scores, "supremum": 2.0}

    def render(p):
        rows = [(r["n"], f"{r['epsilon']:g}", f"{r['ratio']:.15g}", f"{r['deficit']:.3e}",
                 r["family"], r["evaluations"]) for r in p["searches"]]
        table = text_table(["n", "epsilon", "largest ratio", "2 - ratio", "found by",
                              "evaluations"], rows)
        return (table + f"\nlargest ratio found {p['largest_ratio']:.15g} (n = {p['n']}, "
                        f"eps = {p['epsilon']:g}); the supremum over all score vectors is 2, "
                        "never attained (identity permute_flip.em_pf_ratio_below_two)")

    emit(args, payload, render)
    return 0
