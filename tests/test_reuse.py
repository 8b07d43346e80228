"""Tree reuse: a search that follows the last one by the mover's move and the opponent's reply
goes on from the subtree below those two moves (Searcher.follow, IsmctsSearch.follow,
KeptTree), keeping exactly what the tree knew there."""

import io

import pytest
from conftest import random_position

from solver import Position
from solver.agents.bots import make_bot
from solver.interfaces.engine import Engine
from solver.rules.cards import Move
from solver.solvers._ismcts import Searcher
from solver.solvers.limit import Limit
from solver.solvers.search import PRESETS, KeptTree, _two_moves_between, advise


def _game_step(full: Position, own: str, theirs_choice=0):
    """`full` after the mover's `own` and the opponent's reply (its `theirs_choice`-th legal move)."""
    between = full.play(own)
    theirs = between.legal_moves()[theirs_choice % len(between.legal_moves())]
    return between, theirs, between.play(theirs)


def _searched(view: Position, iterations=20_000, seed=1, **options) -> Searcher:
    s = Searcher(max_nodes=1_000_000)
    s.start(view.core, observer=view.to_move, seed=seed, **options)
    s.search(iterations=iterations)
    return s


@pytest.mark.parametrize("seed, moves", [(1, 0), (2, 14), (3, 26)])
@pytest.mark.parametrize("hands", [0.0, 10.0])
def test_follow_keeps_the_subtree_below_the_two_moves(seed, moves, hands):
    full = random_position(seed, moves)
    view = full.view("ab"[full.to_move])
    s = _searched(view, opponent_hands=hands)
    own = max(s.root_stats().items(), key=lambda kv: kv[1].visits)[0]
    between = full.play(Move(own))
    assert between.round == full.round
    replies = s.node_stats((own,))
    theirs = max((m for m in replies if Move(m) in between.legal_moves()), key=lambda m: replies[m].visits)
    after = between.play(Move(theirs))
    expected = s.node_stats((own, theirs))
    below = {m: s.node_stats((own, theirs, m)) for m in expected}
    kept = s.follow(after.view("ab"[full.to_move]).core, own, theirs, seed=2)
    assert kept == replies[theirs].visits > 0
    # the same statistics, now at the root, and the nodes below them too
    assert s.root_stats() == expected
    assert {m: s.node_stats((m,)) for m in expected} == below
    assert s.iterations == 0 and s.nodes_used < 1_000_000
    # and the search goes on from there
    assert s.search(iterations=5000) == 5000
    assert sum(st.visits for st in s.root_stats().values()) == sum(st.visits for st in expected.values()) + 5000


def test_follow_refuses_a_node_the_tree_never_reached():
    full = random_position(4, 3)
    view = full.view("ab"[full.to_move])
    s = _searched(view, iterations=50)
    before = s.root_stats()
    own = next(iter(before))
    missing = next(m for m in range(12) if m not in s.node_stats((own,)))
    assert s.follow(view.core, own, missing, seed=1) == 0
    assert s.follow(view.core, 12, 0, seed=1) == 0
    assert s.root_stats() == before  # unchanged


@pytest.mark.parametrize("seed", [5, 6, 7])
def test_the_two_moves_between_two_views_are_found(seed):
    full = random_position(seed, 2 * seed % 7)
    me = "ab"[full.to_move]
    for own in full.legal_moves():
        between, theirs, after = _game_step(full, str(own), seed)
        if after.round != full.round or after.is_over:
            assert _two_moves_between(full.view(me), after.view(me)) is None
            continue
        found = _two_moves_between(full.view(me), after.view(me), first=theirs)
        # the same views may come from another pair of moves only if it gives the same line
        assert found is not None
        assert full.view(me).play(found[0]).play(found[1]) == after.view(me)
        assert found[0] == own or full.view(me).play(found[0]).line == full.view(me).play(own).line


def test_no_two_moves_across_a_round_or_between_unrelated_positions():
    full = random_position(8, 9)
    me = "ab"[full.to_move]
    assert _two_moves_between(full.view(me), full.view(me)) is None  # the same position
    other = random_position(9, 9)
    assert _two_moves_between(full.view(me), other.view("ab"[other.to_move])) is None
    pos = random_position(10, 0)
    while pos.round == 1:  # to the first decision of round 2
        pos = pos.play(pos.legal_moves()[0])
    last = random_position(10, 0)
    while sum(last.actions) < 11 or last.round != 1:
        last = last.play(last.legal_moves()[0])
    assert _two_moves_between(last.view("ab"[last.to_move]), pos.view("ab"[pos.to_move])) is None


def _game(kept: KeptTree | None, config=PRESETS["default"], seed=11, steps=5):
    full = random_position(seed, 0)
    me = "ab"[full.to_move]
    answers = []
    for step in range(steps):
        advice = advise(full.view(me), Limit(iterations=3000), threads=1, seed=step, config=config, kept=kept)
        answers.append(advice)
        _, _, full = _game_step(full, advice.best, step)
        if full.round != 1 or full.is_over:
            break
    return answers


def test_advise_with_a_kept_tree_reuses_and_is_reproducible():
    first, second = _game(KeptTree()), _game(KeptTree())
    assert [a.to_dict() | {"seconds": 0, "iterations_per_second": 0} for a in first] == \
        [a.to_dict() | {"seconds": 0, "iterations_per_second": 0} for a in second]
    assert first[0].reused == 0 and any(a.reused > 0 for a in first[1:])
    for a in first:  # the new iterations, and what the kept tree had
        assert a.iterations == 3000
        assert sum(m.visits for m in a.moves) >= 3000 + a.reused - 1


def test_no_reuse_without_a_kept_tree_or_with_reuse_off():
    assert all(a.reused == 0 for a in _game(None))
    assert all(a.reused == 0 for a in _game(KeptTree(), config=PRESETS["388581d"]))
    assert all(a.reused == 0 for a in _game(KeptTree(), config=PRESETS["default"].replace(reuse=False)))


def test_a_kept_tree_of_other_settings_is_not_reused():
    kept = KeptTree()
    full = random_position(12, 0)
    me = "ab"[full.to_move]
    first = advise(full.view(me), Limit(iterations=3000), threads=1, seed=1, kept=kept)
    _, _, after = _game_step(full, first.best)
    other = PRESETS["default"].replace(exploration=0.9)
    assert advise(after.view(me), Limit(iterations=1000), threads=1, seed=1, config=other, kept=kept).reused == 0
    kept.clear()
    assert advise(after.view(me), Limit(iterations=1000), threads=1, seed=1, kept=kept).reused == 0


def test_the_engine_keeps_its_tree_until_newgame():
    out = io.StringIO()
    engine = Engine(out=out)
    full = random_position(13, 0)
    me = "ab"[full.to_move]
    for command in (f"position {full.view(me)}", "go iterations 3000 seed 1"):
        engine.handle(command)
        engine.wait()
    best = out.getvalue().split()[-1]
    _, _, after = _game_step(full, best)
    kept = engine.kept._search
    assert kept is not None
    engine.handle(f"position {after.view(me)}")
    engine.handle("go iterations 1000 seed 2")
    engine.wait()
    assert engine.kept._search is kept  # the same trees, moved on
    engine.handle("newgame")
    assert engine.kept._search is None


def test_a_bot_forgets_its_tree_at_a_new_game():
    bot = make_bot("ismcts:iterations=1000", seed=1)
    full = random_position(14, 0)
    bot.choose(full.view("ab"[full.to_move]))
    assert bot.kept._search is not None
    bot.new_game()
    assert bot.kept._search is None
