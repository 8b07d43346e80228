"""The fast paths of issue 21 give exactly what the slower code they replaced gave.

The exact solvers were rewritten for speed (make/unmake, packed counts, outcome first,
a smaller table); their values must equal those of the 388581d build, whose digest over
seeded random round-4 positions is recorded here (solver.bench.values writes the same
lines for 10,000 positions for the full check, run under both builds). The API's
`result()`, `score()` and `view()` now share objects and skip helper calls; they must
answer as the plain construction does.
"""

import hashlib
import json
import random

import pytest
from solver.bench.values import random_round4, value_lines

from solver import Position
from solver.rules.position import PlayerScore, Result, _hidden_flags
from solver.solvers.endgame import get_solver, solve

# python -m solver.bench.values 400 --seed 3 --view-every 4, under the 388581d build
DIGEST_388581D_400_SEED3 = "ca92e237d4331dc390742c7860b87295f89efe0628858fee7cae9bdb7c937740"


def test_solver_values_equal_those_of_the_388581d_build():
    digest = hashlib.sha256()
    for line in value_lines(400, seed=3, view_every=4):
        digest.update(json.dumps(line, sort_keys=True).encode() + b"\n")
    assert digest.hexdigest() == DIGEST_388581D_400_SEED3


@pytest.mark.parametrize("tt_mb", [0.001, 0.25, 2.0])
def test_values_do_not_depend_on_the_table_size_or_what_it_holds(tt_mb):
    positions = list(random_round4(60, seed=11))
    expected = [{m.move: m.value for m in solve(pos, mode="open", use_tt=False).moves} for pos in positions]
    get_solver(tt_mb).clear()
    for _ in range(2):  # the second pass starts from a table full of the first one's entries
        got = [{m.move: m.value for m in solve(pos, mode="open", tt_mb=tt_mb).moves} for pos in positions]
        assert got == expected


def test_value_alone_equals_the_best_move_value_on_random_positions():
    solver = get_solver()
    for pos in random_round4(200, seed=5):
        values = solver.move_values(pos.core)
        assert solver.value(pos.core) == max(values.values())


def _plain_result(pos: Position) -> Result:
    winner, how, score_a, score_b = pos.core.outcome()
    scores = (PlayerScore(*score_a), PlayerScore(*score_b))
    if not pos.is_over:
        return Result(scores=scores, over=False, winner=None, how=None)
    return Result(scores=scores, over=True, how=how, winner="draw" if winner is None else "ab"[winner])


def _positions(games: int, seed: int = 0):
    rng = random.Random(seed)
    for k in range(games):
        pos = Position.random_deal(seed + k)
        yield pos
        while not pos.is_over:
            pos = pos.play(rng.choice(pos.legal_moves()))
            yield pos


def test_result_and_score_equal_the_plain_construction():
    seen = 0
    for pos in _positions(300):
        assert pos.result() == _plain_result(pos)
        assert pos.score() == pos.result().scores
        if pos.is_over:
            seen += 1
            assert pos.result().over and pos.result().winner in ("a", "b", "draw")
    assert seen == 300


def test_view_flags_equal_the_general_rule():
    for pos in _positions(100, seed=9):
        for player in (0, 1, "a", "b"):
            view = pos.view(player)
            p = player if isinstance(player, int) else "ab".index(player)
            expected = _hidden_flags(view.core, tuple(pos._hidden[q] if q == p else True for q in range(2)))
            assert view._hidden == expected
            if expected == (False, False):  # the flags are told apart by identity
                assert view._hidden is expected
            assert str(view) == str(Position.parse(str(view)))
