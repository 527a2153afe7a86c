"""The certified accountant: one (ε′, δ) for a whole run of selections, with the evidence.

A deployer runs a sequence of steps, each a mechanism at a privacy parameter, repeated
(``em:0.1:100``: the exponential mechanism at ε = 0.1, 100 times).  :class:`Accountant`
answers with three curves of the composed ``delta(eps')``:

* ``upper``: certified.  Each step is dominated by what :mod:`optmech.privacy.dominating`
  proves for its mechanism (randomised response, the bounded-range family, the Laplace pair,
  a finite family), and :mod:`optmech.privacy.adaptive` composes them in the order given,
  every step's inputs possibly chosen from the outputs before it, with a certified
  discretisation.  Nothing is assumed beyond those theorems.
* ``lower``: attained.  Each step runs its own mechanism on one explicit pair of
  neighbouring score vectors (printed), the same pair every time, and the product of those
  output distributions is composed exactly (:mod:`optmech.privacy.loss_atoms`; merging
  outputs only lowers a curve).  The true curve of the sequence lies between the two.
* ``fallbacks``: what the field's accountants report from published formulas: ``naive``
  (the sum of the ε's), ``randomised_response`` (every step as a black-box ε-DP mechanism,
  composed exactly: what ``dp_accounting``'s PLD accountant does for the exponential
  mechanism), ``zcdp`` (the sum of the published ρ bounds: ε²/8 for bounded range, Cesar and
  Rogers, arXiv:2004.07223, Lemma 3.2; ε²/2 for pure DP, Bun and Steinke, arXiv:1605.02065,
  Proposition 3.3; converted by ``eps' = rho + 2 sqrt(rho log(1/delta))``, their
  Proposition 1.3) and ``rdp`` (the sum of the published Rényi curves on
  ``dp_accounting``'s orders, converted as its RDP accountant does: bounded range
  ``min(xi + alpha ε²/8, ε)``, the Laplace curve for permute-and-flip as ``dp_accounting``
  uses it, randomised response's Rényi curve for pure DP).

The lower bound's pairs: for a selection mechanism, two candidates at scores ``(0, -g)``
against ``(-Δ, Δ - g)`` (``(0, Δ - g)`` under the add/remove relation), the gap ``g``
chosen to make the step's own composition largest at the asked δ (for the exponential
mechanism this family realises every binary bounded-range pair, so with one step kind it
gives the optimal non-adaptive composition); a pair on two candidates embeds in any number
of candidates for these mechanisms (far-below candidates are never selected), except for
randomised response, whose pair lives on ``n`` candidates.  For a top-k mechanism, ``n =
max(n, T + 1)`` candidates in a staircase.  This is a search, not a theorem: the lower
curve is attained by the pairs printed, whatever they are.

Costs (measured on a 2-core machine): 100 runs of the exponential mechanism at ε = 0.1 take
0.15 CPU s at the default resolution, 1,000 runs at 0.05 about 1.6 s, 1,000 mixed steps
(500 EM at 0.1, 300 PF at 1, 200 report-noisy-max at 0.5) 3.1 s
(``benchmarks/results/accountant_cost.md``); :func:`work_estimate` bounds them before any
work.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from lp_models.display import Displayed, Tabular
from optmech.privacy.adaptive import AZUMA_TAIL, CHUNK, HockeyStickBound, kept_nodes
from optmech.privacy.bounds import bounded_range_kl
from optmech.privacy.dominating import (
    BOUNDED_RANGE,
    FAMILY,
    GAUSSIAN,
    IDENTITY,
    RANDOMISED_RESPONSE,
    Dominance,
    gaussian_cut,
)
from optmech.privacy.fallbacks import fallbacks
from optmech.privacy.loss_atoms import LossAtoms
from optmech.progress import progress
from optmech.resources import Estimate, require
from optmech.validation import InvalidArgumentError, check_choice, check_integer

__all__ = ["MAX_CANDIDATES", "MECHANISMS", "RELATIONS", "Accountant",
           "AccountReport", "OnCandidates", "Step", "build_selection", "dominance_of",
           "grows_with_candidates", "work_estimate"]

#: The selection mechanisms a step may name (top-k and heterogeneous mechanisms come as
#: objects, or by name through a ``build`` function: the CLI's builds every one).
MECHANISMS = ("pf", "em", "rnm_laplace", "rnm_gumbel", "rnm_exponential", "rnm_gaussian", "rr",
              "uniform")
RELATIONS = ("general", "monotonic")
#: Grid nodes per ε of the smallest round, tried from the finest down until the estimated
#: work is at most :data:`AUTO_SECONDS` (second-order accurate: halving the grid moves eps'
#: by about a quarter as much as the last halving; measured at 100 runs of ε = 0.1: 2.2688,
#: 2.2548, 2.2519 at 8, 16, 32 nodes, against the attained 2.2453; at 500 runs of ε = 0.1,
#: 300 of permute-and-flip at 1 and 200 of report-noisy-max at 0.5: 203.15, 202.80, 202.72
#: at 4, 8, 16).
RESOLUTIONS = (16, 8, 4)
AUTO_SECONDS = 5.0
_LOWER_ATOMS = 1024
# ordered outcomes of a top-k pair the lower bound enumerates at most
_TOPK_OUTCOMES = 100_000
#: The most candidates a step may be certified for; the lower bound's families on ``n``
#: candidates use at most :data:`_FAMILY_CANDIDATES` of them.
MAX_CANDIDATES = 10**6
_FAMILY_CANDIDATES = 64
_LOG_TAIL = math.log(1.0 / AZUMA_TAIL)
# dp_accounting's PermuteAndFlipDpEvent: the mechanisms for which it uses the Laplace curves
_PUBLISHED_LAPLACE = ("pf", "rnm_exponential", "peel-pf", "joint-pf")


def build_selection(name: str, epsilon: float, monotonic: bool = False, top: int = 1):
    """A selection mechanism of :data:`MECHANISMS` by name (sensitivity 1): the default
    ``build`` of :meth:`Step.parse`; for ``rnm_gaussian`` the number is its noise scale
    σ, not an ε (:class:`~optmech.selection.mechanisms.GaussianNoisyMax` has none)."""
    from optmech.selection.mechanisms import GAUSSIAN_NAME, make_mechanism

    name = check_choice(name.replace("-", "_"), "mechanism", MECHANISMS)
    if name == GAUSSIAN_NAME:
        return make_mechanism(name, None, 1.0, monotonic, sigma=epsilon)
    return make_mechanism(name, epsilon, 1.0, monotonic)


def grows_with_candidates(mechanism) -> bool:
    """Whether the mechanism's guarantee depends on the number of candidates (its
    ``privacy.mu(n)``: report-noisy-max with Gaussian noise), so it must be bound to one
    (:class:`OnCandidates`)."""
    return callable(getattr(getattr(mechanism, "privacy", None), "mu", None))


class OnCandidates:
    """A mechanism whose guarantee depends on the number of candidates (report-noisy-max
    with Gaussian noise: ``privacy.mu(n)``, every pair a post-processing of ``N(0, 1)``
    against ``N(mu(n), 1)``), bound to ``n`` candidates; everything else is the
    mechanism's."""

    def __init__(self, mechanism, n: int):
        self.mechanism, self.candidates = mechanism, n
        self.mu = float(mechanism.privacy.mu(n))

    def __getattr__(self, name):
        return getattr(self.mechanism, name)

    @property
    def privacy(self):
        return self

    @property
    def dominance(self) -> tuple:
        """The μ(n)-GDP pair, one round a run."""
        return (GAUSSIAN, self.mu, 1)


@dataclass(frozen=True)
class Step:
    """``count`` runs of one mechanism object (anything with a ``privacy`` guarantee and a
    ``logpmf`` or ``pmf``; ``label``: how it was asked for, ``MECHANISM:EPS:COUNT``)."""

    #: The mechanism of every run (its ``privacy`` says what dominates it).
    mechanism: object
    #: How many times it runs, in a row.
    count: int = 1
    #: How it was asked for (``MECHANISM:EPS:COUNT``), for the report.
    label: str = ""

    def __post_init__(self):
        check_integer(self.count, "count", minimum=1, maximum=10**7)
        if not self.label:
            name = getattr(self.mechanism, "name", type(self.mechanism).__name__)
            object.__setattr__(self, "label", f"{name}:{self.epsilon:g}:{self.count}")

    @property
    def epsilon(self) -> float:
        """The ε of one run."""
        return float(getattr(self.mechanism, "epsilon", 0.0) or 0.0)

    @property
    def name(self) -> str:
        return str(getattr(self.mechanism, "name", type(self.mechanism).__name__))

    @classmethod
    def parse(cls, text: str, build=build_selection, monotonic: bool = False,
              top: int = 1) -> "Step":
        """``"em:0.1:100"``: ``count`` (default 1) runs of ``build(name, eps, monotonic,
        top)``; ``"rnm_gaussian:4:50"``: the number is the noise scale σ."""
        allowed = "MECHANISM:EPS[:COUNT], e.g. em:0.1:100 (rnm_gaussian:SIGMA[:COUNT])"
        parts = str(text).split(":")
        if len(parts) not in (2, 3):
            raise InvalidArgumentError("step", text, allowed)
        try:
            epsilon = float(parts[1])
            count = int(parts[2]) if len(parts) == 3 else 1
        except ValueError:
            raise InvalidArgumentError("step", text, allowed) from None
        if not (math.isfinite(epsilon) and 1e-9 <= epsilon <= 700):
            raise InvalidArgumentError("step", text, "an EPS (rnm_gaussian: SIGMA) in "
                                                     "[1e-9, 700]")
        if not 1 <= count <= 10**7:
            raise InvalidArgumentError("step", text, "a COUNT in [1, 10^7]")
        try:
            mechanism = build(parts[0].strip(), epsilon, monotonic, top)
        except InvalidArgumentError as error:
            if error.argument != "mechanism":
                raise
            raise InvalidArgumentError("step", text, "MECHANISM:EPS[:COUNT] with MECHANISM "
                                                     f"{error.allowed}") from None
        return cls(mechanism, count, f"{parts[0].strip()}:{epsilon:g}:{count}")

    def __str__(self) -> str:
        return self.label


def dominance_of(mechanism) -> Dominance:
    """What dominates one run of ``mechanism``, from the guarantee stated beside its code
    (``privacy.dominance``; pure ε-DP without one: randomised response); for a mechanism on a
    finite domain with a ``neighbour_pairs()`` method (the optimal lattice mechanism), the
    family of every pair of neighbours, both ways (:func:`family_of`); for repeat-and-select
    (:mod:`optmech.privacy.repeat`), randomised response at its smallest proven ε
    (``proven_epsilon()``, sharp); the Gaussian pair for a mechanism bound to its number of
    candidates (:class:`OnCandidates`).  Refused for a mechanism with no guarantee, or with
    δ > 0 unless it declares the Gaussian pair."""
    proven = getattr(mechanism, "proven_epsilon", None)
    if callable(proven) and proven() is not None and math.isfinite(proven()):
        return Dominance(RANDOMISED_RESPONSE, float(proven()))
    guarantee = getattr(mechanism, "privacy", None)
    if grows_with_candidates(mechanism):
        raise InvalidArgumentError("n", None, "the number of candidates of "
                                   f"{getattr(mechanism, 'name', mechanism)} (its guarantee "
                                   "grows with it; Accountant(..., n=N) binds it)")
    declared = getattr(guarantee, "dominance", None)
    gaussian = declared is not None and declared[0] == GAUSSIAN
    if guarantee is None or (getattr(guarantee, "delta", 1.0) != 0 and not gaussian):
        raise InvalidArgumentError("mechanism", getattr(mechanism, "name", mechanism),
                                   "a mechanism with a proven pure-DP guarantee or a "
                                   "dominating Gaussian pair")
    if callable(getattr(mechanism, "neighbour_pairs", None)):
        return family_of(mechanism)
    if declared is not None:
        kind, epsilon, rounds = declared
        return Dominance(kind, float(epsilon), int(rounds))
    if guarantee.epsilon == 0:
        return Dominance(IDENTITY, 0.0)
    return Dominance(RANDOMISED_RESPONSE, float(guarantee.epsilon))


def family_of(mechanism) -> Dominance:
    """The finite family of a mechanism on a finite domain: the atoms of every pair its
    ``neighbour_pairs()`` lists, in both directions, as rows of losses and ``P``-masses
    (duplicates dropped)."""
    scores, neighbours = mechanism.neighbour_pairs()
    scores, neighbours = np.asarray(scores, dtype=float), np.asarray(neighbours, dtype=float)
    rows = {}
    logs_p, logs_q = _log_rows(mechanism, scores), _log_rows(mechanism, neighbours)
    for lp, lq in zip(logs_p, logs_q):
        for a, b in ((lp, lq), (lq, lp)):
            atoms = LossAtoms.of(np.minimum(a, 0.0), np.minimum(b, 0.0))
            key = tuple(np.round(np.concatenate([atoms.losses, atoms.log_p]), 12))
            rows[key] = atoms
    width = max(a.size for a in rows.values())
    losses = np.zeros((len(rows), width))
    masses = np.zeros((len(rows), width))
    for i, atoms in enumerate(rows.values()):
        losses[i, :atoms.size] = atoms.losses
        masses[i, :atoms.size] = np.exp(atoms.log_p)
    return Dominance(FAMILY, float(mechanism.privacy.epsilon), family=(losses, masses),
                     origin=f"every pair of neighbours of {getattr(mechanism, 'name', '')}")


# --- the certified upper curve ------------------------------------------------------------

def _rounds(steps) -> list[tuple[Dominance, int]]:
    """The steps in time order as (dominance of one round, rounds in a row)."""
    out = []
    for step in steps:
        d = dominance_of(step.mechanism)
        if d.kind != IDENTITY:
            out.append((d, step.count * d.rounds))
    return out


def _azuma(rounds) -> tuple[float, float, float]:
    """Sums over the rounds of the mean-loss bound, the squared loss range and the largest
    loss, for the windows of the steps not yet composed (:mod:`optmech.privacy.adaptive`;
    a pure-DP pair's loss spans ``2 ε`` and its mean is at most randomised response's; the
    Gaussian pair's finite loss is sub-Gaussian with proxy ``(μ + h)² <= (3μ/2)²`` on a grid
    of at least two nodes per μ, at most ``cut + h``, mean about ``μ²/2``)."""
    mean = variance = largest = 0.0
    for d, count in rounds:
        eps = d.epsilon
        if d.kind == BOUNDED_RANGE:
            mean += count * bounded_range_kl(eps)
            variance += count * eps ** 2
        elif d.kind == GAUSSIAN:
            mean += count * eps * eps / 2.0
            variance += count * 9.0 * eps * eps
            largest += count * (gaussian_cut(eps) + eps / 2.0)
            continue
        else:
            mean += count * eps * math.tanh(eps / 2.0)
            variance += count * (2.0 * eps) ** 2
        largest += count * eps
    return mean, variance, largest


def _base_grid(epsilons, resolution: int) -> float:
    """The finest grid step: at most the smallest ε over ``resolution``, and a divisor of
    every ε where their ratios are simple fractions (then the atoms of randomised response and
    of the Laplace pair sit on nodes and the spread onto the grid costs nothing at them;
    measured at ε = 0.3, h = 0.07: 0.007 above the Laplace curve, against 3e-5 at h =
    0.03)."""
    smallest = min(epsilons) / resolution
    common = None
    for eps in epsilons:
        ratio = Fraction(eps / max(epsilons)).limit_denominator(1000)
        if abs(float(ratio) * max(epsilons) - eps) > 1e-12 * eps:
            return smallest
        common = ratio if common is None else Fraction(
            math.gcd(common.numerator * ratio.denominator, ratio.numerator * common.denominator),
            common.denominator * ratio.denominator)
    step = float(common) * max(epsilons)
    step /= math.ceil(step / smallest * (1 - 1e-12))
    return step if step >= smallest / 4 else smallest


def _round_grid(base: float, epsilon: float, resolution: int, aligned: bool) -> float:
    """The grid of a round at ``epsilon``: ``base`` times the largest power of two that keeps
    at least ``resolution`` nodes per ε (a power of two: regridding keeps nodes) and, when
    ``aligned``, ε on a node."""
    power = max(0, int(math.floor(math.log2(max(epsilon / (resolution * base), 1.0)) + 1e-9)))
    nodes = epsilon / base
    if aligned and abs(nodes - round(nodes)) < 1e-9 * nodes:
        while power and round(nodes) % 2 ** power:
            power -= 1
    return base * 2 ** power


@dataclass(frozen=True)
class _Group:
    """``count`` rounds in a row of one dominance on one grid, in backward order, with what
    the composition and its estimate need: the spread pair of a fixed round, the squared
    ranges of the rounds before them in time."""

    dominance: Dominance
    count: int
    step: float
    fixed: object            # FixedStep, or None for a bounded-range round or a family
    earlier_variance: float  # of the rounds before this group, in time
    round_variance: float


def _plan(steps, resolution: int, build: bool = True) -> list[_Group]:
    """The composition's groups, last in time first (:func:`_upper` and
    :func:`work_estimate` both walk them; the estimate with ``build`` false: no spread pair
    is built, so nothing is allocated before the budget check)."""
    rounds = _rounds(steps)
    base = _base_grid([d.epsilon for d, _ in rounds] or [1.0], resolution)
    plan, cache = [], {}
    for i in range(len(rounds) - 1, -1, -1):
        d, count = rounds[i]
        h = _round_grid(base, d.epsilon, resolution, d.kind != BOUNDED_RANGE)
        fixed = None
        if build and d.kind not in (BOUNDED_RANGE, FAMILY):
            if (d.kind, d.epsilon, h) not in cache:
                cache[(d.kind, d.epsilon, h)] = d.fixed_step(h)
            fixed = cache[(d.kind, d.epsilon, h)]
        plan.append(_Group(d, count, h, fixed, _azuma(rounds[:i])[1], _azuma([(d, 1)])[1]))
    return plan


def plan_of(accountant, delta: float | None = 1e-6) -> list[_Group]:
    """The groups of rounds the accountant composes at ``delta`` (its resolution), last in
    time first: for the exports, which compose the same pairs on the same grids."""
    return _plan(accountant.steps, accountant.resolution_for(delta))


def _window(group: _Group, done: int, reach: float) -> float:
    """How far up the bound must be stored after ``done + 1`` rounds of ``group``: the
    largest ``eps'`` wanted plus what the rounds before it can shift the budget by
    (Azuma-Hoeffding, their means are >= 0)."""
    earlier = group.earlier_variance + (group.count - done - 1) * group.round_variance
    return reach + math.sqrt(earlier * _LOG_TAIL / 2.0)


# CPU seconds per node and piece of a bounded-range round, and per node, and per node and
# tap, of a fixed round (np.convolve: a short kernel, randomised response's or Laplace's 35
# taps, costs about 4 ns a tap, a Gaussian pair's hundreds about 0.3 ns), upper estimates
# on a loaded 2-core machine (measured: 11-14 ns and under 1 ns on an idle core, 20-28 ns
# and 1-2 ns beside three busy processes); peak bytes per node kept: 210 for a
# bounded-range round up to CHUNK nodes and 40 beyond, 44 for a fixed round (tracemalloc:
# 152-192 and 36-42), plus 8 KiB; a fixed round's spread pair while it is built: 64 bytes
# a tap (eight arrays of its span).
_SECONDS_PER_PIECE, _SECONDS_PER_ROUND = 40e-9, 4e-5
_SECONDS_PER_FIXED_NODE, _SECONDS_PER_TAP = 130e-9, 0.5e-9
# and building a fixed round's spread pair (1.5 us a tap measured: a Gaussian pair's
# thousands on a fine grid)
_SECONDS_PER_TAP_BUILT = 4e-6
_BYTES_PER_NODE = (210.0, 40.0, 44.0)
_BYTES_PER_TAP = 64.0


def work_estimate(steps, resolution: int = RESOLUTIONS[0], reach: float = math.inf
                  ) -> Estimate:
    """CPU seconds and peak bytes of :func:`_upper`, before it runs (naming ``step``): the
    nodes each round keeps, from the plan the computation itself follows, times the pieces
    of a bounded-range round (:func:`_pieces`) or the taps of a fixed one (one a node of its
    span, ``2 ε``, or both cuts of a Gaussian pair; constants above).  Nothing
    is built: a span of 10^13 nodes is refused here, not allocated."""
    seconds, peak = 0.0, 0.0
    mean = variance = largest = 0.0
    for group in _plan(steps, resolution, build=False):
        h, d = group.step, group.dominance
        m1, v1, l1 = _azuma([(d, 1)])
        taps = 0.0
        if d.kind == FAMILY:
            work = d.family[0].size * _SECONDS_PER_PIECE
        elif d.kind == BOUNDED_RANGE:
            work = _pieces(d.epsilon, h) * _SECONDS_PER_PIECE
        else:
            taps = 2.0 * (gaussian_cut(d.epsilon) if d.kind == GAUSSIAN else d.epsilon) / h
            taps += 3.0
            work = _SECONDS_PER_FIXED_NODE + taps * _SECONDS_PER_TAP
            seconds += taps * _SECONDS_PER_TAP_BUILT
        peak = max(peak, taps * _BYTES_PER_TAP)
        block = max(1, group.count // 64)      # the window grows with the rounds done
        for done in range(block - 1, group.count + block - 1, block):
            k = min(block, group.count - (done - block + 1))
            done = min(done, group.count - 1)
            mean, variance, largest = mean + k * m1, variance + k * v1, largest + k * l1
            nodes = kept_nodes(h, mean, variance, largest, _window(group, done, reach))
            seconds += k * (nodes * work + _SECONDS_PER_ROUND)
            bytes_ = (_BYTES_PER_NODE[0] * min(nodes, CHUNK)
                      + _BYTES_PER_NODE[1] * max(nodes - CHUNK, 0)
                      if d.kind in (BOUNDED_RANGE, FAMILY) else _BYTES_PER_NODE[2] * nodes)
            peak = max(peak, bytes_)
    return Estimate(seconds, peak + 2**13, "step", len(steps))


def _pieces(epsilon: float, h: float) -> int:
    """How many breakpoints :func:`~optmech.privacy.adaptive.pieces` has, without building
    them: the nodes ``j h`` and ``ε - j h`` in ``[0, ε]``, one set when ``ε`` is on a node."""
    m = int(math.floor(epsilon / h + 1e-9))
    return m + 1 if abs(epsilon / h - round(epsilon / h)) < 1e-9 * max(1.0, epsilon / h) \
        else 2 * (m + 1)


def _upper(steps, resolution: int, reach: float) -> HockeyStickBound:
    """The certified bound on ``delta`` of the whole sequence (module docstring)."""
    plan = _plan(steps, resolution)
    bound = HockeyStickBound.terminal(plan[-1].step if plan else 1.0)
    with progress(total=sum(g.count for g in plan), desc="composing rounds") as bar:
        for group in plan:
            bound = bound.regrid(group.step) if bound.step != group.step else bound
            d = group.dominance
            for done in range(group.count):
                window = _window(group, done, reach)
                if d.kind == FAMILY:
                    bound = bound.apply_family(*d.family, window)
                elif group.fixed is None:
                    bound = bound.apply_bounded_range(d.epsilon, window)
                else:
                    bound = bound.apply_fixed(group.fixed, window)
                bar.update(1)
    return bound


# --- the attained lower curve -------------------------------------------------------------

@dataclass(frozen=True)
class _Pair:
    scores: np.ndarray
    neighbour: np.ndarray
    atoms: LossAtoms


def _log_rows(mechanism, rows: np.ndarray) -> np.ndarray:
    """``log Pr[M(row) = output]`` for each row: the mechanism's batch ``logpmf`` (every
    selection and top-k mechanism takes a 2-D array), else its ``pmf`` row by row."""
    logpmf = getattr(mechanism, "logpmf", None)
    with np.errstate(divide="ignore"):
        if callable(logpmf):
            try:
                return np.atleast_2d(np.asarray(logpmf(rows), dtype=float))
            except InvalidArgumentError:
                pass                                # a logpmf of one vector only
            return np.array([np.asarray(logpmf(r), dtype=float) for r in rows])
        return np.log(np.array([np.asarray(mechanism.pmf(r), dtype=float) for r in rows]))


def _pairs_on(mechanism, rows, others) -> list[_Pair]:
    rows, others = np.array(rows), np.array(others)
    logs_p, logs_q = _log_rows(mechanism, rows), _log_rows(mechanism, others)
    return [_Pair(q, o, LossAtoms.of(np.minimum(lp, 0.0), np.minimum(lq, 0.0)))
            for q, o, lp, lq in zip(rows, others, logs_p, logs_q)]


def _moved(q: np.ndarray, move: np.ndarray, monotonic: bool) -> np.ndarray:
    """The neighbour: every score moved by ``move`` (only the upward moves, add/remove)."""
    return q + (np.maximum(move, 0.0) if monotonic else move)


def _candidate_pairs(step: Step, n: int) -> list[_Pair]:
    """Explicit pairs for the step's lower bound (module docstring): gaps on a geometric grid
    in units of one round's exponent, scores of sensitivity 1."""
    from optmech.selection.mechanisms import RandomizedResponse

    mechanism = step.mechanism
    d = dominance_of(mechanism)
    monotonic = bool(getattr(mechanism, "monotonic", False))
    if d.kind == IDENTITY:
        return [_Pair(np.zeros(2), np.zeros(2), LossAtoms.of([0.0], [0.0]))]
    if d.kind == FAMILY:                      # a finite domain: its own pairs, both ways
        scores, neighbours = mechanism.neighbour_pairs()
        return (_pairs_on(mechanism, scores, neighbours)
                + _pairs_on(mechanism, neighbours, scores))
    unit = max(d.epsilon, 1e-300) / (1 if monotonic else 2)
    top = getattr(mechanism, "top", None)
    if top is not None:                              # a top-k mechanism: T-tuples out
        size = max(n, top + 1)
        if math.perm(size, top) > _TOPK_OUTCOMES:
            # no explicit pair within exact enumeration: the step is left out of the lower
            # curve (an identity pair: leaving a step out can only lower a composed curve)
            return [_Pair(np.zeros(0), np.zeros(0), LossAtoms.of([0.0], [0.0]))]
        move = np.where(np.arange(size) < top, -1.0, 1.0)
        rows = [-g * np.arange(size, dtype=float) for g in np.geomspace(0.05, 20.0, 24) / unit]
        return _pairs_on(mechanism, rows, [_moved(q, move, monotonic) for q in rows])
    gaps = np.concatenate([-np.geomspace(20.0, 0.02, 20), [0.0], np.geomspace(0.02, 20.0, 40)])
    size = n if isinstance(mechanism, RandomizedResponse) else 2
    rows = [np.concatenate([[0.0, -g], np.full(size - 2, -g - 1.0)]) for g in gaps / unit]
    move = np.concatenate([[-1.0], np.ones(size - 1)])
    pairs = _pairs_on(mechanism, rows, [_moved(q, move, monotonic) for q in rows])
    n = min(n, _FAMILY_CANDIDATES)
    if n > 2 and not isinstance(mechanism, RandomizedResponse):
        # one against the rest and a staircase, on n candidates
        rows = ([np.concatenate([[0.0], np.full(n - 1, -g)]) for g in gaps[20:] / unit]
                + [-g * np.arange(n, dtype=float) for g in gaps[21:] / unit])
        move = np.concatenate([[-1.0], np.ones(n - 1)])
        pairs += _pairs_on(mechanism, rows, [_moved(q, move, monotonic) for q in rows])
        if d.kind == GAUSSIAN:
            # half the candidates down, half up (the Gaussian pair's worst direction): two
            # levels, and a staircase (at n = 20, sigma = 4, 50 runs: 15.1 -> 21.9)
            half = np.where(np.arange(n) < n // 2, -1.0, 1.0)
            rows = ([np.where(half < 0, 0.0, -g) for g in gaps[20:] / unit]
                    + [-g * np.arange(n, dtype=float) for g in gaps[21:] / unit])
            pairs += _pairs_on(mechanism, rows, [_moved(q, half, monotonic) for q in rows])
    return pairs


def _screen(pairs: list[_Pair], count: int, delta: float, keep: int = 3) -> list[_Pair]:
    """The two-atom pairs, and the ``keep`` larger ones whose normal approximation of the
    composed loss, ``count mu + sqrt(2 count var log(1/delta))``, is largest (composing an
    n-outcome pair exactly costs a thousand times more)."""
    binary = [p for p in pairs if p.atoms.size <= 2]
    others = [p for p in pairs if p.atoms.size > 2]
    if len(others) <= keep:
        return binary + others

    def score(pair):
        best = -math.inf
        for atoms in (pair.atoms, pair.atoms.reversed()):
            loss = atoms.losses
            finite = np.isfinite(loss)
            p = np.exp(atoms.log_p[finite])
            mu = float((p * loss[finite]).sum())
            var = float((p * (loss[finite] - mu) ** 2).sum())
            best = max(best, count * mu + math.sqrt(2 * count * var * math.log(1 / delta)))
        return best

    return binary + sorted(others, key=score, reverse=True)[:keep]


def _coarsened(atoms: LossAtoms, limit: int) -> LossAtoms:
    """At most ``limit`` atoms by merging neighbours in loss (a post-processing: every curve
    can only go down, so a lower bound stays one)."""
    if atoms.size <= limit:
        return atoms
    loss = atoms.losses
    finite = np.isfinite(loss)
    lo, hi = loss[finite].min(), loss[finite].max()
    width = (hi - lo) / (limit - 2) if hi > lo else 1.0
    bins = np.where(finite, np.floor((np.where(finite, loss, lo) - lo) / width), -1.0)
    bins = np.where(np.isposinf(loss), limit, bins)
    order = np.argsort(bins, kind="stable")
    bins = bins[order]
    starts = np.flatnonzero(np.concatenate([[True], np.diff(bins) != 0]))

    def merge(logs):
        values = logs[order]
        top_ = np.maximum.reduceat(values, starts)
        safe = np.where(np.isfinite(top_), top_, 0.0)
        with np.errstate(divide="ignore"):
            return np.log(np.add.reduceat(np.exp(values - np.repeat(
                safe, np.diff(np.append(starts, values.size)))), starts)) + safe

    return LossAtoms(merge(atoms.log_p), merge(atoms.log_q))


def _composed(pair: _Pair, count: int) -> LossAtoms:
    atoms = pair.atoms
    if atoms.size <= 2:
        return atoms.power(count) if atoms.size == 2 else atoms
    result, base = None, atoms
    while count:
        if count & 1:
            result = base if result is None else _coarsened(result.product(base), _LOWER_ATOMS)
        count >>= 1
        if count:
            base = _coarsened(base.product(base), _LOWER_ATOMS)
    return result


def _atoms_delta(atoms: LossAtoms, eps_prime) -> np.ndarray:
    """``delta(eps')``, the larger of the two directions."""
    return np.maximum(atoms.delta(eps_prime), atoms.reversed().delta(eps_prime))


def _one_direction_epsilon(atoms: LossAtoms, delta: float) -> float:
    """The largest ``eps' >= 0`` with ``delta(eps') >= delta`` in this direction: ``delta``
    at every loss ``l_j`` by the recurrence ``D_j = (1 - e^-(l_{j+1} - l_j)) A_j +
    e^-(l_{j+1} - l_j) D_{j+1}`` (``A_j``: the ``P``-mass above ``l_j``; only positive
    terms), then ``A - e^eps' B = delta`` solved on the interval where it crosses."""
    loss, p = atoms.losses, np.exp(atoms.log_p)
    keep = np.isfinite(loss) & (p > 0)
    infinite = float(p[np.isposinf(loss)].sum())
    loss, p = loss[keep], p[keep]
    if infinite >= delta or not loss.size:
        return 0.0 if infinite < delta else math.inf
    above = np.concatenate([np.cumsum(p[::-1])[::-1][1:], [0.0]])      # A_j
    curve = np.empty(loss.size)
    curve[-1] = 0.0
    for j in range(loss.size - 2, -1, -1):
        decay = math.exp(loss[j] - loss[j + 1])
        curve[j] = (1.0 - decay) * above[j] + decay * curve[j + 1]
    curve += infinite
    at = np.flatnonzero(curve >= delta)
    j = int(at[-1]) if at.size else -1        # the crossing is on (l_j, l_{j+1}]
    start = float(loss[j]) if j >= 0 else -math.inf
    # there: delta(e) = A - e^e B over the atoms above l_j, B their Q-mass
    mass = p[j + 1:]
    a = float(mass.sum()) + infinite
    b = float((mass * np.exp(-loss[j + 1:])).sum())
    root = math.log((a - delta) / b) if b > 0 and a > delta else start
    return max(0.0, start, root - 1e-12 * max(1.0, abs(root)))


def _atoms_epsilon(atoms: LossAtoms, delta: float) -> float:
    """The largest ``eps' >= 0`` with ``delta(eps') >= delta``, the larger of the two
    directions (0 if none)."""
    return max(_one_direction_epsilon(atoms, delta),
               _one_direction_epsilon(atoms.reversed(), delta))


def _published(steps) -> list[tuple]:
    """``(published kind, ε, count[, Rényi curve])`` of every round, for the fallbacks
    (:mod:`optmech.privacy.fallbacks`): bounded range where it is, the Laplace curve where
    ``dp_accounting`` uses it (permute-and-flip), the Gaussian mechanism's at μ, pure DP
    otherwise; repeat-and-select at its published ε, with its published Rényi curve."""
    out = []
    for step in steps:
        d = dominance_of(step.mechanism)
        if d.kind == IDENTITY:
            continue
        rdp = getattr(step.mechanism, "proven_rdp", None)
        if callable(rdp):
            out.append(("pure", _published_epsilon(step.mechanism), step.count, rdp))
            continue
        kind = ("bounded-range" if d.kind == BOUNDED_RANGE
                else "gaussian" if d.kind == GAUSSIAN
                else "laplace" if step.name.replace("_", "-") in
                [m.replace("_", "-") for m in _PUBLISHED_LAPLACE] else "pure")
        out.append((kind, d.epsilon, step.count * d.rounds))
    return out


def _black_box(steps) -> list[tuple[float, int]] | None:
    """``(ε, runs)`` of every private step as a black-box ε-DP mechanism (its published ε),
    or None when a step is not pure DP (a Gaussian one): the naive and randomised-response
    fallbacks do not apply."""
    out = []
    for step in steps:
        kind = dominance_of(step.mechanism).kind
        if kind == GAUSSIAN:
            return None
        if kind != IDENTITY:
            out.append((_published_epsilon(step.mechanism), step.count))
    return out


def _scale(step: Step) -> float:
    """A step's share of a composed ``eps'`` for choosing its lower pair: its rounds' ε (μ
    for a Gaussian round, whose ``eps'`` at moderate δ is a few μ)."""
    d = dominance_of(step.mechanism)
    return d.epsilon * d.rounds * step.count


def _published_epsilon(mechanism) -> float:
    """The ε its published guarantee states (the whole run's; for repeat-and-select the
    literature's, not the base's)."""
    guarantee = getattr(mechanism, "privacy", None)
    return float(guarantee.epsilon if guarantee is not None else mechanism.epsilon)


# --- the report ---------------------------------------------------------------------------

@dataclass(frozen=True, repr=False)
class AccountReport(Displayed, Tabular):
    """The accountant's answer (:meth:`Accountant.report`); ``records()`` is one row per
    curve (upper, lower, each fallback) with its ε′ at the asked δ.  :attr:`payload` is the
    JSON of ``optmech privacy account --json`` (keys ``upper``, ``lower``, ``steps``,
    ``fallbacks``, ``saving``)."""

    #: The JSON object (schema ``optmech.privacy.account/1``).
    payload: dict
    _display = ("steps", "delta", "epsilon", "lower_epsilon")

    @property
    def steps(self) -> list[str]:
        """The steps, ``MECHANISM:EPS:COUNT``."""
        return [s["step"] for s in self.payload["steps"]]

    @property
    def delta(self) -> float | None:
        """The δ asked (None when only ε′ values were)."""
        return self.payload.get("delta")

    @property
    def epsilon(self) -> float | None:
        """The certified ε′ at the asked δ (None when no δ was asked)."""
        return self.payload["upper"].get("eps")

    @property
    def lower_epsilon(self) -> float | None:
        """The ε′ attained by the explicit pairs at the asked δ."""
        return self.payload["lower"].get("eps")

    def records(self) -> list[dict]:
        p = self.payload
        rows = [{"curve": "upper (certified)", "eps": p["upper"].get("eps")},
                {"curve": "lower (attained)", "eps": p["lower"].get("eps")}]
        rows += [{"curve": f"fallback: {name}", "eps": value.get("eps")}
                 for name, value in p["fallbacks"].items()]
        return rows


def _pair_payload(pair: _Pair, step: Step) -> dict:
    if not pair.scores.size:
        return {"step": str(step), "scores": [], "neighbour": [],
                "note": "no explicit pair within exact enumeration: left out of the lower "
                        "curve"}
    return {"step": str(step), "scores": pair.scores.tolist(),
            "neighbour": pair.neighbour.tolist()}


def _step_payload(step: Step, relation: str) -> dict:
    d = dominance_of(step.mechanism)
    gaussian = d.kind == GAUSSIAN
    # a Gaussian step has no ε (it is not pure DP): its μ and zCDP ρ instead
    pure = ({"mu": d.epsilon, "rho": d.epsilon ** 2 / 2.0} if gaussian else
            {"eps": step.epsilon, "round_eps": d.epsilon})
    return {"step": str(step), "mechanism": step.name, "count": step.count,
            "rounds": d.rounds, **pure,
            "dominating": d.kind, "theorem": d.statement,
            "papers": [{"title": p.title, "authors": p.authors, "arxiv": p.arxiv,
                        "where": p.where or None} for p in d.papers],
            "adaptive": d.adaptive, "relation": relation}


class Accountant:
    """A sequence of steps on the same data and the neighbouring relation they share
    (module docstring).

    ``steps``, in time order: :class:`Step` objects, ``(mechanism, count)`` pairs (any
    mechanism object with a ``privacy`` guarantee and a ``logpmf`` or ``pmf``: selection,
    top-k, heterogeneous with its sensitivities bound, your own), or
    ``MECHANISM:EPS[:COUNT]`` strings built by ``build(name, eps, monotonic, top)`` (by
    default the selection mechanisms of :data:`MECHANISMS`, sensitivity 1);
    ``relation``: ``"general"`` (every score moves by at most Δ) or ``"monotonic"``
    (add/remove of a record: all scores move the same way), which every mechanism must be
    calibrated for; ``top``: the T of top-k steps given by name; ``n``: the number of
    candidates (default 2): the lower bound's pairs live on them (a pair on two candidates
    embeds in more, except for randomised response; the families on ``n`` candidates use
    at most 64), and a step whose guarantee grows with it (report-noisy-max with Gaussian
    noise: ``privacy.mu(n)``) is certified for at most ``n`` candidates, so it needs ``n``
    given; ``resolution``: grid nodes per ε of the smallest round (None: the finest
    of :data:`RESOLUTIONS` estimated to take at most :data:`AUTO_SECONDS`).
    """

    def __init__(self, steps, relation: str = "general", top: int = 1, n: int | None = None,
                 resolution: int | None = None, build=build_selection):
        self.relation = check_choice(relation, "relation", RELATIONS)
        self.top = check_integer(top, "top", minimum=1, maximum=64)
        self.n = check_integer(2 if n is None else n, "n", minimum=2, maximum=MAX_CANDIDATES)
        self.resolution = (None if resolution is None else
                           check_integer(resolution, "resolution", minimum=2, maximum=4096))
        monotonic = self.relation == "monotonic"
        if isinstance(steps, (str, Step)):
            steps = [steps]
        parsed = []
        for s in steps:
            if isinstance(s, str):
                s = Step.parse(s, build, monotonic, self.top)
            elif isinstance(s, tuple):
                s = Step(*s)
            elif not isinstance(s, Step):
                s = Step(s)
            if grows_with_candidates(s.mechanism):
                if n is None:
                    raise InvalidArgumentError("n", None, f"the number of candidates of {s} "
                                               "(its guarantee grows with it)")
                s = Step(OnCandidates(s.mechanism, self.n), s.count, s.label)
            if bool(getattr(s.mechanism, "monotonic", False)) != monotonic \
                    and dominance_of(s.mechanism).kind != IDENTITY:
                raise InvalidArgumentError("step", str(s), f"a mechanism calibrated for the "
                                                           f"{self.relation} relation")
            parsed.append(s)
        if not parsed:
            raise InvalidArgumentError("steps", steps, "at least one MECHANISM:EPS[:COUNT]")
        self.steps = tuple(parsed)

    def __repr__(self) -> str:
        return (f"Accountant({[str(s) for s in self.steps]!r}, relation={self.relation!r}, "
                f"n={self.n})")

    def to_dp_accounting(self, value_discretization_interval: float = 1e-4):
        """The sequence as one ``dp_accounting`` PLD, to compose with other events there
        (:func:`~optmech.privacy.accounting.account_to_dp_accounting`)."""
        from optmech.privacy.accounting import account_to_dp_accounting

        return account_to_dp_accounting(self, value_discretization_interval)

    def _reach(self, delta: float | None, eps_prime) -> float:
        """An ``eps'`` beyond which no answer lies: the largest ``eps'`` asked, and at the
        asked δ the Azuma-Hoeffding bound on the whole sequence (itself an upper bound)."""
        mean, variance, largest = _azuma(_rounds(self.steps))
        reach = max(eps_prime, default=0.0)
        if delta is not None:
            reach = max(reach, min(largest, mean + math.sqrt(variance * math.log(1 / delta)
                                                              / 2.0)))
        return reach + 1.0

    def resolution_for(self, delta: float | None = 1e-6, eps_prime=()) -> int:
        """The grid resolution used: the one given, or the finest of :data:`RESOLUTIONS`
        estimated to take at most :data:`AUTO_SECONDS`."""
        if self.resolution is not None:
            return self.resolution
        reach = self._reach(delta, [float(e) for e in eps_prime])
        for resolution in RESOLUTIONS:
            if work_estimate(self.steps, resolution, reach).seconds <= AUTO_SECONDS:
                return resolution
        return RESOLUTIONS[-1]

    def estimate(self, delta: float | None = 1e-6, eps_prime=()) -> Estimate:
        """What :meth:`upper` costs before it runs (:func:`work_estimate`), naming
        ``step``."""
        eps_prime = [float(e) for e in eps_prime]
        return work_estimate(self.steps, self.resolution_for(delta, eps_prime),
                             self._reach(delta, eps_prime))

    def upper(self, delta: float | None = 1e-6, eps_prime=()) -> HockeyStickBound:
        """The certified bound on the composed ``delta(eps')`` (callable on ``eps'``;
        ``.epsilon(delta)`` inverts it), refused up front beyond the budgets.  ``delta`` and
        ``eps_prime`` only say how far the curve must be tight (beyond, the
        Azuma-Hoeffding bound stands in)."""
        eps_prime = [float(e) for e in np.atleast_1d(np.asarray(eps_prime, dtype=float))]
        require(self.estimate(delta, eps_prime))
        if not _rounds(self.steps):
            return HockeyStickBound.terminal(1.0)
        return _upper(self.steps, self.resolution_for(delta, eps_prime),
                      self._reach(delta, eps_prime))

    def lower(self, delta: float | None = 1e-6, eps_prime: float | None = None
              ) -> tuple[LossAtoms, list]:
        """The attained lower curve: the composed atoms of one explicit pair per step, and the
        pairs (module docstring).  Steps of one mechanism share a pair; each pair is the
        worst of its candidates for its steps' own composition at ``delta``, or (with
        ``delta`` None) at ``eps_prime`` times their share of the sum of the ε's."""
        groups: dict = {}
        for step in self.steps:
            groups[step.mechanism] = groups.get(step.mechanism, 0) + step.count
        total_scale = sum(_scale(Step(m, c)) for m, c in groups.items()) or 1.0
        chosen, total = {}, None
        for mechanism, count in groups.items():
            step = Step(mechanism, count)
            target = None if delta is not None else eps_prime * (_scale(step) / total_scale)
            best = None
            for pair in _screen(_candidate_pairs(step, self.n), count, delta or 1e-6):
                composed = _composed(pair, count)
                score = (_atoms_epsilon(composed, delta) if delta is not None
                         else float(_atoms_delta(composed, [target])[0]))
                if best is None or score > best[0]:
                    best = (score, pair, composed)
            chosen[mechanism] = best[1]
            total = best[2] if total is None else _coarsened(total.product(best[2]),
                                                             _LOWER_ATOMS)
        return total, [chosen[s.mechanism] for s in self.steps]

    def report(self, delta: float | None = 1e-6, eps_prime=None) -> AccountReport:
        """The certified upper curve, the attained lower curve, the fallbacks and the saving
        (module docstring), at ``delta`` (report ε′) and on ``eps_prime`` (report δ; default
        41 points from 0 to twice the certified ε′, at most the sum of the ε's)."""
        if delta is not None and not 0.0 < float(delta) < 1.0:
            raise InvalidArgumentError("delta", delta, "a number in (0, 1)")
        asked = None if eps_prime is None else [float(e) for e in np.atleast_1d(eps_prime)]
        if asked is not None and (not asked or min(asked) < 0
                                  or not all(map(math.isfinite, asked))):
            raise InvalidArgumentError("eps_prime", eps_prime, "finite numbers >= 0")
        if delta is None and asked is None:
            raise InvalidArgumentError("delta", None, "a number in (0, 1), or eps' values")
        largest = _azuma(_rounds(self.steps))[2]        # the largest finite loss
        bound = self.upper(delta, asked or ())
        upper_eps = None if delta is None else bound.epsilon(delta)
        grid = asked if asked is not None else list(np.linspace(
            0.0, min(largest, 2.0 * max(upper_eps or 0.0, 1e-3)), 41))
        if delta is not None:
            atoms, pairs = self.lower(delta)
            lower_curve = _atoms_delta(atoms, grid)
        else:                      # each eps' asked with the pairs chosen for it
            profiles = [self.lower(None, e) for e in grid]
            lower_curve = np.array([_atoms_delta(a, [e])[0] for (a, _), e in
                                    zip(profiles, grid)])
            atoms, pairs = profiles[0]
        lower_eps = None if delta is None else _atoms_epsilon(atoms, delta)
        black_box = _black_box(self.steps)
        fallback = fallbacks(
            _published(self.steps), black_box, delta, grid,
            lambda: Accountant([(build_selection("rr", e), c) for e, c in black_box],
                               resolution=self.resolution).upper(delta, grid))
        for value in fallback.values():
            value["delta"] = {"eps_prime": grid, "delta": value["delta"]}
        # every fallback is a certified curve too: the upper curve is the smallest of all
        upper_curve = bound(grid)
        method = "adaptive composition of the dominating pairs (optmech.privacy.adaptive)"
        for value in fallback.values():
            upper_curve = np.minimum(upper_curve, value["delta"]["delta"])
        saving = None
        if delta is not None:
            name, best = min(((k, v["eps"]) for k, v in fallback.items()),
                             key=lambda item: item[1])
            if best < upper_eps:
                upper_eps, method = best, f"the {name} fallback (at or below the adaptive " \
                                          "composition here)"
            saving = {"fallback": name, "eps": best, "absolute": best - upper_eps,
                      "relative": (best - upper_eps) / best if best > 0 else 0.0}
        payload = {
            "relation": self.relation, "top": self.top, "n": self.n, "delta": delta,
            "steps": [_step_payload(s, self.relation) for s in self.steps],
            "upper": {"eps": upper_eps,
                      "delta": {"eps_prime": grid, "delta": upper_curve.tolist()},
                      "method": method, "adaptive": True, "order": "as given",
                      "resolution": self.resolution_for(delta, asked or ()),
                      "grid_step": bound.step},
            "lower": {"eps": lower_eps,
                      "delta": {"eps_prime": grid, "delta": lower_curve.tolist()},
                      "adaptive": False, "n": self.n,
                      "pairs_at": ({"delta": delta} if delta is not None
                                   else {"eps_prime": grid[0]}),
                      "pairs": [_pair_payload(p, s) for p, s in zip(pairs, self.steps)]},
            "fallbacks": fallback, "saving": saving}
        return AccountReport(payload)
