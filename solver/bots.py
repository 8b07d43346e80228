"""Players with one interface, so arenas and benchmarks treat them alike.

Every bot has `choose(view) -> Move`, where `view` is the position as the bot's side sees
it (its own hand known), and `new_game()`. Bots are named by specs such as `random`,
`greedy`, `pimc:worlds=50`, `ismcts:iterations=2000` or `ismcts:time=0.1,threads=1`;
`make_bot(spec, seed)` builds one. A bot's own randomness comes from its seed, so the same
seed and the same sequence of positions give the same moves.

>>> bot = make_bot("pimc:worlds=20", seed=1)
>>> pos = Position.random_deal(5)
>>> str(bot.choose(pos.view("ab"[pos.to_move]))) in {str(m) for m in pos.legal_moves()}
True
"""

from __future__ import annotations

import random

from ._ismcts import POLICY_NAMES
from ._pimc import flat_values
from .cards import Move
from .position import Position
from .search import DEFAULT_EXPLORATION, DEFAULT_POLICY, advise, thread_seed


class Bot:
    """The bot interface: `choose(view) -> Move` for the side to move of `view`."""

    name = "bot"

    def __init__(self, seed: int = 0):
        self.seed = seed
        self.rng = random.Random(seed)

    def new_game(self) -> None:
        """Forget anything kept between moves (nothing, for the bots here)."""

    def choose(self, view: Position) -> Move:  # pragma: no cover - interface
        raise NotImplementedError

    def _next_seed(self) -> int:
        return self.rng.getrandbits(63)

    def __repr__(self) -> str:
        return self.name


class RandomBot(Bot):
    """Uniform over the distinct legal moves."""

    name = "random"

    def choose(self, view: Position) -> Move:
        return self.rng.choice(view.legal_moves())


class GreedyBot(Bot):
    """The cheap heuristic of ext/policy.pxd: take when the reachable cards are worth it,
    otherwise give away the card worth least to the opponent."""

    name = "greedy"

    def choose(self, view: Position) -> Move:
        return Move(view._core().greedy_move())


class PimcBot(Bot):
    """Flat Monte Carlo: every legal move tried in `worlds` sampled worlds, finished by playouts."""

    def __init__(self, seed: int = 0, worlds: int = 50, policy: str = DEFAULT_POLICY):
        super().__init__(seed)
        self.worlds = int(worlds)
        self.policy = _policy(policy)
        self.name = f"pimc:worlds={self.worlds}"

    def choose(self, view: Position) -> Move:
        values = flat_values(view._core().to_bytes(), view.to_move, self.worlds,
                             seed=self._next_seed(), policy=self.policy)
        best = max(values, key=lambda m: (values[m][0], values[m][1]))
        return Move(best)


class IsmctsBot(Bot):
    """`advise` with a fixed budget: `iterations` per move, or `time` seconds per move."""

    def __init__(self, seed: int = 0, iterations: int | None = None, time: float | None = None,
                 threads: int = 1, policy: str = DEFAULT_POLICY, exploration: float = DEFAULT_EXPLORATION):
        super().__init__(seed)
        if iterations is None and time is None:
            iterations = 2000
        self.iterations = int(iterations) if iterations is not None else None
        self.time = float(time) if time is not None else None
        self.threads = int(threads)
        self.policy = _policy(policy)
        self.exploration = float(exploration)
        budget = f"iterations={self.iterations}" if self.iterations is not None else f"time={self.time}"
        self.name = f"ismcts:{budget}"

    def choose(self, view: Position, seconds: float | None = None) -> Move:
        """The advised move; `seconds` overrides the bot's own budget (the engine's movetime)."""
        iterations = None if seconds is not None else self.iterations
        advice = advise(view, seconds=seconds if seconds is not None else self.time, iterations=iterations,
                        threads=self.threads, seed=self._next_seed(), policy=self.policy,
                        exploration=self.exploration)
        return Move.parse(advice.best)


def _policy(name: str) -> str:
    if name not in POLICY_NAMES:
        raise ValueError(f"unknown playout policy {name!r} (one of {', '.join(POLICY_NAMES)})")
    return name


BOTS = {"random": RandomBot, "greedy": GreedyBot, "pimc": PimcBot, "ismcts": IsmctsBot}


def parse_spec(spec: str) -> tuple[str, dict]:
    """('name', {param: value}) of a spec such as 'ismcts:iterations=2000,threads=1'.

    >>> parse_spec("pimc:worlds=50")
    ('pimc', {'worlds': '50'})
    """
    name, _, rest = spec.strip().partition(":")
    if name not in BOTS:
        raise ValueError(f"unknown bot {name!r} (one of {', '.join(BOTS)})")
    params = {}
    for item in filter(None, rest.split(",")):
        key, eq, value = item.partition("=")
        if not eq or not key:
            raise ValueError(f"bad bot parameter {item!r} in {spec!r} (use key=value)")
        params[key.strip()] = value.strip()
    return name, params


def make_bot(spec: str, seed: int = 0) -> Bot:
    """A bot from its spec; ValueError names what is wrong with a bad one."""
    name, params = parse_spec(spec)
    if "seed" in params:
        seed = int(params.pop("seed"))
    try:
        return BOTS[name](seed=thread_seed(seed, 0), **params)
    except TypeError as e:
        raise ValueError(f"bad parameters for {name}: {e}") from None
    except ValueError as e:
        raise ValueError(f"bad parameter value in {spec!r}: {e}") from None
