"""Every example in the README is real output of the current code.

Each `$ dnoir ...` line of a code block in README.md is run, and its output compared with
the lines printed under it in the README, shape for shape: numbers (and move tokens,
which look like numbers) may differ, words and layout may not. A line `...` in the README
stands for any number of lines; a command with no lines under it is only run, and must
succeed.
"""

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
NUMBER = re.compile(r"[+-]?(\d[\d,]*(\.\d+)?|\.\d+)%?")


def examples() -> list[tuple[str, list[str]]]:
    """(command, the output lines shown under it) of every `$ dnoir` example in the README."""
    found, block, inside = [], None, False
    for line in README.read_text().splitlines():
        if line.startswith("```"):
            inside = not inside
            block = None
            continue
        if not inside:
            continue
        if line.startswith("$ dnoir ") or line.startswith("$ printf "):
            block = (line[2:], [])
            found.append(block)
        elif line.startswith("$ "):
            block = None
        elif block is not None:
            block[1].append(line)
    return found


def shape(line: str) -> str:
    """A line with every number replaced by N and runs of spaces folded."""
    return " ".join(NUMBER.sub("N", line).split())


def test_the_readme_has_examples():
    assert len(examples()) >= 8


@pytest.mark.slow
@pytest.mark.parametrize("command, shown", examples(), ids=[c[:60] for c, _ in examples()])
def test_each_readme_example_prints_what_the_readme_shows(command, shown, tmp_path):
    if command.startswith("printf "):
        run = subprocess.run(["bash", "-c", command.replace("dnoir engine", f"{sys.executable} -I -m solver.cli engine")],
                             capture_output=True, text=True, cwd=tmp_path, timeout=300)
    else:
        args = shlex.split(command)[1:]
        run = subprocess.run([sys.executable, "-I", "-m", "solver.cli", *args], capture_output=True, text=True,
                             cwd=tmp_path, timeout=300, stdin=subprocess.DEVNULL)
    assert run.returncode == 0, run.stderr
    if not shown:
        return
    actual = run.stdout.splitlines()
    i = 0
    for expected in shown:
        if expected.strip() == "...":
            break  # the README leaves out the rest
        assert i < len(actual), f"{command}: the README shows more lines than it prints"
        assert shape(actual[i]) == shape(expected), f"{command}: line {i + 1}"
        i += 1
    else:
        assert i == len(actual), f"{command}: it prints more lines than the README shows"
