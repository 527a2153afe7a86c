"""``optmech secretary profile|optimal``: privacy of the paper's p-mix, and the optimal
(ε, δ)-DP stopping rule against the best p-mix."""

from __future__ import annotations

import argparse
import math
import sys

from optmech.cli._common import (
    add_actions,
    add_json_flag,
    emit,
    integer,
    number,
    output_file,
    positive_float,
)
from optmech.resources import Estimate
from optmech.tables import text_table

__all__ = ["register"]

_RATIO = {"best": "optimal_success / pmix_success (probability of selecting the best)",
          "top-m": "optimal_success / pmix_success (probability of selecting one of the m best)",
          "rank": "pmix expected rank / optimal expected rank (success = -expected rank)"}


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "secretary", help="private secretary problem: p-mix privacy, optimal private rule",
        description="Differentially private stopping rules for the secretary problem "
                    "(Grining, Klonowski, Sulkowska, arXiv:2005.01586): exact privacy of "
                    "the p-mix of the optimal rule with the blind choice, and the optimal "
                    "(ε, δ)-DP rule by LP.",
        epilog="example: optmech secretary profile --n 100 --p 0.5 --l 1")
    actions = add_actions(parser)

    profile = actions.add_parser(
        "profile", help="ε(δ) or δ(ε) of the p-mix, exact and asymptotic",
        description="Privacy of the p-mix of M* with the blind choice under d_l: ε for a "
                    "given δ (default δ = 0), or δ for a given ε; exact over all pairs "
                    "(Theorem 3.2), the paper's closed form (Theorem 4.2 / Corollary 2), "
                    "its n -> infinity limit and Theorem 4.1's bound.",
        epilog="example: optmech secretary profile --n 100 --p 0.5 --l 1 --delta 0.01")
    profile.add_argument("--n", type=integer, required=True, help="number of candidates (>= 2)")
    profile.add_argument("--p", type=number, required=True, help="mix weight of M*, in [0, 1]")
    profile.add_argument("--l", type=integer, default=1, help="metric d_l, l in 1..n-1 (default 1)")
    target = profile.add_mutually_exclusive_group()
    target.add_argument("--delta", type=number, help="δ in [0, 1]: report ε(δ) (default δ = 0)")
    target.add_argument("--eps", type=number, help="ε >= 0: report δ(ε)")
    add_json_flag(profile)
    profile.set_defaults(func=run_profile, estimate=estimate_profile)

    optimal = actions.add_parser(
        "optimal", help="optimal (ε, δ)-DP stopping rule vs the best p-mix",
        description="Solve the LP of the best (ε, δ)-DP stopping rule under d_l and compare "
                    "it with the best p-mix at the same (ε, δ, l), computed exactly at n.",
        epilog="example: optmech secretary optimal --n 12 --eps 0.5 --delta 0.01")
    optimal.add_argument("--n", type=integer, required=True, help="number of candidates (>= 2)")
    optimal.add_argument("--eps", type=number, required=True, help="ε >= 0")
    optimal.add_argument("--delta", type=number, required=True, help="δ in [0, 1]")
    optimal.add_argument("--l", type=integer, default=1, help="metric d_l, l in 1..n-1 (default 1)")
    optimal.add_argument("--payoff", default="best", choices=("best", "top-m", "rank"),
                         help="best: P(best); top-m: P(one of the m best); rank: -E[rank]")
    optimal.add_argument("--m", type=integer, help="m for --payoff top-m")
    optimal.add_argument("--method", default="auto",
                         choices=("auto", "column-generation", "highs"),
                         help="LP solver: highs (the full LP, n up to about 150), "
                              "column-generation (any n), auto (default: highs for "
                              "n <= 120, else column-generation)")
    optimal.add_argument("--time-limit", type=positive_float, metavar="SECONDS",
                         help="give up after this many seconds (one-line error, exit 1)")
    optimal.add_argument("--rule", action="store_true",
                         help="include the stopping probabilities per (time, relative rank)")
    optimal.add_argument("--plot", metavar="FILE", type=output_file(),
                         help="write a PNG of both rank distributions")
    add_json_flag(optimal)
    optimal.set_defaults(func=run_optimal, estimate=estimate_optimal)


def estimate_profile(args: argparse.Namespace) -> Estimate:
    """The pair scans over ``n`` ranks and distance ``l``
    (:func:`optmech.secretary.privacy.scan_estimate`)."""
    from optmech.secretary.privacy import scan_estimate

    return scan_estimate(max(args.n, 2), max(args.l, 1)).renamed("--n, --l")


def estimate_optimal(args: argparse.Namespace) -> Estimate:
    """The stopping LP at ``n`` (:func:`optmech.secretary.optimal.rule_estimate`), then the
    best p-mix's pair scans."""
    from optmech.secretary.optimal import rule_estimate
    from optmech.secretary.privacy import scan_estimate

    n, l = max(args.n, 2), max(args.l, 1)
    return rule_estimate(n, args.method, args.delta, l).renamed("--n") + scan_estimate(n, l)


def run_profile(args: argparse.Namespace) -> int:
    from optmech.secretary import pmix_delta, pmix_epsilon, success_probability, threshold

    if args.eps is not None:
        quantity, given, bound = "delta", ("epsilon", args.eps), \
            pmix_delta(args.n, args.p, args.eps, args.l)
    else:
        delta = 0.0 if args.delta is None else args.delta
        quantity, given, bound = "epsilon", ("delta", delta), \
            pmix_epsilon(args.n, args.p, delta, args.l)
    success = args.p * success_probability(args.n) + (1 - args.p) / args.n
    payload = {
        "n": args.n, "p": args.p, "l": args.l, "threshold": threshold(args.n),
        "success": success, "success_asymptotic": args.p / math.e, given[0]: given[1],
        f"{quantity}_exact": bound.exact, f"{quantity}_closed_form": bound.closed_form,
        f"{quantity}_asymptotic": bound.asymptotic,
        f"{quantity}_theorem_4_1": bound.theorem_4_1,
        "binding_pair": list(bound.pair) if bound.pair else None,
    }

    def render(p):
        name = "ε" if quantity == "epsilon" else "δ"
        fixed = "δ" if quantity == "epsilon" else "ε"
        rows = [(f"{name} exact (all pairs |i-j| <= l, Theorem 3.2)", p[f"{quantity}_exact"]),
                (f"{name} closed form (pair (1, l+1), "
                 f"{'Theorem 4.2' if quantity == 'epsilon' else 'Corollary 2'})",
                 p[f"{quantity}_closed_form"]),
                (f"{name} asymptotic (n -> infinity)", p[f"{quantity}_asymptotic"]),
                (f"{name} from Theorem 4.1 (M*'s privacy, mixed)", p[f"{quantity}_theorem_4_1"]),
                ("binding pair (ranks)", str(p["binding_pair"])),
                ("P(select the best)", p["success"]),
                ("threshold t_n", p["threshold"])]
        head = f"p-mix of M* and blind choice: n={p['n']}, p={p['p']:g}, l={p['l']}, " \
               f"{fixed}={given[1]:g}"
        return head + "\n" + text_table(["quantity", "value"], rows)

    emit(args, payload, render)
    return 0


def run_optimal(args: argparse.Namespace) -> int:
    from lp_models.program import SolverError
    from lp_models.stopping import rank_payoff
    from optmech.secretary import ConvergenceError, compare_with_pmix, optimal_rule_for_payoff

    try:
        result = compare_with_pmix(args.n, args.eps, args.delta, args.l, args.payoff, args.m,
                                   method=args.method, time_limit=args.time_limit)
    except (ConvergenceError, SolverError) as failure:
        print(f"optmech: error: {failure}", file=sys.stderr)
        return 1
    best = result.optimal
    payload = {
        "n": args.n, "epsilon": args.eps, "delta": args.delta, "l": args.l,
        "payoff": args.payoff, "m": args.m,
        "optimal_success": best.expected_payoff, "upper_bound": best.upper_bound,
        "gap": best.gap, "pmix_p": result.pmix_p, "pmix_success": result.pmix_success,
        "ratio": result.ratio, "ratio_definition": _RATIO[args.payoff],
        "classical_success": optimal_rule_for_payoff(
            rank_payoff(args.n, args.payoff, args.m))[1],
        "realised_delta": best.realised_delta, "repair_weight": best.repair_weight,
        "method": best.method, "iterations": best.iterations, "seconds": best.seconds,
        "rank_distribution": best.rank_distribution,
        "pmix_rank_distribution": result.pmix_rank_distribution,
    }
    if args.rule:
        payload["stop_probabilities"] = [row[:i + 1] for i, row in enumerate(best.rule.stop)]
    if args.plot:
        from optmech.figures import save_figure
        from optmech.figures.secretary import rank_distributions_figure
        save_figure(rank_distributions_figure(result), args.plot)

    def render(p):
        rows = [("optimal (ε, δ)-DP rule", p["optimal_success"]),
                ("  certified upper bound", p["upper_bound"]),
                (f"best p-mix (p = {p['pmix_p']:.6g})", p["pmix_success"]),
                ("ratio", p["ratio"]),
                ("classical optimum (no privacy)", p["classical_success"]),
                ("realised δ(ε) of the optimal rule", p["realised_delta"])]
        head = (f"n={p['n']}, ε={p['epsilon']:g}, δ={p['delta']:g}, l={p['l']}, payoff "
                f"{p['payoff']}{'' if p['m'] is None else ' m=' + str(p['m'])}; "
                f"{p['method']}: {p['iterations']} iterations, {p['seconds']:.2f} s")
        ranks = [(k + 1, float(a), float(b)) for k, (a, b) in
                 enumerate(zip(p["rank_distribution"][:10], p["pmix_rank_distribution"][:10]))]
        return "\n".join([head, text_table(["quantity", "value"], rows), "",
                          text_table(["rank", "optimal rule", "best p-mix"], ranks)])

    emit(args, payload, render)
    return 0
