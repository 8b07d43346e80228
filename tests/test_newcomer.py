"""What a newcomer hit (issue 18, item 7). (The README and docs examples compared number for
number: tests/test_readme.py.)"""

import re
import subprocess
import sys
import time

from solver.base.bounds import MAX_SEED

SMALL = "-287-18C5 788/C 6666777788+2+2+2+2+3+3-1-2-3/555678+4-1-2-2-3C 4 a a"
ROUND4_START = "885565 78+3-1-2/57+2+3+4 6667788+2+2-2-2-3-3C/6677788+2-1-1-2C 4 a -"


def dnoir(*args, input="", timeout=300):
    return subprocess.run([sys.executable, "-I", "-m", "solver.cli", *args], capture_output=True, text=True,
                          input=input, timeout=timeout)


def test_every_printed_play_seed_replays_its_game():
    for _ in range(5):
        run = dnoir("play", "--engine", "random", "--review-time", "0", input="quit\n")
        seed = int(re.search(r"^seed (\d+)$", run.stdout, re.M).group(1))
        assert 0 <= seed <= MAX_SEED
        again = dnoir("play", "--engine", "random", "--review-time", "0", "--seed", str(seed), input="quit\n")
        assert again.returncode == 0, again.stderr
        assert again.stdout[:400] == run.stdout.split("\n", 1)[1][:400]  # the same game


def test_a_command_that_is_not_an_engine_is_refused_at_once_with_the_reason():
    start = time.monotonic()
    run = dnoir("match", "cmd:cat", "greedy", "--pairs", "1", "--workers", "1")
    assert run.returncode == 2 and "is not an engine speaking the protocol" in run.stderr
    assert "echoes its input" in run.stderr
    assert time.monotonic() - start < 20  # was 30 s of waiting; now no wait at all (a deadline, not a timing)


def test_solve_has_the_memory_option_it_tells_you_to_use():
    run = dnoir("solve", ROUND4_START, "--mode", "game", "--max-memory-mb", "10")
    assert run.returncode == 2 and "does not fit in 10 MB" in run.stderr and "--max-memory-mb" in run.stderr
    assert dnoir("solve", SMALL, "--mode", "game", "--max-memory-mb", "100").returncode == 0
    assert dnoir("solve", SMALL, "--max-memory-mb", "100").returncode == 2  # game mode only


def test_advise_without_a_position_shows_the_board_it_advises_on():
    run = dnoir("advise", "--iterations", "500", "--threads", "1")
    assert run.returncode == 0
    assert run.stdout.startswith("the built-in example position: 68+28 ???/88+3")
    assert "District Noir — round 2 of 4" in run.stdout and "recommended" in run.stdout


def test_show_names_who_would_take():
    out = dnoir("show", "7-2+3 ??/8-2 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a").stdout
    assert "b taking now would get: 7 -2 +3" in out and "a take now" not in out


def test_play_says_which_cards_a_take_took_and_takes_a_lowercase_t():
    run = dnoir("play", "--engine", "random", "--seed", "3", "--seat", "b", "--review-time", "0",
                input="t\nquit\n")
    assert run.returncode == 0, run.stderr
    assert re.search(r"^b takes \S+$", run.stdout, re.M), run.stdout[-1500:]
    assert "neither a move" not in run.stdout


def test_a_round_robin_progress_line_names_the_pairing():
    run = dnoir("tournament", "random", "greedy", "pimc:worlds=5", "--pairs", "2", "--workers", "1")
    assert run.returncode == 0
    lines = [l for l in run.stderr.splitlines() if l.startswith("games ")]
    assert lines and all(" vs " in l for l in lines), lines


def test_exploit_with_a_bot_policy_shows_progress():
    run = dnoir("exploit", SMALL, "--policy", "greedy")
    assert run.returncode == 0
    assert re.search(r"^information sets of the policy \d+/\d+ \(100%\)", run.stderr, re.M), run.stderr
