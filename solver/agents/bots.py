"""Players with one interface, so arenas and benchmarks treat them alike.

Every bot has `choose(view) -> Move`, where `view` is the position as the bot's side sees
it (its own hand known), and `new_game()`. Bots are named by specs such as `random`,
`greedy`, `pimc:worlds=50`, `ismcts:iterations=2000` or `ismcts:time=0.1,threads=1`;
`make_bot(spec, seed)` builds one. A bot's own randomness comes from its seed, so the same
seed and the same sequence of positions give the same moves.

Each bot declares the keys its spec takes, with their type and range (`KEYS`); a spec is
checked whole (`check_spec`, `parse_spec`) before any game is played, and a bad one is one
`SpecError` naming the key, the keys accepted and the range.

>>> bot = make_bot("pimc:worlds=20", seed=1)
>>> pos = Position.random_deal(5)
>>> str(bot.choose(pos.view("ab"[pos.to_move]))) in {str(m) for m in pos.legal_moves()}
True
"""

from __future__ import annotations

import random
import threading
from contextlib import contextmanager
from dataclasses import dataclass

from solver.base.bounds import (
    MAX_EXPLORATION,
    MAX_ITERATIONS,
    MAX_MODEL_TEMPERATURE,
    MAX_SECONDS,
    MAX_SEED,
    MAX_THREADS,
    MAX_TREE_ROUNDS,
    MAX_WORLDS,
    MIN_MODEL_TEMPERATURE,
    MIN_SECONDS,
    real,
    whole,
)
from solver.base.seeds import thread_seed
from solver.errors import ArgumentError, SpecError
from solver.rules.cards import Move
from solver.rules.position import Position
from solver.solvers._ismcts import MAX_HAND_PRIOR, MAX_POLY_BONUS, POLICY_NAMES
from solver.solvers._pimc import flat_values
from solver.solvers.limit import Limit
from solver.solvers.search import DEFAULT_POLICY, KeptTree, advise
from solver.solvers.searchconfig import OPTIONS, PRESETS, from_options


@dataclass(frozen=True)
class Key:
    """One key of a bot spec: its type ('whole', 'real' or 'choice') and range or choices."""

    kind: str
    low: float = 0
    high: float = 0
    choices: tuple[str, ...] = ()

    def read(self, name: str, value):
        """`value` (the spec's text, or a number from the API) checked; SpecError names `name`."""
        try:
            if self.kind == "whole":
                return whole(name, value, self.low, self.high)
            if self.kind == "real":
                return real(name, value, self.low, self.high)
        except ValueError as e:
            raise SpecError(str(e)) from None
        if value not in self.choices:
            raise SpecError(f"{name}: {str(value)[:40]!r} is not one of {', '.join(self.choices)}")
        return value

    def describe(self) -> str:
        """The range or choices, as error messages show them."""
        if self.kind == "choice":
            return "|".join(self.choices)
        return f"{self.low:g} to {self.high:g}" if self.kind == "real" else f"{self.low} to {self.high}"


SEED = Key("whole", 0, MAX_SEED)
# The seed a bot is built with: a spec's seed, or one derived by thread_seed (64 bits).
BOT_SEED = Key("whole", 0, 2**64 - 1)
POLICY = Key("choice", choices=tuple(POLICY_NAMES))


class Bot:
    """The bot interface: `choose(view) -> Move` for the side to move of `view`.

    `KEYS` are the spec keys the bot takes (every bot takes `seed`), each with its range.
    """

    name = "bot"
    KEYS: dict[str, Key] = {"seed": SEED}
    TAKES_LIMIT = False  # True for a bot that searches within a budget (a `limit`)

    def __init__(self, seed: int = 0):
        self.seed = BOT_SEED.read("seed", seed)
        self.rng = random.Random(seed)

    @classmethod
    def check_together(cls, values: dict) -> None:
        """SpecError when the spec's keys, each in range (`values`, as check_spec read them),
        cannot go together; nothing for the bots here whose keys are independent."""

    def new_game(self) -> None:
        """Forget anything kept between moves (nothing, for the bots here)."""

    @contextmanager
    def pondering(self):
        """While the opponent thinks (`with bot.pondering(): ...`): a bot that ponders searches
        on its last move in another thread until the block ends; the others do nothing."""
        yield

    def choose(self, view: Position, *, stop=None) -> Move:  # pragma: no cover - interface
        """The move for `view` (the mover's view). `stop` (a threading.Event, or a callable that
        returns True to stop) ends a search early, the answer then the best so far; bots that
        answer at once ignore it."""
        raise NotImplementedError

    def _next_seed(self) -> int:
        return self.rng.getrandbits(63)

    def __repr__(self) -> str:
        return self.name


class RandomBot(Bot):
    """Uniform over the distinct legal moves."""

    name = "random"

    def choose(self, view: Position, *, stop=None) -> Move:
        return self.rng.choice(view.legal_moves())


class GreedyBot(Bot):
    """The cheap heuristic of ext/policy.pxd: take when the reachable cards are worth it,
    otherwise give away the card worth least to the opponent."""

    name = "greedy"

    def choose(self, view: Position, *, stop=None) -> Move:
        return Move(view.core.greedy_move())


class PimcBot(Bot):
    """Flat Monte Carlo: every legal move tried in `worlds` sampled worlds, finished by playouts."""

    KEYS = {"worlds": Key("whole", 1, MAX_WORLDS), "policy": POLICY, "seed": SEED}

    def __init__(self, seed: int = 0, worlds: int = 50, policy: str = DEFAULT_POLICY):
        super().__init__(seed)
        self.worlds = self.KEYS["worlds"].read("worlds", worlds)
        self.policy = POLICY.read("policy", policy)
        self.name = f"pimc:worlds={self.worlds}"

    def choose(self, view: Position, *, stop=None) -> Move:
        values = flat_values(view.core, view.to_move, self.worlds,
                             seed=self._next_seed(), policy=str(self.policy))  # the compiled code takes a plain str
        best = max(values, key=lambda m: (values[m][0], values[m][1]))
        return Move(best)


class IsmctsBot(Bot):
    """`advise` within a fixed budget a move: the spec's `iterations` and/or `time` (seconds),
    else `limit`, else DEFAULT_LIMIT (2000 iterations).

    >>> IsmctsBot(time=0.25).limit == Limit(seconds=0.25)
    True
    """

    KEYS = {"iterations": Key("whole", 1, MAX_ITERATIONS), "time": Key("real", MIN_SECONDS, MAX_SECONDS),
            "threads": Key("whole", 1, MAX_THREADS), "search": Key("choice", choices=tuple(PRESETS)),
            "policy": POLICY, "exploration": Key("real", 0.0, MAX_EXPLORATION),
            "opponent_exploration": Key("real", 0.0, MAX_EXPLORATION),
            "root_exploration": Key("real", 0.0, MAX_EXPLORATION),
            "round4_exploration": Key("real", 0.0, MAX_EXPLORATION), "poly_bonus": Key("real", 0.0, MAX_POLY_BONUS),
            "margin": Key("real", 0.0, 1.0), "take_margin": Key("real", 0.0, 1.0),
            "tuned": Key("whole", 0, 1), "opponent_hands": Key("real", 0.0, MAX_HAND_PRIOR),
            "reuse": Key("whole", 0, 1), "tree_rounds": Key("whole", 0, MAX_TREE_ROUNDS),
            "settled_stop": Key("whole", 0, 1), "round_model": Key("whole", 0, 1),
            "hand_bandit": Key("whole", 0, 1),
            "model_temperature": Key("real", MIN_MODEL_TEMPERATURE, MAX_MODEL_TEMPERATURE),
            "third_city": Key("whole", 0, 1), "ponder": Key("whole", 0, 1), "seed": SEED}
    TAKES_LIMIT = True
    DEFAULT_LIMIT = Limit(iterations=2000)

    def __init__(self, seed: int = 0, iterations: int | None = None, time: float | None = None,
                 threads: int = 1, search: str = "default", policy: str | None = None,
                 exploration: float | None = None, opponent_exploration: float | None = None,
                 root_exploration: float | None = None, round4_exploration: float | None = None,
                 poly_bonus: float | None = None, margin: float | None = None, take_margin: float | None = None,
                 tuned: int | None = None,
                 opponent_hands: float | None = None,
                 reuse: int | None = None, tree_rounds: int | None = None, settled_stop: int | None = None,
                 round_model: int | None = None, hand_bandit: int | None = None,
                 model_temperature: float | None = None, third_city: int | None = None, ponder: int = 0,
                 limit: Limit | None = None):
        super().__init__(seed)
        keys = self.KEYS
        iterations = keys["iterations"].read("iterations", iterations) if iterations is not None else None
        time = keys["time"].read("time", time) if time is not None else None
        self.limit = Limit.given(seconds=time, iterations=iterations) or limit or self.DEFAULT_LIMIT
        if self.limit.infinite:
            raise SpecError("an ISMCTS bot needs a finite limit (iterations, time or both)")
        self.threads = keys["threads"].read("threads", threads)
        given = dict(policy=policy, exploration=exploration, opponent_exploration=opponent_exploration,
                     root_exploration=root_exploration, round4_exploration=round4_exploration,
                     poly_bonus=poly_bonus, margin=margin, take_margin=take_margin, tuned=tuned,
                     opponent_hands=opponent_hands, reuse=reuse,
                     tree_rounds=tree_rounds, settled_stop=settled_stop, round_model=round_model,
                     hand_bandit=hand_bandit, model_temperature=model_temperature, third_city=third_city)
        settings = {name: keys[name].read(name, value) for name, value in given.items() if value is not None}
        self.config = self._config(keys["search"].read("search", search), settings)
        self.name = f"ismcts:{spec_budget(self.limit)}"
        self.kept = KeptTree()  # the last move's trees, for the next (config.reuse)
        # think on the opponent's time (`pondering`): the kept trees are searched on while it thinks
        self.ponder = bool(keys["ponder"].read("ponder", ponder)) and self.config.reuse

    @staticmethod
    def _config(search: str, settings: dict):
        try:
            return from_options(search, **settings)
        except ArgumentError as e:  # e.g. the margin term with the round-end model
            raise SpecError(f"bad parameters for ismcts: {e}") from None

    @classmethod
    def check_together(cls, values: dict) -> None:
        """The settings as one search configuration: a combination the search refuses (the margin
        term or UCB1-Tuned with the round-end model of the default) is a SpecError before any game.

        >>> IsmctsBot.check_together({"margin": 0.2})
        Traceback (most recent call last):
        ...
        solver.errors.SpecError: bad parameters for ismcts: round_model: the margin term and UCB1-Tuned need played-out games, which the round-end model does not play (turn it off: --no-round-model, round_model=0)
        """
        cls._config(values.get("search", "default"), {k: v for k, v in values.items() if k in OPTIONS})

    def new_game(self) -> None:
        """Forget the trees kept from the last game."""
        self.kept.clear()

    @contextmanager
    def pondering(self):
        """With the spec's `ponder=1`: search on below the last move given (KeptTree.ponder) in
        another thread while the block runs (the opponent thinks); the next `choose` keeps what
        went below the opponent's actual reply. What it then answers depends on how long the
        opponent thought, so a game with pondering is not reproducible by seed."""
        if not self.ponder:
            yield
            return
        stop = threading.Event()
        thinker = threading.Thread(target=self.kept.ponder, args=(stop,), name="dnoir-ponder", daemon=True)
        thinker.start()
        try:
            yield
        finally:
            stop.set()
            thinker.join()

    def choose(self, view: Position, limit: Limit | None = None, *, stop=None) -> Move:
        """The advised move; `limit` replaces the bot's own budget for this move, and `stop` (an
        Event or a callable, as `advise` takes it) ends the search early with its best move so
        far (the web server's, when the player who waits for the move has gone)."""
        advice = advise(view, limit or self.limit, threads=self.threads, seed=self._next_seed(),
                        config=self.config, kept=self.kept, stop=stop)
        return Move.parse(advice.best)


def spec_budget(limit: Limit) -> str:
    """A finite limit as the keys of a bot spec.

    >>> spec_budget(Limit(seconds=0.1, iterations=2000))
    'iterations=2000,time=0.1'
    """
    keys = [f"iterations={limit.iterations}"] if limit.iterations is not None else []
    if limit.seconds is not None:
        keys.append(f"time={limit.seconds}")  # as repr: the spec reads back the same number
    return ",".join(keys)


BOTS = {"random": RandomBot, "greedy": GreedyBot, "pimc": PimcBot, "ismcts": IsmctsBot}


def _split(spec) -> tuple[str, dict[str, str]]:
    """('name', {key: text}) of a spec, checked for form (a known bot, key=value items, no
    key twice) but not yet for its keys and values."""
    if not isinstance(spec, str):
        raise SpecError(f"a bot spec is text such as 'ismcts:iterations=2000', not {spec!r:.40}")
    name, _, rest = spec.strip().partition(":")
    if name not in BOTS:
        raise SpecError(f"unknown bot {name[:40]!r} (one of {', '.join(BOTS)})")
    params = {}
    for item in filter(None, rest.split(",")):
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or not key:
            raise SpecError(f"bad bot parameter {item[:40]!r} in {spec[:80]!r} (use key=value)")
        if key in params:
            raise SpecError(f"bad bot parameter {key[:40]!r} in {spec[:80]!r}: given twice")
        params[key] = value.strip()
    return name, params


def check_spec(spec: str) -> tuple[str, dict]:
    """('name', {key: value}) of a spec with every key known and every value converted and in
    range; SpecError (a ValueError) names the key, the keys the bot takes and the range.

    >>> check_spec("ismcts:iterations=2000,time=0.5")
    ('ismcts', {'iterations': 2000, 'time': 0.5})
    >>> check_spec("ismcts:iteration=100")
    Traceback (most recent call last):
    ...
    solver.errors.SpecError: bad parameter 'iteration' for ismcts: not a key it takes (iterations=1 to 1000000000, time=0.001 to 86400, threads=1 to 256, search=default|66bbc8c|5e7c200|29c04e6|7d9ffe8|388581d, policy=random|greedy|taker|guard, exploration=0 to 100, opponent_exploration=0 to 100, root_exploration=0 to 100, round4_exploration=0 to 100, poly_bonus=0 to 10, margin=0 to 1, take_margin=0 to 1, tuned=0 to 1, opponent_hands=0 to 1000, reuse=0 to 1, tree_rounds=0 to 4, settled_stop=0 to 1, round_model=0 to 1, hand_bandit=0 to 1, model_temperature=0.1 to 10, third_city=0 to 1, ponder=0 to 1, seed=0 to 9007199254740991)
    """
    name, params = _split(spec)
    keys = BOTS[name].KEYS
    values = {}
    for key, text in params.items():
        if key not in keys:
            accepted = ", ".join(f"{k}={keys[k].describe()}" for k in keys)
            raise SpecError(f"bad parameter {key[:40]!r} for {name}: not a key it takes ({accepted})")
        try:
            values[key] = keys[key].read(key, text)
        except SpecError as e:
            raise SpecError(f"bad parameter value in {spec[:80]!r}: {e}") from None
    BOTS[name].check_together(values)
    return name, values


def parse_spec(spec: str) -> tuple[str, dict]:
    """('name', {key: text as written}) of a spec such as 'ismcts:iterations=2000,threads=1',
    after the full check of `check_spec` (keys and values): a spec it accepts builds a bot.

    >>> parse_spec("pimc:worlds=50")
    ('pimc', {'worlds': '50'})
    """
    check_spec(spec)
    return _split(spec)


def make_bot(spec: str, seed: int = 0, limit: Limit | None = None) -> Bot:
    """A bot from its spec; SpecError (a ValueError) names what is wrong with a bad one.

    A `seed` key in the spec replaces the `seed` argument. `limit` is the budget of a bot
    that searches (ISMCTS) when its spec names none (`iterations=`, `time=`); other bots
    ignore it.

    >>> make_bot("ismcts", limit=Limit(seconds=0.05)).limit == make_bot("ismcts:time=0.05").limit
    True
    """
    name, params = check_spec(spec)
    if "seed" in params:
        seed = params.pop("seed")
    if limit is not None and BOTS[name].TAKES_LIMIT:
        params["limit"] = limit
    return BOTS[name](seed=thread_seed(seed, 0), **params)
