"""Bots behind one interface, the engine protocol through a real subprocess, and the arena."""

import subprocess
import sys

import pytest

from solver import Position
from solver.arena import play_game
from solver.match import make_jobs, play_job
from solver.bots import make_bot, parse_spec
from solver.cards import Move

SPECS = ["random", "greedy", "pimc:worlds=20", "ismcts:iterations=300", "ismcts:time=0.01,threads=1",
         "ismcts:iterations=200,policy=greedy", "random:seed=5"]


@pytest.mark.parametrize("spec", SPECS)
def test_every_bot_plays_legal_moves_from_its_view(spec):
    bot = make_bot(spec, seed=1)
    pos = Position.random_deal(3)
    while not pos.is_over:
        view = pos.view("ab"[pos.to_move])
        move = bot.choose(view)
        assert isinstance(move, Move) and move in pos.legal_moves()
        pos = pos.play(move)


def test_bots_are_reproducible():
    for spec in ("random", "pimc:worlds=10", "ismcts:iterations=200"):
        games = [play_game(Position.random_deal(9), (spec, "greedy"), seed=4) for _ in range(2)]
        assert games[0] == games[1]


@pytest.mark.parametrize("spec, message", [
    ("alphazero", "unknown bot"),
    ("pimc:worlds", "key=value"),
    ("pimc:flavour=3", "bad parameters"),
    ("pimc:worlds=many", "bad parameter value"),
    ("ismcts:policy=clever", "policy"),
])
def test_bad_specs(spec, message):
    with pytest.raises(ValueError, match=message):
        bot = make_bot(spec)
        pos = Position.random_deal(1)
        bot.choose(pos.view("ab"[pos.to_move]))


def test_parse_spec():
    assert parse_spec("ismcts:iterations=2000,threads=2") == ("ismcts", {"iterations": "2000", "threads": "2"})


def test_greedy_takes_the_third_city():
    pos = Position.parse("5C678 5678+2/5678+2 -1-1-1-2-2/CC 2 b -")
    assert str(make_bot("greedy").choose(pos)) == "T"


def test_duplicate_pair_plays_one_deal_with_seats_swapped():
    first, second = [play_job(job) for job in make_jobs([("greedy", "random")], pairs=4, seed=1)[6:8]]
    assert first["deal"] == second["deal"] and first["pair"] == second["pair"] == 3
    assert first["players"] == {"a": "greedy", "b": "random"}
    assert second["players"] == {"a": "random", "b": "greedy"}
    replay = Position.parse(first["deal"])
    for token in first["moves"].split():
        replay = replay.play(token)
    assert replay.is_over and replay.result().winner == first["result"]["winner"]


def engine_session(commands: str, tmp_path) -> list[str]:
    proc = subprocess.run([sys.executable, "-I", "-m", "solver.cli", "engine"], input=commands,
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert proc.returncode == 0 and proc.stderr == ""
    return proc.stdout.splitlines()


def test_engine_protocol_through_a_subprocess(tmp_path):
    out = engine_session("\n".join([
        "dn", "isready",
        "position 68+28 ???/88+3 57+2-1-3CC/778+2-1 2 b a",
        "go iterations 2000 seed 1",
        "newgame",
        "position 7-2+3 ??/8-2 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a",
        "go movetime 200",
        "quit",
        "isready",  # after quit: never answered
    ]) + "\n", tmp_path)
    assert out[0].startswith("id name dnoir ") and out[1] == "dnok" and out[2] == "readyok"
    best = [line for line in out if line.startswith("bestmove ")]
    assert len(best) == 2
    assert best[0].split()[1] in {"8", "+3", "T"}
    assert best[1] == "bestmove 8"  # round 4, solved exactly: 8 loses least
    assert out.count("readyok") == 1
    assert all(line.split()[0] in {"id", "dnok", "readyok", "info", "bestmove"} for line in out)


def test_engine_reports_errors_and_keeps_running(tmp_path):
    out = engine_session("\n".join([
        "hello", "go", "position", "position 5+2 678+3C/????? ./. 9 a -",
        "position 5+2 ?????/678+3C ./. 1 a -",
        "position 5+2 678+3C/????? ./. 1 a -",
        "go movetime", "go movetime -5", "go depth 3", "go iterations 500 seed 2", "isready",
    ]) + "\n", tmp_path)
    errors = [line for line in out if line.startswith("error ")]
    assert len(errors) == 8
    assert "unknown command" in errors[0] and "no position" in errors[1]
    assert "round" in errors[3] and "own hand" in errors[4]
    assert out[-1] == "readyok" and out[-2].startswith("bestmove ")


def test_engine_same_seed_same_move(tmp_path):
    session = "position 68+28 ???/88+3 57+2-1-3CC/778+2-1 2 b a\ngo iterations 3000 seed 9\n"
    first = [line for line in engine_session(session, tmp_path) if line.startswith("bestmove")]
    second = [line for line in engine_session(session, tmp_path) if line.startswith("bestmove")]
    assert first == second
