"""Benchmark: labels and MPS/LP files of the reduced lattice LP (``lp_models.program``).

Claims measured, each against a baseline run in this process — building the LP itself
(``reduced_lattice_lp``, the regular constraint set), whose cost every researcher pays:

* labels are computed on demand: one row's label costs the same tens of microseconds at
  any size (the blocks hold no strings), while rendering every label costs a few
  microseconds per row (tens of times the build) and is only done when asked for;
* writing MPS (names included) and reading it back through highspy cost one to two orders
  of magnitude more than the build at n = k = 8 (under a second of CPU), and the file read
  back is the same LP (``same_model``).

Wall and CPU time are medians [min, max] of at least 5 runs (``benchmarks._timing``); the
table records the machine's load and BLAS threads.

Run ``python -m benchmarks.lp_files [--quick]``; writes ``benchmarks/results/lp_files.md``.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

from benchmarks._report import claim, measure, peak_rss_mib, ratio, start, write_table
from lp_models.lattice import reduced_lattice_lp
from lp_models.program import read_lp


def _rows(n: int, folder: Path, files: bool, claims: list):
    eps = 0.5
    build = measure(lambda: reduced_lattice_lp(n, n, eps))
    lp = build.result
    mps, text = folder / f"lattice{n}.mps", folder / f"lattice{n}.lp"
    size = f"n = k = {n}"
    out = [(size, "build reduced_lattice_lp (baseline)", build.wall, build.cpu, "1", "-")]
    steps = [
        ("one row label (the last row)", "label", lambda: lp.row_label(lp.num_rows - 1), None),
        ("every row and column label", "labels", lambda: (lp.row_labels(), lp.column_labels()),
         None),
        ("every row and column name", "names", lambda: (lp.row_names(), lp.column_names()),
         None),
        ("write .mps", "write_mps", lambda: lp.write(mps), mps),
        ("write .lp", "write_lp", lambda: lp.write(text), text),
        ("read .mps", "read_mps", lambda: read_lp(mps), None),
    ]
    if not files:                     # a large LP: the on-demand label only
        steps = steps[:1]
    for label, key, fn, path in steps:
        timing = measure(fn)
        versus = ratio(timing.cpu, build.cpu)
        claims.append(claim(f"lp_files.{key}.{n}", f"{label} / building the LP, {size}",
                            versus))
        note = f"{path.stat().st_size / 2**20:.1f} MiB" if path else "-"
        out.append((size, label, timing.wall, timing.cpu, versus, note))
    if files:
        same = read_lp(mps).same_model(lp)
        out.append((size, "read .mps is the same LP", "-", "-", "-", str(same)))
    return lp, out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    args = start(parser, argv)
    sizes = ((6, True),) if args.quick else ((6, True), (8, True), (10, False))
    rows, shapes, claims = [], [], []
    with tempfile.TemporaryDirectory() as folder:
        for n, files in sizes:
            lp, block = _rows(n, Path(folder), files, claims)
            rows += block
            shapes.append(f"n = k = {n}: {lp.num_cols} columns, {lp.num_rows} rows, "
                          f"{lp.num_nonzeros} nonzeros")
    notes = ("Wall and CPU seconds: median [min, max] of at least 5 runs.  Ratio: CPU time of "
             "the step / CPU time of building the LP, same process.  " + "; ".join(shapes)
             + f".  Peak memory of the benchmark process: {peak_rss_mib():.0f} MiB.")
    write_table("lp_files", "LP labels and MPS/LP files (reduced lattice LP, eps = 0.5)",
                ["size", "step", "wall (s)", "CPU (s)", "ratio to build (CPU)",
                 "file / check"], rows, notes, claims)


if __name__ == "__main__":
    main()
