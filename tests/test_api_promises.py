"""The Python API keeps the CLI's promises (issue 18, item 6): every bad argument is a
DnoirError naming it, never an IndexError, a TypeError, a wrapped-round seed or a broken
object."""

import math
import subprocess
import sys

import pytest

from solver import Position
from solver.agents.match import make_jobs, play_job
from solver.base.bounds import MAX_SEED
from solver.errors import ArgumentError, DnoirError, LimitError, MoveError, PositionError, RecordError
from solver.interfaces.board import render_board
from solver.rules.cards import TAKE, Move
from solver.rules.records import check_record
from solver.solvers.limit import Limit
from solver.solvers.search import advise

ROUND2 = "68+28 ???/88+3 57+2-1-3CC/778+2-1 2 b a"


def test_every_move_prints_as_it_is_typed_back():
    for index in range(TAKE + 1):
        move = Move(index)
        assert eval(repr(move), {"Move": Move}) == move
        assert Move(str(move)) == move == Move.parse(str(move))


@pytest.mark.parametrize("bad", [12, -1, 99, "x", "t", "", True, False, 1.0, None, [1]])
def test_a_move_that_is_none_is_a_move_error(bad):
    with pytest.raises(MoveError, match="is not a move"):
        Move(bad)


@pytest.mark.parametrize("player", [None, True, False, 1.0, "c", "A"])
def test_deal_refuses_a_player_that_is_not_a_or_b(player):
    view = Position.parse("5+2 ?????/????? ./. 1 a -")
    with pytest.raises(ArgumentError, match="unknown player"):
        view.deal(player, "678+3C")


@pytest.mark.parametrize("hand", [None, 5, [1, 1, 1], (1,) * 10 + (True,), (0,) * 10 + (-1,)])
def test_deal_refuses_a_hand_that_is_not_one(hand):
    view = Position.parse("5+2 ?????/????? ./. 1 a -")
    with pytest.raises(PositionError, match="hand a"):
        view.deal("a", hand)


def test_deal_with_no_hand_is_an_input_error():
    view = Position.parse("5+2 ?????/????? ./. 1 a -")
    with pytest.raises(ArgumentError):
        view.deal(None)
    with pytest.raises(PositionError, match="hand a"):
        view.deal("a")


def test_deal_to_b_only_when_asked():
    view = Position.parse("5+2 ?????/????? ./. 1 a -")
    assert str(view.deal(0, "678+3C")) == str(view.deal("a", "678+3C"))


@pytest.mark.parametrize("seed", [-1, 2**53, 2**64 - 1, 2**64, 2**70, True, 1.5, "3", None])
def test_random_deal_refuses_seeds_outside_the_cli_range(seed):
    with pytest.raises(ArgumentError, match="seed"):
        Position.random_deal(seed)


def test_random_deal_takes_the_cli_seed_range_and_dnoir_play_deals_the_same():
    assert MAX_SEED == 2**53 - 1
    top = Position.random_deal(MAX_SEED)
    assert str(top) == str(Position.random_deal(MAX_SEED)) != str(Position.random_deal(0))
    # the CLI's `--seed` reaches the same deal: `dnoir play --seed` at the top of the range
    run = subprocess.run([sys.executable, "-I", "-m", "solver.cli", "play", "--seed", str(MAX_SEED), "--seat", "a",
                          "--engine", "random"], input="quit\n", capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    hand_a = next(line for line in render_board(top).splitlines() if line.startswith("hand a"))
    assert hand_a.strip() in run.stdout, (hand_a, run.stdout[:800])


def test_every_match_record_names_a_deal_seed_that_deals_its_cards():
    for job in make_jobs([("greedy", "random")], pairs=3, seed=7)[::2]:
        record = play_job(job)
        assert 0 <= record["deal_seed"] <= MAX_SEED
        assert str(Position.random_deal(record["deal_seed"])) == record["deal"]
        assert check_record(record) is record
        with pytest.raises(RecordError, match="deal_seed"):
            check_record(dict(record, deal_seed=record["deal_seed"] ^ 1))
        with pytest.raises(RecordError, match="deal_seed"):
            check_record(dict(record, deal_seed=2**53))


@pytest.mark.parametrize("kwargs,name", [
    (dict(max_nodes=0), "max_nodes"), (dict(max_nodes=-5), "max_nodes"), (dict(threads=0), "threads"),
    (dict(threads=True), "threads"), (dict(seed=-1), "seed"), (dict(seed=2**64), "seed"),
    (dict(exploration=math.nan), "exploration"), (dict(exploration=-1.0), "exploration"),
    (dict(policy="bogus"), "policy"), (dict(endgame="open"), "endgame"), (dict(slice_seconds=0), "slice_seconds"),
])
def test_advise_argument_errors_are_dnoir_errors(kwargs, name):
    with pytest.raises(ArgumentError, match=name):
        advise(Position.parse(ROUND2), Limit(iterations=100), **kwargs)


def test_advise_refuses_what_is_not_a_position_or_a_limit():
    with pytest.raises(DnoirError):
        advise(ROUND2, Limit(iterations=100))
    with pytest.raises(LimitError):
        advise(Position.parse(ROUND2), 100)
