"""The near/far samplers are exact for every cut: exercise the rare far path on purpose."""

import numpy as np
import pytest

from optmech.selection.pf_probabilities import pf_probabilities
from optmech.selection.samplers import sample_exponential_mechanism, sample_permute_and_flip
from tests.stats_helpers import chi_square_pvalue

LOG_WEIGHTS = np.array([0.0, -0.2, -0.9, -1.5, -2.5, -3.0, -3.0, -6.0])


@pytest.mark.parametrize("cut", [-40.0, -2.0, pytest.param(-0.5, marks=pytest.mark.slow), -1e-9])
def test_permute_and_flip_far_path(cut):
    """The far path takes a Python step per draw that meets a far candidate: the cut -0.5
    (2 near, 6 far) runs in the slow step, between -2.0 (4 near) and -1e-9 (1 near, 7 far),
    which stay in the default run."""
    draws = sample_permute_and_flip(LOG_WEIGHTS, 40_000, np.random.default_rng(3), cut=cut)
    assert chi_square_pvalue(draws, pf_probabilities(LOG_WEIGHTS, 1.0)) > 1e-4


@pytest.mark.parametrize("cut", [-40.0, -2.0, -0.5, -1e-9])
def test_exponential_mechanism_far_path(cut):
    draws = sample_exponential_mechanism(LOG_WEIGHTS, 40_000, np.random.default_rng(4), cut=cut)
    weights = np.exp(LOG_WEIGHTS)
    assert chi_square_pvalue(draws, weights / weights.sum()) > 1e-4


def test_far_candidates_are_drawn():
    """With a cut inside the support, far candidates are proposed and accepted."""
    near = LOG_WEIGHTS > -2.0
    weights = np.where(near, np.exp(LOG_WEIGHTS), 0.0)
    draws = sample_exponential_mechanism(LOG_WEIGHTS, 40_000, np.random.default_rng(4), cut=-2.0)
    counts = np.bincount(draws, minlength=LOG_WEIGHTS.size)
    assert counts[~near].sum() > 0
    assert weights[~near].sum() == 0
