"""``optmech hetero run``: the heterogeneous-sensitivities scenario study (MSE versus ε)."""

from __future__ import annotations

import argparse

from optmech.cli._common import (
    add_actions,
    add_csv_flag,
    add_json_flag,
    add_sweep_flags,
    api_type,
    emit,
    float_range,
    names,
    output_file,
    positive_int,
    seed,
    sweep_options,
)
from optmech.heterogeneous import MECHANISM_NAMES
from optmech.resources import Estimate
from optmech.tables import text_table

# argparse type: comma-separated names, either spelling (rnm-laplace, rnm_laplace)
mechanism_list = names(MECHANISM_NAMES, many=True)

# CPU milliseconds per score vector (100 candidates) and epsilon of each mechanism's exact
# expected squared error, measured on 2 cores under a load of 6 and rounded up: an upper
# estimate for the work budget (--max-work).
MS_PER_TRIAL = {"rnm": 0.5, "gem": 1.0, "mgem": 1.0, "combined_gem": 2.0, "rs_gamma": 6.0,
                "rs_gamma_tnb": 5.0, "uniform": 0.2}


def scenario_key(text: str) -> str:
    """argparse type: a scenario key, 1..8 or sweep:T with a finite T (checked by building
    the scenario, which is cheap)."""
    from optmech.heterogeneous.scenarios import scenario_from_key

    api_type(scenario_from_key)(text)
    return text


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "hetero", help="selection with candidate-wise sensitivities: the scenario study",
        description="Mechanisms for candidates with their own sensitivities (GEM, mGEM, "
                    "combined GEM, RS_gamma, RNM, uniform) on the synthetic scenarios of the "
                    "heterogeneous-sensitivities paper.",
        epilog="example: optmech hetero run --scenario 1 --eps 0.5,1,2")
    actions = add_actions(parser)
    run_parser = actions.add_parser(
        "run", help="mean squared error versus epsilon on one scenario",
        description="Exact expected squared error of every mechanism, averaged over trials "
                    "(score vectors drawn from the scenario), with 95% confidence "
                    "intervals.  Scenarios 1-3 are deterministic: one exact value.  "
                    "Scenario keys: 1..8, or sweep:T for the correlation sweep of "
                    "Figure 10 (T in -5, -0.8, -0.3, 0, 0.3, 0.8, 5 in the paper).",
        epilog="example: optmech hetero run --scenario 4 --eps 0.1:10:5:log --trials 10")
    run_parser.add_argument("--scenario", required=True, type=scenario_key,
                            help="1..8, or sweep:T (e.g. sweep:0.3)")
    run_parser.add_argument("--eps", required=True, type=float_range,
                            help="epsilons: START:STOP:NUM (evenly spaced), "
                                 "START:STOP:NUM:log (evenly spaced on a log scale) or a "
                                 "comma list")
    run_parser.add_argument("--trials", type=positive_int, default=50,
                            help="score vectors per epsilon (default 50; ignored for 1-3)")
    run_parser.add_argument("--mechanisms", type=mechanism_list, default=list(MECHANISM_NAMES),
                            help="comma-separated subset of " + ", ".join(MECHANISM_NAMES))
    run_parser.add_argument("--seed", type=seed, default=0,
                            help="seed of the scenario parameters and the trial scores")
    run_parser.add_argument("--plot", metavar="FILE", type=output_file(),
                            help="write the figure (PNG) here")
    add_sweep_flags(run_parser)
    add_csv_flag(run_parser)
    add_json_flag(run_parser)
    run_parser.set_defaults(func=run, estimate=estimate)


def estimate(args: argparse.Namespace) -> Estimate:
    """Trials x epsilons x the mechanisms' cost per trial (:data:`MS_PER_TRIAL`); memory as
    :func:`optmech.heterogeneous.scenarios.run_scenario` estimates it."""
    from optmech.heterogeneous.scenarios import run_estimate, scenario_from_key

    trials = 1 if scenario_from_key(args.scenario, seed=args.seed).deterministic \
        else args.trials
    seconds = trials * len(args.eps) * sum(MS_PER_TRIAL[m] for m in args.mechanisms) / 1000
    return Estimate(seconds, run_estimate(trials, len(args.eps), len(args.mechanisms)),
                    "--trials", args.trials)


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from optmech.heterogeneous.scenarios import run_scenario, scenario_from_key

    scen = scenario_from_key(args.scenario, seed=args.seed)
    result = run_scenario(scen, args.eps, trials=args.trials, mechanisms=args.mechanisms,
                          rng=np.random.default_rng(args.seed + 1), **sweep_options(args))
    if args.plot:
        from optmech.figures.heterogeneous import plot_scenario_results

        plot_scenario_results([result], args.plot, title=scen.title)
    if args.csv is not None:
        result.to_csv(args.csv)
    payload = {
        "scenario": scen.key,
        "trials": result.trials,
        "spearman": list(scen.correlations),
        "results": [{"mechanism": p.mechanism, "epsilon": p.epsilon, "mse": p.mse,
                     "ci_low": p.ci_low, "ci_high": p.ci_high} for p in result.points],
    }

    def render(p: dict) -> str:
        rho = ", ".join(f"{r:+.3f}" for r in p["spearman"])
        head = (f"scenario {p['scenario']} ({scen.title}); Spearman(score, sensitivity) "
                f"{rho}; " + ("exact (deterministic scenario)" if p["trials"] == 1
                              else f"{p['trials']} trials, 95% CI"))
        rows = [(r["mechanism"], r["epsilon"], r["mse"], r["ci_low"], r["ci_high"])
                for r in p["results"]]
        return (head + "\n" + text_table(["mechanism", "epsilon", "mse", "ci_low", "ci_high"],
                                           rows)
                + (f"\ntable written to {args.csv}" if args.csv else ""))

    emit(args, payload, render)
    return 0
