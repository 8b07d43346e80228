"""Games between bots: single games, duplicate pairs, and a match score with its interval.

A duplicate pair plays one seeded deal twice with the seats swapped, so the luck of the
deal cancels out. Each bot sees only its own view of the game. Game records are plain
dicts (one JSON object a line in files): `deal` (the full initial deal in DNP), `moves`
(tokens separated by spaces), `result`, and the players.

>>> rec = play_game(Position.random_deal(1), ("random", "greedy"), seed=1)
>>> rec["result"]["winner"] in ("a", "b", "draw"), len(rec["moves"].split()) > 12
(True, True)
"""

from __future__ import annotations

import math
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass

from .bots import make_bot
from .notation import PLAYERS
from .position import Position
from .search import thread_seed


def result_dict(pos: Position) -> dict:
    """The JSON form of a finished game's result: winner, how, both scores broken down."""
    res = pos.result()
    return dict(winner=res.winner, how=res.how,
                scores={PLAYERS[p]: asdict(s) for p, s in enumerate(res.scores)})


def play_game(deal: Position, specs: tuple[str, str], seed: int = 0) -> dict:
    """Play one game from a full deal: specs[0] plays a, specs[1] plays b."""
    bots = [make_bot(spec, seed=thread_seed(seed, p)) for p, spec in enumerate(specs)]
    pos, moves = deal, []
    while not pos.is_over:
        mover = pos.to_move
        move = bots[mover].choose(pos.view(PLAYERS[mover]))
        pos = pos.play(move)
        moves.append(str(move))
    return dict(deal=str(deal), moves=" ".join(moves), result=result_dict(pos),
                players=dict(a=specs[0], b=specs[1]), seed=seed)


def score_for(record: dict, player: str) -> float:
    """1, 1/2 or 0: the game's score for the seat `player`."""
    winner = record["result"]["winner"]
    return 0.5 if winner == "draw" else float(winner == player)


def play_pair(spec_x: str, spec_y: str, pair: int, seed: int = 0) -> list[dict]:
    """Deal number `pair` of the match seeded `seed`, played with X as a, then with X as b."""
    deal = Position.random_deal(thread_seed(seed, pair))
    return [play_game(deal, (spec_x, spec_y), seed=thread_seed(seed, 2 * pair)),
            play_game(deal, (spec_y, spec_x), seed=thread_seed(seed, 2 * pair + 1))]


@dataclass(frozen=True)
class MatchScore:
    """X's score over duplicate pairs, with a 95% interval from the spread of the pair scores."""

    pairs: int
    wins: int
    draws: int
    losses: int
    score: float
    low: float
    high: float

    def to_dict(self) -> dict:
        return asdict(self)


def match_score(pairs: list[list[dict]]) -> MatchScore:
    """Score of X over played pairs (each pair: X as a, then X as b)."""
    wins = draws = losses = 0
    pair_scores = []
    for games in pairs:
        total = 0.0
        for seat, rec in zip("ab", games):  # X sits at a in the first game, at b in the second
            s = score_for(rec, seat)
            total += s
            wins += s == 1.0
            draws += s == 0.5
            losses += s == 0.0
        pair_scores.append(total / len(games))
    n = len(pair_scores)
    mean = sum(pair_scores) / n
    var = sum((s - mean) ** 2 for s in pair_scores) / (n - 1) if n > 1 else 0.0
    half = 1.96 * math.sqrt(var / n)
    return MatchScore(pairs=n, wins=wins, draws=draws, losses=losses, score=mean,
                      low=max(0.0, mean - half), high=min(1.0, mean + half))


def _pair_job(args):
    return play_pair(*args)


def run_pairs(spec_x: str, spec_y: str, pairs: int, seed: int = 0, workers: int = 1) -> list[list[dict]]:
    """Play `pairs` duplicate pairs, in `workers` processes; the same seed gives the same games."""
    jobs = [(spec_x, spec_y, k, seed) for k in range(pairs)]
    if workers <= 1:
        return [_pair_job(job) for job in jobs]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(_pair_job, jobs))
