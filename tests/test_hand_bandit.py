"""The `hand_bandit` search option: with `opponent_hands`, each hand the opponent may hold at a
decision is its own bandit (its own exploration term, the round-end model's exact values in
its sums). Off by default; when on it changes the tree and keeps every guarantee of the
search (determinism, bounded memory, no information leak: tests/test_no_leak.py)."""

import json

import pytest

from conftest import dealt_view as _view, root_table as _root, run_cli
from solver.agents.bots import make_bot
from solver.errors import ArgumentError, SpecError
from solver.solvers import roundmodel
from solver.base.seeds import thread_seed
from solver.solvers._ismcts import Searcher
from solver.solvers.search import IsmctsSearch
from solver.solvers.searchconfig import OPTIONS, PRESETS, SearchConfig, from_options


def _searched(view, iterations=3000, seed=3, model=True, **options):
    s = Searcher(max_nodes=200_000)
    s.start(view.core, observer=view.to_move, seed=seed, exploration=0.35,
            round_model=roundmodel.weights() if model else None, **options)
    s.search(iterations=iterations)
    return s


def test_off_by_default_in_every_preset():
    assert SearchConfig().hand_bandit is False
    assert all(preset.hand_bandit is False for preset in PRESETS.values())
    assert "hand_bandit" in OPTIONS
    # (the raw Searcher off unless asked, node for node the search it was: tests/test_search_pinned.py)


def test_without_per_hand_statistics_it_changes_nothing():
    view = _view(2)
    for model in (True, False):
        assert _root(_searched(view, model=model)) == _root(_searched(view, model=model, hand_bandit=True))


@pytest.mark.parametrize("model", [True, False], ids=["round-model", "played-out"])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_on_it_changes_the_tree_and_stays_deterministic(seed, model):
    view = _view(seed)
    plain = _searched(view, model=model, opponent_hands=10.0)
    bandit = _searched(view, model=model, opponent_hands=10.0, hand_bandit=True)
    assert bandit.hand_entries > 0
    assert sum(v for _, v, _ in _root(bandit)) == 3000
    assert _root(bandit) != _root(plain)
    assert _root(bandit) == _root(_searched(view, model=model, opponent_hands=10.0, hand_bandit=True))


def test_a_prior_below_one_visit_still_chooses():
    # a new entry has no visits: with K < 1 the bandit's log(N_h + K) would be negative (NaN
    # scores, no child chosen) without its floor at 0
    view = _view(4)
    for seed in (1, 2):
        s = _searched(view, iterations=5000, seed=seed, opponent_hands=0.25, hand_bandit=True)
        assert s.hand_entries > 0
        assert sum(v for _, v, _ in _root(s)) == 5000
    assert _root(s) == _root(_searched(view, iterations=5000, seed=2, opponent_hands=0.25, hand_bandit=True))


def test_the_configuration_reaches_the_searcher():
    # IsmctsSearch passes the option on: its tree is the raw Searcher's with hand_bandit
    view = _view(6)
    config = from_options(hand_bandit=1)
    search = IsmctsSearch(view, threads=1, seed=5, config=config)
    search.run(iterations=3000)
    options = dict(exploration=config.exploration, opponent_hands=config.opponent_hands,
                   policy=config.policy.value, poly_bonus=config.poly_bonus, round_model=roundmodel.weights())
    raw = {}
    for bandit in (True, False):
        s = Searcher(max_nodes=config.max_nodes)
        s.start(view.core, observer=view.to_move, seed=thread_seed(5, 0), hand_bandit=bandit, **options)
        s.search(iterations=3000)
        raw[bandit] = s.root_stats()
    assert search.root_stats() == raw[True] != raw[False]


def test_a_full_hand_table_only_stops_new_entries():
    view = _view(5)
    s = Searcher(max_nodes=2000)  # the table's floor: 1024 entries
    s.start(view.core, observer=view.to_move, seed=1, opponent_hands=5.0, hand_bandit=True,
            round_model=roundmodel.weights())
    assert s.search(iterations=20_000) == 20_000
    assert 0 < s.hand_entries <= 1024


def test_options_spec_keys_assumptions_and_errors():
    config = from_options(hand_bandit=1)
    assert config.hand_bandit is True
    assert "each hand explored on its own" in config.assumes
    assert "explored on its own" not in SearchConfig().assumes
    # without per-hand statistics there is nothing to explore per hand, and it says nothing
    assert "explored on its own" not in from_options(hand_bandit=1, opponent_hands=0).assumes
    assert make_bot("ismcts:iterations=10,hand_bandit=1").config.hand_bandit is True
    assert make_bot("ismcts:iterations=10").config.hand_bandit is False
    with pytest.raises(ArgumentError, match="hand_bandit"):
        SearchConfig(hand_bandit=1)
    with pytest.raises(SpecError, match="hand_bandit"):
        make_bot("ismcts:iterations=10,hand_bandit=2")
    assert config.to_dict()["hand_bandit"] is True


def test_cli_option_reaches_the_search(capsys):
    dnp = str(_view(7))
    code, out, err = run_cli(capsys, "advise", dnp, "--iterations", "2000", "--seed", "1", "--json", "--hand-bandit")
    assert code == 0, err
    search = json.loads(out)["search"]
    assert search["hand_bandit"] is True and "each hand explored on its own" in search["assumes"]
    code, out, err = run_cli(capsys, "advise", dnp, "--iterations", "2000", "--seed", "1", "--json")
    assert code == 0, err
    assert json.loads(out)["search"]["hand_bandit"] is False
