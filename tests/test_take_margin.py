"""The `take_margin` search option (bench/STRENGTH.md, round 34): before round 4, a take the
search recommends stands only when its expected score beats the best play's by the margin,
among the plays with TAKE_MARGIN_SHARE of the take's visits or more; otherwise that play is
recommended. Off (0) the recommendation is the search's own."""

import pytest

from solver.errors import ArgumentError
from solver.rules.position import Position
from solver.solvers.limit import Limit
from solver.solvers.search import TAKE_MARGIN_SHARE, IsmctsSearch, MoveStats, advise, recommend
from solver.solvers.searchconfig import PRESETS, SearchConfig

TAKE = MoveStats("T", 8000, 0.8, 0.610, 0.0, se=0.002)


def _best(moves, margin):
    return recommend(moves, take_margin=margin)[0][0].move


def test_a_take_within_the_margin_of_the_best_play_gives_way_to_that_play():
    plays = [MoveStats("8", 1000, 0.1, 0.600, 0.0, se=0.004), MoveStats("+2", 1000, 0.1, 0.590, 0.0, se=0.004)]
    assert _best([TAKE] + plays, 0.0) == "T"
    assert _best([TAKE] + plays, 0.015) == "8"  # the best play's mean, not the most visited play
    assert _best([TAKE] + plays, 0.01) == "T"   # 0.610 - 0.600 is not within 0.01
    ordered, _ = recommend([TAKE] + plays, take_margin=0.015)
    assert sorted(m.move for m in ordered) == ["+2", "8", "T"] and ordered[1].move == "T"  # the rest by visits


def test_a_play_with_too_few_visits_cannot_stand_in_for_the_take():
    rare = MoveStats("8", int(TAKE_MARGIN_SHARE * TAKE.visits) - 1, 0.0, 0.605, 0.0, se=0.02)
    enough = MoveStats("7", int(TAKE_MARGIN_SHARE * TAKE.visits), 0.0, 0.60, 0.0, se=0.01)
    assert _best([TAKE, rare], 0.5) == "T"
    assert _best([TAKE, rare, enough], 0.5) == "7"


def test_the_margin_leaves_a_recommended_play_alone():
    play = MoveStats("8", 8000, 0.8, 0.60, 0.0, se=0.002)
    take = MoveStats("T", 1000, 0.1, 0.59, 0.0, se=0.004)
    assert _best([play, take], 1.0) == "8"


def test_on_by_default_since_test_42_and_off_in_every_earlier_preset():
    assert SearchConfig().take_margin == PRESETS["default"].take_margin == 0.015
    assert all(preset.take_margin == 0 for name, preset in PRESETS.items() if name != "default")
    assert PRESETS["66bbc8c"] == PRESETS["default"].replace(take_margin=0.0)
    assert "a take only when" not in PRESETS["66bbc8c"].assumes


@pytest.mark.parametrize("bad", [-0.01, 1.5, float("nan"), "0.1", True])
def test_the_margin_is_a_fraction_of_a_win(bad):
    with pytest.raises(ArgumentError, match="take_margin"):
        SearchConfig(take_margin=bad)


def test_the_margin_acts_before_round_4_only_and_the_advice_says_so():
    config = PRESETS["default"].replace(take_margin=1.0)  # any take gives way to a play with the share
    # round 2, b to move, a take and three plays legal
    view = Position.parse("68+28 ???/88+3 57+2-1-3CC/778+2-1 2 b a")
    search = IsmctsSearch(view, seed=1, config=config)
    search.run(iterations=3000)
    stats = search.move_stats()
    # this seeded search takes (its three moves' means within 0.005 of each other); the margin
    # gives way to the play with the best mean, +3
    assert recommend(stats)[0][0].move == "T"
    assert search.recommendation()[0][0].move == recommend(stats, take_margin=1.0)[0][0].move == "+3"
    search.close()
    advice = advise(view, Limit(iterations=3000), threads=1, seed=1, config=config)
    assert "before round 4, a take only when" in advice.rule
    assert "the take margin 1 before round 4" in config.assumes  # its value; the rule says what it does
    assert "a take only when" not in config.assumes
    # round 4 searched (exact answers off): the search's own recommendation
    r4 = Position.parse("-287-18C5 788/? 6666777788+2+2+2+2+3+3-1-2-3/555678+4-1-2-2-3C 4 a a")
    search = IsmctsSearch(r4, seed=1, config=config)
    search.run(iterations=2000)
    assert search.recommendation() == recommend(search.move_stats())
    search.close()
