"""The public Python API over the C core: `Position` holds a `CoreState`, is checked once
when built, and answers every rule question from the core (issue 11, items 1 and 2).

The reference model (tests/refmodel) is the judge of the rules; these tests also pin the
properties a Position must keep now that it is no dataclass: equality and hashing by its
DNP, immutability, pickling, and one path from the fields to the core's consistency check.
"""

import json
import pickle
import random
import subprocess
import sys

import pytest
import refmodel
from solver.rules._core import CoreState, position_problem
from solver.solvers._endgame import EndgameSolver
from solver.solvers._ismcts import Searcher
from solver.solvers._pimc import flat_values

from solver.rules import _core
from solver.rules.cards import COMPOSITION, KINDS, NCARDS, NKINDS, Move
from solver.rules.notation import ACTIONS_PER_ROUND, HAND_SIZE, REMOVED, ROUNDS, TAKE_SIZE, PositionError
from solver.rules.position import MoveError, Position

GAMES = 150


def _assert_same(pos: Position, ref: refmodel.RefState) -> None:
    assert str(pos) == ref.to_dnp()
    assert [str(m) for m in pos.legal_moves()] == ref.legal_moves()
    assert pos.is_over == ref.is_over()
    result, theirs = pos.result(), ref.result()
    assert [s.total for s in result.scores] == [theirs["scores"][p]["total"] for p in "ab"]
    assert (result.winner, result.how) == (theirs["winner"], theirs["how"])


@pytest.mark.slow
@pytest.mark.parametrize("start", range(0, GAMES, 50))
def test_random_games_through_the_api_follow_the_reference_model(start):
    # Move objects from legal_moves (the fast path of play), checked after every move
    rng = random.Random(start)
    for seed in range(start, start + 50):
        pos = Position.random_deal(seed)
        ref = refmodel.RefState.from_dnp(str(pos))
        _assert_same(pos, ref)
        while not pos.is_over:
            move = rng.choice(pos.legal_moves())
            assert isinstance(move, Move)
            pos, ref = pos.play(move), ref.play(str(move))
            _assert_same(pos, ref)
        assert ref.is_over()


def _some_positions():
    """Positions met in seeded random games: full, views of them, and the finished ones."""
    rng = random.Random(7)
    for seed in range(12):
        pos = Position.random_deal(seed)
        while True:
            yield pos
            yield pos.view("ab"[seed % 2])
            if pos.is_over:
                break
            pos = pos.play(rng.choice(pos.legal_moves()))


def test_a_child_of_play_equals_its_dnp_parsed():
    for pos in _some_positions():
        again = Position.parse(str(pos))
        assert again == pos and hash(again) == hash(pos)
        assert str(again) == str(pos)
        for name in Position.FIELDS:
            assert getattr(again, name) == getattr(pos, name), name
        assert (again.actions, again.is_over, again.is_full, again.moves_left) == \
               (pos.actions, pos.is_over, pos.is_full, pos.moves_left)
        assert Position(**pos.fields()) == pos


def test_equality_and_hash_agree_with_the_dnp():
    positions = list(_some_positions())
    by_dnp = {}
    for pos in positions:
        by_dnp.setdefault(str(pos), pos)
    assert len(set(positions)) == len(by_dnp)
    for pos in positions:
        twin = by_dnp[str(pos)]
        assert pos == twin and hash(pos) == hash(twin)
    full = Position.random_deal(1)
    assert full != full.view("a") and full != Position.random_deal(2)
    assert full != str(full)


def test_positions_pickle_round_trip():
    for pos in list(_some_positions())[::7]:
        again = pickle.loads(pickle.dumps(pos))
        assert again == pos and str(again) == str(pos)
    full = Position.random_deal(9)
    again = pickle.loads(pickle.dumps(full))
    assert again.legal_moves() == full.legal_moves()
    assert again.play(again.legal_moves()[0]) == full.play(full.legal_moves()[0])


def test_positions_are_immutable():
    pos = Position.random_deal(3)
    for name in Position.FIELDS + ("is_over", "core"):
        with pytest.raises(AttributeError):
            setattr(pos, name, None)
    with pytest.raises(AttributeError):
        pos.anything = 1
    # the core it exposes has no method that changes it: a move gives a new state
    core = pos.core
    before = core.export()
    core.play(core.legal_moves()[0])
    assert core.export() == before


def test_replace_checks_the_new_fields():
    pos = Position.random_deal(4)
    assert pos.replace() == pos
    assert pos.replace(removed=None).removed is None
    with pytest.raises(PositionError) as err:
        pos.replace(round=2)
    assert err.value.field == "deck"
    with pytest.raises(TypeError):
        pos.replace(colour="red")


def test_legal_moves_are_a_fresh_list_of_shared_moves():
    pos = Position.random_deal(5)
    moves = pos.legal_moves()
    moves.clear()
    assert pos.legal_moves() and pos.legal_moves()[0] is Position.random_deal(5).legal_moves()[0]


def test_play_refuses_illegal_moves_with_the_reason():
    pos = Position.parse("5+2 678+3C/????? ./. 1 a -")
    with pytest.raises(MoveError, match=r"5 is not legal here \(legal: 6 7 8 \+3 C T\)"):
        pos.play("5")
    with pytest.raises(MoveError, match="not legal here"):
        pos.play(Move(0))
    full = Position.random_deal(6)
    while not full.is_over:
        full = full.play(full.legal_moves()[-1])
    with pytest.raises(MoveError, match="the game is over"):
        full.play(Move(11))
    with pytest.raises(MoveError):
        pos.play(3)


# -- the core: constants and the one consistency check -----------------------------------------

def test_rule_constants_are_defined_once_in_the_core():
    assert (COMPOSITION, KINDS, NKINDS, NCARDS) == (_core.COMPOSITION, _core.KINDS, _core.NKINDS, _core.NCARDS)
    assert (HAND_SIZE, TAKE_SIZE, ACTIONS_PER_ROUND, ROUNDS, REMOVED) == \
           (_core.HAND_SIZE, _core.TAKE_SIZE, _core.ACTIONS_PER_ROUND, _core.ROUNDS, _core.REMOVED)
    assert sum(COMPOSITION) == NCARDS == 45 and len(KINDS) == NKINDS == 11


EMPTY = (0,) * 11


def _fields(**changes):
    fields = dict(line=(0, 4), hands=((0, 1, 1, 1, 0, 1, 0, 0, 0, 0, 1), None), hand_sizes=(5, 5),
                  colls=(EMPTY, EMPTY), round=1, to_move=0, taken=0, deck=None, removed=None)
    fields.update(changes)
    return fields


@pytest.mark.parametrize("changes, field, reason", [
    (dict(removed=(0, 1)), "removed", "2 cards, the game removes 3"),
    (dict(deck=(0,) * 29), "deck", "29 cards, round 1 leaves 30 in the deck"),
    (dict(colls=((6,) + (0,) * 10, EMPTY)), "cards", "7 cards of kind 5, the game has 5"),
    (dict(line=(0,)), "cards", "44 cards in all (line 1 + hands 10 + collections 0 + deck 30 + removed 3), "
                               "the game has 45"),
    (dict(to_move=None), "to-move", "'-' but the game is not finished"),
])
def test_the_core_names_the_first_rule_broken(changes, field, reason):
    assert position_problem(**_fields(**changes)) == (field, reason)
    core, problem = CoreState.checked(**_fields(**changes))
    assert core is None and problem == (field, reason)
    with pytest.raises(PositionError) as err:
        Position(**_fields(**changes))
    assert (err.value.field, err.value.reason) == (field, reason)


def test_the_core_accepts_a_position_and_returns_its_state():
    assert position_problem(**_fields()) is None
    core, problem = CoreState.checked(**_fields())
    assert problem is None and core.legal_moves() == [1, 2, 3, 5, 10, 11]
    assert Position(**_fields()).core.export() == core.export()


# -- one carrier between the compiled modules -------------------------------------------------

def test_search_modules_take_the_core_state_of_a_position():
    view = Position.random_deal(8).view("ab"[Position.random_deal(8).to_move])
    values = flat_values(view.core, view.to_move, 4, seed=1)
    assert sorted(values) == [m.index for m in view.legal_moves()]
    searcher = Searcher(max_nodes=1000)
    searcher.start(view.core, observer=view.to_move, seed=1)
    assert searcher.search(iterations=50) == 50
    end = Position.parse("7-2+3 58/8-2 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a . 7+2C")
    assert sorted(EndgameSolver(tt_mb=1).move_values(end.core)) == [3, 8, 11]
    for raw in (b"\0" * 141, None):
        with pytest.raises(TypeError):
            EndgameSolver(tt_mb=1).move_values(raw)
    assert not hasattr(end.core, "to_bytes")


def test_bench_api_reports_both_rates_from_one_run():
    out = subprocess.run([sys.executable, "-I", "-m", "solver.cli", "bench", "api", "--games", "20", "--json"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["games"] == 20 and report["games_per_second"] > 0 and report["reference_games_per_second"] > 0
    assert report["ratio"] == pytest.approx(report["games_per_second"] / report["reference_games_per_second"],
                                            rel=0.01)


def test_bench_api_docstring_examples_run():
    import doctest

    import solver.bench.api
    result = doctest.testmod(solver.bench.api)
    assert result.failed == 0 and result.attempted > 0
