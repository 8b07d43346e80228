"""perft: the known-good vectors, the divide identity, and counts across a round boundary."""

import pytest
from conftest import load_vectors

from solver import Position, PositionError

PERFT = load_vectors("perft.jsonl")


@pytest.mark.parametrize("vector", PERFT, ids=[f"id{v['id']}" for v in PERFT])
def test_perft_vectors(vector):
    pos = Position.parse(vector["dnp"])
    for depth, count in vector["perft"].items():
        assert pos.perft(int(depth)) == count, f"depth {depth}"
    assert pos.divide(3) == vector["divide3"]


def test_vectors_cover_boundaries_and_city_wins():
    tags = {t for v in PERFT for t in v["tags"]}
    assert {"boundary", "city"} <= tags


def test_perft_identity():
    """perft(d) equals the sum of perft(d - 1) over the children, at every depth tried."""
    for seed in range(20):
        pos = Position.random_deal(seed)
        for depth in range(1, 5):
            assert pos.perft(depth) == sum(pos.divide(depth).values())
            assert pos.perft(depth) == sum(pos.play(m).perft(depth - 1) for m in pos.legal_moves())


def test_perft_zero_and_finished():
    pos = Position.random_deal(3)
    assert pos.perft(0) == 1
    over = Position.parse("7-2+3588-2 ./. 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 - ab")
    assert over.perft(0) == 1 and over.perft(1) == 0 and over.perft(3) == 0


def test_perft_across_a_round_boundary():
    """The last actions of round 1 deal round 2 from the ordered deck: no chance branching."""
    pos = Position.random_deal(11)
    while sum(pos.actions) < 10:
        pos = pos.play(pos.legal_moves()[0])
    assert pos.round == 1
    # 2 actions end the round, the rest are round 2: the count is the same as after the deal
    total = pos.perft(5)
    assert total == sum(pos.play(m).perft(4) for m in pos.legal_moves())
    assert total > 0


def test_perft_needs_the_deck_to_cross_a_boundary():
    pos = Position.random_deal(11)
    hidden_deck = Position.parse(" ".join(str(pos).split(" ")[:6]))
    assert hidden_deck.perft(3) == pos.perft(3)  # within the round
    with pytest.raises(PositionError, match="deck"):
        hidden_deck.perft(12)


def test_perft_needs_both_hands():
    with pytest.raises(PositionError, match="hands"):
        Position.parse("5+2 678+3C/????? ./. 1 a -").perft(2)
