"""Fuzzing the command line: every subcommand, hostile values, one contract.

The contract (the CLI's exit statuses): every run ends with

* exit 0, a finite result on stdout (no NaN, infinity or null; ``--json`` output parses
  as strict JSON), and nothing on stderr but ``optmech: note:`` / ``optmech: warning:``
  lines; or
* exit 1 (could not finish) or 2 (bad input), with exactly one ``optmech: error:`` line on
  stderr and no internal error;

never a traceback, a Python warning, or a hang.  Hypothesis draws option values from
float extremes, tiny and huge magnitudes, negative lists (in both ``--opt -x,y`` and
``--opt=-x,y`` spellings), empty and garbage strings, huge sizes and bad paths; sizes of
valid runs are kept small so the suite stays fast, and huge ones must be refused up front.
Runs are in-process (``optmech.cli.main``) with a SIGALRM watchdog, and derandomised, so CI
sees the same inputs every time.  ``OPTMECH_FUZZ_EXAMPLES`` raises the number of examples
per command for a longer local run.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import signal
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optmech.cli import main
from tests.cli_helpers import without_status

EXAMPLES = int(os.environ.get("OPTMECH_FUZZ_EXAMPLES", "25"))
# Commands whose valid runs take a second or so get fewer examples in the default suite.
SLOW_COMMANDS = {"hetero": 0.6, "multiselect-cost": 0.6, "proofs": 0.4}
WATCHDOG_SECONDS = 60
NON_FINITE = re.compile(r"(?<![A-Za-z_])(nan|inf|-inf|null|NaN|Infinity|-Infinity)"
                        r"(?![A-Za-z_])")


class Hang(BaseException):
    """Raised by the watchdog inside a run that takes too long."""


def _alarm(signum, frame):
    raise Hang


def run(argv: list[str]) -> tuple[object, str, str]:
    """``(exit status, stdout, stderr)`` of ``optmech ARGV`` in this process; a status of
    ``"hang"`` or ``"escaped: <exception>"`` breaks the contract."""
    out, err = io.StringIO(), io.StringIO()
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(WATCHDOG_SECONDS)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), \
                warnings.catch_warnings():
            warnings.simplefilter("always")         # a warning must show, not vanish
            try:
                code = main(argv)
            except SystemExit as stop:
                code = stop.code
            except Hang:
                code = "hang"
            except BaseException as error:  # noqa: BLE001 - what escaped is the finding
                code = f"escaped: {type(error).__name__}: {error}"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    return code, out.getvalue(), err.getvalue()


def _strict_json(text: str):
    def refuse(constant):
        raise ValueError(f"non-finite constant {constant}")
    return json.loads(text, parse_constant=refuse)


def _nulls(value) -> bool:
    if value is None:
        return True
    if isinstance(value, dict):
        return any(_nulls(v) for v in value.values())
    if isinstance(value, list):
        return any(_nulls(v) for v in value)
    return False


def check_contract(argv: list[str]) -> None:
    code, out, err = run(argv)
    shown = " ".join(argv)
    lines = [line for line in without_status(err) if line.strip()]
    notes = [line for line in lines
             if line.startswith(("optmech: note:", "optmech: warning:"))]
    errors = [line for line in lines if line.startswith("optmech: error:")]
    assert code in (0, 1, 2), f"{shown}: status {code!r}\n{err[-2000:]}"
    assert "Traceback" not in err and "Warning:" not in err, f"{shown}: {err[-2000:]}"
    if code == 0:
        assert lines == notes, f"{shown}: exit 0 with stderr {err[-1000:]!r}"
        if "--json" in argv:
            payload = _strict_json(out)
            assert not _nulls(payload), f"{shown}: null in {out[:500]}"
        else:
            assert not NON_FINITE.search(out), f"{shown}: non-finite output {out[:1000]!r}"
    else:
        assert len(errors) == 1 and len(lines) == len(errors) + len(notes), \
            f"{shown}: exit {code} with stderr {err[-1000:]!r}"
        assert "internal error" not in err, f"{shown}: {err}"


# --- value strategies -------------------------------------------------------------------

GARBAGE = st.sampled_from(["", " ", "abc", "1,,2", "0x10", "1_000", "--", "-", "1e", ",",
                           "é", "1;2", "[1]", "None", "True"])
EXTREME_FLOATS = st.sampled_from([
    "0", "-0", "-0.0", "1", "0.5", "2", "-1", "-0.984", "1e-308", "5e-324", "2.5e-308",
    "1e-300", "1e-12", "1e9", "-1e9", "1e300", "1e308", "-1e308", "1.7976931348623157e308",
    "nan", "NaN", "inf", "-inf", "Infinity", "1e999", "-1e999", "700", "745", "1e6"])
ANY_FLOAT = st.one_of(EXTREME_FLOATS, GARBAGE,
                      st.floats(allow_nan=True, allow_infinity=True).map(repr),
                      st.floats(min_value=1e-3, max_value=50).map(lambda x: f"{x:.6g}"))
HUGE_INTS = st.sampled_from(["2147483648", "9223372036854775808", "1000000000000",
                             "300000000", "100000000", "99999999999999999999999999", "10**9"])
ANY_INT = st.one_of(st.integers(min_value=-2, max_value=6).map(str), HUGE_INTS, GARBAGE,
                    st.sampled_from(["1.5", "-1", "0"]))
FLOAT_LIST = st.one_of(
    st.lists(st.one_of(EXTREME_FLOATS, st.floats(min_value=-10, max_value=10)
                       .map(lambda x: f"{x:.4g}")), min_size=1, max_size=6).map(",".join),
    GARBAGE)
SCORE_LIST = st.lists(st.one_of(st.floats(-1e3, 1e3).map(lambda x: f"{x:.5g}"),
                                st.sampled_from(["-1e9", "1e9", "0", "-1e6", "1e-300"])),
                      min_size=1, max_size=8).map(",".join)
SEEDS = st.one_of(st.sampled_from(["-1", "18446744073709551616", "1.5", "x", ""]),
                  st.integers(min_value=-(2**70), max_value=2**70).map(str))
EPS = st.one_of(st.sampled_from(["0.5", "1", "0.1", "2", "1.3", "0.05"]),
                st.floats(min_value=1e-6, max_value=100).map(lambda x: f"{x:.6g}"))
FLAG = st.just(None)                 # a flag present without a value
NO_VALUE = st.just("")               # hostile value of a flag: "--flag="


def names(*valid: str) -> st.SearchStrategy:
    return st.sampled_from(list(valid))


def grid(valid_ends: list[str]):
    """START:STOP:NUM grids (also :log), or comma lists."""
    ends = st.sampled_from(valid_ends)
    return st.one_of(
        st.tuples(ends, ends, st.sampled_from(["1", "2", "3"]), st.sampled_from(["", ":log"]))
        .map(lambda t: f"{t[0]}:{t[1]}:{t[2]}{t[3]}"),
        st.lists(ends, min_size=1, max_size=3).map(",".join))


def hostile_grid():
    parts = st.one_of(EXTREME_FLOATS, GARBAGE)
    nums = st.sampled_from(["0", "-1", "100000000", "1.5", "x", "10001", "1"])
    spacing = st.sampled_from(["", ":log", ":lin", ":log:x"])
    return st.one_of(st.tuples(parts, parts, nums, spacing)
                     .map(lambda t: f"{t[0]}:{t[1]}:{t[2]}{t[3]}"), FLOAT_LIST)


def bad_paths(tmp: str, suffix: str):
    return st.sampled_from([f"{tmp}/missing/dir/out{suffix}", f"{tmp}/out.txt",
                            f"{tmp}/existing_file", "", "/proc/version", "/", tmp])


# --- the commands -------------------------------------------------------------------------
# Each spec: the command words, then option -> (valid values, hostile values, required).
# Every option present takes a hostile value one time in eight; a required option is left
# out one time in twelve and an optional one added two times in five; values are spelt
# either "--opt value" or "--opt=value".

def specs(tmp: str) -> dict:
    png = st.sampled_from([f"{tmp}/out.png", f"{tmp}/new_dir/../out2.png"])
    cache = st.sampled_from([f"{tmp}/cache", f"{tmp}/new_dir"])
    return {
        "select": (["select"], {
            "": (names("pmf", "error", "sample"), names("bogus", ""), True),
            "--mechanism": (names("pf", "em", "rnm-laplace", "rnm-gumbel", "rnm-exponential",
                                  "rr", "uniform"), names("rnm_laplace", "bogus", ""), True),
            "--scores": (SCORE_LIST, FLOAT_LIST, True),
            "--eps": (EPS, ANY_FLOAT, True),
            "--sensitivity": (st.sampled_from(["1", "0.5", "3", "1e-6", "1e6"]), ANY_FLOAT,
                              False),
            "--monotonic": (FLAG, NO_VALUE, False),
            "--size": (names("1", "5", "100"), st.one_of(HUGE_INTS, GARBAGE, ANY_INT), False),
            "--seed": (names("0", "1", "42", "18446744073709551615"), SEEDS, False),
            "--json": (FLAG, NO_VALUE, False)}),
        "data": (["data", "error"], {
            "--dataset": (names("HEPTH", "INCOME", "MEDCOST", "PATENT", "SEARCHLOGS",
                                "NETFLIX", "ADULTFRANK", f"{tmp}/hist.csv", f"{tmp}/hist.npy"),
                          names("ADULT", f"{tmp}/bad.csv", f"{tmp}/missing.npy", "",
                                f"{tmp}/existing_file"), True),
            "--task": (names("mode", "median"), names("mean", ""), True),
            "--eps": (st.one_of(EPS, names("1e-4", "10", "0.01")), ANY_FLOAT, True),
            "--bins": (names("1024", "4096", "2", "1"), ANY_INT, False),
            "--monotonic": (FLAG, NO_VALUE, False),
            "--json": (FLAG, NO_VALUE, False)}),
        # Two trials first (a later --trials overrides them): the default 50 trials of every
        # mechanism take seconds per run.
        "hetero": (["hetero", "run", "--trials", "2"], {
            "--scenario": (names("1", "2", "3", "4", "5", "6", "7", "8", "sweep:0.3",
                                 "sweep:-5"),
                           names("0", "9", "sweep:x", "sweep:inf", "sweep:1e308", ""), True),
            "--eps": (grid(["0.1", "1", "10"]), hostile_grid(), True),
            "--trials": (names("1", "2", "3"), st.one_of(HUGE_INTS, ANY_INT), False),
            "--mechanisms": (names("rnm,gem", "mgem", "uniform,rs_gamma", "combined_gem",
                                   "rs_gamma_tnb"), names("rnmh", "", "rnm,,gem"), False),
            "--seed": (names("0", "7"), SEEDS, False),
            "--plot": (png, bad_paths(tmp, ".png"), False),
            "--workers": (names("1", "2", "100000"), names("0", "-3", "x"), False),
            # (an unreachable scheduler costs the 5 s connection timeout: covered by
            # tests/optmech/test_sweep.py, not drawn here)
            "--dask-scheduler": (names("bogus"), names("tcp://", "http://x:1", ""), False),
            "--cache": (cache, bad_paths(tmp, ""), False),
            "--json": (FLAG, NO_VALUE, False)}),
        "lattice-solve": (["lattice", "solve"], {
            "--n": (names("2", "3", "4"), st.one_of(ANY_INT, names("171", "32768", "40000")),
                    True),
            "--k": (names("1", "2", "3"), ANY_INT, True),
            "--eps": (st.one_of(EPS, names("700", "1e-300", "0.68")), ANY_FLOAT, True),
            "--mechanisms": (names("pf", "em,pf", "rnm_laplace", "rnm-laplace"),
                             names("bogus", "", "pf,,em"), False),
            "--weighting": (names("lattice", "cube"), names("box"), False),
            "--constraints": (names("regular", "paper"), names("dp"), False),
            "--method": (names("auto", "simplex", "ipm", "pdlp"), names("magic"), False),
            "--time-limit": (names("10", "0.001", "1e6"), ANY_FLOAT, False),
            "--json": (FLAG, NO_VALUE, False)}),
        "lattice-ratio": (["lattice", "ratio"], {
            "--n": (names("2", "3", "3,4"), names("-3,4", "1", "0", "x", "2,,3", "40000"), True),
            "--k": (names("1", "2", "1,2"), names("0", "-2", "x"), True),
            "--eps": (grid(["0.1", "1", "0.5"]), hostile_grid(), True),
            "--mechanisms": (names("pf", "pf,em", "rnm_laplace"), names("x"), False),
            "--plot": (png, bad_paths(tmp, ".png"), False),
            "--time-limit": (names("10", "1e6"), ANY_FLOAT, False),
            "--workers": (names("1", "2", "100000"), names("0"), False),
            "--cache": (cache, bad_paths(tmp, ""), False),
            "--json": (FLAG, NO_VALUE, False)}),
        "multiselect-cost": (["multiselect", "cost"], {
            "--k": (names("1", "2", "3", "4", "7", "1000"), st.one_of(HUGE_INTS, ANY_INT), True),
            "--eps": (st.one_of(EPS, names("1e-300", "1e300")), ANY_FLOAT, True),
            "--h": (names("identity", "square", "sqrt", "cube", "log1p"), names("x"), False),
            "--noise": (names("laplace", "gaussian", "logistic"), names("cauchy"), False),
            "--json": (FLAG, NO_VALUE, False)}),
        # A small grid first (a later --grid overrides it): the default grid with the
        # joint method is a valid but 50-second solve.
        "multiselect-dilp": (["multiselect", "dilp", "--grid", "40"], {
            "--k": (names("1", "2", "3"), st.one_of(HUGE_INTS, ANY_INT), True),
            "--eps": (st.one_of(EPS, names("1e-12", "0.375")), ANY_FLOAT, True),
            "--h": (names("identity", "square"), names("x"), False),
            "--ring": (FLAG, NO_VALUE, False),
            "--grid": (names("15", "40", "60"), st.one_of(HUGE_INTS, ANY_INT), False),
            "--method": (names("chains", "joint"), names("x"), False),
            "--plot": (png, bad_paths(tmp, ".png"), False),
            "--json": (FLAG, NO_VALUE, False)}),
        "multiselect-sample": (["multiselect", "sample"], {
            "--k": (names("1", "2", "3", "5"), st.one_of(HUGE_INTS, ANY_INT), True),
            "--eps": (st.one_of(EPS, names("1e-308", "1e300")), ANY_FLOAT, True),
            "--h": (names("identity", "square"), names("x"), False),
            "--noise": (names("laplace", "gaussian", "logistic"), names("x"), False),
            "--size": (names("2", "10", "1000"), st.one_of(HUGE_INTS, ANY_INT), False),
            "--seed": (names("0", "3"), SEEDS, False),
            "--user": (names("0", "-5", "1e300", "-1e308"), ANY_FLOAT, False),
            "--json": (FLAG, NO_VALUE, False)}),
        "secretary-profile": (["secretary", "profile"], {
            "--n": (names("2", "3", "10", "100", "1000000"), ANY_INT, True),
            "--p": (names("0", "0.5", "1", "0.999"), ANY_FLOAT, True),
            "--l": (names("1", "2"), ANY_INT, False),
            "--delta": (names("0", "0.01", "1"), ANY_FLOAT, False),
            "--eps": (st.one_of(EPS, names("0", "700")), ANY_FLOAT, False),
            "--json": (FLAG, NO_VALUE, False)}),
        "secretary-optimal": (["secretary", "optimal"], {
            "--n": (names("2", "3", "8", "20"), ANY_INT, True),
            "--eps": (st.one_of(EPS, names("0", "700")), ANY_FLOAT, True),
            "--delta": (names("0", "0.01", "0.5", "1"), ANY_FLOAT, True),
            "--l": (names("1", "2"), ANY_INT, False),
            "--payoff": (names("best", "top-m", "rank"), names("x"), False),
            "--m": (names("1", "2"), ANY_INT, False),
            "--method": (names("auto", "column-generation", "highs"), names("x"), False),
            "--time-limit": (names("30", "0.01"), ANY_FLOAT, False),
            "--rule": (FLAG, NO_VALUE, False),
            "--plot": (png, bad_paths(tmp, ".png"), False),
            "--json": (FLAG, NO_VALUE, False)}),
        # One cheap identity at a time: the whole check takes some 15 s.
        "proofs": (["proofs", "check", "--only", "secretary.threshold"], {
            "--only": (names("permute_flip.proposition_5"), names("bogus", "", "secretary."),
                       False),
            "--json": (FLAG, NO_VALUE, False)}),
        # The next two never run their (long) main job: one option is always bad.
        "reproduce": (["reproduce", "--only", "nosuch"], {
            "--out": (st.sampled_from([f"{tmp}/report"]), bad_paths(tmp, ""), False),
            "--quick": (FLAG, NO_VALUE, False),
            "--json": (FLAG, NO_VALUE, False)}),
        "bench": (["bench", "--only", "nosuch"], {
            "--quick": (FLAG, NO_VALUE, False)}),
    }


@st.composite
def command_lines(draw, tmp: str, name: str):
    words, options = specs(tmp)[name]
    argv = list(words)
    for option, (valid, hostile, required) in options.items():
        present = draw(st.integers(0, 11)) != 11 if required else draw(st.integers(0, 4)) < 2
        if not present:
            continue
        value = draw(hostile if draw(st.integers(0, 7)) == 7 else valid)
        if option == "":
            argv.append(value)
        elif value is None:
            argv.append(option)
        elif draw(st.booleans()):
            argv.append(f"{option}={value}")
        else:
            argv += [option, value]
    if draw(st.integers(0, 15)) == 15:
        argv.append(draw(st.sampled_from(["--max-memory", "--max-memory=1KB",
                                          "--max-memory=1e30", "--max-memory=64GiB",
                                          "--bogus", "extra"])))
    return argv


@pytest.fixture(scope="module")
def fuzz_dir(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("fuzz")
    (tmp / "existing_file").write_text("x")
    (tmp / "hist.csv").write_text("3\n1\n0\n4\n")
    (tmp / "bad.csv").write_text("1\n-2\nx\n")
    import numpy as np

    np.save(tmp / "hist.npy", np.array([5, 3, 3, 0]))
    return str(tmp)


@pytest.mark.parametrize("name", list(specs("/tmp")))
def test_every_command_keeps_the_contract(fuzz_dir, name):
    @settings(max_examples=max(5, int(EXAMPLES * SLOW_COMMANDS.get(name, 1.0))), deadline=None,
              derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(argv=command_lines(fuzz_dir, name))
    def fuzz(argv):
        check_contract(argv)

    fuzz()


@pytest.mark.parametrize("argv", [
    # negative numbers in list options, both spellings
    ["select", "pmf", "--mechanism", "pf", "--scores", "-0.984,-1.241,0.98", "--eps", "1"],
    ["select", "pmf", "--mechanism", "pf", "--scores=-0.984,-1.241,0.98", "--eps", "1"],
    ["select", "error", "--mechanism", "em", "--scores", "-1e9,-1e9", "--eps", "1"],
    ["hetero", "run", "--scenario", "sweep:-5", "--eps", "1", "--trials", "2"],
    ["lattice", "ratio", "--n", "3", "--k", "2", "--eps", "0.5:1:2", "--json"],
])
def test_negative_and_list_values_are_read_as_values(argv):
    code, out, err = run(argv)
    assert code == 0 and err == "", err
