"""The synthetic scenario study of the heterogeneous-sensitivities paper (Sections VI-VII).

A scenario gives every candidate ``a`` (``n = 100``) a score distribution ``P_a``; a trial
draws one score vector from it.  As in the paper's experimental design, the sensitivity
``Δ_a`` is the spread between the 10th and 90th percentiles of ``P_a``, each trial's scores
are clipped to that range, and the error of a trial is measured on the clipped scores.
The paper takes the percentiles of the sampled trial scores; here they are the exact
percentiles of ``P_a`` (the limit of the paper's estimate), so ``Δ`` does not depend on the
number of trials.

==========  ======================================================  =====================
scenario    score distributions (paper)                             correlation(q, Δ)
==========  ======================================================  =====================
1           bimodal: 50 scores 1 (Δ 1.8), 50 scores -1 (Δ 1)         positive (Fig. 2a)
2           bimodal: 50 scores 1 (Δ 1), 50 scores -1 (Δ 1.8)         negative (Fig. 2b)
3           bimodal, half of each group Δ 1.8, half Δ 1             none (Fig. 2c)
4           N(log a, σ_a²), σ sorted draws of N_[0.01,0.7](0.5, 1)   positive (Fig. 8a)
5           N(0.1 a, sd 2.3 - 0.02 a)                               negative (Fig. 8b)
6           N(μ_a, σ_a), μ ~ U[0, 1], σ ~ N_[0.01,0.7](0.5, 1)      none (Fig. 8c)
7           two user groups, means -8 + 8a/100 and 8 - 8a/100,      +/- (Fig. 12a)
            noise sd 0.5 (Appendix F)
8           as 7 with noise sd 3                                    weaker (Fig. 12b)
sweep t     N(x_a, sd (t x_a + z_a)/5 - min + 0.01), x, z ~ N(0,1)  t/sqrt(1+t²) (Fig. 10)
==========  ======================================================  =====================

Readings of garbled or unstated details (documented choices, not the paper's words):
scenario 5's second parameter is a standard deviation (as ``N(μ_a, σ_a)`` in scenario 6);
scenarios 1-3 have no randomness, so ``Δ`` is the stated value and no clipping applies; in
the sweep the derived quantity ``(t x + z)/5 - min`` is the spread of ``P_a = N(x_a, ·)``,
floored at 0.01 (the lower end of scenarios 4 and 6) so that no sensitivity is 0; in
scenarios 7-8 the sensitivities are percentiles over all users (both groups), which is
what makes one group positively and the other negatively correlated, and trial ``i``
belongs to group ``i mod 2``.

The runner computes, for each mechanism and ε, the mean over trials of the *exact*
expected squared error ``sum_r pmf_r (q* - q_r)^2`` (every mechanism here has an exact
pmf), with a 95% Student-t confidence interval over trials; scenarios 1-3 have a single
exact value (the interval has zero width).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

from lp_models.display import Displayed, Tabular
from optmech.heterogeneous.gem import spearman_correlation
from optmech.heterogeneous.registry import MECHANISM_NAMES, make_heterogeneous
from optmech.resources import require_memory
from optmech.selection.mechanisms import labelled_mechanisms
from optmech.sweep import run_sweep
from optmech.validation import InvalidArgumentError, check_choice, check_finite, check_integer

__all__ = ["FIGURE_SCENARIOS", "MSEPoint", "SCENARIOS", "SWEEP_T", "Scenario",
           "ScenarioResult", "correlation_scenario", "mean_interval", "run_estimate",
           "run_scenario", "scenario", "scenario_from_key", "squared_errors_cell"]

N_CANDIDATES = 100
QUANTILES = (0.1, 0.9)
SCENARIOS = tuple(range(1, 9))
SWEEP_T = (-5.0, -0.8, -0.3, 0.0, 0.3, 0.8, 5.0)
SPREAD_FLOOR = 0.01
#: the paper's figures and the scenarios they show (keys for :func:`scenario_from_key`)
FIGURE_SCENARIOS = {
    "figure2": ("1", "2", "3"),
    "figure8": ("4", "5", "6"),
    "figure10": tuple(f"sweep:{t:g}" for t in SWEEP_T),
    "figure12": ("7", "8"),
}


@dataclass(frozen=True)
class Scenario:
    """Score distributions ``N(means[c, a], spreads[a]^2)``; trial ``i`` uses component
    ``c = i mod C``.  ``sensitivities`` and the clipping range ``[low, high]`` are the
    10th/90th percentiles of the equal-weight mixture over components."""

    #: Its name: ``"1"`` to ``"8"`` or ``"sweep:T"`` (``"sweep:T/normalised"`` for the normalised
    #: variant), as :func:`scenario_from_key` reads it.
    key: str
    #: A short description, for tables and figure titles (plain Unicode, no markup:
    #: ``"N(log a, σₐ²), σₐ increasing in a"``).
    title: str
    #: Means of the score distributions, shape ``(C, n)``: component ``c``, candidate ``a``
    #: (``C = 2`` in scenarios 7-8, the two user groups; else 1).
    means: np.ndarray
    #: Standard deviation of every candidate's score distribution (length n, >= 0; zeros in
    #: scenarios 1-3).
    spreads: np.ndarray
    #: ``Δ_a``, the 90th minus the 10th percentile of candidate ``a``'s score distribution (length
    #: n, > 0; the stated 1 or 1.8 in scenarios 1-3).
    sensitivities: np.ndarray
    #: Lower clipping bound of every candidate's scores, the 10th percentile (``-inf`` in scenarios
    #: 1-3: no clipping).
    low: np.ndarray
    #: Upper clipping bound of every candidate's scores, the 90th percentile (``inf`` in scenarios
    #: 1-3: no clipping).
    high: np.ndarray

    @property
    def deterministic(self) -> bool:
        return not self.spreads.any() and self.means.shape[0] == 1

    @property
    def correlations(self) -> tuple[float, ...]:
        """Spearman correlation of each component's mean scores with the sensitivities."""
        return tuple(spearman_correlation(m, self.sensitivities) for m in self.means)

    def scores(self, trials: int, rng: np.random.Generator) -> np.ndarray:
        """``trials`` clipped score vectors (rows)."""
        component = np.arange(trials) % self.means.shape[0]
        noise = rng.standard_normal((trials, self.spreads.size))
        raw = self.means[component] + self.spreads * noise
        return np.clip(raw, self.low, self.high)


def _normal_scenario(key: str, title: str, means, spreads) -> Scenario:
    """A scenario whose percentiles come from the normal (mixture) distribution."""
    means = np.atleast_2d(np.asarray(means, dtype=float))
    spreads = np.asarray(spreads, dtype=float)
    low, high = (_mixture_quantile(means, spreads, p) for p in QUANTILES)
    return Scenario(key, title, means, spreads, high - low, low, high)


def _mixture_quantile(means: np.ndarray, spreads: np.ndarray, p: float) -> np.ndarray:
    """Per candidate, the ``p``-quantile of the equal mixture of ``N(means[c], spreads^2)``
    (closed form for one component, else bisection to machine precision)."""
    z = stats.norm.ppf(p)
    if means.shape[0] == 1:
        return means[0] + z * spreads
    lo = means.min(axis=0) + z * spreads - 1.0
    hi = means.max(axis=0) + z * spreads + 1.0
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        below = stats.norm.cdf((mid - means) / spreads).mean(axis=0) < p
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    return 0.5 * (lo + hi)


def _bimodal(key: str, title: str, high_sensitivity: np.ndarray) -> Scenario:
    half = N_CANDIDATES // 2
    means = np.r_[np.ones(half), -np.ones(N_CANDIDATES - half)]
    sensitivities = np.where(high_sensitivity, 1.8, 1.0)
    infinite = np.full(N_CANDIDATES, np.inf)
    return Scenario(key, title, means[None, :], np.zeros(N_CANDIDATES), sensitivities,
                    -infinite, infinite)


def _truncated_spreads(rng: np.random.Generator) -> np.ndarray:
    """``N_[0.01, 0.7](0.5, 1)`` draws (the paper's scenarios 4 and 6)."""
    return stats.truncnorm.rvs(0.01 - 0.5, 0.7 - 0.5, loc=0.5, scale=1.0,
                               size=N_CANDIDATES, random_state=rng)


def scenario(number: int, seed: int = 0) -> Scenario:
    """Scenario 1-8 of the paper; ``seed`` fixes the random parameters of 4 and 6."""
    number = check_integer(number, "scenario", minimum=1, maximum=8)
    rng = np.random.default_rng(seed)
    half = N_CANDIDATES // 2
    first_half = np.arange(N_CANDIDATES) < half
    a = np.arange(1, N_CANDIDATES + 1)
    if number == 1:
        return _bimodal("1", "bimodal, positive correlation", first_half)
    if number == 2:
        return _bimodal("2", "bimodal, negative correlation", ~first_half)
    if number == 3:
        return _bimodal("3", "bimodal, no correlation", np.arange(N_CANDIDATES) % 2 == 0)
    if number == 4:
        return _normal_scenario("4", "N(log a, σₐ²), σₐ increasing in a", np.log(a),
                                np.sort(_truncated_spreads(rng)))
    if number == 5:
        return _normal_scenario("5", "N(0.1 a, (2.3 − 0.02 a)²)", 0.1 * a, 2.3 - 0.02 * a)
    if number == 6:
        means = rng.uniform(0.0, 1.0, N_CANDIDATES)
        return _normal_scenario("6", "N(μₐ, σₐ²), independent", means,
                                _truncated_spreads(rng))
    sd = 0.5 if number == 7 else 3.0
    base = 8.0 * np.arange(N_CANDIDATES) / N_CANDIDATES
    label = "strongly" if number == 7 else "weakly"
    return _normal_scenario(str(number), f"{label} polarised users (noise sd {sd:g})",
                            np.stack([-8.0 + base, 8.0 - base]), np.full(N_CANDIDATES, sd))


def correlation_scenario(t: float, seed: int = 0, normalised: bool = False) -> Scenario:
    """The correlation sweep of Figure 10: means ``x_a``, spreads ``(t x_a + z_a)/5 - min``
    (floored at 0.01), ``x, z ~ N(0, 1)`` drawn with ``seed``.

    ``normalised=True`` divides ``t x + z`` by ``sqrt(1 + t^2)`` (a variant, not the
    paper's formula): the spreads then have the same scale for every ``t`` while the
    correlation is unchanged; used to explain how the paper's version behaves at large t.
    """
    t = check_finite(t, "t")
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(N_CANDIDATES)
    z = rng.standard_normal(N_CANDIDATES)
    raw = (t * x + z) / 5.0 / (math.sqrt(1.0 + t * t) if normalised else 1.0)
    key = f"sweep:{t:g}" + ("/normalised" if normalised else "")
    return _normal_scenario(key, f"correlation sweep, t = {t:g}"
                            + (" (normalised spread)" if normalised else ""), x,
                            np.maximum(raw - raw.min(), SPREAD_FLOOR))


def scenario_from_key(key: str, seed: int = 0) -> Scenario:
    """``"1"`` ... ``"8"`` (:func:`scenario`) or ``"sweep:T"`` (:func:`correlation_scenario`)."""
    text = str(key).strip()
    if text.startswith("sweep:"):
        try:
            t = float(text[len("sweep:"):])
        except ValueError:
            raise InvalidArgumentError("scenario", key, "1..8 or sweep:T with a number T") \
                from None
        return correlation_scenario(t, seed)
    if text not in {str(k) for k in SCENARIOS}:
        raise InvalidArgumentError("scenario", key, "1..8 or sweep:T with a number T")
    return scenario(int(text), seed)


@dataclass(frozen=True)
class MSEPoint:
    """Mean squared error of one mechanism at one ε with its 95% confidence interval."""

    #: The mechanism: its name, one of ``optmech.heterogeneous.MECHANISM_NAMES``, or the label
    #: it was given in a dict ``{label: name}``.
    mechanism: str
    #: The privacy parameter ε of the point (> 0).
    epsilon: float
    #: Mean over the trials of the exact expected squared error ``E[(q* - q_M)^2]`` (squared units
    #: of the scores, >= 0).
    mse: float
    #: Lower end of the 95% Student-t confidence interval of ``mse`` (equal to ``mse`` for one trial
    #: or equal values).
    ci_low: float
    #: Upper end of the 95% Student-t confidence interval of ``mse`` (equal to ``mse`` for one trial
    #: or equal values).
    ci_high: float


@dataclass(frozen=True, repr=False)
class ScenarioResult(Displayed, Tabular):
    """All points of one run; ``trials`` is the number of score vectors averaged;
    :meth:`records` has one row per point (``mechanism``, ``epsilon``, ``mse``, ``ci_low``,
    ``ci_high``)."""

    #: The scenario that was run.
    scenario: Scenario
    #: Number of score vectors averaged per point (1 for a deterministic scenario, 1-3).
    trials: int
    #: One :class:`MSEPoint` per (mechanism, ε), mechanism by mechanism in the order asked for, ε in
    #: the order given.
    points: tuple[MSEPoint, ...]

    _display = ("scenario_key", "trials", "mechanisms", "epsilons")

    @property
    def scenario_key(self) -> str:
        return self.scenario.key

    @property
    def mechanisms(self) -> list[str]:
        return list(dict.fromkeys(p.mechanism for p in self.points))

    @property
    def epsilons(self) -> list[float]:
        return list(dict.fromkeys(p.epsilon for p in self.points))

    def records(self) -> list[dict]:
        return [dataclasses.asdict(p) for p in self.points]

    def curve(self, mechanism: str) -> tuple[np.ndarray, ...]:
        """``(epsilons, mse, ci_low, ci_high)`` of one mechanism, in ε order."""
        rows = sorted((p for p in self.points if p.mechanism == mechanism),
                      key=lambda p: p.epsilon)
        return tuple(np.array(v) for v in zip(*((p.epsilon, p.mse, p.ci_low, p.ci_high)
                                                  for p in rows)))

    def best(self, epsilon: float, among=None) -> str:
        """The mechanism with the smallest MSE at ``epsilon`` (among ``among``)."""
        rows = [p for p in self.points if p.epsilon == epsilon
                and (among is None or p.mechanism in among)]
        return min(rows, key=lambda p: p.mse).mechanism

    def mse(self, mechanism: str, epsilon: float) -> float:
        return next(p.mse for p in self.points
                    if p.mechanism == mechanism and p.epsilon == epsilon)


def mean_interval(values, level: float = 0.95) -> tuple[float, float, float]:
    """``(mean, low, high)``: the Student-t confidence interval of the mean of ``values``
    (scipy.stats); one value, or values all equal, give ``low = high = mean``."""
    values = np.asarray(values, dtype=float)
    mean = float(values.mean())
    sem = float(stats.sem(values)) if values.size > 1 else 0.0
    if sem == 0.0:
        return mean, mean, mean
    low, high = stats.t.interval(level, values.size - 1, loc=mean, scale=sem)
    return mean, float(low), float(high)


def squared_errors_cell(epsilon: float, mechanisms: list[str], scores: list[list[float]],
                        sensitivities: list[float]) -> list[list[float]]:
    """One sweep cell: ``E[(q* - q_M)^2]`` of each mechanism (rows) on each score vector
    (columns) at ``epsilon``; plain lists in and out, so the cell can be cached, sent to a
    process pool or to a Dask cluster (:func:`optmech.sweep.run_sweep`)."""
    d = np.asarray(sensitivities, dtype=float)
    return [[make_heterogeneous(m, epsilon).expected_squared_error(np.asarray(q), d)
             for q in scores] for m in mechanisms]


def run_estimate(trials: int, epsilons: int, mechanisms: int) -> int:
    """Bytes :func:`run_scenario` holds: per trial its scores as an array, a Python list
    and JSON text (for the cache key), and one squared error per mechanism and epsilon."""
    return trials * (N_CANDIDATES * 100 + 40 * mechanisms * epsilons)


def run_scenario(scen: Scenario, epsilons, trials: int = 100, mechanisms=MECHANISM_NAMES,
                 rng: np.random.Generator | None = None, *, workers: int = 1,
                 dask_scheduler=None, cache_dir=None) -> ScenarioResult:
    """MSE versus ε of each mechanism on ``trials`` score vectors of ``scen``.

    Each trial's contribution is the exact ``E[(q* - q_M)^2]`` from the mechanism's pmf;
    the interval is ``mean ± t_{0.975, T-1} sd/sqrt(T)`` over the ``T`` trials.  A
    deterministic scenario (1-3) is evaluated once, whatever ``trials`` says.  One cell
    per ε runs through :func:`optmech.sweep.run_sweep` (``workers``, ``dask_scheduler``,
    ``cache_dir``); every executor gives the same numbers.  ``mechanisms``: names of
    ``optmech.heterogeneous.MECHANISM_NAMES``, or a dict ``{label: name}`` whose labels
    name the points (:func:`~optmech.selection.mechanisms.labelled_mechanisms`).
    """
    epsilons = [check_finite(e, "epsilons") for e in np.atleast_1d(epsilons)]
    if not epsilons or min(epsilons) <= 0:
        raise InvalidArgumentError("epsilons", epsilons, "one or more numbers > 0")
    trials = 1 if scen.deterministic else check_integer(trials, "trials", minimum=1)
    labelled = [(label, check_choice(name, "mechanism", MECHANISM_NAMES))
                for label, name in labelled_mechanisms(mechanisms)]
    mechanisms = [name for _, name in labelled]
    require_memory(run_estimate(trials, len(epsilons), len(mechanisms)), "trials", trials)
    scores = scen.scores(trials, np.random.default_rng(rng)).tolist()
    cells = [{"epsilon": e, "mechanisms": mechanisms, "scores": scores,
              "sensitivities": scen.sensitivities.tolist()} for e in epsilons]
    per_epsilon = run_sweep(squared_errors_cell, cells, workers=workers,
                            dask_scheduler=dask_scheduler, cache_dir=cache_dir,
                            desc=f"scenario {scen.key}")
    errors = np.array(per_epsilon).transpose(1, 0, 2)   # (mechanism, epsilon, trial)
    points = tuple(MSEPoint(label, e, *mean_interval(errors[i, j]))
                   for i, (label, _) in enumerate(labelled) for j, e in enumerate(epsilons))
    return ScenarioResult(scen, trials, points)
