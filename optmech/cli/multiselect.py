"""``optmech multiselect cost|dilp|sample``: multi-selection under local geographic DP."""

from __future__ import annotations

import argparse

from optmech.cli._common import (
    add_actions,
    add_json_flag,
    emit,
    number,
    output_file,
    positive_float,
    positive_int,
    seed,
)
from optmech.multiselect.offsets import DISUTILITIES
from optmech.resources import Estimate
from optmech.tables import text_table
from optmech.validation import InvalidArgumentError

ACTIONS = ("cost", "dilp", "sample")
# Peak memory of printing the offsets as JSON (the list of floats and its text): measured
# 105 bytes per offset at k = 10^7.
JSON_BYTES_PER_OFFSET = 110
NOISES = ("laplace", "gaussian", "logistic")


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "multiselect", help="k results under local geographic DP: optimal offsets, DILP",
        description="Multi-selection (Goel et al.): the user adds noise of scale 1/eps, the "
                    "server returns s + a_1..s + a_k, the user keeps the nearest result.",
        epilog="example: optmech multiselect cost --k 3 --eps 0.5")
    actions = add_actions(parser)

    cost = actions.add_parser(
        "cost", help="optimal offsets and the cost f(eps, k) = E min_i h(|Y - a_i|)",
        description="Optimal offsets for Laplace noise (closed form for the identity, the "
                    "paper's recurrence otherwise), or the Appendix A.3 quantile offsets "
                    "for --noise gaussian|logistic, with their exact expected cost.",
        epilog="example: optmech multiselect cost --k 4 --eps 1")
    _common(cost)
    cost.add_argument("--noise", choices=NOISES, default="laplace",
                      help="user noise with E|Y| = 1/eps (default laplace)")
    add_json_flag(cost)
    cost.set_defaults(func=run_cost, estimate=estimate)

    dilp = actions.add_parser(
        "dilp", help="solve the discretised DILP (primal and dual) and compare with Laplace",
        description="Translation-invariant discretised DILP on the line (exact tails) or "
                    "the ring; primal and dual solved with HiGHS.",
        epilog="example: optmech multiselect dilp --k 2 --eps 0.375 --ring --grid 120")
    _common(dilp)
    dilp.add_argument("--ring", action="store_true", help="users and results on a ring")
    dilp.add_argument("--grid", type=positive_int, default=None,
                      help="grid points per axis (default 400 for k <= 2, else 100)")
    dilp.add_argument("--method", choices=("chains", "joint"), default="chains",
                      help="solve chain by chain (default) or as one LP")
    dilp.add_argument("--plot", metavar="FILE", type=output_file(),
                      help="write the optimal vs Laplace noise (PNG)")
    add_json_flag(dilp)
    dilp.set_defaults(func=run_dilp, estimate=estimate_dilp)

    sample = actions.add_parser(
        "sample", help="simulate the protocol: Monte Carlo cost beside the exact cost",
        epilog="example: optmech multiselect sample --k 2 --eps 1 --size 1000 --seed 1")
    _common(sample)
    sample.add_argument("--noise", choices=NOISES, default="laplace")
    sample.add_argument("--size", type=positive_int, default=100_000)
    sample.add_argument("--seed", type=seed, default=None)
    sample.add_argument("--user", type=number, default=0.0, help="the user's private value")
    add_json_flag(sample)
    sample.set_defaults(func=run_sample, estimate=estimate)


def estimate(args: argparse.Namespace) -> Estimate:
    """cost and sample: the offsets, the exact cost (and the runs of sample,
    :func:`optmech.multiselect.protocol.work_estimate`), and the printed offsets."""
    from optmech.multiselect.protocol import work_estimate

    work = work_estimate(args.k, args.h == "identity", args.noise,
                         getattr(args, "size", 0), "--k")
    printing = Estimate(2e-6 * args.k, JSON_BYTES_PER_OFFSET * args.k, "--k", args.k)
    return work + printing


def estimate_dilp(args: argparse.Namespace) -> Estimate:
    """The DILP's size from ``--k`` and ``--grid``
    (:func:`optmech.multiselect.dilp.dilp_estimate`)."""
    from optmech.multiselect.dilp import dilp_estimate

    return dilp_estimate(args.k, args.grid, args.ring, args.method)


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--k", required=True, type=positive_int, help="number of results")
    parser.add_argument("--eps", required=True, type=positive_float, help="epsilon > 0")
    parser.add_argument("--h", choices=tuple(DISUTILITIES), default="identity",
                        help="disutility h(distance) (default identity)")


def run_cost(args: argparse.Namespace) -> int:
    import numpy as np

    from optmech.multiselect.noise import quantile_cost_bound
    from optmech.multiselect.protocol import MultiSelection

    protocol = MultiSelection(args.k, args.eps, args.h, args.noise)
    payload = {"cost": protocol.cost, "offsets": protocol.offsets, "k": args.k, "epsilon": args.eps,
               "h": args.h, "noise": args.noise}
    if protocol.response is not None:          # the optimal offsets for Laplace noise
        payload["method"] = protocol.response.method
    else:
        payload["method"] = "quantile offsets (Appendix A.3)"
        if args.h == "identity":
            payload["bound"] = quantile_cost_bound(args.k, args.eps)

    def render(p):
        lines = [f"cost f(eps={args.eps:g}, k={args.k}) = {p['cost']:.12g}  "
                 f"[{args.noise} noise, h = {args.h}, {p['method']}]"]
        if "bound" in p:
            lines.append(f"Theorem 24 bound: {p['bound']:.6g}")
        offsets = p["offsets"]
        lines.append(text_table(["i", "offset"],
                                  np.column_stack([np.arange(1, offsets.size + 1), offsets])))
        return "\n".join(lines)

    emit(args, payload, render)
    return 0


def run_dilp(args: argparse.Namespace) -> int:
    from optmech.multiselect.dilp import solve_dilp

    if args.plot and not args.ring:
        raise InvalidArgumentError("--plot", str(args.plot), "used with --ring (the line's "
                                                             "optimal noise is Laplace)")
    r = solve_dilp(args.k, args.eps, args.grid, ring=args.ring, h=args.h, method=args.method)
    payload = {"primal": r.primal, "dual": r.dual, "gap": r.gap, "laplace_cost": r.laplace_cost,
               "grid": r.grid, "laplace_cost_discrete": r.laplace_cost_discrete,
               "offsets": r.offsets, "geometry": r.geometry, "k": r.k, "epsilon": r.epsilon,
               "h": r.disutility, "spacing": r.spacing, "num_chains": r.num_chains,
               "num_cols": r.num_cols, "num_rows": r.num_rows, "method": r.method,
               "solve_seconds": r.solve_seconds}
    if args.plot:
        from optmech.figures import save_figure
        from optmech.figures.multiselect import ring_noise_figure

        payload["plot"] = str(save_figure(ring_noise_figure([r]), args.plot))

    def render(p):
        rows = [("primal (achievable cost)", p["primal"]), ("dual (lower bound)", p["dual"]),
                ("gap", p["gap"]), ("Laplace cost (continuous)", p["laplace_cost"]),
                ("Laplace cost (this grid)", p["laplace_cost_discrete"])]
        head = (f"{p['geometry']} DILP, k={p['k']}, eps={p['epsilon']:g}, grid {p['grid']} "
                f"(spacing {p['spacing']:.4g}), {p['num_chains']} chains, "
                f"{p['num_cols']} columns x {p['num_rows']} rows, "
                f"{p['solve_seconds']:.2f} s")
        offsets = "optimal offsets: " + ", ".join(f"{a:.6g}" for a in p["offsets"])
        return "\n".join([head, text_table(["quantity", "value"], rows), offsets])

    emit(args, payload, render)
    return 0


def run_sample(args: argparse.Namespace) -> int:
    import numpy as np

    from optmech.multiselect.protocol import MultiSelection

    protocol = MultiSelection(args.k, args.eps, args.h, args.noise)
    estimate = protocol.monte_carlo_cost(args.size, np.random.default_rng(args.seed), args.user)
    payload = {"exact": protocol.cost, "mean": estimate.mean,
               "standard_error": estimate.standard_error, "size": estimate.size,
               "offsets": protocol.offsets}
    emit(args, payload, lambda p: text_table(
        ["exact cost", "Monte Carlo mean", "standard error", "runs"],
        [(p["exact"], p["mean"], p["standard_error"], p["size"])]))
    return 0
