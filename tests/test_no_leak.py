"""No information leak: what a player cannot see never changes what the engine says to it.

For positions from every round, a twin is built with the same view for the side to move
and the cards it cannot see (the other hand, the deck, the removed cards) dealt again at
random. Every bot's move and every figure `advise` prints (in --json) must be the same for
both, for every search setting the engine offers, with the same seed.
"""

import random

import pytest
from conftest import random_position

from solver import Position
from solver.agents.bots import make_bot
from solver.solvers.limit import Limit
from solver.solvers.search import DEFAULT_CONFIG, advise

# (seed, moves into the game): positions in rounds 1, 2, 3 and 4
POSITIONS = [(201, 0), (202, 9), (203, 17), (204, 26), (205, 31), (206, 39), (207, 40)]
SETTINGS = [{}, {"policy": "taker"}, {"policy": "greedy"}, {"margin_weight": 0.2}, {"exploration": 0.4}, {"tuned": True},
            {"opponent_exploration": 1.2}, {"opponent_hands": 10.0}]
BOTS = ["random", "greedy", "pimc:worlds=30", "ismcts:iterations=1500",
        "ismcts:iterations=1500,policy=taker,margin=0.2", "ismcts:iterations=1500,tuned=1,exploration=1.2",
        "ismcts:iterations=1500,opponent_hands=10"]


def twin_of(full: Position, seed: int) -> Position:
    """`full` with the cards its side to move cannot see dealt again at random."""
    opp = 1 - full.to_move
    hidden = [k for k in range(11) for _ in range(full.hands[opp][k])] + list(full.deck) + list(full.removed)
    rng = random.Random(seed)
    for _ in range(20):  # a shuffle that changes nothing is possible when few cards are hidden
        rng.shuffle(hidden)
        size, deck_len = full.hand_sizes[opp], len(full.deck)
        hands = list(full.hands)
        hands[opp] = tuple(hidden[:size].count(k) for k in range(11))
        twin = full.replace(hands=tuple(hands), deck=tuple(hidden[size:size + deck_len]),
                            removed=tuple(sorted(hidden[size + deck_len:])))
        if twin != full:
            return twin
    raise AssertionError("no other arrangement of the hidden cards")


def positions():
    for seed, moves in POSITIONS:
        full = random_position(seed, moves)
        if full.is_over:
            continue
        yield full, twin_of(full, seed)


def test_the_twins_differ_only_in_what_the_mover_cannot_see():
    rounds = set()
    for full, twin in positions():
        me = "ab"[full.to_move]
        assert twin != full and twin.view(me) == full.view(me)
        rounds.add(full.round)
    assert rounds == {1, 2, 3, 4}  # every round is covered


@pytest.mark.parametrize("settings", SETTINGS, ids=lambda s: ",".join(f"{k}={v}" for k, v in s.items()) or "default")
def test_advice_is_the_same_whatever_the_hidden_cards(settings):
    for full, twin in positions():
        config = DEFAULT_CONFIG.replace(**settings)
        a, b = (advise(p, Limit(iterations=2000), threads=1, seed=5, config=config) for p in (full, twin))
        da, db = a.to_dict(), b.to_dict()
        for timing in ("seconds", "iterations_per_second"):
            da.pop(timing), db.pop(timing)
        assert da == db, (str(full), settings)


@pytest.mark.parametrize("spec", BOTS)
def test_every_bot_moves_the_same_whatever_the_hidden_cards(spec):
    for full, twin in positions():
        me = "ab"[full.to_move]
        for given in ((full, twin), (full.view(me), twin.view(me))):
            moves = [make_bot(spec, seed=9).choose(p) for p in given]
            assert moves[0] == moves[1], (spec, str(full))
