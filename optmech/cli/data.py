"""``optmech data error``: exact expected error of PF, EM and RNM-Laplace on a histogram task."""

from __future__ import annotations

import argparse

from optmech.cli._common import add_json_flag, emit, positive_float, positive_int
from optmech.data.datasets import DATASETS, dataset_estimate, load_histogram
from optmech.data.tasks import MECHANISMS, TASKS, error_ratio, expected_errors, get_task
from optmech.tables import text_table

ACTIONS = ("error",)


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "data", help="mode/median selection on real histograms (permute-and-flip paper §6)",
        description="Exact expected error (no sampling) of permute-and-flip, the exponential "
                    "mechanism and report-noisy-max with Laplace noise for the mode or the "
                    "median of a histogram, in individuals.  Mode: score = bin count; "
                    "median: score = minus the individuals to add or remove so the bin holds "
                    "the median.  Both have sensitivity 1.  --json prints {pf, em, rnm_laplace, "
                    "ratio_em_pf}; the ratio is computed in log space, so it stays exact "
                    "where both errors underflow to 0 (it is 1 when every bin ties).",
        epilog="example: optmech data error --dataset HEPTH --task mode --eps 0.04")
    parser.add_argument("action", choices=ACTIONS)
    parser.add_argument("--dataset", required=True,
                        help=f"built-in name ({', '.join(DATASETS)}) or a .npy/.csv file of "
                             "counts (CSV: one count per line, optionally under a header line; "
                             "one comma-separated line; or a header naming a 'count' column)")
    parser.add_argument("--task", required=True, choices=tuple(TASKS))
    parser.add_argument("--eps", required=True, type=positive_float, help="epsilon > 0")
    parser.add_argument("--bins", type=positive_int, default=None,
                        help="coarsen to this many bins by summing consecutive bins (must "
                             "divide the number of bins; default: keep them; the paper uses "
                             "1024)")
    parser.add_argument("--monotonic", action="store_true",
                        help="use the monotonic variants (half the noise); valid for the mode "
                             "only, as in the paper")
    add_json_flag(parser)
    parser.set_defaults(func=run, estimate=lambda args: dataset_estimate(args.dataset))


def _render(args: argparse.Namespace, bins: int, total: int):
    def render(payload: dict) -> str:
        head = (f"{args.dataset}: {bins} bins, {total} individuals; task {args.task}; "
                f"eps {args.eps:g}{'; monotonic' if args.monotonic else ''}")
        table = text_table(["mechanism", "expected error"],
                             [(k, payload[k]) for k in MECHANISMS])
        return f"{head}\n{table}\nEM/PF ratio: {payload['ratio_em_pf']:.6g}"
    return render


def run(args: argparse.Namespace) -> int:
    task = get_task(args.task, args.monotonic)
    histogram = load_histogram(args.dataset, args.bins)
    errors = expected_errors(task.scores(histogram), args.eps, sensitivity=task.sensitivity,
                             monotonic=args.monotonic)
    payload = dict(errors)
    payload["ratio_em_pf"] = error_ratio(task.scores(histogram), args.eps,
                                         sensitivity=task.sensitivity, monotonic=args.monotonic)
    emit(args, payload, _render(args, histogram.size, int(histogram.sum())))
    return 0
