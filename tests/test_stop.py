"""Every long computation stops at once (issue 18, item 1).

The compiled CFR+ loops (solver.solvers._cfr) look at their stop test and at Ctrl-C every few
milliseconds of their own CPU time; the round-4 equilibrium advice is anytime (a stop
answers with the last checked strategy, or the view's before the first check); the engine
keeps reading its input while a search runs and after `stop`.

No test here sleeps to let something happen: the waits are on events, on lines, or on the
child's CPU time (which a loaded machine does not shorten), and the bounds on wall time
are generous deadlines against a hang, not timing measurements.
"""

import io
import os
import resource
import signal
import subprocess
import sys
import threading
import time

import pytest
from solver.solvers._cfr import Stopped

import solver.solvers.equilibrium as game
from solver import Position
from solver.interfaces.engine import Engine
from solver.solvers.equilibrium import _tree, equilibrium_advice
from solver.solvers.limit import Limit
from solver.solvers.search import advise

# Three actions into round 4: 655,815 public nodes (53 MB), about 0.06 s of CPU per CFR+
# iteration, and far more than a minute of iterations to reach exploitability 1e-12.
MEDIUM = "885565-1+2-2 78+3/57+3+4 6667788+2+2-2-2-3-3C/6677788+2-1-1-2C 4 b -"
MEDIUM_MOVES = {"5", "7", "+3", "+4", "T"}
# Two actions in ('dnoir bench game' position 3): 5,813,463 public nodes; advise reaches
# 1e-4 after 86 iterations, 17 s on a quiet machine (220 MB), of which counting and building
# the tree take under a second. (The position used before, three actions in, came to be
# solved in 1.5 s, so that a Ctrl-C after 1.5 s of CPU found the command ended.)
LARGER = "-2-1866 67+2-1/78+2+3 5566778+2+2+4-1-2-2CC/5557788888+3-2-3C 4 a - . 67-3"
DEADLINE = 60  # seconds: only a hung process reaches it
PROMPT = 5.0  # seconds: "at once", generously, for a loaded 2-core machine


def _cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _startup_cpu() -> float:
    """CPU seconds of a `dnoir` that starts, imports everything and exits."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run([sys.executable, "-I", "-m", "solver.cli", "show", MEDIUM], capture_output=True, timeout=120,
                   check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def _ctrl_c_after_cpu(args, cpu: float):
    """Start `dnoir args`, press Ctrl-C once it has used `cpu` seconds of CPU beyond start-up;
    (exit code, stdout, stderr, wall seconds from the signal to the exit)."""
    startup = _startup_cpu()
    proc = subprocess.Popen([sys.executable, "-I", "-m", "solver.cli", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 240
        while _cpu_seconds(proc.pid) < startup + cpu:
            assert proc.poll() is None, f"{args} ended by itself: {proc.communicate()}"
            assert time.monotonic() < deadline, "the command never got going"
            time.sleep(0.02)  # polling the CPU clock, not waiting for something to happen
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=DEADLINE)
        return proc.returncode, out, err, time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


# -- the compiled loops -----------------------------------------------------------------------

class CountingTest:
    """A stop test that says "stop" on its `after`-th call and records the walking thread's CPU
    clock at every call (the test runs in the thread that walks)."""

    def __init__(self, after: int):
        self.after = after
        self.cpu: list[float] = []

    def __call__(self) -> bool:
        self.cpu.append(time.thread_time())
        return len(self.cpu) >= self.after


@pytest.fixture(scope="module")
def medium_tree():
    tree = _tree(Position.parse(MEDIUM))
    tree.build()
    return tree


def test_cfr_iterations_stop_within_milliseconds_of_cpu(medium_tree):
    test = CountingTest(after=40)
    medium_tree.stop_when(test)
    before = medium_tree.iterations
    with pytest.raises(Stopped):
        medium_tree.iterate(100_000)  # an hour and more if the loop never looked
    medium_tree.stop_when(None)
    assert len(test.cpu) == 40
    assert medium_tree.iterations - before < 1000
    gaps = [b - a for a, b in zip(test.cpu, test.cpu[1:])]
    # polled every ~2 ms of the loop's own CPU time: 50 ms would be a loop that does not look
    assert max(gaps) < 0.05, gaps


def test_best_response_and_values_stop_too(medium_tree):
    for walk in (lambda: medium_tree.exploitability(), lambda: medium_tree.profile_value(),
                 lambda: medium_tree.set_view_policy()):
        medium_tree.stop_when(lambda: True)  # asked before the walk: it does not start
        with pytest.raises(Stopped):
            walk()
    medium_tree.stop_when(None)
    medium_tree.clear_policy()
    assert 0.0 <= medium_tree.profile_value() <= 1.0  # a stopped walk leaves the tree usable


def test_counting_and_building_stop():
    tree = _tree(Position.parse(MEDIUM))
    tree.stop_when(CountingTest(after=3))
    with pytest.raises(Stopped):
        tree.count()
    tree.stop_when(CountingTest(after=3))
    with pytest.raises(Stopped):
        tree.build()
    assert not tree.built
    tree.stop_when(None)
    assert tree.build()["nodes"] == 655_815


def test_request_stop_from_another_thread_ends_a_running_iterate():
    tree = _tree(Position.parse(MEDIUM))
    tree.build()
    entered = threading.Event()
    calls = []

    def test():  # the loop is running once it polls
        calls.append(1)
        entered.set()
        return False

    tree.stop_when(test)
    result = {}

    def run():
        try:
            tree.iterate(100_000)
        except Stopped as e:
            result["stopped"] = e

    worker = threading.Thread(target=run)
    worker.start()
    assert entered.wait(DEADLINE)
    tree.request_stop()
    worker.join(DEADLINE)
    assert not worker.is_alive() and "stopped" in result


# -- the anytime equilibrium advice ---------------------------------------------------------

def test_equilibrium_advice_is_anytime_and_a_stopped_answer_is_not_cached(monkeypatch):
    checks = []
    original = game.run_cfr

    def run_cfr(tree, target, limit, on_check=None):
        def check(iterations, expl):
            on_check(iterations, expl)
            checks.append(iterations)
        return original(tree, target, limit, on_check=check)

    monkeypatch.setattr(game, "run_cfr", run_cfr)
    view = Position.parse(MEDIUM).view("b")
    advice = equilibrium_advice(view, Limit(seconds=3600), target=1e-12, stop=lambda: len(checks) >= 3)
    assert advice["stopped"] is True and advice["method"] == "equilibrium"
    assert advice["best"] in MEDIUM_MOVES and advice["iterations"] >= 3
    assert abs(sum(m["frequency"] for m in advice["moves"]) - 1.0) < 1e-6
    # stopped before the first check: no answer (advise then answers with the view)
    assert equilibrium_advice(view, Limit(seconds=3600), target=1e-12, stop=lambda: True) is None
    assert not any(key[0] == game._hand_key(view) for key in game._ADVICE_CACHE)


def test_advise_in_round_4_stops_with_an_answer():
    halt = threading.Event()
    halt.set()
    advice = advise(Position.parse(MEDIUM), Limit(seconds=3600), stop=halt)
    assert advice.exact and advice.best in MEDIUM_MOVES  # the view's answer: the game was not begun


# -- the engine keeps reading -----------------------------------------------------------------

class Lines(io.TextIOBase):
    """An output stream that sets an event per line prefix seen."""

    def __init__(self):
        self.lines: list[str] = []
        self.seen: dict[str, threading.Event] = {}
        self._lock = threading.Lock()

    def event(self, prefix: str) -> threading.Event:
        with self._lock:
            return self.seen.setdefault(prefix, threading.Event())

    def write(self, text):
        with self._lock:
            for line in text.splitlines():
                self.lines.append(line)
                for prefix, ev in self.seen.items():
                    if line.startswith(prefix):
                        ev.set()
        return len(text)


def test_engine_answers_while_a_stopped_search_winds_down(monkeypatch):
    """`stop` does not wait for the search: isready is answered before the bestmove of a
    search that is slow to end (held here on an event), and `go` after `stop` is not busy."""
    import solver.interfaces.engine as engine_module

    release = threading.Event()
    stopped_seen = threading.Event()

    def slow_advise(pos, limit, stop=None, **kw):
        stop.wait(DEADLINE)
        stopped_seen.set()
        release.wait(DEADLINE)  # a search that takes long to end after being told to stop
        return advise(pos, Limit(iterations=50), threads=1, seed=1)

    monkeypatch.setattr(engine_module, "advise", slow_advise)
    out = Lines()
    bestmove, readyok = out.event("bestmove"), out.event("readyok")
    engine = Engine(out=out)
    engine.handle("position 68+28 ???/88+3 57+2-1-3CC/778+2-1 2 b a")
    engine.handle("go infinite")
    engine.handle("stop")  # returns at once, though the search has not answered
    assert stopped_seen.wait(DEADLINE)
    engine.handle("isready")
    assert readyok.is_set() and not bestmove.is_set()
    release.set()
    assert bestmove.wait(DEADLINE)
    engine.handle("quit")
    engine.wait(DEADLINE)


def test_engine_stop_in_a_round_4_equilibrium_search(monkeypatch):
    """`stop` while CFR+ runs (after its first checks) answers with a legal move at once."""
    checks = threading.Event()
    original = game.run_cfr

    def run_cfr(tree, target, limit, on_check=None):
        def check(iterations, expl):
            on_check(iterations, expl)
            if iterations >= 3:
                checks.set()
        return original(tree, 1e-12, limit, on_check=check)

    monkeypatch.setattr(game, "run_cfr", run_cfr)
    out = Lines()
    bestmove = out.event("bestmove")
    engine = Engine(out=out)
    engine.handle(f"position {MEDIUM}")
    engine.handle("go movetime 3600000")
    assert checks.wait(DEADLINE * 4), "CFR+ did not get going"
    engine.handle("isready")
    assert "readyok" in out.lines
    sent = time.monotonic()
    engine.handle("stop")
    assert bestmove.wait(DEADLINE)
    assert time.monotonic() - sent < PROMPT
    assert [l for l in out.lines if l.startswith("bestmove")][0].split()[1] in MEDIUM_MOVES
    assert any("equilibrium" in l for l in out.lines if l.startswith("info"))
    engine.handle("quit")
    engine.wait(DEADLINE)


# -- Ctrl-C in the commands -------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads CPU time from /proc")
def test_ctrl_c_ends_solve_mode_game_at_once():
    code, out, err, waited = _ctrl_c_after_cpu(
        ["solve", MEDIUM, "--mode", "game", "--target", "1e-12", "--time", "3600"], cpu=4.0)
    assert code == 130 and err == "dnoir: error: interrupted\n", err
    assert waited < PROMPT


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads CPU time from /proc")
def test_ctrl_c_ends_round_4_advise_with_the_best_answer_so_far():
    code, out, err, waited = _ctrl_c_after_cpu(["advise", LARGER, "--time", "3600"], cpu=1.5)
    assert code == 130, err
    assert "recommended" in out and err.startswith("interrupted after")
    assert waited < PROMPT


@pytest.mark.skipif(not os.path.exists("/proc/self/stat"), reason="reads CPU time from /proc")
def test_ctrl_c_ends_a_long_pimc_evaluation_within_its_cpu():
    """The flat Monte Carlo loop looks at Ctrl-C every 256 worlds: after the signal the
    process spends well under a second of CPU (a million worlds are several seconds)."""
    code = ("from solver import Position; from solver.solvers._pimc import flat_values\n"
            "deal = Position.random_deal(3); view = deal.view('ab'[deal.to_move])\n"
            "while True: flat_values(view.core, view.to_move, 1_000_000)\n")
    startup = _startup_cpu()
    proc = subprocess.Popen([sys.executable, "-I", "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    try:
        deadline = time.monotonic() + 240
        while _cpu_seconds(proc.pid) < startup + 1.0:
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.02)
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        at_signal = _cpu_seconds(proc.pid)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=DEADLINE)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert "KeyboardInterrupt" in err
    total = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    assert total - at_signal < 0.5, (total, at_signal)
