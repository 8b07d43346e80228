"""Differential tests: the C core (through Position) against the pure-Python reference model.

Random games are played through both, comparing legal moves, the full position (as
DNP) and the score at every step, and the result at the end.
"""

import random

import pytest
import refmodel
from conftest import random_position
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import Position


def _score_dict(result):
    return {p: dict(majorities=s.majorities, sets=s.sets, alliances=s.alliances,
                    betrayals=s.betrayals, total=s.total) for p, s in zip("ab", result.scores)}


def assert_same(pos: Position, ref: refmodel.RefState):
    assert str(pos) == ref.to_dnp()
    assert [str(m) for m in pos.legal_moves()] == ref.legal_moves()
    assert pos.is_over == ref.is_over()
    mine, theirs = pos.result(), ref.result()
    assert _score_dict(mine) == theirs["scores"]
    assert mine.winner == theirs["winner"]
    assert mine.how == theirs["how"]


def play_both(pos: Position, ref: refmodel.RefState, rng: random.Random, max_moves: int = 100):
    """Play random moves through both models until the game ends; return both final states."""
    moves = 0
    assert_same(pos, ref)
    while not ref.is_over() and moves < max_moves:
        move = rng.choice(ref.legal_moves())
        pos, ref = pos.play(move), ref.play(move)
        assert_same(pos, ref)
        moves += 1
    assert ref.is_over()
    return pos, ref


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**64 - 1), st.integers(0, 2**32))
def test_random_games_from_reference_deals(deal_seed, move_seed):
    ref = refmodel.random_deal(random.Random(deal_seed))
    pos = Position.parse(ref.to_dnp())
    play_both(pos, ref, random.Random(move_seed))


@settings(max_examples=300, deadline=None)
@given(st.integers(0, 2**53 - 1), st.integers(0, 2**32))  # the seed range of random_deal
def test_random_games_from_core_deals(deal_seed, move_seed):
    pos = Position.random_deal(deal_seed)
    ref = refmodel.RefState.from_dnp(str(pos))
    play_both(pos, ref, random.Random(move_seed))


@pytest.mark.slow
def test_thousands_of_seeded_games():
    """A fixed batch, so every run covers the same 1,500 games whatever hypothesis draws."""
    outcomes = set()
    for seed in range(1500):
        ref = refmodel.random_deal(random.Random(seed))
        pos = Position.parse(ref.to_dnp())
        pos, ref = play_both(pos, ref, random.Random(-seed))
        outcomes.add(pos.result().how)
    # the batch is large enough to reach every way a game ends but the rare draw
    assert {"points", "tie-break", "city"} <= outcomes


def test_views_play_like_full_positions():
    """A player's view plays its own moves to the same public position as the full one."""
    rng = random.Random(5)
    for seed in range(100):
        pos = Position.random_deal(seed)
        while not pos.is_over:
            mover = "ab"[pos.to_move]
            view = pos.view(mover)
            move = rng.choice(pos.legal_moves())
            assert view.legal_moves() == pos.legal_moves()
            nxt, nxt_view = pos.play(move), view.play(move)
            if nxt.round == pos.round:
                assert nxt_view == nxt.view(mover)
            else:  # a deal from an unknown deck: both new hands are unknown
                # a game never ends on a deal (a city win ends it before the round does)
                assert not nxt.is_over and nxt_view.hands == (None, None)
                assert nxt_view.line == nxt.line and nxt_view.colls == nxt.colls
            pos = nxt


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**53 - 1), st.integers(0, 60), st.integers(1, 3))
def test_perft_matches_reference(seed, prefix, depth):
    pos = random_position(seed, prefix)
    ref = refmodel.RefState.from_dnp(str(pos))
    assert pos.perft(depth) == refmodel.perft(ref, depth)
