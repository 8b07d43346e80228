"""Scoring, the tie-break and the city win (docs/rules.md), through Position.result()."""

import pytest

from solver import Position
from solver.rules.cards import COMPOSITION, KINDS, counts_of, format_cards, parse_cards


def finished(coll_a: str, coll_b: str) -> Position:
    """A finished round-4 position with these collections; every other card lies in the line."""
    used = counts_of(parse_cards(coll_a) + parse_cards(coll_b))
    spare = [k for k in range(len(KINDS)) for _ in range(COMPOSITION[k] - used[k])]
    line, removed = spare[3:], spare[:3]
    dnp = f"{format_cards(line)} ./. {coll_a}/{coll_b} 4 - ab . {format_cards(removed)}"
    return Position.parse(dnp)


def test_seed_scoring_example():
    # Lea: majorities in 8 and 6 (8 + 6), two complete sets (2 x 5), alliances 3, betrayals 4.
    pos = finished("556667788+3-1-3", "556777")
    a = pos.result().scores[0]
    assert (a.majorities, a.sets, a.alliances, a.betrayals) == (14, 10, 3, 4)
    assert a.total == 23


def test_tied_support_kind_scores_for_nobody():
    pos = finished("888", "888")
    res = pos.result()
    assert res.scores[0].majorities == res.scores[1].majorities == 0
    assert res.winner == "draw" and res.how == "draw"


def test_majority_scores_the_face_value_not_the_count():
    res = finished("77777", "7").result()
    assert res.scores[0].majorities == 7 and res.scores[1].majorities == 0


def test_sets_count_whatever_the_majorities():
    res = finished("5678", "55667788").result()
    assert res.scores[0].sets == 5 and res.scores[0].majorities == 0
    assert res.scores[1].sets == 10 and res.scores[1].majorities == 26


@pytest.mark.parametrize("coll_a, coll_b, level", [
    ("88", "8+3+3+2", "8"),     # 8 points each; a has more 8s
    ("77", "7+4+3", "7"),       # no 8s; a has more 7s
    ("66", "6+4+2", "6"),
    ("55", "5+3+2", "5"),
])
def test_every_tie_break_level(coll_a, coll_b, level):
    res = finished(coll_a, coll_b).result()
    assert res.scores[0].total == res.scores[1].total
    assert res.winner == "a" and res.how == "tie-break"
    swapped = finished(coll_b, coll_a).result()
    assert swapped.winner == "b" and swapped.how == "tie-break"


def test_higher_level_decides_before_lower():
    # equal totals (8 each); b has more 5s but a has more 8s, which are compared first
    res = finished("88", "855+3").result()
    assert res.scores[0].total == res.scores[1].total
    assert res.winner == "a"


def test_true_draw():
    res = finished("5678+2", "5678-1+3").result()
    assert res.winner == "draw" and res.how == "draw"


def test_points_win():
    res = finished("8888", "7").result()
    assert res.winner == "a" and res.how == "points"
    assert res.scores[0].total == 8 and res.scores[1].total == 7


def test_city_win_ends_the_game_at_once():
    # a to move in round 2 with the third city among the newest five cards of the line
    pos = Position.parse("5C678 5678+2/5678+2 CC/-1-1-1-2-2 2 a -")
    assert not pos.is_over
    after = pos.play("T")
    assert after.is_over and after.to_move is None
    res = after.result()
    assert res.winner == "a" and res.how == "city"
    assert after.legal_moves() == []


def test_city_win_beats_points():
    # round 4: b leads by far on points, but a's take completes the three cities
    pos = Position.parse("67788+2+2-1-1-1-2-3-3C 5678+2/5678+2 CC/5556667778888+3+3+4 4 a -")
    after = pos.play("T")
    res = after.result()
    assert res.scores[1].total > res.scores[0].total
    assert res.winner == "a" and res.how == "city"


def test_take_without_the_third_city_goes_on():
    pos = Position.parse("67788+2+2-1-1-1-2-3-3C 5678+2/5678+2 CC/5556667778888+3+3+4 4 a -")
    after = pos.play("8").play("T")  # b takes the C; nobody holds three
    assert not after.is_over


def test_score_so_far_has_no_winner():
    pos = Position.parse("5+2 678+3C/????? ./. 1 a -")
    res = pos.result()
    assert not res.over and res.winner is None and res.how is None
