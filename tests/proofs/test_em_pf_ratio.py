"""The EM/PF ratio identity: verified, in the permute-and-flip group, and its key inequality
checked once more by hand on a small exact case."""

from fractions import Fraction as F

from proofs.permute_flip import exact_integral_pmf
from proofs.registry import identities


def test_em_pf_ratio_identity(check):
    outcome = check("permute_flip.em_pf_ratio_below_two")
    assert outcome.status == "verified"
    assert "limit as p -> 0 is 2" in outcome.result.evidence


def test_identity_is_registered_with_the_permute_and_flip_paper():
    names = [i.name for i in identities() if i.paper == "permute-and-flip"]
    assert "permute_flip.em_pf_ratio_below_two" in names


def test_per_item_inequality_on_three_candidates():
    # coins (1, 1/2, 1/4): Pr[PF = r] >= p_r / (2 S_r) and Pr[EM = r] < 2 Pr[PF = r]
    coins = [F(1), F(1, 2), F(1, 4)]
    pf = exact_integral_pmf(coins)
    total = sum(coins)
    assert pf == [F(2, 3), F(11, 48), F(5, 48)]        # by hand: p_r int prod (1 - p_s t)
    for r in (1, 2):
        assert pf[r] >= coins[r] / (2 * (total - coins[r]))
        assert coins[r] / total < 2 * pf[r]
