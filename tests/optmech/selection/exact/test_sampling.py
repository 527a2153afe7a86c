"""Exact-arithmetic samplers: distributions, exact building blocks, no floats, bad input.

References: the mechanisms' ``pmf`` (chi-square with fixed seeds), exp(-x) and binomial
standard errors, and brute-force ``Fraction`` arithmetic written here.
"""

import ast
import math
import pathlib
import secrets
import sys
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

import optmech.selection.exact.bernoulli as exact_bernoulli
import optmech.selection.exact.sampling as exact_sampling
from optmech import (
    ExponentialMechanism,
    InvalidArgumentError,
    PermuteAndFlip,
    RandomizedResponse,
    ReportNoisyMax,
    UniformSelection,
)
from optmech.selection.exact.bernoulli import BULK_UNITS, Ratios, exp_coin, exp_coins, unit_blocks
from optmech.selection.exact.random import RandomBytes
from optmech.selection.exact.rationals import ExactScores, exact_exponent
from optmech.selection.exact.sampling import (
    bernoulli,
    bernoulli_exp,
    bernoulli_logistic,
    exponential_mechanism_exact,
    permute_and_flip_exact,
)
from tests.stats_helpers import chi_square_pvalue

EXACT_MODULES = sorted(pathlib.Path(exact_bernoulli.__file__).parent.glob("*.py"))


def as_fraction(value) -> Fraction:
    """Reference conversion (numpy integers first become Python ints: a Fraction holding
    an np.int64 would overflow)."""
    if isinstance(value, (int, np.integer)):
        return Fraction(int(value))
    if isinstance(value, (float, np.floating)):
        return Fraction(float(value))
    return Fraction(value)


def within_binomial(heads: int, trials: int, p: float, sigmas: float = 5.0) -> bool:
    """``heads`` within ``sigmas`` binomial standard errors of ``trials p`` (plus one
    count, so that p near 0 does not demand exactly zero heads)."""
    return abs(heads - trials * p) <= sigmas * math.sqrt(trials * p * (1 - p)) + 1


# --- the samplers follow the mechanisms' pmfs -------------------------------------------

SCORE_CASES = {
    "ints with ties": (np.array([3, 3, 2, 0, -1, 2]), 1.0),
    "wide gaps": (np.array([0.0, -40.0, -0.5, -80.0]), 1.3),
    "300 far candidates (bulk path)": (np.r_[0, np.full(300, -17)], 1.0),
    "floats, 2^-55 denominators": (np.linspace(0, -3, 12), 1.3),
    "fractions": ([Fraction(1, 3), Fraction(-2, 7), 0, 1, Fraction(1, 3)], 1.7),
    "beyond int64": ([2**70, 2**70 - 1, 2**70 - 3, -2**70], 1.0),
}


@pytest.mark.parametrize("mechanism", [PermuteAndFlip, ExponentialMechanism])
@pytest.mark.parametrize("case", sorted(SCORE_CASES))
def test_exact_samples_follow_the_pmf(mechanism, case):
    """Chi-square, fixed seed, 20000 draws: p-value above 1e-4."""
    scores, epsilon = SCORE_CASES[case]
    mech = mechanism(epsilon)
    draws = mech.sample(scores, size=20_000, rng=np.random.default_rng(7), exact=True)
    exact = [as_fraction(v) for v in scores]
    shifted = np.array([float(v - max(exact)) for v in exact])
    assert draws.dtype == np.int64 and draws.shape == (20_000,)
    assert chi_square_pvalue(draws, mech.pmf(shifted)) > 1e-4


# One coin at a time, a draw flips about n coins, so the 300 far candidates cost 10x the
# other cases together: they run in the slow step, and 30 far candidates (the same exponent
# 8.5, a bulk block of 8 units then the fraction) keep the path in the default run.
ONE_COIN_CASES = [pytest.param(case, marks=pytest.mark.slow) if "300" in case else case
                  for case in sorted(SCORE_CASES)] + ["30 far candidates (bulk path)"]
SCORE_CASES_ONE_COIN = {**SCORE_CASES,
                        "30 far candidates (bulk path)": (np.r_[0, np.full(30, -17)], 1.0)}


@pytest.mark.parametrize("mechanism", [PermuteAndFlip, ExponentialMechanism])
@pytest.mark.parametrize("case", ONE_COIN_CASES)
def test_one_coin_at_a_time_samples_follow_the_pmf(monkeypatch, mechanism, case):
    """Every coin flipped one at a time (exp_coin, ExactScores.exponent_of): PF visits
    lazily and EM attempts one by one for all 4000 draws; chi-square as above."""
    monkeypatch.setattr(exact_sampling._Coins, "one_by_one_pays", lambda self, flipped: True)
    monkeypatch.setattr(exact_sampling, "_ROWS_COINS", 10**9)
    flips = []
    original = exact_sampling._Coins.flip
    monkeypatch.setattr(exact_sampling._Coins, "flip",
                        lambda self, *args: flips.append(1) or original(self, *args))
    scores, epsilon = SCORE_CASES_ONE_COIN[case]
    mech = mechanism(epsilon)
    draws = mech.sample(scores, size=4_000, rng=np.random.default_rng(26), exact=True)
    exact = [as_fraction(v) for v in scores]
    shifted = np.array([float(v - max(exact)) for v in exact])
    assert not flips
    assert chi_square_pvalue(draws, mech.pmf(shifted)) > 1e-4


LARGE_CASES = {
    # sum_r p_r = 40: PF usually finds a head among the first n/32 visited candidates
    "visits in random order": np.r_[0, np.full(20, -1), np.full(1479, -8)],
    # sum_r p_r = 1: PF visits n/32 candidates, then flips the rest at once
    "then flips the rest": np.r_[np.full(2, 0), np.full(1498, -30)],
}


@pytest.mark.parametrize("mechanism", [PermuteAndFlip, ExponentialMechanism])
@pytest.mark.parametrize("case", sorted(LARGE_CASES))
def test_exact_samples_follow_the_pmf_for_many_candidates(monkeypatch, mechanism, case):
    """n = 1500, with PF's lazy path switched on from 1024 candidates.  Equal scores have
    equal probabilities, so the chi-square runs over score levels, and over the
    candidates of the first level."""
    monkeypatch.setattr(exact_sampling, "_LAZY_MIN", 1024)
    scores = LARGE_CASES[case]
    mech = mechanism(1.0)
    draws = mech.sample(scores, size=4_000, rng=np.random.default_rng(24), exact=True)
    levels, level_of = np.unique(-scores, return_inverse=True)
    pmf = mech.pmf(scores)
    assert chi_square_pvalue(level_of[draws], np.bincount(level_of, weights=pmf)) > 1e-4
    top = np.flatnonzero(level_of == 0)
    in_top = np.searchsorted(top, draws[level_of[draws] == 0])
    assert chi_square_pvalue(in_top, np.full(top.size, 1 / top.size)) > 1e-4


@pytest.mark.parametrize("one_by_one", [0, 1])
@pytest.mark.parametrize("scores", [np.array([0.0, -1.5, -1.5, -1.5]),
                                    np.array([2, 2, 1, 0, -1, 1])], ids=str)
def test_lazy_permute_and_flip_on_few_candidates(monkeypatch, scores, one_by_one):
    """The lazy path where PF and EM differ most: ``one_by_one`` candidates visited one at
    a time, then one per batch, the switch to flipping the rest after half of them (so
    revisiting a candidate, or re-flipping a visited one, would shift the draws towards
    EM)."""
    monkeypatch.setattr(exact_sampling, "_LAZY_MIN", 2)
    monkeypatch.setattr(exact_sampling, "_LAZY_SHARE", 2)
    monkeypatch.setattr(exact_sampling, "_LAZY_BATCH", 1)
    monkeypatch.setattr(exact_sampling, "_ONE_BY_ONE", one_by_one)
    draws = PermuteAndFlip(1.0).sample(scores, 10_000, np.random.default_rng(25), exact=True)
    assert chi_square_pvalue(draws, PermuteAndFlip(1.0).pmf(scores)) > 1e-4


SWITCH_CASES = {
    # every coin has weight 256 (x < 1): all draws stay lazy, finishing with the rest
    "stays lazy": (np.array([0.0, -1.5, -1.5, -1.5]), {"rest"}),
    # far candidates (x = 10) bring the heads-rate estimate down: the rest go as rows
    "then rows": (np.r_[0, 0, np.full(20, -20)], {"rest", "rows"}),
}


@pytest.mark.parametrize("case", sorted(SWITCH_CASES))
def test_lazy_draws_finish_with_the_rest_then_switch_to_rows(monkeypatch, case):
    """Fewer than _LAZY_MIN candidates: a lazy draw whose one-by-one visit finds no head
    finishes with a uniform head of the unvisited candidates' coins; later draws go as
    rows of all coins once the heads-rate estimate is low.  (Abandoning such a draw and
    drawing it afresh would not be exact: the kept draws would lean towards EM.)"""
    monkeypatch.setattr(exact_sampling, "_ONE_BY_ONE", 1)
    monkeypatch.setattr(exact_sampling, "_PROBE", 0)     # the first draw is lazy
    monkeypatch.setattr(exact_sampling, "_ROWS_COINS", 10**9)
    paths = []
    lazy, rows = exact_sampling._lazy_permute_and_flip, exact_sampling._uniform_head_per_row
    flip = exact_sampling._Coins.flip
    monkeypatch.setattr(exact_sampling, "_uniform_head_per_row",
                        lambda *args: paths.append("rows") or rows(*args))
    monkeypatch.setattr(exact_sampling._Coins, "flip",
                        lambda self, *args: paths.append("rest") or flip(self, *args))
    monkeypatch.setattr(exact_sampling, "_lazy_permute_and_flip",
                        lambda *args: paths.append("lazy") or lazy(*args))
    scores, expected = SWITCH_CASES[case]
    mech = PermuteAndFlip(1.0)
    draws = mech.sample(scores, 10_000, np.random.default_rng(27), exact=True)
    assert set(paths) - {"lazy"} == expected and paths[0] == "lazy"
    assert chi_square_pvalue(draws, mech.pmf(scores)) > 1e-4


def test_monotonic_and_sensitivity_set_the_exponent():
    scores = np.array([0, -1, -2, -2, -5])
    mech = PermuteAndFlip(0.8, sensitivity=0.5, monotonic=True)
    draws = mech.sample(scores, size=20_000, rng=np.random.default_rng(8), exact=True)
    assert chi_square_pvalue(draws, mech.pmf(scores)) > 1e-4


def test_chi_square_tells_exact_pf_from_em():
    """The same test has power: exact PF draws are far from the EM pmf."""
    scores = np.array([0.0, -1.5, -1.5, -1.5])
    draws = PermuteAndFlip(1.0).sample(scores, 20_000, np.random.default_rng(5), exact=True)
    assert chi_square_pvalue(draws, ExponentialMechanism(1.0).pmf(scores)) < 1e-6


def test_standalone_functions_take_fraction_parameters():
    scores = [Fraction(5, 2), 1, Fraction(-1, 3)]
    epsilon, sensitivity = Fraction(3, 2), Fraction(3, 4)
    pf = permute_and_flip_exact(scores, epsilon, sensitivity, count=20_000,
                                rng=np.random.default_rng(9))
    em = exponential_mechanism_exact(scores, epsilon, sensitivity, count=20_000,
                                     rng=np.random.default_rng(10))
    q = np.array([float(v) for v in scores])
    assert chi_square_pvalue(pf, PermuteAndFlip(1.5, 0.75).pmf(q)) > 1e-4
    assert chi_square_pvalue(em, ExponentialMechanism(1.5, 0.75).pmf(q)) > 1e-4


def test_shapes_single_candidate_and_zero_draws():
    mech = PermuteAndFlip(1.0)
    one = mech.sample([4, 1, 0], exact=True)
    assert isinstance(one, int) and 0 <= one < 3
    assert mech.sample([4, 1, 0], size=(2, 3), exact=True).shape == (2, 3)
    assert mech.sample([7], size=5, exact=True).tolist() == [0] * 5
    assert ExponentialMechanism(1.0).sample([1, 2], size=0, exact=True).shape == (0,)


def test_a_far_below_candidate_is_never_drawn_but_ties_split_evenly():
    scores = np.array([10**6, 10**6, 0])
    draws = PermuteAndFlip(1.0).sample(scores, 20_000, np.random.default_rng(11), exact=True)
    counts = np.bincount(draws, minlength=3)
    assert counts[2] == 0 and within_binomial(counts[0], 20_000, 0.5)


# --- Bernoulli(exp(-x)) and Bernoulli(p) ------------------------------------------------

X_GRID = [0, Fraction(1, 7), Fraction(1, 2), 1, Fraction(3, 2), 2, 3, Fraction(16, 3), 8,
          Fraction(37, 4), 12, 0.1, Fraction(10**30 + 1, 10**30),
          Fraction(2**62, 2**62 + 1)]   # K h > 2^63 from round K = 2


@pytest.mark.parametrize("x", X_GRID, ids=str)
def test_bernoulli_exp_frequency(x):
    """400000 coins: within 5 binomial standard errors of exp(-x)."""
    trials = 400_000
    heads = int(bernoulli_exp(x, trials, np.random.default_rng(12)).sum())
    assert within_binomial(heads, trials, math.exp(-float(x)))


@pytest.mark.parametrize("x", X_GRID, ids=str)
def test_one_coin_at_a_time_frequency(x):
    """exp_coin (Python integers), 50000 coins: within 5 binomial standard errors."""
    source = RandomBytes(np.random.default_rng(28))
    g, h = Fraction(x).as_integer_ratio()
    heads = sum(exp_coin(source, g, h) for _ in range(50_000))
    assert within_binomial(heads, 50_000, math.exp(-float(x)))


def _fake_source(data: bytes) -> RandomBytes:
    source = RandomBytes(np.random.default_rng(0))
    stream = iter(data)
    source._bytes = lambda n: bytes(next(stream) for _ in range(n))
    return source


@pytest.mark.parametrize("m", range(BULK_UNITS + 1))
def test_unit_blocks_are_products_of_exp_minus_one(m):
    """unit_blocks(m) is heads with probability exp(-m) (decomposition of large x)."""
    trials = 1_000_000 if m >= 6 else 200_000
    heads = int(unit_blocks(RandomBytes(np.random.default_rng(13 + m)),
                            np.full(trials, m, dtype=np.uint8)).sum())
    assert within_binomial(heads, trials, math.exp(-m))


@pytest.mark.parametrize("x", [50, Fraction(148, 3), Fraction(123, 7), 33.3, 8, Fraction(1, 3)],
                         ids=str)
def test_bernoulli_exp_decomposes_exactly(monkeypatch, x):
    """exp(-x) for x up to 50 is too small to observe; test its structure instead.

    With every unit block forced to pass, the blocks that a coin goes through must have at
    most BULK_UNITS units each and add up to floor(x) exactly, and what remains must be a
    Bernoulli(exp(-(x - floor(x)))) coin.  Together with the unit-block test above
    (each block is heads with probability exp(-m), independently) this gives
    Pr = exp(-floor(x)) exp(-(x - floor(x))) = exp(-x)."""
    sizes = []

    def passing_blocks(source, units):
        assert len(set(units.tolist())) <= 1      # all coins are in the same block
        sizes.append(int(units[0]) if units.size else 0)
        return np.ones(units.size, dtype=bool)

    monkeypatch.setattr(exact_bernoulli, "unit_blocks", passing_blocks)
    trials = 200_000
    heads = int(bernoulli_exp(x, trials, np.random.default_rng(14)).sum())
    value = Fraction(x)
    assert sum(sizes) == math.floor(value)
    assert all(0 < s <= BULK_UNITS for s in sizes)
    assert within_binomial(heads, trials, math.exp(-float(value - math.floor(value))))


def test_bernoulli_exp_of_50_is_tails_and_its_first_block_passes_at_rate_exp_minus_8(
        monkeypatch):
    calls = []

    def recording(source, units):
        result = unit_blocks(source, units)
        calls.append((units.size, int(result.sum())))
        return result

    monkeypatch.setattr(exact_bernoulli, "unit_blocks", recording)
    trials = 1_000_000
    coins = bernoulli_exp(50, trials, np.random.default_rng(15))
    assert not coins.any()
    entered, passed = calls[0]
    assert entered == trials and within_binomial(passed, trials, math.exp(-8))
    assert calls[1][0] == passed


@pytest.mark.parametrize("p", [0, Fraction(1, 3), 0.1, 1,
                               Fraction(2**69, 2**70 + 1), Fraction(1, 3 * 2**64)], ids=str)
def test_bernoulli_frequency(p):
    trials = 200_000
    heads = int(bernoulli(p, trials, np.random.default_rng(16)).sum())
    assert within_binomial(heads, trials, float(p))


def test_large_denominator_ratio_resolves_ties_exactly():
    """h > 2^63: a uniform U in [0, 1) is compared with f/h 32 bits at a time.  Script U's
    words to equal the first two base-2^32 digits of f/h, then go one below / above."""
    f, h = 2**70 + 12345, 3 * 2**70 + 7
    digits, rest = [], Fraction(f, h)
    for _ in range(4):
        rest *= 2**32
        digits.append(math.floor(rest))
        rest -= digits[-1]
    assert 0 < digits[2] < 2**32 - 1 and digits[3] < 2**32 - 1
    table = Ratios(np.array([f], dtype=object), h)
    for last, expected in ((digits[2] - 1, True), (digits[2], False), (digits[2] + 1, False)):
        words = digits[:2] + [last] + [2**32 - 1] * 4
        data = b"".join(w.to_bytes(4, "little") for w in words)
        heads = table.coins(_fake_source(data), np.zeros(1, dtype=np.int64))
        # U = 0.d1 d2 last (2^32 - 1) ... in base 2^32 and f/h = 0.d1 d2 d3 d4 ... with
        # d4 < 2^32 - 1: U < f/h iff last < d3.
        assert bool(heads[0]) is expected


def test_uniform_integers_are_uniform():
    source = RandomBytes(np.random.default_rng(17))
    for bound in (3, 5, 1000, 2**40 + 3):
        draws = source.below(bound, 60_000)
        assert draws.min() >= 0 and draws.max() < bound
        binned = draws * 10 // bound if bound > 1000 else draws
        cells = min(bound, 10) if bound > 1000 else bound
        assert stats.chisquare(np.bincount(binned, minlength=cells)).pvalue > 1e-4
    for bound in (1, 3, 5, 256, 1000, 2**70 + 3):
        draws = np.array([source.integer_below(bound) for _ in range(20_000)], dtype=object)
        assert draws.min() >= 0 and draws.max() < bound
        binned = (draws * 10 // bound if bound > 1000 else draws).astype(np.int64)
        cells = min(bound, 10) if bound > 1000 else bound
        if cells > 1:
            assert stats.chisquare(np.bincount(binned, minlength=cells)).pvalue > 1e-4
    bounds = np.array([1, 2, 3, 7, 2**62], dtype=np.int64).repeat(20_000)
    draws = source.below_each(bounds)
    assert ((draws >= 0) & (draws < bounds)).all()
    for b in (3, 7):
        assert stats.chisquare(np.bincount(draws[bounds == b], minlength=b)).pvalue > 1e-4


# --- exact arithmetic: brute-force Fraction references, no floats --------------------------

def _reference_units(scores, exponent, limit):
    exact = [as_fraction(v) for v in scores]
    top = max(exact)
    return [min(math.floor(exponent * (top - v)), limit) for v in exact]


UNIT_CASES = [
    # integer scores exactly on the thresholds q* - m / c (c = 1/2: every 2 points)
    (np.arange(0, -40, -1), Fraction(1, 2)),
    (np.array([2**62, -2**62, 0, 2**62 - 15]), Fraction(1, 2)),        # int64 overflow
    (np.array([2**63 + 5, 3], dtype=np.uint64), Fraction(1, 3)),        # beyond int64
    # floats on and next to the thresholds (c = 1.3 / 2 as the float 1.3 denotes)
    (np.array([0.0, -1 / 0.65, np.nextafter(-1 / 0.65, 1), -2 / 0.65, -12.3, 1e-300]),
     exact_exponent(1.3, 1, False)),
    (np.array([1e300, -1e300, 5e-324, 0.0]), Fraction(1, 2)),            # huge spread
    # tau_1 = -10/3 is no double: the doubles on either side of it
    (np.array([0.0, float(Fraction(-10, 3)), np.nextafter(float(Fraction(-10, 3)), 0),
               np.nextafter(float(Fraction(-10, 3)), -1), -20 / 3]), Fraction(3, 10)),
    ([Fraction(1, 3), Fraction(-5, 3), Fraction(-11, 3), -7], Fraction(3, 4)),
]


@pytest.mark.parametrize("case", range(len(UNIT_CASES)))
def test_threshold_classes_and_exponents_match_fractions(case):
    scores, exponent = UNIT_CASES[case]
    exact = ExactScores.from_input(scores)
    thresholds = exact.unit_thresholds(exponent, BULK_UNITS)
    assert exact.units(thresholds).tolist() == _reference_units(scores, exponent, BULK_UNITS)
    assert exact.units(thresholds, np.array([1, 0])).tolist() == \
        _reference_units(scores, exponent, BULK_UNITS)[1::-1]
    idx = np.arange(exact.size)[::-1]
    g, h, index = exact.exponents(exponent, idx)
    top = max(as_fraction(v) for v in scores)
    expected = [exponent * (top - as_fraction(scores[i])) for i in idx]
    assert [Fraction(int(g[j]), h) for j in index] == expected
    one_at_a_time = [exact.exponent_of(exponent, int(i)) for i in idx]
    assert all(type(g) is int and type(h) is int for g, h in one_at_a_time)
    assert [Fraction(g, h) for g, h in one_at_a_time] == expected


def test_exp_coins_accept_python_int_tables():
    """Exponents beyond int64 (object tables) give the same coins' law."""
    source = RandomBytes(np.random.default_rng(18))
    g = np.array([2**70 * 3, 2**70 // 2], dtype=object)        # x = 3 and 1/2
    heads = exp_coins(source, g, 2**70, np.repeat([0, 1], 100_000))
    assert within_binomial(int(heads[:100_000].sum()), 100_000, math.exp(-3))
    assert within_binomial(int(heads[100_000:].sum()), 100_000, math.exp(-0.5))


def _is_exact(value) -> bool:
    if isinstance(value, (ExactScores, Ratios)):
        return all(_is_exact(v) for v in vars(value).values())
    if isinstance(value, (float, complex, np.floating, np.complexfloating)):
        return False
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "fc":
            return False
        if value.dtype == object:
            return all(v is None or isinstance(v, (int, Fraction))   # None: not filled yet
                       for v in value.ravel().tolist())
    if isinstance(value, (list, tuple)):
        return all(_is_exact(v) for v in value)
    return True


def _trace_exact_modules(run, allowed=frozenset()):
    """Run ``run()`` and fail if any local variable of any frame in optmech/selection/exact/ ever
    holds a float (or float array) at any line or return, except ``allowed``
    (function name, variable name) pairs; return values are checked too."""
    files = {str(p) for p in EXACT_MODULES}
    bad = []

    def local_tracer(frame, event, arg):
        name = frame.f_code.co_name
        for var, value in frame.f_locals.items():
            if (name, var) not in allowed and not _is_exact(value):
                bad.append((name, var, type(value).__name__))
        if event == "return" and not _is_exact(arg):
            bad.append((name, "<return>", type(arg).__name__))
        return local_tracer

    def global_tracer(frame, event, arg):
        return local_tracer if frame.f_code.co_filename in files else None

    sys.settrace(global_tracer)
    try:
        result = run()
    finally:
        sys.settrace(None)
    assert not bad, sorted(set(bad))[:10]
    return result


@pytest.mark.parametrize("lazy", [False, True], ids=["flip all", "lazy PF"])
def test_no_float_on_the_exact_path_with_fraction_inputs(monkeypatch, lazy):
    """Fraction scores (one with a denominator beyond 2^64) and parameters, through every
    sampler; with ``lazy`` PF takes its lazy path and classifies subsets."""
    if lazy:
        monkeypatch.setattr(exact_sampling, "_LAZY_MIN", 2)
    scores = [Fraction(7, 3), Fraction(-1, 5), 2, Fraction(7, 3), Fraction(-40, 3),
              Fraction(5, 3 * 2**70)]
    for sampler in (permute_and_flip_exact, exponential_mechanism_exact):
        draws = _trace_exact_modules(lambda: sampler(
            scores, Fraction(11, 10), Fraction(1, 2), count=200, rng=np.random.default_rng(19)))
        assert draws.dtype == np.int64 and set(draws.tolist()) <= set(range(6))
    coins = _trace_exact_modules(lambda: bernoulli_exp(Fraction(77, 3), 1000))
    assert coins.dtype == bool


def test_fraction_epsilon_given_to_a_mechanism_stays_exact():
    """A Fraction epsilon reaches the exact path unrounded (traced: no float anywhere)."""
    scores = np.array([Fraction(1, 3), Fraction(-2, 3), Fraction(5, 7)], dtype=object)
    mech = PermuteAndFlip(Fraction(1, 10), sensitivity=Fraction(1, 3))
    draw = _trace_exact_modules(
        lambda: mech.sample(scores, exact=True, rng=np.random.default_rng(21)))
    assert isinstance(draw, int)
    assert exact_exponent(*mech._exact_parameters, False) == Fraction(3, 20)


@pytest.mark.parametrize("x", [0, Fraction(1, 3), 0.6, 2, Fraction(37, 5)], ids=str)
def test_bernoulli_logistic_frequency(x):
    """2-ary randomised response: heads with probability 1 / (1 + e^-x)."""
    trials = 200_000
    heads = int(bernoulli_logistic(x, trials, np.random.default_rng(22)).sum())
    assert within_binomial(heads, trials, 1 / (1 + math.exp(-float(x))))


def test_no_float_after_converting_the_mechanisms_float_epsilon():
    """Through ``sample(exact=True)``: the mechanism stores epsilon and the sensitivity as
    floats; only the parameters that receive them may hold a float."""
    allowed = {("permute_and_flip_exact", "epsilon"), ("permute_and_flip_exact", "sensitivity"),
               ("_run", "epsilon"), ("_run", "sensitivity"),
               ("exact_exponent", "epsilon"), ("exact_exponent", "sensitivity"),
               ("to_fraction", "value")}
    scores = np.array([Fraction(1, 3), Fraction(-2, 3), Fraction(5, 7)], dtype=object)
    draw = _trace_exact_modules(
        lambda: PermuteAndFlip(0.7).sample(scores, exact=True, rng=np.random.default_rng(20)),
        frozenset(allowed))
    assert isinstance(draw, int)


# Functions that read floats exactly (documented in optmech/selection/exact/rationals.py).
FLOAT_READERS = {"to_fraction", "_largest_double_at_most", "_dyadic", "_native"}
FLOAT_NAMES = {"float", "float16", "float32", "float64", "inf", "nan", "frexp", "ldexp",
               "isfinite", "nextafter", "exp", "log", "log1p", "expm1", "sqrt", "uniform",
               "standard_exponential", "exponential", "gumbel", "laplace", "normal"}


def test_exact_modules_have_no_float_operations():
    """Static check: no true division and no float literal anywhere, and float functions
    only inside the documented float readers."""
    for path in EXACT_MODULES:
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            where = f"{path.name}:{getattr(node, 'lineno', '?')}"
            assert not (isinstance(node, (ast.BinOp, ast.AugAssign))
                        and isinstance(node.op, ast.Div)), where
            assert not (isinstance(node, ast.Constant) and isinstance(node.value, float)), where
        for func in [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)]:
            if func.name in FLOAT_READERS:
                continue
            for node in ast.walk(func):
                name = node.attr if isinstance(node, ast.Attribute) else \
                    node.id if isinstance(node, ast.Name) else None
                assert name not in FLOAT_NAMES, f"{path.name}:{node.lineno} in {func.name}"


# --- randomness ---------------------------------------------------------------------------

def test_default_randomness_is_the_os_csprng(monkeypatch):
    used = []
    stand_in = np.random.default_rng(23)

    def token_bytes(n):
        used.append(n)
        return stand_in.bytes(n)

    def no_numpy_generator(*args, **kwargs):
        raise AssertionError("exact mode must not create a numpy generator by default")

    monkeypatch.setattr(secrets, "token_bytes", token_bytes)
    monkeypatch.setattr(np.random, "default_rng", no_numpy_generator)
    assert PermuteAndFlip(1.0).sample([3, 1, 2], exact=True) in (0, 1, 2)
    assert ExponentialMechanism(1.0).sample([3, 1, 2], size=4, exact=True).shape == (4,)
    assert sum(used) > 0


def test_a_seeded_generator_reproduces_draws():
    scores = np.array([0.5, -1.0, 0.25, -3.0])
    first = PermuteAndFlip(1.0).sample(scores, 50, np.random.default_rng(21), exact=True)
    again = PermuteAndFlip(1.0).sample(scores, 50, np.random.default_rng(21), exact=True)
    assert np.array_equal(first, again)


def test_fast_path_is_unchanged_by_the_exact_keyword():
    scores = np.array([0.5, -1.0, 0.25, -3.0])
    for mech in (PermuteAndFlip(1.0), ExponentialMechanism(1.0), ReportNoisyMax(1.0)):
        default = mech.sample(scores, 100, np.random.default_rng(22))
        explicit = mech.sample(scores, 100, np.random.default_rng(22), exact=False)
        assert np.array_equal(default, explicit)


# --- bad input ------------------------------------------------------------------------------

@pytest.mark.parametrize("mech", [ReportNoisyMax(1.0), RandomizedResponse(1.0),
                                  UniformSelection(), ReportNoisyMax(1.0, noise="exponential")],
                         ids=repr)
def test_mechanisms_without_exact_sampler_refuse(mech):
    with pytest.raises(InvalidArgumentError, match="exact"):
        mech.sample([1.0, 2.0], exact=True)


@pytest.mark.parametrize("scores", [[], [[1, 2], [3, 4]], [1.0, float("nan")], [1, math.inf],
                                    np.array([1.0, np.inf]), ["1", "2"], [True, False],
                                    [Decimal("NaN"), 1], [1 + 2j], "abc", 5],
                         ids=repr)
def test_bad_scores_are_refused(scores):
    with pytest.raises(InvalidArgumentError, match="scores"):
        PermuteAndFlip(1.0).sample(scores, exact=True)


@pytest.mark.parametrize("kwargs, argument", [
    ({"epsilon": float("nan")}, "epsilon"), ({"epsilon": 0}, "epsilon"),
    ({"epsilon": Fraction(-1, 2)}, "epsilon"), ({"sensitivity": math.inf}, "sensitivity"),
    ({"rng": 42}, "rng"), ({"count": -1}, "count"),
])
def test_bad_parameters_are_refused(kwargs, argument):
    arguments = {"scores": [1, 2], "epsilon": 1, **kwargs}
    with pytest.raises(InvalidArgumentError, match=argument):
        permute_and_flip_exact(**arguments)


def test_bad_exact_flag_and_coin_parameters_are_refused():
    with pytest.raises(InvalidArgumentError, match="exact"):
        PermuteAndFlip(1.0).sample([1, 2], exact="yes")
    with pytest.raises(InvalidArgumentError, match="x"):
        bernoulli_exp(-1)
    with pytest.raises(InvalidArgumentError, match="p"):
        bernoulli(Fraction(3, 2))
