"""Matches, tournaments, records, resume, interruption, external engines, a Dask cluster."""

import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from solver.agents.match import make_jobs, play_job, read_records, run_jobs, summarise
from solver.interfaces.board import render_board
from solver.rules.position import Position

ENGINE = f"cmd:{sys.executable} -I -m solver.cli engine"
FAULTY = Path(__file__).parent / "engines" / "faulty.py"


def dnoir(*args, cwd=None, timeout=300):
    return subprocess.run([sys.executable, "-I", "-m", "solver.cli", *args], capture_output=True, text=True,
                          cwd=cwd, timeout=timeout)


def test_records_hold_the_deal_moves_result_and_settings():
    record = play_job(make_jobs([("greedy", "ismcts:iterations=100")], pairs=1, seed=3)[1])
    assert record["players"] == {"a": "ismcts:iterations=100", "b": "greedy"}
    assert record["pairing"] == ["greedy", "ismcts:iterations=100"] and record["game"] == 1
    pos = Position.parse(record["deal"])
    assert pos.is_full and pos.round == 1
    for token in record["moves"].split():
        pos = pos.play(token)
    assert pos.is_over
    result = record["result"]
    assert result["winner"] == pos.result().winner and result["how"] == pos.result().how
    assert set(result["scores"]["a"]) == {"majorities", "sets", "alliances", "betrayals", "total"}
    assert record["settings"] == {"movetime_ms": None, "iterations": None}


def test_same_seed_same_games_in_one_or_two_processes():
    jobs = make_jobs([("greedy", "ismcts:iterations=150")], pairs=3, seed=5)
    serial = sorted(run_jobs(jobs, workers=1), key=lambda r: (r["pair"], r["game"]))
    parallel = sorted(run_jobs(jobs, workers=2), key=lambda r: (r["pair"], r["game"]))
    assert serial == parallel
    assert serial[0]["deal"] == serial[1]["deal"] != serial[2]["deal"]


def test_match_writes_every_game_and_resumes(tmp_path):
    out = tmp_path / "games.jsonl"
    first = dnoir("match", "greedy", "random", "--pairs", "3", "--out", str(out), "--workers", "2", "--json")
    assert first.returncode == 0, first.stderr
    assert len(read_records(out)) == 6
    again = dnoir("match", "greedy", "random", "--pairs", "3", "--out", str(out))
    assert again.returncode == 2 and "--resume" in again.stderr
    resumed = dnoir("match", "greedy", "random", "--pairs", "5", "--out", str(out), "--resume", "--json")
    assert resumed.returncode == 0 and "6 games already" in resumed.stderr
    records = read_records(out)
    assert len(records) == 10 and len({(r["pair"], r["game"]) for r in records}) == 10
    full = dnoir("match", "greedy", "random", "--pairs", "5", "--json")
    assert json.loads(resumed.stdout)["score"] == json.loads(full.stdout)["score"]


@pytest.mark.parametrize("change, reason", [
    (["greedy", "pimc:worlds=5", "--pairs", "3"], "holds greedy against random"),
    (["greedy", "random", "--pairs", "3", "--seed", "1"], "--seed 0, not 1"),
    (["greedy", "random", "--pairs", "3", "--movetime", "50"], "no --movetime or --iterations, not --movetime 50"),
    (["greedy", "random", "--pairs", "3", "--iterations", "100"], "not --iterations 100"),
    (["greedy", "random", "--pairs", "1"], "give --pairs 2 or more"),
])
def test_resume_refuses_the_file_of_another_match(tmp_path, change, reason):
    out = tmp_path / "games.jsonl"
    assert dnoir("match", "greedy", "random", "--pairs", "2", "--out", str(out)).returncode == 0
    with open(out, "a") as f:
        f.write('{"deal": "cut sho')  # a torn line: resuming would end it; refusing leaves it
    before = (out.read_bytes(), os.stat(out).st_mtime_ns)
    result = dnoir("match", *change, "--out", str(out), "--resume")
    assert result.returncode == 2
    errors = [line for line in result.stderr.splitlines() if line.startswith("dnoir: error")]
    assert len(errors) == 1 and "another match" in errors[0] and reason in errors[0], result.stderr
    assert (out.read_bytes(), os.stat(out).st_mtime_ns) == before


def test_records_of_other_budgets_are_other_games(tmp_path):
    out = tmp_path / "games.jsonl"
    args = ("match", "greedy", "ismcts:iterations=50", "--pairs", "2", "--out", str(out))
    assert dnoir(*args, "--iterations", "10").returncode == 0
    again = dnoir(*args, "--iterations", "10", "--pairs", "3", "--resume")
    assert again.returncode == 0 and "4 games already" in again.stderr
    keys = {(r["settings"]["iterations"], r["pair"], r["game"]) for r in read_records(out)}
    assert len(keys) == 6


@pytest.mark.parametrize("option, value, bound", [
    ("--pairs", "99999999999999999999", "1000000000"),
    ("--pairs", "0", "1000000000"),
    ("--workers", "1e20", "1024"),
    ("--movetime", "0", "86400000"),
    ("--iterations", "99999999999999999999", "1000000000"),
    ("--seed", "-1", "9007199254740991"),
    ("--seed", "9007199254740992", "9007199254740991"),
])
def test_run_numbers_are_bounded(option, value, bound):
    for command in ("match", "tournament"):
        result = dnoir(command, "random", "greedy", option, value)
        assert result.returncode == 2
        assert len(result.stderr.strip().splitlines()) == 1
        assert option in result.stderr and bound in result.stderr, result.stderr


def test_resume_survives_a_cut_last_line(tmp_path):
    out = tmp_path / "games.jsonl"
    assert dnoir("match", "greedy", "random", "--pairs", "2", "--out", str(out)).returncode == 0
    with open(out, "a") as f:
        f.write('{"deal": "cut sho')
    resumed = dnoir("match", "greedy", "random", "--pairs", "3", "--out", str(out), "--resume")
    assert resumed.returncode == 0 and "line 5" in resumed.stderr
    assert len(read_records(out)) == 6


def test_ctrl_c_prints_the_table_and_keeps_finished_games(tmp_path):
    out = tmp_path / "games.jsonl"
    proc = subprocess.Popen([sys.executable, "-I", "-m", "solver.cli", "match", "ismcts:iterations=3000", "greedy",
                             "--pairs", "200", "--out", str(out), "--workers", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                            start_new_session=True)
    deadline = time.time() + 120
    while time.time() < deadline and (not out.exists() or len(out.read_text().splitlines()) < 3):
        time.sleep(0.2)
    os.killpg(proc.pid, signal.SIGINT)  # as Ctrl-C in a terminal: to the command and its workers
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stderr
    assert "interrupted" in stderr and "Traceback" not in stderr and "Exception ignored" not in stderr
    kept = read_records(out)
    assert len(kept) >= 3 and f"{len(kept)} games" in stdout
    # two workers may have finished games of later pairs before the interrupt reached them:
    # resume to one pair past the last kept, and at least to 3
    pairs = max(3, max(r["pair"] for r in kept) + 2)
    resumed = dnoir("match", "ismcts:iterations=3000", "greedy", "--pairs", str(pairs), "--out", str(out), "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert {(r["pair"], r["game"]) for r in read_records(out)} == {(k, g) for k in range(pairs) for g in (0, 1)}


def test_external_engine_over_the_protocol(tmp_path):
    # a budget in iterations: a loaded machine cannot turn a slow answer into a timeout
    result = dnoir("match", ENGINE, "greedy", "--pairs", "2", "--iterations", "100", "--workers", "1",
                   "--out", str(tmp_path / "g.jsonl"), "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["games"] == 4
    assert summary["faults"]["x"] == {"timeout": 0, "illegal": 0, "crash": 0}
    records = read_records(tmp_path / "g.jsonl")
    assert all(r["engines"]["a" if r["game"] == 0 else "b"].startswith("dnoir") for r in records)


@pytest.mark.parametrize("mode, kind", [("illegal", "illegal"), ("crash", "crash"), ("silent", "timeout")])
def test_faulty_engines_lose_and_are_logged(tmp_path, mode, kind):
    out = tmp_path / "g.jsonl"
    spec = f"cmd:{sys.executable} {FAULTY} {mode}"
    # a crash or an illegal answer is seen at once, whatever the budget: a long one keeps a
    # loaded machine from turning a slow crash into a timeout; the silent engine needs a short one
    movetime = "20" if kind == "timeout" else "60000"
    result = dnoir("match", spec, "random", "--pairs", "1", "--movetime", movetime, "--workers", "1",
                   "--out", str(out), "--json")
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    records = read_records(out)
    faulted = [r for r in records if "fault" in r]
    assert faulted and all(r["fault"]["kind"] == kind for r in faulted)
    for r in faulted:
        assert r["result"]["how"] == kind and r["result"]["winner"] != r["fault"]["player"]
        Position.parse(r["fault"]["position"])  # the position the engine was asked about
    assert summary["faults"]["x"][kind] == len(faulted)


@pytest.mark.slow
def test_local_cluster_gives_the_same_games():
    distributed = pytest.importorskip("distributed")
    jobs = make_jobs([("greedy", "ismcts:iterations=150")], pairs=2, seed=9)
    local = sorted(run_jobs(jobs, workers=1), key=lambda r: (r["pair"], r["game"]))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        remote = sorted(run_jobs(jobs, scheduler=cluster.scheduler_address), key=lambda r: (r["pair"], r["game"]))
    assert local == remote


# -- odd clusters ---------------------------------------------------------------------------

def dnoir_with(env: dict, *args, timeout=120):
    return subprocess.run([sys.executable, "-I", "-m", "solver.cli", *args], capture_output=True, text=True,
                          env={**os.environ, **env}, timeout=timeout)


def one_error_line(result) -> str:
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("dnoir: error: "), result.stderr
    return lines[0]


@pytest.fixture
def odd_server():
    """A TCP server on 127.0.0.1 that accepts and then either says nothing or speaks HTTP."""
    import socket
    import threading

    servers = []

    def start(speaks_http: bool) -> str:
        server = socket.create_server(("127.0.0.1", 0))
        servers.append(server)

        def serve():
            held = []
            while True:
                try:
                    conn, _ = server.accept()
                except OSError:
                    return
                if speaks_http:
                    conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n" * 50)
                    conn.close()
                else:
                    held.append(conn)  # accepted, never answered

        threading.Thread(target=serve, daemon=True).start()
        return f"tcp://127.0.0.1:{server.getsockname()[1]}"

    yield start
    for server in servers:
        server.close()


@pytest.mark.slow
@pytest.mark.parametrize("speaks_http, message", [(False, "no Dask scheduler answered"),
                                                  (True, "is not a Dask scheduler")])
def test_a_scheduler_that_is_not_one_is_one_line(odd_server, speaks_http, message):
    pytest.importorskip("distributed")
    address = odd_server(speaks_http)
    result = dnoir_with({"DNOIR_CONNECT_TIMEOUT": "3"}, "match", "random", "random", "--pairs", "1",
                        "--scheduler", address)
    assert result.returncode == 2
    line = one_error_line(result)
    assert message in line and address in line


@pytest.mark.slow
def test_a_cluster_without_workers_says_so():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        result = dnoir_with({"DNOIR_WORKERS_TIMEOUT": "2"}, "match", "random", "random", "--pairs", "1",
                            "--scheduler", cluster.scheduler_address)
    assert result.returncode == 2
    assert "has no workers" in one_error_line(result)


@pytest.mark.slow
def test_a_scheduler_lost_mid_run_is_one_line_and_keeps_every_game(tmp_path):
    pytest.importorskip("distributed")
    import socket

    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]
    address = f"tcp://127.0.0.1:{port}"
    # run from tmp_path: from the checkout, `solver` would be the unbuilt source tree, not the
    # installed package, and every task would fail to load on the worker
    quiet = dict(stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path)
    scheduler = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
                                  "--port", str(port), "--no-dashboard"], **quiet)
    worker = None
    out = tmp_path / "g.jsonl"
    try:
        worker = subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1",
                                   "--no-dashboard", "--no-nanny"], **quiet)
        run = subprocess.Popen([sys.executable, "-I", "-m", "solver.cli", "match", "ismcts:iterations=300",
                                "greedy", "--pairs", "500", "--scheduler", address, "--out", str(out)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               env={**os.environ, "DNOIR_CONNECT_TIMEOUT": "60", "DNOIR_WORKERS_TIMEOUT": "60"})
        deadline = time.time() + 120
        while time.time() < deadline and run.poll() is None and (
                not out.exists() or len(out.read_text().splitlines()) < 3):
            time.sleep(0.2)
        scheduler.kill()
        stdout, stderr = run.communicate(timeout=120)
    finally:
        for proc in (worker, scheduler):
            if proc is not None:
                proc.kill()
                proc.wait(timeout=60)
    errors = [line for line in stderr.splitlines() if line.startswith("dnoir: error")]
    assert run.returncode == 2 and len(errors) == 1, stderr
    assert f"lost the Dask scheduler at {address}" in errors[0] and "Traceback" not in stderr
    kept = read_records(out)
    assert len(kept) >= 3 and len(out.read_text().splitlines()) == len(kept)


def test_sprt_stops_early():
    result = dnoir("match", "ismcts:iterations=500", "random", "--pairs", "200", "--sprt", "0,100", "--json")
    summary = json.loads(result.stdout)
    assert result.returncode == 0 and summary["stopped"] == "H1"
    assert summary["games"] < 400 and summary["sprt"]["llr"] >= summary["sprt"]["upper"]


def test_tournament_prints_an_elo_table(tmp_path):
    result = dnoir("tournament", "random", "greedy", "ismcts:iterations=200", "--pairs", "3", "--json",
                   "--out", str(tmp_path / "t.jsonl"))
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    names = [r["name"] for r in data["ratings"]]
    assert set(names) == {"random", "greedy", "ismcts:iterations=200"} and len(data["pairings"]) == 3
    assert abs(sum(r["elo"] for r in data["ratings"])) < 1e-6
    text = dnoir("tournament", "random", "greedy", "--pairs", "2")
    assert "Elo" in text.stdout and "95% interval" in text.stdout


def test_tournament_plot(tmp_path):
    pytest.importorskip("matplotlib")
    png = tmp_path / "elo.png"
    result = dnoir("tournament", "ismcts:iterations=50", "ismcts:iterations=200", "--pairs", "2", "--plot", str(png))
    assert result.returncode == 0, result.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_tournament_plot_needs_budget_only_differences():
    result = dnoir("tournament", "random", "ismcts:iterations=200", "--pairs", "1", "--plot", "x.png")
    assert result.returncode == 2 and "budget" in result.stderr


@pytest.mark.parametrize("args, message", [
    (["match", "alphazero", "random"], "unknown bot"),
    (["match", "cmd:", "random"], "command"),
    (["match", "cmd:no-such-engine-anywhere --fast", "random"], "does not work"),
    (["match", "greedy", "random", "--sprt", "5"], "sprt"),
    (["match", "greedy", "random", "--sprt", "10,0"], "elo0 < elo1"),
    (["tournament", "greedy"], "two different"),
    (["replay", "/nonexistent.jsonl"], "does not exist"),
])
def test_bad_arguments(args, message):
    result = dnoir(*args)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and message in result.stderr


def test_replay_shows_every_move(tmp_path):
    out = tmp_path / "g.jsonl"
    assert dnoir("match", "greedy", "random", "--pairs", "1", "--out", str(out)).returncode == 0
    record = read_records(out)[1]
    moves = record["moves"].split()
    full = dnoir("replay", str(out), "--game", "1", "--full")
    assert full.returncode == 0
    assert full.stdout.count("--- move ") == len(moves)
    assert f"result: {record['result']['winner']}" in full.stdout
    compact = dnoir("replay", str(out), "--game", "1")
    lines = [line for line in compact.stdout.splitlines() if re.match(r"\s+\d+\. r[1-4] [ab]  ", line)]
    assert [line.split()[3] for line in lines] == moves  # one line a move, in order
    # games are written as they finish: line 1 may hold either game of the pair
    assert "game over" in lines[-1] and f"(pair 0, game {record['game']} of the match)" in compact.stdout
    assert dnoir("replay", str(out), "--game", "9").returncode == 2


def test_replay_shows_the_board_at_a_chosen_move(tmp_path):
    out = tmp_path / "g.jsonl"
    assert dnoir("match", "greedy", "random", "--pairs", "1", "--out", str(out)).returncode == 0
    record = read_records(out)[0]
    pos = Position.parse(record["deal"])
    for token in record["moves"].split()[:5]:
        pos = pos.play(token)
    at = dnoir("replay", str(out), "--move", "5")
    assert at.returncode == 0 and render_board(pos) in at.stdout and "--- move" not in at.stdout
    end = dnoir("replay", str(out), "--move", str(len(record["moves"].split())))
    assert "game over" in end.stdout and "taking now would get" not in end.stdout
    past = dnoir("replay", str(out), "--move", "999")
    assert past.returncode == 2 and "999" in past.stderr and len(past.stderr.splitlines()) == 1


def test_board_says_one_card_not_one_cards():
    import random

    rng, pos = random.Random(1), Position.random_deal(1)
    while len(pos.line) != 1:  # a take that leaves one card: early in any seeded game
        pos = pos.play(rng.choice(pos.legal_moves())) if not pos.is_over else Position.random_deal(rng.randrange(2**32))
    one = render_board(pos)
    assert "(1 card)" in one and "1 cards" not in one


# -- statistics ------------------------------------------------------------------------

# (the statistics themselves are tested in tests/test_stats.py)


def test_summarise_counts_from_x_side():
    jobs = make_jobs([("greedy", "random")], pairs=2, seed=1)
    records = list(run_jobs(jobs))
    s = summarise(records, "greedy", "random")
    assert s.games == 4 and s.wins + s.draws + s.losses == 4
    assert s.summary.units == 2 and sum(s.summary.penta) == 2 and s.lone_games == 0
