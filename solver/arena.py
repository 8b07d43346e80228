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

import atexit
import math
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass

from .bots import make_bot, parse_spec
from .external import EngineFault, ExternalBot
from .notation import PLAYERS
from .position import Position
from .search import thread_seed


def result_dict(pos: Position, fault: dict | None = None) -> dict:
    """The JSON form of a game's result: winner, how, both scores broken down.

    A game ended by an engine fault is lost by the faulty player (`how` names the fault:
    'timeout', 'illegal' or 'crash'); its scores are those of the position it stopped at.
    """
    res = pos.result()
    scores = {PLAYERS[p]: asdict(s) for p, s in enumerate(res.scores)}
    if fault is not None:
        return dict(winner="b" if fault["player"] == "a" else "a", how=fault["kind"], scores=scores)
    return dict(winner=res.winner, how=res.how, scores=scores)


_ENGINES: dict[tuple, ExternalBot] = {}


def _close_engines() -> None:
    for engine in _ENGINES.values():
        engine.close()
    _ENGINES.clear()


atexit.register(_close_engines)


def make_player(spec: str, seed: int = 0, movetime_ms: int | None = None, iterations: int | None = None):
    """A bot for a spec, or an external engine for 'cmd:<command>' (started once per process).

    `movetime_ms` / `iterations` set the budget of external engines and of ISMCTS specs that
    do not name their own.
    """
    if spec.startswith("cmd:"):
        key = (spec, movetime_ms, iterations)
        if key not in _ENGINES:
            _ENGINES[key] = ExternalBot(spec[4:].strip(), movetime_ms=movetime_ms, iterations=iterations, seed=seed)
        return _ENGINES[key]
    name, params = parse_spec(spec)
    if name == "ismcts" and not {"iterations", "time"} & set(params):
        if iterations is not None:
            spec += ("," if ":" in spec else ":") + f"iterations={iterations}"
        elif movetime_ms is not None:
            spec += ("," if ":" in spec else ":") + f"time={movetime_ms / 1000}"
    return make_bot(spec, seed=seed)


def play_game(deal: Position, specs: tuple[str, str], seed: int = 0, movetime_ms: int | None = None,
              iterations: int | None = None) -> dict:
    """Play one game from a full deal: specs[0] plays a, specs[1] plays b; return its record.

    Each player sees only its own view. An external engine's fault ends the game, lost by
    that engine, and the record logs the position it was asked about.
    """
    bots = [make_player(spec, thread_seed(seed, p), movetime_ms, iterations) for p, spec in enumerate(specs)]
    for bot in bots:
        bot.new_game()
    pos, moves, fault = deal, [], None
    while not pos.is_over:
        mover = pos.to_move
        view = pos.view(PLAYERS[mover])
        try:
            move = bots[mover].choose(view)
        except EngineFault as e:
            fault = dict(player=PLAYERS[mover], kind=e.kind, detail=e.detail, position=str(view))
            break
        pos = pos.play(move)
        moves.append(str(move))
    record = dict(deal=str(deal), moves=" ".join(moves), result=result_dict(pos, fault),
                  players=dict(a=specs[0], b=specs[1]), seed=seed,
                  settings=dict(movetime_ms=movetime_ms, iterations=iterations))
    names = {PLAYERS[p]: getattr(bot, "engine_name", None) for p, bot in enumerate(bots)}
    if any(names.values()):
        record["engines"] = names
    if fault is not None:
        record["fault"] = fault
    return record


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
