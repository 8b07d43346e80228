"""The search options `tree_rounds` (how many rounds the tree spans, the root's first; 0: all)
and `settled_stop` (descents and playouts end once the result is settled). Off, the tree is
node for node the one of a search that never heard of them (tests/test_search_pinned.py pins
it); these tests check what each does when on."""

import random

import pytest

from solver import Position
from solver.agents.bots import make_bot
from solver.errors import ArgumentError, SpecError
from solver.rules.notation import ACTIONS_PER_ROUND
from solver.solvers._ismcts import Searcher, round_end_win_probability
from solver.solvers.roundmodel import weights

from solver.solvers.searchconfig import PRESETS, SearchConfig, from_options


MOVE_KINDS = 12  # the most children a node has: 11 card kinds and the take


def _search(view, iterations=3000, **options):
    s = Searcher(max_nodes=300_000)
    s.start(view.core, observer=view.to_move, seed=3, opponent_hands=10.0, **options)
    s.search(iterations=iterations)
    return s


def _stats(s):
    return {move: (st.visits, st.reward, st.margin) for move, st in s.root_stats().items()}


def _positions(predicate, count, seed, full=False, min_moves=2):
    """`count` views, to move, from random play, whose position meets `predicate` and has
    `min_moves` legal moves or more (the full positions with `full`)."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        pos = Position.random_deal(rng.getrandbits(32))
        while not pos.is_over and not predicate(pos):
            pos = pos.play(rng.choice(pos.legal_moves()))
        if not pos.is_over and len(pos.legal_moves()) >= min_moves:
            out.append(pos if full else pos.view("ab"[pos.to_move]))
    return out


def _last_choice_of_round(pos):
    # the mover's fifth action of six, the other player's fifth already made: the round's
    # last choice (a player's sixth action is forced), three actions left in it
    return pos.round < 4 and pos.actions[pos.to_move] == ACTIONS_PER_ROUND - 2 \
        and pos.actions[1 - pos.to_move] == ACTIONS_PER_ROUND - 1


def _settled(pos):
    return pos.round == 4 and pos.taken == 3


def test_off_by_default_and_zero_is_no_limit():
    assert SearchConfig().tree_rounds == 0 and PRESETS["388581d"].tree_rounds == 0
    assert not SearchConfig().settled_stop and not PRESETS["388581d"].settled_stop
    view = _positions(lambda p: True, 1, 5)[0]
    assert _stats(_search(view)) == _stats(_search(view, tree_rounds=0, settled_stop=False))


def test_one_round_ends_the_tree_with_the_round():
    # three actions are left in the root's round: with tree_rounds=1 the tree has the root and
    # three levels below it at most (each block at most MOVE_KINDS nodes), nothing in the
    # next round; without the limit it goes on into the next round
    for view in _positions(_last_choice_of_round, 3, 7):
        limited, full = _search(view, tree_rounds=1), _search(view)
        assert limited.nodes_used <= 1 + len(view.legal_moves()) * (1 + MOVE_KINDS * (1 + MOVE_KINDS))
        assert full.nodes_used > 5 * limited.nodes_used
        assert sum(st.visits for st in limited.root_stats().values()) == 3000


def test_two_rounds_reach_into_the_next_round_only():
    view = _positions(_last_choice_of_round, 1, 8)[0]
    one, two, four = (_search(view, tree_rounds=n).nodes_used for n in (1, 2, 4))
    assert one < two
    if view.round == 1:  # rounds 1 and 2 of 4: the unlimited tree may go further
        assert two <= _search(view).nodes_used
    assert four == _search(view).nodes_used  # four rounds from any root is every round left


def test_settled_stop_gives_the_exact_result_and_no_deeper_tree():
    # both players have taken in round 4: every move's result is the one the collections
    # give, whatever is dealt and played; the settled stop scores it without playing on
    for pos in _positions(_settled, 4, 9, full=True):
        view = pos.view("ab"[pos.to_move])
        ended = pos
        while not ended.is_over:
            ended = ended.play(ended.legal_moves()[0])
        result = ended.result()
        me = "ab"[view.to_move]
        half = 2 if result.winner == me else (1 if result.winner == "draw" else 0)
        scores = result.scores
        margin = scores[view.to_move].total - scores[1 - view.to_move].total
        for options in ({}, {"settled_stop": True}):
            s = _search(view, iterations=500, **options)
            for st in s.root_stats().values():
                assert st.reward == pytest.approx(st.visits * half / 2)
                assert st.margin == pytest.approx(st.visits * margin)
        assert _search(view, iterations=500, settled_stop=True).nodes_used == 1 + len(view.legal_moves())


def test_settled_stop_changes_nothing_before_a_result_is_settled_but_the_stream():
    # in rounds 1 to 3 the playouts reach round 4 and stop there early: the same kind of
    # search, fewer moves; every root move is still tried and the visits add up
    view = _positions(lambda p: p.round == 3, 1, 10)[0]
    s = _search(view, settled_stop=True)
    assert set(s.root_stats()) == {m.index for m in view.legal_moves()}
    assert sum(st.visits for st in s.root_stats().values()) == 3000


def _ends_the_round(pos):
    # the round's twelfth action is the mover's: whatever it is, the round ends with it
    return pos.round < 4 and pos.actions[pos.to_move] == ACTIONS_PER_ROUND - 1 \
        and pos.actions[1 - pos.to_move] == ACTIONS_PER_ROUND


def test_with_the_model_the_tree_ending_with_a_round_is_scored_there_exactly():
    # the root's move ends the round: with tree_rounds=1 every iteration backs up the model's
    # value of the state that move leaves (public: the model reads no hidden card), so each
    # move's mean is that value exactly, its spread nil, and the tree is the root's block; without the limit
    # the tree and the playouts go on into the next round and the means spread
    model = weights()
    for pos in _positions(_ends_the_round, 4, 11, full=True, min_moves=1):
        view = pos.view("ab"[pos.to_move])
        limited = _search(view, iterations=400, tree_rounds=1, round_model=model)
        assert limited.nodes_used == 1 + len(view.legal_moves())
        for move in pos.legal_moves():
            v = round_end_win_probability(pos.play(move).core, model)
            expected = v if pos.to_move == 0 else 1.0 - v
            st = limited.root_stats()[move.index]
            assert st.reward == pytest.approx(st.visits * expected, rel=1e-12)
            # one result, `expected`, every visit: the summed squares are exact (to the
            # 2**-32 units they are kept in) and the spread nil
            assert st.squares == pytest.approx(st.visits * expected ** 2, abs=st.visits * 2.0 ** -32)
        assert _search(view, iterations=400, round_model=model).nodes_used > 10 * limited.nodes_used


def test_with_the_model_the_tree_ends_with_the_round():
    model = weights()
    for view in _positions(_last_choice_of_round, 3, 7):
        limited = _search(view, tree_rounds=1, round_model=model)
        assert limited.nodes_used <= 1 + len(view.legal_moves()) * (1 + MOVE_KINDS * (1 + MOVE_KINDS))
        assert sum(st.visits for st in limited.root_stats().values()) == 3000


@pytest.mark.parametrize("bad", [-1, 5])
def test_searcher_refuses_out_of_range(bad):
    view = _positions(lambda p: True, 1, 5)[0]
    with pytest.raises(ValueError, match="tree_rounds"):
        Searcher(max_nodes=1000).start(view.core, observer=view.to_move, tree_rounds=bad)


def test_options_spec_keys_and_assumptions():
    config = from_options(tree_rounds=1, settled_stop=1)
    assert (config.tree_rounds, config.settled_stop) == (1, True)
    bot = make_bot("ismcts:iterations=10,tree_rounds=2,settled_stop=1")
    assert (bot.config.tree_rounds, bot.config.settled_stop) == (2, True)
    assert "the tree within the root's round" in config.assumes
    assert "ending once the result is settled" in config.assumes
    assert "within 2 rounds" in from_options(tree_rounds=2).assumes
    assert "tree within" not in SearchConfig().assumes and "settled" not in SearchConfig().assumes
    assert "as the tree is where it ends with a round" in from_options(tree_rounds=1).assumes
    assert "where it ends with a round" not in SearchConfig().assumes
    assert "where it ends" not in from_options(tree_rounds=1, round_model=0).assumes
    for bad in (5, -1, True, 1.5):
        with pytest.raises(ArgumentError, match="tree_rounds"):
            SearchConfig(tree_rounds=bad)
    with pytest.raises(ArgumentError, match="settled_stop"):
        SearchConfig(settled_stop=1)
    with pytest.raises(SpecError, match="tree_rounds"):
        make_bot("ismcts:iterations=10,tree_rounds=9")


@pytest.mark.parametrize("argv, says", [(["tree_rounds=9"], "tree_rounds: 9 is out of range"),
                                        (["tree_rounds"], "give KEY=VALUE"),
                                        (["colour=red"], "unknown search setting 'colour'"),
                                        (["settled_stop=1", "--positions", "0"], "0 is out of range"),
                                        (["margin=0.2"], "the margin term and UCB1-Tuned need played-out games")])
def test_option_speed_refuses_bad_input_in_one_line(argv, says, capsys):
    from solver.bench import option_speed
    with pytest.raises(SystemExit) as exit_:
        option_speed.main(argv)
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and says in err and err.count("\n") == 1


def test_option_speed_prints_the_ratio(capsys):
    from solver.bench import option_speed
    option_speed.main(["tree_rounds=1", "--positions", "2", "--iterations", "300", "--repeats", "1"])
    assert capsys.readouterr().out.startswith("tree_rounds=1 against default: x")
    option_speed.main(["margin=0.2", "--base", "7d9ffe8", "--positions", "2", "--iterations", "300", "--repeats", "1"])
    assert capsys.readouterr().out.startswith("margin=0.2 against 7d9ffe8: x")
