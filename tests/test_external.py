"""External engines that crash, exit, fail to restart or answer late; no process outlives `dnoir match`.

The fake engine tests/engines/scripted.py plays legal moves, misbehaves on cue and writes
`<pid>.pid` (holding its parent's pid) into a state folder at every launch, so that the
tests can count launches and check that every engine and worker is gone.
"""

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from solver.agents import external
from solver.agents.arena import close_engines
from solver.agents.external import EngineFault, ExternalBot
from solver.agents.match import make_jobs, read_records, run_jobs
from solver.rules.position import Position
from solver.solvers.limit import Limit

SCRIPTED = Path(__file__).parent / "engines" / "scripted.py"


def engine_command(state: Path, *options: str) -> str:
    state.mkdir(exist_ok=True)
    return f"{sys.executable} {SCRIPTED} {state} {' '.join(options)}".strip()


def launches(state: Path) -> dict[int, int]:
    """{engine pid: its parent's pid} of every launch so far."""
    found = {}
    for path in state.glob("*.pid"):
        text = path.read_text()
        if text:
            found[int(path.stem)] = int(text)
    return found


def alive(pid: int) -> bool:
    """True if the process runs (a zombie, dead but not yet reaped, does not count)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    state = next((line.split()[1] for line in status.splitlines() if line.startswith("State:")), "")
    return state not in ("Z", "X")


def wait_until(condition, seconds: float = 60.0) -> bool:
    """Poll `condition` until it holds or the deadline (for hangs only) passes."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return condition()


def play(spec: str, pairs: int = 2, limit: Limit = Limit(seconds=60)) -> list[dict]:
    # the scripted engine answers at once: a long budget only keeps a loaded machine from
    # turning a slow answer into a timeout
    records = list(run_jobs(make_jobs([(spec, "random")], pairs=pairs, seed=4, limit=limit)))
    return sorted(records, key=lambda r: (r["pair"], r["game"]))


def start_match(tmp_path: Path, *args: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-I", "-m", "solver.cli", "match", *args], cwd=tmp_path,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def records_in(path: Path) -> int:
    return len(path.read_text().splitlines()) if path.exists() else 0


@pytest.fixture(autouse=True)
def no_engine_left():
    yield
    close_engines()


# -- faults of one engine ---------------------------------------------------------------

def test_a_crash_is_a_crash_and_the_next_game_restarts_the_engine(tmp_path):
    state = tmp_path / "state"
    records = play(f"cmd:{engine_command(state, '--crash-on-go 3')}")
    assert len(records) == 4
    assert [r["fault"]["kind"] for r in records] == ["crash"] * 4
    assert all(r["result"]["how"] == "crash" for r in records)
    assert len(launches(state)) == 4  # a fresh process for every game


def test_an_error_instead_of_a_move_is_an_illegal_answer_at_once(tmp_path):
    state = tmp_path / "state"
    # a movetime of a day: without the fix the game would wait that long for a bestmove
    records = list(run_jobs(make_jobs([(f"cmd:{engine_command(state, '--error-on-go 2')}", "random")], pairs=1,
                                      seed=4, limit=Limit(seconds=86_400))))
    assert [r["fault"]["kind"] for r in records] == ["illegal"] * 2
    assert all("error go: refused" in r["fault"]["detail"] for r in records)


def test_seeds_sent_to_engines_are_in_the_protocol_range(tmp_path):
    from solver.base.bounds import MAX_SEED

    bot = ExternalBot(engine_command(tmp_path / "state"), limit=Limit(seconds=0.05), seed=2**64 - 1)
    assert 0 <= bot.seed <= MAX_SEED
    bot.seed = MAX_SEED
    pos = Position.random_deal(3)
    try:
        bot.new_game()
        bot.choose(pos.view("ab"[pos.to_move]))
    finally:
        bot.close()
    assert bot.seed == 0  # wrapped, never past MAX_SEED


def test_an_engine_that_exits_after_its_last_move_loses_nothing(tmp_path):
    state = tmp_path / "state"
    records = play(f"cmd:{engine_command(state, '--exit-after-last-move')}")
    assert len(records) == 4 and not [r for r in records if "fault" in r]
    assert len(launches(state)) >= 2  # it did exit, and was started again


@pytest.mark.parametrize("mode, kind", [("exit", "crash"), pytest.param("hang", "timeout", marks=pytest.mark.slow)])
def test_a_relaunch_that_fails_its_handshake_costs_that_game_only(tmp_path, monkeypatch, mode, kind):
    monkeypatch.setattr(external, "STARTUP_SECONDS", 5.0)  # a hang is waited for this long
    state = tmp_path / "state"
    records = play(f"cmd:{engine_command(state, '--crash-on-go 1', '--fail-relaunch', mode)}", pairs=1)
    assert len(records) == 2
    first, second = records
    assert first["fault"]["kind"] == "crash"
    assert second["fault"]["kind"] == kind and "start of the game" in second["fault"]["detail"]
    engine_seat = second["fault"]["player"]
    assert second["result"]["winner"] != engine_seat
    Position.parse(second["fault"]["position"])


@pytest.mark.slow
def test_a_late_bestmove_never_answers_a_later_position(tmp_path):
    state = tmp_path / "state"
    bot = ExternalBot(engine_command(state, "--late-first-go 2"), limit=Limit(seconds=0.02))
    pos = Position.random_deal(7)
    try:
        bot.new_game()
        with pytest.raises(EngineFault) as fault:
            bot.choose(pos.view("ab"[pos.to_move]))  # answered 2 s later: out of time
        assert fault.value.kind == "timeout"
        # the late 'bestmove stale' can never arrive once its engine is dead; an engine left
        # alive sends it after 2 s (and then writes stale.sent): wait for whichever comes first
        (first,) = launches(state)
        assert wait_until(lambda: not alive(first) or (state / "stale.sent").exists())
        bot.new_game()
        later = pos.play(pos.legal_moves()[0])
        assert bot.choose(later.view("ab"[later.to_move])) in later.legal_moves()
    finally:
        bot.close()
    assert not any(alive(pid) for pid in launches(state))


def test_engines_are_closed_when_a_run_ends(tmp_path):
    state = tmp_path / "state"
    records = play(f"cmd:{engine_command(state)}", pairs=1)
    assert len(records) == 2
    pids = launches(state)
    assert pids and wait_until(lambda: not any(alive(pid) for pid in pids))


# -- no process outlives the command ------------------------------------------------------

@pytest.mark.slow
def test_a_finished_match_leaves_no_engine_even_one_that_ignores_quit(tmp_path):
    state = tmp_path / "state"
    result = subprocess.run([sys.executable, "-I", "-m", "solver.cli", "match",
                             f"cmd:{engine_command(state, '--busy')}", "random", "--pairs", "2",
                             "--movetime", "60000", "--workers", "2", "--json"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["games"] == 4
    pids = launches(state)
    everyone = set(pids) | set(pids.values())
    assert len(pids) >= 2 and wait_until(lambda: not any(alive(pid) for pid in everyone))


@pytest.mark.slow
@pytest.mark.parametrize("workers", ["1", "2"])
def test_kill_9_of_the_parent_leaves_no_worker_or_engine(tmp_path, workers):
    state = tmp_path / "state"
    out = tmp_path / "g.jsonl"
    # --busy: the engines ignore the end of their input, SIGINT and SIGTERM
    proc = start_match(tmp_path, f"cmd:{engine_command(state, '--busy')}", "random", "--pairs", "1000",
                       "--movetime", "20", "--workers", workers, "--out", str(out))
    try:
        started = wait_until(lambda: records_in(out) >= 2 and len(launches(state)) >= 1 + int(workers))
        assert started, proc.stderr.read() if proc.poll() is not None else "no game within the deadline"
    finally:
        proc.kill()
        proc.wait(timeout=60)
    pids = launches(state)
    children = set(pids) | {parent for parent in pids.values() if parent != proc.pid}
    assert len(children) >= 1 + int(workers)
    assert wait_until(lambda: not any(alive(pid) for pid in children)), [p for p in children if alive(p)]


@pytest.mark.slow
def test_sigterm_is_ctrl_c(tmp_path):
    state = tmp_path / "state"
    out = tmp_path / "g.jsonl"
    proc = start_match(tmp_path, f"cmd:{engine_command(state)}", "random", "--pairs", "1000",
                       "--movetime", "20", "--workers", "2", "--out", str(out))
    assert wait_until(lambda: records_in(out) >= 2 or proc.poll() is not None)
    proc.send_signal(signal.SIGTERM)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert "interrupted" in stderr and "Traceback" not in stderr and "Exception ignored" not in stderr
    kept = read_records(out)
    assert len(kept) >= 2 and f"{len(kept)} games" in stdout
    pids = launches(state)
    everyone = set(pids) | {parent for parent in pids.values() if parent != proc.pid}
    assert wait_until(lambda: not any(alive(pid) for pid in everyone))


# -- any number of pairs ---------------------------------------------------------------------

def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


@pytest.mark.slow
def test_ten_million_pairs_start_at_once_in_flat_memory(tmp_path):
    out = tmp_path / "g.jsonl"
    proc = start_match(tmp_path, "random", "random", "--pairs", "10000000", "--workers", "1", "--out", str(out))
    try:
        assert wait_until(lambda: records_in(out) >= 20 or proc.poll() is not None), "no game within the deadline"
        assert proc.poll() is None, proc.stderr.read()
        first = rss_mb(proc.pid)
        assert wait_until(lambda: records_in(out) >= 400 or proc.poll() is not None)
        # twenty million jobs made up front take gigabytes; made on demand, a few hundred games
        # leave the process at the size of Python with numpy
        assert rss_mb(proc.pid) < 400, (first, rss_mb(proc.pid))
    finally:
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    summary_games = int(stdout.split(":")[1].split()[0])
    assert summary_games == len(read_records(out)) >= 400


def test_the_jobs_of_a_run_are_made_on_demand():
    jobs = make_jobs([("random", "greedy"), ("random", "pimc")], pairs=10**9, seed=2)
    assert len(jobs) == 4 * 10**9
    assert [(j.pair, j.x, j.y, j.game) for j in jobs[:4]] == [
        (0, "random", "greedy", 0), (0, "random", "greedy", 1), (0, "random", "pimc", 0), (0, "random", "pimc", 1)]
    last = jobs[-1]
    assert (last.pair, last.y, last.game) == (10**9 - 1, "pimc", 1)
    done = {j.key for j in jobs[:3]} | {jobs[7].key}
    rest = make_jobs([("random", "greedy"), ("random", "pimc")], pairs=2, seed=2, done=done)
    every = list(make_jobs([("random", "greedy"), ("random", "pimc")], pairs=2, seed=2))
    assert list(rest) == [j for j in every if j.key not in done] == [rest[i] for i in range(len(rest))]
    assert len(rest) == 4


def test_match_prints_json_after_a_crashing_engine(tmp_path):
    """The CLI path: the engine is checked once, then crashes in every game and is restarted."""
    state = tmp_path / "state"
    result = subprocess.run([sys.executable, "-I", "-m", "solver.cli", "match",
                             f"cmd:{engine_command(state, '--crash-on-go 2')}", "random", "--pairs", "2",
                             "--movetime", "60000", "--workers", "1", "--json"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["games"] == 4 and summary["faults"]["x"] == {"timeout": 0, "illegal": 0, "crash": 4}
