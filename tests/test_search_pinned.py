"""Fixed searches whose root statistics are pinned: a change to the ISMCTS that is meant to be
speed only (a layout, a table, a prefetch) must leave them exactly as they are.

- `OLD_SEARCH`: the raw Searcher's defaults (no per-hand statistics) are 388581d's search; the
  digests were computed by the build of 388581d itself (`bench/baseline.sh 388581d`), so the
  `388581d` preset reproduces that commit's answers node for node.
- `HANDS_SEARCH`: the same searches with the per-hand opponent statistics (opponent_hands 10),
  the default from 1aa5106 to 7d9ffe8 (checked against 97cb045's build): the `7d9ffe8` preset.
- `MODEL_SEARCH`: the default from 1da0d9a to 29c04e6 (bench/STRENGTH.md tests 19 and 20): the
  per-hand statistics, the round-end model and the constant 0.35, checked against the build of
  d9e9a61 that test 19 played (`--round-model --exploration 0.35`): the `29c04e6` preset.
- `TAKER_SEARCH`: the default from test 27 to 5e7c200: `MODEL_SEARCH` with the `taker` playouts
  (the engine of test 36's baseline, 654501e): the `5e7c200` preset.
- `DEFAULT_SEARCH`: the default since test 36: `TAKER_SEARCH` with the polynomial exploration
  bonus (poly_bonus 0.467), checked against the scratch tree test 36 played (`DNOIR_POLY=0.467`,
  bench/patches/round26_tree_screens.patch on 972e6b8): the `default` and `66bbc8c` presets,
  whose trees are the same (the take margin of the default since test 42 acts on the
  recommendation read from the root, not on the search).
A change of the search itself changes them: update them in the same commit and say so, as
Stockfish's commits give their new "Bench:".
"""

import hashlib
import json
import random

import pytest

from solver import Position
from solver.base.seeds import thread_seed
from solver.solvers._ismcts import Searcher
from solver.solvers.search import IsmctsSearch
from solver.solvers.roundmodel import weights
from solver.solvers.searchconfig import PRESETS

# (deal seed, random moves into the game): positions of rounds 1 to 3
CASES = [(1, 0), (2, 7), (3, 14), (4, 21), (5, 27), (6, 33)]
OLD_SEARCH = {(1, 0): "fe86175bd60bd004", (2, 7): "fde32a2f8a2e2d6c", (3, 14): "c9c61aadf6aaadeb",
              (4, 21): "433a939c5ba4c98b", (5, 27): "34fec036ffd44ebf", (6, 33): "6e774df34f332bce"}
HANDS_SEARCH = {(1, 0): "a2615cbcbeca06ab", (2, 7): "bf0c1d827b895088", (3, 14): "98ad96ef682648a5",
                (4, 21): "7b5e0b1435db1228", (5, 27): "7b6728425b72bd58", (6, 33): "8218eda5b72e1ac8"}
MODEL_SEARCH = {(1, 0): "9e06009302825adb", (2, 7): "24468fe0bfec53b5", (3, 14): "47f53e535e0fe43e",
                (4, 21): "7712f42bbd8d9148", (5, 27): "b2f5a11f84bd3965", (6, 33): "1d8245cf7d27fd18"}
TAKER_SEARCH = {(1, 0): "337f8db50b57a4e5", (2, 7): "12f064fb4895d513", (3, 14): "c3d3c2b041ce8f82",
                (4, 21): "b4af709c85bd5e06", (5, 27): "98f1afd2f2122d44", (6, 33): "f805362ce80ffa80"}
DEFAULT_SEARCH = {(1, 0): "0c7599827027455c", (2, 7): "5c1bc77cdcbc0f7c", (3, 14): "d3bcf64251fa3fcc",
                  (4, 21): "9a40ebd98fb08453", (5, 27): "e52c75963e60fe47", (6, 33): "91f7a4bacc3e0cd7"}


def _view(seed: int, moves: int) -> Position:
    rng = random.Random(seed)
    pos = Position.random_deal(seed)
    for _ in range(moves):
        pos = pos.play(rng.choice(pos.legal_moves()))
    return pos.view("ab"[pos.to_move])


def _digest(stats: dict) -> str:
    # the tree's own counts (visits, reward, margin, draws) as they were pinned; the summed
    # squares, added later, are derived from them or kept beside them and change no choice
    rows = sorted((move, list(s)[:4]) for move, s in stats.items())
    return hashlib.sha256(json.dumps(rows).encode()).hexdigest()[:16]


SEARCHES = {"388581d": ({}, OLD_SEARCH),
            "7d9ffe8": (dict(opponent_hands=10.0), HANDS_SEARCH),
            "29c04e6": (dict(opponent_hands=10.0, exploration=0.35, round_model=weights()), MODEL_SEARCH),
            "5e7c200": (dict(opponent_hands=10.0, exploration=0.35, round_model=weights(), policy="taker"),
                        TAKER_SEARCH),
            "default": (dict(opponent_hands=10.0, exploration=0.35, round_model=weights(), policy="taker",
                             poly_bonus=0.467), DEFAULT_SEARCH)}
# the preset before the take margin searches as the default does (the margin reads the root)
SEARCHES["66bbc8c"] = SEARCHES["default"]


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("name", SEARCHES)
def test_the_search_is_node_for_node_what_it_was(case, name):
    options, pinned = SEARCHES[name]
    view = _view(*case)
    s = Searcher(max_nodes=200_000)
    s.start(view.core, observer=view.to_move, seed=case[0], **options)
    s.search(iterations=4000)
    assert _digest(s.root_stats()) == pinned[case]


@pytest.mark.parametrize("name", SEARCHES)
def test_each_preset_is_the_raw_search_pinned_for_it(name):
    # what the preset passes to the Searcher is exactly the search pinned above under its name
    # (for 388581d: the raw Searcher's defaults, which were that commit's search)
    view = _view(*CASES[2])
    search = IsmctsSearch(view, threads=1, seed=5, config=PRESETS[name])
    search.run(iterations=3000)
    raw = Searcher(max_nodes=PRESETS[name].max_nodes)
    raw.start(view.core, observer=view.to_move, seed=thread_seed(5, 0), **SEARCHES[name][0])
    raw.search(iterations=3000)
    assert search.root_stats() == raw.root_stats()


@pytest.mark.parametrize("option", [dict(tuned=True), dict(margin_weight=0.2), dict(round_model="weights")])
def test_each_option_reaches_the_options_variant(option):
    # The iteration is compiled twice (ext/ismcts.pyx, Variant): the plain search without the options'
    # tests. An option that the variant test in search() missed would search as the plain one does,
    # node for node; each option must change the tree.
    if option.get("round_model") == "weights":
        option = dict(round_model=weights())
    # a round-3 position, where some means are far from 1/2: UCB1-Tuned changes the exploration
    # only where the results spread less than a fair coin's (it leaves a round-1 start's tree as is)
    pos, rng = Position.random_deal(31), random.Random(31)
    for _ in range(30):
        pos = pos.play(rng.choice(pos.legal_moves()))
    view = pos.view("ab"[pos.to_move])
    trees = []
    for extra in ({}, option):
        searcher = Searcher(max_nodes=200_000)
        searcher.start(view.core, observer=view.to_move, seed=5, opponent_hands=10.0, **extra)
        searcher.search(iterations=3000)
        trees.append({m: (s.visits, s.reward) for m, s in searcher.root_stats().items()})
    assert trees[0] != trees[1]


def _round4_trees(pos: Position, **options) -> list:
    view = pos.view("ab"[pos.to_move])
    trees = []
    for round4 in (None, 0.7):
        searcher = Searcher(max_nodes=200_000)
        searcher.start(view.core, observer=view.to_move, seed=5, opponent_hands=10.0, exploration=0.35,
                       round4_exploration=round4, **options)
        searcher.search(iterations=3000)
        trees.append(searcher.root_stats())
    return trees


def test_the_round_4_constant_acts_at_round_4_below_rounds_1_to_3_with_the_model_only():
    pos, rng = Position.random_deal(32), random.Random(32)
    early = _round4_trees(pos, round_model=weights())  # a round-1 root: its tree never reaches round 4
    assert early[0] == early[1]
    while pos.round < 3 or sum(pos.actions) < 8:  # late in round 3: the tree reaches round 4
        pos = pos.play(rng.choice(pos.legal_moves()))
    with_model, played_out = _round4_trees(pos, round_model=weights()), _round4_trees(pos)
    assert with_model[0] != with_model[1]
    assert played_out[0] == played_out[1]  # without the model every result is played out: no effect
    while pos.round < 4:  # a root in round 4: the root's own constant, the usual ones below it
        pos = pos.play(rng.choice(pos.legal_moves()))
    at_round_4 = _round4_trees(pos, round_model=weights())
    assert at_round_4[0] == at_round_4[1]
