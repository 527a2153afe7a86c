"""Private top-T selection mechanisms as objects in the style of ``scipy.stats``.

A mechanism is built once with its privacy parameters (``epsilon`` is the budget of the
whole T-tuple) and applied to score vectors (utilities, higher is better):

* ``pmf(scores)``: the exact probability of every ordered output, aligned with
  :func:`~optmech.topk.enumeration.outcomes` ``(n, T)``; a 2-D ``scores`` (one vector per row)
  gives one row of probabilities per vector; ``logpmf`` its logarithm (finite where a
  probability underflows); ``subset_pmf`` the probability of every set, aligned with
  ``outcomes(n, T, ordered=False)``.  Exact by enumeration, refused beyond
  :data:`~optmech.topk.enumeration.MAX_OUTCOMES` outcomes or the memory budget
  (:func:`~optmech.topk.enumeration.require_enumeration`);
* ``expected_error(scores, measure)``: the exact expectation of an error measure of
  :mod:`optmech.topk.utilities` (``"l1"``, ``"l_inf"``, ``"k_relative"``);
  ``estimate_error`` a Monte Carlo estimate with its confidence interval for sizes beyond
  enumeration (:mod:`optmech.topk.estimates`);
* ``sample(scores, size=None, rng=None)`` / ``rvs(scores, size=None, random_state=None)``:
  outputs drawn by the vectorised samplers of :mod:`optmech.topk.samplers` (one output is
  an array of T candidate indices; ``size`` draws an array of shape ``size + (T,)``);
* ``privacy``: the :class:`~optmech.selection.mechanisms.PrivacyGuarantee` (paper, theorem,
  neighbouring relation and the calibration that gives it), stated next to the code.

**Neighbouring relations.**  ``monotonic=False`` is the general relation: every score moves
by at most ``sensitivity`` (Δ), in any direction.  ``monotonic=True`` is add/remove of one
record in a count histogram: every score moves by at most Δ, all in the same direction.
Each mechanism is calibrated to be ε-DP under the relation asked for (the exhaustive
neighbour checks of ``tests/optmech/topk/test_privacy.py`` measure it):

=========================  ===============================  =================================
mechanism                  general relation                 add/remove (``monotonic=True``)
=========================  ===============================  =================================
``peel-em``                T EM rounds, exponent ε/(2TΔ)    T EM rounds, exponent ε/(TΔ)
``gumbel``                 one Gumbel draw, scale 2TΔ/ε     one Gumbel draw, scale TΔ/ε
``peel-pf``                T PF rounds, exponent ε/(2TΔ)    T PF rounds, exponent ε/(TΔ)
``joint-em``               EM on u, exponent ε/(4Δ)         EM on u, exponent ε/(2Δ)
``joint-pf``               PF on u, exponent ε/(4Δ)         PF on u, exponent ε/(2Δ)
``canonical-lipschitz``    EM on -loss, exponent ε/(4Δ)     EM on -loss, exponent ε/(2Δ)
=========================  ===============================  =================================

The joint utility ``u`` and the canonical loss move by up to 2Δ under the general relation
(two scores, in opposite directions) but by at most Δ under add/remove; for T = 1 both are
the gap to the best score, whose common part cancels in the normalisation, so the joint and
canonical mechanisms are then the exponential mechanism (PF for ``joint-pf``) with its own
calibration (exponent ε/(2Δ), or ε/Δ for add/remove) and ``pmf`` equals
:class:`~optmech.selection.mechanisms.ExponentialMechanism`'s
(:class:`~optmech.selection.mechanisms.PermuteAndFlip`'s) to rounding.

**Values.**  The repr is the constructor call (``JointEM(epsilon=1.0, top=2,
sensitivity=1.0, monotonic=False)``); equal arguments give equal, equally hashed mechanisms
(:class:`~optmech.selection.parametrised.Parametrised`).
"""

from __future__ import annotations

import functools
from abc import ABC, abstractmethod

import numpy as np

from optmech.resources import Estimate, require
from optmech.selection.mechanisms import (
    ExponentialMechanism,
    PermuteAndFlip,
    PrivacyGuarantee,
    set_privacy_parameters,
)
from optmech.selection.parametrised import Parametrised, check_random_state, given
from optmech.selection.pf_probabilities import pf_probability_rows
from optmech.selection.samplers import sample_shape
from optmech.topk import samplers
from optmech.topk.enumeration import outcomes, require_enumeration
from optmech.topk.utilities import (
    canonical_loss_rows,
    check_measure,
    check_topk_rows,
    error_rows,
    joint_utility_rows,
)
from optmech.validation import (
    InvalidArgumentError,
    check_choice,
    check_integer,
    check_rng,
)

__all__ = ["CanonicalLipschitz", "GumbelTopK", "JointEM", "JointPF", "PeelingEM", "PeelingPF",
           "TOPK_MECHANISMS", "TopKMechanism", "make_topk_mechanism"]

#: The mechanisms by their names (the CLI's ``--mechanism``).
TOPK_MECHANISMS = ("peel-em", "peel-pf", "gumbel", "joint-em", "joint-pf",
                   "canonical-lipschitz")

_RELATION = {False: "the general relation (every score moves by at most {d:g}, in any "
                    "direction)",
             True: "add/remove of one record (every score moves by at most {d:g}, all in "
                   "the same direction)"}
_COMPOSITION = "basic composition (Dwork-Roth 2014, Theorem 3.16)"
_JOINT_UTILITY = "over ordered T-tuples with the joint utility u(s) = -max_i(q_(i) - q_(s_i))"


class TopKMechanism(Parametrised, ABC):
    """Common interface (module docstring); subclasses implement :meth:`_log_pmf_rows`
    (exact log probabilities of every ordered output), :meth:`_draw` and
    :attr:`privacy`."""

    name: str = ""
    #: False for a mechanism that releases a set (its ordered outputs are the set in
    #: uniformly random order, and its errors compare the set's scores in decreasing order).
    ordered: bool = True

    def __init__(self, epsilon: float, top: int, sensitivity: float = 1.0,
                 monotonic: bool = False):
        self.top = check_integer(top, "top", minimum=1)
        set_privacy_parameters(self, epsilon, sensitivity, monotonic)
        self._given = (given(epsilon), given(sensitivity))

    def _parameters(self) -> dict:
        epsilon, sensitivity = self._given
        return {"epsilon": epsilon, "top": self.top, "sensitivity": sensitivity,
                "monotonic": self.monotonic}

    @property
    @abstractmethod
    def exponent(self) -> float:
        """The factor of the scores in the mechanism's log weights (module docstring)."""

    @property
    @abstractmethod
    def privacy(self) -> PrivacyGuarantee:
        """The differential-privacy guarantee, with the relation and calibration."""

    def _relation(self) -> str:
        return _RELATION[self.monotonic].format(d=self.sensitivity)

    @abstractmethod
    def _log_pmf_rows(self, rows: np.ndarray, log: bool) -> np.ndarray:
        """Probabilities (``log=True``: their logs) of every ordered output of every row."""

    @abstractmethod
    def _draw(self, scores: np.ndarray, count: int, rng: np.random.Generator) -> np.ndarray:
        """``count`` outputs (shape ``(count, T)``) for one validated score vector."""

    def _rows(self, scores) -> tuple[np.ndarray, bool]:
        rows, batch = check_topk_rows(scores, self.top)
        require_enumeration(rows.shape[1], self.top, len(rows))
        return rows, batch

    def pmf(self, scores) -> np.ndarray:
        """Exact probability of every ordered output (aligned with ``outcomes(n, top)``): a
        vector for one score vector, one row per vector for a 2-D ``scores``."""
        rows, batch = self._rows(scores)
        out = self._log_pmf_rows(rows, log=False)
        return out if batch else out[0]

    def logpmf(self, scores) -> np.ndarray:
        """``log pmf(scores)``, finite where a probability underflows to 0."""
        rows, batch = self._rows(scores)
        out = self._log_pmf_rows(rows, log=True)
        return out if batch else out[0]

    def subset_pmf(self, scores) -> np.ndarray:
        """Exact probability of every *set* of T candidates (the ordered outputs summed over
        their orders), aligned with ``outcomes(n, top, ordered=False)``."""
        rows, batch = self._rows(scores)
        n = rows.shape[1]
        sets = outcomes(n, self.top, ordered=False)
        key = np.sort(outcomes(n, self.top), axis=1) @ (n ** np.arange(self.top - 1, -1, -1))
        index = np.searchsorted(sets @ (n ** np.arange(self.top - 1, -1, -1)), key)
        probabilities = self._log_pmf_rows(rows, log=False)
        out = np.stack([np.bincount(index, weights=p, minlength=len(sets))
                        for p in probabilities])
        return out if batch else out[0]

    def expected_error(self, scores, measure: str = "l1"):
        """``E[error]`` of ``measure`` (``"l1"``, ``"l_inf"``, ``"k_relative"``; see
        :mod:`optmech.topk.utilities`), exact by enumeration: a float, or one per row of a
        2-D ``scores``."""
        measure = check_measure(measure)
        rows, batch = self._rows(scores)
        tuples = outcomes(rows.shape[1], self.top)
        errors = error_rows(rows, tuples, measure, self.ordered)
        values = (self._log_pmf_rows(rows, log=False) * errors).sum(axis=1)
        return values if batch else float(values[0])

    def estimate_error(self, scores, measure: str = "l1", draws: int = 10_000, rng=None,
                       confidence: float = 0.95):
        """A Monte Carlo estimate of ``E[error]`` from ``draws`` samples, with its standard
        error and a ``confidence`` interval
        (:class:`~optmech.topk.estimates.MonteCarloEstimate`)."""
        from optmech.topk.estimates import estimate_error

        return estimate_error(self, scores, measure, draws, rng, confidence)

    def sample(self, scores, size=None, rng=None) -> np.ndarray:
        """Random outputs: one array of T candidate indices if ``size`` is None, else an
        array of shape ``size + (T,)``.  ``rng``: None, an integer seed >= 0 or a
        ``numpy.random.Generator``."""
        q, _ = check_topk_rows(scores, self.top)
        if q.shape[0] != 1:
            raise InvalidArgumentError("scores", scores, "one score vector (1-D)")
        shape, count = sample_shape(size)
        require(self.sample_estimate(q[0], count))
        draws = self._draw(q[0], count, check_rng(rng))
        return draws[0] if shape is None else draws.reshape(*shape, self.top)

    def sample_estimate(self, scores, count: int) -> Estimate:
        """CPU seconds and peak bytes of ``count`` draws on ``scores``
        (:mod:`optmech.topk.sampler_costs`), which :meth:`sample` refuses beyond the
        budgets, naming ``scores, top, size``."""
        from optmech.topk.sampler_costs import sampler_estimate

        q, _ = check_topk_rows(scores, self.top)
        return sampler_estimate(self.name, q[0], self.top, self.exponent, count)

    def rvs(self, scores, size=None, random_state=None) -> np.ndarray:
        """:meth:`sample` under ``scipy.stats``'s names (``random_state``: None, an integer
        seed >= 0 or a ``numpy.random.Generator``)."""
        return self.sample(scores, size, check_random_state(random_state))


# --- peeling -----------------------------------------------------------------------------

class _Peeling(TopKMechanism):
    """T rounds of a selection mechanism at ``epsilon / T`` on the candidates left."""

    _round_class: type = ExponentialMechanism
    _race = "em"
    _rounds = "the exponential mechanism (McSherry-Talwar 2007)"

    @property
    def round(self):
        """The selection mechanism of one round (epsilon / T)."""
        return self._round_class(self.epsilon / self.top, self.sensitivity, self.monotonic)

    @property
    def exponent(self) -> float:
        return self.epsilon / (self.top * (1 if self.monotonic else 2) * self.sensitivity)

    def _log_pmf_rows(self, rows, log):
        # The product of the rounds' pmfs along the tree of prefixes: at depth t, each
        # prefix (in lexicographic order) is extended by the candidates it has not used, in
        # increasing order, so the leaves come out in outcomes(n, T) order.
        round_rows = self.round._logpmf_rows if log else self.round._pmf_rows
        count, n = rows.shape
        values = np.full((count, 1), 0.0 if log else 1.0)
        prefixes = np.zeros((1, 0), dtype=np.int64)
        for depth in range(self.top):
            free = np.ones((len(prefixes), n), dtype=bool)
            free[np.arange(len(prefixes))[:, None], prefixes] = False
            left = np.broadcast_to(np.arange(n), free.shape)[free].reshape(len(prefixes), -1)
            step = round_rows(rows[:, left].reshape(-1, n - depth)).reshape(count, *left.shape)
            values = (values[:, :, None] + step if log else values[:, :, None] * step)
            values = values.reshape(count, -1)
            prefixes = np.column_stack([np.repeat(prefixes, n - depth, axis=0), left.ravel()])
        return values

    def _draw(self, scores, count, rng):
        return samplers.sample_peeling(scores, self.exponent, self.top, count, rng,
                                       self._race)

    @property
    def privacy(self) -> PrivacyGuarantee:
        kind = "epsilon/T each" if self.top > 1 else "epsilon"
        # T rounds, each dominated as its selection mechanism is (bounded range for EM, the
        # Laplace pair for PF) at epsilon / T, on candidates that move under the same relation
        round_kind, round_epsilon, _ = self.round.privacy.dominance
        return PrivacyGuarantee(self.epsilon, 0.0, (
            f"{self._relation()}: {self.top} round(s) of {self._rounds} at {kind} (exponent "
            f"{self.exponent:.6g} = epsilon/({'' if self.monotonic else '2'}TΔ); one round is "
            f"epsilon/T-DP on the candidates left, which move under the same relation), "
            f"{_COMPOSITION}"), (round_kind, round_epsilon, self.top))


class PeelingEM(_Peeling):
    """Peeling with the exponential mechanism: T rounds of EM at ``epsilon / T``, each
    choosing among the candidates not yet chosen (McSherry-Talwar 2007 per round).

    ``pmf``: the product of the rounds' EM pmfs (max-shifted softmax), exact to rounding.
    ``sample``: T Gumbel races per draw (:func:`~optmech.topk.samplers.sample_peeling`).
    :class:`GumbelTopK` has the same distribution and a one-pass sampler.
    """

    name = "peel-em"


class GumbelTopK(PeelingEM):
    """One-shot Gumbel top-T: add Gumbel noise of scale ``1 / exponent`` to every score once
    and release the T largest, in decreasing order of the noisy score.

    Durfee & Rogers, *Practical Differentially Private Top-k Selection with Pay-what-you-get
    Composition*, NeurIPS 2019, arXiv:1905.04273: the same distribution as
    :class:`PeelingEM` (so the same ``pmf`` and guarantee; the tests check the equality by
    a chi-square test of these samples against the peeling pmf).  ``sample`` costs ``O(n)``
    per draw (:func:`~optmech.topk.samplers.sample_one_shot_gumbel`).
    """

    name = "gumbel"
    _rounds = ("the exponential mechanism (McSherry-Talwar 2007), the distribution of "
               "one-shot Gumbel top-T (Durfee-Rogers 2019, arXiv:1905.04273)")

    def _draw(self, scores, count, rng):
        return samplers.sample_one_shot_gumbel(scores, self.exponent, self.top, count, rng)


class PeelingPF(_Peeling):
    """Peeling with permute-and-flip: T rounds of PF at ``epsilon / T`` on the candidates
    not yet chosen (McKenna & Sheldon 2020, Theorem 1, per round; google-research's
    ``dp_topk`` ``pnf_peeling_mechanism``).

    ``pmf``: the product of the rounds' PF pmfs
    (:mod:`optmech.selection.pf_probabilities`, within 1e-13 of mpmath per round).
    ``sample``: T exponential races per draw.
    """

    name = "peel-pf"
    _round_class = PermuteAndFlip
    _race = "pf"
    _rounds = "permute-and-flip (McKenna-Sheldon 2020, Theorem 1)"


# --- joint mechanisms ------------------------------------------------------------------

@functools.lru_cache(maxsize=1)
def _joint_classes(scores: bytes, top: int) -> samplers.JointClasses:
    """The joint classes of the last score vector sampled (they do not depend on epsilon,
    so a sweep over epsilon sets them up once: 0.7 s and 140 MB at n = 17770, T = 195)."""
    return samplers.joint_classes(np.frombuffer(scores), top)


class _Joint(TopKMechanism):
    """Selection over all ordered T-tuples with the joint utility ``u``."""

    _race = "em"
    _selection = "the exponential mechanism (McSherry-Talwar 2007)"
    _over = _JOINT_UTILITY + " (Gillenwater et al. 2022, arXiv:2201.12333)"

    @property
    def utility_sensitivity(self) -> float:
        """How far ``u`` moves between neighbours: Δ under add/remove, 2Δ under the general
        relation (for T = 1 the calibration is that of the selection mechanism)."""
        return self.sensitivity * (1 if self.monotonic else 2)

    @property
    def exponent(self) -> float:
        if self.top == 1:
            return self.epsilon / ((1 if self.monotonic else 2) * self.sensitivity)
        return self.epsilon / (2 * self.utility_sensitivity)

    def _log_weight_rows(self, rows: np.ndarray) -> np.ndarray:
        """``exponent * u`` of every ordered output (maximum 0 in each row; -inf where the
        product leaves the double range)."""
        with np.errstate(over="ignore"):
            return self.exponent * joint_utility_rows(rows, outcomes(rows.shape[1], self.top))

    def _log_pmf_rows(self, rows, log):
        z = self._log_weight_rows(rows)
        if self._race == "pf":
            return pf_probability_rows(z, log=log)
        if log:
            return z - np.log(np.exp(z).sum(axis=1, keepdims=True))
        weights = np.exp(z)
        return weights / weights.sum(axis=1, keepdims=True)

    def _draw(self, scores, count, rng):
        return samplers.sample_joint(_joint_classes(scores.tobytes(), self.top), self.exponent,
                                     count, rng, self._race)

    @property
    def privacy(self) -> PrivacyGuarantee:
        if self.top == 1:
            calibration = ("T = 1: the utility is minus the gap to the best score, whose "
                           f"common part cancels, so this is {self._selection.split(' (')[0]} "
                           f"itself, exponent {self.exponent:.6g}")
        else:
            calibration = (f"the utility moves by at most {self.utility_sensitivity:g} "
                           f"({'Δ' if self.monotonic else '2Δ'}), exponent "
                           f"{self.exponent:.6g} = epsilon/(2 x {self.utility_sensitivity:g})")
        # the exponential mechanism (PF) on a utility of sensitivity utility_sensitivity with
        # exponent epsilon / (2 utility_sensitivity): bounded range (the Laplace pair)
        kind = "laplace" if self._race == "pf" else "bounded-range"
        return PrivacyGuarantee(self.epsilon, 0.0, f"{self._relation()}: {self._selection} "
                                                   f"{self._over}; {calibration}",
                                (kind, self.epsilon, 1))


class JointEM(_Joint):
    """Joint exponential mechanism (Gillenwater, Joseph, Muñoz Medina, Ribero, *A Joint
    Exponential Mechanism for Differentially Private Top-k*, ICML 2022, arXiv:2201.12333):
    ``Pr[s] ∝ exp(exponent * u(s))`` over all ordered T-tuples.

    ``pmf``: a max-shifted softmax over the enumerated tuples.  ``sample``: Gillenwater et
    al.'s class sampler (:func:`~optmech.topk.samplers.sample_joint`), ``O(nT log(nT))``
    set-up and ``O(T^2)`` per draw.  Their code calibrates for add/remove with sensitivity
    1 (``dp_topk/joint.py``, ``sample_diff_idx``: exponent ``epsilon / 2``), as here with
    ``monotonic=True``.
    """

    name = "joint-em"


class JointPF(_Joint):
    """Joint permute-and-flip: permute-and-flip over all ordered T-tuples with the joint
    utility, exponent as :class:`JointEM`.

    The PF counterpart in google-research's ``dp_topk/joint.py`` (``pnf_joint`` with
    ``sample_diff_idx_via_pnf``, in the revision of the file that has them, 2025; the
    earlier revision 183fe544 has only joint EM): report-noisy-max with exponential noise
    over the classes of Gillenwater et al., each class's noise the largest of ``count``
    exponentials, which is PF over the individual tuples.  ``pmf``: the selection area's PF
    pmf (:mod:`optmech.selection.pf_probabilities`) on the vector of joint utilities of the
    enumerated tuples, each tuple once (tuples of equal utility are grouped with their
    multiplicity beyond 4096 tuples).
    """

    name = "joint-pf"
    _race = "pf"
    _selection = "permute-and-flip (McKenna-Sheldon 2020, Theorem 1)"
    _over = _JOINT_UTILITY + " (google-research dp_topk/joint.py, pnf_joint)"


# --- canonical Lipschitz ---------------------------------------------------------------

class CanonicalLipschitz(_Joint):
    """Canonical Lipschitz mechanism (Shekelyan & Loukides, *Differentially Private Top-k
    Selection via Canonical Lipschitz Mechanism*, arXiv:2201.13376) with Gumbel noise: a
    set ``S`` of T candidates with ``Pr[S] ∝ exp(-exponent * loss(S))``, ``loss`` the
    canonical loss of :mod:`optmech.topk.utilities`, released in uniformly random order.

    This is their ``canonicalLipschitzGumbel`` with the budget split ``rho = 1/2`` of their
    experiments (github.com/shekelyan/dptopk, mechanisms.py at c4c0c62: class ``(h, t)`` of
    weight ``exp(eps (x_t - x_{h+1}) / 2)`` for counts, i.e. exponent ``epsilon / 2`` on a
    loss that moves by at most 1 under add/remove).  ``pmf``: a softmax over the enumerated
    tuples (each set's T! orders share its probability).  ``sample``: their class sampler
    (:func:`~optmech.topk.samplers.sample_canonical`).  A set has no order, so
    ``expected_error``'s ``"l1"`` and ``"l_inf"`` compare its scores in decreasing order.
    """

    name = "canonical-lipschitz"
    ordered = False
    _over = ("over sets of T candidates with utility minus the canonical loss "
             "max(0, max_(j not in S) q_j - min_(i in S) q_i) (Shekelyan-Loukides 2022, "
             "arXiv:2201.13376)")

    def _log_weight_rows(self, rows):
        with np.errstate(over="ignore"):
            return -self.exponent * canonical_loss_rows(rows, outcomes(rows.shape[1],
                                                                       self.top))

    def _draw(self, scores, count, rng):
        return samplers.sample_canonical(scores, self.top, self.exponent, count, rng)


_CLASSES = {"peel-em": PeelingEM, "peel-pf": PeelingPF, "gumbel": GumbelTopK,
            "joint-em": JointEM, "joint-pf": JointPF, "canonical-lipschitz": CanonicalLipschitz}


def make_topk_mechanism(name: str, epsilon: float, top: int, sensitivity: float = 1.0,
                        monotonic: bool = False) -> TopKMechanism:
    """Build a mechanism from its name (one of :data:`TOPK_MECHANISMS`; ``peel_em`` spelt
    with an underscore works too); ``epsilon`` is the budget of the whole T-tuple."""
    spelled = name.replace("_", "-") if isinstance(name, str) else name
    return _CLASSES[check_choice(spelled, "mechanism", TOPK_MECHANISMS)](
        epsilon, top, sensitivity, monotonic)
