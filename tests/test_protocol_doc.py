"""The sessions of docs/protocol.md are real: every block of `> command` / `< answer` lines
is played against `dnoir engine`, one command at a time, and its answers compared: every
answer but `info` exactly (ids, options, readyok, errors), `bestmove` by its shape (a move
token), `info` lines not at all (their figures are the machine's). After each command the
test waits for the answers the document shows for it (so `stop` is sent while `go infinite`
is still searching); a deadline guards against a hang.
"""

import queue
import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parent.parent / "docs/protocol.md"
MOVE = re.compile(r"^bestmove (\S+)$")
DEADLINE = 120


def sessions() -> list[list[tuple[str, list[str]]]]:
    """Each code block of `>`/`<` lines: [(command, [the answers shown after it])]."""
    found, block, inside = [], None, False
    for line in DOC.read_text().splitlines():
        if line.startswith("```"):
            inside = not inside
            block = [] if inside else None
            if not inside:
                continue
            continue
        if not inside or block is None:
            continue
        if line.startswith("> "):
            if not block:
                found.append(block)
            block.append((line[2:], []))
        elif line.startswith("< ") and block:
            block[-1][1].append(line[2:])
    return found


def test_the_document_has_sessions():
    assert len(sessions()) >= 2


@pytest.mark.parametrize("session", sessions(), ids=lambda s: s[0][0][:30])
def test_each_session_answers_as_documented(session):
    proc = subprocess.Popen([sys.executable, "-I", "-m", "solver.cli", "engine"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, bufsize=1)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(l.rstrip("\n")) for l in proc.stdout] + [lines.put(None)],
                     daemon=True).start()
    try:
        for command, shown in session:
            proc.stdin.write(command + "\n")
            proc.stdin.flush()
            for expected in (a for a in shown if not a.startswith("info ")):
                while True:
                    got = lines.get(timeout=DEADLINE)
                    assert got is not None, f"the engine ended before answering {command!r}"
                    if not got.startswith("info "):
                        break
                if MOVE.match(expected):
                    assert MOVE.match(got), (command, got)
                else:
                    assert got == expected, (command, got)
        proc.stdin.close()
        assert proc.wait(timeout=DEADLINE) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
