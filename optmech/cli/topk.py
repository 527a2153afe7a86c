"""``optmech topk lp``: the optimal top-T mechanism on the bounded 2Δ-lattice and the
optimality ratios of the top-k mechanisms (:mod:`optmech.cli._topk_lp`)."""

from __future__ import annotations

from optmech.cli._common import add_actions
from optmech.cli._topk_lp import add_lp_action


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "topk", help="private top-T selection: the optimal mechanism and optimality ratios",
        description="Private top-T selection (epsilon is the budget of the whole output).")
    actions = add_actions(parser, metavar="{lp}")
    add_lp_action(actions)
