"""The referee: every verdict is supported by its computation, a refutation's counterexample
violates the claim in double precision and at 50 digits (which agree), a claim that is not
refuted says it cannot be settled here and is never called `holds`, and docs/accountants.md
is the rendering of this run (one full run of the referee per test run, shared by the tests
here)."""

from pathlib import Path

import pytest

from optmech.privacy.claims import VERDICTS, claims, figure_twice, referee
from optmech.privacy.high_precision import log_pmf_mp
from optmech.privacy.report import render
from optmech.validation import InvalidArgumentError
from tests.optmech.privacy.references import pf_by_orders

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def results(shared_results):
    return shared_results.get("privacy-referee", referee)


def test_docs_accountants_md_is_current(results):
    committed = (ROOT / "docs" / "accountants.md").read_text(encoding="utf-8")
    assert committed == render(results), \
        "docs/accountants.md is stale: run `optmech privacy referee --markdown > " \
        "docs/accountants.md`"


def test_every_verdict_is_supported(results):
    assert [r.id for r in results] == [c.id for c in claims()]
    assert len({r.id for r in results}) == len(results)
    for r in results:
        assert r.verdict in VERDICTS and r.consistent, r.id


def test_refutations_carry_a_counterexample_computed_twice(results):
    refuted = [r for r in results if r.verdict == "refuted"]
    assert refuted
    for r in results:
        assert (r.counterexample is not None) == (r.verdict == "refuted"), r.id
    for r in refuted:
        c = r.counterexample
        assert min(c.value, c.value_mpmath) > c.claimed, r.id
        assert c.value == pytest.approx(c.value_mpmath, rel=1e-12), r.id
        assert "> " in r.evidence and r.source.quote


def test_not_refuted_is_never_written_as_holds(results):
    for r in results:
        if r.verdict == "not refuted":
            assert "Cannot be settled here" in r.evidence, r.id
        if r.verdict == "holds":
            assert r.evidence.startswith("Proof"), r.id


def test_the_50_digit_permute_and_flip_is_the_enumeration_of_orders():
    """high_precision's PF (the expanded polynomial) against Algorithm 1's orders."""
    scores = ["0", "-0.3", "-1.7", "-4"]
    ours = log_pmf_mp("pf", "1.1", scores)
    reference = pf_by_orders([float(s) for s in scores], 1.1)
    for a, b in zip(ours, reference):
        assert float(a) == pytest.approx(float(b), rel=1e-14)


def test_figure_twice_refuses_an_unknown_figure_and_referee_an_unknown_id():
    with pytest.raises(InvalidArgumentError, match="figure"):
        figure_twice("em", 1.0, (0.0, 0.0), (1.0, -1.0), "tv", 0.0)
    with pytest.raises(InvalidArgumentError, match="only"):
        referee(only=["no-such-claim"])


def test_released_opendp_samples_the_exponential_mechanism_under_zcdp():
    """Optional (OpenDP installed): the sampling behind opendp.noisy-max.zcdp-map, with a
    chi-square test at 0.1 % on 20,000 draws."""
    dp = pytest.importorskip("opendp.prelude")
    import math

    import numpy as np
    from scipy import stats

    dp.enable_features("contrib")
    measurement = dp.m.make_noisy_max(dp.vector_domain(dp.atom_domain(T="i64")),
                                      dp.linf_distance(T="i64"),
                                      dp.zero_concentrated_divergence(), scale=1.0)
    scores = np.array([1, -1, 0], dtype=np.int64)
    draws = np.bincount([measurement(scores) for _ in range(20_000)], minlength=3)
    em = np.exp(scores - scores.max()) / np.exp(scores - scores.max()).sum()
    assert stats.chisquare(draws, 20_000 * em).pvalue > 1e-3
    assert math.isclose(draws.sum(), 20_000)
