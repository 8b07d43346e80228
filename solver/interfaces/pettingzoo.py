"""District Noir as a PettingZoo AEC environment, in the conventions of `pettingzoo.classic`.

    >>> from solver.interfaces.pettingzoo import env
    >>> game = env(render_mode="ansi")
    >>> game.reset(seed=1)
    >>> game.agents, game.agent_selection in game.agents
    (['player_0', 'player_1'], True)
    >>> obs, reward, termination, truncation, info = game.last()
    >>> sorted(obs), obs["action_mask"].shape
    (['action_mask', 'observation'], (12,))

Agents `player_0` (seat `a`) and `player_1` (seat `b`); the seats alternate who starts as
docs/rules.md says (the deal's coin flip picks round 1's first player). Actions are the move
numbers of `solver.rules.cards`: 0-10 play a card of a kind, 11 takes. An observation is a dict with
`observation` (`solver.interfaces.observation.encode_view`: what the agent sees) and `action_mask`
(1 for the legal moves of the agent to move, all 0 for the other). The reward is given at
the end: win 1, loss -1, draw 0. `render_mode="ansi"` returns the board as text
(`solver.interfaces.board.render_board`), both hands shown.

The game runs on `solver.Position` (the C core answers every rule question). Deals come from
the environment's seeded random generator: `reset(seed=...)` repeats a game exactly.
`BotOpponent` lets any `solver.agents.bots` spec (`greedy`, `ismcts:iterations=500`, ...) play a seat.
"""

from __future__ import annotations

import random

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from solver.agents.bots import make_bot
from solver.interfaces.board import render_board
from solver.interfaces.observation import MAX_VALUE, OBSERVATION_SIZE, encode_view
from solver.rules.cards import COMPOSITION, NKINDS, Move
from solver.rules.notation import deck_size
from solver.rules.position import Position

NUM_ACTIONS = NKINDS + 1
AGENTS = ("player_0", "player_1")


def env(**kwargs):
    """The environment with PettingZoo's classic wrappers: an illegal move ends the game with
    reward -1 for the agent that made it, out-of-range actions and calls out of order raise."""
    game = raw_env(**kwargs)
    game = wrappers.TerminateIllegalWrapper(game, illegal_reward=-1)
    game = wrappers.AssertOutOfBoundsWrapper(game)
    return wrappers.OrderEnforcingWrapper(game)


class raw_env(AECEnv, EzPickle):  # noqa: N801 - the PettingZoo classic name
    """The unwrapped AEC environment (see the module docstring).

    `dnp` (optional) starts every game from that position instead of a deal; whatever it
    leaves unknown (a `?` hand, the deck, the removed cards) is dealt at random from the
    cards it does not show, at each reset.
    """

    metadata = {"render_modes": ["ansi"], "name": "district_noir_v0", "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, render_mode: str | None = None, dnp: str | None = None):
        EzPickle.__init__(self, render_mode, dnp)
        super().__init__()
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode: {render_mode!r} is not supported (use 'ansi' or None)")
        self.render_mode = render_mode
        try:
            self.start = Position.parse(dnp) if dnp else None
        except ValueError as e:
            raise ValueError(f"dnp: {e}") from None
        if self.start is not None and self.start.is_over:
            raise ValueError("dnp: the game is over in this position; give one with a move to make")
        self.possible_agents = list(AGENTS)
        self.agents = list(AGENTS)
        observation = spaces.Dict({
            "observation": spaces.Box(low=0.0, high=float(MAX_VALUE), shape=(OBSERVATION_SIZE,), dtype=np.float32),
            "action_mask": spaces.Box(low=0, high=1, shape=(NUM_ACTIONS,), dtype=np.int8),
        })
        self.observation_spaces = {agent: observation for agent in AGENTS}
        self.action_spaces = {agent: spaces.Discrete(NUM_ACTIONS) for agent in AGENTS}
        self._rng = random.Random()
        self.position: Position | None = None

    def observation_space(self, agent):
        """The Dict space of `observation` and `action_mask`."""
        return self.observation_spaces[agent]

    def action_space(self, agent):
        """Discrete(12): plays of the 11 kinds, then the take."""
        return self.action_spaces[agent]

    def reset(self, seed=None, options=None):
        """Start a new game; the same seed gives the same deal."""
        if seed is not None:
            self._rng = random.Random(seed)
        self.position = self._deal()
        self.agents = list(AGENTS)
        self.rewards = {agent: 0 for agent in AGENTS}
        self._cumulative_rewards = {agent: 0 for agent in AGENTS}
        self.terminations = {agent: False for agent in AGENTS}
        self.truncations = {agent: False for agent in AGENTS}
        self.infos = {agent: {} for agent in AGENTS}
        self.agent_selection = AGENTS[self.position.to_move]
        self._legal = [m.index for m in self.position.legal_moves()]

    def _deal(self) -> Position:
        if self.start is None:
            return Position.random_deal(self._rng.getrandbits(53))
        return fill_hidden(self.start, self._rng)

    def view(self, agent: str) -> Position:
        """The position as `agent` sees it (what `solver.agents.bots` bots take)."""
        return self.position.view(AGENTS.index(agent))

    def observe(self, agent):
        """{'observation': what `agent` sees, 'action_mask': its legal moves (zeros if not its turn)}."""
        mask = np.zeros(NUM_ACTIONS, np.int8)
        if agent == self.agent_selection and not self.position.is_over:
            mask[self._legal] = 1
        return {"observation": encode_view(self.position, AGENTS.index(agent)), "action_mask": mask}

    def step(self, action):
        """Play `action` for the agent to move; rewards come when the game ends."""
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        action = int(action)
        if action not in self._legal:
            raise ValueError(f"action {action} is not legal for {agent} (legal: {self._legal})")
        self._cumulative_rewards[agent] = 0
        self.position = self.position.play(Move(action))
        if self.position.is_over:
            winner = self.position.result().winner
            for i, name in enumerate(AGENTS):
                self.rewards[name] = 0 if winner == "draw" else (1 if winner == "ab"[i] else -1)
            self.terminations = {name: True for name in AGENTS}
            self._legal = []
            self.agent_selection = AGENTS[1 - AGENTS.index(agent)]
        else:
            self._legal = [m.index for m in self.position.legal_moves()]
            self.agent_selection = AGENTS[self.position.to_move]
        self._accumulate_rewards()

    def render(self):
        """The board as text (render_mode 'ansi'); None, with a warning, without a render mode."""
        if self.render_mode is None:
            import gymnasium

            gymnasium.logger.warn("render() called without a render_mode (use render_mode='ansi')")
            return None
        return render_board(self.position)

    def close(self):
        """Nothing to release."""


def fill_hidden(start: Position, rng: random.Random) -> Position:
    """`start` with its unknown hands, deck and removed cards dealt at random from the cards
    it does not show (a uniformly random completion)."""
    pool = list(COMPOSITION)
    known = list(start.line) + list(start.deck or ()) + list(start.removed or ())
    for counts in list(start.colls) + [h for h in start.hands if h is not None]:
        known += [k for k in range(NKINDS) for _ in range(counts[k])]
    for k in known:
        pool[k] -= 1
    cards = [k for k in range(NKINDS) for _ in range(pool[k])]
    rng.shuffle(cards)
    hands = []
    for hand, size in zip(start.hands, start.hand_sizes):
        if hand is None:
            hand = tuple(cards[:size].count(k) for k in range(NKINDS))
            del cards[:size]
        hands.append(hand)
    deck = start.deck
    if deck is None:
        deck, cards = tuple(cards[:deck_size(start.round)]), cards[deck_size(start.round):]
    removed = start.removed if start.removed is not None else tuple(sorted(cards))
    return Position(line=start.line, hands=tuple(hands), hand_sizes=start.hand_sizes, colls=start.colls,
                    round=start.round, to_move=start.to_move, taken=start.taken, deck=tuple(deck),
                    removed=tuple(removed))


class BotOpponent:
    """A `solver.agents.bots` bot as a PettingZoo policy: `act(env)` is its move for the agent to move.

    >>> from solver.interfaces.pettingzoo import env
    >>> game = env()
    >>> game.reset(seed=3)
    >>> opponent = BotOpponent("greedy", seed=1)
    >>> 0 <= opponent.act(game) < 12
    True
    """

    def __init__(self, spec: str = "greedy", seed: int = 0):
        self.bot = make_bot(spec, seed=seed)

    def act(self, environment) -> int:
        """The bot's move for `environment.agent_selection`, from that agent's view only."""
        game = environment.unwrapped
        return self.bot.choose(game.view(game.agent_selection)).index


def play_against(environment, policy, bot: BotOpponent, agent: str = "player_0", seed: int | None = None) -> float:
    """Play one game: `policy(observation) -> action` plays `agent`, `bot` the other seat.
    Returns `agent`'s final reward (1, 0 or -1).

    >>> from solver.interfaces.pettingzoo import env
    >>> first_legal = lambda obs: int(obs["action_mask"].argmax())
    >>> play_against(env(), first_legal, BotOpponent("random", seed=2), seed=5) in (-1, 0, 1)
    True
    """
    environment.reset(seed=seed)
    reward = 0.0
    for name in environment.agent_iter():
        observation, r, termination, truncation, _ = environment.last()
        if name == agent:
            reward = r
        if termination or truncation:
            environment.step(None)
        elif name == agent:
            environment.step(policy(observation))
        else:
            environment.step(bot.act(environment))
    return reward
