"""The PettingZoo environment (solver.interfaces.pettingzoo): PettingZoo's own API and seed tests, the
classic conventions, rewards against Position, and our bots as opponents."""

import doctest
import random

import numpy as np
import pytest
import solver.bench.adapters
from pettingzoo.test import api_test, seed_test

import solver.interfaces.pettingzoo
from solver import Position
from solver.agents.bots import Bot
from solver.interfaces.board import render_board
from solver.interfaces.observation import encode_view
from solver.interfaces.pettingzoo import AGENTS, BotOpponent, env, fill_hidden, play_against, raw_env

# PettingZoo's api_test warns about every Dict observation space, the classic-games convention.
pytestmark = [pytest.mark.filterwarnings("ignore:Observation space for each agent"),
              pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")]

ROUND4_HIDDEN = "7-2+3 ??/?? 555666777888+2+2+4-1-1-2-3C/566677888+2+3-1-2-3C 4 b a"


@pytest.mark.parametrize("module", [solver.interfaces.pettingzoo, solver.bench.adapters])
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0


@pytest.mark.parametrize("kwargs", [{}, {"render_mode": "ansi"}, {"dnp": ROUND4_HIDDEN}])
def test_pettingzoo_api_test(kwargs):
    api_test(env(**kwargs), num_cycles=1000)


def test_pettingzoo_seed_test():
    seed_test(env, num_cycles=500)


def random_game(game, seed):
    """Play a seeded random game through the AEC loop; return the final rewards and position."""
    rng = random.Random(seed)
    game.reset(seed=seed)
    finals = {}
    for agent in game.agent_iter():
        obs, reward, termination, truncation, _ = game.last()
        if termination or truncation:
            finals[agent] = reward
            game.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert list(legal) == [m.index for m in game.unwrapped.position.legal_moves()]
        assert agent == AGENTS[game.unwrapped.position.to_move]
        game.step(int(rng.choice(legal)))
    return finals, game.unwrapped.position


def test_rewards_at_the_end_follow_the_position_result():
    game = env()
    for seed in range(20):
        finals, pos = random_game(game, seed)
        assert pos.is_over
        winner = pos.result().winner
        expected = {"a": (1, -1), "b": (-1, 1), "draw": (0, 0)}[winner]
        assert (finals["player_0"], finals["player_1"]) == expected


def test_same_seed_same_game_and_different_seeds_different_deals():
    first = random_game(env(), 7)
    assert random_game(env(), 7) == first
    game = raw_env()
    deals = set()
    for seed in range(5):
        game.reset(seed=seed)
        deals.add(str(game.position))
    assert len(deals) == 5


def test_observations_show_only_what_the_agent_sees_and_mask_only_the_mover():
    game = raw_env()
    game.reset(seed=4)
    pos = game.position
    for i, agent in enumerate(AGENTS):
        obs = game.observe(agent)
        assert np.array_equal(obs["observation"], encode_view(pos.view(i), i))
        assert game.observation_space(agent).contains(obs)
        mover = i == pos.to_move
        assert obs["action_mask"].tolist() == [int(mover and m in [x.index for x in pos.legal_moves()])
                                               for m in range(12)]


@pytest.mark.filterwarnings(r"ignore:.*render\(\) called without a render_mode")
def test_render_ansi_is_the_board_and_no_mode_renders_nothing():
    game = raw_env(render_mode="ansi")
    game.reset(seed=1)
    assert game.render() == render_board(game.position)
    quiet = raw_env()
    quiet.reset(seed=1)
    assert quiet.render() is None
    with pytest.raises(ValueError, match="render_mode"):
        raw_env(render_mode="human")


def test_an_illegal_move_ends_the_game_against_its_maker():
    game = env()
    game.reset(seed=2)
    mover = game.agent_selection
    illegal = int(np.flatnonzero(game.observe(mover)["action_mask"] == 0)[0])
    game.step(illegal)
    assert all(game.terminations.values())
    assert game.rewards[mover] == -1


def test_a_dnp_start_fills_the_hidden_cards_consistently():
    start = Position.parse(ROUND4_HIDDEN)
    rng = random.Random(0)
    for _ in range(20):
        full = fill_hidden(start, rng)
        assert full.is_full
        assert str(full.view("a")).split()[2:] == str(start).split()[2:]
        assert full.line == start.line and full.hand_sizes == start.hand_sizes
    with pytest.raises(ValueError, match="dnp"):
        raw_env(dnp="nonsense")


class ViewChecker(Bot):
    """A bot that records what it was shown."""

    name = "checker"

    def __init__(self):
        super().__init__(0)
        self.views = []

    def choose(self, view):
        self.views.append(view)
        return view.legal_moves()[0]


def test_bot_opponents_see_only_their_own_view():
    opponent = BotOpponent("random")
    opponent.bot = checker = ViewChecker()
    first_legal = lambda obs: int(np.flatnonzero(obs["action_mask"])[0])  # noqa: E731
    assert play_against(env(), first_legal, opponent, agent="player_0", seed=3) in (-1, 0, 1)
    assert checker.views
    for view in checker.views:
        assert view.to_move == 1
        assert view.deck is None and view.removed is None
        assert view.hands[0] is None or view.hand_sizes[0] == 0


@pytest.mark.parametrize("spec", ["greedy", "pimc:worlds=5", "ismcts:iterations=50"])
def test_our_bots_play_whole_games_as_opponents(spec):
    rng = random.Random(1)
    random_policy = lambda obs: int(rng.choice(np.flatnonzero(obs["action_mask"])))  # noqa: E731
    rewards = [play_against(env(), random_policy, BotOpponent(spec, seed=s), agent=AGENTS[s % 2], seed=s)
               for s in range(2)]
    assert all(r in (-1, 0, 1) for r in rewards)


def test_bench_adapters_measures_the_three_loops_through_the_cli():
    import json
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-I", "-m", "solver.cli", "bench", "adapters", "--games", "3", "--json"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    report = json.loads(run.stdout)
    assert sorted(report["loops"]) == ["api", "openspiel", "pettingzoo", "pettingzoo_raw"] and report["missing"] == []
    for name, loop in report["loops"].items():
        assert loop["games"] == 3 and loop["moves"] > 0 and loop["games_per_second"] > 0
        if name != "api":
            assert loop["slowdown"] == round(report["loops"]["api"]["games_per_second"] / loop["games_per_second"], 2)
    bad = subprocess.run([sys.executable, "-I", "-m", "solver.cli", "bench", "adapters", "--games", "0"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "--games" in bad.stderr and len(bad.stderr.strip().splitlines()) == 1
