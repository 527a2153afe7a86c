"""``optmech lattice solve|bound|ratio``: the optimal regular mechanism on the bounded
2Δ-lattice.

``solve`` certifies the LP optimum for one ``(n, k, eps)`` and prints the optimality ratios
of PF, EM and report-noisy-max with Laplace noise; ``bound`` brackets that optimum (and the
ratios) where the exact solve is out of reach; ``ratio`` sweeps epsilon (and lists of ``n``
and ``k``) and draws the optimality-ratio curves of the permute-and-flip paper's Figure 2,
with ``--bound`` as bands of certified brackets.  Beyond the paper, ``solve --objective
max|weighted [--weights SPEC]`` minimises the largest or a weighted expected error over Q,
and ``--lattice delta`` solves on the Δ-lattice; the ratios are then those of the chosen
objective.
"""

from __future__ import annotations

import argparse
import functools
import sys

from optmech.cli._common import (
    add_actions,
    add_csv_flag,
    add_json_flag,
    add_sweep_flags,
    emit,
    float_range,
    int_list,
    names,
    output_file,
    positive_float,
    sweep_options,
)
from optmech.resources import Estimate
from optmech.tables import bracket_text, text_table

WEIGHTINGS = ("lattice", "cube")
CONSTRAINTS = ("regular", "paper")
METHODS = ("auto", "simplex", "ipm", "pdlp", "pdhg")
MECHANISMS = ("pf", "em", "rnm_laplace")
OBJECTIVES = ("sum", "max", "weighted")
LATTICES = ("2delta", "delta")
# optmech.lattice.bound.DEFAULT_TOL, MIN_TOL and DEFAULT_TIME_LIMIT (the CLI imports lazily)
DEFAULT_TOL, MIN_TOL, DEFAULT_TIME_LIMIT = 1e-4, 1e-15, 600.0
# argparse type: comma-separated names, either spelling (rnm-laplace, rnm_laplace)
mechanism_list = names(MECHANISMS, many=True)


def at_least(minimum: int):
    """argparse type: an integer >= ``minimum``."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be an integer >= {minimum}, got {text}")
        return value
    return parse


def add_depth_option(parser: argparse.ArgumentParser, many: bool = False) -> None:
    """``--depth K`` (one depth, or a comma list with ``many``), stored as ``args.k``: the
    lattice's depth, the paper's ``k``.  Spelt ``--k`` before, which read as the ``k`` of
    top-k; ``--k`` still parses."""
    parser.add_argument("--depth", "--k", dest="k", required=True, metavar="K",
                        type=int_list if many else at_least(1),
                        help="depth of the lattice (not a top-k's k): scores 0, -2, ..., -2K "
                             + ("(a comma list, e.g. 4" if many else "(>= 1")
                             + "; --k is the old spelling)")


def add_yscale_option(parser: argparse.ArgumentParser) -> None:
    """``--yscale`` of a ratio plot (:func:`optmech.figures.ratio_yscale`)."""
    parser.add_argument("--yscale", choices=("auto", "linear", "log"), default="auto",
                        help="y axis of --plot: auto (default; log where the ratios span a "
                             "decade), linear or log")


def _bound_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--tol", type=relative_width, default=DEFAULT_TOL,
                        help="target relative width (upper - lower) / lower of the bracket "
                             f"(in [{MIN_TOL:g}, 1): a certified bracket is not narrower; "
                             f"default {DEFAULT_TOL:g})")
    parser.add_argument("--exact", action="store_true",
                        help="finish a bracket narrower than 1e-4 exactly: HiGHS's simplex "
                             "from the bracket's point, in the time left (status 'exact'; "
                             "the certified bracket if it does not finish)")


def relative_width(text: str) -> float:
    """argparse type: a number in [MIN_TOL, 1)."""
    value = positive_float(text)
    if not MIN_TOL <= value < 1:
        raise argparse.ArgumentTypeError(f"must be a relative width in [{MIN_TOL:g}, 1) (a "
                                         f"certified bracket is not narrower), got {text}")
    return value


def _common_options(parser: argparse.ArgumentParser) -> None:
    _weighting_options(parser)
    parser.add_argument("--method", choices=METHODS, default="auto",
                        help="auto: certify PF by the chain dual when it is optimal, else "
                             "HiGHS primal simplex from PF (interior point below eps 0.25 on "
                             "models of 5000+ variables); simplex/ipm: that HiGHS solver; "
                             "pdlp: HiGHS's PDLP (eps in [1, 700]); pdhg: the certified "
                             "bracket finished by the simplex (eps in [1e-7, 10], eps k <= "
                             "20); outside its range a method is refused")
    parser.add_argument("--time-limit", type=positive_float, default=None,
                        help="seconds for each HiGHS solve")
    add_json_flag(parser)


def _weighting_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--weighting", choices=WEIGHTINGS, default="lattice",
                        help="lattice: each q in Q once (Theorem 3); cube: every vector of "
                             "{0,-2,...,-2k}^n mapped to its q*=0 representative (the "
                             "authors' notebook and plots)")
    parser.add_argument("--constraints", choices=CONSTRAINTS, default="regular",
                        help="regular: Appendix D plus the monotonicity rows of regularity "
                             "(every feasible mechanism is eps-DP); paper: Appendix D as "
                             "printed")


def _solver_errors_as_one_line(run):
    """A solver that cannot certify the optimum is reported on one line, exit status 1."""
    @functools.wraps(run)
    def wrapped(args):
        from lp_models.program import SolverError

        try:
            return run(args)
        except SolverError as error:
            print(f"optmech: error: {error}", file=sys.stderr)
            return 1
    return wrapped


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "lattice", help="optimal regular mechanism on the bounded 2Δ-lattice",
        description="The LP of the optimal regular mechanism on the bounded 2Δ-lattice "
                    "(permute-and-flip paper, Section 5 and Appendix D): certified optimum "
                    "and optimality ratios (Figure 2).  Errors are in units of Δ = 1.",
        epilog="example: optmech lattice solve --n 3 --k 3 --eps 1")
    actions = add_actions(parser, metavar="{solve,bound,ratio}")

    solve = actions.add_parser("solve", help="certified optimum and optimality ratios",
                               description="Certified optimum of the lattice LP for one "
                                           "(n, k, eps) with the optimality ratios of PF, EM "
                                           "and RNM-Laplace.",
                               epilog="example: optmech lattice solve --n 3 --depth 3 --eps 1 "
                                      "--probabilities")
    solve.add_argument("--n", required=True, type=at_least(2), help="number of items (>= 2)")
    add_depth_option(solve)
    solve.add_argument("--eps", required=True, type=positive_float, help="epsilon > 0")
    solve.add_argument("--mechanisms", type=mechanism_list, default=list(MECHANISMS),
                       help="ratios to compute (default pf,em,rnm_laplace)")
    solve.add_argument("--objective", choices=OBJECTIVES, default="sum",
                       help="sum: total expected error over Q (the paper's); max: the "
                            "largest expected error over Q (minimax); weighted: a prior over "
                            "Q given by --weights")
    solve.add_argument("--weights", default=None, metavar="SPEC",
                       help="with --objective weighted: geometric:RATE (a vector of depth L "
                            "weighs RATE^L) or depth:W0,W1,...,Wk (weighs W_L)")
    solve.add_argument("--lattice", choices=LATTICES, default="2delta",
                       help="2delta: the paper's lattice (one step = 2Δ); delta: one step "
                            "= Δ, the grid of counts (constraints regular only)")
    solve.add_argument("--probabilities", action="store_true",
                       help="also print the optimal mechanism: one row per score vector up "
                            "to permutation (items from the best down), its multiplicity in "
                            "Q, the probability of each item and the expected error")
    _common_options(solve)
    solve.set_defaults(func=run_solve, estimate=estimate_solve)

    bound = actions.add_parser(
        "bound", help="certified bracket on the optimum, for sizes beyond solve",
        description="A certified bracket lower <= OPT <= upper on the lattice LP's optimum "
                    "(restarted PDHG with independently checked certificates, no LP solver) "
                    "and the optimality ratios of PF, EM and RNM-Laplace as brackets "
                    "[ratio/upper, ratio/lower].  Status 'converged' when the relative "
                    "width reached --tol, 'time_limit' when --time-limit (which bounds the "
                    "whole command) ended it first (the bracket is certified either way), "
                    "'exact' when --exact finished it to the certified optimum.",
        epilog="example: optmech lattice bound --n 6 --depth 6 --eps 0.5 --tol 1e-3")
    bound.add_argument("--n", required=True, type=at_least(2), help="number of items (>= 2)")
    add_depth_option(bound)
    bound.add_argument("--eps", required=True, type=positive_float, help="epsilon > 0")
    _bound_options(bound)
    bound.add_argument("--mechanisms", type=mechanism_list, default=list(MECHANISMS),
                       help="ratio brackets to compute (default pf,em,rnm_laplace)")
    bound.add_argument("--time-limit", type=positive_float, default=DEFAULT_TIME_LIMIT,
                       help="wall-clock seconds; the bracket reached by then is returned "
                            f"(default {DEFAULT_TIME_LIMIT:g})")
    _weighting_options(bound)
    add_json_flag(bound)
    bound.set_defaults(func=run_bound, estimate=estimate_bound)

    ratio = actions.add_parser("ratio", help="optimality-ratio sweep (Figure 2)",
                               description="Optimality ratios over a grid of eps for every "
                                           "(n, k) pair, optionally plotted.",
                               epilog="example: optmech lattice ratio --n 3,4 --depth 3 --eps "
                                      "0.1:2:8:log")
    ratio.add_argument("--n", required=True, type=int_list, help="comma list, e.g. 3,4,5,6")
    add_depth_option(ratio, many=True)
    ratio.add_argument("--eps", required=True, type=float_range,
                       help="START:STOP:NUM (evenly spaced), START:STOP:NUM:log (evenly spaced "
                            "on a log scale, as Figure 2 is drawn) or a comma list")
    ratio.add_argument("--mechanisms", type=mechanism_list, default=["pf", "em"],
                       help="curves to compute (default pf,em)")
    ratio.add_argument("--plot", default=None, metavar="FILE.png", type=output_file(),
                       help="write the curves (one panel per mechanism) to this PNG")
    add_yscale_option(ratio)
    ratio.add_argument("--bound", action="store_true",
                       help="bracket each optimum instead of solving it (as 'lattice "
                            "bound'; --method is then unused and --time-limit is per "
                            f"point, default {DEFAULT_TIME_LIMIT:g}): every ratio becomes a "
                            "certified [lo, hi] pair, in the JSON and as a band in the plot")
    _bound_options(ratio)
    _common_options(ratio)
    add_sweep_flags(ratio)
    add_csv_flag(ratio)
    ratio.set_defaults(func=run_ratio, estimate=estimate_ratio)


def _cell_estimate(n: int, k: int, args: argparse.Namespace, bound: bool) -> Estimate:
    """One (n, k, eps): an LP solve (or a bracket) and the mechanisms' ratios
    (:func:`optmech.lattice.inputs.lattice_estimate`)."""
    from optmech.lattice.inputs import lattice_estimate

    if bound:
        work = lattice_estimate(n, k, "bound", args.tol,
                                args.time_limit or DEFAULT_TIME_LIMIT)
    else:
        work = lattice_estimate(n, k, "lp")
    return (work + lattice_estimate(n, k)).renamed("--n, --depth")


def estimate_solve(args: argparse.Namespace) -> Estimate:
    """The LP of one (n, k, eps); beyond the paper's objective and lattice (the minimax or
    weighted epigraph, the Δ-lattice's rows) counted twice."""
    cell = _cell_estimate(max(args.n, 2), max(args.k, 1), args, bound=False)
    beyond = args.objective != "sum" or args.lattice != "2delta"
    return cell + cell if beyond else cell


def estimate_bound(args: argparse.Namespace) -> Estimate:
    """One bracket, bounded by ``--time-limit`` (the arguments checked first)."""
    from optmech.lattice.bound import check_bound_arguments

    check_bound_arguments(args.n, args.k, args.eps, args.tol, args.time_limit, args.weighting,
                          args.constraints)
    return _cell_estimate(max(args.n, 2), max(args.k, 1), args, bound=True)


def estimate_ratio(args: argparse.Namespace) -> Estimate:
    """Every (n, k) pair times the epsilons: an LP solve (a bracket with ``--bound``) each."""
    total = Estimate(0.0, 0, "--n, --depth", None)
    for n in args.n:
        for k in args.k:
            cell = _cell_estimate(max(n, 2), max(k, 1), args, args.bound)
            total += Estimate(cell.seconds * len(args.eps), cell.nbytes, cell.argument,
                              (args.n, args.k))
    return total.renamed("--n, --depth, --eps")


def aggregate_labels(optimum) -> dict[str, str]:
    """Which aggregate over Q of the expected errors each number of ``lattice solve --json``
    is: ``total_error`` (and the paper's ``relaxed_dual_bound``, where it exists) the sum;
    ``objective_value``, ``lower_bound`` and ``ratios`` the objective minimised (``"sum"``,
    ``"max"`` or ``"weighted"``).  ``gap`` is the relative difference of ``objective_value``
    and ``lower_bound``."""
    labels = {"total_error": "sum", "objective_value": optimum.objective,
              "lower_bound": optimum.objective, "ratios": optimum.objective}
    if optimum.relaxed_dual_bound is not None:
        labels["relaxed_dual_bound"] = "sum"
    return labels


@_solver_errors_as_one_line
def run_solve(args: argparse.Namespace) -> int:
    from optmech.lattice.aggregate_ratios import objective_ratios
    from optmech.lattice.optimum import solve_lattice
    from optmech.lattice.ratios import optimality_ratios

    optimum = solve_lattice(args.n, args.k, args.eps, weighting=args.weighting,
                            constraints=args.constraints, method=args.method,
                            time_limit=args.time_limit, objective=args.objective,
                            weights=args.weights, lattice=args.lattice)
    paper = args.objective == "sum" and args.lattice == "2delta"
    ratios = (optimality_ratios if paper else objective_ratios)(optimum, args.mechanisms)
    table = optimum.records() if args.probabilities else None
    payload = {
        "n": optimum.n, "k": optimum.k, "epsilon": optimum.epsilon,
        "variables": optimum.num_variables, "constraints": optimum.num_constraints,
        "total_error": optimum.total_error, "ratios": ratios,
        "solve_seconds": optimum.solve_seconds, "status": optimum.status,
        "weighting": optimum.weighting, "constraint_set": optimum.constraint_set,
        "lower_bound": optimum.lower_bound, "gap": optimum.gap, "method": optimum.method,
        "pf_optimal": optimum.pf_optimal, "max_violation": optimum.max_violation,
        "rows_generated": optimum.rows_generated,
        "relaxed_dual_bound": optimum.relaxed_dual_bound,
        "objective": optimum.objective, "objective_value": optimum.objective_value,
        "lattice": optimum.lattice,
        "weights": args.weights if args.objective == "weighted" else None,
        "aggregates": aggregate_labels(optimum),
        "probabilities": None if table is None else probability_rows(table, optimum.n),
    }

    def render(p):
        # the certificate's two ends printed outward: the bound down, the optimum's value up
        lower, value = bracket_text(p["lower_bound"], p["objective_value"], 10)
        rows = [("n, k, epsilon", f"{p['n']}, {p['k']}, {p['epsilon']:g}"),
                ("weighting / constraints", f"{p['weighting']} / {p['constraint_set']}"),
                ("variables / constraints", f"{p['variables']} / {p['constraints']}"),
                ("objective / lattice", f"{p['objective']} / {p['lattice']}"),
                ("objective value (units of Δ)", value),
                ("total error (units of Δ)", p["total_error"]),
                ("certified lower bound", lower),
                ("relative gap", f"{p['gap']:.2e}"),
                ("paper's recurrence dual bound",
                 "not applicable" if not paper else
                 "infeasible" if p["relaxed_dual_bound"] is None else p["relaxed_dual_bound"]),
                ("method / status", f"{p['method']} / {p['status']}"),
                ("PF optimal", str(p["pf_optimal"])),
                ("solve seconds", f"{p['solve_seconds']:.3f}")]
        label = "optimality" if p["objective"] == "sum" else p["objective"]
        rows += [(f"{label} ratio {name}", value) for name, value in p["ratios"].items()]
        text = text_table(["quantity", "value"], rows)
        if table is not None:
            text += ("\n\noptimal mechanism: scores q (units of Δ, best first), multiplicity "
                     "in Q, probabilities p\n"
                     + text_table(list(table[0]), [list(r.values()) for r in table]))
        return text

    emit(args, payload, render)
    return 0


def probability_rows(records: list[dict], n: int) -> list[dict]:
    """The ``probabilities`` of ``lattice solve --json``: the optimum's table
    (:meth:`~optmech.lattice.optimum.LatticeSolutionMechanism.records`) with each row's
    scores and probabilities as two lists."""
    return [{"scores": [r[f"q{i}"] for i in range(n)], "multiplicity": r["multiplicity"],
             "pmf": [r[f"p{i}"] for i in range(n)], "expected_error": r["expected_error"]}
            for r in records]


@_solver_errors_as_one_line
def run_bound(args: argparse.Namespace) -> int:
    from optmech.lattice.bound import bound_with_ratios

    interrupted = None
    try:
        bracket, ratios = bound_with_ratios(args.n, args.k, args.eps, args.mechanisms,
                                            tol=args.tol, time_limit=args.time_limit,
                                            weighting=args.weighting,
                                            constraints=args.constraints, exact=args.exact)
    except KeyboardInterrupt as stop:   # Ctrl-C or SIGTERM: print the certified bracket
        if getattr(stop, "bracket", None) is None:
            raise
        bracket, ratios, interrupted = stop.bracket, stop.ratios, stop
    payload = {
        "n": bracket.n, "k": bracket.k, "epsilon": bracket.epsilon, "tol": bracket.tol,
        "lower": bracket.lower, "upper": bracket.upper,
        "relative_width": bracket.relative_width,
        "ratios": {name: list(pair) for name, pair in ratios.items()},
        "iterations": bracket.iterations, "seconds": bracket.seconds,
        "status": bracket.status, "weighting": bracket.weighting,
        "constraint_set": bracket.constraint_set, "variables": bracket.num_variables,
        "constraints": bracket.num_constraints, "pf_total_error": bracket.pf_total_error,
        "max_violation": bracket.max_violation, "rows_generated": bracket.rows_generated,
    }

    def render(p):
        lower, upper = bracket_text(p["lower"], p["upper"], 10)
        rows = [("n, k, epsilon", f"{p['n']}, {p['k']}, {p['epsilon']:g}"),
                ("weighting / constraints", f"{p['weighting']} / {p['constraint_set']}"),
                ("variables / constraints", f"{p['variables']} / {p['constraints']}"),
                ("lower bound (units of Δ)", lower),
                ("upper bound (units of Δ)", upper),
                ("relative width / tol", f"{p['relative_width']:.2e} / {p['tol']:g}"),
                ("status", p["status"]),
                ("PDHG iterations / seconds", f"{p['iterations']} / {p['seconds']:.1f}"),
                ("upper point's max violation", f"{p['max_violation']:.1e}")]
        rows += [(f"optimality ratio {name}", "[{}, {}]".format(*bracket_text(lo, hi)))
                 for name, (lo, hi) in p["ratios"].items()]
        return text_table(["quantity", "value"], rows)

    emit(args, payload, render)
    if interrupted is not None:
        raise interrupted       # the one line and exit status 130 (143) of optmech.cli.main
    return 0


@_solver_errors_as_one_line
def run_ratio(args: argparse.Namespace) -> int:
    from optmech.lattice.ratios import ratio_sweep

    if args.bound:
        from optmech.lattice.bound import bound_sweep

        curves = bound_sweep(args.n, args.k, args.eps, mechanisms=args.mechanisms,
                             tol=args.tol, time_limit=(DEFAULT_TIME_LIMIT if args.time_limit
                                                       is None else args.time_limit),
                             weighting=args.weighting, constraints=args.constraints,
                             exact=args.exact, **sweep_options(args))
        extra = {"bound": True, "tol": args.tol}
        headers = ["status", *args.mechanisms]

        def curve_json(c):
            return {"lower": c.lower, "upper": c.upper, "status": list(c.status)}

        def row(c, i):      # a bracket per mechanism: ratios[name] has rows [lo, hi]
            return (c.status[i], *("[{}, {}]".format(*bracket_text(*c.ratios[name][i]))
                                   for name in args.mechanisms))
    else:
        curves = ratio_sweep(args.n, args.k, args.eps, mechanisms=args.mechanisms,
                             weighting=args.weighting, constraints=args.constraints,
                             method=args.method, time_limit=args.time_limit,
                             **sweep_options(args))
        extra, headers = {}, list(args.mechanisms)

        def curve_json(c):
            return {"total_error": c.total_errors}

        def row(c, i):
            return tuple(c.ratios[name][i] for name in args.mechanisms)
    if args.plot is not None:
        from optmech.figures.lattice import plot_ratio_bands, plot_ratio_curves, save_figure

        draw = plot_ratio_bands if args.bound else plot_ratio_curves
        save_figure(draw(curves, args.mechanisms, args.yscale), args.plot)
    if args.csv is not None:
        curves.to_csv(args.csv)
    payload = {"epsilon": list(args.eps), "weighting": args.weighting,
               "constraint_set": args.constraints, "mechanisms": args.mechanisms, **extra,
               "curves": [{"n": c.n, "k": c.k, "epsilon": c.epsilons, **curve_json(c),
                           "ratios": c.ratios} for c in curves],
               "plot": None if args.plot is None else str(args.plot)}

    def render(p):
        rows = [(c.n, c.k, f"{eps:g}", *row(c, i))
                for c in curves for i, eps in enumerate(c.epsilons)]
        table = text_table(["n", "k", "epsilon", *headers], rows)
        return (table + (f"\nplot written to {p['plot']}" if p["plot"] else "")
                + (f"\ntable written to {args.csv}" if args.csv else ""))

    emit(args, payload, render)
    return 0
