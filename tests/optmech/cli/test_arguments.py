"""Argument types of the command line: grids whose arithmetic would overflow, output paths
that cannot be written (too long, FIFOs, /proc), and one refusal path for overflow."""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np
import pytest

from optmech.cli._common import (
    MAX_GRID_POINTS,
    OneLineParser,
    check_writable_path,
    float_range,
    output_dir,
    output_file,
)
from tests.cli_helpers import run_cli_error

BIG = sys.float_info.max


@pytest.mark.parametrize("text, expected", [
    ("-1e308:1e308:3", [-1e308, 0.0, 1e308]),
    (f"{BIG}:{BIG}:3:log", [BIG, BIG, BIG]),
    (f"{-BIG}:{BIG}:5", [-BIG, -BIG / 2, 0.0, BIG / 2, BIG]),
    ("5e-324:1e308:3:log", [5e-324, None, 1e308]),
    ("0.1:10:3:log", [0.1, 1.0, 10.0]),
])
def test_grids_with_huge_steps_have_finite_points(text, expected):
    points = float_range(text)
    assert np.isfinite(points).all() and len(points) == len(expected)
    for got, want in zip(points, expected):
        if want is not None:
            assert got == pytest.approx(want, rel=1e-15, abs=0)
    assert points == sorted(points) or points == sorted(points, reverse=True)


def test_ordinary_grids_are_numpys_own_points():
    assert float_range("0.1:10:20") == np.linspace(0.1, 10, 20).tolist()
    assert float_range("0.1:10:20:log") == np.geomspace(0.1, 10, 20).tolist()


def test_a_comma_list_is_held_to_the_grid_cap():
    assert len(float_range(",".join(["0.5"] * MAX_GRID_POINTS))) == MAX_GRID_POINTS
    with pytest.raises(argparse.ArgumentTypeError, match="at most 10000 values"):
        float_range(",".join(["0.5"] * (MAX_GRID_POINTS + 501)))


def test_an_option_whose_arithmetic_overflows_is_bad_input(capsys):
    def overflowing(text: str) -> float:
        return float(np.float64(text) * 10.0)       # numpy warns, the parser refuses

    parser = OneLineParser(prog="optmech test")
    parser.add_argument("--rate", type=overflowing)
    assert parser.parse_args(["--rate", "2"]).rate == 20.0
    with pytest.raises(SystemExit) as stop:
        parser.parse_args(["--rate", "1e308"])
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1
    assert "argument --rate: '1e308' overflows the double range" in err


@pytest.mark.parametrize("what", ["file", "folder"])
def test_names_too_long_for_the_file_system_are_refused(tmp_path, what):
    name_max = os.pathconf(tmp_path, "PC_NAME_MAX")
    with pytest.raises(argparse.ArgumentTypeError, match="too long for its file system"):
        check_writable_path(str(tmp_path / ("x" * (name_max + 1))), what)
    with pytest.raises(argparse.ArgumentTypeError, match="too long for its file system"):
        check_writable_path(str(tmp_path) + "/d" * 3000, what)
    assert check_writable_path(str(tmp_path / ("x" * name_max)), what)


def test_fifos_devices_and_unwritable_places_are_refused(tmp_path):
    os.mkfifo(tmp_path / "fifo.png")
    (tmp_path / "dir.png").mkdir()
    for bad in (tmp_path / "fifo.png", tmp_path / "dir.png", "/proc/optmech.png",
                tmp_path / "missing" / "x.png"):
        with pytest.raises(argparse.ArgumentTypeError, match="cannot write"):
            output_file()(str(bad))
    with pytest.raises(argparse.ArgumentTypeError, match="regular file"):
        check_writable_path("/dev/null", "file")
    (tmp_path / "file").write_text("x")
    for bad in ("/proc/optmech-out", tmp_path / "file", tmp_path / "missing" / "new"):
        with pytest.raises(argparse.ArgumentTypeError, match="cannot write"):
            output_dir(str(bad))
    assert output_file()(str(tmp_path / "new.png")) == tmp_path / "new.png"
    assert output_dir(str(tmp_path / "new")) == tmp_path / "new"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".optmech")]


def test_proofs_regenerate_refuses_a_fifo_before_any_check(tmp_path, capsys):
    os.mkfifo(tmp_path / "identities.md")
    code, _, err = run_cli_error(capsys, "proofs", "regenerate", "--output",
                                 str(tmp_path / "identities.md"))
    assert code == 2 and err.count("\n") == 1 and "--output" in err
