"""The engine protocol (docs/protocol.md) through a real `dnoir engine` subprocess.

Every wait below is a deadline against a hang (tens of seconds), never a timing assertion:
what is checked is the order and content of the answers.
"""

import io
import queue
import subprocess
import sys
import threading

import pytest

from solver import Position
from solver.base.bounds import MAX_ITERATIONS, MAX_MOVETIME_MS, MAX_SEED, MAX_THREADS
from solver.interfaces.engine import (
    HASH_MAX_MB,
    HASH_MIN_MB,
    MAX_ERROR_CHARS,
    MAX_LINE_BYTES,
    Engine,
    LineTooLong,
    command_lines,
)
from solver.solvers.limit import Limit
from solver.solvers.search import advise

ROUND2 = "68+28 ???/88+3 57+2-1-3CC/778+2-1 2 b a"
ROUND2_MOVES = {"8", "+3", "T"}
ROUND4 = "7-2+3 ??/8-2 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a"  # solved: 8
DEADLINE = 60  # seconds; only ever reached by a hung engine
ANSWERS = {"id", "option", "dnok", "readyok", "info", "bestmove", "error"}


class EngineProcess:
    """A `dnoir engine` subprocess with a reader thread, so every wait has a deadline."""

    def __init__(self, cwd, *args):
        self.proc = subprocess.Popen([sys.executable, "-I", "-m", "solver.cli", "engine", *args], cwd=cwd,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        self.lines: list[str] = []  # every line read so far, in order
        self._queue: queue.Queue = queue.Queue()
        self._stderr: list[bytes] = []
        threading.Thread(target=self._read, daemon=True).start()
        threading.Thread(target=lambda: self._stderr.append(self.proc.stderr.read()), daemon=True).start()

    def _read(self):
        for raw in self.proc.stdout:
            self._queue.put(raw.decode("utf-8", "replace").rstrip("\n"))
        self._queue.put(None)

    def send(self, *commands: str) -> None:
        self.proc.stdin.write("".join(c + "\n" for c in commands).encode())
        self.proc.stdin.flush()

    def expect(self, prefix: str) -> str:
        """The next line starting with `prefix` (lines before it are kept in `lines`)."""
        while True:
            try:
                line = self._queue.get(timeout=DEADLINE)
            except queue.Empty:
                raise AssertionError(f"no {prefix!r} within {DEADLINE} s; got {self.lines[-5:]}") from None
            if line is None:
                raise AssertionError(f"engine output ended before {prefix!r}; got {self.lines[-5:]}")
            self.lines.append(line)
            if line.startswith(prefix):
                return line

    def ready(self) -> list[str]:
        """Send `isready`, wait for `readyok`; the lines that came before it since the last call."""
        start = len(self.lines)
        self.send("isready")
        self.expect("readyok")
        return self.lines[start:-1]

    def close(self) -> int:
        """End input, wait for the exit (deadline), and check nothing went to stderr."""
        if not self.proc.stdin.closed:
            try:
                self.proc.stdin.close()
            except BrokenPipeError:
                pass
        code = self.proc.wait(timeout=DEADLINE)
        self.expect_end()
        assert b"".join(self._stderr) == b"", b"".join(self._stderr).decode(errors="replace")
        assert all(line.split()[0] in ANSWERS for line in self.lines if line), self.lines
        return code

    def expect_end(self) -> None:
        while (line := self._queue.get(timeout=DEADLINE)) is not None:
            self.lines.append(line)

    def kill(self):
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=DEADLINE)


@pytest.fixture
def engine(tmp_path):
    started = []

    def start(*args):
        started.append(EngineProcess(tmp_path, *args))
        return started[-1]

    yield start
    for proc in started:
        proc.kill()


def test_a_session_of_two_positions(engine):
    e = engine()
    e.send("dn")
    e.expect("dnok")
    assert e.lines[0].startswith("id name dnoir ")
    assert e.ready() == []
    e.send(f"position {ROUND2}", "go iterations 2000 seed 1")
    assert e.expect("bestmove").split()[1] in ROUND2_MOVES
    e.send("newgame", f"position {ROUND4}", "go movetime 200")
    assert e.expect("bestmove") == "bestmove 8"  # round 4, solved exactly: 8 loses least
    e.send("quit", "isready")  # after quit: never answered
    assert e.close() == 0
    assert e.lines.count("readyok") == 1 and sum(line.startswith("bestmove") for line in e.lines) == 2
    assert any(line.startswith("info ") and " exact " in line for line in e.lines)


def test_round_4_is_solved_from_exact_min_seconds_and_searched_below_it(engine):
    from solver.interfaces.engine import EXACT_MIN_SECONDS

    below, at = round(EXACT_MIN_SECONDS * 1000) - 1, round(EXACT_MIN_SECONDS * 1000)
    assert at == 50  # test 31 of bench/STRENGTH.md (it was 150 ms before)
    e = engine()
    for movetime in (below, at):
        e.lines.clear()
        e.send(f"position {ROUND4}", f"go movetime {movetime}")
        e.expect("bestmove")
        final = [line for line in e.lines if line.startswith("info ")][-1]
        assert (" exact " in final) == (movetime == at), (movetime, final)
    e.send("quit")
    assert e.close() == 0
    # --exact-from moves the threshold: the engine before test 31 is --exact-from 150
    old = engine("--exact-from", "150")
    old.send(f"position {ROUND4}", "go movetime 100")
    old.expect("bestmove")
    assert not any(" exact " in line for line in old.lines if line.startswith("info "))
    old.send("quit")
    assert old.close() == 0


def test_dn_announces_every_option_between_id_and_dnok(engine):
    e = engine("--threads", "3", "--policy", "greedy")
    e.send("dn")
    e.expect("dnok")
    assert e.lines == [e.lines[0],
                       f"option name Threads type spin default 3 min 1 max {MAX_THREADS}",
                       f"option name Hash type spin default 280 min {HASH_MIN_MB} max {HASH_MAX_MB}",
                       "option name Policy type combo default greedy var random var greedy var taker var guard",
                       "option name Exploration type string default 0.35",
                       "option name Ponder type check default false",
                       "dnok"]
    e.send("quit")
    assert e.close() == 0


def test_errors_are_one_line_each_and_the_engine_keeps_running(engine):
    e = engine()
    e.send("hello", "go", "position", "position 5+2 678+3C/????? ./. 9 a -",
           "position 5+2 ?????/678+3C ./. 1 a -", "position 5+2 678+3C/????? ./. 1 a -",
           "go movetime", "go movetime -5", "go depth 3", "go infinite movetime 100", "go seed 1 seed 2")
    errors = e.ready()
    assert len(errors) == 10 and all(line.startswith("error ") for line in errors)
    assert "unknown command 'hello'" in errors[0] and "no position" in errors[1]
    assert "round" in errors[3] and "own hand" in errors[4]
    assert "go movetime: needs a whole number (1 to 86400000)" in errors[5]
    assert "go movetime: -5 is out of range (1 to 86400000)" in errors[6]
    assert "unknown limit 'depth'" in errors[7] and "infinite cannot" in errors[8] and "twice" in errors[9]
    e.send("go iterations 500 seed 2")
    assert e.expect("bestmove").split()[1] in {str(m) for m in Position.parse(
        "5+2 678+3C/????? ./. 1 a -").legal_moves()}
    e.send("quit")
    assert e.close() == 0


@pytest.mark.parametrize("command, message", [
    ("go iterations 99999999999999999999",
     f"error go iterations: 99999999999999999999 is out of range (1 to {MAX_ITERATIONS})"),
    ("go iterations 0", f"error go iterations: 0 is out of range (1 to {MAX_ITERATIONS})"),
    ("go movetime 0", f"error go movetime: 0 is out of range (1 to {MAX_MOVETIME_MS})"),
    ("go movetime nan", f"error go movetime: 'nan' is not a whole number (1 to {MAX_MOVETIME_MS})"),
    ("go movetime 1e9", f"error go movetime: '1e9' is not a whole number (1 to {MAX_MOVETIME_MS})"),
    ("go movetime 86400001", f"error go movetime: 86400001 is out of range (1 to {MAX_MOVETIME_MS})"),
    ("go seed -1", f"error go seed: -1 is out of range (0 to {MAX_SEED})"),
    ("go seed 9007199254740992", f"error go seed: 9007199254740992 is out of range (0 to {MAX_SEED})"),
])
def test_go_numbers_out_of_range_are_refused_with_the_range(command, message):
    # In-process (a subprocess per case adds nothing): the parsing is the engine's own.
    out = io.StringIO()
    engine = Engine(out=out)
    engine.handle(f"position {ROUND2}")
    assert engine.handle(command) is True
    engine.handle("isready")
    assert out.getvalue().splitlines() == [message, "readyok"]
    assert not engine.searching


def test_go_number_bounds_through_the_subprocess(engine):
    e = engine()
    e.send(f"position {ROUND2}", "go iterations 99999999999999999999", "go movetime nan", "go seed -1")
    errors = e.ready()
    assert [line.split(":")[0] for line in errors] == ["error go iterations", "error go movetime",
                                                      "error go seed"]
    e.send("go iterations 300 seed 99")  # the position is still set: the engine kept running
    assert e.expect("bestmove").split()[1] in ROUND2_MOVES
    e.send("quit")
    assert e.close() == 0


def test_stop_ends_go_infinite_with_a_legal_move(engine):
    e = engine()
    e.send(f"position {ROUND2}", "go infinite seed 4")
    before = e.ready()  # answered while searching
    assert not any(line.startswith("bestmove") for line in before)  # infinite: no answer before stop
    e.send("stop")
    assert e.expect("bestmove").split()[1] in ROUND2_MOVES
    e.send("stop")  # no search: nothing to stop, no answer
    assert e.ready() == []
    e.send("go iterations 300")  # the engine searches again after a stopped search
    assert e.expect("bestmove").split()[1] in ROUND2_MOVES
    e.send("quit")
    assert e.close() == 0
    assert sum(line.startswith("bestmove") for line in e.lines) == 2


def test_go_infinite_in_round_4_solves_then_waits_for_stop(engine):
    e = engine()
    e.send(f"position {ROUND4}", "go infinite")
    e.expect("info")  # the exact answer is known...
    assert not any(line.startswith("bestmove") for line in e.ready())  # ...but kept until stop
    e.send("stop")
    assert e.expect("bestmove") == "bestmove 8"
    e.send("quit")
    assert e.close() == 0


def test_isready_and_stop_are_answered_during_a_long_search(engine):
    e = engine()
    e.send(f"position {ROUND2}", f"go iterations {MAX_ITERATIONS}")  # half an hour if not stopped
    assert not any(line.startswith("bestmove") for line in e.ready())
    e.send("go movetime 100")
    assert e.expect("error").startswith("error busy")
    e.send("dn")  # answered while searching, its block never split by info lines
    e.expect("dnok")
    block = e.lines[max(i for i, line in enumerate(e.lines) if line.startswith("id name")):]
    assert len(block) == 7 and all(line.startswith("option name") for line in block[1:-1])
    e.send("stop")
    assert e.expect("bestmove").split()[1] in ROUND2_MOVES
    e.send("quit")
    assert e.close() == 0


def test_position_while_searching_is_for_the_next_go(engine):
    e = engine()
    e.send(f"position {ROUND2}", "go infinite", f"position {ROUND4}")
    e.ready()
    e.send("stop")
    assert e.expect("bestmove").split()[1] in ROUND2_MOVES  # the running search kept its position
    e.send("go movetime 200")
    assert e.expect("bestmove") == "bestmove 8"
    e.send("quit")
    assert e.close() == 0


def test_quit_while_searching_exits_promptly_after_the_best_move_so_far(engine):
    e = engine()
    e.send(f"position {ROUND2}", "go infinite")
    e.ready()
    e.send("quit")
    assert e.proc.wait(timeout=30) == 0  # a deadline against a hang, not a timing check
    assert e.close() == 0
    assert [line for line in e.lines if line.startswith("bestmove")][0].split()[1] in ROUND2_MOVES
    assert sum(line.startswith("bestmove") for line in e.lines) == 1


def test_end_of_input_finishes_the_search_and_answers(engine):
    e = engine()
    e.send(f"position {ROUND2}", "go iterations 3000 seed 2")
    assert e.close() == 0  # stdin closed while searching: the search still answers
    assert sum(line.startswith("bestmove") for line in e.lines) == 1
    e = engine()
    e.send(f"position {ROUND2}", "go infinite")
    assert e.close() == 0  # go infinite is stopped at end of input, and answers
    assert sum(line.startswith("bestmove") for line in e.lines) == 1


def test_go_after_a_rejected_position_is_an_error_not_the_old_move(engine):
    e = engine()
    e.send(f"position {ROUND2}", "go iterations 300")
    e.expect("bestmove")
    e.send("position 5+2 678+3C/????? ./. 9 a -", "go iterations 300")
    answers = e.ready()
    assert len(answers) == 2 and answers[0].startswith("error round")
    assert answers[1] == "error no position: send 'position <DNP>' first"
    e.send(f"position {ROUND2}", "newgame", "go iterations 300")  # newgame forgets it too
    assert e.ready() == ["error no position: send 'position <DNP>' first"]
    e.send("quit")
    assert e.close() == 0


def test_setoption_good_values_are_used_and_bad_ones_name_the_range(engine):
    e = engine()
    e.send("setoption name Threads value 2", "setoption name Hash value 16", "setoption name policy value GREEDY",
           "setoption name Exploration value 1.5")
    assert e.ready() == []
    e.send(f"position {ROUND2}", "go iterations 2000 seed 3")
    assert e.expect("bestmove").split()[1] in ROUND2_MOVES
    e.send("setoption name Threads value 0", f"setoption name Threads value {10**20}",
           "setoption name Hash value 0", f"setoption name Hash value {HASH_MAX_MB + 1}",
           "setoption name Policy value clever", "setoption name Exploration value nan",
           "setoption name Exploration value -1", "setoption name Colour value red",
           "setoption name Threads", "setoption name Threads value", "setoption")
    errors = e.ready()
    assert errors == [
        f"error setoption Threads: 0 is out of range (1 to {MAX_THREADS})",
        f"error setoption Threads: {10**20} is out of range (1 to {MAX_THREADS})",
        f"error setoption Hash: 0 is out of range ({HASH_MIN_MB} to {HASH_MAX_MB})",
        f"error setoption Hash: {HASH_MAX_MB + 1} is out of range ({HASH_MIN_MB} to {HASH_MAX_MB})",
        "error setoption Policy: 'clever' is not one of random, greedy, taker, guard",
        "error setoption Exploration: nan is not a finite number (0 to 100)",
        "error setoption Exploration: -1 is out of range (0 to 100)",
        "error setoption: unknown option 'Colour' (Threads, Hash, Policy, Exploration, Ponder)",
        "error setoption: expected 'setoption name <Name> value <v>'",
        "error setoption Threads: needs a value",
        "error setoption: expected 'setoption name <Name> value <v>'",
    ]
    e.send("go iterations 2000 seed 3")  # the good values are still in force
    assert e.expect("bestmove").split()[1] in ROUND2_MOVES
    e.send("quit")
    assert e.close() == 0


def test_same_seed_same_move_with_options(engine):
    answers = []
    for _ in range(2):
        e = engine()
        e.send("setoption name Threads value 2", f"position {ROUND2}", "go iterations 3000 seed 9")
        answers.append(e.expect("bestmove"))
        e.send("quit")
        assert e.close() == 0
    assert answers[0] == answers[1]


def test_a_10_mb_line_is_refused_in_one_short_line(engine):
    e = engine()
    e.send("position " + "5" * 10_000_000)
    answers = e.ready()
    assert len(answers) == 1 and len(answers[0]) < 200
    assert answers[0].startswith(f"error line too long: over {MAX_LINE_BYTES} bytes, starting 'position 555")
    e.send("x" * 100_000 + "é" * 3)  # long and not ASCII, then not UTF-8: still one line each
    e.proc.stdin.write(b"\xff\xfe garbage\n")
    answers = e.ready()
    assert len(answers) == 2 and all(line.startswith("error ") and len(line) < 200 for line in answers)
    e.send("quit")
    assert e.close() == 0


def test_long_arguments_are_quoted_short():
    out = io.StringIO()
    engine = Engine(out=out)
    for command in ["x" * 4000, "go " + "y" * 4000, "go movetime " + "9" * 4000,
                    "position " + "5" * 4000 + " ./. ./. 1 a -", "setoption name " + "z" * 4000 + " value 1"]:
        engine.handle(command)
    lines = out.getvalue().splitlines()
    assert len(lines) == 5
    assert all(line.startswith("error ") and len(line) <= MAX_ERROR_CHARS + 10 for line in lines), lines


def test_command_lines_skips_overlong_lines_without_keeping_them():
    text = "isready\n" + "a" * (MAX_LINE_BYTES + 1) + "\n" + "b" * MAX_LINE_BYTES + "\nquit"
    lines = list(command_lines(io.StringIO(text)))
    assert lines[0] == "isready\n" and lines[1] == LineTooLong("a" * 41)
    assert lines[2] == "b" * MAX_LINE_BYTES + "\n" and lines[3] == "quit"


def test_advise_stops_between_slices_when_told():
    halt = threading.Event()
    threading.Timer(0.2, halt.set).start()
    advice = advise(Position.parse(ROUND2), Limit(infinite=True), threads=2, stop=halt, slice_seconds=0.01)
    assert 0 < advice.iterations < MAX_ITERATIONS and advice.best in ROUND2_MOVES


def test_sliced_searches_with_threads_end_with_the_same_trees():
    pos = Position.parse(ROUND2)
    answers = [advise(pos, Limit(iterations=4000), threads=2, seed=5, slice_seconds=s) for s in (0.0005, 10.0)]
    assert answers[0].moves == answers[1].moves and answers[0].iterations == 4000
