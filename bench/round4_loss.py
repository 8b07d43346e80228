"""What the ISMCTS's round-4 moves lose against the equilibrium of the hidden-information game.

The engine searches round 4 below EXACT_MIN_SECONDS a move (solver.interfaces.engine: 50 ms
since bench/STRENGTH.md's test 31, 150 ms before it, so 100 ms matches searched it), and
there its round-4 play is ISMCTS play, which the in-process bots of the screens never show
(they solve round 4). This grades that play, for the default search and for settings on
top of it:

    python -m solver.bench.round4_loss bench/matches/final_100ms_r17.jsonl.gz \\
        [--setting hand_bandit=1 ...] [--view] [--games 120] [--first 0] [--iterations 90000] [--seconds 5]

Every round-4 decision with two or more legal moves of the game records (as `dnoir match
--out` writes them, gzipped or not), from the mover's view, is solved by
solver.solvers.equilibrium within --seconds (a decision it cannot solve in that time is
counted, not graded); each search then chooses with --iterations (the engine makes about
90,000 in 100 ms) and the same seed, and its move's loss is `move_loss` against the
equilibrium. With --view the one-player view's choice (solver.solvers.endgame, what `advise`
plays in round 4 when the equilibrium does not fit its time) is graded too. It prints each
one's loss a game (over the games read, both players' decisions) and each one's difference
from the default search with a 95% interval over the graded decisions.

>>> from solver.rules.position import Position
>>> record = {"deal": "-287-18C5 788/C 6666777788+2+2+2+2+3+3-1-2-3/555678+4-1-2-2-3C 4 a a", "moves": "8 T"}
>>> r = grade_records([record], {"default": PRESETS["default"]}, iterations=500, seconds=5.0)
>>> r["decisions"], r["graded"], r["loss"]["default"] >= 0.0
(2, 2, True)
"""

from __future__ import annotations

import argparse
import gzip
import json
import math

from solver.bench.option_speed import _option
from solver.bench.root_choice import OneLineParser, whole
from solver.errors import ArgumentError, DnoirError
from solver.rules.position import Position
from solver.solvers.endgame import solve
from solver.solvers.equilibrium import equilibrium_advice, move_loss
from solver.solvers.limit import Limit
from solver.solvers.search import advise, mover_view
from solver.solvers.searchconfig import OPTIONS, PRESETS, SearchConfig, from_options


def round4_views(records):
    """(record number, the mover's view) of every round-4 decision with two or more legal moves."""
    for number, record in enumerate(records):
        pos = Position.parse(record["deal"])
        for move in record["moves"].split():
            if pos.round == 4 and not pos.is_over and len(pos.legal_moves()) >= 2:
                yield number, mover_view(pos)
            pos = pos.play(move)


def grade_records(records, configs: dict[str, SearchConfig], iterations: int, seconds: float,
                  view: bool = False) -> dict:
    """{'decisions', 'graded', 'games', 'loss': {name: summed loss}, 'rows': [{name: loss}]}; with
    `view`, the one-player view's choice graded too, under the name 'view'."""
    records = list(records)
    decisions, rows = 0, []
    for number, pos in round4_views(records):
        decisions += 1
        eq = equilibrium_advice(pos, Limit(seconds=seconds))
        if eq is None:
            continue
        row = {name: move_loss(eq, advise(pos, Limit(iterations=iterations), threads=1, seed=number,
                                          exact=False, config=config).best)
               for name, config in configs.items()}
        if view:
            row["view"] = move_loss(eq, solve(pos, mode="view").best)
        rows.append(row)
    names = list(configs) + (["view"] if view else [])
    return dict(decisions=decisions, graded=len(rows), games=len(records), rows=rows,
                loss={name: sum(row[name] for row in rows) for name in names})


def mean_interval(values: list[float]) -> tuple[float, float]:
    """(mean, half-width of its 95% interval; infinite below 2 values, NaN mean for none)."""
    if not values:
        return math.nan, math.inf
    mean = sum(values) / len(values)
    if len(values) < 2:
        return mean, math.inf
    sd = math.sqrt(sum((x - mean) ** 2 for x in values) / (len(values) - 1))
    return mean, 1.96 * sd / math.sqrt(len(values))


def summed(values: list[float]) -> tuple[float, float]:
    """(sum of per-decision figures, half-width of its 95% interval; infinite below 2 decisions)."""
    if not values:
        return 0.0, math.inf
    mean, half = mean_interval(values)
    return len(values) * mean, len(values) * half


def difference(rows, name: str, base: str = "default") -> tuple[float, float]:
    """(summed difference of `name`'s losses from `base`'s, half-width of its 95% interval)."""
    return summed([row[name] - row[base] for row in rows])


def _records(path: str, first: int, games: int):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        for number, line in enumerate(f):
            if number >= first + games:
                break
            if number >= first:
                yield json.loads(line)


def is_game_record(record) -> bool:
    """Whether `record` has a deal and its moves (the rest of a record is not read here)."""
    return isinstance(record, dict) and isinstance(record.get("deal"), str) and isinstance(record.get("moves"), str)


def is_finished_game(record) -> bool:
    """Whether `record` is a game record with its result: a winner, a seat ('a', 'b') or 'draw'."""
    return is_game_record(record) and isinstance(record.get("result"), dict) \
        and record["result"].get("winner") in ("a", "b", "draw")


def load_records(parser, path: str, first: int, games: int, valid=is_game_record,
                 what: str = "a game record (a deal and its moves)") -> list:
    """Records `first` to `first + games` of `path`, each `valid`; else `parser.error`, one line."""
    try:
        records = list(_records(path, first, games))
    except (OSError, ValueError, EOFError) as e:
        parser.error(f"{path}: {e}")
    for number, record in enumerate(records, start=first + 1):
        if not valid(record):
            parser.error(f"{path}: line {number} is not {what}")
    return records


def main(argv=None) -> None:
    parser = OneLineParser(prog="python -m solver.bench.round4_loss", description=__doc__.split("\n\n")[0])
    parser.add_argument("games_file", metavar="GAMES.jsonl[.gz]")
    parser.add_argument("--setting", action="append", default=[], metavar="KEY=VALUE[,KEY=VALUE]",
                        help="a search to grade beside the default (repeatable)")
    parser.add_argument("--view", action="store_true", help="grade the one-player view's choice too")
    parser.add_argument("--games", type=whole(1, 1_000_000), default=120, metavar="1..1000000")
    parser.add_argument("--first", type=whole(0, 1_000_000), default=0, metavar="0..1000000")
    parser.add_argument("--iterations", type=whole(100, 10_000_000), default=90_000, metavar="100..10000000")
    parser.add_argument("--seconds", type=float, default=5.0, metavar="SECONDS",
                        help="the equilibrium's time a decision (0.01 to 3600)")
    args = parser.parse_args(argv)
    if not 0.01 <= args.seconds <= 3600:
        parser.error(f"--seconds: {args.seconds} is out of range (0.01 to 3600)")
    configs = {"default": PRESETS["default"]}
    for text in args.setting:
        options = dict(_option(part) for part in text.split(","))
        unknown = sorted(set(options) - set(OPTIONS))
        if unknown:
            parser.error(f"unknown search setting {unknown[0]!r} (one of {', '.join(OPTIONS)})")
        try:
            configs[text] = from_options("default", **options)
        except ArgumentError as e:
            parser.error(str(e))
    records = load_records(parser, args.games_file, args.first, args.games)
    try:
        r = grade_records(records, configs, args.iterations, args.seconds, view=args.view)
    except DnoirError as e:
        parser.error(f"{args.games_file}: {e}")
    except KeyboardInterrupt:
        parser.exit(130, f"{parser.prog}: interrupted (nothing is written before the end)\n")
    print(f"{r['graded']} of {r['decisions']} round-4 decisions graded ({r['games']} games, "
          f"{args.iterations} iterations, the equilibrium within {args.seconds:g} s)")
    for name in r["loss"]:
        total, half = summed([row[name] for row in r["rows"]])
        line = f"{name}: {total / r['games']:.4f} ± {half / r['games']:.4f} a game"
        if name != "default":
            total, half = difference(r["rows"], name)
            line += f", {total / r['games']:+.4f} ± {half / r['games']:.4f} against the default"
        print(line)


if __name__ == "__main__":
    main()
