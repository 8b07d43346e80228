"""The `opponent_hands` search option: the opponent's choices learnt per hand it holds in
the sampled world. On by default (10) since bench/STRENGTH.md's test 8, off in the `388581d` preset; when on, it changes the tree and keeps every guarantee
of the search (bounded memory, determinism, no information leak: tests/test_no_leak.py)."""

import pytest
from conftest import dealt_view as _view, root_table as _root

from solver.solvers._ismcts import MAX_HAND_PRIOR, Searcher
from solver.agents.bots import make_bot
from solver.errors import ArgumentError, SpecError
from solver.solvers.searchconfig import PRESETS, SearchConfig, from_options


def _searched(view, iterations=3000, seed=3, **options):
    s = Searcher(max_nodes=200_000)
    s.start(view.core, observer=view.to_move, seed=seed, **options)
    s.search(iterations=iterations)
    return s


def test_on_by_default_off_in_the_388581d_preset():
    # the default since bench/STRENGTH.md's test 8 (SPRT accepted at 100 ms a move)
    assert SearchConfig().opponent_hands == PRESETS["default"].opponent_hands == 10
    assert PRESETS["388581d"].opponent_hands == 0
    assert from_options("388581d").opponent_hands == 0
    # the raw Searcher is off unless asked, so 388581d's tree is reproduced node for node
    view = _view()
    assert _root(_searched(view)) == _root(_searched(view, opponent_hands=0.0))
    assert _searched(view).hand_entries == 0


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_on_it_makes_entries_and_changes_the_tree(seed):
    view = _view(seed)
    plain, keyed = _searched(view), _searched(view, opponent_hands=10.0)
    assert keyed.hand_entries > 0
    assert sum(v for _, v, _ in _root(keyed)) == 3000
    assert _root(keyed) != _root(plain)
    # deterministic for a seed
    assert _root(keyed) == _root(_searched(view, opponent_hands=10.0))


def test_a_full_hand_table_only_stops_new_entries():
    view = _view(4)
    s = Searcher(max_nodes=2000)  # the table's floor: 1024 entries
    s.start(view.core, observer=view.to_move, seed=1, opponent_hands=5.0)
    assert s.search(iterations=20_000) == 20_000
    assert 0 < s.hand_entries <= 1024
    s.start(view.core, observer=view.to_move, seed=1, opponent_hands=5.0)  # a new tree starts empty
    assert s.hand_entries == 0


def test_bad_values_are_refused():
    view = _view()
    s = Searcher(max_nodes=1000)
    for bad in (-1.0, float("nan"), MAX_HAND_PRIOR * 2):
        with pytest.raises(ValueError, match="opponent_hands"):
            s.start(view.core, observer=view.to_move, opponent_hands=bad)
    with pytest.raises(ArgumentError, match="opponent_hands"):
        SearchConfig(opponent_hands=-1)
    with pytest.raises(SpecError):
        make_bot("ismcts:iterations=10,opponent_hands=-3")


def test_the_option_reaches_the_config_and_says_what_it_assumes():
    config = from_options(opponent_hands=30)
    assert config.opponent_hands == 30 and config.name is None
    assert "per hand" in config.assumes and "per hand" not in PRESETS["388581d"].assumes
    assert make_bot("ismcts:iterations=10,opponent_hands=30").config == config
    assert make_bot("ismcts:iterations=10,opponent_hands=0,reuse=0,round_model=0,exploration=0.7,policy=random,"
                    "poly_bonus=0,take_margin=0").config \
        == from_options("388581d")
    assert make_bot("ismcts:iterations=10").config.name == "default"
