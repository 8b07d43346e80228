"""The third city in the search: the `guard` playouts (taker's, but not handing the opponent its
third city within the round) and the `third_city` setting (a round end whose next first player
takes its third city at once is scored as its win, not by the round-end model). Both off by
default, the tree node for node as before (tests/test_search_pinned.py pins it)."""

import pytest

from solver import Position
from solver.limit import Limit
from solver.rules.cards import CITY, TAKE
from solver.solvers._ismcts import round_end_win_probability
from solver.solvers.roundmodel import third_city_at_once, weights, win_probability
from solver.solvers.search import advise
from solver.solvers.searchconfig import PRESETS, Policy, SearchConfig
from test_round_model import _round_starts
from test_speed_paths import _positions

SEEDS = range(200)
# b to move, a holds two cities and may still take this round, a city within reach of a take
THREAT_MAY_TAKE = "5C6 ????/78+2-1 CC5678+2/5678 2 b -"
# the same threat, but b has taken: it can only play, and holds a city among other cards
THREAT_HAS_TAKEN = "56+2 ??/C78 CC5678+2/5678-1-2-3 2 b b"
# ... and holds only a city: the play is forced
THREAT_ONLY_CITY = "56+2+4 ./C CC5678+2/5678-1-2-3+2+2+3 2 b b"


def _moves(dnp: str, policy: str) -> set[int]:
    core = Position.parse(dnp).core
    return {core.playout_move(policy, seed) for seed in SEEDS}


def test_guard_takes_a_city_the_opponent_would_take_for_its_third():
    assert _moves(THREAT_MAY_TAKE, "guard") == {TAKE}
    assert _moves(THREAT_MAY_TAKE, "taker") > {TAKE}  # taker plays on, most of the time


def test_guard_plays_no_city_into_a_line_the_opponent_may_still_take():
    guard, taker = _moves(THREAT_HAS_TAKEN, "guard"), _moves(THREAT_HAS_TAKEN, "taker")
    assert CITY in taker and CITY not in guard
    assert guard == taker - {CITY}
    assert _moves(THREAT_ONLY_CITY, "guard") == {CITY}


def _guard_acts(pos: Position) -> bool:
    """Whether one of guard's two rules applies: the opponent holds two cities, the mover none,
    the opponent may still take, and either the mover may take a line with a city within reach
    or it holds a city and another card to play."""
    me, other = pos.to_move, 1 - pos.to_move
    if pos.colls[other][CITY] != 2 or pos.colls[me][CITY] != 0 or (pos.taken >> other) & 1:
        return False
    moves = {m.index for m in pos.legal_moves()}
    if TAKE in moves and CITY in pos.in_reach:
        return True
    return CITY in moves and len(moves - {CITY, TAKE}) > 0


def test_guard_is_taker_move_for_move_where_neither_of_its_rules_applies():
    checked = threats = 0
    for pos in _positions(130, seed=5):
        if pos.is_over or _guard_acts(pos):
            continue
        checked += 1
        threats += pos.colls[1 - pos.to_move][CITY] == 2
        for seed in range(4):
            assert pos.core.playout_move("guard", seed) == pos.core.playout_move("taker", seed), pos.dnp()
    assert checked > 5000 and threats > 20  # positions under the threat where neither rule applies too


def test_an_unknown_policy_is_refused():
    with pytest.raises(ValueError, match="guard"):
        Position.parse(THREAT_MAY_TAKE).core.playout_move("clever", 0)


# round 3 starts, a first: a holds two cities and a city is among the line's newest five
A_TAKES_AT_ONCE = "68C+28 ?????/88+3-15 57+2-1-3CC88/778+2-1556 3 a -"


@pytest.mark.parametrize("dnp, first_wins", [
    (A_TAKES_AT_ONCE, True),
    ("C68+28+3 ?????/88-157 57+2-1-3CC88/778+2-155 3 a -", False),  # the city sixth from the end
    ("68C+28 ?????/88+3-15 57+2-1-3C88/778+2-1556C 3 a -", False),  # a holds one city, b one
    ("68C+28 88+3-15/????? 778+2-1556/57+2-1-3CC88 3 a -", False),  # b holds two, a moves first
])
def test_the_round_end_is_a_win_exactly_where_the_first_player_takes_its_third_city(dnp, first_wins):
    pos = Position.parse(dnp)
    assert third_city_at_once(pos) == first_wins
    model = win_probability(pos)
    scored = win_probability(pos, third_city=True)
    assert scored == (1.0 if first_wins else model)
    assert round_end_win_probability(pos.core, weights(), True) == pytest.approx(scored, abs=1e-12)
    assert round_end_win_probability(pos.core, weights()) == pytest.approx(model, abs=1e-12)
    if first_wins:
        assert 0.2 < model < 0.8  # what the model, blind to the line's cities, says instead


def test_the_reference_and_the_search_agree_on_random_round_ends():
    ends = list(_round_starts(400, seed=11))
    assert len(ends) > 1000
    at_once = [pos.first for pos in ends if third_city_at_once(pos)]
    assert 0 in at_once and 1 in at_once  # the rule acts, for each first player
    for pos in ends:
        assert round_end_win_probability(pos.core, weights(), True) == \
            pytest.approx(win_probability(pos, third_city=True), abs=1e-12)


# b's last two actions of round 2 (a has taken and holds one card): whichever of C and 7 b plays
# first, the city is within reach when round 3 starts with b, which holds two cities
B_WINS_NEXT_ROUND = "5678+2-1 ?/C7 7788-2-3/CC5566+3 2 b ab"


def _root(config: SearchConfig, dnp: str, iterations: int = 3000) -> dict:
    advice = advise(Position.parse(dnp), Limit(iterations=iterations), threads=1, seed=3, config=config)
    return {str(m.move): (m.visits, m.expected) for m in advice.moves}


def test_a_playout_that_ends_the_round_scores_the_win_the_model_misses():
    # two iterations: each root move's playout plays the round out and is scored where it ends
    # (deeper searches find the take in round 3 with their tree as well)
    off = _root(SearchConfig(), B_WINS_NEXT_ROUND, iterations=2)
    on = _root(SearchConfig(third_city=True), B_WINS_NEXT_ROUND, iterations=2)
    assert set(on) == {"C", "7"}
    assert all(expected == 1.0 for _, expected in on.values())
    assert all(expected < 0.9 for _, expected in off.values())


def test_the_setting_leaves_the_tree_as_it_is_where_it_cannot_act():
    # each player holds a city: no round end can hand anyone a third city, so the setting must
    # not change a single random number or visit (the default search is pinned elsewhere)
    dnp = "68+28 ???/88+3 57+2-1-3C/778+2-1C 2 b a"
    assert _root(SearchConfig(third_city=True), dnp) == _root(SearchConfig(), dnp)


def test_off_by_default_and_in_every_preset():
    assert all(not preset.third_city and preset.policy != Policy.GUARD for preset in PRESETS.values())
