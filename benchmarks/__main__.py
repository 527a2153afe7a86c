"""``python -m benchmarks [--quick] [--only NAME ...]``: run every benchmark module in its own
process and collect their tables into ``benchmarks/RESULTS.md``.

Every claim is a ratio measured in one run against a baseline in the same process (peers
such as OpenDP and diffprivlib appear when the ``peers`` extra is installed).
"""

from __future__ import annotations

import argparse
import pkgutil
import subprocess
import sys
import time
from pathlib import Path

from benchmarks._report import RESULTS, machine_line

HERE = Path(__file__).resolve().parent


def modules() -> list[str]:
    return sorted(m.name for m in pkgutil.iter_modules([str(HERE)])
                  if not m.name.startswith("_"))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes in every module")
    parser.add_argument("--only", action="append", choices=modules(), metavar="NAME",
                        help=f"run only these modules: {', '.join(modules())}")
    args = parser.parse_args(argv)
    names = args.only or modules()
    seconds = {}
    for name in names:
        print(f"== benchmarks.{name}", file=sys.stderr, flush=True)
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", f"benchmarks.{name}",
                        *(["--quick"] if args.quick else [])], check=True, cwd=HERE.parent)
        seconds[name] = time.perf_counter() - start
    tables = sorted(RESULTS.glob("*.md"))
    earlier = ("; the other tables are from earlier runs (machine and date under each title)"
               if set(names) != set(modules()) else "")
    lines = ["# optmech benchmarks", "",
             f"_{machine_line()}_ — {'quick' if args.quick else 'full'} run of "
             f"{', '.join(names)} ({sum(seconds.values()):.0f} s){earlier}.", "",
             "Each table below was written by `python -m benchmarks.<module>`; a ratio "
             "compares two implementations measured in the same process.", ""]
    for table in tables:
        lines += [table.read_text().rstrip(), ""]
    (HERE / "RESULTS.md").write_text("\n".join(lines))
    print(f"wrote {HERE / 'RESULTS.md'} ({len(tables)} tables)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
