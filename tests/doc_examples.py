"""The examples of README.md and docs/*.md, run and compared with what the page shows.

An example is a `$ dnoir ...` (or `$ printf ... | dnoir engine`) line in a code block, and
the lines under it up to the next `$ ` line or the end of the block are its output:

- **Numbers count.** A reproducible example (a seeded search, an exact solve, a deal) must
  print the numbers the page shows, digit for digit; only figures read from the clock (a
  number after `time` or `ips`, or before `s`, `ms` or `per second`) may differ. An example
  whose answer depends on the clock (a time budget: `--time`, `movetime`, `:time=`, `advise`
  without `--iterations`, `play`) is compared shape for shape: every number (and move token,
  which looks like one) may differ, words and layout may not. Runs of spaces are folded.
- A line `...` stands for any number of lines (none included), wherever it is.
- Output that begins `dnoir: error:` is the command's stderr: it must exit with code 2 and
  print nothing on stdout. Otherwise it must exit 0, its stdout is compared and an
  example with no lines under it is only run.
- A session: an HTML comment `<!-- input: ... -->` just before a code block holds, one a
  line, the whole input of the block's example (the page may show only part of it); the
  command reads it on stdin, and what it echoes is compared like the rest.
- The examples of one page run in order in one folder, so an example may read a file an
  earlier one wrote.

Two more kinds of example, on the pages of docs/:

- An engine session, a code block of `> command` and `< answer` lines, is played against
  `dnoir engine` (`check_session`): `info` lines left out, any move for a `bestmove`, every
  other answer exactly.
- The ```python blocks of a page run in order in one interpreter; a block after the comment
  `<!-- output of the Python example above -->` is what the last one prints, numbers included
  (`check_python`).
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NUMBER = re.compile(r"[+-]?(\d[\d,]*(\.\d+)?|\.\d+)(e[+-]?\d+)?%?")
# a figure read from the clock: after "time " or "ips ", or before " s", " ms", " per second"
CLOCK_AFTER = re.compile(r" (s|ms|per second)\b")
CLOCKED = re.compile(r"--time\b|\bmovetime\b|:time=|^dnoir play\b|^dnoir advise\b(?!.*--iterations)")
ERROR = "dnoir: error:"


@dataclass
class Example:
    page: str
    line: int  # of the `$ ` line, from 1
    command: str
    shown: list[str]
    stdin: str | None = None

    @property
    def clocked(self) -> bool:
        return bool(CLOCKED.search(self.command))

    def __str__(self) -> str:
        return f"{self.page}:{self.line}: {self.command}"


def examples(path: Path) -> list[Example]:
    """Every `$ dnoir` and `$ printf` example of a Markdown page, in order."""
    found, example, inside, stdin, comment = [], None, False, None, None
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if comment is not None:  # inside an <!-- input: --> comment
            if line.strip() == "-->":
                stdin, comment = "".join(f"{answer}\n" for answer in comment), None
            else:
                comment.append(line)
            continue
        if not inside and line.strip() == "<!-- input:":
            comment = []
            continue
        if line.startswith("```"):
            inside = not inside
            example = None
            if not inside:
                stdin = None
            continue
        if not inside:
            if line.strip():
                stdin = None  # an input comment belongs to the block right after it
            continue
        if line.startswith("$ dnoir ") or line.startswith("$ printf "):
            example = Example(path.name if path.parent == ROOT else f"{path.parent.name}/{path.name}",
                              number, line[2:], [], stdin)
            stdin = None
            found.append(example)
        elif line.startswith("$ "):
            example = None
        elif example is not None:
            example.shown.append(line)
    return found


def shape(line: str, numbers: bool) -> str:
    """A line with runs of spaces folded, and its clock figures (or, `numbers` False, every
    number) replaced by N."""
    line = " ".join(line.split())

    def masked(m: re.Match) -> str:
        clock = line[:m.start()].endswith(("time ", "ips ")) or CLOCK_AFTER.match(line, m.end())
        return "N" if clock or not numbers else m.group()

    return NUMBER.sub(masked, line)


def run(example: Example, folder: Path) -> subprocess.CompletedProcess:
    """Run an example's command in `folder` with the installed package (python -I)."""
    if example.command.startswith("printf "):
        command = example.command.replace("dnoir engine", f"{sys.executable} -I -m solver.cli engine")
        return subprocess.run(["bash", "-c", command], capture_output=True, text=True, cwd=folder, timeout=300)
    args = shlex.split(example.command, comments=True)[1:]
    return subprocess.run([sys.executable, "-I", "-m", "solver.cli", *args], capture_output=True, text=True,
                          cwd=folder, timeout=300, input=example.stdin if example.stdin is not None else "")


def mismatch(shown: list[str], actual: list[str], numbers: bool) -> str | None:
    """None if `actual` is what `shown` shows (`...` for any lines), else the first difference."""
    want = [shape(line, numbers) if line.strip() != "..." else None for line in shown]
    got = [shape(line, numbers) for line in actual]
    segments, current = [], []
    for line in want:
        if line is None:
            segments.append(current)
            current = []
        else:
            current.append(line)
    segments.append(current)
    # the first segment starts the output, the last ends it (unless a `...` is at either end)
    i = 0
    for k, segment in enumerate(segments):
        if k == 0:
            if got[:len(segment)] != segment:
                return _first_difference(segment, got, 0)
            i = len(segment)
            continue
        if k == len(segments) - 1 and segment:
            if len(got) - i < len(segment) or got[len(got) - len(segment):] != segment:
                return _first_difference(segment, got, max(i, len(got) - len(segment)))
            return None
        if not segment:
            continue
        for j in range(i, len(got) - len(segment) + 1):
            if got[j:j + len(segment)] == segment:
                i = j + len(segment)
                break
        else:
            return f"not printed after output line {i}: {segment[0]!r}"
    if len(segments) == 1 and len(got) != len(segments[0]):
        return f"it prints {len(got)} lines, the page shows {len(segments[0])}"
    return None


def _first_difference(segment: list[str], got: list[str], start: int) -> str:
    for n, line in enumerate(segment):
        if start + n >= len(got):
            return f"the page shows more lines than it prints, from {line!r}"
        if got[start + n] != line:
            return f"output line {start + n + 1}: prints {got[start + n]!r}, the page shows {line!r}"
    return f"it prints {len(got)} lines, the page shows {len(segment)}"


def check(example: Example, folder: Path) -> None:
    """Run `example` in `folder` and assert that it prints what the page shows."""
    result = run(example, folder)
    error = bool(example.shown) and example.shown[0].startswith(ERROR)
    if error:
        assert result.returncode == 2 and result.stdout == "", f"{example}: exit {result.returncode}, {result.stdout!r}"
        actual = result.stderr.splitlines()
    else:
        assert result.returncode == 0, f"{example}: exit {result.returncode}: {result.stderr}"
        actual = result.stdout.splitlines()
    if not example.shown:
        return
    problem = mismatch(example.shown, actual, numbers=not example.clocked)
    assert problem is None, f"{example}: {problem}"


# -- engine protocol sessions ------------------------------------------------------------------

@dataclass
class Session:
    """A code block of `> command` and `< answer` lines: a conversation with `dnoir engine`."""
    page: str
    line: int
    steps: list[tuple[str, list[str]]]  # (command sent, the answers the page shows after it)

    def __str__(self) -> str:
        return f"{self.page}:{self.line}: an engine session"


def sessions(path: Path) -> list[Session]:
    """Every code block of `path` made only of `> ` and `< ` lines, with at least one `> `."""
    found, block, start, inside = [], [], 0, False
    name = path.name if path.parent == ROOT else f"{path.parent.name}/{path.name}"
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if line.startswith("```"):
            if inside and block and all(b.startswith(("> ", "< ")) for b in block) and block[0].startswith("> "):
                steps = []
                for b in block:
                    if b.startswith("> "):
                        steps.append((b[2:], []))
                    else:
                        steps[-1][1].append(b[2:])
                found.append(Session(name, start, steps))
            inside, block, start = not inside, [], number + 1
        elif inside and line.strip():
            block.append(line)
    return found


def check_session(session: Session, folder: Path, seconds: float = 60.0) -> None:
    """Talk to `dnoir engine` as the page does: send each command, then wait for the answers the
    page shows after it. `info` lines (information for people, whose count and figures depend
    on the machine) are left out on both sides; a `bestmove` may name any move (the move a
    timed search finds depends on the clock); every other answer must be the page's, exactly."""
    import queue
    import threading

    proc = subprocess.Popen([sys.executable, "-I", "-m", "solver.cli", "engine"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=folder)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line.rstrip("\n")) for line in proc.stdout] + [lines.put(None)],
                     daemon=True).start()

    def answer_shape(line: str) -> str:
        # the move a timed search answers depends on the clock: any move token will do
        return re.sub(r"^bestmove (?:[5-8]|[+-][1-4]|C|T)$", "bestmove <move>", " ".join(line.split()))

    try:
        for command, shown in session.steps:
            proc.stdin.write(command + "\n")
            proc.stdin.flush()
            for expected in (s for s in shown if not s.startswith("info ")):
                while True:
                    try:
                        got = lines.get(timeout=seconds)  # a deadline for a hang, not a timing check
                    except queue.Empty:
                        raise AssertionError(f"{session}: no answer to {command!r} within {seconds} s, "
                                             f"the page shows {expected!r}") from None
                    assert got is not None, f"{session}: the engine ended before answering {command!r}"
                    if not got.startswith("info "):
                        break
                assert answer_shape(got) == answer_shape(expected), \
                    f"{session}: after {command!r} it answers {got!r}, the page shows {expected!r}"
        proc.stdin.close()
        assert proc.wait(timeout=seconds) == 0, proc.stderr.read()
        rest = []
        while (line := lines.get(timeout=seconds)) is not None:
            if not line.startswith("info "):
                rest.append(line)
        assert not rest, f"{session}: answers the page does not show: {rest}"
    finally:
        proc.kill()
        proc.wait()


# -- Python examples ---------------------------------------------------------------------------

OUTPUT_MARK = "<!-- output of the Python example above -->"


@dataclass
class PythonExample:
    """A ```python block, run as a script; the block after an OUTPUT_MARK comment is what it prints."""
    page: str
    line: int
    code: str
    shown: list[str] | None = None

    def __str__(self) -> str:
        return f"{self.page}:{self.line}: a Python example"


def python_examples(path: Path) -> list[PythonExample]:
    found, block, inside, python, start, marked = [], [], False, False, 0, False
    name = path.name if path.parent == ROOT else f"{path.parent.name}/{path.name}"
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if line.startswith("```"):
            if not inside:
                inside, python, block, start = True, line.strip() == "```python", [], number + 1
            else:
                inside = False
                if python:
                    found.append(PythonExample(name, start, "\n".join(block) + "\n"))
                elif marked and found:
                    found[-1].shown = block
                marked = False
            continue
        if inside:
            block.append(line)
        elif line.strip() == OUTPUT_MARK:
            marked = True
    return found


MARK = "\x00-- end of example --\x00"
RUNNER = f"""
import json, sys
scope = {{"__name__": "__main__"}}
for name, code in json.load(sys.stdin):
    exec(compile(code, name, "exec"), scope)
    print({MARK!r}, flush=True)
"""


def check_python(examples: list[PythonExample], folder: Path) -> None:
    """Run the Python examples of a page in order in one interpreter, as one session (a block
    may use what an earlier one defined), with the installed package; compare each output with
    the page's, numbers included."""
    import json

    code = json.dumps([(str(e), e.code) for e in examples])
    result = subprocess.run([sys.executable, "-I", "-c", RUNNER], input=code, capture_output=True, text=True,
                            cwd=folder, timeout=900)
    outputs = result.stdout.split(MARK + "\n")
    done = len(outputs) - 1
    assert result.returncode == 0, f"{examples[done]}: exit {result.returncode}: {result.stderr[-2000:]}"
    for example, output in zip(examples, outputs):
        if example.shown is not None:
            problem = mismatch(example.shown, output.splitlines(), numbers=True)
            assert problem is None, f"{example}: {problem}"
