"""``optmech select pmf|error|sample``: one selection mechanism on one score vector
(``rnm_gaussian`` set by ``--sigma`` or calibrated to a proven zCDP ``--rho`` instead of
``--eps``); ``optmech select em-pf-search``: the largest ``E[err EM] / E[err PF]`` found over
score vectors (:mod:`optmech.selection.em_pf_search`); ``optmech select compare``: every
noise of report-noisy-max (and EM, PF) at one proven ρ or one ε, exact expected errors side
by side (:mod:`optmech.privacy.noise_choice`)."""

from __future__ import annotations

import argparse
import math

from optmech.cli._common import (
    add_actions,
    add_json_flag,
    check_noise_scale,
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
from optmech.selection.mechanisms import GAUSSIAN_NAME, SELECTION_NAMES, make_mechanism
from optmech.tables import text_table

ACTIONS = ("pmf", "error", "sample", "em-pf-search", "compare")
# One score of pmf/error (report-noisy-max with Laplace noise, the slowest: 0.43 s for 10^6
# scores, rounded up; a command line holds at most about 2 x 10^4 scores) and one draw of
# sample (measured 0.56 us and 97 bytes a draw, printing included, at --size 10^7 on a
# loaded machine: every draw becomes a Python int and its text).
SECONDS_PER_SCORE, BYTES_PER_SCORE = 1e-6, 400
SECONDS_PER_DRAW, BYTES_PER_DRAW = 8e-7, 110
# Gaussian noise: 6e-5 CPU s a distinct score (10^5 distinct N(0, 9) scores in 6 s), 3 times
SECONDS_PER_GAUSSIAN_SCORE = 2e-4


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
        one.add_argument("--mechanism", required=True, type=names(SELECTION_NAMES),
                         metavar="NAME", help="the mechanism: " + ", ".join(SELECTION_NAMES)
                         + " (rnm-laplace spells rnm_laplace too)")
        one.add_argument("--scores", required=True, type=finite_scores,
                         help="comma-separated utilities, e.g. 0,-1,-3")
        one.add_argument("--eps", type=positive_float,
                         help="epsilon > 0 (every mechanism but rnm_gaussian)")
        one.add_argument("--sigma", type=positive_float,
                         help="rnm_gaussian: the noise scale sigma > 0")
        one.add_argument("--rho", type=positive_float,
                         help="rnm_gaussian: its proven zCDP rho > 0 on these scores' "
                              "candidates (sigma = Delta sqrt(c(n) / (2 rho)))")
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
    compare = actions.add_parser(
        "compare", help="every noise at one proven rho (or one eps): exact expected errors",
        description="Report-noisy-max with Laplace, Gumbel, exponential and Gaussian noise, "
                    "EM and PF, each calibrated to the same proven zCDP rho (--rho) or run at "
                    "the same eps (--eps; the Gaussian is not eps-DP and is left out): the "
                    "exact expected error on the DPBench histograms (mode and median) and on "
                    "synthetic gaps, the best noise per setting, and beside each proven rho "
                    "the worst rho found on --found-n candidates (a lower bound).",
        epilog="example: optmech select compare --rho 0.001 --datasets HEPTH,MEDCOST "
               "--gaps 1,4")
    target = compare.add_mutually_exclusive_group(required=True)
    target.add_argument("--rho", type=positive_float,
                        help="calibrate every mechanism to this proven zCDP rho > 0")
    target.add_argument("--eps", type=positive_float,
                        help="run every eps-DP mechanism at this epsilon > 0")
    compare.add_argument("--datasets", type=_dataset_list, default=None, metavar="LIST",
                         help="DPBench histograms, comma-separated (default: all), or none")
    compare.add_argument("--tasks", type=names(("mode", "median"), many=True),
                         default=["mode", "median"], help="mode, median (default: both)")
    compare.add_argument("--gaps", type=_gap_list, default=[1.0, 4.0, 16.0], metavar="LIST",
                         help="synthetic vectors: one best candidate, --n - 1 this far below "
                              "(comma-separated gaps > 0, default 1,4,16; none for none)")
    compare.add_argument("--n", type=integer, default=10,
                         help="candidates of the synthetic vectors, 2 to 10^6 (default 10)")
    compare.add_argument("--found-n", type=integer, default=2,
                         help="candidates of the worst-pair search beside each proven rho, "
                              "2 to 50 (default 2; 0: no search)")
    add_json_flag(compare)
    compare.set_defaults(func=run_compare, estimate=estimate_compare)


def _dataset_list(text: str) -> list[str]:
    """argparse type: DPBench dataset names, comma-separated, or ``none``."""
    from optmech.data.datasets import DATASETS

    if text.strip().lower() == "none":
        return []
    return names(DATASETS, many=True)(text)


def _gap_list(text: str) -> list[float]:
    """argparse type: gaps > 0, comma-separated, or ``none``."""
    if text.strip().lower() == "none":
        return []
    return positive_floats(text)


def estimate(args: argparse.Namespace) -> Estimate:
    """pmf and error: linear in the scores; sample: linear in ``--size``.  The noise options
    are checked here, before any work (exit status 2 naming the option)."""
    _mechanism(args)
    n = len(args.scores)
    per_score = SECONDS_PER_GAUSSIAN_SCORE if args.mechanism == GAUSSIAN_NAME \
        else SECONDS_PER_SCORE
    work = Estimate(per_score * n, BYTES_PER_SCORE * n, "--scores", f"{n} scores")
    if args.action == "sample":
        work += Estimate(SECONDS_PER_DRAW * args.size, BYTES_PER_DRAW * args.size, "--size",
                         args.size)
    return work


def estimate_search(args: argparse.Namespace) -> Estimate:
    """The search's own estimate (:func:`optmech.selection.em_pf_search.estimated_seconds`)."""
    from optmech.selection.em_pf_search import estimated_seconds

    return Estimate(estimated_seconds(args.n, len(args.eps), max(args.starts, 0)),
                              0, "--starts", args.starts)


def _mechanism(args: argparse.Namespace):
    """The mechanism of ``--mechanism``: at ``--eps``, or for ``rnm_gaussian`` at
    ``--sigma`` or calibrated to ``--rho`` on the scores' candidates; a missing or misplaced
    option is refused naming it."""
    from optmech.selection.mechanisms import GaussianNoisyMax
    from optmech.validation import InvalidArgumentError

    check_noise_scale(args)
    if args.mechanism != GAUSSIAN_NAME:
        return make_mechanism(args.mechanism, args.eps, args.sensitivity, args.monotonic)
    if args.sigma is not None:
        return GaussianNoisyMax(args.sigma, args.sensitivity, args.monotonic)
    if len(args.scores) < 2:
        raise InvalidArgumentError("--scores", args.scores, "at least 2 scores with --rho")
    return GaussianNoisyMax.for_rho(args.rho, len(args.scores), args.sensitivity,
                                    args.monotonic)


def run(args: argparse.Namespace) -> int:
    mechanism = _mechanism(args)
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


def _compare_arguments(args: argparse.Namespace) -> dict:
    """The options of ``select compare``, checked: the datasets (every one by default) and
    ``found_n`` of :func:`optmech.privacy.noise_choice.compare`."""
    from optmech.data.datasets import DATASETS
    from optmech.validation import InvalidArgumentError

    if not 2 <= args.n <= 10**6:
        raise InvalidArgumentError("--n", args.n, "an integer in [2, 1000000]")
    if not (args.found_n == 0 or 2 <= args.found_n <= 50):
        raise InvalidArgumentError("--found-n", args.found_n, "0 (no search) or an integer "
                                                               "in [2, 50]")
    datasets = list(DATASETS) if args.datasets is None else args.datasets
    if not datasets and not args.gaps:
        raise InvalidArgumentError("--datasets, --gaps", "none", "at least one setting")
    return {"datasets": datasets, "found_n": args.found_n}


def _compare_settings(args: argparse.Namespace, datasets) -> list:
    """The settings of ``select compare``: the histograms under ``--tasks``, then the gaps
    on ``--n`` candidates."""
    from optmech.data.tasks import histogram_settings
    from optmech.selection.settings import gap_settings

    return histogram_settings(datasets, args.tasks) + gap_settings(args.gaps, args.n)


def estimate_compare(args: argparse.Namespace) -> Estimate:
    """Linear in the scores of every setting (each mechanism's exact expected error), plus
    the worst-pair searches (their own estimate)."""
    from optmech.data.datasets import load_histogram
    from optmech.privacy.noise_choice import COMPARED, compare_estimate, epsilon_for_rho
    from optmech.privacy.worst import search_estimate
    from optmech.selection.mechanisms import GaussianNoisyMax

    options = _compare_arguments(args)
    scores = (sum(load_histogram(d).size for d in options["datasets"]) * len(args.tasks)
              + len(args.gaps) * args.n)
    work = compare_estimate(scores * len(COMPARED), 0)
    if args.found_n:
        for name in COMPARED:
            if name == GAUSSIAN_NAME:
                if args.rho is None:
                    continue
                mechanism = GaussianNoisyMax.for_rho(args.rho, args.found_n)
            else:
                eps = args.eps if args.rho is None else epsilon_for_rho(name, args.rho)
                mechanism = make_mechanism(name, eps)
            work += search_estimate(mechanism, args.found_n).renamed("--found-n")
    return work


def run_compare(args: argparse.Namespace) -> int:
    from optmech.privacy.noise_choice import compare

    options = _compare_arguments(args)
    result = compare(args.rho, args.eps, settings=_compare_settings(args, options["datasets"]),
                     found_n=options["found_n"])
    payload = {"direction": result.direction, "target": result.target,
               "mechanisms": {m: {"noise": _noise(m), "eps": result.epsilon.get(m),
                                  "proven_rho": result.rho.get(m),
                                  "found_rho": result.found_rho.get(m)}
                              for m in result.mechanisms},
               "found_n": result.found_n,
               "settings": [{"setting": r["setting"], "n": r["n"], "relation": r["relation"],
                             "sigma": r["sigma"], "errors": r["errors"], "best": r["best"],
                             "best_noises": r["best_noises"]} for r in result.rows],
               "wins": result.wins()}

    def render(p: dict) -> str:
        what = (f"every mechanism at proven zCDP rho = {p['target']:g}"
                if p["direction"] == "rho" else
                f"every eps-DP mechanism at eps = {p['target']:g} (rnm_gaussian is not "
                "eps-DP for any eps: left out)")
        found = f"worst rho found (n = {p['found_n']})"
        head = text_table(
            ["mechanism", "noise", "eps", "proven rho", found],
            [(m, v["noise"], "-" if v["eps"] is None else f"{v['eps']:.6g}",
              f"{v['proven_rho']:.6g}" + (" (sigma per setting)" if m == GAUSSIAN_NAME
                                          else ""),
              "-" if v["found_rho"] is None else f"{v['found_rho']:.6g}")
             for m, v in p["mechanisms"].items()])
        columns = list(p["mechanisms"])
        sigma = ["gaussian sigma"] if p["direction"] == "rho" and GAUSSIAN_NAME in columns \
            else []
        table = text_table(["setting", "n", *columns, *sigma, "best noise"],
                           [(r["setting"], r["n"], *[f"{r['errors'][m]:.6g}" for m in columns],
                             *([f"{r['sigma']:.6g}"] if sigma else []),
                             ", ".join(r["best_noises"])) for r in p["settings"]])
        wins = ", ".join(f"{k} {v}" for k, v in p["wins"].items())
        return (f"{what}\n{head}\n\nexact expected error (max score - selected score)\n"
                f"{table}\nsettings where each noise is among the best: {wins}")

    emit(args, payload, render)
    return 0


def _noise(name: str) -> str:
    from optmech.privacy.noise_choice import NOISE_OF

    return NOISE_OF[name]
