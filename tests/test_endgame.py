"""The exact round-4 solver against known answers, brute force, and its own invariants."""

import random
from collections import Counter
from fractions import Fraction
from itertools import combinations
from math import comb

import brute
import pytest
import refmodel
from conftest import load_vectors
from solver.solvers._endgame import split_value

from solver import Position, PositionError
from solver.rules.cards import KINDS
from solver.solvers.endgame import get_solver, solve, unseen_pool, world_weight


def round4_position(seed: int, actions: int, take_first: bool = False) -> Position | None:
    """A random position `actions` actions into round 4 (None if the game ended first)."""
    rng = random.Random(seed)
    pos = Position.random_deal(seed)
    while pos.round < 4 and not pos.is_over:
        pos = pos.play(rng.choice(pos.legal_moves()))
    if take_first and not pos.is_over:
        pos = pos.play("T")
    for _ in range(actions):
        if pos.is_over:
            break
        pos = pos.play(rng.choice(pos.legal_moves()))
    return None if pos.is_over else pos


def sample_positions(count: int, min_actions: int, seed0: int = 0):
    """Round-4 positions over every hand size of the mover (0 to 5), some already settled."""
    found, seed = [], seed0
    while len(found) < count:
        take_first = seed % 5 == 0
        pos = round4_position(seed, min_actions + seed % (12 - min_actions), take_first)
        seed += 1
        if pos is not None:
            found.append(pos)
    return found


def open_values(pos: Position) -> dict:
    """{move: (rank, margin)} from the solver."""
    return {m.move: split_value(m.value) for m in solve(pos, mode="open").moves}


# -- known answers ---------------------------------------------------------------------

@pytest.mark.parametrize("vector", load_vectors("endgame.jsonl"), ids=lambda v: f"id{v['id']}")
def test_endgame_vectors(vector):
    result = solve(Position.parse(vector["dnp"]))
    assert result.mode == "open"
    assert {m.move: m.outcome for m in result.moves} == vector["moves_outcome"]
    assert result.moves[0].outcome == vector["outcome"]
    assert result.best in vector["best"]


@pytest.mark.parametrize("vector", load_vectors("infoset.jsonl"), ids=lambda v: f"id{v['id']}")
def test_infoset_vectors(vector):
    result = solve(Position.parse(vector["dnp_view"]))
    assert result.mode == "view" and result.worlds == vector["worlds"]
    assert {m.move: str(m.expected) for m in result.moves} == vector["expected"]
    top = result.moves[0].expected
    assert sorted(m.move for m in result.moves if m.expected == top) == sorted(vector["best"])
    assert result.best in vector["best"]


# -- brute force -------------------------------------------------------------------------

@pytest.mark.slow
def test_open_hands_against_brute_force():
    """At least 500 random round-4 positions, every hand size: identical outcome and margin."""
    positions = sample_positions(520, min_actions=3)
    sizes = Counter(p.hand_sizes[p.to_move] for p in positions)
    assert set(sizes) == {0, 1, 2, 3, 4, 5}, sizes
    for pos in positions:
        expected = brute.move_values(refmodel.RefState.from_dnp(str(pos)))
        assert open_values(pos) == expected, str(pos)


@pytest.mark.slow
def test_open_hands_from_the_start_of_round_4_against_brute_force():
    """A few full round-4 trees (5 + 5 cards, nobody has taken): the hardest case."""
    for seed in (1, 2):
        pos = round4_position(seed, 0)
        expected = brute.move_values(refmodel.RefState.from_dnp(str(pos)))
        assert open_values(pos) == expected, str(pos)


@pytest.mark.slow
def test_view_against_brute_force():
    """At least 500 views against a direct count over every set of cards the opponent may hold."""
    positions = sample_positions(500, min_actions=5, seed0=10_000)
    assert len({p.hand_sizes[p.to_move] for p in positions}) >= 4
    for full in positions:
        view = full.view("ab"[full.to_move])
        result = solve(view, mode="view")  # an empty opponent hand stays known: force the view
        expected = brute.view_expected(refmodel.RefState.from_dnp(str(full)))
        got = {m.move: (float(m.expected), m.margin) for m in result.moves}
        assert got.keys() == expected.keys()
        for move, (score, margin) in expected.items():
            assert got[move] == pytest.approx((score, margin), abs=1e-9), (str(view), move)


def test_settled_shortcut_equals_playing_on():
    """Once both took in round 4, any continuation ends with the same result (the solver's shortcut)."""
    rng = random.Random(3)
    checked = 0
    for seed in range(300):
        pos = round4_position(seed, 0)
        if pos is None:
            continue
        while pos.taken != 3 and not pos.is_over:
            pos = pos.play(rng.choice(pos.legal_moves()))
        if pos.is_over:
            continue
        settled = pos.result().scores
        for _ in range(3):
            end = pos
            while not end.is_over:
                end = end.play(rng.choice(end.legal_moves()))
            assert end.result().scores == settled
        checked += 1
    assert checked > 100


# -- the solver's own invariants -----------------------------------------------------------

def test_table_on_and_off_give_identical_values():
    for pos in sample_positions(150, min_actions=0, seed0=20_000):
        with_tt = solve(pos, mode="open")
        without = solve(pos, mode="open", use_tt=False)
        tiny = solve(pos, mode="open", tt_mb=0.01)  # constant replacement
        assert [(m.move, m.value) for m in with_tt.moves] == [(m.move, m.value) for m in without.moves]
        assert [(m.move, m.value) for m in tiny.moves] == [(m.move, m.value) for m in without.moves]


def test_table_on_and_off_give_identical_views():
    for full in sample_positions(30, min_actions=0, seed0=30_000):
        view = full.view("ab"[full.to_move])
        a, b = solve(view, mode="view"), solve(view, mode="view", use_tt=False)
        assert [(m.move, m.expected, m.margin) for m in a.moves] == [(m.move, m.expected, m.margin) for m in b.moves]


def test_world_probabilities_sum_to_one_and_match_a_direct_count():
    for full in sample_positions(40, min_actions=0, seed0=40_000):
        mover, opp = full.to_move, 1 - full.to_move
        view = full.view("ab"[mover])
        pool = unseen_pool(view, mover)
        size = view.hand_sizes[opp]
        assert sum(pool) == size + 3
        worlds = get_solver().world_values(view.core, opp, pool, size)
        weights = {hand: Fraction(world_weight(pool, hand), comb(sum(pool), size)) for hand, _ in worlds}
        assert sum(weights.values()) == 1
        cards = [k for k in range(len(KINDS)) for _ in range(pool[k])]
        direct = Counter()
        for chosen in combinations(range(len(cards)), size):
            hand = [0] * len(KINDS)
            for i in chosen:
                hand[cards[i]] += 1
            direct[tuple(hand)] += 1
        total = sum(direct.values())
        assert {h: Fraction(n, total) for h, n in direct.items()} == weights
        assert full.hands[opp] in weights  # the true hand is one of the worlds


def test_principal_variation_reaches_the_best_value():
    for pos in sample_positions(60, min_actions=0, seed0=50_000):
        result = solve(pos, mode="open")
        end = pos
        for move in result.pv:
            end = end.play(move)
        best = result.moves[0]
        if pos.taken == 3:  # both have taken: the result is settled and nothing is played out
            assert result.pv == [] and end == pos
        else:
            assert result.pv[0] == result.best and (end.is_over or end.taken == 3)
        res = end.result()
        mover = result.to_move
        margin = res.scores["ab".index(mover)].total - res.scores[1 - "ab".index(mover)].total
        assert margin == best.margin


def test_moves_are_sorted_best_first():
    for full in sample_positions(30, min_actions=0, seed0=60_000):
        open_result = solve(full, mode="open")
        values = [m.value for m in open_result.moves]
        assert values == sorted(values, reverse=True)
        view_result = solve(full, mode="view")
        keys = [(m.expected, m.margin) for m in view_result.moves]
        assert keys == sorted(keys, reverse=True)
        assert {m.move for m in view_result.moves} == {str(m) for m in full.legal_moves()}


def test_unsolvable_positions_are_refused():
    with pytest.raises(PositionError, match="round"):
        solve(Position.parse("5+2 678+3C/????? ./. 1 a -"))
    with pytest.raises(PositionError, match="hidden"):
        solve(Position.parse("7-2+3 58/?? 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a"))
    with pytest.raises(PositionError, match="over"):
        solve(Position.parse("7-2+3588-2 ./. 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 - ab"))
    with pytest.raises(PositionError, match="open-hands"):
        solve(Position.parse("7-2+3 ??/8-2 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a"), mode="open")


def test_best_value_alone_equals_the_best_move_value():
    solver = get_solver()
    for pos in sample_positions(80, min_actions=0, seed0=70_000):
        state = pos.core
        assert solver.value(state) == max(solver.move_values(state).values())
