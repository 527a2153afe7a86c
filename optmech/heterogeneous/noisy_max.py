"""Report-noisy-max for candidates with their own sensitivities: RNMH, and RNM at the
global sensitivity; uniform selection as the data-free baseline.

RNMH (heterogeneous-sensitivities paper, eqn 4) adds noise scaled to each candidate's own
sensitivity, ``argmax_a (q_a + z_a)``:

* ``noise="exponential"``: ``z_a ~ Exp(mean 2Δ_a/ε)``.  **Not differentially private**
  (Section IV-A): with ``Δ = (0, 1)`` the score vectors ``(0, 1/2)`` and ``(0, -1/2)`` are
  neighbours; candidate 0 has probability 0 under the first and ``1 - e^{-ε/4}`` under
  the second, so no ``ε' < ∞`` bounds the privacy loss.
* ``noise="laplace"``: ``z_a ~ Lap(Δ_a/ε)``.  Releasing every noisy score is the Laplace
  mechanism on each candidate with ``Δ_a > 0`` (each ε-DP, the others are data-free), and
  the argmax is post-processing, so it is ``mε``-DP with ``m = #{a : Δ_a > 0}``.  Both
  ways this bound is attained are checked in the tests: the paper's Appendix A example
  (``Δ = (0, 1, ..., 1)``, ``q = 0`` against ``q = (0, 1, ..., 1)``) has loss exactly
  ``(k-1)ε = mε``; with ``k = 2``, ``Δ = (1, 1)``, ``q = (0, D)`` against ``(-1, D+1)``
  the loss tends to ``2ε`` as ``D`` grows (1.913ε at ``D = 20``).  The latter refutes the
  paper's sentence "we can show that it is (k-1)ε[-DP]" for general sensitivities; only
  its lower bound (Appendix A) holds.

``pmf`` is :func:`optmech.selection.noisy_max.noisy_max_pmf` with per-candidate scales (scale 0
allowed), accurate to about 1e-12.
"""

from __future__ import annotations

import numpy as np

from optmech.heterogeneous.base import DrawnMechanism, HeterogeneousMechanism
from optmech.selection.mechanisms import PermuteAndFlip, PrivacyGuarantee, UniformSelection
from optmech.selection.noisy_max import noisy_max_pmf
from optmech.selection.samplers import sample_noisy_argmax
from optmech.validation import check_choice

__all__ = ["GlobalNoisyMax", "HeterogeneousNoisyMax", "UniformChoice"]


class HeterogeneousNoisyMax(DrawnMechanism):
    """RNMH: report-noisy-max with noise scaled to each candidate's sensitivity (eqn 4).

    ``noise="exponential"`` (the paper's RNMH) is not DP: :attr:`privacy` is None and
    :attr:`privacy_note` gives the counter-example.  ``noise="laplace"`` is
    ``#{a: Δ_a > 0} * ε``-DP: :meth:`guarantee` states it for a sensitivity vector.
    Sensitivities may be 0 (a data-independent score, no noise).
    """

    NOISES = ("exponential", "laplace")
    allows_zero_sensitivity = True

    def __init__(self, epsilon: float, noise: str = "exponential"):
        super().__init__(epsilon)
        self.noise = check_choice(noise, "noise", self.NOISES)
        self.name = "rnmh" if noise == "exponential" else "rnmh_laplace"

    def _parameters(self) -> dict:
        return {**super()._parameters(), "noise": self.noise}

    def scales(self, sensitivities: np.ndarray) -> np.ndarray:
        """Noise scales: ``2Δ_a/ε`` (exponential mean) or ``Δ_a/ε`` (Laplace)."""
        return (2.0 if self.noise == "exponential" else 1.0) * sensitivities / self.epsilon

    @property
    def privacy(self) -> None:
        return None

    @property
    def privacy_note(self) -> str:
        if self.noise == "exponential":
            return ("not differentially private: with sensitivities (0, 1), the neighbouring "
                    "scores (0, 1/2) and (0, -1/2) give candidate 0 probability 0 and "
                    "1 - exp(-epsilon/4) (heterogeneous-sensitivities paper, Section IV-A)")
        return ("m*epsilon-DP with m = number of candidates with sensitivity > 0 (Laplace "
                "mechanism per score, argmax is post-processing): see guarantee(); no "
                "bound independent of the number of candidates.  Tight: the paper's "
                "Appendix A example attains (k-1)epsilon = m*epsilon; with k = 2 and "
                "sensitivities (1, 1) the loss tends to 2*epsilon, so the paper's general "
                "(k-1)epsilon claim (Section IV-A) does not hold")

    def guarantee(self, sensitivities) -> PrivacyGuarantee | None:
        if self.noise == "exponential":
            return None
        _, d = self.inputs(np.zeros(np.size(sensitivities)), sensitivities)
        m = int((d > 0).sum())
        return PrivacyGuarantee(m * self.epsilon, 0.0,
                                f"{m} candidates with sensitivity > 0, each noisy score "
                                "epsilon-DP (Laplace mechanism), argmax post-processing")

    def _pmf(self, q, d):
        return noisy_max_pmf(q, self.scales(d), self.noise)

    def _draw(self, q, d, count, rng):
        scales = self.scales(d)
        draw = {"exponential": lambda g, shape: g.standard_exponential(shape) * scales,
                "laplace": lambda g, shape: g.laplace(0.0, 1.0, shape) * scales}[self.noise]
        out = sample_noisy_argmax(q, count, rng, draw)
        # Noiseless candidates tied at the top always come out as the first of them
        # (argmax); pick uniformly among them, as the pmf does.
        noiseless = np.flatnonzero(scales == 0)
        if noiseless.size > 1:
            tied = noiseless[q[noiseless] == q[noiseless].max()]
            hit = out == tied[0]
            out[hit] = rng.choice(tied, size=int(hit.sum()))
        return out


class GlobalNoisyMax(HeterogeneousMechanism):
    """RNM at the global sensitivity ``Δ = max_a Δ_a`` (paper eqns 2-3): report-noisy-max
    with ``Exp(mean 2Δ/ε)`` noise, which is permute-and-flip; ignores the heterogeneity.

    ``pmf``, ``sample`` (keyword options included) delegate to
    :class:`~optmech.selection.mechanisms.PermuteAndFlip` with sensitivity ``max Δ``.  ε-DP.
    With ``exact=True`` epsilon, the scores and ``max Δ`` reach the exact sampler as given
    (an int or ``Fraction`` stays exact).
    """

    name = "rnm"

    def _mechanism(self, d: np.ndarray) -> PermuteAndFlip:
        return PermuteAndFlip(self._given_epsilon, float(d.max()))

    def sample(self, scores, sensitivities, size=None, rng=None, **options):
        if options.get("exact") is not True:
            return super().sample(scores, sensitivities, size, rng, **options)
        self.inputs(scores, sensitivities)                      # validation only
        largest = max(np.asarray(sensitivities, dtype=object).ravel().tolist())
        return PermuteAndFlip(self._given_epsilon, largest).sample(
            scores, size=size, rng=rng, **options)

    @property
    def privacy(self) -> PrivacyGuarantee:
        return PrivacyGuarantee(self.epsilon, 0.0,
                                "permute-and-flip at the largest candidate-wise sensitivity "
                                "(McKenna-Sheldon 2020, Theorem 1)")

    def _pmf(self, q, d):
        return self._mechanism(d).pmf(q)

    def _sample(self, q, d, size, rng, **options):
        return self._mechanism(d).sample(q, size=size, rng=rng, **options)


class UniformChoice(HeterogeneousMechanism):
    """Uniform selection (the paper's "random"): ignores scores and sensitivities; 0-DP."""

    name = "uniform"

    def __init__(self):
        self.epsilon = 0.0

    def _parameters(self) -> dict:
        return {}

    @property
    def privacy(self) -> PrivacyGuarantee:
        return UniformSelection().privacy

    def _pmf(self, q, d):
        return UniformSelection().pmf(q)

    def _sample(self, q, d, size, rng, **options):
        return UniformSelection().sample(q, size=size, rng=rng, **options)
