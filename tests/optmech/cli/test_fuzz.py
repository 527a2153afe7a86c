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
Runs are in-process (``optmech.cli.main``) with a watchdog on the CPU time the run uses
(and a far longer one on wall time, for a run blocked without using CPU), so a loaded
machine does not turn a slow run into a "hang"; they are derandomised, so CI sees the same
inputs every time.  ``OPTMECH_FUZZ_EXAMPLES`` raises the number of examples
per command for a longer local run.

The second half fuzzes whole *classes* of faults, each input in its own ``optmech``
process (so a hang inside a solver, a blocking open or a process left behind is seen):
work options far beyond any budget, FIFOs and over-long or unwritable paths as outputs,
Dask addresses that pass a syntax check but lead nowhere, grids and parameters whose
arithmetic overflows a double, privacy parameters over the whole double range, and keys
naming internal parameters.  Every input is classified (hang, internal error, exit 1 on bad
input, exit 1 on valid input, orphaned process, refusal naming no option, other breach);
the test fails on any breach and prints the tally (``OPTMECH_FUZZ_TALLY=FILE`` also writes
it as JSON).
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import re
import signal
import subprocess
import sys
import time
import uuid
import warnings
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from optmech.cli import main
from tests.cli_helpers import without_status

EXAMPLES = int(os.environ.get("OPTMECH_FUZZ_EXAMPLES", "25"))
# Commands whose valid runs take a second or more get fewer examples in the default suite
# (multiselect dilp solves an LP of up to --grid 60 per input: 2.8 s each, measured).
SLOW_COMMANDS = {"hetero": 0.6, "multiselect-cost": 0.6, "proofs": 0.4,
                 "multiselect-dilp": 0.2, "select-search": 0.4}
WATCHDOG_CPU_SECONDS = 60       # CPU time of one in-process run before it counts as a hang
WATCHDOG_WALL_SECONDS = 900     # a run blocked without using CPU (a FIFO, a socket)
ORPHAN_WAIT_SECONDS = 120       # how long a process left by a run may take to go away
NON_FINITE = re.compile(r"(?<![A-Za-z_])(nan|inf|-inf|null|NaN|Infinity|-Infinity)"
                        r"(?![A-Za-z_])")


# breaches found, by fuzzed command or fault class (written out by _write_tally)
TALLY: dict[str, dict] = {}


class Hang(BaseException):
    """Raised by the watchdog inside a run that takes too long."""


def _alarm(signum, frame):
    raise Hang


def run(argv: list[str]) -> tuple[object, str, str]:
    """``(exit status, stdout, stderr)`` of ``optmech ARGV`` in this process; a status of
    ``"hang"`` or ``"escaped: <exception>"`` breaks the contract."""
    out, err = io.StringIO(), io.StringIO()
    previous = (signal.signal(signal.SIGALRM, _alarm), signal.signal(signal.SIGPROF, _alarm))
    signal.setitimer(signal.ITIMER_PROF, WATCHDOG_CPU_SECONDS)
    signal.alarm(WATCHDOG_WALL_SECONDS)
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
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGALRM, previous[0])
        signal.signal(signal.SIGPROF, previous[1])
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


def _processes() -> dict[int, tuple[int, str]]:
    """``{pid: (parent pid, state)}`` of every process (from /proc)."""
    table = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            table[int(entry.name)] = (int(fields[1]), fields[0])
    return table


def _descendants() -> set[int]:
    """Descendants of this process that are running (zombies excluded)."""
    table = _processes()
    family, alive = {os.getpid()}, set()
    for _ in range(4):                      # children, grandchildren, ...
        for pid, (parent, state) in table.items():
            if parent in family and pid not in family:
                family.add(pid)
                if state != "Z":
                    alive.add(pid)
    return alive


def _live_children(before: set[int]) -> int:
    """Descendants started since ``before`` was taken and still running a while after a
    run: pool workers that outlived their command (killed here once counted).  Processes
    that earlier tests of this worker left (a multiprocessing resource tracker, a Dask
    cluster of a fixture) are not the run's.  The wait ends as soon as they are gone; its
    bound is reached only by a process that stays (a breach), whatever the load."""
    deadline = time.monotonic() + ORPHAN_WAIT_SECONDS
    while True:
        alive = _descendants() - before
        if not alive or time.monotonic() > deadline:
            for pid in alive:
                with contextlib.suppress(OSError):
                    os.kill(pid, signal.SIGKILL)
            return len(alive)
        time.sleep(0.1)


def contract_breaches(argv: list[str]) -> list[str]:
    """The ways one in-process run of ``optmech ARGV`` breaks the contract (empty if none),
    each as ``"<class>: <detail>"`` with a class of :data:`BREACHES`."""
    before = _descendants()
    code, out, err = run(argv)
    lines = [line for line in without_status(err) if line.strip()]
    notes = [line for line in lines
             if line.startswith(("optmech: note:", "optmech: warning:"))]
    errors = [line for line in lines if line.startswith("optmech: error:")]
    found = []
    if code == "hang":
        found.append("hang")
    elif code not in (0, 1, 2) or "Traceback" in err or "internal error" in err:
        found.append(f"internal error: status {code!r}, {err[-500:]!r}")
    elif "Warning:" in err:
        found.append(f"other breach: a Python warning on stderr {err[-500:]!r}")
    elif code == 0:
        if lines != notes:
            found.append(f"other breach: exit 0 with stderr {err[-500:]!r}")
        elif "--json" in argv:
            try:
                if _nulls(_strict_json(out)):
                    found.append(f"other breach: null in {out[:300]}")
            except ValueError as error:
                found.append(f"other breach: not strict JSON ({error})")
        elif NON_FINITE.search(out):
            found.append(f"other breach: non-finite output {out[:300]!r}")
    elif len(errors) != 1 or len(lines) != len(errors) + len(notes):
        found.append(f"other breach: exit {code} with stderr {err[-500:]!r}")
    elif code == 1 and ("numerical warning" in errors[0] or "[Errno" in errors[0]):
        # bad input refused late, or valid input that started and then failed
        found.append(f"exit 1 on bad input: {errors[0]}")
    elif code == 2 and not ("--" in errors[0] or ARGPARSE_WORDING.search(errors[0])):
        found.append(f"refusal naming no option: {errors[0]}")
    orphans = _live_children(before)
    if orphans:
        found.append(f"orphaned process: {orphans} left running")
    return found


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
                            f"{tmp}/existing_file", "", "/proc/version", "/", tmp,
                            f"{tmp}/{'x' * 300}{suffix}", f"/proc/optmech-out{suffix}",
                            f"{tmp}/fifo{suffix}"])


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
        "topk": (["topk"], {
            "": (names("pmf", "error", "sample"), names("lp-bogus", ""), True),
            "--mechanism": (names("peel-em", "peel-pf", "gumbel", "joint-em", "joint-pf",
                                  "canonical-lipschitz", "peel_em"), names("joint", ""), True),
            "--scores": (SCORE_LIST, FLOAT_LIST, True),
            "--top": (names("1", "2", "3"), st.one_of(HUGE_INTS, ANY_INT), True),
            "--eps": (EPS, ANY_FLOAT, True),
            "--sensitivity": (st.sampled_from(["1", "0.5", "3", "1e-6", "1e6"]), ANY_FLOAT,
                              False),
            "--monotonic": (FLAG, NO_VALUE, False),
            "--method": (names("auto", "exact", "monte-carlo"), names("mc", ""), False),
            "--draws": (names("2", "50", "1000"), st.one_of(HUGE_INTS, ANY_INT), False),
            "--size": (names("1", "5", "100"), st.one_of(HUGE_INTS, GARBAGE, ANY_INT), False),
            "--seed": (names("0", "1", "42", "18446744073709551615"), SEEDS, False),
            "--json": (FLAG, NO_VALUE, False)}),
        # Tiny lattices: a valid run solves an LP of at most a few hundred rows per epsilon.
        "topk-lp": (["topk", "lp"], {
            "--n": (names("2", "3", "4"), st.one_of(ANY_INT, names("40", "32768")), True),
            "--k": (names("1", "2"), st.one_of(ANY_INT, names("40")), True),
            "--top": (names("1", "2"), st.one_of(HUGE_INTS, ANY_INT), True),
            "--eps": (grid(["0.1", "1", "0.5", "9"]), hostile_grid(), True),
            "--subsets": (FLAG, NO_VALUE, False),
            "--constraints": (names("regular", "private"), names("paper", ""), False),
            "--objective": (names("l1", "l_1", "l_inf", "k_relative"), names("l2", ""), False),
            "--mechanisms": (names("peel-pf", "joint_em,gumbel", "canonical-lipschitz"),
                             names("pf", "", "peel-pf,,gumbel"), False),
            "--method": (names("auto", "ipm", "simplex"), names("pdlp"), False),
            "--time-limit": (names("10", "1e6"), ANY_FLOAT, False),
            "--plot": (png, bad_paths(tmp, ".png"), False),
            "--csv": (st.sampled_from([f"{tmp}/out.csv"]), bad_paths(tmp, ".csv"), False),
            "--json": (FLAG, NO_VALUE, False)}),
        # --starts sets the work: a few starts at most in a valid run, huge ones refused
        "select-search": (["select", "em-pf-search"], {
            "--n": (names("2", "3", "2,4"), st.one_of(ANY_INT, names("201", "2,,3")), True),
            "--eps": (st.one_of(EPS, names("1e-300", "1e-308", "700", "0.5,2")), FLOAT_LIST,
                      True),
            "--starts": (names("0", "1", "2"), st.one_of(HUGE_INTS, ANY_INT), False),
            "--seed": (names("0", "5"), SEEDS, False),
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
            "--dask-scheduler": (names("bogus"), names("tcp://", "http://x:1", "", "inproc://x",
                                                       "tcp://127.0.0.1:99999",
                                                       "tcp://" + "a" * 3000 + ":1"),
                                 False),
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
    for suffix in ("", ".png"):
        os.mkfifo(tmp / f"fifo{suffix}")
    (tmp / "hist.csv").write_text("3\n1\n0\n4\n")
    (tmp / "bad.csv").write_text("1\n-2\nx\n")
    import numpy as np

    np.save(tmp / "hist.npy", np.array([5, 3, 3, 0]))
    return str(tmp)


@pytest.mark.parametrize("name", list(specs("/tmp")))
def test_every_command_keeps_the_contract(fuzz_dir, name):
    tally = TALLY.setdefault(f"command {name}", {"inputs": 0, **{b: 0 for b in BREACHES}})
    broken: list[str] = []

    @settings(max_examples=max(5, int(EXAMPLES * SLOW_COMMANDS.get(name, 1.0))), deadline=None,
              derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(argv=command_lines(fuzz_dir, name))
    def fuzz(argv):
        found = contract_breaches(argv)
        tally["inputs"] += 1
        for breach in found:
            tally[breach.split(":")[0]] += 1
        broken.extend(f"optmech {_shown(argv)}: {breach}" for breach in found)

    fuzz()
    _write_tally()
    assert not broken, f"{name}: {len(broken)} breaches\n" + "\n".join(broken)


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


# --- classes of faults, each input in its own process ------------------------------------
#
# Each class draws (argv, expected) pairs.  ``expected`` is the set of exit statuses the
# contract allows for that input: {2} for bad input (refused up front), {0, 2} for input
# that must compute or be refused up front (never start and then fail), {0, 1, 2} where
# "could not finish" is a fair answer (an address nothing listens at).

REPO = Path(__file__).resolve().parents[3]
CLASS_EXAMPLES = int(os.environ.get("OPTMECH_FUZZ_CLASS_EXAMPLES", "6"))
# a hang detector only: with --max-work 10 a run ends after a few CPU seconds, however long
# a loaded machine makes that in wall time
CLASS_TIMEOUT = float(os.environ.get("OPTMECH_FUZZ_CLASS_TIMEOUT", "900"))
REFUSE, COMPUTE_OR_REFUSE, FINISH = frozenset({2}), frozenset({0, 2}), frozenset({0, 1, 2})
# What a refusal may say instead of an option: argparse's own lines name the argument.
ARGPARSE_WORDING = re.compile(r"argument|unrecognized arguments|invalid choice|required"
                              r"|^optmech: error: optmech \w+ ")
BREACHES = ("hang", "internal error", "exit 1 on bad input", "exit 1 on valid input",
            "orphaned process", "refusal naming no option", "other breach")

HUGE_WORK = st.sampled_from(["100000", "9223372036854775808", "1000000000", "2147483648"])
BIG_ENDS = st.sampled_from(["1e308", "-1e308", "1.7976931348623157e308",
                            "-1.7976931348623157e308", "1e300", "5e-324", "1e-308", "1"])
# privacy parameters over the whole double range, log-spaced (plus the extreme doubles)
ANY_EPS = st.one_of(st.integers(-323, 308).map(lambda e: f"1e{e}"),
                    st.sampled_from(["5e-324", "2.5e-323", "1.7976931348623157e308",
                                     "2.2250738585072014e-308"]))
SMALL_RUN = ["--trials", "1", "--mechanisms", "uniform,rnm"]


def _long_name(n: int, suffix: str = "") -> str:
    return "x" * n + suffix


def fault_classes(tmp: str) -> dict:
    """class name -> strategy of ``(argv, allowed statuses)``."""
    fifo = f"{tmp}/fifo"
    long_component = st.integers(256, 400).map(_long_name)
    long_path = st.one_of(long_component.map(lambda c: f"{tmp}/{c}"),
                          st.integers(400, 2100).map(
                              lambda n: tmp + "/d" * n))       # over PATH_MAX in total
    unwritable = st.sampled_from(["/proc/optmech-out", "/proc/self/optmech-out",
                                  "/sys/optmech-out"])
    return {
        "huge work": st.one_of(
            st.tuples(HUGE_WORK, st.sampled_from(["3", "10", "2,3"])).map(lambda t: (
                ["select", "em-pf-search", "--n", t[1], "--eps", "1", "--starts", t[0]],
                REFUSE)),
            st.tuples(st.sampled_from(["100000", "1000000", "2147483647", "30000"]),
                      st.sampled_from(["1", "2", "3"]), st.booleans()).map(lambda t: (
                ["multiselect", "dilp", "--k", t[1], "--eps", "1", "--grid", t[0]]
                + (["--ring"] if t[2] else []), REFUSE)),
            st.tuples(st.sampled_from(["100000", "1000000", "10000"]),
                      st.sampled_from(["gaussian", "logistic"]),
                      st.sampled_from(["sqrt", "square", "cube", "log1p"])).map(lambda t: (
                ["multiselect", "cost", "--k", t[0], "--eps", "1", "--noise", t[1],
                 "--h", t[2]], COMPUTE_OR_REFUSE)),
            st.sampled_from(["1000000000", "100000000", "10000000"]).map(lambda t: (
                ["hetero", "run", "--scenario", "4", "--eps", "0.1:10:10000", "--trials", t],
                REFUSE)),
            HUGE_WORK.map(lambda t: (["multiselect", "sample", "--k", "3", "--eps", "1",
                                      "--size", t], COMPUTE_OR_REFUSE))),
        "blocking paths": st.sampled_from([
            (["proofs", "regenerate", "--output", f"{fifo}.md",
              "--claims-output", f"{tmp}/claims.md"], REFUSE),
            (["proofs", "regenerate", "--output", f"{tmp}/identities.md",
              "--claims-output", f"{fifo}.md"], REFUSE),
            (["hetero", "run", "--scenario", "1", "--eps", "1", *SMALL_RUN,
              "--plot", f"{fifo}.png"], REFUSE),
            (["multiselect", "dilp", "--ring", "--k", "1", "--eps", "1", "--grid", "15",
              "--plot", f"{fifo}.png"], REFUSE),
            (["lattice", "ratio", "--n", "2", "--k", "1", "--eps", "1",
              "--plot", f"{fifo}.png"], REFUSE),
            (["hetero", "run", "--scenario", "1", "--eps", "1", *SMALL_RUN,
              "--cache", f"{tmp}/fifo_cache"], frozenset({0})),
            (["hetero", "run", "--scenario", "1", "--eps", "1", *SMALL_RUN,
              "--cache", f"{tmp}/dir_cache"], frozenset({0})),
            (["hetero", "run", "--scenario", "1", "--eps", "1", *SMALL_RUN,
              "--cache", f"{tmp}/zero_cache"], frozenset({0}))]),
        "bad addresses": st.one_of(
            st.sampled_from(["tls://127.0.0.1:1", "inproc://x", "tcp://127.0.0.1:1",
                             "tcp://127.0.0.1:99999", "tcp://127.0.0.1:0", "127.0.0.1:65536",
                             "ucx://127.0.0.1:1", "ws://127.0.0.1:1", "[::1]:1",
                             "tcp://[::1]:1", "tcp://localhost:1", "tcp://-x-:1",
                             "tcp://a..b:1"]),
            st.integers(254, 3000).map(lambda n: f"tcp://{'a' * n}:8786"),
            st.integers(64, 200).map(lambda n: f"tcp://{'a' * n}.local:8786"))
        .map(lambda a: (["hetero", "run", "--scenario", "1", "--eps", "1", *SMALL_RUN,
                         "--dask-scheduler", a], FINISH)),
        "overflowing grids": st.one_of(
            st.tuples(BIG_ENDS, BIG_ENDS, st.sampled_from(["2", "3", "5"]),
                      st.sampled_from(["", ":log"]), st.booleans()).map(lambda t: (
                ["lattice", "ratio", "--n", "2", "--k", "1", f"--eps={t[0]}:{t[1]}:{t[2]}{t[3]}"]
                if t[4] else ["hetero", "run", "--scenario", "1", *SMALL_RUN,
                              f"--eps={t[0]}:{t[1]}:{t[2]}{t[3]}"], COMPUTE_OR_REFUSE)),
            st.integers(10_001, 10_600).map(lambda n: (
                ["lattice", "ratio", "--n", "2", "--k", "1", "--eps",
                 ",".join(["0.5"] * n)], REFUSE)),
            st.sampled_from(["1e200", "1e-308", "1e300"]).map(lambda r: (
                ["lattice", "solve", "--n", "2", "--k", "1", "--eps", "1", "--objective",
                 "weighted", "--weights", f"geometric:{r}"], COMPUTE_OR_REFUSE))),
        "long or unwritable paths": st.one_of(
            st.tuples(st.one_of(long_path, unwritable), st.sampled_from(range(5))).map(
                lambda t: (_path_argv(tmp, t[0], t[1]), REFUSE))),
        "extreme parameters": st.one_of(
            st.tuples(ANY_EPS, st.sampled_from(["1", "2", "3", "4"]),
                      st.sampled_from(["identity", "square", "sqrt", "cube", "log1p"]),
                      st.sampled_from(["laplace", "gaussian", "logistic"])).map(lambda t: (
                ["multiselect", "cost", "--eps", t[0], "--k", t[1], "--h", t[2],
                 "--noise", t[3]], COMPUTE_OR_REFUSE)),
            st.tuples(ANY_EPS, st.sampled_from(["identity", "square"]),
                      st.sampled_from(["laplace", "gaussian"])).map(lambda t: (
                ["multiselect", "sample", "--k", "3", "--eps", t[0], "--h", t[1],
                 "--noise", t[2], "--size", "100", "--seed", "1"], COMPUTE_OR_REFUSE)),
            ANY_EPS.map(lambda e: (["select", "em-pf-search", "--n", "3", "--eps", e,
                                    "--starts", "1"], COMPUTE_OR_REFUSE)),
            st.tuples(ANY_EPS, st.sampled_from(["0.5", "1", "2"])).map(lambda t: (
                ["multiselect", "dilp", "--k", "1", "--eps", t[0], "--grid", "15"]
                + (["--ring"] if t[1] == "2" else []), COMPUTE_OR_REFUSE)),
            st.sampled_from(["sweep:inf", "sweep:-inf", "sweep:nan", "sweep:1e308",
                             "sweep:1e999", "sweep:-1e308"]).map(lambda s: (
                ["hetero", "run", "--scenario", s, "--eps", "1", *SMALL_RUN],
                COMPUTE_OR_REFUSE))),
    }


def _path_argv(tmp: str, path: str, which: int) -> list[str]:
    """A command that writes (or reads) ``path`` through one of its path options."""
    return [
        ["hetero", "run", "--scenario", "1", "--eps", "1", *SMALL_RUN, "--plot",
         path + ".png"],
        ["hetero", "run", "--scenario", "1", "--eps", "1", *SMALL_RUN, "--cache", path],
        ["reproduce", "--only", "selection", "--quick", "--out", path],
        ["proofs", "regenerate", "--output", path + ".md",
         "--claims-output", f"{tmp}/claims.md"],
        ["multiselect", "dilp", "--ring", "--k", "1", "--eps", "1", "--grid", "15", "--plot",
         path + ".png"],
    ][which]


def limit_memory() -> None:
    """In a child process: at most 6 GiB of address space, so a run that reads without end
    (a cache entry linked to /dev/zero) fails there instead of starving the machine."""
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (6 * 2**30, 6 * 2**30))


def _descendants_tagged(tag: str) -> list[int]:
    """Processes whose environment carries ``tag`` (children and grandchildren of a run,
    wherever they were re-parented)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if tag.encode() in (entry / "environ").read_bytes() \
                    and (entry / "stat").read_text().split(")")[-1].split()[0] != "Z":
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def run_in_process(argv: list[str]) -> dict:
    """Run ``optmech ARGV --max-work 10`` as a process: status (``"hang"`` after
    CLASS_TIMEOUT s), stdout, stderr, and the processes it left behind (still alive a while
    after it ended).  With a work budget of 10 CPU seconds every run must end well within the
    timeout, or refuse up front: a hang means a work estimate is missing or wrong."""
    tag = f"OPTMECH_FUZZ_TAG={uuid.uuid4().hex}"
    env = {**os.environ, "OPTMECH_FUZZ_TAG": tag.split("=")[1], "PYTHONWARNINGS": "always"}
    process = subprocess.Popen([sys.executable, "-m", "optmech", *argv, "--max-work", "10"],
                               cwd=REPO, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True, preexec_fn=limit_memory)
    try:
        out, err = process.communicate(timeout=CLASS_TIMEOUT)
        code = process.returncode
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        code = "hang"
    deadline = time.monotonic() + ORPHAN_WAIT_SECONDS
    left = _descendants_tagged(tag)
    while left and time.monotonic() < deadline:
        time.sleep(0.1)
        left = _descendants_tagged(tag)
    for pid in left:                  # the tally counts them; the machine keeps no stray
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    return {"code": code, "out": out, "err": err, "orphans": len(left)}


def classify(argv: list[str], allowed: frozenset, run_result: dict) -> list[str]:
    """The breaches of the contract in one run (an empty list when it kept it)."""
    code, err = run_result["code"], run_result["err"]
    lines = [line for line in without_status(err) if line.strip()]
    errors = [line for line in lines if line.startswith("optmech: error:")]
    found = []
    if code == "hang":
        found.append("hang")
    elif "internal error" in err or "Traceback" in err or code not in (0, 1, 2):
        found.append("internal error")
    elif code == 1 and 1 not in allowed:
        found.append("exit 1 on bad input" if allowed == REFUSE else "exit 1 on valid input")
    elif code not in allowed:
        found.append("other breach")
    if run_result["orphans"]:
        found.append("orphaned process")
    if code == 2 and errors and not ("--" in errors[0] or ARGPARSE_WORDING.search(errors[0])):
        found.append("refusal naming no option")
    if code in (1, 2) and not found and (len(errors) != 1 or "Warning:" in err):
        found.append("other breach")
    return found


@pytest.fixture(scope="module")
def fault_dir(tmp_path_factory):
    """A folder with FIFOs where outputs go, and three poisoned caches of the small hetero
    run: every entry a FIFO, a directory, or a symlink to /dev/zero."""
    tmp = tmp_path_factory.mktemp("faults")
    for name in ("fifo.md", "fifo.png"):
        os.mkfifo(tmp / name)
    argv = ["hetero", "run", "--scenario", "1", "--eps", "1", *SMALL_RUN, "--json"]
    seeded = tmp / "seed_cache"
    done = subprocess.run([sys.executable, "-m", "optmech", *argv, "--cache", str(seeded)],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    entries = sorted(p.name for p in seeded.glob("*.json"))
    assert entries
    for kind in ("fifo", "dir", "zero"):
        cache = tmp / f"{kind}_cache"
        cache.mkdir()
        for name in entries:
            if kind == "fifo":
                os.mkfifo(cache / name)
            elif kind == "dir":
                (cache / name).mkdir()
            else:
                (cache / name).symlink_to("/dev/zero")
    return str(tmp)


@pytest.mark.slow      # an optmech process per input: 75 CPU s for the six classes
@pytest.mark.parametrize("fault_class", list(fault_classes("/tmp")))
def test_every_fault_class_keeps_the_contract(fault_dir, fault_class):
    tally = TALLY.setdefault(fault_class, {"inputs": 0, **{b: 0 for b in BREACHES}})
    broken: list[str] = []

    @settings(max_examples=CLASS_EXAMPLES, deadline=None, derandomize=True, database=None,
              suppress_health_check=list(HealthCheck))
    @given(case=fault_classes(fault_dir)[fault_class])
    def fuzz(case):
        argv, allowed = case
        result = run_in_process(argv)
        found = classify(argv, allowed, result)
        tally["inputs"] += 1
        for breach in found:
            tally[breach] += 1
        if found:
            broken.append(f"{found}: optmech {_shown(argv)} -> {result['code']}: "
                          f"{result['err'].strip()[-300:]}")

    fuzz()
    _write_tally()
    assert not broken, f"{fault_class}: {len(broken)} breaches\n" + "\n".join(broken)


@pytest.mark.parametrize("rate, code", [("1e308", 2), ("1.7976931348623157e308", 2),
                                        ("5e-324", 2), ("1e-300", 0)])
def test_weights_out_of_the_double_range_are_refused_up_front(rate, code):
    # 1e308 * multiplicity overflows; 5e-324 is subnormal (every ratio came out 1.0)
    result = run_in_process(["lattice", "solve", "--n", "2", "--k", "1", "--eps", "1",
                             "--objective", "weighted", "--weights", f"geometric:{rate}",
                             "--json"])
    assert result["code"] == code, result["err"]
    if code == 2:
        assert "--weights" in result["err"], result["err"]
    else:
        # k = 1, n = 2: only the vector (0, -2) errs; PF picks the worse item with
        # probability e^{-eps} / 2, EM with e^{-eps} / (1 + e^{-eps}), and PF is optimal:
        # EM's ratio is 2 / (1 + e^{-eps}) whatever the weight
        document = json.loads(result["out"])
        assert document["ratios"]["em"] == pytest.approx(2 / (1 + math.exp(-1)), rel=1e-12)


def test_a_dataset_name_too_long_is_refused_up_front(fault_dir):
    result = run_in_process(["data", "error", "--dataset", f"{fault_dir}/{'x' * 300}.csv",
                             "--task", "mode", "--eps", "1"])
    assert result["code"] == 2, result["err"]


def _shown(argv: list[str]) -> str:
    return " ".join(a if len(a) < 80 else a[:60] + f"...({len(a)} chars)" for a in argv)


def _write_tally() -> None:
    target = os.environ.get("OPTMECH_FUZZ_TALLY")
    if target:                  # merged: pytest-xdist workers each hold part of the tally
        path = Path(target)
        merged = json.loads(path.read_text()) if path.exists() else {}
        path.write_text(json.dumps({**merged, **TALLY}, indent=1))
