"""Every example in the README and in docs/ is real output of the current code.

Each `$ dnoir ...` line of a code block in README.md or docs/*.md is run, and its output
compared with the lines printed under it. An example whose output does not depend on the
clock (seeded, or with no randomness: no `movetime`, `--time` or `time=`, and `advise`,
`play` and `review` given `--iterations`) is compared **number for number**; only figures
of speed and time (`... per second`, `time 0.17 s`, `2.87 ms`, `ips`, `/s`) are exempt.
Any other example is compared shape for shape: numbers (and move tokens, which look like
numbers) may differ, words and layout may not. A line `...` stands for any number of
lines (the comparison stops there); a command with no lines under it is only run, and
must succeed. An example whose first line is `dnoir: error: ...` shows standard error, and
must exit with code 2. A transcript of `dnoir play` (answers after `> `) is run with those
answers as its input. `games.jsonl` and `game.json`, which docs/play.md reviews, are made
first by a seeded match and a seeded game.
"""

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
NUMBER = re.compile(r"[+-]?(\d[\d,]*(\.\d+)?|\.\d+)%?")
# Figures of speed and time: never compared, even in a seeded example.
VOLATILE = [re.compile(p) for p in (
    r"[\d,]+(\.\d+)? per second", r"\btime [\d.,]+( ms| s)?", r"\bips \d+", r"[\d.,]+ ?/s\b", r"[\d.,]+ ms\b",
    r"\bin [\d.,]+ s\b",
)]
CLOCKED = re.compile(r"movetime|--time|time=")


def examples(path: Path) -> list[tuple[str, list[str]]]:
    """(command, the output lines shown under it) of every `$ dnoir` example of a document."""
    found, block, inside = [], None, False
    for line in path.read_text().splitlines():
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


ALL = [(path.relative_to(ROOT).as_posix(), command, shown) for path in DOCUMENTS for command, shown in examples(path)]


def shape(line: str) -> str:
    """A line with every number replaced by N and runs of spaces folded."""
    return " ".join(NUMBER.sub("N", line).split())


def exact(line: str) -> str:
    """A line with only its figures of speed and time replaced, and runs of spaces folded."""
    for pattern in VOLATILE:
        line = pattern.sub("T", line)
    return " ".join(line.split())


def seeded(command: str) -> bool:
    """True when the example's output does not depend on the clock: compared number for number."""
    words = shlex.split(command, comments=True)
    if CLOCKED.search(command) or words[0] == "printf":
        return False
    verb = words[1] if len(words) > 1 else ""
    return not (verb in ("advise", "play", "review") and "--iterations" not in words)


def test_the_documents_have_examples():
    assert len(examples(ROOT / "README.md")) >= 8
    assert len(examples(ROOT / "docs" / "play.md")) >= 5


def test_the_seeded_examples_are_compared_number_for_number():
    seeded_ones = [c for _, c, shown in ALL if shown and seeded(c)]
    assert any("match" in c and "--seed 1" in c for c in seeded_ones)
    assert any("advise" in c and "--iterations" in c for c in seeded_ones)
    assert exact("iterations 100,000  605,969 per second  threads 2  time 0.17 s") == \
        "iterations 100,000 T threads 2 T"
    assert exact("mean margin +25.43 points   city wins 4 - 0") == "mean margin +25.43 points city wins 4 - 0"


def _answers(shown: list[str]) -> str:
    """The answers of a play transcript: what follows each '> ' up to the first '...'."""
    out = []
    for line in shown:
        if line.strip() == "...":
            break
        if "> " in line:
            out.append(line.split("> ", 1)[1])
    return "".join(a + "\n" for a in out)


@pytest.fixture
def workdir(tmp_path):
    """A folder holding the files the documents' examples read."""
    cli = [sys.executable, "-I", "-m", "solver.cli"]
    subprocess.run([*cli, "match", "random", "greedy", "--pairs", "1", "--seed", "2", "--workers", "1",
                    "--out", "games.jsonl"], cwd=tmp_path, capture_output=True, timeout=300, check=True)
    subprocess.run([*cli, "play", "--engine", "random", "--seat", "a", "--seed", "7", "--record", "game.json",
                    "--review-time", "0"], cwd=tmp_path, input=b"T\nquit\n", capture_output=True, timeout=300,
                   check=True)
    return tmp_path


@pytest.mark.slow
@pytest.mark.parametrize("document, command, shown", ALL, ids=[f"{d}: {c[:50]}" for d, c, _ in ALL])
def test_each_example_prints_what_its_document_shows(document, command, shown, workdir):
    if command.startswith("printf "):
        run = subprocess.run(["bash", "-c", command.replace("dnoir engine", f"{sys.executable} -I -m solver.cli engine")],
                             capture_output=True, text=True, cwd=workdir, timeout=300)
    else:
        args = shlex.split(command, comments=True)[1:]
        transcript = args[:1] == ["play"] and any("> " in line for line in shown)
        run = subprocess.run([sys.executable, "-I", "-m", "solver.cli", *args], capture_output=True, text=True,
                             cwd=workdir, timeout=600, input=_answers(shown) if transcript else "")
    errors = bool(shown) and shown[0].startswith("dnoir: error:")
    assert run.returncode == (2 if errors else 0), run.stderr[-2000:]
    if not shown:
        return
    actual = (run.stderr if errors else run.stdout).splitlines()
    same = exact if seeded(command) else shape
    i = 0
    for expected in shown:
        if expected.strip() == "...":
            break  # the document leaves out the rest
        assert i < len(actual), f"{command}: the document shows more lines than it prints"
        assert same(actual[i]) == same(expected), f"{document}: {command}: line {i + 1}"
        i += 1
    else:
        assert i == len(actual), f"{command}: it prints more lines than the document shows"
