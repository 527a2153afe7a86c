"""Top-k selection on the DPBench histograms: Shekelyan & Loukides' evaluation and
Gillenwater et al.'s error metrics.

Papers: M. Shekelyan and G. Loukides, *Differentially Private Top-k Selection via Canonical
Lipschitz Mechanism*, arXiv:2201.13376 ("S&L"); J. Gillenwater, M. Joseph, A. Muñoz Medina
and M. Ribero Diaz, *A Joint Exponential Mechanism for Differentially Private Top-k*, ICML
2022, arXiv:2201.12333.  Neither paper prints the numbers of its experiments in a table:
both plot them.  The evaluations are therefore rebuilt from the authors' code, and each row
says what matches in shape or is new.

**S&L's evaluation** (github.com/shekelyan/dptopk, eval.py at c4c0c62, its ``-a 4``
comparison): on each histogram (HEPTH, INCOME, MEDCOST, NETFLIX, PATENT, SEARCHLOGS: the
files optmech ships are byte-identical to theirs) and for k = 10 and 100, the probability
that the selected set is TOP-k (exactly the k highest sorted positions), GREAT-k (holds the
first ``ceil(k/10)`` positions, nothing beyond position ``1.1 k``) or GOOD-k (the first
``ceil(k/100)``, nothing beyond ``1.5 k``), against epsilon, for add/remove of a record.
Here: the canonical Lipschitz mechanism exactly (its classes, as their
``probsCanonicalGumbel``), peeling EM's Pr[TOP-k] exactly (one integral, below) and its
GREAT/GOOD by Monte Carlo (one-shot Gumbel, the same distribution), and, new, peeling PF
and joint EM by Monte Carlo.  Their canonical ``gamma = 1`` variant and their one-shot
exponential-noise mechanism are not implemented in optmech.  Their figures mark how much
less epsilon the best mechanism needs (arrows "x N"); the row checked here is that the
canonical mechanism reaches Pr[TOP-k] = 1/2 at a smaller epsilon than peeling EM, with the
factor.  ADULTFRANK (not in their evaluation) is a new row.

**Gillenwater et al.'s metrics** (google-research ``dp_topk/run_experiment.py``: T = 5, 15,
..., 195, epsilon = 1, add/remove, 50 trials, quartiles of the l_inf, l_1 and k-relative
errors): their datasets (books, foods, games, movies, news, tweets) are not shipped, so this
is the same experiment on the DPBench histograms, every row new; it adds S&L's
canonical mechanism and joint PF, and uses pure-DP peeling EM (their "cdp peel" is
approximate DP).  The S&L probabilities at epsilon = 1 come from the same samples.

Peeling EM's Pr[TOP-k].  The one-shot Gumbel form returns the set S of the top k exactly
when the smallest noisy score in S beats the largest outside; the latter is Gumbel with
location ``L = log sum_{j not in S} e^{z_j}``, and with ``w = e^{L - M}`` (exponential
with rate 1) the probability is ``E_w[prod_{i in S} (1 - exp(-w e^{z_i - L}))]``, a smooth
one-dimensional integral (``scipy.integrate.quad``, absolute error below 1e-10; the tests
check it against the exact pmf at small sizes).

Quick mode: HEPTH and SEARCHLOGS at k = 10 (8 epsilons, 200 draws per Monte Carlo point);
the sweep on HEPTH at T = 5, 55, 105 with 10 trials.  Full mode: the seven histograms, k =
10 and 100 (14 epsilons, 1000 draws for peeling EM, 400 for peeling PF and joint EM), and
the sweep at all 20 values of T with 50 trials.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from optmech.data.datasets import load_histogram
from optmech.figures.topk import error_sweep_figure, utility_class_figure
from optmech.progress import progress
from optmech.reproduce import Result, claim_result, median_interval, new_result, sampled_text
from optmech.topk.mechanisms import make_topk_mechanism
from optmech.topk.samplers import canonical_log_weights
from optmech.topk.utilities import error_rows

AREA = "topk"
SL = "Shekelyan & Loukides 2022 (arXiv:2201.13376)"
SL_CODE = f"{SL}, their evaluation (github.com/shekelyan/dptopk eval.py at c4c0c62)"
GJMR = "Gillenwater et al. 2022 (arXiv:2201.12333)"
GJMR_CODE = f"{GJMR}, their experiment (google-research dp_topk/run_experiment.py)"
SL_DATASETS = ("HEPTH", "INCOME", "MEDCOST", "NETFLIX", "PATENT", "SEARCHLOGS")
NEW_DATASETS = ("ADULTFRANK",)
CLASSES = ("TOP", "GREAT", "GOOD")
SWEEP_TOPS = tuple(range(5, 205, 10))
SWEEP_EPSILON = 1.0
SWEEP_MECHANISMS = ("gumbel", "peel-pf", "joint-em", "joint-pf", "canonical-lipschitz")
MEASURES = {"l_inf": "l_inf error", "l1": "l_1 error", "k_relative": "k-relative error"}
# (histogram, k) whose bins tie across position k (ADULTFRANK, k = 100: 4014 bins at 0)
TIED = frozenset({("ADULTFRANK", 100)})


def _sl_cells(quick: bool) -> list[tuple[str, int]]:
    """The (histogram, k) of S&L's comparison."""
    datasets = ("HEPTH", "SEARCHLOGS") if quick else SL_DATASETS + NEW_DATASETS
    return [(d, k) for d in datasets for k in ((10,) if quick else (10, 100))]


def _sweep_datasets(quick: bool) -> tuple[str, ...]:
    return ("HEPTH",) if quick else SL_DATASETS + NEW_DATASETS


def _keys(quick: bool) -> frozenset[str]:
    """The rows' keys of a quick or a full run."""
    keys = {"sl-canonical-beats-peeling", "gillenwater-joint-vs-peel-pf"}
    if not quick:
        keys.add("sl-factor-grows-with-k")
    for name, k in _sl_cells(quick):
        keys |= ({f"sl-not-evaluated-{name.lower()}-k{k}"} if (name, k) in TIED else
                 {f"sl-half-epsilon-{name.lower()}-k{k}", f"sl-classes-{name.lower()}-k{k}"})
    for name in _sweep_datasets(quick):
        keys |= {f"sweep-median-{m}-{name.lower()}" for m in MEASURES}
        keys.add(f"sweep-classes-{name.lower()}")
    return frozenset(keys)


KEYS = _keys(quick=False) | _keys(quick=True)
FULL_ONLY_KEYS = KEYS - _keys(quick=True)
SL_FIGURE, SWEEP_FIGURE = "topk_sl_classes.png", "topk_gillenwater_sweep.png"


def class_bounds(k: int) -> dict[str, tuple[int, int]]:
    """``{class: (h, t)}``: a set is in the class (or a better one) when it holds the first
    ``h`` sorted positions and nothing beyond position ``t`` (1-based); S&L's
    ``utilityclasses``."""
    return {"TOP": (k, k), "GREAT": (math.ceil(0.1 * k), int(1.1 * k)),
            "GOOD": (math.ceil(0.01 * k), int(1.5 * k))}


def class_probabilities_of_draws(positions: np.ndarray, k: int) -> np.ndarray:
    """Pr[TOP], Pr[GREAT or better], Pr[GOOD or better] of drawn sets, given as the sorted
    positions (0-based) of their members, one draw per row."""
    positions = np.sort(positions, axis=1)
    leading = np.cumprod(positions == np.arange(k), axis=1).sum(axis=1)   # h
    last = positions[:, -1] + 1                                           # t, 1-based
    return np.array([((leading >= h) & (last <= t)).mean()
                     for h, t in class_bounds(k).values()])


def canonical_class_probabilities(x: np.ndarray, k: int, exponent: float,
                                  parts: tuple | None = None) -> np.ndarray:
    """The same three probabilities for the canonical Lipschitz mechanism, exactly: the
    weights of its classes ``(h, t)`` summed over the classes inside each bound (S&L's
    ``utilityclassProbs``); ``x`` sorted in decreasing order.  ``parts``: the classes' log
    sizes and losses (:func:`canonical_parts`), when the caller computed them once."""
    log_sets, loss = canonical_parts(x, k) if parts is None else parts
    weights = log_sets - exponent * loss
    top = max(0.0, float(weights.max()))
    w = np.exp(weights - top)
    total = math.exp(-top) + w.sum()
    h = np.arange(k)[:, None]
    t = np.arange(k, x.size)[None, :] + 1
    return np.array([(math.exp(-top) + w[(h >= lead) & (t <= last)].sum()) / total
                     for lead, last in class_bounds(k).values()])


def canonical_parts(x: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The log number of sets of each canonical class ``(h, t)`` and its loss
    ``x_h - x_t`` (the class weight is ``log sets - exponent * loss``)."""
    log_sets = canonical_log_weights(x, k, 0.0)
    loss = x[:k, None] - x[None, k:]
    return log_sets, loss


def peeling_top_probability(x: np.ndarray, k: int, exponent: float) -> float:
    """Pr[peeling EM returns the first k sorted positions] (module docstring); ``x`` sorted
    in decreasing order."""
    from scipy import integrate

    z = exponent * (x - x[0])
    outside = z[k:]
    if outside.size == 0:
        return 1.0
    location = outside.max() + math.log(np.exp(outside - outside.max()).sum())
    # log rates, capped where a factor 1 - exp(-w e^r) is 1 for every w the integral sees
    log_rates = np.minimum(z[:k] - location, 700.0)

    def integrand(w: float) -> float:
        return math.exp(-w + np.log(-np.expm1(-np.exp(math.log(w) + log_rates))).sum())

    value, _ = integrate.quad(integrand, 0.0, np.inf, epsabs=1e-12, limit=200)
    return float(value)


def _crossing(probability, level: float, low: float = 1e-9, high: float = 1e9) -> float:
    """The epsilon where an increasing ``probability(epsilon)`` reaches ``level`` (bisection
    on log epsilon; the callers' Pr[TOP-k] tends to 1 when no tie crosses position k)."""
    for _ in range(40):
        middle = math.sqrt(low * high)
        low, high = (middle, high) if probability(middle) < level else (low, middle)
    return math.sqrt(low * high)


def _positions(q: np.ndarray) -> np.ndarray:
    """The sorted position (0-based, decreasing score, ties by index) of each candidate."""
    return np.argsort(np.argsort(-q, kind="stable"), kind="stable")


def _sl_dataset(name: str, k: int, points: int, draws: dict, seed: int):
    """Curves and the TOP-1/2 crossings of one histogram and k; ``sampled[mechanism]``:
    the draws behind each of its three probabilities (0 where exact)."""
    q = load_histogram(name).astype(float)
    x = -np.sort(-q)
    rank = _positions(q)
    canonical = make_topk_mechanism("canonical-lipschitz", 1.0, k, monotonic=True)
    peel = make_topk_mechanism("peel-em", 1.0, k, monotonic=True)
    parts = canonical_parts(x, k)
    # exponents for epsilon = 1 (both are linear in epsilon)
    top_c = _crossing(lambda e: canonical_class_probabilities(
        x, k, e * canonical.exponent, parts)[0], 0.5)
    top_p = _crossing(lambda e: peeling_top_probability(x, k, e * peel.exponent), 0.5)
    epsilons = math.sqrt(top_c * top_p) * np.logspace(-1.5, 1.5, points)
    curves = {"canonical-lipschitz": np.array([canonical_class_probabilities(
        x, k, e * canonical.exponent, parts) for e in epsilons])}
    for name_, count in draws.items():
        probabilities = []
        for i, e in enumerate(epsilons):
            sample = make_topk_mechanism(name_, e, k, monotonic=True).sample(
                q, size=count, rng=seed + i)
            probabilities.append(class_probabilities_of_draws(rank[sample], k))
        curves["peel-em" if name_ == "gumbel" else name_] = np.array(probabilities)
    curves["peel-em"][:, 0] = [peeling_top_probability(x, k, e * peel.exponent)
                               for e in epsilons]
    sampled = {"canonical-lipschitz": (0, 0, 0)}
    sampled.update({("peel-em" if m == "gumbel" else m): (count,) * 3
                    for m, count in draws.items()})
    sampled["peel-em"] = (0, *sampled["peel-em"][1:])      # Pr[TOP] by the integral
    return epsilons, curves, top_c, top_p, sampled


def _probabilities_text(probabilities, draws) -> str:
    """Class probabilities, each exact (``0.968``) or sampled from ``draws`` draws with its
    99% interval (:func:`~optmech.reproduce.sampled_text`)."""
    return ", ".join(f"{p:.3f}" if count == 0 else sampled_text(round(p * count), count)
                     for p, count in zip(probabilities, draws))


def _draws_text(sampled: dict) -> str:
    """How the probabilities of a row were obtained, by mechanism."""
    exact = [m for m, counts in sampled.items() if not any(counts)]
    parts = [f"{', '.join(exact)} exact"] if exact else []
    parts += [f"{m}: " + ("Pr[TOP] exact, the others " if counts[0] == 0 else "")
              + f"{max(counts)} draws" for m, counts in sampled.items() if any(counts)]
    return "; ".join(parts) + "; 99% intervals"


def _sl_results(quick: bool, out: Path) -> list[Result]:
    points = 8 if quick else 14
    draws = {"gumbel": 200} if quick else {"gumbel": 1000, "peel-pf": 400, "joint-em": 400}
    results, figure, factors = [], {}, {}
    jobs = _sl_cells(quick)
    for index, (name, k) in enumerate(progress(jobs, desc="S&L classes")):
        where = f"{name}, k = {k}"
        source = SL_CODE if name in SL_DATASETS else "optmech (S&L's evaluation)"
        x = -np.sort(-load_histogram(name).astype(float))
        if x[k - 1] == x[k]:
            tied, above = int((x == x[k - 1]).sum()), int((x > x[k - 1]).sum())
            results.append(new_result(
                AREA, f"{where}: not evaluated", f"{tied} bins tie at {x[k - 1]:g} across "
                f"position k: S&L's classes call TOP-k only the first k sorted positions, one "
                f"of C({tied}, {k - above}) tied top-k sets, so every mechanism's Pr[TOP-k] "
                "is near 0 whatever epsilon", source=source,
                key=f"sl-not-evaluated-{name.lower()}-k{k}"))
            continue
        epsilons, curves, top_c, top_p, sampled = _sl_dataset(name, k, points, draws,
                                                              1000 * index)
        figure[(name, k)] = {m: (epsilons, c[:, 0], c[:, 2]) for m, c in curves.items()}
        factors[(name, k)] = top_p / top_c
        results.append(new_result(
            AREA, f"{where}: epsilon where Pr[TOP-k] = 1/2 (add/remove, exact)",
            f"canonical {top_c:.4g}, peeling EM {top_p:.4g} (peeling needs "
            f"{top_p / top_c:.3g}x the epsilon)", SL_FIGURE, source,
            key=f"sl-half-epsilon-{name.lower()}-k{k}"))
        at = len(epsilons) // 2
        results.append(new_result(
            AREA, f"{where}: Pr[TOP, GREAT, GOOD] at eps = {epsilons[at]:.4g} "
            f"({_draws_text(sampled)})",
            "; ".join(f"{m}: " + _probabilities_text(c[at], sampled[m])
                      for m, c in curves.items()), SL_FIGURE, source,
            key=f"sl-classes-{name.lower()}-k{k}"))
    theirs = {key: f for key, f in factors.items() if key[0] in SL_DATASETS}
    lagging = [f"{d}, k = {k}" for (d, k), f in theirs.items() if f <= 1]
    results.append(claim_result(
        AREA, "the canonical Lipschitz mechanism reaches Pr[TOP-k] = 1/2 at a smaller epsilon "
        "than peeling EM on each of S&L's histograms (exact probabilities)", SL_CODE,
        "canonical needs less epsilon than peeling (their figures' 'x N' arrows; the "
        "abstract's 'substantial utility improvements')",
        "; ".join(f"{d} k={k}: x{f:.3g}" for (d, k), f in theirs.items()), not lagging,
        "it does not on " + ", ".join(lagging), SL_FIGURE, key="sl-canonical-beats-peeling"))
    if not quick:
        grows = [d for d in SL_DATASETS if (d, 10) in theirs and (d, 100) in theirs
                 and theirs[(d, 100)] > theirs[(d, 10)]]
        results.append(claim_result(
            AREA, "the epsilon saved by the canonical mechanism grows from k = 10 to k = 100 "
            "on each of S&L's histograms", f"{SL}, abstract", "an Omega(log k) improvement "
            "of the utility guarantee over sequential composition",
            "; ".join(f"{d}: x{theirs[(d, 10)]:.3g} -> x{theirs[(d, 100)]:.3g}"
                      for d in SL_DATASETS if (d, 10) in theirs and (d, 100) in theirs),
            len(grows) == len(SL_DATASETS),
            "it does not grow on " + ", ".join(d for d in SL_DATASETS if d not in grows)
            + " (the abstract's Omega(log k) is about a worst-case guarantee, not these data)",
            SL_FIGURE, key="sl-factor-grows-with-k"))
    utility_class_figure(out / SL_FIGURE, figure)
    return results


def _sweep(name: str, tops, trials: int, seed: int):
    """Quartiles of each error measure with a 99% interval for the median
    (:func:`~optmech.reproduce.median_interval`), and S&L's class probabilities, per
    mechanism and T."""
    q = load_histogram(name).astype(float)
    rank = _positions(q)
    errors = {m: {measure: [] for measure in MEASURES} for m in SWEEP_MECHANISMS}
    medians = {m: {measure: [] for measure in MEASURES} for m in SWEEP_MECHANISMS}
    classes = {m: [] for m in SWEEP_MECHANISMS}
    for i, top in enumerate(tops):
        for j, mechanism_name in enumerate(SWEEP_MECHANISMS):
            mechanism = make_topk_mechanism(mechanism_name, SWEEP_EPSILON, top, monotonic=True)
            sample = mechanism.sample(q, size=trials, rng=seed + 100 * i + j)
            for measure in MEASURES:
                values = error_rows(q[None], sample, measure, mechanism.ordered)[0]
                errors[mechanism_name][measure].append(np.quantile(values, [0.25, 0.5, 0.75]))
                medians[mechanism_name][measure].append(median_interval(values))
            classes[mechanism_name].append(class_probabilities_of_draws(rank[sample], top))
    return ({m: {measure: np.array(v) for measure, v in e.items()} for m, e in errors.items()},
            {m: {measure: np.array(v) for measure, v in e.items()} for m, e in medians.items()},
            {m: np.array(c) for m, c in classes.items()})


def _sweep_results(quick: bool, out: Path) -> list[Result]:
    datasets = _sweep_datasets(quick)
    tops = (5, 55, 105) if quick else SWEEP_TOPS
    trials = 10 if quick else 50
    results, sweep, wins = [], {}, {m: 0 for m in ("joint-em", "peel-pf")}
    for index, name in enumerate(progress(datasets, desc="T sweep")):
        errors, medians, classes = _sweep(name, tops, trials, 10_000 * index)
        sweep[name] = {("peel-em" if m == "gumbel" else m): e for m, e in errors.items()}
        shown = [0, len(tops) // 2, len(tops) - 1]
        for measure, label in MEASURES.items():
            results.append(new_result(
                AREA, f"{name}: median {label} at T = "
                + ", ".join(str(tops[s]) for s in shown) + f" (eps = {SWEEP_EPSILON:g}, "
                f"add/remove, {trials} trials; 99% intervals of the median)",
                "; ".join(f"{'peel-em' if m == 'gumbel' else m}: " + " / ".join(
                    f"{errors[m][measure][s, 1]:.4g} [{medians[m][measure][s, 0]:.4g}, "
                    f"{medians[m][measure][s, 1]:.4g}]" for s in shown) for m in errors),
                SWEEP_FIGURE, GJMR_CODE, key=f"sweep-median-{measure}-{name.lower()}"))
        results.append(new_result(
            AREA, f"{name}: S&L's Pr[TOP, GREAT, GOOD] at T = {tops[0]}, eps = "
            f"{SWEEP_EPSILON:g} ({trials} trials; 99% intervals)",
            "; ".join(f"{'peel-em' if m == 'gumbel' else m}: "
                      + ", ".join(sampled_text(round(p * trials), trials, 2) for p in c[0])
                      for m, c in classes.items()),
            SWEEP_FIGURE, SL_CODE, key=f"sweep-classes-{name.lower()}"))
        joint = errors["joint-em"]["l_inf"][:, 1]
        peel = errors["peel-pf"]["l_inf"][:, 1]
        wins["joint-em"] += int((joint < peel).sum())
        wins["peel-pf"] += int((peel < joint).sum())
    cells = len(datasets) * len(tops)
    results.append(new_result(
        AREA, "joint EM against pure-DP peeling PF, median l_inf error over the (histogram, T) "
        f"cells ({len(datasets)} histograms x {len(tops)} values of T): cells where each is "
        "smaller (the papers' data differ: their claim that joint EM beats the pure-DP "
        "baselines is not tested here)",
        f"joint-em {wins['joint-em']}, peel-pf {wins['peel-pf']}, tied "
        f"{cells - wins['joint-em'] - wins['peel-pf']} of {cells}", SWEEP_FIGURE, GJMR_CODE,
        key="gillenwater-joint-vs-peel-pf"))
    error_sweep_figure(out / SWEEP_FIGURE, sweep, tops, MEASURES, SWEEP_EPSILON)
    return results


def run(quick: bool, out: Path) -> list[Result]:
    out = Path(out)
    return _sl_results(quick, out) + _sweep_results(quick, out)
