"""``optmech select pmf|error|sample``: one selection mechanism on one score vector."""

from __future__ import annotations

import argparse
import math

from optmech.cli._common import (
    add_json_flag,
    emit,
    float_list,
    format_table,
    positive_float,
    positive_int,
    seed,
)
from optmech.resources import require_memory
from optmech.selection.mechanisms import MECHANISMS, make_mechanism

ACTIONS = ("pmf", "error", "sample")


def finite_scores(text: str) -> list[float]:
    """argparse type: comma-separated finite scores."""
    values = float_list(text)
    if not all(math.isfinite(v) for v in values):
        raise argparse.ArgumentTypeError(f"scores must be finite numbers, got {text!r}")
    return values


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "select", help="probabilities, expected error or samples of a selection mechanism",
        description="Exact pmf, expected error (max score - selected score) or samples of "
                    "a private selection mechanism on one score vector.  Write negative "
                    "leading scores as --scores=-1,0.")
    parser.add_argument("action", choices=ACTIONS)
    parser.add_argument("--mechanism", required=True, choices=MECHANISMS)
    parser.add_argument("--scores", required=True, type=finite_scores,
                        help="comma-separated utilities, e.g. 0,-1,-3")
    parser.add_argument("--eps", required=True, type=positive_float, help="epsilon > 0")
    parser.add_argument("--sensitivity", type=positive_float, default=1.0,
                        help="score sensitivity Δ > 0 (default 1)")
    parser.add_argument("--monotonic", action="store_true",
                        help="scores move in one direction between neighbours")
    parser.add_argument("--size", type=positive_int, default=10, help="number of samples (sample)")
    parser.add_argument("--seed", type=seed, default=None, help="random seed (sample)")
    add_json_flag(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    mechanism = make_mechanism(args.mechanism, args.eps, args.sensitivity, args.monotonic)
    if args.action == "pmf":
        probs = mechanism.pmf(args.scores)
        emit(args, {"pmf": probs},
             lambda p: format_table(["candidate", "score", "probability"],
                                    [(i, s, float(v)) for i, (s, v)
                                     in enumerate(zip(args.scores, p["pmf"]))]))
    elif args.action == "error":
        emit(args, {"expected_error": mechanism.expected_error(args.scores)},
             lambda p: f"expected error: {p['expected_error']:.12g}")
    else:
        # Printing turns every draw into a Python int and text: about 48 bytes a draw.
        require_memory(48 * args.size, "--size", args.size)
        draws = mechanism.sample(args.scores, size=args.size, rng=args.seed)
        emit(args, {"samples": draws}, lambda p: " ".join(map(str, p["samples"].tolist())))
    return 0
