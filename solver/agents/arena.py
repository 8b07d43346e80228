"""Playing one game between two players (bots or external engines) and recording it.

Each player sees only its own view of the game. A game record is a plain dict (one JSON
object a line in files): `deal` (the full initial deal in DNP), `moves` (tokens separated
by spaces), `result` (winner, how, both scores broken down), `players`, `settings`, and
`fault` when an external engine broke the protocol. solver.agents.match runs many games.

>>> rec = play_game(Position.random_deal(1), ("random", "greedy"), seed=1)
>>> rec["result"]["winner"] in ("a", "b", "draw"), len(rec["moves"].split()) > 12
(True, True)
"""

from __future__ import annotations

import atexit
from dataclasses import asdict

from solver.agents.bots import make_bot
from solver.agents.external import EngineFault, ExternalBot, close_all_engines
from solver.base.seeds import thread_seed
from solver.rules.notation import PLAYERS
from solver.rules.position import Position
from solver.solvers.limit import Limit


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


def close_engines() -> None:
    """Stop every external engine this process started and forget them (a worker's `at_exit`).

    The next game starts its engines afresh.
    """
    _ENGINES.clear()
    close_all_engines()


atexit.register(close_engines)


def make_player(spec: str, seed: int = 0, limit: Limit | None = None):
    """A bot for a spec, or an external engine for 'cmd:<command>' (started once per process).

    `limit` is the budget a move of external engines (all of it) and of ISMCTS specs that
    do not name their own: its iterations when it has some (so that the games can be
    replayed), else its time.
    """
    if spec.startswith("cmd:"):
        key = (spec, limit)
        if key not in _ENGINES:
            _ENGINES[key] = ExternalBot(spec[4:].strip(), limit=limit, seed=seed)
        return _ENGINES[key]
    if limit is not None and limit.iterations is not None:
        limit = Limit(iterations=limit.iterations)
    return make_bot(spec, seed=seed, limit=limit)


def record_settings(limit: Limit | None) -> dict:
    """The `settings` of a game record: the budget as the match commands take it
    (`movetime_ms`, `iterations`), null where not given.

    >>> record_settings(Limit(seconds=0.1)), record_settings(None)
    ({'movetime_ms': 100, 'iterations': None}, {'movetime_ms': None, 'iterations': None})
    """
    if limit is None:
        return dict(movetime_ms=None, iterations=None)
    return dict(movetime_ms=limit.ms, iterations=limit.iterations)


def play_game(deal: Position, specs: tuple[str, str], seed: int = 0, limit: Limit | None = None) -> dict:
    """Play one game from a full deal: specs[0] plays a, specs[1] plays b; return its record.

    Each player sees only its own view. An external engine's fault (at the start of the
    game or on a move) ends the game, lost by that engine, and the record logs the
    position it was asked about (at the start: its view of the deal). `limit` is the
    budget a move of the players that do not set their own (see `make_player`).
    """
    bots = [make_player(spec, thread_seed(seed, p), limit) for p, spec in enumerate(specs)]
    pos, moves, fault = deal, [], None
    for p, bot in enumerate(bots):
        # (re)starting an engine can fail too: that costs this game, not the match
        try:
            bot.new_game()
        except EngineFault as e:
            fault = dict(player=PLAYERS[p], kind=e.kind, detail=f"at the start of the game: {e.detail}",
                         position=str(deal.view(PLAYERS[p])))
            break
    while fault is None and not pos.is_over:
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
                  settings=record_settings(limit))
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
