"""Statistical checks shared by the tests (Monte Carlo against exact distributions)."""

import numpy as np
from scipy import stats


def chi_square_pvalue(draws, probs):
    """Pearson chi-square p-value of integer ``draws`` against ``probs``.

    Cells with expected count below 5 are pooled into one; a draw on a zero-probability
    candidate fails immediately.
    """
    draws = np.asarray(draws).ravel()
    probs = np.asarray(probs, dtype=float)
    counts = np.bincount(draws, minlength=probs.size)
    expected = probs * draws.size
    small = expected < 5
    if small.any():
        counts = np.append(counts[~small], counts[small].sum())
        expected = np.append(expected[~small], expected[small].sum())
    keep = expected > 0
    assert counts[~keep].sum() == 0, "a draw landed on a zero-probability candidate"
    if keep.sum() < 2:
        return 1.0
    return stats.chisquare(counts[keep], expected[keep] * counts.sum() / expected[keep].sum()
                           ).pvalue
