"""``optmech privacy pair|worst|account|referee``: exact privacy curves of a selection
mechanism on a pair of neighbouring score vectors, the worst pair found with the proven
bound beside it, the certified accountant of a sequence of selections, and the referee of the
accountants' claims (:mod:`optmech.privacy`).

The mechanisms are those of :mod:`optmech.selection` (report-noisy-max with Gaussian noise,
``rnm_gaussian``, is set by ``--sigma`` or calibrated to its proven zCDP ``--rho`` on the
pair's candidates instead of ``--eps``), the heterogeneous-sensitivity
mechanisms (``gem``, ``mgem``, ``combined_gem``, ``rs_gamma``, ``rs_gamma_tnb``; their
``--sensitivity`` is one number per candidate) and the optimal lattice mechanism
(``lattice``, depth ``--depth``, or ``--k`` on ``worst`` whose ``--depth`` is its search grid's;
scores on the 2Δ-lattice, sensitivity 1), built here and handed to the area by their ``pmf``.
"""

from __future__ import annotations

import argparse
import math
import sys

import numpy as np

from optmech.cli._common import (
    add_actions,
    add_json_flag,
    api_type,
    check_noise_scale,
    emit,
    float_list,
    integer,
    names,
    nonnegative_float,
    output_file,
    positive_float,
    positive_int,
    seed,
)
from optmech.resources import Estimate
from optmech.selection.mechanisms import GAUSSIAN_NAME, MECHANISMS
from optmech.tables import bracket_text, text_table
from optmech.unbounded import unbounded_if_infinite

HETEROGENEOUS = ("gem", "mgem", "combined_gem", "rs_gamma", "rs_gamma_tnb")
ALL_MECHANISMS = (*MECHANISMS, GAUSSIAN_NAME, *HETEROGENEOUS, "lattice")
TOPK = ("peel-em", "gumbel", "peel-pf", "joint-em", "joint-pf", "canonical-lipschitz")
ACCOUNT_MECHANISMS = (*MECHANISMS, GAUSSIAN_NAME, *HETEROGENEOUS, *TOPK, "lattice")
OBJECTIVES = ("zcdp_rho", "max_loss", "delta", "renyi")
MAX_N = 200

EPILOG_PAIR = ("example: optmech privacy pair --mechanism pf --eps 2 --scores 0,0 "
               "--neighbour 1,-1")
EPILOG_WORST = "example: optmech privacy worst --mechanism em --eps 1 --n 3 --json"
EPILOG_REFEREE = "example: optmech privacy referee --quick --json"
EPILOG_ACCOUNT = ("example: optmech privacy account --step em:0.1:100 --step pf:1:10 "
                  "--delta 1e-6")


def _numbers(minimum: float, strict: bool, what: str, infinity: bool = False):
    """argparse type: comma-separated numbers >= ``minimum`` (> with ``strict``), ``inf``
    among them where ``infinity``."""
    def parse(text: str) -> list[float]:
        values = [math.inf if infinity and part.strip().lower() == "inf"
                  else float_list(part)[0] for part in text.split(",")]
        if not all(v > minimum if strict else v >= minimum for v in values):
            raise argparse.ArgumentTypeError(f"{what} must be {'>' if strict else '>='} "
                                             f"{minimum:g}, got {text!r}")
        return values
    return parse


_orders = _numbers(1.0, False, "orders", infinity=True)


def _delta(text: str) -> float:
    """argparse type: a number in (0, 1)."""
    value = float_list(text)
    if len(value) != 1 or not 0.0 < value[0] < 1.0:
        raise argparse.ArgumentTypeError(f"delta must be a number in (0, 1), got {text!r}")
    return value[0]
_eps_primes = _numbers(0.0, False, "eps' values")
_sensitivity = _numbers(0.0, True, "sensitivities")


def _repeat(text: str):
    from optmech.privacy.repeat import Repetitions

    return Repetitions.parse(text, "--repeat")


def _lattice_depth(parser: argparse.ArgumentParser, use: str, spellings=("--depth", "--k")):
    # spelt as lattice's (optmech.cli.lattice.add_depth_option), optional here; worst keeps
    # --k only, its --depth being the search grid's
    parser.add_argument(*spellings, dest="k", type=positive_int, default=None, metavar="K",
                        help=f"depth of the optimal lattice mechanism ({use}"
                             + ("; --k is the old spelling)" if len(spellings) > 1 else ")"))
    parser.set_defaults(depth_option=spellings[0])


def _depth(args, use: str) -> int:
    """The lattice depth given, or the refusal naming its option for ``use``."""
    if args.k is None:
        from optmech.validation import InvalidArgumentError

        raise InvalidArgumentError(args.depth_option, None,
                                   f"the lattice depth (an integer >= 1) for {use}")
    return args.k


def _common(parser: argparse.ArgumentParser, depth=("--depth", "--k")) -> None:
    # --mechanism and --eps are checked in _require: `pair` takes a base given as --p, --q
    parser.add_argument("--mechanism", type=names(ALL_MECHANISMS), metavar="NAME",
                        help="the mechanism: " + ", ".join(ALL_MECHANISMS)
                             + " (rnm-laplace spells rnm_laplace too); required unless "
                               "--p, --q give the base")
    parser.add_argument("--eps", type=positive_float, help="epsilon > 0 (with --mechanism)")
    parser.add_argument("--sigma", type=positive_float, default=None,
                        help="rnm_gaussian: the noise scale sigma > 0 (instead of --eps)")
    parser.add_argument("--rho", type=positive_float, default=None,
                        help="rnm_gaussian: the proven zCDP rho > 0 on the pair's candidates, "
                             "sigma = Delta sqrt(c(n) / (2 rho)) (instead of --sigma)")
    parser.add_argument("--repeat", type=api_type(_repeat), metavar="SPEC",
                        help="repeat-and-select: run the mechanism K times and keep the best "
                             "output (poisson:MU, negbin:ETA,GAMMA, geometric:GAMMA or "
                             "fixed:K); candidates rank by --scores for pair, by index for "
                             "worst (a public order; the last is the best)")
    parser.add_argument("--sensitivity", type=_sensitivity, default=None,
                        help="score sensitivity Δ > 0 (default 1); one per candidate for "
                             "the heterogeneous mechanisms (default 1 each)")
    parser.add_argument("--monotonic", action="store_true",
                        help="neighbours move every score the same way (selection "
                             "mechanisms, calibrated for it)")
    _lattice_depth(parser, "--mechanism lattice", depth)
    parser.add_argument("--eps-prime", type=_eps_primes, default=None, metavar="LIST",
                        help="eps' values of the delta curve (default: 11 points on [0, eps])")
    parser.add_argument("--plot", metavar="FILE.png", type=output_file(),
                        help="write the delta curve (and the proven bound) as a PNG")
    add_json_flag(parser)


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "privacy", help="exact privacy curves, worst pairs, and the accountants' referee",
        description="Exact privacy curves of selection mechanisms (hockey-stick delta, "
                    "Renyi divergence, zCDP rho) on pairs of neighbouring score vectors, the "
                    "worst pair found beside the proven bound, and a machine referee of "
                    "privacy accountants' claims.")
    actions = add_actions(parser, metavar="{pair,worst,account,referee}")
    pair = actions.add_parser(
        "pair", help="every curve of one pair", epilog=EPILOG_PAIR,
        description="The privacy loss distribution of one mechanism on scores and a "
                    "neighbour (every score moves by at most its sensitivity), and its "
                    "curves, each the larger of the two directions.")
    _common(pair)
    pair.add_argument("--scores", type=float_list, help="e.g. 0,-1,-3 (with --mechanism)")
    pair.add_argument("--neighbour", type=float_list, help="e.g. 1,-2,-2 (with --mechanism)")
    pair.add_argument("--p", type=float_list, metavar="LIST",
                      help="instead of a mechanism: the base's pmf on one input, outputs in "
                           "increasing quality (e.g. 0.5,0.3,0.2)")
    pair.add_argument("--q", type=float_list, metavar="LIST",
                      help="the base's pmf on the neighbouring input (as many as --p)")
    pair.add_argument("--orders", type=_orders, default=None, metavar="LIST",
                      help="Renyi orders >= 1, inf allowed (default: 1, 240 orders in "
                           "(1, 10001], inf)")
    pair.set_defaults(func=run_pair, estimate=estimate_pair)
    worst = actions.add_parser(
        "worst", help="the worst pair found, beside the proven bound", epilog=EPILOG_WORST,
        description="Search the pairs of neighbouring score vectors on n candidates for the "
                    "largest objective (exhaustive grid for small n, then seeded multi-start "
                    "local search): a certified lower bound, realised by the pair printed, "
                    "with the bound a theorem proves beside it.")
    _common(worst, ("--k",))
    worst.add_argument("--n", required=True, type=positive_int,
                       help=f"candidates, 2 to {MAX_N}")
    worst.add_argument("--objective", choices=OBJECTIVES, default="zcdp_rho",
                       help="what to maximise (default zcdp_rho)")
    worst.add_argument("--at", type=nonnegative_float, default=None,
                       help="eps' of --objective delta (default eps/2), order of renyi "
                            "(default 2)")
    worst.add_argument("--depth", type=positive_int, default=4,
                       help="grid levels 0..-depth·Δ (default 4)")
    worst.add_argument("--starts", type=integer, default=4,
                       help="random local-search starts, >= 0 (default 4)")
    worst.add_argument("--iterations", type=positive_int, default=60,
                       help="L-BFGS-B iterations per start (default 60)")
    worst.add_argument("--seed", type=seed, default=0, help="random seed (default 0)")
    worst.set_defaults(func=run_worst, estimate=estimate_worst)
    account = actions.add_parser(
        "account", help="one certified (eps', delta) for a sequence of selections",
        epilog=EPILOG_ACCOUNT,
        description="The certified privacy curve of a sequence of selection steps run on "
                    "the same data (each step's inputs possibly chosen from the outputs "
                    "before it), beside the curve attained by explicit pairs and what the "
                    "field's accountants report from published formulas.")
    account.add_argument("--step", required=True, action="append", metavar="MECH:EPS[:COUNT]",
                         help="a step: one of " + ", ".join(ACCOUNT_MECHANISMS) + " at "
                              "epsilon (rnm_gaussian: at noise scale sigma, with --n), "
                              "COUNT times (default 1); repeat for a sequence, in time "
                              "order")
    account.add_argument("--delta", type=_delta, default=None,
                         help="report eps' at this delta in (0, 1) (default 1e-6 when "
                              "--eps-prime is not given)")
    account.add_argument("--eps-prime", type=_eps_primes, default=None, metavar="LIST",
                         help="report delta at these eps' >= 0")
    account.add_argument("--relation", choices=("general", "monotonic"), default="general",
                         help="neighbours: every score moves by at most its sensitivity "
                              "(general, default) or all the same way (monotonic: add/remove)")
    account.add_argument("--top", type=positive_int, default=1,
                         help="T of the top-k steps, 1 to 64 (default 1)")
    account.add_argument("--n", type=positive_int, default=None,
                         help="the number of candidates, 2 to 1e6 (default 2): of the lower "
                              "bound's pairs; of the optimal lattice mechanism for lattice "
                              "steps; required with rnm-gaussian steps, certified for at "
                              "most this many candidates")
    _lattice_depth(account, "lattice steps")
    account.add_argument("--resolution", type=positive_int, default=None,
                         help="grid nodes per epsilon of the smallest round, 2 to 4096 "
                              "(sets the work; default: 16, or 8 or 4 when 16 would take "
                              "more than about 5 CPU s)")
    account.add_argument("--repeat", type=api_type(_repeat), metavar="SPEC",
                         help="repeat-and-select every step: each run is K runs of its "
                              "mechanism with the best output kept (poisson:MU, "
                              "negbin:ETA,GAMMA, geometric:GAMMA or fixed:K; candidates rank "
                              "by index, the last is the best)")
    account.add_argument("--plot", metavar="FILE.png", type=output_file(),
                         help="write the composed delta curves as a PNG")
    add_json_flag(account)
    account.set_defaults(func=run_account, estimate=estimate_account)
    referee = actions.add_parser(
        "referee", help="verdicts on the accountants' claims", epilog=EPILOG_REFEREE,
        description="Each registered claim of a privacy library about a selection "
                    "mechanism, with its source, verdict (holds / refuted / not refuted) and "
                    "evidence; a refutation's counterexample pair is computed in double "
                    "precision and at 50 digits.")
    referee.add_argument("--quick", action="store_true",
                         help="search fewer sizes (about a third of the time)")
    referee.add_argument("--only", action="append", default=None, metavar="ID",
                         help="one claim id (repeat for several)")
    referee.add_argument("--markdown", action="store_true",
                         help="print docs/accountants.md instead of a table")
    add_json_flag(referee)
    referee.set_defaults(func=run_referee, estimate=estimate_referee)
    parser.epilog = EPILOG_ACCOUNT


# CPU seconds of `privacy pair` per candidate: about 3 times the 6e-5 to 8e-5 measured at
# n = 10^4 (pf, em, rnm_laplace, rr; load 6); the referee's claims, quick and full: about
# 3 times the 3.5 and 12.6 CPU s measured at a load of 6, plus the repeat-and-select claims
# (2 and 19 CPU s at a load of 8) and the Gaussian noisy-max claims (3 times 12 and 33 CPU s
# at a load of about 5).
SECONDS_PER_CANDIDATE = 2e-4
REFEREE_SECONDS = (53.0, 194.0)


def estimate_pair(args: argparse.Namespace) -> Estimate:
    """Linear in the candidates (or the outputs of ``--p``) times the Rényi orders (each
    order is a pass over the outputs); the lattice mechanism adds its LP (``--n``, ``--k``)."""
    from optmech.validation import InvalidArgumentError

    orders = 242 if args.orders is None else len(args.orders)
    passes = max(1.0, orders / 242)
    if _pmf_base(args):
        n = len(args.p)
        return Estimate(SECONDS_PER_CANDIDATE * n * passes, 200.0 * n * passes,
                        "--p, --orders", f"{n} outputs, {orders} orders")
    n = len(args.scores)
    if n < 2:
        raise InvalidArgumentError("--scores", args.scores, "at least 2 scores")
    work = Estimate(SECONDS_PER_CANDIDATE * n * passes, 200.0 * n * passes,
                    "--scores, --orders", f"{n} scores, {orders} orders")
    return work + _lattice_estimate(args, n) if args.mechanism == "lattice" else work


def _pmf_base(args: argparse.Namespace) -> bool:
    """Whether ``privacy pair``'s base is ``--p``, ``--q`` (else ``--mechanism``, ``--eps``
    and, for ``pair``, ``--scores``, ``--neighbour``); a missing or mixed choice is refused
    naming the option (exit status 2)."""
    from optmech.validation import InvalidArgumentError

    pair = hasattr(args, "scores")
    if pair and (args.p is not None or args.q is not None):
        mixed = [("--mechanism", args.mechanism), ("--eps", args.eps),
                 ("--sigma", args.sigma), ("--rho", args.rho),
                 ("--scores", args.scores), ("--neighbour", args.neighbour),
                 ("--sensitivity", args.sensitivity), (args.depth_option, args.k),
                 ("--monotonic", args.monotonic or None)]
        for option, value in mixed:
            if value is not None:
                raise InvalidArgumentError(option, value, "left out with --p, --q (they are "
                                                          "the base)")
        if args.p is None or args.q is None:
            raise InvalidArgumentError("--q" if args.q is None else "--p", None,
                                       "given with " + ("--p" if args.q is None else "--q"))
        return True
    alternative = " (or --p, --q)" if pair else ""
    if args.mechanism is None:
        raise InvalidArgumentError("--mechanism", None, "one of " + ", ".join(ALL_MECHANISMS)
                                   + alternative)
    _check_noise_scale(args)
    for option in ("scores", "neighbour") if pair else ():
        if getattr(args, option) is None:
            raise InvalidArgumentError(f"--{option}", None, "a comma list of scores")
    return False


def _check_noise_scale(args: argparse.Namespace) -> None:
    """:func:`~optmech.cli._common.check_noise_scale`, and no ``--repeat`` for
    ``rnm_gaussian`` (its repeated bounds need pure DP)."""
    from optmech.validation import InvalidArgumentError

    check_noise_scale(args)
    if args.mechanism == GAUSSIAN_NAME and args.repeat is not None:
        raise InvalidArgumentError("--repeat", str(args.repeat), f"left out for "
                                   f"{GAUSSIAN_NAME} (the repeated bounds need pure DP)")


def _noise_payload(args: argparse.Namespace, mechanism) -> dict:
    """``"sigma"`` (and ``"rho"`` as asked) of report-noisy-max with Gaussian noise; nothing
    for the other mechanisms."""
    if args.mechanism != GAUSSIAN_NAME:
        return {}
    return {"sigma": mechanism.sigma, "rho": args.rho}


def _label(args: argparse.Namespace, mechanism) -> str:
    """``"pf, eps = 1"`` or ``"rnm_gaussian, sigma = 2"``."""
    if args.mechanism == GAUSSIAN_NAME:
        return f"{args.mechanism}, sigma = {mechanism.sigma:g}"
    return f"{args.mechanism}, eps = {args.eps:g}"


def estimate_worst(args: argparse.Namespace) -> Estimate:
    """The search's own estimate (:func:`optmech.privacy.worst.search_estimate`); the
    lattice mechanism: its LP and every pair of its lattice."""
    _check_n(args)
    _pmf_base(args)
    if args.mechanism == "lattice":
        return _lattice_estimate(args, args.n)
    from optmech.privacy.worst import search_estimate

    mechanism, _, sensitivity = _repeated(args, *_mechanism(args, args.n))
    return search_estimate(mechanism, args.n, depth=args.depth, starts=max(args.starts, 0),
                           iterations=args.iterations, sensitivity=sensitivity,
                           monotonic=args.monotonic).renamed("--n")


def estimate_referee(args: argparse.Namespace) -> Estimate:
    """The claims' checks: about 65 CPU s in all (a third with ``--quick``).  The ids of
    ``--only`` are checked here, before any work (or status line)."""
    from optmech.privacy.claims import claims
    from optmech.validation import InvalidArgumentError

    known = [c.id for c in claims()]
    for claim_id in args.only or ():
        if claim_id not in known:
            raise InvalidArgumentError("--only", claim_id, "one of " + ", ".join(known))
    seconds = REFEREE_SECONDS[0 if args.quick else 1]
    share = 1.0 if args.only is None else min(1.0, 0.5 * len(args.only))
    chosen = f"all {len(known)} claims" if args.only is None else args.only
    return Estimate(seconds * share, 2**28, "--only, --quick", chosen)


def _build_step_mechanism(name: str, epsilon: float, monotonic: bool, top: int,
                          n: int = 2, k: int = 1):
    """Every mechanism ``privacy account`` takes, by name (sensitivity 1); ``lattice``: the
    optimal mechanism on the 2Δ-lattice with ``n`` candidates and depth ``k``, certified on
    that domain only."""
    from optmech.privacy.accountant import build_selection
    from optmech.validation import InvalidArgumentError

    spelled = {m.replace("-", "_"): m for m in ACCOUNT_MECHANISMS}
    if name.replace("-", "_") not in spelled:
        raise InvalidArgumentError("mechanism", name, "one of " + ", ".join(ACCOUNT_MECHANISMS))
    name = spelled[name.replace("-", "_")]
    if name == "lattice":
        from optmech.lattice.optimum import solve_lattice

        if monotonic:
            raise InvalidArgumentError("--relation", "monotonic", "general for lattice")
        mechanism = solve_lattice(n, k, epsilon).mechanism()
        mechanism.name = "lattice"
        return mechanism
    if name in HETEROGENEOUS:
        from optmech.heterogeneous import make_heterogeneous

        if monotonic:
            raise InvalidArgumentError("--relation", "monotonic", "general for " + name)
        return _BoundSensitivities(make_heterogeneous(name, epsilon))
    if name in TOPK:
        from optmech.topk.mechanisms import make_topk_mechanism

        return make_topk_mechanism(name, epsilon, top, 1.0, monotonic)
    return build_selection(name, epsilon, monotonic, top)


def _builder(args, lattice_as=None):
    """The step builder of ``privacy account``: every mechanism by name, wrapped in
    repeat-and-select with ``--repeat``; ``lattice_as``: build lattice steps as this
    mechanism instead (the estimate, before any LP is solved)."""
    def build(name, epsilon, monotonic, top):
        if lattice_as and name.strip().lower() == "lattice":
            name = lattice_as
        lattice = name.strip().lower() == "lattice"
        mechanism = _build_step_mechanism(name, epsilon, monotonic, top,
                                          _lattice_candidates(args) if lattice else 2,
                                          _depth(args, "a lattice step") if lattice else 1)
        if getattr(args, "repeat", None) is None:
            return mechanism
        from optmech.privacy.accountant import grows_with_candidates
        from optmech.privacy.repeat import RepeatAndSelect
        from optmech.validation import InvalidArgumentError

        if grows_with_candidates(mechanism):
            raise InvalidArgumentError("--repeat", str(args.repeat), "used with pure-DP "
                                       f"steps only (the repeated {name} has no proven "
                                       "dominating pair)")

        return RepeatAndSelect(mechanism, args.repeat)
    return build


def _accountant(args, lattice_as=None):
    from optmech.privacy.accountant import Accountant

    return Accountant(args.step, relation=args.relation, top=args.top, n=args.n,
                      resolution=args.resolution, build=_builder(args, lattice_as))


def _account_targets(args) -> tuple[float | None, list | None]:
    """``(delta, eps_prime)`` asked: ``--delta`` 1e-6 unless only ``--eps-prime`` is given."""
    if args.delta is None and args.eps_prime is None:
        return 1e-6, None
    return args.delta, args.eps_prime


def estimate_account(args: argparse.Namespace) -> Estimate:
    """The accountant's own estimate (:meth:`optmech.privacy.accountant.Accountant.estimate`),
    naming ``--step``.  A lattice step adds its LP and its family of pairs (``--n``,
    ``--k``); it is estimated as randomised response at its ε (the same nodes) times the
    atoms of the family, before any LP is solved."""
    delta, eps_prime = _account_targets(args)
    work = _accountant(args, lattice_as="rr").estimate(delta, eps_prime or ()
                                                       ).renamed("--step")
    if not any(s.strip().lower().startswith("lattice") for s in args.step):
        return work
    _depth(args, "a lattice step")
    n = _lattice_candidates(args)
    # a family round costs its pairs' atoms (classes x moves x both ways x n) at 40 ns a
    # node where a randomised-response round costs its taps (about 33) at 4 ns
    atoms = 2 * math.comb(n + args.k - 1, args.k) * 2 ** n * n
    return (Estimate(work.seconds * atoms * 40 / (33 * 4), work.nbytes,
                     f"--step, --n, {args.depth_option}", args.step)
            + _lattice_estimate(args, n))


def _scores(values: list) -> str:
    """A pair's score vector for the text report: whole up to six entries, else its first
    three, its last and its length (``--json`` has every entry)."""
    if len(values) <= 6:
        return str(values)
    return "[" + ", ".join(f"{v:g}" for v in values[:3]) + f", ..., {values[-1]:g}] " \
        f"({len(values)} candidates)"


def _lattice_candidates(args) -> int:
    """``--n`` of a lattice step (default 2), at most 64 (its LP is refused far below)."""
    n = 2 if args.n is None else args.n
    if n > 64:
        from optmech.validation import InvalidArgumentError

        raise InvalidArgumentError("--n", n, "at most 64 with a lattice step")
    return n


def run_account(args: argparse.Namespace) -> int:
    delta, eps_prime = _account_targets(args)
    report = _accountant(args).report(delta, eps_prime)
    payload = {**report.payload, "plot": None if args.plot is None else str(args.plot)}
    if args.plot:
        from optmech.figures.privacy import plot_delta_curves, save_figure

        curves = [(label, payload[key]["delta"]["eps_prime"], payload[key]["delta"]["delta"])
                  for key, label in (("upper", "certified upper"),
                                     ("lower", "attained lower (explicit pairs)"))]
        bounds = [(f"fallback: {name}", value["delta"]["eps_prime"], value["delta"]["delta"])
                  for name, value in payload["fallbacks"].items() if name != "naive"]
        steps = " ".join(s["step"] for s in payload["steps"])
        key = ("solid: the certified upper curve and the one explicit pairs attain; dashed: "
               "the fallbacks' published bounds")
        save_figure(plot_delta_curves(curves, bounds, f"composed: {steps}", key=key),
                    args.plot)
    emit(args, payload, _render_account)
    return 0


def _render_account(p: dict) -> str:
    at = f"eps' at delta = {p['delta']:g}" if p.get("delta") is not None else None
    head = [f"{len(p['steps'])} step(s), {p['relation']} relation"
            + (f", top {p['top']}" if p["top"] > 1 else "")]
    lines = []
    if at is not None:
        # printed outward: the certified and published values are upper bounds (up), the
        # attained one a lower bound (down)
        lower, upper = bracket_text(p["lower"]["eps"], p["upper"]["eps"], 10)
        rows = [("upper (certified, adaptive)", upper),
                (f"lower (attained, {p['n']} candidates)", lower)]
        rows += [(f"fallback: {name}", bracket_text(value["eps"], value["eps"], 10)[1])
                 for name, value in p["fallbacks"].items()]
        lines.append(text_table(["curve", at], rows))
        s = p["saving"]
        lines.append(f"saving against the best fallback ({s['fallback']}): "
                     f"{s['absolute']:.6g} ({100 * s['relative']:.3g} %)"
                     if s["absolute"] > 0 else
                     f"no saving: the {s['fallback']} fallback is as good here (few steps "
                     "or a large epsilon)")
        lines.append(f"upper: {p['upper']['method']}")
    curve = text_table(["eps'", "upper delta", "lower delta"],
                       [(e, *bracket_text(low, up, 10)[::-1]) for e, up, low in zip(
                           p["upper"]["delta"]["eps_prime"], p["upper"]["delta"]["delta"],
                           p["lower"]["delta"]["delta"])])
    if at is None or len(p["upper"]["delta"]["eps_prime"]) <= 12:
        lines.append(curve)
    steps = [f"  {s['step']}: {s['dominating']} ({s['theorem']}; "
             + "; ".join(f"arXiv:{x['arxiv']}" if x.get("arxiv") else x["title"]
                         for x in s["papers"]) + ")" for s in p["steps"]]
    pairs = [f"  {q['step']}: " + (q["note"] if "note" in q else
                                    f"scores {_scores(q['scores'])}, "
                                    f"neighbour {_scores(q['neighbour'])}")
             for q in p["lower"]["pairs"]]
    return "\n".join(head + lines + ["steps:"] + steps + ["lower bound's pairs:"] + pairs
                     + ([f"plot written to {p['plot']}"] if p.get("plot") else []))


def _lattice_estimate(args, n: int) -> Estimate:
    """The optimal lattice mechanism's LP (:func:`optmech.lattice.inputs.lattice_estimate`)
    and its table of pairs, ``2^n`` moves per class."""
    from optmech.lattice.inputs import lattice_estimate

    k = args.k or 1
    work = lattice_estimate(max(n, 2), k, "lp") + lattice_estimate(max(n, 2), k)
    return (work + Estimate(0.0, 16.0 * math.comb(n + k, k) * 2 ** n * n, "--n", n)
            ).renamed("--n, " + args.depth_option)


def _check_n(args) -> None:
    from optmech.validation import InvalidArgumentError

    if not 2 <= args.n <= MAX_N:
        raise InvalidArgumentError("--n", args.n, f"an integer in [2, {MAX_N}]")
    if args.starts < 0:
        raise InvalidArgumentError("--starts", args.starts, "an integer >= 0")


class _BoundSensitivities:
    """A heterogeneous mechanism with its sensitivities fixed (``None``: 1 for every
    candidate): ``pmf(scores)`` and, where the mechanism has them, ``logpmf(scores)``,
    ``logpmf_error`` and ``logpmf_finite`` (so its curves keep their digits and error
    bounds)."""

    monotonic = False

    def __init__(self, mechanism, sensitivity: np.ndarray | None = None):
        self.mechanism, self.sensitivity = mechanism, sensitivity
        self.epsilon, self.name = mechanism.epsilon, mechanism.name
        self.privacy = (mechanism.privacy if sensitivity is None
                        else mechanism.guarantee(sensitivity))
        if hasattr(mechanism, "logpmf"):
            self.logpmf = lambda scores: mechanism.logpmf(scores, self._of(scores))
            self.logpmf_error = mechanism.logpmf_error
            self.logpmf_finite = getattr(mechanism, "logpmf_finite", False)

    def _of(self, scores) -> np.ndarray:
        return np.ones(len(scores)) if self.sensitivity is None else self.sensitivity

    def pmf(self, scores):
        return self.mechanism.pmf(scores, self._of(scores))


def _lattice(args, n: int):
    """The optimal lattice mechanism for ``n`` candidates and its depth, and its
    proven bound (ε-DP on the lattice by the LP's privacy rows)."""
    from optmech.lattice.optimum import solve_lattice
    from optmech.privacy.bounds import PURE_DP, ProvenBound

    optimum = solve_lattice(n, _depth(args, "--mechanism lattice"), args.eps)
    mechanism = optimum.mechanism()
    mechanism.epsilon, mechanism.name = args.eps, "lattice"
    bound = ProvenBound(PURE_DP, args.eps, "eps-DP on the 2Delta-lattice by the LP's privacy "
                        "rows (permute-and-flip paper, Appendix D; certified optimum)")
    return mechanism, bound, optimum


def _mechanism(args, n: int):
    """``(mechanism, bound or None, sensitivity)`` for ``--mechanism`` on ``n`` candidates."""
    from optmech.validation import InvalidArgumentError

    given = args.sensitivity
    if args.mechanism == "lattice":
        mechanism, bound, _ = _lattice(args, n)
        return mechanism, bound, 1.0
    if args.mechanism in HETEROGENEOUS:
        from optmech.heterogeneous import make_heterogeneous

        if given is not None and len(given) not in (1, n):
            raise InvalidArgumentError("--sensitivity", given, f"1 or {n} sensitivities")
        sensitivity = np.broadcast_to(np.asarray(given or [1.0], dtype=float), (n,)).copy()
        return _BoundSensitivities(make_heterogeneous(args.mechanism, args.eps),
                                   sensitivity), None, sensitivity
    from optmech.selection.mechanisms import GaussianNoisyMax, make_mechanism

    if given is not None and len(given) != 1:
        raise InvalidArgumentError("--sensitivity", given, "one number > 0 for "
                                   f"{args.mechanism}")
    sensitivity = 1.0 if given is None else given[0]
    if args.mechanism == GAUSSIAN_NAME:
        mechanism = (GaussianNoisyMax(args.sigma, sensitivity, args.monotonic)
                     if args.rho is None else
                     GaussianNoisyMax.for_rho(args.rho, n, sensitivity, args.monotonic))
        return mechanism, None, sensitivity
    return make_mechanism(args.mechanism, args.eps, sensitivity, args.monotonic), None, \
        sensitivity


def _number(value) -> float:
    return unbounded_if_infinite(float(value))


def _repeated(args, mechanism, bound, sensitivity, quality=None):
    """``(mechanism, bound, sensitivity)`` with ``--repeat`` applied (the bound: the sharp
    pure-DP bound of :mod:`optmech.privacy.repeat_bounds`); unchanged without it."""
    if args.repeat is None:
        return mechanism, bound, sensitivity
    from optmech.privacy.repeat import RepeatAndSelect

    repeated = RepeatAndSelect(mechanism, args.repeat, quality)
    return repeated, _repeat_bound(repeated), sensitivity


def _repeat_bound(repeated):
    """The sharp pure-DP bound of a repeat-and-select mechanism (None without one)."""
    from optmech.privacy.bounds import PURE_DP, ProvenBound
    from optmech.privacy.repeat_bounds import SHARP

    eps = repeated.proven_epsilon()
    if eps is None or not math.isfinite(eps):
        return None
    return ProvenBound(PURE_DP, eps, f"repeat-and-select, {repeated.repeat}: {SHARP}")


def _eps_prime(args, mechanism, n: int):
    """``--eps-prime``, else 11 points on ``[0, eps]`` (``[0, eps']`` of the sharp bound
    with ``--repeat``: the repeated curve reaches beyond the base's eps; ``[0, mu (mu/2 +
    4)]`` for Gaussian noise, where its proven delta falls to about 3e-5)."""
    from optmech.privacy.curves import default_eps_prime

    if args.eps_prime is None and args.mechanism == GAUSSIAN_NAME:
        mu = mechanism.privacy.mu(n)
        # at most the largest double (sigma = 1e-300 gives mu ~ 1e300: the product is inf)
        return default_eps_prime(min(mu * (mu / 2.0 + 4.0), sys.float_info.max))
    if args.eps_prime is not None or args.repeat is None:
        return args.eps_prime

    top = mechanism.proven_epsilon()
    return default_eps_prime(top if top is not None and math.isfinite(top) else args.eps)


def _base_payload(args, mechanism) -> dict:
    """``"p"``, ``"q"`` of a pmf base (its scores and neighbour are left out: it has none)
    and ``"repeat"`` with ``--repeat``."""
    out = {}
    if getattr(args, "p", None) is not None:
        out.update({"scores": None, "neighbour": None, "p": args.p, "q": args.q})
    if args.repeat is not None:
        from optmech.privacy.repeat_bounds import SHARP

        published, sharp = mechanism.privacy, mechanism.proven_epsilon()
        out["repeat"] = {
            "spec": str(args.repeat), "mean": args.repeat.mean,
            "zero_mass": args.repeat.zero_mass if args.repeat.zero_mass > 0 else None,
            "order": ("outputs in the order of --p" if getattr(args, "p", None) is not None
                      else "candidates ranked by --scores (ties: the higher index)"
                      if hasattr(args, "scores") else "candidates by index (the last is the "
                                                      "best)"),
            "base_eps": None if mechanism.epsilon is None else _number(mechanism.epsilon),
            "published": None if published is None else {"eps": published.epsilon,
                                                          "source": published.statement},
            "sharp_eps": None if sharp is None else _number(sharp), "sharp_source": SHARP}
    return out


def _curves_payload(curves) -> dict:
    return {"scores": curves.scores, "neighbour": curves.neighbour,
            "max_loss": _number(curves.max_loss),
            "delta": {"eps_prime": curves.eps_prime, "delta": curves.delta},
            "renyi": {"orders": [_number(a) for a in curves.orders],
                      "divergence": [_number(d) for d in curves.divergence]},
            "zcdp_rho": _number(curves.zcdp_rho),
            "zcdp_rho_bound": _number(curves.zcdp_rho_bound)}


def _plot(args, curves, bound, title: str) -> None:
    from optmech.figures.privacy import plot_delta_curves, save_figure

    lines = [(f"{args.mechanism}, this pair", curves.eps_prime, curves.delta)]
    bounds = [] if bound is None else [(f"proven bound ({bound.kind})", curves.eps_prime,
                                        bound.delta(curves.eps_prime))]
    save_figure(plot_delta_curves(lines, bounds, title), args.plot)


def _render_curves(p: dict) -> str:
    pair = (f"scores {p['scores'].tolist()}, neighbour {p['neighbour'].tolist()}"
            if p.get("scores") is not None else f"pmfs p {p['p']}, q {p['q']}")
    repeat = p.get("repeat")
    if repeat is not None:
        published = repeat["published"]
        sharp = repeat.get("sharp_eps")
        pair += (f"; repeat-and-select {repeat['spec']} (E[K] = {repeat['mean']:.6g}; "
                 f"{repeat['order']}): proven eps' "
                 + (f"{float(sharp):.10g}" if sharp is not None else "none")
                 + (f", published {published['eps']:.10g}" if published else ""))
    head = [pair,
            f"max loss {p['max_loss']:.10g}; zCDP rho over the orders {p['zcdp_rho']:.10g} "
            f"(certified sup over all alpha > 1: at most {p['zcdp_rho_bound']:.10g})"]
    delta = text_table(["eps'", "delta(eps')"], list(zip(p["delta"]["eps_prime"],
                                                         p["delta"]["delta"])))
    return "\n".join(head) + "\n" + delta


def run_pair(args: argparse.Namespace) -> int:
    from optmech.privacy.bounds import proven_bound
    from optmech.privacy.curves import DEFAULT_ORDERS, curves_of, default_eps_prime, pair_curves

    orders = DEFAULT_ORDERS if args.orders is None else args.orders
    if _pmf_base(args):
        from optmech.privacy.repeat import RepeatAndSelect, check_pmf_pair

        base = check_pmf_pair(args.p, args.q, ("--p", "--q"))
        mechanism = RepeatAndSelect(base, args.repeat or "fixed:1")
        eps_prime = args.eps_prime
        if eps_prime is None:
            top = mechanism.proven_epsilon()
            eps_prime = default_eps_prime(top if 0 < top < math.inf else 1.0)
        curves = curves_of(mechanism.loss_distribution(), eps_prime, orders)
        bound = _repeat_bound(mechanism)
        label = "pmf pair"
    else:
        n = len(args.scores)
        mechanism, bound, sensitivity = _repeated(args, *_mechanism(args, n), args.scores)
        curves = pair_curves(mechanism, args.scores, args.neighbour, sensitivity=sensitivity,
                             monotonic=args.monotonic, eps_prime=_eps_prime(args, mechanism, n),
                             orders=orders)
        bound = bound or proven_bound(mechanism, n)
        label = _label(args, mechanism)
    if args.plot:
        _plot(args, curves, bound, label + (f", repeat {args.repeat}" if args.repeat else ""))
    payload = {"mechanism": args.mechanism or "pmf pair", "eps": args.eps,
               **_noise_payload(args, mechanism),
               **_curves_payload(curves), **_base_payload(args, mechanism),
               "plot": None if args.plot is None else str(args.plot)}

    def render(p: dict) -> str:
        orders_shown = [(a, d) for a, d in zip(p["renyi"]["orders"], p["renyi"]["divergence"])
                        if a in (1.0, 2.0, 4.0, 8.0, math.inf)
                        or len(p["renyi"]["orders"]) <= 12]
        renyi = text_table(["order", "Renyi divergence"], orders_shown)
        return (_render_curves(p) + "\n" + renyi
                + (f"\nplot written to {p['plot']}" if p["plot"] else ""))

    emit(args, payload, render)
    return 0


def _bound_payload(worst) -> dict | None:
    bound = worst.bound
    if bound is None:
        return None
    return {"kind": bound.kind, "source": bound.source, "max_loss": _number(bound.max_loss),
            "zcdp_rho": bound.zcdp_rho, "delta": bound.delta(worst.curves.eps_prime),
            "value": worst.bound_value}


def run_worst(args: argparse.Namespace) -> int:
    _check_n(args)
    _pmf_base(args)
    mechanism, bound, sensitivity = _repeated(args, *_mechanism(args, args.n))
    if args.mechanism == "lattice":
        # every pair of the lattice (the base's, under --repeat)
        from optmech.privacy.worst import worst_over_pairs

        q, other = getattr(mechanism, "base", mechanism).neighbour_pairs()
        worst = worst_over_pairs(mechanism, q, other, objective=args.objective, at=args.at,
                                 eps_prime=args.eps_prime, bound=bound, name="lattice",
                                 method="every pair of neighbours of its finite domain")
    else:
        from optmech.privacy.worst import worst_pair

        # Gaussian noise: scores within 40 noise scales (its worst pairs lie far apart)
        span = (max(args.depth * sensitivity, 40.0 * mechanism.sigma)
                if args.mechanism == GAUSSIAN_NAME else None)
        worst = worst_pair(mechanism, args.n, objective=args.objective, at=args.at,
                           sensitivity=sensitivity, monotonic=args.monotonic, span=span,
                           depth=args.depth, starts=args.starts, iterations=args.iterations,
                           rng=args.seed, eps_prime=_eps_prime(args, mechanism, args.n),
                           bound=bound, name=args.mechanism)
    if args.plot:
        _plot(args, worst.curves, worst.bound, f"worst pair found: {args.mechanism}, n = "
                                               f"{args.n}, " + _label(args, mechanism)
                                               .split(", ", 1)[1])
    payload = {"mechanism": args.mechanism, "eps": args.eps, **_noise_payload(args, mechanism),
               "n": args.n,
               "objective": args.objective, "at": worst.at, "value": worst.value,
               **_curves_payload(worst.curves), "bound": _bound_payload(worst),
               "method": worst.method, "pairs_evaluated": worst.pairs_evaluated,
               **_base_payload(args, mechanism),
               "plot": None if args.plot is None else str(args.plot)}

    def render(p: dict) -> str:
        b = p["bound"]
        bracket = (f"{p['objective']}: worst found {p['value']:.10g}, proven bound "
                   + (f"{b['value']:.10g} ({b['source']})" if b else "none known"))
        return (bracket + "\n" + _render_curves(p) + f"\nsearch: {p['method']}; "
                f"{p['pairs_evaluated']} pairs evaluated"
                + (f"\nplot written to {p['plot']}" if p["plot"] else ""))

    emit(args, payload, render)
    return 0


def run_referee(args: argparse.Namespace) -> int:
    from optmech.privacy.claims import referee
    from optmech.privacy.report import render as render_markdown

    results = referee(quick=args.quick, only=args.only)
    if args.markdown and not args.json:
        print(render_markdown(results), end="")
        return 0
    payload = {"claims": [{
        "id": r.id, "source": str(r.source), "quote": r.source.quote, "claim": r.claim,
        "verdict": r.verdict, "evidence": r.evidence, "consistent": r.consistent,
        "counterexample": None if r.counterexample is None else {
            "mechanism": r.counterexample.mechanism, "eps": r.counterexample.eps,
            "scores": list(r.counterexample.scores),
            "neighbour": list(r.counterexample.neighbour),
            "figure": r.counterexample.figure, "claimed": r.counterexample.claimed,
            "value": r.counterexample.value, "value_mpmath": r.counterexample.value_mpmath,
            "count": r.counterexample.count}} for r in results]}

    def render(p: dict) -> str:
        return text_table(["id", "verdict", "consistent"],
                          [(c["id"], c["verdict"], "yes" if c["consistent"] else "NO")
                           for c in p["claims"]])

    emit(args, payload, render)
    return 0 if all(r.consistent for r in results) else 1
