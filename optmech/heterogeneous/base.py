"""Common interface of selection mechanisms for candidates with their own sensitivities.

A mechanism is built once with its privacy budget and parameters; the sensitivities are a
property of the score function, so every method takes them next to the scores:

* ``pmf(scores, sensitivities)``: probability of selecting each candidate;
* ``expected_error(...)``: ``E[q* - q_M]``; ``expected_squared_error(...)``:
  ``E[(q* - q_M)^2]`` (the heterogeneous-sensitivities paper's MSE, per score vector);
* ``sample(scores, sensitivities, size=None, rng=None)``: draws;
  ``rvs(scores, sensitivities, size=None, random_state=None)`` the same under
  ``scipy.stats``'s names;
* ``privacy``: the :class:`~optmech.selection.mechanisms.PrivacyGuarantee` when the
  mechanism has one that holds for every score function with the given candidate-wise
  sensitivities
  (``|q_a(D) - q_a(D')| <= Δ_a`` for neighbours ``D, D'``), else ``None``; ``privacy_note``
  says why, and ``guarantee(sensitivities)`` gives the guarantee for one sensitivity
  vector where it depends on it.

A mechanism's repr is the constructor call that rebuilds it, and two mechanisms of the same
class with equal arguments are equal and hash alike
(:class:`~optmech.selection.parametrised.Parametrised`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

from optmech.heterogeneous.inputs import check_scores_and_sensitivities
from optmech.selection.mechanisms import PrivacyGuarantee
from optmech.selection.parametrised import Parametrised, check_random_state, given
from optmech.selection.samplers import sample_shape, shaped
from optmech.selection.scores import expected_gap, gaps
from optmech.validation import check_finite_result, check_positive, check_rng

__all__ = ["DrawnMechanism", "HeterogeneousMechanism"]


class HeterogeneousMechanism(Parametrised, ABC):
    """Base class; subclasses implement :meth:`_pmf`, :meth:`_sample` and :attr:`privacy`,
    and :meth:`_parameters` when their constructor takes more than ``epsilon``."""

    name: str = ""
    #: candidates with ``Δ_a = 0`` are meaningful for this mechanism (RNMH only)
    allows_zero_sensitivity: bool = False

    def __init__(self, epsilon: float):
        self.epsilon = check_positive(epsilon, "epsilon")
        # As given: an int or Fraction stays exact for sample(..., exact=True).
        self._given_epsilon = given(epsilon)

    def _parameters(self) -> dict:
        return {"epsilon": self._given_epsilon}

    @property
    @abstractmethod
    def privacy(self) -> PrivacyGuarantee | None:
        """The guarantee for all sensitivity vectors, or None (see :attr:`privacy_note`)."""

    @property
    def privacy_note(self) -> str:
        """Why :attr:`privacy` is what it is."""
        return self.privacy.statement if self.privacy is not None else ""

    def guarantee(self, sensitivities) -> PrivacyGuarantee | None:
        """The guarantee for score functions with these candidate-wise sensitivities."""
        return self.privacy

    def inputs(self, scores, sensitivities) -> tuple[np.ndarray, np.ndarray]:
        """Validated ``(scores, sensitivities)`` as float arrays."""
        return check_scores_and_sensitivities(scores, sensitivities,
                                              allow_zero=self.allows_zero_sensitivity)

    @abstractmethod
    def _pmf(self, q: np.ndarray, d: np.ndarray) -> np.ndarray:
        """Selection probabilities for validated inputs."""

    @abstractmethod
    def _sample(self, q: np.ndarray, d: np.ndarray, size, rng, **options):
        """Selections for validated inputs (``size``, ``rng`` as in :meth:`sample`)."""

    def pmf(self, scores, sensitivities) -> np.ndarray:
        """Probability of selecting each candidate (method and accuracy: class docstring)."""
        return self._pmf(*self.inputs(scores, sensitivities))

    def expected_error(self, scores, sensitivities) -> float:
        """``E[q* - q_M] = sum_r pmf_r (q* - q_r)`` (refused if it overflows a double)."""
        q, d = self.inputs(scores, sensitivities)
        return expected_gap(self._pmf(q, d), q)

    def expected_squared_error(self, scores, sensitivities) -> float:
        """``E[(q* - q_M)^2] = sum_r pmf_r (q* - q_r)^2`` (refused if it overflows)."""
        q, d = self.inputs(scores, sensitivities)
        p = self._pmf(q, d)
        live = p > 0
        with np.errstate(over="ignore"):
            value = float(p[live] @ gaps(q)[live] ** 2)
        return check_finite_result(value, "the expected squared error")

    def sample(self, scores, sensitivities, size=None, rng=None, **options):
        """Random selections: an ``int`` if ``size`` is None, else an array of that shape.

        ``rng``: None (a fresh generator), an integer seed >= 0 or a
        ``numpy.random.Generator``.  Mechanisms
        that run a foundation mechanism (GEM and mGEM run permute-and-flip) pass ``options``
        through to its ``sample``; the others accept none.
        """
        q, d = self.inputs(scores, sensitivities)
        return self._sample(q, d, size, rng, **options)

    def rvs(self, scores, sensitivities, size=None, random_state=None):
        """:meth:`sample` under ``scipy.stats``'s names (``random_state``: None, an integer
        seed >= 0 or a ``numpy.random.Generator``; a legacy ``RandomState`` is refused)."""
        return self.sample(scores, sensitivities, size, check_random_state(random_state))


class DrawnMechanism(HeterogeneousMechanism):
    """A mechanism sampled by its own vectorised simulation :meth:`_draw`."""

    @abstractmethod
    def _draw(self, q: np.ndarray, d: np.ndarray, count: int,
              rng: np.random.Generator) -> np.ndarray:
        """``count`` i.i.d. selections for validated inputs."""

    def _sample(self, q, d, size, rng, **options):
        if options:
            raise TypeError(f"{type(self).__name__}.sample() takes no options; got "
                            + ", ".join(sorted(options)))
        shape, count = sample_shape(size)
        return shaped(self._draw(q, d, count, check_rng(rng)), shape)
