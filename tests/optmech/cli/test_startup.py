"""Light commands start light: which modules they import (not how long they take)."""

import json
import subprocess
import sys

import pytest

import optmech

HEAVY = ("scipy", "matplotlib", "sympy", "mpmath", "highspy", "cvxpy", "dask", "distributed",
         "tqdm", "lp_models.program", "proofs", "subprocess", "importlib.resources",
         "numpy.ma", "numpy.polynomial")
PROBE = """
import contextlib, io, json, sys
from optmech.cli import main
with contextlib.redirect_stdout(io.StringIO()) as out:
    try:
        code = main({argv!r})
    except SystemExit as stop:
        code = stop.code
print(json.dumps({{"code": code, "out": out.getvalue(),
                   "heavy": sorted(({{m.split(".")[0] for m in sys.modules}} | set(sys.modules))
                            & set({heavy!r})),
                  "cli": sorted(m for m in sys.modules if m.startswith("optmech.cli."))}}))
"""


@pytest.mark.parametrize("argv", [
    ["--help"],
    ["--version"],
    ["select", "pmf", "--mechanism", "pf", "--scores", "0,-1,-3", "--eps", "1.3", "--json"],
    ["select", "error", "--mechanism", "em", "--scores", "0,-1,-3", "--eps", "1.3"],
    ["select", "sample", "--mechanism", "pf", "--scores", "0,-1", "--eps", "1", "--seed", "1"],
    ["topk", "pmf", "--mechanism", "peel-pf", "--scores", "3,1,2,0", "--top", "2", "--eps",
     "1", "--json"],
    ["topk", "sample", "--mechanism", "joint-pf", "--scores", "3,1,2,0", "--top", "2", "--eps",
     "1", "--seed", "1"],
    ["lattice", "--help"],
    ["select", "pmf", "--mechanism", "pf", "--scores", "0", "--eps", "-1"],   # bad input
])
def test_light_commands_import_no_heavy_module(argv):
    result = _probe(argv)
    assert result["code"] in (0, 2)
    assert result["heavy"] == [], f"{argv} imported {result['heavy']}"


def _probe(argv):
    done = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv, heavy=HEAVY)],
                          capture_output=True, text=True, timeout=60)
    return json.loads(done.stdout.splitlines()[-1])


def test_a_command_registers_only_its_own_area():
    """``optmech select ...`` builds the parser of ``select`` alone (the other areas' CLI
    modules and what they import stay unloaded); ``--help`` lists every command."""
    result = _probe(["select", "pmf", "--mechanism", "pf", "--scores", "0,-1", "--eps", "1"])
    assert result["code"] == 0
    assert result["cli"] == ["optmech.cli._budget", "optmech.cli._common", "optmech.cli.select"]
    result = _probe(["--help"])
    assert {"optmech.cli.lattice", "optmech.cli.select", "optmech.cli.reproduce"} <= \
        set(result["cli"])
    listed = {line.split()[0] for line in result["out"].splitlines() if line.startswith("    ")}
    assert {"bench", "data", "lattice", "proofs", "reproduce", "select"} <= listed


def test_version(capsys):
    from optmech.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"optmech {optmech.__version__}"
