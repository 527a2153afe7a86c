"""The shell examples of README.md and the guides, as executable contracts.

Usage: ``python -m tools.doc_examples [--list] [--slow] [--ci-commands]``.

What counts as an example, and how it is checked:

* a fenced ``console`` block in ``README.md`` or ``docs/guide/*.md``: every line that starts
  with ``$ `` is a command (a line ending in `` \\`` continues on the next one); the lines
  after a command, up to the next command, are its expected output, if any.  The output must
  match the command's stdout exactly, except that ``...`` matches any text and runs of
  whitespace match any whitespace (doctest's ``ELLIPSIS`` and ``NORMALIZE_WHITESPACE``), so
  a number in a guide is the number the command prints, or a prefix of it followed by
  ``...``;
* a fenced ``bash`` block (README's copy-and-paste commands): every line that is not empty
  or a comment is a command; no output is checked.

Every command must exit with status 0.  The commands of one block run in order in one fresh
temporary folder, offline, with the ``optmech`` of the running Python first on ``PATH``.  A
command ending in `` &`` runs in the background (in a process group of its own) until the
end of its block, when the group is killed: a Dask scheduler and its workers on 127.0.0.1.

A command whose trailing comment reads ``# slow: about N s on 2 cores`` (or ``N min``) is
*slow*: the default test run skips it and ``.ci/run`` runs it in a step of its own
(``--slow``).  Every other command is expected to finish within 5 seconds on a 2-core
machine (to keep README's test command short); a watchdog stops any command after
:data:`TIMEOUT` seconds.

A README block whose commands a guide block runs as written (the same commands in the same
order) is run there only, where its output is also checked: the tests and ``--slow`` skip
the README copy (:func:`repeats`), so each command runs once per CI run.

A block preceded by the line ``<!-- example: ci -->`` is run *as written* by ``.ci/run``
itself, in a fresh virtual environment at the repository root (README's set-up commands:
they install the package and run the test suite, which a test cannot do from inside the
suite).  ``--ci-commands`` prints those commands, one per line, for ``.ci/run`` to execute.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 900                 # seconds before a command is stopped (a slow one included)
FAST_SECONDS = 5              # what an unmarked command may take on 2 cores
CI_MARKER = "<!-- example: ci -->"
_FENCE = re.compile(r"^(`{3,})\s*([\w-]*)\s*$")
_SLOW = re.compile(r"#\s*slow:\s*about\s+([\d.]+)\s*(s|min)\b")


@dataclass
class Command:
    """One command of an example: its text, the output it must print, where it is."""

    text: str
    line: int
    expected: list[str] = field(default_factory=list)

    @property
    def background(self) -> bool:
        return self.text.rstrip().endswith("&")

    @property
    def slow_seconds(self) -> float | None:
        """The duration stated by a ``# slow: about N s`` comment, or None."""
        found = _SLOW.search(self.text)
        if found is None:
            return None
        return float(found.group(1)) * (60 if found.group(2) == "min" else 1)


@dataclass
class Example:
    """One fenced block: its file, first line, kind and commands."""

    path: Path
    line: int
    kind: str                 # "console" or "bash"
    commands: list[Command]
    ci: bool = False          # run as written by .ci/run, not by the test suite

    @property
    def slow(self) -> bool:
        return any(c.slow_seconds is not None for c in self.commands)

    @property
    def name(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def documents() -> list[Path]:
    """README.md and every guide."""
    return [ROOT / "README.md", *sorted((ROOT / "docs" / "guide").glob("*.md"))]


def _join_continuations(lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    joined: list[tuple[int, str]] = []
    pending: tuple[int, str] | None = None
    for number, text in lines:
        if pending is not None:
            number, text = pending[0], pending[1] + " " + text.strip()
            pending = None
        if text.rstrip().endswith("\\"):
            pending = (number, text.rstrip()[:-1].rstrip())
        else:
            joined.append((number, text))
    if pending is not None:
        joined.append(pending)
    return joined


def parse(path: Path) -> list[Example]:
    """The ``console`` and ``bash`` blocks of one Markdown file."""
    lines = path.read_text(encoding="utf-8").splitlines()
    examples, i = [], 0
    while i < len(lines):
        fence = _FENCE.match(lines[i])
        if not fence:
            i += 1
            continue
        ticks, kind, start = fence.group(1), fence.group(2), i + 1
        body = []
        i += 1
        while i < len(lines) and lines[i].strip() != ticks:
            body.append((i + 1, lines[i]))
            i += 1
        i += 1
        if kind not in ("console", "bash"):
            continue
        ci = start >= 2 and lines[start - 2].strip() == CI_MARKER
        commands: list[Command] = []
        if kind == "bash":
            for number, text in _join_continuations(body):
                if text.strip() and not text.lstrip().startswith("#"):
                    commands.append(Command(text.strip(), number))
        else:
            prompt_lines, j = [], 0
            while j < len(body):
                number, text = body[j]
                if text.startswith("$ "):
                    command = [(number, text[2:])]
                    while command[-1][1].rstrip().endswith("\\") and j + 1 < len(body):
                        j += 1
                        command.append(body[j])
                    (number, joined), = _join_continuations(command)
                    prompt_lines.append(Command(joined.strip(), number))
                elif prompt_lines:
                    prompt_lines[-1].expected.append(text)
                j += 1
            commands = prompt_lines
        if commands:
            examples.append(Example(path, start, kind, commands, ci))
    return examples


def examples() -> list[Example]:
    """Every example of README.md and the guides, in document order."""
    return [e for path in documents() for e in parse(path)]


def repeats(found: list[Example]) -> set[str]:
    """The names of the README blocks whose commands (text and order) a guide block of
    ``found`` also has: run with the guide, not twice."""
    guides = {tuple(c.text for c in e.commands) for e in found
              if e.path.name != "README.md" and not e.ci}
    return {e.name for e in found if e.path.name == "README.md" and not e.ci
            and tuple(c.text for c in e.commands) in guides}


def output_matches(expected: list[str], actual: str) -> bool:
    """``actual`` against the expected lines: exact text, except that ``...`` matches any
    text and whitespace runs match any whitespace.  No expected lines: anything matches."""
    text = "\n".join(expected).strip()
    if not text:
        return True
    pattern = "".join(
        r"[\s\S]*?" if piece == "..." else r"\s+" if piece.isspace() else re.escape(piece)
        for piece in re.split(r"(\.\.\.|\s+)", text) if piece)
    return re.fullmatch(pattern, actual.strip()) is not None


def _environment(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    env["MPLBACKEND"] = "Agg"
    env["HOME"] = str(home)                     # ~ in an example stays inside the folder
    env.pop("OPTMECH_DEBUG", None)
    return env


@dataclass
class Outcome:
    """What running one command gave."""

    command: Command
    status: int | None
    stdout: str
    stderr: str
    seconds: float

    @property
    def ok(self) -> bool:
        return self.status == 0 and output_matches(self.command.expected, self.stdout)

    def describe(self) -> str:
        if self.status is None:
            return f"line {self.command.line}: stopped after {TIMEOUT} s: {self.command.text}"
        if self.status != 0:
            return (f"line {self.command.line}: exit {self.status}: {self.command.text}\n"
                    f"stderr: {self.stderr[-2000:]}")
        return (f"line {self.command.line}: output differs: {self.command.text}\nexpected:\n"
                + "\n".join(self.command.expected) + f"\nactual:\n{self.stdout[-3000:]}")


def run(example: Example, folder: Path | None = None) -> list[Outcome]:
    """Run the commands of ``example`` in order (in ``folder``, else a fresh temporary
    one); stop at the first that fails.  Background commands are killed at the end."""
    own = folder is None
    folder = Path(tempfile.mkdtemp(prefix="optmech-example-")) if own else folder
    env = _environment(folder)
    background: list[subprocess.Popen] = []
    outcomes: list[Outcome] = []
    try:
        for command in example.commands:
            if command.background:
                background.append(subprocess.Popen(
                    ["bash", "-c", command.text.rstrip().rstrip("&")], cwd=folder, env=env,
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                    start_new_session=True))
                continue
            start = time.monotonic()
            try:
                done = subprocess.run(["bash", "-c", command.text], cwd=folder, env=env,
                                      capture_output=True, text=True, timeout=TIMEOUT)
                status, out, err = done.returncode, done.stdout, done.stderr
            except subprocess.TimeoutExpired as expired:
                status, out, err = None, str(expired.stdout or ""), str(expired.stderr or "")
            outcomes.append(Outcome(command, status, out, err, time.monotonic() - start))
            if not outcomes[-1].ok:
                break
    finally:
        for process in background:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            process.wait()
        if own:
            shutil.rmtree(folder, ignore_errors=True)
    return outcomes


def ci_commands() -> list[str]:
    """The commands ``.ci/run`` runs as written (blocks marked ``<!-- example: ci -->``)."""
    return [c.text for e in examples() if e.ci for c in e.commands]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true",
                        help="list the examples (file:line, kind, slow) and exit")
    parser.add_argument("--slow", action="store_true",
                        help="run the slow examples and print each command's seconds")
    parser.add_argument("--ci-commands", action="store_true",
                        help="print the commands .ci/run runs as written")
    args = parser.parse_args(argv)
    if args.ci_commands:
        print("\n".join(ci_commands()))
        return 0
    found = examples()
    skipped = repeats(found)
    chosen = [e for e in found if not e.ci and e.name not in skipped]
    if args.list:
        for e in chosen:
            print(f"{e.name}\t{e.kind}\t{'slow' if e.slow else 'fast'}\t"
                  + " ; ".join(c.text for c in e.commands))
        return 0
    failures = 0
    for e in (e for e in chosen if e.slow or not args.slow):
        for outcome in run(e):
            print(f"{e.name}\t{outcome.seconds:7.1f} s\t"
                  f"{'ok' if outcome.ok else 'FAILED'}\t{outcome.command.text}", flush=True)
            if not outcome.ok:
                failures += 1
                print(outcome.describe(), file=sys.stderr, flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
