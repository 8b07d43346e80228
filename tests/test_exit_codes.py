"""Exit codes a script can trust (issue 18, item 5): Ctrl-C is one line and 130 for every
command (click's blank line before it is gone), an engine failure in `play` is exit 1 with
the record kept (tests/test_play.py), a closed pipe ends quietly (tests/test_output.py).

The waits are on the child's output or CPU time, never on a sleep.
"""

import os
import signal
import subprocess
import sys

import pytest
from test_stop import _ctrl_c_after_cpu

INTERRUPTED = "dnoir: error: interrupted\n"


def test_ctrl_c_at_the_play_prompt_is_one_line():
    proc = subprocess.Popen([sys.executable, "-I", "-m", "solver.cli", "play", "--engine", "random", "--seed", "4",
                             "--seat", "a"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        seen = b""
        while not seen.endswith(b"> "):  # the prompt: it is waiting for the answer
            chunk = proc.stdout.read1(4096)
            assert chunk, seen[-300:]
            seen += chunk
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130 and err.decode() == INTERRUPTED


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads CPU time from /proc")
def test_ctrl_c_in_review_is_one_line(tmp_path):
    games = tmp_path / "g.jsonl"
    made = subprocess.run([sys.executable, "-I", "-m", "solver.cli", "match", "random", "greedy", "--pairs", "1",
                           "--workers", "1", "--out", str(games)], capture_output=True, timeout=300)
    assert made.returncode == 0
    code, out, err, waited = _ctrl_c_after_cpu(["review", str(games), "--time", "60"], cpu=1.0)
    assert code == 130 and err == INTERRUPTED


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads CPU time from /proc")
def test_ctrl_c_in_a_match_keeps_the_table_and_no_blank_line():
    code, out, err, waited = _ctrl_c_after_cpu(["match", "ismcts:iterations=2000", "greedy", "--pairs", "500",
                                                "--workers", "1"], cpu=1.5)
    assert code == 130
    assert "interrupted: the table covers the games finished so far" in err
    assert "\n\n" not in err and not err.startswith("\n")
