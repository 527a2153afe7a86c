"""Exact, vectorised samplers of the top-T mechanisms, fast at DPBench sizes (n = 17770).

Every sampler takes one validated score vector and returns ``count`` outputs as an
``int64`` array of shape ``(count, T)``, in memory-bounded blocks of draws
(:func:`optmech.selection.samplers.row_blocks`).

* Peeling (:func:`sample_peeling`): T rounds, each an exponential mechanism (Gumbel race)
  or permute-and-flip (exponential race) on the candidates not yet taken, for a whole block
  of draws at once.  Only *near* candidates (log weight at most 40 below ``z_(T)``, the
  T-th largest, measured as ``exponent * (q_(T) - q_r)``) take part in the race; the
  others stay exact through their count, as in :mod:`optmech.selection.samplers`: for
  EM they are one competitor of weight
  ``F e^{cut}`` whose win proposes a uniform far candidate, accepted with probability
  ``e^{z_r - cut}`` (rejection: the round is drawn again); for PF a far candidate can win
  only with noise above 40, and the number that have it is ``Binomial(F, e^{-40})``
  (memorylessness gives their noise).  Cost per draw ``O(T x near)``.  Every draw is T
  distinct candidates, each of positive probability, at any finite exponent and scores
  (the frames of the races: :func:`sample_peeling`).
* One-shot Gumbel (:func:`sample_one_shot_gumbel`): the top T of ``z + Gumbel`` in
  decreasing order of the noisy value, ``O(n)`` per draw (argpartition), or the peeling
  race when one frame cannot hold the scores' differences; Durfee & Rogers,
  *Practical Differentially Private Top-k Selection with Pay-what-you-get Composition*,
  NeurIPS 2019, arXiv:1905.04273, show it has the distribution of peeling EM.
* Joint EM and joint PF (:class:`JointClasses`, :func:`sample_joint`): Gillenwater et al.'s
  sampler (arXiv:2201.12333).  The ``T x n`` differences ``D[i, j] = c_(i) - c_(j)`` of the
  sorted scores, put in one total order (by value, then the later row first, then the
  column, so that ``D`` increases along rows and decreases down columns), split the
  ordered outputs into classes: an output belongs to the entry ``(i, s_i)`` that is largest
  in the order, so its utility is ``-D[i, j]``.  The class of entry ``(i, j)`` holds
  ``prod_{r != i} (n_r - r)`` outputs, ``n_r`` the number of row-r entries before it
  (the rows' prefixes are nested); the log counts are one running sum over the order,
  accumulated in extended precision.  Classes of equal utility are pooled into levels.  A
  draw picks a level (EM: by its weight ``count e^{-a D}``; PF: report-noisy-max with
  exponential noise, each level's noise the largest of ``count`` exponentials, drawn by
  inverting its cdf ``(1 - e^{-x})^count``, as google-research's ``dp_topk/joint.py``
  ``sample_max_expo_distribution`` does per class), a class of the level in proportion to
  its count, and an output of the class uniformly, row by row (the u-th candidate of a
  prefix not yet taken, found by one vectorised count per row).  Set-up ``O(nT log(nT))``
  once per call, then ``O(T^2)`` per draw for EM and ``O(levels)`` for PF (levels: at most
  the spread of integer scores plus one; 13 ms per draw on NETFLIX, n = 17770, T = 195).
* Canonical Lipschitz (:func:`sample_canonical`): Shekelyan & Loukides' classes
  ``(h, t)`` of sets (the first h sorted positions, not position h, position t last, the
  other ``T - h - 1`` members among positions ``h+1 .. t-1``: ``C(t-h-1, T-h-1)`` sets of
  loss ``x_h - x_t``), and the top set; a class by its weight, then its free members by
  ``Generator.choice`` and the order uniformly at random (the mechanism releases a set).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from optmech.selection.samplers import row_blocks

__all__ = ["FAR", "ONE_SHOT_SPAN", "JointClasses", "canonical_log_weights", "joint_classes",
           "peeling_frame", "sample_canonical", "sample_joint", "sample_one_shot_gumbel",
           "sample_peeling"]

#: Candidates whose log weight is at least this far below the T-th largest take part in the
#: peeling races only through their count (module docstring).
FAR = 40.0
#: Largest log-weight gap between the top and the T-th largest score that the one-shot
#: Gumbel sampler draws in one frame (:func:`sample_one_shot_gumbel`).
ONE_SHOT_SPAN = 2.0**20


def _descending(scores: np.ndarray) -> np.ndarray:
    """The candidates in decreasing order of score (stable: ties by index)."""
    return np.argsort(-scores, kind="stable")


# --- peeling ---------------------------------------------------------------------------

def peeling_frame(scores: np.ndarray, exponent: float, top: int):
    """``(q_(T), below, one_frame)``: the T-th largest score, each candidate's log-weight
    gap below it ``exponent * (q_(T) - q_r)`` (<= 0 for the top T, inf past the double
    range), and whether one frame relative to the top score holds every difference a
    race compares (the top at most :data:`ONE_SHOT_SPAN` above the T-th largest)."""
    kth = np.partition(scores, scores.size - top)[scores.size - top]
    with np.errstate(over="ignore"):
        return (kth, exponent * (kth - scores),
                bool(exponent * (scores.max() - kth) <= ONE_SHOT_SPAN))


def sample_peeling(scores: np.ndarray, exponent: float, top: int, count: int,
                   rng: np.random.Generator, race: str, far_below: float = FAR) -> np.ndarray:
    """``count`` draws of T rounds of the exponential mechanism (``race="em"``) or
    permute-and-flip (``race="pf"``) with log weights ``exponent * scores`` (a candidate
    taken in one round leaves the race).  ``far_below`` (> 0) sets the far candidates, at
    least that far in log weight below the T-th largest; any value gives the same
    distribution.

    The near and far candidates are told apart by the gap to the T-th largest score,
    ``exponent * (q_(T) - q_r) > far_below``: a cut ``z_(T) - 40`` is ``z_(T)`` itself once
    ``|z_(T)| > 2^58``, which made the T-th candidate far and let a round pick a taken
    candidate again.  The races are written relative to the top score while the T-th
    largest is within :data:`ONE_SHOT_SPAN` of it (every log weight a round compares is
    then within ``2^-31`` of exact); beyond it each round is written relative to the best
    score left in its row, ``exponent * (q_r - max_left q)``, because the difference of a
    score to a far larger one is rounded to the larger one's precision (``1 - 1e19`` is
    ``-1e19``), which tied candidates a later round must tell apart (measured at n = 4096,
    T = 195, peeling PF: 4.8 ms a draw in one frame, 11 ms with a frame per round)."""
    kth, below, one_frame = peeling_frame(scores, exponent, top)
    is_far = below > far_below
    near, far = np.flatnonzero(~is_far), np.flatnonzero(is_far)
    with np.errstate(over="ignore"):
        frame = exponent * (scores[near] - scores.max())
    noise = rng.gumbel if race == "em" else rng.standard_exponential
    out = np.empty((count, top), dtype=np.int64)
    for block in row_blocks(count, near.size):
        size = block.stop - block.start
        taken = np.zeros((size, near.size), dtype=bool)
        far_taken = [[] for _ in range(size)] if far.size else []
        best_score = np.full(size, scores.max())
        for t in range(top):
            if one_frame:
                values = frame + noise(size=taken.shape)
            else:
                # a top-T candidate is always left (at most t < T are taken), so every
                # row's best score is finite and at least the T-th largest
                best_score = np.where(taken, -np.inf, scores[near]).max(axis=1)
                with np.errstate(over="ignore"):
                    values = exponent * (scores[near] - best_score[:, None])
                values += noise(size=taken.shape)
            values[taken] = -np.inf
            pick = values.argmax(axis=1)
            best = values[np.arange(size), pick]
            chosen = near[pick]
            rounds = _FarRound(scores, exponent, kth, below, far_below, near, far, best_score)
            for i, winner in rounds.winners(race, taken, far_taken, best, rng):
                chosen[i] = winner
            is_near = ~is_far[chosen]
            taken[np.flatnonzero(is_near), np.searchsorted(near, chosen[is_near])] = True
            for i in np.flatnonzero(~is_near):
                far_taken[i].append(int(chosen[i]))
            out[block.start:block.stop, t] = chosen
    return out


@dataclass(frozen=True)
class _FarRound:
    """One round of a block of peeling draws, seen from its far candidates (their log
    weights are at least ``far_below`` below the T-th largest, ``below > far_below``).  A
    row's log weights are relative to its best score left, ``exponent * (q - best_score)``.
    """

    scores: np.ndarray
    exponent: float
    kth: float
    below: np.ndarray
    far_below: float
    near: np.ndarray
    far: np.ndarray
    best_score: np.ndarray

    def log_weight(self, candidates, row: int):
        """``exponent * (q - best_score)`` of ``candidates`` in ``row``'s frame (-inf when
        the product leaves the double range)."""
        with np.errstate(over="ignore"):
            return self.exponent * (self.scores[candidates] - self.best_score[row])

    def cuts(self) -> np.ndarray:
        """Each row's bound on a far log weight: the T-th largest's, less ``far_below``."""
        with np.errstate(over="ignore"):
            return self.exponent * (self.kth - self.best_score) - self.far_below

    def winners(self, race, taken, far_taken, best, rng):
        """``(row, winner)`` for the rows of a block whose round a far candidate may win
        (rare: about ``F e^{-far_below}`` per round), each drawn exactly from the round's
        own race (plain Python on the few far candidates)."""
        if not self.far.size:
            return
        left = self.far.size - np.array([len(f) for f in far_taken])
        if race == "pf":
            # far candidates with noise above far_below (memoryless: far_below + Exp(1));
            # the others stay below the T-th largest's log weight, which is at most the
            # best near value (a top-T candidate is left)
            lucky = rng.binomial(left, math.exp(-self.far_below))
            for i in np.flatnonzero(lucky):
                far_left = [f for f in self.far.tolist() if f not in far_taken[i]]
                picked = [far_left[k] for k in rng.choice(len(far_left), lucky[i],
                                                          replace=False)]
                values = (self.log_weight(picked, i) + self.far_below
                          + rng.standard_exponential(len(picked)))
                if values.max() > best[i]:
                    yield i, picked[int(values.argmax())]
            return
        # EM: the far candidates race as one competitor of weight F e^cut; when it wins, a
        # uniform far proposal r is accepted with probability e^(z_r - cut)
        # = e^(far_below - below_r), else the round restarts
        cuts = self.cuts()
        with np.errstate(divide="ignore"):
            lump = np.log(left) + cuts + rng.gumbel(size=left.size)
        for i in np.flatnonzero(lump > best):
            far_left = [f for f in self.far.tolist() if f not in far_taken[i]]
            near_left = self.near[~taken[i]]
            while True:
                proposal = far_left[int(rng.integers(len(far_left)))]
                if rng.random() < math.exp(self.far_below - self.below[proposal]):
                    yield i, proposal
                    break
                weights = np.append(self.log_weight(near_left, i),
                                    math.log(len(far_left)) + cuts[i])
                k = int(np.argmax(weights + rng.gumbel(size=weights.size)))
                if k < near_left.size:
                    yield i, int(near_left[k])
                    break


def sample_one_shot_gumbel(scores: np.ndarray, exponent: float, top: int, count: int,
                           rng: np.random.Generator) -> np.ndarray:
    """``count`` draws of the top T of ``exponent * scores + Gumbel`` (one noise draw per
    candidate), in decreasing order of the noisy value.

    One frame, ``z = exponent * (q - max q)``, serves every comparison when the T-th
    largest is at most :data:`ONE_SHOT_SPAN` below the top (each ``z`` a draw compares is
    then within ``2^-31`` of exact); beyond it a single frame rounds away differences a
    draw must see (``exponent = 1``, scores ``1e19, 1000, 0``: ``z`` ties the last two,
    whose order is in fact certain), and the draws come from the peeling race
    (:func:`sample_peeling`, one frame per round), which has the same distribution."""
    if not peeling_frame(scores, exponent, top)[2]:
        return sample_peeling(scores, exponent, top, count, rng, "em")
    n = scores.size
    with np.errstate(over="ignore"):
        log_weights = exponent * (scores - scores.max())
    n = log_weights.size
    out = np.empty((count, top), dtype=np.int64)
    for block in row_blocks(count, n):
        values = log_weights + rng.gumbel(size=(block.stop - block.start, n))
        if top < n:
            best = np.argpartition(-values, top - 1, axis=1)[:, :top]
        else:
            best = np.broadcast_to(np.arange(n), values.shape)
        ranked = np.argsort(-np.take_along_axis(values, best, axis=1), axis=1)
        out[block] = np.take_along_axis(best, ranked, axis=1)
    return out


# --- joint mechanisms ------------------------------------------------------------------

@dataclass(frozen=True)
class JointClasses:
    """The classes of ordered outputs of one score vector for the joint samplers (module
    docstring); arrays over the entries ``(i, j)`` of ``D`` in their total order."""

    #: The candidate at each sorted position (decreasing score, ties by index).
    order: np.ndarray
    #: Row ``i`` (output position) of each entry, in the total order.
    row: np.ndarray
    #: Column ``j`` (sorted position of the candidate) of each entry, in the total order.
    column: np.ndarray
    #: ``D[i, j] = c_(i) - c_(j)``: minus the utility of the entry's outputs.
    diff: np.ndarray
    #: Natural log of the number of outputs in each entry's class (``-inf``: none).
    log_count: np.ndarray
    #: ``position[i, j]``: where entry ``(i, j)`` stands in the total order.
    position: np.ndarray


def joint_classes(scores: np.ndarray, top: int) -> JointClasses:
    """The entries of ``D`` in their total order with their class sizes (module
    docstring)."""
    order = _descending(scores)
    c = scores[order]
    n = c.size
    diff = (c[:top, None] - c[None, :]).ravel()
    rows = np.repeat(np.arange(top), n)
    columns = np.tile(np.arange(n), top)
    sequence = np.lexsort((columns, -rows, diff))
    rows, columns, diff = rows[sequence], columns[sequence], diff[sequence]
    # row r's factor n_r - r: unfilled (no factor yet) until its entry (r, r) is passed;
    # after entry (r, j), j > r, it grows from j - r to j + 1 - r
    above = columns > rows
    with np.errstate(divide="ignore"):
        own = np.where(above, np.log(np.maximum(columns - rows, 1)), 0.0)
    step = np.where(above, np.log1p(1.0 / np.maximum(columns - rows, 1)), 0.0)
    before = np.cumsum(step.astype(np.longdouble)) - step
    unfilled = top - (np.cumsum(columns == rows) - (columns == rows))
    alone = unfilled - (columns <= rows) == 0          # every other row has a factor
    log_count = np.where(alone & (columns >= rows), (before - own).astype(float), -np.inf)
    position = np.empty(top * n, dtype=np.int64)
    position[rows * n + columns] = np.arange(top * n)
    return JointClasses(order, rows, columns, diff, log_count, position.reshape(top, n))


def _max_exponential(log_count: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """The largest of ``e^log_count`` i.i.d. standard exponentials, for each entry of a 2-D
    ``log_count``: the inverse of the cdf ``(1 - e^-x)^m`` at a uniform ``U``,
    ``-log(1 - U^(1/m))``, written through ``y = log(-log U) - log m`` so that huge counts
    lose nothing."""
    y = np.log(-np.log(rng.random(log_count.shape))) - log_count
    t = np.exp(y)
    small = y < -20.0                # -log(1 - e^-t) = -y + t/2 + O(t^2)
    with np.errstate(divide="ignore"):
        exact = -np.log(-np.expm1(-np.where(small, 1.0, t)))
    return np.where(small, -y + t / 2.0, exact)


def sample_joint(classes: JointClasses, exponent: float, count: int,
                 rng: np.random.Generator, race: str) -> np.ndarray:
    """``count`` draws of the joint exponential mechanism (``race="em"``) or joint
    permute-and-flip (``race="pf"``) with log weights ``exponent * u``.

    Classes of equal utility are pooled first (outputs of equal utility are equally likely,
    and the largest of ``m_1`` and of ``m_2`` exponentials is the largest of ``m_1 + m_2``):
    a draw picks a utility level (EM: by its weight; PF: its noise the largest of its
    count's exponentials), then a class of that level with probability proportional to its
    count, then an output of the class.  For integer scores the levels are at most the
    spread of the scores plus one, whatever ``n`` and T."""
    live = np.flatnonzero(np.isfinite(classes.log_count))
    diff, log_count = classes.diff[live], classes.log_count[live]
    starts = np.flatnonzero(np.r_[True, diff[1:] != diff[:-1]])     # levels are runs
    top = np.maximum.reduceat(log_count, starts)
    level_count = top + np.log(np.add.reduceat(np.exp(log_count - np.repeat(
        top, np.diff(np.r_[starts, diff.size]))), starts))
    with np.errstate(over="ignore"):        # -inf: a level no draw can reach
        utility = -exponent * diff[starts]
    if race == "em":
        weights = level_count + utility
        cdf = np.cumsum(np.exp(weights - weights.max()))
        levels = np.minimum(np.searchsorted(cdf, rng.random(count) * cdf[-1], side="right"),
                            cdf.size - 1)
    else:
        levels = np.empty(count, dtype=np.int64)
        for block in row_blocks(count, starts.size):
            noise = _max_exponential(np.broadcast_to(level_count, (block.stop - block.start,
                                                                   starts.size)), rng)
            levels[block] = np.argmax(utility + noise, axis=1)
    entries = np.empty(count, dtype=np.int64)
    ends = np.r_[starts[1:], diff.size]
    for level in np.flatnonzero(np.bincount(levels)).tolist():    # (np.unique imports numpy.ma)
        members = slice(starts[level], ends[level])
        within = np.cumsum(np.exp(log_count[members] - top[level]))
        drawn = levels == level
        pick = np.searchsorted(within, rng.random(drawn.sum()) * within[-1], side="right")
        entries[drawn] = live[members][np.minimum(pick, within.size - 1)]
    return _complete(classes, entries, rng)


def _complete(classes: JointClasses, entries: np.ndarray, rng: np.random.Generator):
    """An output drawn uniformly from the class of each entry: row ``i`` takes column
    ``j``, every other row ``r`` a uniform column of its prefix ``[0, n_r)`` not taken by an
    earlier row (``n_r`` row-r entries come before the class's entry)."""
    top = classes.position.shape[0]
    fixed_row = classes.row[entries]
    fixed_column = classes.column[entries]
    taken = np.empty((entries.size, 0), dtype=np.int64)        # sorted, per draw
    columns = []
    for r in range(top):
        prefix = np.searchsorted(classes.position[r], entries)
        u = np.floor(rng.random(entries.size) * (prefix - r)).astype(np.int64)
        # the u-th free column of the prefix: u plus the taken columns P_k with P_k - k <= u
        free = u + ((taken - np.arange(r)) <= u[:, None]).sum(axis=1)
        columns.append(np.where(fixed_row == r, fixed_column, free))
        taken = np.sort(np.column_stack([taken, columns[-1]]), axis=1)
    return classes.order[np.column_stack(columns)]


# --- canonical Lipschitz ---------------------------------------------------------------

def canonical_log_weights(sorted_scores: np.ndarray, top: int, exponent: float) -> np.ndarray:
    """Log weight of each class ``(h, t)`` (rows ``h = 0 .. T-1``, columns
    ``t = T .. n-1``): ``log C(t-h-1, T-h-1) - exponent (x_h - x_t)``; the top set's class
    (loss 0, one set) has log weight 0."""
    from scipy.special import gammaln

    n = sorted_scores.size
    h = np.arange(top)[:, None]
    t = np.arange(top, n)[None, :]
    log_sets = gammaln(t - h) - gammaln(top - h) - gammaln(t - top + 1)
    with np.errstate(over="ignore"):        # -inf: a class no draw can reach
        return log_sets - exponent * (sorted_scores[h] - sorted_scores[t])


def sample_canonical(scores: np.ndarray, top: int, exponent: float, count: int,
                     rng: np.random.Generator) -> np.ndarray:
    """``count`` draws of the canonical Lipschitz mechanism: a set with
    ``Pr ∝ e^{-exponent * loss}``, released in uniformly random order."""
    order = _descending(scores)
    n = scores.size
    weights = np.concatenate([[0.0], canonical_log_weights(scores[order], top,
                                                           exponent).ravel()])
    cdf = np.cumsum(np.exp(weights - weights.max()))
    picks = np.minimum(np.searchsorted(cdf, rng.random(count) * cdf[-1], side="right"),
                       cdf.size - 1)
    position = np.arange(top)
    sets = np.broadcast_to(position, (count, top)).copy()     # class 0: the top set
    others = np.flatnonzero(picks)
    # class 1 + h (n - T) + (t - T) is (h, t): positions 0..h-1, then T - h - 1 free
    # members (the smallest random keys among positions h+1 .. t-1), then t
    h, t = np.divmod(picks[others] - 1, max(n - top, 1))
    t += top
    span = np.arange(n)
    for block in row_blocks(others.size, n):
        hb, tb = h[block, None], t[block, None]
        keys = rng.random((hb.size, n))
        keys[(span <= hb) | (span >= tb)] = np.inf
        smallest = np.argpartition(keys, top - 1, axis=1)[:, :top]
        ranked = np.take_along_axis(
            smallest, np.argsort(np.take_along_axis(keys, smallest, axis=1), axis=1), axis=1)
        free = np.take_along_axis(ranked, np.clip(position - hb, 0, top - 1), axis=1)
        sets[others[block]] = np.where(position < hb, position,
                                       np.where(position == top - 1, tb, free))
    return order[rng.permuted(sets, axis=1)]
