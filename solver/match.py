"""Running many games: duplicate matches and round robins, in parallel or on a Dask cluster.

A job is one game: pairing (X, Y), duplicate pair k (deal number k of the run's seed) and
game 0 (X plays a) or 1 (X plays b). Jobs run in worker processes on this machine, or on
a Dask distributed cluster given its scheduler address; either way the same seed gives
the same deals and, for bots with a fixed number of iterations, the same games.

Every finished game is handed to the caller at once (to be written to the output file),
so an interrupted run loses nothing finished; `done_keys` of an earlier output lets a run
resume where it stopped.

>>> jobs = make_jobs([("greedy", "random")], pairs=2, seed=1)
>>> [(j.pair, j.game, j.specs) for j in jobs]
[(0, 0, ('greedy', 'random')), (0, 1, ('random', 'greedy')), (1, 0, ('greedy', 'random')), (1, 1, ('random', 'greedy'))]
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from .arena import play_game, score_for
from .jsonl import read_jsonl
from .parallel import run_tasks
from .position import Position
from .search import thread_seed
from .stats import ScoreSummary, score_summary


@dataclass(frozen=True)
class GameJob:
    """One game to play: everything a worker needs, and the key that identifies its record."""

    x: str
    y: str
    pair: int
    game: int
    seed: int
    movetime_ms: int | None = None
    iterations: int | None = None

    @property
    def specs(self) -> tuple[str, str]:
        """(player a, player b): X plays a in game 0 and b in game 1."""
        return (self.x, self.y) if self.game == 0 else (self.y, self.x)

    @property
    def key(self) -> tuple:
        """What identifies this game's record in an output file (see `record_key`)."""
        return (self.x, self.y, self.seed, self.pair, self.game)


def record_key(record: dict) -> tuple:
    """The key of the job that produced `record` (see GameJob.key)."""
    x, y = record["pairing"]
    return (x, y, record["match_seed"], record["pair"], record["game"])


def make_jobs(pairings: Iterable[tuple[str, str]], pairs: int, seed: int = 0, movetime_ms: int | None = None,
              iterations: int | None = None, done: set | None = None) -> list[GameJob]:
    """Every game of `pairs` duplicate pairs for each pairing, less those whose key is in `done`."""
    jobs = []
    for x, y in pairings:
        for k in range(pairs):
            for g in (0, 1):
                job = GameJob(x, y, k, g, seed, movetime_ms, iterations)
                if not done or job.key not in done:
                    jobs.append(job)
    return jobs


def play_job(job: GameJob) -> dict:
    """Play one job's game and return its record (run in a worker)."""
    deal = Position.random_deal(thread_seed(job.seed, job.pair))
    record = play_game(deal, job.specs, seed=thread_seed(job.seed, 2 * job.pair + job.game + 1),
                       movetime_ms=job.movetime_ms, iterations=job.iterations)
    record.update(pairing=[job.x, job.y], pair=job.pair, game=job.game, match_seed=job.seed)
    return record


def run_jobs(jobs: list[GameJob], workers: int = 1, scheduler: str | None = None) -> Iterator[dict]:
    """Play the jobs and yield each record as soon as its game ends (in completion order).

    `scheduler` ('tcp://host:port') runs them on a Dask cluster; otherwise `workers`
    processes (1: in this process). Closing the generator cancels the games not started.
    """
    return run_tasks(play_job, jobs, workers=workers, scheduler=scheduler)


# -- reading and summarising records -------------------------------------------------

def read_records(path, on_bad_line: Callable[[int, str], None] | None = None) -> list[dict]:
    """The game records of a JSONL file; a bad line (e.g. cut by a crash) is reported and skipped."""
    from .records import MATCH_FIELDS, check_record
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

    def to_dict(self) -> dict:
        """The JSON form, as `dnoir match --json` prints it."""
        s = self.summary
        return dict(x=self.x, y=self.y, games=self.games, wins=self.wins, draws=self.draws, losses=self.losses,
                    score=s.score, score_low=s.low, score_high=s.high, units=s.units,
                    elo=_finite(s.elo), elo_low=_finite(s.elo_low), elo_high=_finite(s.elo_high),
                    mean_margin=self.margin, city_wins=dict(x=self.city_wins[0], y=self.city_wins[1]),
                    faults=self.faults)


def _finite(value: float):
    """JSON has no infinity: an Elo of a perfect score is written as the string 'inf' or '-inf'."""
    return value if abs(value) != float("inf") else ("inf" if value > 0 else "-inf")


def unit_scores(records: list[dict]) -> list[float]:
    """X's score per unit: the mean of both games of a complete pair, or a lone game.

    `records` are those of one pairing with X first; X plays a in game 0, b in game 1.
    """
    by_pair: dict[tuple, list[float]] = {}
    for r in records:
        seat = "a" if r["game"] == 0 else "b"
        by_pair.setdefault((r["match_seed"], r["pair"]), []).append(score_for(r, seat))
    return [sum(v) / len(v) for v in by_pair.values()]


def summarise(records: list[dict], x: str, y: str) -> PairingSummary:
    """Wins, draws, losses, score interval, Elo, margin, city wins and faults of X against Y."""
    mine = [r for r in records if r["pairing"] == [x, y]]
    wins = draws = losses = 0
    margin = 0.0
    cities = [0, 0]
    faults = {"x": {"timeout": 0, "illegal": 0, "crash": 0}, "y": {"timeout": 0, "illegal": 0, "crash": 0}}
    for r in mine:
        seat = "a" if r["game"] == 0 else "b"
        other = "b" if seat == "a" else "a"
        s = score_for(r, seat)
        wins += s == 1.0
        draws += s == 0.5
        losses += s == 0.0
        scores = r["result"]["scores"]
        margin += scores[seat]["total"] - scores[other]["total"]
        if r["result"]["how"] == "city":
            cities[0 if r["result"]["winner"] == seat else 1] += 1
        if "fault" in r:
            who = "x" if r["fault"]["player"] == seat else "y"
            faults[who][r["fault"]["kind"]] += 1
    return PairingSummary(x=x, y=y, games=len(mine), wins=wins, draws=draws, losses=losses,
                          summary=score_summary(unit_scores(mine)),
                          margin=margin / len(mine) if mine else 0.0, city_wins=tuple(cities), faults=faults)
