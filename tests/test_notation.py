"""DNP parsing, printing and validation (docs/notation.md)."""

import pytest
from conftest import load_vectors, random_position

from solver import Position, PositionError
from solver.rules.cards import CardError, Move, tokenize

NOTATION_EXAMPLES = [
    "5+2 678+3C/????? ./. 1 a -",
    "7-2+3 ??/8-2 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a",
    "7-2+3 58/8-2 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a . 7+2C",
]


@pytest.mark.parametrize("dnp", NOTATION_EXAMPLES)
def test_notation_examples_round_trip(dnp):
    assert str(Position.parse(dnp)) == dnp


def test_vectors_round_trip():
    for name in ("perft.jsonl", "endgame.jsonl"):
        for v in load_vectors(name):
            assert str(Position.parse(v["dnp"])) == v["dnp"]
    for v in load_vectors("infoset.jsonl"):
        assert str(Position.parse(v["dnp_view"])) == v["dnp_view"]


def test_parser_accepts_any_order_and_prints_canonical():
    pos = Position.parse("5+2 C+3876/????? ./. 1 a -")
    assert str(pos) == "5+2 678+3C/????? ./. 1 a -"
    full = Position.parse("7-2+3 85/-28 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a . C+27")
    assert str(full) == NOTATION_EXAMPLES[2]


def test_fields_of_the_full_example():
    pos = Position.parse(NOTATION_EXAMPLES[2])
    assert pos.round == 4 and pos.to_move == 1 and pos.taken == 1
    assert pos.line == (2, 8, 5)  # 7 -2 +3, oldest first
    assert pos.hand_sizes == (2, 2)
    assert pos.actions == (4, 3)  # a: 5 - 2 plays + 1 take; b: 5 - 2 plays
    assert pos.first == 0  # a has made one action more
    assert pos.deck == () and sorted(pos.removed) == [2, 4, 10]


def test_view_hides_the_other_hand_deck_and_removed():
    full = Position.parse(NOTATION_EXAMPLES[2])
    assert str(full.view("b")) == NOTATION_EXAMPLES[1]
    assert str(full.view("a")) == "7-2+3 58/?? 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a"


def test_deck_unknown_with_removed_known():
    dnp = "7-2+3 58/8-2 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a ? 7+2C"
    pos = Position.parse(dnp)
    assert pos.deck is None and pos.removed is not None
    assert str(pos) == dnp


def test_tokenize_and_moves():
    assert tokenize("5+2C8-1") == ["5", "+2", "C", "8", "-1"]
    assert [str(Move.parse(t)) for t in ("8", "+3", "-1", "C", "T")] == ["8", "+3", "-1", "C", "T"]
    for bad in ("9", "+5", "-4", "x", "", "TT"):
        with pytest.raises(CardError):
            Move.parse(bad)


def test_random_positions_round_trip():
    for seed in range(200):
        pos = random_position(seed, seed % 50)
        for p in (pos, pos.view("a"), pos.view("b")):
            assert Position.parse(str(p)) == p


# One case for every class of invalid position in docs/notation.md: (dnp, field named in the error).
INVALID = {
    "unknown token": ("5+2 678+3X/????? ./. 1 a -", "hand a"),
    "unknown token in line": ("5+9 678+3C/????? ./. 1 a -", "line"),
    "unknown token +": ("5+ 678+3C/????? ./. 1 a -", "line"),
    "too few fields": ("5+2 678+3C/????? ./. 1 a", "position"),
    "too many fields": ("5+2 678+3C/????? ./. 1 a - ? ? x", "position"),
    "double space": ("5+2  678+3C/????? ./. 1 a -", "position"),
    "empty": ("", "position"),
    "hands not a pair": ("5+2 678+3C ./. 1 a -", "hands"),
    "collections not a pair": ("5+2 678+3C/????? ./././ 1 a -", "collections"),
    "mixed hand": ("5+2 678+3C/??8?? ./. 1 a -", "hand b"),
    "question mark in line": ("5? 678+3C/????? ./. 1 a -", "line"),
    "round out of range": ("5+2 678+3C/????? ./. 5 a -", "round"),
    "round zero": ("5+2 678+3C/????? ./. 0 a -", "round"),
    "bad to-move": ("5+2 678+3C/????? ./. 1 c -", "to-move"),
    "bad taken": ("5+2 678+3C/????? ./. 1 a ba", "taken"),
    "too many of a kind": ("+4+4 678+3C/????? ./. 1 a -", "cards"),
    "mixed hand with known cards": ("CC 678+3C/CC??? ./. 1 a -", "hand b"),
    "too many cities counted": ("CC 678+3C/????? ./. 1 a - ? C-1-1", "cards"),
    "total not 45": ("5+2+2 678+3C/????? ./. 1 a -", "cards"),
    "total short": ("5 678+3C/????? ./. 1 a -", "cards"),
    "hand too big": ("5+2 678+3C8/????? ./. 1 a -", "hand a"),
    "actions differ by two": ("5+2-1-1 678/????? ./. 1 a -", "hands"),
    "wrong side to move": ("5+2-1 678+3/????? ./. 1 a -", "to-move"),
    "seventh action": ("5566677788 8/. 55+2+2+2+3+4-1-1-1/667788+2-2-2-2-3 3 b ab", "to-move"),
    "deck wrong length": ("5+2 678+3C/????? ./. 1 a - 5566", "deck"),
    "deck given in round 4": ("7-2+3 58/8-2 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a 6 7+2C", "deck"),
    "removed wrong size": ("7-2+3 58/8-2 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a . 7+2", "removed"),
    "line too short": ("5+2-1-1-2 78/+3C 555/. 1 a -", "line"),
    "finished but to-move given": ("7-2+3588-2 ./. 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 a ab", "to-move"),
    "dash but not finished": ("5+2 678+3C/????? ./. 1 - -", "to-move"),
    "cities without the last take": ("5 678+3+4/678 CCC/. 1 - a", "collection a"),
    "cities without a take": ("666 5678+2/5678+3 CCC/555-1-1-1 2 - -", "collection a"),
}


@pytest.mark.parametrize("case", sorted(INVALID))
def test_invalid_positions_name_the_field(case):
    dnp, field = INVALID[case]
    with pytest.raises(PositionError) as err:
        Position.parse(dnp)
    assert err.value.field == field, str(err.value)
    assert str(err.value).startswith(field + ":")
    assert isinstance(err.value, ValueError)


def test_city_holder_who_made_the_last_take_is_accepted():
    # b played first, then a took the three cities with its first action: the game is over.
    pos = Position.parse(". 678+3+4/5678 CCC/. 1 - a")
    assert pos.is_over
    assert pos.result().winner == "a" and pos.result().how == "city"


def test_finished_round_four_is_over():
    pos = Position.parse("7-2+3588-2 ./. 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 - ab")
    assert pos.is_over and pos.legal_moves() == []
