"""The `root_exploration` search option: the UCB constant at the root, whose visits choose the
advice (None: the constant of the mover's decisions, so the tree of a search that never heard
of it, node for node)."""

import pytest

from solver import Position
from solver.agents.bots import make_bot
from solver.errors import ArgumentError, SpecError
from solver.solvers._ismcts import Searcher
from solver.solvers.searchconfig import PRESETS, SearchConfig, from_options


def _view(seed=1):
    pos = Position.random_deal(seed)
    return pos.view("ab"[pos.to_move])


def _root(view, **options):
    s = Searcher(max_nodes=300_000)
    s.start(view.core, observer=view.to_move, seed=3, opponent_hands=10.0, **options)
    s.search(iterations=4000)
    return {move: (st.visits, st.reward) for move, st in s.root_stats().items()}


def test_unset_is_the_mover_constant_node_for_node():
    assert SearchConfig().root_exploration is None and PRESETS["388581d"].root_exploration is None
    view = _view()
    assert _root(view) == _root(view, root_exploration=0.7) == _root(view, exploration=0.7)
    assert _root(view, exploration=1.0) == _root(view, exploration=1.0, root_exploration=1.0)


def test_a_larger_constant_spreads_the_root_visits():
    view = _view()
    narrow, wide = _root(view), _root(view, root_exploration=2.0)
    assert narrow != wide
    assert max(v for v, _ in wide.values()) < max(v for v, _ in narrow.values())
    assert sum(v for v, _ in wide.values()) == sum(v for v, _ in narrow.values()) == 4000


@pytest.mark.parametrize("bad", [-0.1, 101.0, float("nan")])
def test_searcher_refuses_out_of_range(bad):
    with pytest.raises(ValueError, match="root_exploration"):
        Searcher(max_nodes=1000).start(_view().core, observer=_view().to_move, root_exploration=bad)


def test_options_spec_keys_and_assumptions():
    assert from_options(root_exploration=1.0).root_exploration == 1.0
    assert make_bot("ismcts:iterations=10,root_exploration=1.2").config.root_exploration == 1.2
    assert "1 at the root" in from_options(root_exploration=1.0).assumes
    same = PRESETS["default"].exploration
    assert "at the root" not in from_options(root_exploration=same).assumes  # the same as exploration
    with pytest.raises(ArgumentError, match=r"root_exploration: -1 is out of range"):
        SearchConfig(root_exploration=-1)
    with pytest.raises(SpecError, match="root_exploration"):
        make_bot("ismcts:iterations=10,root_exploration=x")
