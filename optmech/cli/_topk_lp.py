"""``optmech topk lp``: the certified optimal top-T mechanism on the bounded 2Δ-lattice and
the optimality ratios of the top-k mechanisms (:mod:`optmech.topk.optimum`,
:mod:`optmech.topk.ratios`).  One ε gives one object; a list of ε gives one point per ε
(``points``), and ``--plot`` draws the ratio curves against ε."""

from __future__ import annotations

import argparse

from optmech.cli._common import (
    add_csv_flag,
    add_json_flag,
    emit,
    float_range,
    names,
    output_file,
    positive_float,
)
from optmech.cli.lattice import add_depth_option, add_yscale_option, at_least
from optmech.resources import Estimate
from optmech.tables import bracket_text, text_table
from optmech.unbounded import unbounded_if_infinite

__all__ = ["add_lp_action", "estimate_lp", "run_lp"]

# optmech.topk.TOPK_MECHANISMS, lp_models.topk.CONSTRAINTS and ERRORS, optmech.topk.optimum
# METHODS (the CLI imports lazily)
MECHANISMS = ("peel-em", "peel-pf", "gumbel", "joint-em", "joint-pf", "canonical-lipschitz")
CONSTRAINTS = ("regular", "private")
OBJECTIVES = ("l1", "l_1", "l_inf", "k_relative")
METHODS = ("auto", "simplex", "ipm")
EXAMPLE = "example: optmech topk lp --n 4 --depth 3 --top 2 --eps 0.5,1,2 --plot ratios.png"


def add_lp_action(actions) -> None:
    """Register ``lp`` among the ``topk`` actions."""
    lp = actions.add_parser(
        "lp", help="certified optimal top-T mechanism and optimality ratios",
        description="The LP of the optimal top-T mechanism on the bounded 2Δ-lattice "
                    "(permute-and-flip paper's optimal-mechanism LP, arXiv:2010.12603, for T "
                    "outputs; scores 0, -2, ..., -2k, Δ = 1): its certified optimum, the "
                    "expected error summed over the lattice, and the optimality ratio of "
                    "each top-k mechanism calibrated for the general relation.  By default "
                    "the LP over every symmetric eps-DP mechanism (--constraints private), "
                    "the comparison of record; the first line of the output names the LP.  "
                    "With --top 1 --constraints regular it is 'lattice solve'.",
        epilog=EXAMPLE)
    lp.add_argument("--n", required=True, type=at_least(2), help="number of items (>= 2)")
    add_depth_option(lp)
    lp.add_argument("--top", required=True, type=at_least(1),
                    help="number T of items returned (1 <= T <= n - 1)")
    lp.add_argument("--eps", required=True, type=float_range,
                    help="epsilon of the whole output: one number, a comma list or "
                         "START:STOP:NUM[:log] (one point per value)")
    lp.add_argument("--subsets", action="store_true",
                    help="outputs are T-subsets (unordered) instead of ordered T-tuples")
    lp.add_argument("--constraints", choices=CONSTRAINTS, default="private",
                    help="private (default): privacy only, the optimum over every "
                         "symmetric eps-DP mechanism, the comparison of record (every ratio "
                         ">= 1); regular: plus monotonicity (an item raised is never less "
                         "often among the first i outputs: a restriction that joint EM, "
                         "joint PF and others break; for T = 1 the paper's regular LP, "
                         "= 'lattice solve')")
    lp.add_argument("--objective", choices=OBJECTIVES, default="l1",
                    help="the expected error summed over the lattice: l1 (l_1; default), "
                         "l_inf or k_relative")
    lp.add_argument("--mechanisms", type=names(MECHANISMS, many=True),
                    default=list(MECHANISMS), help="ratios to compute (default: all six)")
    lp.add_argument("--method", choices=METHODS, default="auto",
                    help="HiGHS solver: auto (interior point with crossover), ipm or simplex")
    lp.add_argument("--time-limit", type=positive_float, default=None,
                    help="seconds for each HiGHS solve")
    lp.add_argument("--plot", default=None, metavar="FILE.png", type=output_file(),
                    help="write the ratio curves against epsilon to this PNG")
    add_yscale_option(lp)
    add_csv_flag(lp)
    add_json_flag(lp)
    lp.set_defaults(func=run_lp, estimate=estimate_lp)


def _point(optimum, ratios) -> dict:
    """The JSON keys of one epsilon."""
    return {"epsilon": optimum.epsilon, "total_error": optimum.total_error,
            "lower_bound": optimum.lower_bound, "gap": optimum.gap,
            "status": optimum.status, "method": optimum.method, "refined": optimum.refined,
            "max_violation": optimum.max_violation, "cpu_seconds": optimum.cpu_seconds,
            "ratios": {r.mechanism: r.ratio for r in ratios},
            "mechanism_errors": {r.mechanism: r.total_error for r in ratios},
            "lattice_epsilon": {r.mechanism: unbounded_if_infinite(r.lattice_epsilon)
                                for r in ratios},
            "feasible": {r.mechanism: r.feasible for r in ratios}}


def estimate_lp(args: argparse.Namespace) -> Estimate:
    """The LPs of the sweep, from their size
    (:func:`optmech.topk.optimum.topk_sweep_estimate`)."""
    from optmech.topk.optimum import topk_sweep_estimate

    return topk_sweep_estimate(args.n, args.k, args.top, args.eps, ordered=not args.subsets,
                               constraints=args.constraints).renamed("--n, --depth, --top")


def run_lp(args: argparse.Namespace) -> int:
    from optmech.topk.ratios import topk_ratio_sweep

    curve = topk_ratio_sweep(args.n, args.k, args.top, args.eps, args.mechanisms,
                             ordered=not args.subsets, constraints=args.constraints,
                             objective=args.objective, method=args.method,
                             time_limit=args.time_limit)
    if args.plot is not None:
        from optmech.figures.topk_ratios import plot_topk_ratios, save_figure

        save_figure(plot_topk_ratios(curve, args.yscale), args.plot)
    if args.csv is not None:
        curve.to_csv(args.csv)
    points = [_point(o, r) for o, r in zip(curve.optima, curve.results)]
    last = curve.optima[-1]
    shared = {"n": curve.n, "k": curve.k, "top": curve.top, "ordered": curve.ordered,
              "constraint_set": curve.constraint_set, "objective": curve.objective,
              "variables": last.num_variables, "constraints": last.num_constraints,
              "nonzeros": last.num_nonzeros,
              "plot": None if args.plot is None else str(args.plot),
              "csv": None if args.csv is None else str(args.csv)}
    payload = {**shared, **points[0]} if len(points) == 1 else {**shared, "points": points}
    emit(args, payload, lambda p: _render(p, points, args.mechanisms))
    return 0


def lp_line(constraint_set: str, ordered: bool, top: int) -> str:
    """The first line of ``topk lp``'s table: which LP the optimum and the ratios are of."""
    outputs = ("ordered T-tuples, errors compared position by position" if ordered
               else "T-subsets")
    if constraint_set == "private":
        return (f"LP: private, every symmetric eps-DP mechanism over {outputs} (the "
                "comparison of record: every ratio >= 1)")
    if top == 1:
        return "LP: regular, the paper's LP for T = 1 (as 'lattice solve')"
    return (f"LP: regular, monotonic mechanisms only over {outputs} (a restriction, not "
            "the comparison of record: --constraints private)")


def _render(p: dict, points: list[dict], mechanisms: list[str]) -> str:
    kind = "ordered tuples" if p["ordered"] else "subsets"
    head = [("n, k, top", f"{p['n']}, {p['k']}, {p['top']} ({kind})"),
            ("constraints / objective", f"{p['constraint_set']} / {p['objective']}"),
            ("variables / constraints / nonzeros",
             f"{p['variables']} / {p['constraints']} / {p['nonzeros']}")]
    if len(points) == 1:
        one = points[0]
        # the certificate printed outward: the bound down, the optimum's error up
        lower, total = bracket_text(one["lower_bound"], one["total_error"], 10)
        rows = head + [("epsilon", f"{one['epsilon']:g}"),
                       ("total error (units of Δ)", total),
                       ("certified lower bound", lower),
                       ("relative gap", f"{one['gap']:.2e}"),
                       ("method / status", f"{one['method']} / {one['status']}"),
                       ("CPU seconds", f"{one['cpu_seconds']:.3f}")]
        rows += [(f"optimality ratio {m}" + ("" if one["feasible"][m] else " (not feasible)"),
                  one["ratios"][m]) for m in mechanisms]
        text = text_table(["quantity", "value"], rows)
    else:
        text = (text_table(["quantity", "value"], head) + "\n"
                + text_table(["epsilon", "total error", "gap", *mechanisms],
                             [(f"{q['epsilon']:g}", q["total_error"], f"{q['gap']:.1e}",
                               *(q["ratios"][m] for m in mechanisms)) for q in points]))
    text = lp_line(p["constraint_set"], p["ordered"], p["top"]) + "\n" + text
    infeasible = sorted({m for q in points for m in mechanisms if not q["feasible"][m]})
    if infeasible:
        text += ("\nnot feasible for this LP (not monotonic, or not eps-DP on the lattice): "
                 + ", ".join(infeasible) + "; their ratios compare them with a class they "
                 "are not in (--constraints private compares every eps-DP mechanism)")
    text += f"\nplot written to {p['plot']}" if p["plot"] else ""
    text += f"\ntable written to {p['csv']}" if p["csv"] else ""
    return text
