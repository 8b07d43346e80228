"""Bots behind one interface and the arena (the engine protocol: tests/test_engine.py)."""

import pytest

from solver import Position
from solver.agents.arena import play_game
from solver.agents.bots import SpecError, make_bot, parse_spec
from solver.agents.match import make_jobs, play_job
from solver.rules.cards import Move

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
    ("pimc:flavour=3", "'flavour' for pimc: not a key it takes"),
    ("ismcts:iteration=100", "'iteration' for ismcts: not a key it takes"),
    ("ismcts:iterations=1e20", "iterations: '1e20' is not a whole number"),
    ("ismcts:time=nan", "time: nan is not a finite number"),
    ("pimc:worlds=many", "bad parameter value"),
    ("ismcts:policy=clever", "policy"),
])
def test_bad_specs(spec, message):
    """A bad spec is refused by parse_spec itself, before any bot is built or game played."""
    with pytest.raises(SpecError, match=message):
        parse_spec(spec)
    with pytest.raises(SpecError, match=message):
        make_bot(spec)


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
