"""Benchmark: labels and MPS/LP files of the reduced lattice LP (``lp_models.program``).

Claims measured, each against a baseline run in this process — building the LP itself
(``reduced_lattice_lp``, the regular constraint set), whose cost every researcher pays:

* labels are computed on demand: one row's label costs the same tens of microseconds at
  any size (the blocks hold no strings), while rendering every label costs a few
  microseconds per row (tens of times the build) and is only done when asked for;
* writing MPS (names included) and reading it back through highspy cost one to two orders
  of magnitude more than the build at n = k = 8 (under a second of CPU), and the file read
  back is the same LP (``same_model``).

Wall and CPU time (``time.process_time``) are medians of ``--repeat`` runs; the machine's
load average is recorded with them (2 shared cores: timings are indicative).

Run ``python -m benchmarks.lp_files [--quick]``; writes ``benchmarks/results/lp_files.md``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
from pathlib import Path

from benchmarks._report import peak_rss_mib, write_table
from benchmarks.rnm_laplace import timed
from lp_models.lattice import reduced_lattice_lp
from lp_models.program import read_lp


def _median_time(fn, repeat: int):
    """(median wall s, median CPU s, last result) of ``repeat`` calls."""
    walls, cpus, result = timed(fn, repeat)
    return statistics.median(walls), statistics.median(cpus), result


def _rows(n: int, repeat: int, folder: Path, files: bool = True):
    eps = 0.5
    build_wall, build_cpu, lp = _median_time(lambda: reduced_lattice_lp(n, n, eps), repeat)
    mps, text = folder / f"lattice{n}.mps", folder / f"lattice{n}.lp"
    size = f"n = k = {n}"
    out = [(size, "build reduced_lattice_lp (baseline)", build_wall, build_cpu, "1", "-")]
    steps = [
        ("one row label (the last row)", lambda: lp.row_label(lp.num_rows - 1), None),
        ("every row and column label", lambda: (lp.row_labels(), lp.column_labels()), None),
        ("every row and column name", lambda: (lp.row_names(), lp.column_names()), None),
        ("write .mps", lambda: lp.write(mps), mps),
        ("write .lp", lambda: lp.write(text), text),
        ("read .mps", lambda: read_lp(mps), None),
    ]
    if not files:                     # a large LP: the on-demand label only
        steps = steps[:1]
    for label, fn, path in steps:
        wall, cpu, _ = _median_time(fn, repeat)
        note = f"{path.stat().st_size / 2**20:.1f} MiB" if path else "-"
        out.append((size, label, wall, cpu, f"{wall / build_wall:.3g}", note))
    if files:
        same = read_lp(mps).same_model(lp)
        out.append((size, "read .mps is the same LP", "-", "-", "-", str(same)))
    return lp, out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="n = k = 6 only (full: 6 and 8, and the label alone at 10)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per step (median)")
    args = parser.parse_args(argv)
    sizes = ((6, True),) if args.quick else ((6, True), (8, True), (10, False))
    rows, shapes = [], []
    with tempfile.TemporaryDirectory() as folder:
        for n, files in sizes:
            lp, block = _rows(n, args.repeat, Path(folder), files)
            rows += block
            shapes.append(f"n = k = {n}: {lp.num_cols} columns, {lp.num_rows} rows, "
                          f"{lp.num_nonzeros} nonzeros")
    load = ", ".join(f"{v:.2f}" for v in os.getloadavg())
    notes = ("Ratio: wall time of the step / wall time of building the LP, same process. "
             f"Medians of {args.repeat} runs. " + "; ".join(shapes) + ". "
             f"Load average at the end (1, 5, 15 min): {load}. "
             f"Peak memory of the benchmark process: {peak_rss_mib():.0f} MiB.")
    write_table("lp_files", "LP labels and MPS/LP files (reduced lattice LP, eps = 0.5)",
                ["size", "step", "wall (s)", "CPU (s)", "ratio to build", "file / check"],
                rows, notes)


if __name__ == "__main__":
    main()
