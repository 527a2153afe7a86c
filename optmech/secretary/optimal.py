"""The optimal (ε, δ)-DP stopping rule (the LP of :mod:`lp_models.stopping`), and the best
p-mix at the same privacy for comparison.

Which rules.  Stopping rules that see relative ranks only (the paper's model).  Restricting
to rules that look at the current (time, relative rank) loses nothing: given the relative
order of the first i candidates, the absolute rank of the one ranked r among them has the
law ``C(k-1, r-1) C(n-k, i-r) / C(n, i)`` whatever the rest of that order is, and its
relative rank is independent of whether the rule is still running; so any rule, however
much history it uses, has a rank-based rule with the same (time, relative rank) stopping
law and the same rank distribution.  The LP optimum is therefore the best success of any
randomised stopping rule that is (ε, δ)-DP under d_l.

Two solvers of the same LP:

* ``"column-generation"`` (n = 1000 in seconds for the paper's (ε, δ)): the
  achievable rank distributions form the convex hull of those of deterministic rules, so
  the LP is a mixture LP over deterministic rules (:func:`lp_models.stopping.mixture_lp`).
  Given multipliers y >= 0 of the privacy rows, the best deterministic rule for the
  Lagrangian payoff ``g = payoff - A^T y`` comes from backward induction in O(n^2)
  (:func:`lp_models.stopping.payoff_values`); it is added when it improves the mixture.
  Privacy rows enter the mixture LP only once violated; rules unused for 100 rounds
  leave it.  Multipliers are smoothed (Wentges: price first at ``0.9 * best + 0.1 *
  current``, then at the current ones if that finds nothing), which cuts the iterations
  several fold when many privacy rows bind; even so, small ε with δ = 0 needs many
  iterations (ε = 0.1, l = 1: 172 at n = 60, 1309 at n = 100, over 3000 at n = 140),
  so n = 1000 there is out of reach of this loop.  Every pricing gives a valid upper bound
  ``F(y) = max_rules E[g] + δ sum(y)`` (Lagrangian duality); so does F at the privacy
  duals of the relaxation over rank distributions alone
  (:func:`lp_models.stopping.privacy_relaxation_lp`, n columns, milliseconds), evaluated
  once before the loop.  Where the stopping LP attains the relaxation, that bound is the
  optimum up to the relaxation solve's tolerance (~1e-10 at n = 1000) and certifies the
  upper side at once.  With δ = 0, l = 1 the relaxation's optimum is the geometric rank
  law ``q[k] ∝ e^{-ε k}``, which stopping rules attain only up to some n that shrinks as
  ε grows (measured: ε = 0.1 up to n = 150 at least; ε = 0.3 at n = 40 but not at
  n = 60, optimum 0.2591793 against 0.2591818; ε = 0.4 not even at n = 16), so the bound
  is a shortcut, never assumed to be the optimum.  It does not steer the pricing
  (stabilising towards those multipliers slows the lower side: every rule has the same
  Lagrangian payoff there).  The loop stops when the best bound is within ``tolerance``
  of the mixture's value.
* ``"highs"``: the full LP of :func:`lp_models.stopping.stopping_lp` with HiGHS's dual
  simplex (fine up to n of about 150; its time grows roughly like n^3).  It does not
  suffer from many binding privacy rows (n = 100 with ε = 0.1, δ = 0 in ~3 s against
  ~70 s for column generation), but its round-off leaves gaps of ~1e-9.
* ``"auto"`` (default): HiGHS for n <= 120 (column generation if HiGHS fails), column
  generation above.

Both return a rule that is exactly realisable (stopping probabilities in [0, 1]) and whose
rank distribution is recomputed from the rule, and both certify the optimum with the
Lagrangian bound F(y) of the final privacy multipliers, computed by backward induction
independently of the solver.  The solver's round-off (up to its feasibility tolerance
1e-10) can leave a privacy row violated by that much; the rule is then mixed with the
blind choice by the smallest weight w that makes every row hold
(``w = v / (δ + v + (e^ε - 1)/n)`` for an excess v), so the returned rule is (ε, δ)-DP up
to float rounding of its rank distribution (~1e-16), at a cost of at most w in success.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from lp_models.display import Displayed
from lp_models.program import LinearProgram, SolverError, solve
from lp_models.stopping import (
    PAYOFFS,
    mixture_lp,
    payoff_values,
    privacy_pairs,
    privacy_relaxation_lp,
    rank_payoff,
    split_solution,
    stopping_lp,
    triangle_index,
)
from optmech.resources import Estimate, require
from optmech.secretary.classical import rank_distribution
from optmech.secretary.mixing import blind_choice
from optmech.secretary.privacy import check_epsilon, delta_for_epsilon, largest_mix_weight
from optmech.secretary.rules import (
    StoppingRule,
    blind_choice_rule,
    deterministic_rule,
    optimal_rule_for_payoff,
)
from optmech.validation import check_choice, check_integer, check_positive, check_probability

__all__ = ["METHODS", "ConvergenceError", "PmixComparison", "PrivateStoppingRule",
           "best_pmix", "compare_with_pmix", "optimal_private_rule", "rule_estimate"]

METHODS = ("auto", "column-generation", "highs")
AUTO_HIGHS_MAX_N = 120
"""``method="auto"`` uses HiGHS on the full LP up to this n, column generation above."""
_SOLVER_OPTIONS = {"primal_feasibility_tolerance": 1e-10, "dual_feasibility_tolerance": 1e-10}
_SMOOTHING = 0.9
_MARGIN = 1e-15      # privacy rows are made to hold with this slack (float rounding of q)
_PATIENCE = 100      # a rule unused in the mixture for this many rounds leaves the master


class ConvergenceError(RuntimeError):
    """Column generation hit its iteration or time limit; ``lower`` (value of the best
    private mixture found) and ``upper`` (certified bound) bracket the optimum."""

    def __init__(self, lower: float, upper: float, iterations: int):
        super().__init__(f"column generation stopped after {iterations} iterations with "
                         f"value {lower:.12g} and upper bound {upper:.12g}")
        self.lower, self.upper, self.iterations = lower, upper, iterations


@dataclass(frozen=True, repr=False)
class PrivateStoppingRule(Displayed):
    """An optimal (ε, δ)-DP stopping rule under d_l and its certificate.

    ``rule``: stopping probabilities per (time, relative rank); ``rank_distribution``: its
    exact rank distribution; ``expected_payoff``: ``sum_k payoff[k] q[k]`` (for ``"best"``
    the probability of selecting the best candidate, for ``"top-m"`` of selecting one of
    the m best, for ``"rank"`` minus the expected rank); ``upper_bound``: no (ε, δ)-DP rule
    has a larger expected payoff (Lagrangian bound, up to rounding); ``multipliers``: the
    privacy multipliers y >= 0 giving that bound, one per pair of
    :func:`lp_models.stopping.privacy_pairs` (``lp_models.stopping.full_duals`` completes
    them to a dual point of the full LP for independent checking); ``realised_delta``:
    the tight δ(ε) of ``rank_distribution`` (Theorem 3.2); ``repair_weight``: weight of
    the blind choice mixed in to absorb solver round-off (module docstring).

    ``lp``: the LP HiGHS solved last, as built (no copy): for ``method == "highs"`` the
    stopping LP itself (:func:`lp_models.stopping.stopping_lp`; ``full_primal(lp,
    rule.joint())`` is the rule as its point), for ``"column-generation"`` the final master
    (:func:`lp_models.stopping.mixture_lp` over the rules it kept and the privacy rows it
    held), None when no LP was solved (``epsilon = inf``).  Its optimum is the rule's
    expected payoff before the repair.
    """

    #: Number of candidates (>= 2).
    n: int
    #: The privacy parameter ε under d_l (``inf``: no privacy, the classical optimum).
    epsilon: float
    #: The privacy parameter δ, in [0, 1].
    delta: float
    #: Reach of the metric d_l (Definition 6): a swap of two candidates at most ``l`` ranks apart is
    #: one step (1 <= l <= n - 1).
    l: int
    #: ``"best"``, ``"top-m"`` or ``"rank"`` (see ``expected_payoff``).
    payoff: str
    #: The ``m`` of the ``"top-m"`` payoff (1 <= m <= n); unused by the other payoffs.
    m: int | None
    #: The rule: its stopping probability per (time, relative rank).
    rule: StoppingRule
    #: The rule's exact rank distribution, recomputed from ``rule``: entry ``k - 1`` is the
    #: probability of selecting the candidate of absolute rank ``k`` (length n, sums to 1).
    rank_distribution: np.ndarray
    #: ``sum_k payoff[k] q[k]``: the probability of selecting the best (``"best"``) or one of the
    #: ``m`` best (``"top-m"``), or minus the expected rank (``"rank"``).
    expected_payoff: float
    #: Certified bound: no (ε, δ)-DP rule has a larger expected payoff (the Lagrangian bound of
    #: ``multipliers``, units of ``expected_payoff``, >= ``expected_payoff`` up to rounding).
    upper_bound: float
    #: Privacy multipliers ``y >= 0`` giving ``upper_bound``, one per pair of
    #: :func:`lp_models.stopping.privacy_pairs` (empty for ``epsilon = inf``).
    multipliers: np.ndarray
    #: The tight δ(ε) of ``rank_distribution`` over all pairs ``|i - j| <= l`` (Theorem 3.2); at
    #: most ``delta`` up to rounding.
    realised_delta: float
    #: Weight in [0, 1] of the blind choice mixed into the solver's rule to absorb its round-off (0
    #: when no row was violated).
    repair_weight: float
    #: ``"highs"`` or ``"column-generation"``, the solver that ran (for ``epsilon = inf``, where
    #: nothing is solved, the method asked for).
    method: str
    #: Simplex iterations of HiGHS (``"highs"``) or rounds of column generation; 0 when nothing was
    #: solved.
    iterations: int
    #: Wall-clock seconds of the whole computation.
    seconds: float
    #: The LP HiGHS solved last, as built (see above); None when no LP was solved.
    lp: LinearProgram | None = field(default=None, repr=False)

    # repr and notebook table: the requirement, the value and its certificate
    _display = ("n", "epsilon", "delta", "l", "payoff", "m", "expected_payoff", "upper_bound",
                "gap", "method")

    def _display_items(self):
        return [*self._repr_items(), ("realised_delta", self.realised_delta),
                ("repair_weight", self.repair_weight), ("iterations", self.iterations),
                ("seconds", self.seconds)]

    @property
    def gap(self) -> float:
        """``upper_bound - expected_payoff`` (>= 0 up to rounding)."""
        return self.upper_bound - self.expected_payoff


def _lagrangian(payoff, epsilon, delta, pairs, y):
    """Backward induction for ``g = payoff - A^T y`` and the bound ``F(y)``."""
    g = payoff.copy()
    np.subtract.at(g, pairs[0], y)
    np.add.at(g, pairs[1], math.exp(epsilon) * y)
    values = payoff_values(g)
    return values, values.value + delta * float(y.sum())


def _relaxation_bound(n, epsilon, delta, l, payoff, pairs):
    """``(F(y), y)`` at the privacy duals y of :func:`privacy_relaxation_lp` (module
    docstring); ``(inf, 0)`` if HiGHS fails on that LP (the bound is only an accelerator)."""
    try:
        sol = solve(privacy_relaxation_lp(n, epsilon, delta, l, payoff), "simplex",
                    presolve=False, options=_SOLVER_OPTIONS)
    except SolverError:
        return math.inf, np.zeros(pairs[0].size)
    y = np.maximum(sol.row_duals[:-1], 0.0)
    return _lagrangian(payoff, epsilon, delta, pairs, y)[1], y


def _column_generation(n, epsilon, delta, l, payoff, pairs, tolerance, max_iterations,
                       time_limit):
    deadline = math.inf if time_limit is None else time.perf_counter() + time_limit
    grow = math.exp(epsilon)
    first, second = pairs
    times, _ = triangle_index(n)
    packed, columns = [], []
    used = []                              # last iteration each rule had positive weight

    def add(stop_flat, q):
        packed.append(np.packbits(stop_flat))
        columns.append(q)
        used.append(iteration)

    iteration = 0
    for stop_flat in (times == 1, payoff_values(payoff).stop):  # blind choice, classical
        add(stop_flat, deterministic_rule(n, stop_flat).rank_distribution())
    working = np.flatnonzero(columns[1][first] - grow * columns[1][second] > delta)
    center, center_bound = np.zeros(first.size), math.inf    # stabilisation centre
    upper, certificate = _relaxation_bound(n, epsilon, delta, l, payoff, pairs)
    for iteration in range(1, max_iterations + 1):
        Q = np.array(columns)
        master = mixture_lp(Q, payoff, epsilon, delta, (first[working], second[working]))
        sol = solve(master, "simplex", presolve=False, options=_SOLVER_OPTIONS)
        weights = np.maximum(sol.x, 0.0)
        used = [iteration if w > 0 else u for w, u in zip(weights, used)]
        q = weights @ Q
        violated = np.flatnonzero(q[first] - grow * q[second] - delta > 1e-12)
        missing = np.setdiff1d(violated, working)
        if missing.size:                  # a privacy row left out so far: add it, re-solve
            working = np.union1d(working, missing)
            continue
        y = np.zeros(first.size)
        y[working] = np.maximum(sol.row_duals[:working.size], 0.0)
        lower, scale = sol.objective, max(1.0, abs(sol.objective))
        found = None
        for trial in (_SMOOTHING * center + (1 - _SMOOTHING) * y, y):
            values, bound = _lagrangian(payoff, epsilon, delta, pairs, trial)
            if bound < center_bound:
                center, center_bound = trial, bound
            if bound < upper:
                upper, certificate = bound, trial
            candidate = deterministic_rule(n, values.stop).rank_distribution()
            reduced = (payoff @ candidate - sol.row_duals[-1]
                       - y @ (candidate[first] - grow * candidate[second]))
            if reduced > 1e-12 * scale:
                found = (values.stop, candidate)
                break
        if found is None or upper - lower <= tolerance * scale:
            support = np.flatnonzero(weights > 0)
            joint = sum(weights[k] * deterministic_rule(
                n, np.unpackbits(packed[k], count=times.size).astype(bool)).joint()
                for k in support)
            return joint / weights[support].sum(), upper, certificate, iteration, master
        keep = [k for k, u in enumerate(used) if k == 0 or iteration - u < _PATIENCE]
        packed[:] = [packed[k] for k in keep]
        columns[:] = [columns[k] for k in keep]
        used[:] = [used[k] for k in keep]
        add(*found)
        if time.perf_counter() > deadline:
            raise ConvergenceError(lower, upper, iteration)
    raise ConvergenceError(sol.objective, upper, max_iterations)


def _highs(n, epsilon, delta, l, payoff, pairs, time_limit):
    lp = stopping_lp(n, epsilon, delta, l, payoff)
    sol = solve(lp, "simplex", presolve=False, options=_SOLVER_OPTIONS, time_limit=time_limit)
    y = np.maximum(sol.row_duals[lp.metadata["privacy_row"]:], 0.0)
    bound = _lagrangian(payoff, epsilon, delta, pairs, y)[1]
    return np.maximum(split_solution(lp, sol.x).joint, 0.0), bound, y, sol.iterations, lp


def _repair(joint: np.ndarray, epsilon: float, delta: float, l: int):
    """Mix the rule with the blind choice until every privacy row holds with a margin of
    ``_MARGIN`` (module docstring); returns the rule, its rank distribution, the weight."""
    rule = StoppingRule.from_joint(joint)
    q = rule.rank_distribution()
    excess = delta_for_epsilon(q, epsilon, l) - delta + _MARGIN
    if excess <= 0:
        return rule, q, 0.0
    room = delta + excess + math.expm1(epsilon) / rule.n
    weight = min(1.0, excess / room)
    rule = StoppingRule.from_joint((1 - weight) * rule.joint()
                                   + weight * blind_choice_rule(rule.n).joint())
    return rule, rule.rank_distribution(), weight


# CPU seconds of one solve, upper estimates from benchmarks/results/stopping.md and loaded
# runs: HiGHS on the full LP grows like n^3 (1 s at n = 150), column generation like n^2
# (0.2 to 8 s at n = 1000), except in the hard corner delta = 0, l = 1, where nearly every
# privacy row binds: 50 times as long (over 70 s at n = 400, eps = 0.1; at small eps it may
# not converge at all, and time_limit bounds it).
_HIGHS_SECONDS_PER_N3, _COLUMN_GENERATION_SECONDS_PER_N2, _HARD_CORNER = 1.5e-6, 1e-5, 50


def rule_estimate(n: int, method: str = "auto", delta: float = 0.01, l: int = 1) -> Estimate:
    """Work and memory of :func:`optimal_private_rule` at ``n`` with ``method`` (the
    stopping probabilities per (time, relative rank) and the rules' rank tables: a few
    ``n x n`` arrays of doubles)."""
    highs = method == "highs" or (method == "auto" and n <= AUTO_HIGHS_MAX_N)
    seconds = (_HIGHS_SECONDS_PER_N3 * float(n) ** 3 if highs
               else _COLUMN_GENERATION_SECONDS_PER_N2 * float(n) ** 2)
    if delta == 0 and l == 1:
        seconds *= _HARD_CORNER
    return Estimate(seconds, 40.0 * n * n, "n", n)


def optimal_private_rule(n: int, epsilon: float, delta: float, l: int = 1,
                         payoff: str = "best", m: int | None = None,
                         method: str = "auto", tolerance: float = 1e-9,
                         max_iterations: int = 20_000,
                         time_limit: float | None = None) -> PrivateStoppingRule:
    """The stopping rule with the largest expected payoff that is (ε, δ)-DP under d_l.

    ``payoff``: ``"best"`` (probability of selecting the best candidate), ``"top-m"``
    (probability of selecting one of the ``m`` best) or ``"rank"`` (minus the expected
    rank).  ``epsilon = inf`` gives the classical optimum.  ``method``: see the module
    docstring.  ``tolerance`` (column generation): largest gap between the mixture's value
    and the certified upper bound, relative to ``max(1, |value|)``; the returned rule loses
    the repair weight (~1e-10 with column generation, ~1e-8 with HiGHS) times the payoff
    range on top.  Raises :class:`ConvergenceError` after ``max_iterations`` rounds or
    ``time_limit`` seconds of column generation, and :class:`lp_models.program.SolverError`
    if HiGHS fails when asked for explicitly (``time_limit`` applies to HiGHS as well).
    """
    n = check_integer(n, "n", minimum=2)
    method = check_choice(method, "method", METHODS)
    epsilon = math.inf if epsilon == math.inf else check_epsilon(epsilon)
    delta = check_probability(delta, "delta")
    l = check_integer(l, "l", minimum=1, maximum=n - 1)
    require(rule_estimate(n, method, delta, l))
    check_choice(payoff, "payoff", PAYOFFS)
    if payoff == "top-m":
        m = check_integer(m, "m", minimum=1, maximum=n)
    tolerance = check_positive(tolerance, "tolerance")
    max_iterations = check_integer(max_iterations, "max_iterations", minimum=1)
    if time_limit is not None:
        time_limit = check_positive(time_limit, "time_limit")
    weights = rank_payoff(n, payoff, m)
    started = time.perf_counter()
    if math.isinf(epsilon):
        rule, value = optimal_rule_for_payoff(weights)
        q = rule.rank_distribution()
        return PrivateStoppingRule(n, epsilon, delta, l, payoff, m, rule, q,
                                   float(weights @ q), value, np.zeros(0), 0.0, 0.0, method,
                                   0, time.perf_counter() - started)
    pairs = privacy_pairs(n, l)
    fallback = method == "auto"
    if fallback:
        method = "highs" if n <= AUTO_HIGHS_MAX_N else "column-generation"
    solved = None
    if method == "highs":
        try:
            solved = _highs(n, epsilon, delta, l, weights, pairs, time_limit)
        except SolverError:
            if not fallback:
                raise
            method = "column-generation"
    if solved is None:
        solved = _column_generation(n, epsilon, delta, l, weights, pairs, tolerance,
                                    max_iterations, time_limit)
    joint, bound, multipliers, iterations, lp = solved
    rule, q, weight = _repair(joint, epsilon, delta, l)
    return PrivateStoppingRule(
        n=n, epsilon=epsilon, delta=delta, l=l, payoff=payoff, m=m, rule=rule,
        rank_distribution=q, expected_payoff=float(weights @ q), upper_bound=float(bound),
        multipliers=multipliers, realised_delta=delta_for_epsilon(q, epsilon, l),
        repair_weight=weight,
        method=method, iterations=iterations, seconds=time.perf_counter() - started, lp=lp)


@dataclass(frozen=True, repr=False)
class PmixComparison(Displayed):
    """The optimal (ε, δ)-DP rule against the best p-mix at the same (ε, δ, l).

    ``pmix_p``: the largest p for which the p-mix of the classical optimal rule for this
    payoff (M* for "best") with the blind choice is (ε, δ)-DP, over all pairs at this n
    (Theorem 3.2, not the asymptotic Corollary 3); the p-mix's payoff increases with p, so
    this is the best p-mix.  ``ratio``: how many times better the optimal rule is:
    ``optimal / pmix`` success for "best" and "top-m", ``pmix / optimal`` expected rank
    for "rank" (>= 1 in both cases).
    """

    #: The optimal (ε, δ)-DP rule, :func:`optimal_private_rule` at the same arguments.
    optimal: PrivateStoppingRule
    #: Largest mixing weight p in [0, 1] for which the p-mix (the classical optimal rule with
    #: probability p, else the blind choice) is (ε, δ)-DP over all pairs at this n.
    pmix_p: float
    #: The p-mix's expected payoff, in the units of ``optimal.expected_payoff`` (a probability for
    #: ``"best"`` and ``"top-m"``, minus the expected rank for ``"rank"``).
    pmix_success: float
    #: The p-mix's rank distribution: entry ``k - 1`` is the probability of selecting the candidate
    #: of absolute rank ``k`` (length n, sums to 1).
    pmix_rank_distribution: np.ndarray

    _display = ("optimal_success", "pmix_p", "pmix_success", "ratio")

    def _display_items(self):
        o = self.optimal
        return [("n", o.n), ("epsilon", o.epsilon), ("delta", o.delta), ("l", o.l),
                ("payoff", o.payoff), *self._repr_items(), ("upper_bound", o.upper_bound)]

    @property
    def optimal_success(self) -> float:
        return self.optimal.expected_payoff

    @property
    def ratio(self) -> float:
        if self.optimal.payoff == "rank":
            return self.pmix_success / self.optimal_success
        return self.optimal_success / self.pmix_success


def best_pmix(n: int, epsilon: float, delta: float, l: int = 1, payoff: str = "best",
              m: int | None = None) -> tuple[float, float, np.ndarray]:
    """``(p, expected payoff, rank distribution)`` of the best (ε, δ)-DP p-mix of the
    classical optimal rule for ``payoff`` (M* for "best", exact closed form) with the
    blind choice, at this n over all pairs."""
    n = check_integer(n, "n", minimum=2)
    weights = rank_payoff(n, check_choice(payoff, "payoff", PAYOFFS),
                          check_integer(m, "m", minimum=1, maximum=n)
                          if payoff == "top-m" else None)
    base = rank_distribution(n) if payoff == "best" else \
        optimal_rule_for_payoff(weights)[0].rank_distribution()
    p = largest_mix_weight(base, blind_choice(n), epsilon, delta, l)
    q = p * base + (1.0 - p) / n
    return p, float(weights @ q), q


def compare_with_pmix(n: int, epsilon: float, delta: float, l: int = 1, payoff: str = "best",
                      m: int | None = None, method: str = "auto", tolerance: float = 1e-9,
                      time_limit: float | None = None) -> PmixComparison:
    """:func:`optimal_private_rule` and :func:`best_pmix` at the same (n, ε, δ, l)."""
    optimal = optimal_private_rule(n, epsilon, delta, l, payoff, m, method, tolerance,
                                   time_limit=time_limit)
    p, success, q = best_pmix(n, epsilon, delta, l, payoff, m)
    return PmixComparison(optimal=optimal, pmix_p=p, pmix_success=success,
                          pmix_rank_distribution=q)
