"""Running many games: duplicate matches and round robins, in parallel or on a Dask cluster.

A job is one game: pairing (X, Y), duplicate pair k (deal number k of the run's seed, or
with an opening book its position k mod N: solver.agents.book) and game 0 (X plays a) or 1
(X plays b). Jobs run in worker processes on this machine, or on
a Dask distributed cluster given its scheduler address; either way the same seed gives
the same deals and, for bots with a fixed number of iterations, the same games.

Every finished game is handed to the caller at once (to be written to the output file),
so an interrupted run loses nothing finished; `done_keys` of an earlier output lets a run
resume where it stopped.

>>> jobs = make_jobs([("greedy", "random")], pairs=2, seed=1)
>>> len(jobs), [(j.pair, j.game, j.specs) for j in jobs]
(4, [(0, 0, ('greedy', 'random')), (0, 1, ('random', 'greedy')), (1, 0, ('greedy', 'random')), (1, 1, ('random', 'greedy'))])
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from solver.agents.arena import close_engines, play_game, record_settings, score_for
from solver.agents.book import Book
from solver.agents.parallel import run_tasks
from solver.agents.stats import ScoreSummary, score_summary_from_pairs
from solver.base.bounds import MAX_PAIRS, MAX_SEED, whole
from solver.base.jsonl import read_jsonl
from solver.base.seeds import thread_seed
from solver.errors import ArgumentError
from solver.rules.position import Position
from solver.rules.records import MATCH_FIELDS, check_record
from solver.solvers.limit import Limit


@dataclass(frozen=True)
class GameJob:
    """One game to play: everything a worker needs, and the key that identifies its record."""

    x: str
    y: str
    pair: int
    game: int
    seed: int
    limit: Limit | None = None  # the budget a move of the players that do not set their own
    start: Position | None = None  # the opening book's position this pair starts from; None: a fresh deal
    book: str | None = None  # that book's digest (solver.agents.book.Book.digest)

    @property
    def specs(self) -> tuple[str, str]:
        """(player a, player b): X plays a in game 0 and b in game 1."""
        return (self.x, self.y) if self.game == 0 else (self.y, self.x)

    @property
    def key(self) -> tuple:
        """What identifies this game's record in an output file (see `record_key`)."""
        return (self.x, self.y, self.seed, *budget_key(self.limit), self.pair, self.game, self.book)


def budget_key(limit: Limit | None) -> tuple:
    """(movetime_ms, iterations) of a budget, as a game record's `settings` hold them."""
    settings = record_settings(limit)
    return settings["movetime_ms"], settings["iterations"]


def record_key(record: dict) -> tuple:
    """The key of the job that produced `record` (see GameJob.key); ValueError if it has none.

    The key holds the budgets and the opening book's digest (None without a book), so a game
    played with other budgets or from another book is another game.
    """
    pairing, settings = record["pairing"], record["settings"]
    if not (isinstance(pairing, list) and len(pairing) == 2 and all(isinstance(s, str) for s in pairing)):
        raise ValueError("'pairing' is not two specs")
    budgets = (settings["movetime_ms"], settings["iterations"])
    numbers = (record["match_seed"], record["pair"], record["game"])
    if not all(isinstance(n, int) and not isinstance(n, bool) for n in numbers) or record["game"] not in (0, 1):
        raise ValueError("'match_seed', 'pair' and 'game' must be whole numbers (game 0 or 1)")
    if not all(b is None or (isinstance(b, int) and not isinstance(b, bool)) for b in budgets):
        raise ValueError("the budgets in 'settings' must be whole numbers or null")
    book = record.get("book")
    if book is not None and not isinstance(book, str):
        raise ValueError("'book' must be a book's digest")
    return (pairing[0], pairing[1], numbers[0], *budgets, numbers[1], numbers[2], book)


class GamePlan(Sequence):
    """The games of a run, made on demand: `pairs` duplicate pairs for each pairing, less `done`.

    Nothing is stored per game, so ten million pairs cost no memory and the first game
    starts at once. Games come pair by pair (every pairing's games of pair 0, then of
    pair 1, ...), so an interrupted tournament has played every pairing about as often.
    """

    def __init__(self, pairings: Iterable[tuple[str, str]], pairs: int, seed: int = 0,
                 limit: Limit | None = None, done: Iterable = (), book: Book | None = None):
        self.pairings = [tuple(p) for p in pairings]
        self.pairs, self.seed, self.limit, self.book = pairs, seed, limit, book
        self._digest = book.digest if book is not None else None
        self._budgets = budget_key(limit)
        self._where = {p: i for i, p in enumerate(self.pairings)}
        # indices of the games already done, sorted: the rest are found around them
        self._done = sorted({i for i in map(self.index_of, done) if i is not None})
        self._done_set = set(self._done)

    @property
    def total(self) -> int:
        """Games in the whole run, done or not."""
        return 2 * len(self.pairings) * self.pairs

    def index_of(self, key: tuple) -> int | None:
        """The position in the whole run of the game with this key; None if it is not one of the run's."""
        x, y, seed, movetime_ms, iterations, pair, game, book = key
        p = self._where.get((x, y))
        if (p is None or (seed, (movetime_ms, iterations), book) != (self.seed, self._budgets, self._digest)
                or not 0 <= pair < self.pairs or game not in (0, 1)):
            return None
        return (pair * len(self.pairings) + p) * 2 + game

    def __contains__(self, key) -> bool:
        """True if `key` (a record key) is a game of the whole run, done or not."""
        return isinstance(key, tuple) and len(key) == 8 and self.index_of(key) is not None

    def _job(self, index: int) -> GameJob:
        rest, game = divmod(index, 2)
        pair, p = divmod(rest, len(self.pairings))
        x, y = self.pairings[p]
        if self.book is None:
            return GameJob(x, y, pair, game, self.seed, self.limit)
        return GameJob(x, y, pair, game, self.seed, self.limit, self.book.start(pair), self.book.digest)

    def __len__(self) -> int:
        return self.total - len(self._done)

    def __getitem__(self, k):
        if isinstance(k, slice):
            return [self[i] for i in range(*k.indices(len(self)))]
        if k < 0:
            k += len(self)
        if not 0 <= k < len(self):
            raise IndexError("game index out of range")
        index = k  # the k-th game not done: skip the done games at or before it
        while True:
            skipped = bisect.bisect_right(self._done, index)
            if index - skipped == k and index not in self._done_set:
                return self._job(index)
            index = k + skipped

    def __iter__(self) -> Iterator[GameJob]:
        for index in range(self.total):
            if index not in self._done_set:
                yield self._job(index)


def make_jobs(pairings: Iterable[tuple[str, str]], pairs: int, seed: int = 0, limit: Limit | None = None,
              done: Iterable | None = None, book: Book | None = None) -> GamePlan:
    """Every game of `pairs` duplicate pairs for each pairing, less those whose key is in `done`.

    `limit` is the budget a move of the players that do not set their own (see
    solver.agents.arena.make_player); `book` the positions the pairs start from (None: a fresh
    deal each pair, from `seed`). The games are made lazily (see GamePlan): any number of
    pairs starts at once.
    """
    try:
        pairs = whole("pairs", pairs, 1, MAX_PAIRS)
        seed = whole("seed", seed, 0, MAX_SEED)
    except ValueError as e:
        raise ArgumentError(f"make_jobs: {e}") from None
    return GamePlan(pairings, pairs, seed, limit, done or (), book)


def play_job(job: GameJob) -> dict:
    """Play one job's game and return its record (run in a worker)."""
    # 53 bits (the seed range of `random_deal` and of the CLI): the seeds are written in the
    # record, stay exact in any JSON reader, and `dnoir play --seed DEAL_SEED` deals the same cards
    deal_seed = thread_seed(job.seed, job.pair) >> 11
    start = Position.random_deal(deal_seed) if job.start is None else job.start
    record = play_game(start, job.specs, seed=thread_seed(job.seed, 2 * job.pair + job.game + 1) >> 11,
                       limit=job.limit)
    record.update(pairing=[job.x, job.y], pair=job.pair, game=job.game, match_seed=job.seed)
    if job.start is None:
        record.update(deal_seed=deal_seed)
    else:  # the start is the book's position, named by the book's digest (and the record's `deal`)
        record.update(book=job.book)
    return record


def run_jobs(jobs: Iterable[GameJob], workers: int = 1, scheduler: str | None = None) -> Iterator[dict]:
    """Play the jobs and yield each record as soon as its game ends (in completion order).

    `scheduler` ('tcp://host:port') runs them on a Dask cluster; otherwise `workers`
    processes (1: in this process). `jobs` may be lazy (a GamePlan): only a few are drawn
    ahead. Closing the generator cancels the games not started; every worker stops the
    external engines it started when it ends.
    """
    return run_tasks(play_job, jobs, workers=workers, scheduler=scheduler, at_exit=close_engines)


# -- reading and summarising records -------------------------------------------------

def read_records(path, on_bad_line: Callable[[int, str], None] | None = None) -> list[dict]:
    """The game records of a JSONL file; a bad line (e.g. cut by a crash) is reported and skipped."""
    return read_jsonl(path, on_bad_line, check=lambda record: record_key(check_record(record, MATCH_FIELDS)))


@dataclass(frozen=True)
class PairingSummary:
    """X's results against Y over the records of one pairing."""

    x: str
    y: str
    games: int
    wins: int
    draws: int
    losses: int
    summary: ScoreSummary
    margin: float
    city_wins: tuple[int, int]
    faults: dict
    lone_games: int = 0  # games whose pair partner was not played: counted above, not in `summary`

    def to_dict(self) -> dict:
        """The JSON form, as `dnoir match --json` prints it: numbers or null, never infinities.

        `units` are the complete pairs that the score, its interval and the Elo come from;
        `pentanomial` counts them by the pair's points for X (0, 1/2, 1, 3/2, 2).
        """
        s = self.summary
        return dict(x=self.x, y=self.y, games=self.games, wins=self.wins, draws=self.draws, losses=self.losses,
                    score=s.score, score_low=s.low, score_high=s.high, units=s.units,
                    pentanomial=list(s.penta), lone_games=self.lone_games,
                    elo=s.elo, elo_low=s.elo_low, elo_high=s.elo_high, nelo=s.nelo,
                    mean_margin=self.margin, city_wins=dict(x=self.city_wins[0], y=self.city_wins[1]),
                    faults=self.faults)


class PairScores:
    """X's points pair by pair, kept as counts: the pentanomial of the complete pairs and the
    lone games whose partner has not been played (yet).

    Its memory does not grow with the games of a run, only with the pairs in progress.

    >>> scores = PairScores()
    >>> for unit, score in [((0, 0), 1.0), ((0, 1), 0.5), ((0, 0), 0.5)]:
    ...     scores.add(unit, score)
    >>> scores.penta, scores.lone, round(scores.mean(), 3)   # 1.5 points in one pair, 0.5 in a lone game
    ((0, 0, 0, 1, 0), {(0, 1): 0.5}, 0.667)
    """

    def __init__(self):
        self.counts = [0] * 5  # complete pairs by X's points in the pair: 0, 1/2, 1, 3/2, 2
        self.lone: dict[tuple, float] = {}  # (match seed, pair) -> the score of the one game played

    def add(self, unit: tuple, score: float) -> None:
        """Add X's score in one game of `unit` (match seed, pair)."""
        first = self.lone.pop(unit, None)
        if first is None:
            self.lone[unit] = score
        else:
            self.counts[round(2 * (first + score))] += 1

    @property
    def penta(self) -> tuple[int, int, int, int, int]:
        """The complete pairs by X's points in the pair (0, 1/2, 1, 3/2, 2): the statistics' unit."""
        return tuple(self.counts)

    def mean(self) -> float | None:
        """X's mean score per game over every game so far, lone ones included (None before the first)."""
        games = 2 * sum(self.counts) + len(self.lone)
        if games == 0:
            return None
        return (sum(q / 2 * c for q, c in enumerate(self.counts)) + sum(self.lone.values())) / games


class PairingTally:
    """X's results against Y, one record at a time; `summary()` gives the PairingSummary.

    Only counts are kept, so a run of any length summarises in flat memory.
    """

    def __init__(self, x: str, y: str):
        self.x, self.y = x, y
        self.games = self.wins = self.draws = self.losses = 0
        self.margin = 0.0
        self.cities = [0, 0]
        self.faults = {"x": {"timeout": 0, "illegal": 0, "crash": 0}, "y": {"timeout": 0, "illegal": 0, "crash": 0}}
        self.units = PairScores()

    def add(self, r: dict) -> None:
        """Count one record of this pairing (X plays a in game 0, b in game 1)."""
        seat = "a" if r["game"] == 0 else "b"
        other = "b" if seat == "a" else "a"
        s = score_for(r, seat)
        self.games += 1
        self.wins += s == 1.0
        self.draws += s == 0.5
        self.losses += s == 0.0
        scores = r["result"]["scores"]
        self.margin += scores[seat]["total"] - scores[other]["total"]
        if r["result"]["how"] == "city":
            self.cities[0 if r["result"]["winner"] == seat else 1] += 1
        if "fault" in r:
            who = "x" if r["fault"]["player"] == seat else "y"
            self.faults[who][r["fault"]["kind"]] += 1
        self.units.add((r["match_seed"], r["pair"]), s)

    def summary(self) -> PairingSummary:
        """Wins, draws, losses, score interval, Elo, margin, city wins and faults so far."""
        return PairingSummary(x=self.x, y=self.y, games=self.games, wins=self.wins, draws=self.draws,
                              losses=self.losses, summary=score_summary_from_pairs(self.units.penta),
                              margin=self.margin / self.games if self.games else 0.0,
                              city_wins=tuple(self.cities), faults={k: dict(v) for k, v in self.faults.items()},
                              lone_games=len(self.units.lone))


def summarise(records: Iterable[dict], x: str, y: str) -> PairingSummary:
    """Wins, draws, losses, score interval, Elo, margin, city wins and faults of X against Y."""
    tally = PairingTally(x, y)
    for r in records:
        if r["pairing"] == [x, y]:
            tally.add(r)
    return tally.summary()
