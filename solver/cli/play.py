"""The `dnoir play` and `dnoir review` commands: a game in the terminal, and the review of a game."""

from __future__ import annotations

import json
import os
import random
import sys

import click

from solver.analysis.exact import DEFAULT_EQUILIBRIUM_NODES
from solver.analysis.review import render_review, review_record
from solver.base.bounds import MAX_GRADE_NODES, MAX_ITERATIONS, MAX_SECONDS, MAX_SEED, MAX_THREADS
from solver.base.jsonl import records as json_records
from solver.cli.common import Real, Whole, checked_player_spec
from solver.errors import DnoirError
from solver.agents.arena import make_player
from solver.interfaces.play import DEFAULT_ENGINE, Game, PlayLoop, Quit, ask_start, load_game, write_record
from solver.rules.notation import PLAYERS
from solver.rules.position import Position
from solver.solvers.limit import Limit


@click.command()
@click.option("--engine", "engine_spec", default=None, metavar="SPEC",
              help="The opponent: a bot spec (random, greedy, pimc:worlds=50, ismcts:time=1, ...) or "
                   "cmd:<engine command>.  [default: ismcts:time=1]")
@click.option("--seat", type=click.Choice(["a", "b", "random"]), default="random", show_default=True,
              help="Your seat (tracking: asked when not given).")
@click.option("--seed", type=Whole(0, MAX_SEED), default=None,
              help="Seed of the deal and the engine (default: a random one, printed).")
@click.option("--record", type=click.Path(dir_okay=False), default=None,
              help="Keep the game in this file (one JSON line, rewritten after every move).")
@click.option("--track", is_flag=True,
              help="Follow a game played elsewhere: enter every move made, and your new hand each round.")
@click.option("--load", type=click.Path(exists=True, dir_okay=False), default=None,
              help="Resume a game saved with 'save FILE' (or kept with --record).")
@click.option("--hint-time", type=Real(0.001, MAX_SECONDS), default=1.0, show_default=True,
              help="Seconds of search for 'hint'.")
@click.option("--review-time", type=Real(0, MAX_SECONDS), default=0.5, show_default=True,
              help="Seconds of search for each decision of the closing review before round 4 (0: no review).")
@click.option("--threads", type=Whole(1, MAX_THREADS), default=None,
              help="Search threads for hint and review (default: every core).")
def play(engine_spec, seat, seed, record, track, load, hint_time, review_time, threads):
    """Play a game in the terminal against an engine, or follow one played elsewhere (--track).

    Commands at the prompt: a move (8, +3, -1, C, T), hint, undo, show, save FILE, help,
    quit. Reads one command a line, so it also works with input from a pipe or a file.
    """
    try:
        review_limit = Limit(seconds=review_time) if review_time > 0 else None
    except ValueError as e:  # between 0 and a millisecond
        raise click.BadParameter(f"0 (no review) or {str(e).split(': ', 1)[1]}", param_hint="--review-time") from None

    if track and engine_spec is not None:
        raise click.UsageError("--track follows a game played elsewhere: it takes no --engine")
    inp, out = sys.stdin, sys.stdout
    if record is not None:
        _check_writable(record)  # before any question or move
    if load is not None:
        game = load_game(load)
        if game.tracked != track:
            what = "a tracked game: add --track" if game.tracked else "a game against an engine: drop --track"
            raise click.UsageError(f"{load} holds {what}")
    elif track:
        try:
            game = ask_start(inp, out, seat=None if seat == "random" else PLAYERS.index(seat))
        except Quit:
            click.echo("bye")
            return 0
    else:
        if seed is None:
            seed = random.SystemRandom().randrange(MAX_SEED + 1)  # one --seed takes back
            click.echo(f"seed {seed}")
        seat_index = random.Random(seed).randrange(2) if seat == "random" else PLAYERS.index(seat)
        game = Game.versus(Position.random_deal(seed), seat_index, engine_spec or DEFAULT_ENGINE, seed)
    engine = None
    if not game.tracked:
        spec = engine_spec or game.engine or DEFAULT_ENGINE
        game.engine = _checked_spec(spec)
        engine = make_player(game.engine, seed=game.seed or 0)
    if record is not None:
        try:
            write_record(record, game.to_record())
        except OSError as e:
            raise click.BadParameter(f"cannot write {record}: {e.strerror or e}", param_hint="--record") from None
    loop = PlayLoop(game, inp, out, engine=engine, hint_limit=Limit(seconds=hint_time), review_limit=review_limit,
                    record=record, threads=threads)
    if loop.run() == "engine fault":  # said on the way; the record is kept
        return 1
    return 0


def _check_writable(path: str) -> None:
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise click.BadParameter(f"cannot write {path}: no folder {folder}", param_hint="--record")
    if not os.access(folder, os.W_OK) or (os.path.exists(path) and not os.access(path, os.W_OK)):
        raise click.BadParameter(f"cannot write {path}: permission denied", param_hint="--record")


def _checked_spec(spec: str) -> str:
    return checked_player_spec(spec)


@click.command()
@click.argument("record_file", metavar="RECORD", type=click.Path(exists=True, dir_okay=False))
@click.option("--game", "index", type=Whole(0, 10**9), default=None,
              help="Which record of the file (0 = the first; default: every one).")
@click.option("--time", "seconds", type=Real(0.001, MAX_SECONDS), default=None,
              help="Seconds of search for each decision before round 4 "
                   "(default 1 when --iterations is not given).")
@click.option("--iterations", type=Whole(1, MAX_ITERATIONS), default=None,
              help="Iterations of search for each decision before round 4 (reproducible with --seed).")
@click.option("--seed", type=Whole(0, MAX_SEED), default=0, show_default=True, help="Seed of the search.")
@click.option("--threads", type=Whole(1, MAX_THREADS), default=None,
              help="Search threads (default: every core).")
@click.option("--seat", type=click.Choice(["a", "b"]), default=None,
              help="Review only this player's decisions.")
@click.option("--equilibrium-nodes", type=Whole(0, MAX_GRADE_NODES), default=DEFAULT_EQUILIBRIUM_NODES,
              show_default=True,
              help="Grade round-4 moves against the equilibrium when its public tree has at most this "
                   "many nodes, from the third action of the round on (as dnoir analyse); 0: the view.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object a decision.")
def review(record_file, index, seconds, iterations, seed, threads, seat, equilibrium_nodes, as_json):
    """Review every decision of the game records in RECORD: the expected score lost against the best move.

    RECORD holds `dnoir match` records, or a game saved by `dnoir play` (reviewed from
    the seat it was played). Round 4 is exact (as `dnoir analyse`); rounds 1 to 3 are
    searched, and a move is marked ? or ?? only when the 95% interval of its loss says so.
    """
    records = _read_records(record_file)
    if index is not None:
        if index >= len(records):
            raise click.UsageError(f"{record_file} holds {len(records)} game records; "
                                   f"--game {index} is past the end")
        records = [(index, records[index][1], records[index][2])]
    progress = sys.stderr.isatty()  # a long review shows where it is, on a terminal only
    for number, line, record in records:
        def emit(decision, number=number):
            if as_json:
                click.echo(json.dumps(dict(game=number, **decision.to_dict())))
            if progress:
                click.echo(f"\rreviewing game {number}: move {decision.ply} done ", err=True, nl=False)
        try:
            decisions = review_record(record, Limit.given(seconds, iterations), seed=seed, threads=threads,
                                      seats={seat} if seat else None, on_decision=emit,
                                      equilibrium_nodes=equilibrium_nodes)
        except DnoirError as e:  # the record's mistake (a field, a move); anything else is a bug
            raise click.ClickException(f"{record_file} line {line}: {e}") from None
        if progress:
            click.echo("\r\033[K", err=True, nl=False)
        if not as_json:
            if len(records) > 1:
                click.echo(f"== game {number} (line {line})")
            click.echo(render_review(record, decisions, seats={seat} if seat else None))
    return 0


def _read_records(path: str) -> list[tuple[int, int, dict]]:
    """(number, line number, record) of each non-empty line; a line that is not JSON (or not
    UTF-8, too long, nested too deep: solver.base.jsonl's reader) is an error naming the line."""
    records = []
    try:
        for line_number, record, problem in json_records(path):
            if problem is not None:
                raise click.ClickException(f"{path} line {line_number}: {problem}")
            records.append((len(records), line_number, record))
    except OSError as e:
        raise click.ClickException(f"cannot read {path}: {e.strerror or e}") from None
    if not records:
        raise click.ClickException(f"{path}: no game record")
    return records
