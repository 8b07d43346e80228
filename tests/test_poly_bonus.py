"""The `poly_bonus` search option: with the round-end model, the exploration bonus
c * k * avail^(1/4) / sqrt(visits) instead of UCB1's c * sqrt(ln(avail) / visits)
(bench/STRENGTH.md's test 36). 0.467 by default since test 36, 0 (UCB1's bonus) in the earlier
presets: tests/test_search_pinned.py pins both searches, the default's as the scratch tree that
test 36 played computed it (`DNOIR_POLY=0.467`, bench/patches/round26_tree_screens.patch)."""

import math
import random

import pytest

from solver import Position
from solver.agents.bots import make_bot
from solver.errors import ArgumentError, SpecError
from solver.solvers._ismcts import MAX_POLY_BONUS, Searcher
from solver.solvers.roundmodel import weights
from solver.solvers.searchconfig import PRESETS, SearchConfig, from_options
from test_search_pinned import CASES, SEARCHES, _view

# the searcher's options of the preset before the bonus (5e7c200) but the model, which each test sets
TAKER_OPTIONS = {key: value for key, value in SEARCHES["5e7c200"][0].items() if key != "round_model"}


def _root_stats(view: Position, **options) -> dict:
    searcher = Searcher(max_nodes=200_000)
    searcher.start(view.core, observer=view.to_move, seed=5, **options)
    searcher.search(iterations=3000)
    return searcher.root_stats()


def test_on_by_default_and_off_in_every_preset_before_it():
    assert SearchConfig().poly_bonus == PRESETS["66bbc8c"].poly_bonus == 0.467
    assert all(preset.poly_bonus == 0 for name, preset in PRESETS.items() if name not in ("default", "66bbc8c"))


def test_k_0467_makes_the_bonus_ucb1s_at_a_thousand_visits():
    # the value the docs and the test use: sqrt(ln n) / n^(1/4) at n = 1,000
    assert math.sqrt(math.log(1000)) / 1000 ** 0.25 == pytest.approx(0.467, abs=5e-4)


def test_it_acts_with_the_model_only():
    view = _view(*CASES[1])
    with_model = [_root_stats(view, round_model=weights(), poly_bonus=k, **TAKER_OPTIONS) for k in (0.0, 0.467)]
    assert with_model[0] != with_model[1]
    played_out = [_root_stats(view, poly_bonus=k, **TAKER_OPTIONS) for k in (0.0, 0.467)]
    assert played_out[0] == played_out[1]  # the raw searcher without the model: UCB1 as before


@pytest.mark.parametrize("bad", [-0.1, MAX_POLY_BONUS + 0.5, float("nan")])
def test_searcher_refuses_out_of_range(bad):
    view = _view(*CASES[0])
    with pytest.raises(ValueError, match="poly_bonus"):
        Searcher(max_nodes=1000).start(view.core, observer=view.to_move, poly_bonus=bad)


def test_the_setting_is_checked_and_stated():
    # (tests/test_search_option_cli.py: the option, the spec key and the assumptions line)
    with pytest.raises(ArgumentError, match=r"poly_bonus: -1 is out of range"):
        SearchConfig(poly_bonus=-1)
    # without the model the bonus acts nowhere (test_it_acts_with_the_model_only), and the
    # assumptions do not claim it
    assert "polynomial" not in from_options(poly_bonus=0.467, round_model=0).assumes
    with pytest.raises(SpecError, match="poly_bonus"):
        make_bot("ismcts:iterations=10,poly_bonus=x")
    assert "polynomial" not in from_options("5e7c200").assumes
    assert "UCB with a polynomial bonus" in SearchConfig().assumes


def test_the_round_4_constant_still_acts_below_round_3_with_it():
    # the polynomial bonus has its own compiled variant of the iteration: the settings the model's
    # variant reads (here round4_exploration, at round 4's decisions below a round-3 root) hold there too
    pos, rng = Position.random_deal(32), random.Random(32)
    while pos.round < 3 or sum(pos.actions) < 8:  # late in round 3: the tree reaches round 4
        pos = pos.play(rng.choice(pos.legal_moves()))
    view = pos.view("ab"[pos.to_move])
    trees = [_root_stats(view, round_model=weights(), poly_bonus=0.467, round4_exploration=r4, **TAKER_OPTIONS)
             for r4 in (None, 0.7)]
    assert trees[0] != trees[1]
