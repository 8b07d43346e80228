"""The `round4_exploration` search option: with the round-end model, the UCB constant at both
players' round-4 decisions in a tree whose root is in rounds 1-3, the only nodes whose results
are all played out (bench/STRENGTH.md's test 33). Unset by default: the tree node for node as before
(tests/test_search_pinned.py pins it and checks where the option acts)."""

import pytest

from solver import Position
from solver.agents.bots import make_bot
from solver.errors import ArgumentError, SpecError
from solver.solvers._ismcts import Searcher
from solver.solvers.searchconfig import PRESETS, SearchConfig, from_options


def test_unset_by_default_and_in_every_preset():
    assert all(preset.round4_exploration is None for preset in PRESETS.values())


@pytest.mark.parametrize("bad", [-0.1, 101.0, float("nan")])
def test_searcher_refuses_out_of_range(bad):
    pos = Position.random_deal(1)
    view = pos.view("ab"[pos.to_move])
    with pytest.raises(ValueError, match="round4_exploration"):
        Searcher(max_nodes=1000).start(view.core, observer=view.to_move, round4_exploration=bad)


def test_the_assumptions_claim_it_only_where_it_acts():
    # (tests/test_search_option_cli.py: the option, the spec key and the assumptions where it acts)
    # without the model the option acts nowhere, and the assumptions do not claim it
    assert "round 4's decisions" not in from_options(round4_exploration=0.7, round_model=0).assumes
    # nor when the tree ends with the root's round, so never reaches round 4 below rounds 1-3
    assert "round 4's decisions" not in from_options(round4_exploration=0.7, tree_rounds=1).assumes
    with pytest.raises(ArgumentError, match=r"round4_exploration: -1 is out of range"):
        SearchConfig(round4_exploration=-1)
    with pytest.raises(SpecError, match="round4_exploration"):
        make_bot("ismcts:iterations=10,round4_exploration=x")
