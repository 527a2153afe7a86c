"""Every shell example of README.md and docs/guide/*.md runs and prints what it says.

The examples are found and run by :mod:`tools.doc_examples` (its docstring states the
rules).  Fast examples run here; slow ones (marked ``# slow: about N s on 2 cores``) are run
by ``.ci/run`` in a step of its own, and README's set-up blocks (marked
``<!-- example: ci -->``) by ``.ci/run`` as written.
"""

from pathlib import Path

import pytest

from tools import doc_examples
from tools.doc_examples import Command, Example, output_matches

FOUND = doc_examples.examples()
EXAMPLES = [e for e in FOUND if not e.ci]
REPEATS = doc_examples.repeats(FOUND)
CI_SCRIPT = Path(__file__).resolve().parent.parent / ".ci" / "run"


@pytest.mark.parametrize("example", [e for e in EXAMPLES
                                     if not e.slow and e.name not in REPEATS],
                         ids=lambda e: e.name)
def test_fast_example(example):
    outcomes = doc_examples.run(example)
    failed = [o for o in outcomes if not o.ok]
    assert not failed, failed[0].describe()
    assert len(outcomes) == sum(not c.background for c in example.commands)


def test_the_documents_have_examples_and_the_slow_ones_say_how_long():
    assert sum(len(e.commands) for e in EXAMPLES) >= 25
    for example in EXAMPLES:
        for command in example.commands:
            seconds = command.slow_seconds
            assert seconds is None or seconds > doc_examples.FAST_SECONDS, \
                f"{example.name}: '{command.text}' is marked slow at {seconds} s"


def test_a_readme_block_that_a_guide_repeats_runs_with_the_guide_only():
    """README's tour repeats some guide examples word for word; those run once (with the
    guide, where the output is checked), and nothing else is skipped."""
    assert REPEATS and all(name.startswith("README.md:") for name in REPEATS)
    guide_commands = {tuple(c.text for c in e.commands) for e in EXAMPLES
                      if e.path.name != "README.md"}
    for example in EXAMPLES:
        repeated = tuple(c.text for c in example.commands) in guide_commands
        assert (example.name in REPEATS) == (repeated and example.path.name == "README.md")


def test_ci_runs_readme_set_up_blocks_as_written():
    ci = [e for e in doc_examples.examples() if e.ci]
    assert [e.path.name for e in ci] == ["README.md", "README.md"]
    commands = doc_examples.ci_commands()
    assert any("optmech reproduce --quick" in c for c in commands)
    assert any("pytest" in c for c in commands)
    assert "-m tools.doc_examples --ci-commands" in CI_SCRIPT.read_text()


@pytest.mark.parametrize("expected, actual, ok", [
    (["expected error: 0.57012358079"], "expected error: 0.57012358079\n", True),
    (["expected error: 0.5701235808"], "expected error: 0.57012358079\n", False),
    (['{"pmf": [0.6925979352..., 0.24...]}'], '{"pmf": [0.69259793524, 0.2486]}', True),
    (["a   b", "c"], "a b\n  c  ", True),
    (["first ...", "last"], "first line\nmiddle\nlast", True),
    (["x"], "y", False),
    ([], "anything", True),
])
def test_output_matching(expected, actual, ok):
    assert output_matches(expected, actual) is ok


def test_parser_reads_prompts_continuations_output_and_markers(tmp_path, monkeypatch):
    page = tmp_path / "page.md"
    page.write_text("\n".join([
        "```console", "$ optmech select error --mechanism em \\", "    --scores 0,-1 --eps 1",
        "expected error: ...", "$ dask scheduler --host 127.0.0.1 &",
        "$ optmech reproduce   # slow: about 4 min on 2 cores", "```", "",
        "<!-- example: ci -->", "```bash", "# a comment", "pip install . && optmech x", "```",
        "```text", "$ not an example", "```"]))
    monkeypatch.setattr(doc_examples, "ROOT", tmp_path)
    console, bash = doc_examples.parse(page)
    assert [c.text for c in console.commands] == [
        "optmech select error --mechanism em --scores 0,-1 --eps 1",
        "dask scheduler --host 127.0.0.1 &", "optmech reproduce   # slow: about 4 min on 2 cores"]
    assert console.commands[0].expected == ["expected error: ..."]
    assert console.commands[1].background and console.slow and not console.ci
    assert console.commands[2].slow_seconds == 240
    assert bash.ci and [c.text for c in bash.commands] == ["pip install . && optmech x"]


def test_a_failing_command_is_reported(tmp_path):
    example = Example(tmp_path / "x.md", 1, "console",
                      [Command("echo one", 2, ["two"]), Command("exit 3", 4)])
    outcomes = doc_examples.run(example)
    assert len(outcomes) == 1 and "output differs" in outcomes[0].describe()
