"""The Python API keeps the CLI's promises (issue 18, item 6): every bad argument is a
DnoirError naming it, never an IndexError, a TypeError, a wrapped-round seed or a broken
object."""

import math

import pytest

from solver import Position
from solver.cards import Move, TAKE
from solver.errors import ArgumentError, DnoirError, LimitError, MoveError, PositionError
from solver.limit import Limit
from solver.search import advise

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


@pytest.mark.parametrize("seed", [-1, 2**64, 2**70, True, 1.5, "3", None])
def test_random_deal_refuses_seeds_it_would_wrap(seed):
    with pytest.raises(ArgumentError, match="seed"):
        Position.random_deal(seed)


def test_random_deal_takes_the_whole_core_range():
    assert str(Position.random_deal(2**64 - 1)) != str(Position.random_deal(0))
    assert str(Position.random_deal(2**53 - 1)) == str(Position.random_deal(2**53 - 1))


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
