"""The `dnoir` commands that run many games or items: match, tournament, replay, analyse.

Each long run shows progress on stderr, writes every finished game or result at once,
stops cleanly on Ctrl-C (exit code 130, nothing finished lost), and resumes from its
output file.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os

import click

from solver.agents.bots import parse_spec
from solver.agents.book import read_book
from solver.agents.match import PairingTally, budget_key, make_jobs, read_records, record_key, run_jobs
from solver.agents.plot import plot_elo_by_budget
from solver.agents.progress import Progress
from solver.agents.stats import Sprt, bradley_terry
from solver.analysis.batch import (
    OutputMismatch,
    Previous,
    Summary,
    Writer,
    existing_results,
    make_plan,
    read_items,
    run_plan,
)
from solver.analysis.exact import DEFAULT_EQUILIBRIUM_NODES, id_key
from solver.base.bounds import MAX_GRADE_NODES, MAX_ITERATIONS, MAX_MOVETIME_MS, MAX_PAIRS, MAX_SEED, MAX_WORKERS
from solver.base.jsonl import OutputFileError, OutputLock, file_lines, loads, open_append, write_error
from solver.cli.common import Whole, checked_player_spec, output_path
from solver.errors import OptionError
from solver.interfaces.board import render_board, render_move_line, render_pairing, render_ratings
from solver.rules.position import Position
from solver.rules.records import REPLAY_FIELDS, RecordError, check_record
from solver.solvers.limit import Limit


def _run_games(pairings, pairs, seed, limit, out, resume, workers, scheduler, sprt=None, book=None):
    """Play every game of the pairings with a progress bar, writing each record to `out` at once.

    Returns ({pairing: PairingTally} over this run's games and those resumed, stop reason
    or None). Ctrl-C (or SIGTERM) stops the run and keeps every finished game; with
    `resume`, games already in `out` are skipped, and a file of another match is refused
    before it is touched. Games are made as they are needed and only counted once
    played, so any number of pairs starts at once and runs in flat memory. `limit` is the
    budget of --movetime and --iterations (see `_match_limit`), `book` the opening book of
    --book (None: a fresh deal each pair).
    """
    try:  # one writer at a time: a second run on the same --out is refused before it reads it
        lock = OutputLock(out) if out is not None else None
    except OutputFileError as e:
        raise click.UsageError(f"--out {e}") from None
    with lock or contextlib.nullcontext():
        return _run_locked(pairings, pairs, seed, limit, out, resume, workers, scheduler, sprt, book)


def _run_locked(pairings, pairs, seed, limit, out, resume, workers, scheduler, sprt, book):
    tallies = {tuple(p): PairingTally(*p) for p in pairings}
    run = make_jobs(pairings, pairs, seed, limit, book=book)
    done = set()
    if out is not None:
        if os.path.exists(out) and os.path.getsize(out) > 0 and not resume:
            raise click.UsageError(f"{out} exists: add --resume to continue it, or choose another --out")
        if resume:
            previous = read_records(out, on_bad_line=lambda n, why: click.echo(
                f"dnoir: warning: {out} line {n} is not a game record ({why}); ignored", err=True))
            for record in previous:
                key = record_key(record)
                if key not in run:
                    raise click.UsageError(_other_match(out, key, pairings, pairs, seed, limit, book))
                if key not in done:  # a game written twice counts once
                    done.add(key)
                    tallies[tuple(record["pairing"])].add(record)
            del previous
    jobs = make_jobs(pairings, pairs, seed, limit, done=done, book=book)
    if done:
        click.echo(f"resuming: {len(done)} games already in {out}, {len(jobs)} to play", err=True)
    games = run_jobs(jobs, workers=workers, scheduler=scheduler)  # a cluster is reached here
    sink = open_append(out) if out is not None else None
    stop = None
    first = tallies[tuple(pairings[0])]
    interrupts = _Interrupts()
    try:
        with interrupts, Progress(total=len(jobs), label="games") as progress:
            for record in games:
                with interrupts.held():  # the file and the table always hold the same games
                    if sink is not None:
                        try:
                            sink.write(json.dumps(record) + "\n")
                            sink.flush()
                        except OSError as e:  # a full disk: an output error, the games before it kept
                            raise write_error(out, e) from None
                    tallies[tuple(record["pairing"])].add(record)
                if len(pairings) == 1:
                    mean = first.units.mean()
                    note = f"{pairings[0][0]} scores {mean:.3f}" if mean is not None else None
                else:  # a round robin: the pairing of the game just finished, and its score so far
                    x, y = record["pairing"]
                    mean = tallies[(x, y)].units.mean()
                    note = f"{x} vs {y}" + (f": {x} scores {mean:.3f}" if mean is not None else "")
                progress.advance(note=note)
                if sprt is not None:
                    stop = sprt.decision(first.units.penta)
                    if stop is not None:
                        break
    except KeyboardInterrupt:
        stop = "interrupted"
    finally:
        games.close()
        if sink is not None:
            try:
                sink.close()
            except OSError:  # what could not be written was reported above
                pass
    return tallies, stop


class _Interrupts:
    """Within `with`: Ctrl-C and SIGTERM raise KeyboardInterrupt at once, except inside
    `held()`, which they let finish first (a game written to the file but not yet counted
    in the table, or the reverse, would make the two disagree)."""

    def __init__(self):
        self.holding = self.pending = False
        self.saved = {}

    def _handler(self, signum, frame):
        if self.holding:
            self.pending = True
        else:
            raise KeyboardInterrupt

    def __enter__(self):
        import signal
        import threading

        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                if signal.getsignal(sig) not in (signal.SIG_IGN, None):  # an ignored signal stays ignored
                    self.saved[sig] = signal.signal(sig, self._handler)
        return self

    def __exit__(self, *exc):
        import signal

        for sig, handler in self.saved.items():
            signal.signal(sig, handler)
        return False

    @contextlib.contextmanager
    def held(self):
        """Run the block whole: an interrupt during it is raised after it."""
        self.holding = True
        try:
            yield
        finally:
            self.holding = False
        if self.pending:
            raise KeyboardInterrupt


def _other_match(out, key, pairings, pairs, seed, limit, book=None) -> str:
    """The one line that refuses to resume `out`: what its game `key` has that this run has not."""
    x, y, its_seed, its_movetime, its_iterations, pair, _, its_book = key
    digest = book.digest if book is not None else None
    movetime, iterations = budget_key(limit)
    if (x, y) not in {tuple(p) for p in pairings}:
        what = f"it holds {x} against {y}"
    elif its_seed != seed:
        what = f"it was played with --seed {its_seed}, not {seed}"
    elif (its_movetime, its_iterations) != (movetime, iterations):
        what = f"it was played with {_budgets_text(its_movetime, its_iterations)}, not {_budgets_text(movetime, iterations)}"
    elif its_book != digest:
        what = f"it was played {_book_text(its_book)}, not {_book_text(digest)}"
    else:
        what = f"it holds pair {pair}: give --pairs {pair + 1} or more"
    return (f"--resume: {out} was written by another match ({what}); resume with the same specs, "
            f"--seed, budgets and --book, or choose another --out")


def _book_option(ctx, param, value):
    """A click callback: the Book of --book, read when the command line is read (BookError, one
    line, for a book that cannot be used), or None without the option."""
    return read_book(value) if value is not None else None


def _book_text(digest) -> str:
    return "without --book" if digest is None else f"from the book of digest {digest}"


def _match_limit(movetime, iterations):
    """The Limit of --movetime (milliseconds) and --iterations; None when neither is given."""
    if movetime is None and iterations is None:
        return None
    return Limit.from_ms(movetime, iterations=iterations, name="--movetime")


def _budgets_text(movetime, iterations) -> str:
    given = [f"--{name} {value}" for name, value in (("movetime", movetime), ("iterations", iterations))
             if value is not None]
    return " ".join(given) or "no --movetime or --iterations"


def _budget_options(f):

    f = click.option("--iterations", type=Whole(1, MAX_ITERATIONS), default=None,
                     help="Iterations a move for ISMCTS bots and engines that do not set their own.")(f)
    f = click.option("--movetime", type=Whole(1, MAX_MOVETIME_MS), default=None,
                     help="Milliseconds a move for ISMCTS bots and engines that do not set their own "
                          "(engines: default 1000).")(f)
    return f


def _run_options(f):

    f = click.option("--scheduler", default=None, metavar="tcp://HOST:PORT",
                     help="Run the games on this Dask scheduler (extra [cluster]); it must answer within "
                          "10 s and have a worker within 10 s (DNOIR_CONNECT_TIMEOUT, DNOIR_WORKERS_TIMEOUT).")(f)
    f = click.option("--workers", type=Whole(1, MAX_WORKERS), default=None,
                     help="Game processes on this machine (default: every core).")(f)
    f = click.option("--resume", is_flag=True,
                     help="Continue --out, skipping the games it holds. Only the same match resumes: same "
                          "specs, --seed, --movetime, --iterations and --book (a file of another match is refused, "
                          "untouched); a larger --pairs extends it.")(f)
    f = click.option("--book", type=click.Path(dir_okay=False), default=None, metavar="FILE", callback=_book_option,
                     help="Start the pairs from this opening book's positions instead of fresh deals: pair k "
                          "from position k mod N of the file (full positions in DNP, one a line; # comments).")(f)
    f = click.option("--out", type=click.Path(dir_okay=False), default=None, callback=output_path,
                     help="Write every game record to this JSONL file as it finishes.")(f)
    f = click.option("--seed", type=Whole(0, MAX_SEED), default=0, show_default=True,
                     help="Seed of the deals (without --book) and of the bots.")(f)
    f = click.option("--pairs", type=Whole(1, MAX_PAIRS), default=100, show_default=True,
                     help="Duplicate pairs (each deal played twice, seats swapped); games are made as they "
                          "are played, so any number starts at once.")(f)
    return f


@click.command()
@click.argument("a")
@click.argument("b")
@_run_options
@_budget_options
@click.option("--sprt", default=None, metavar="ELO0,ELO1[,ALPHA,BETA]",
              help="Stop early on a sequential probability ratio test (as fishtest).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as one JSON object.")
def match(a, b, pairs, seed, out, book, resume, workers, scheduler, movetime, iterations, sprt, as_json):
    """Play A against B in duplicate pairs and report the score, Elo and more from A's side.

    A and B are bot specs (random, greedy, pimc:worlds=50, ismcts:iterations=2000, ...)
    or external engines 'cmd:<shell command>' speaking the engine protocol.

    Ctrl-C or SIGTERM stops the match: the table of the games finished so far is printed
    and the exit code is 130 for both (one code for "stopped early, every finished game
    kept", whichever signal asked).
    """
    try:
        test = Sprt.parse(sprt) if sprt is not None else None  # '' is a mistake, not "no SPRT"
    except ValueError as e:  # Sprt.parse only reads the option's text: any ValueError is the text's
        raise OptionError(str(e)) from None
    tallies, stop = _run_games([(checked_player_spec(a), checked_player_spec(b))], pairs, seed, _match_limit(movetime, iterations),
                               out, resume, workers or os.cpu_count() or 1, scheduler, sprt=test, book=book)
    tally = tallies[(a, b)]
    summary = tally.summary()
    if as_json:
        data = summary.to_dict()
        data.update(stopped=stop)
        if test is not None:
            data.update(sprt=test.result(tally.units.penta).to_dict())
        click.echo(json.dumps(data, allow_nan=False))
    else:
        click.echo(render_pairing(summary))
        if test is not None:
            click.echo(f"  {test.result(tally.units.penta).text()}")
    if stop == "interrupted":
        click.echo("interrupted: the table covers the games finished so far", err=True)
        return 130
    return 0


@click.command()
@click.argument("specs", nargs=-1, required=True)
@_run_options
@_budget_options
@click.option("--plot", type=click.Path(dir_okay=False), default=None, callback=output_path,
              help="Draw Elo against search budget to this PNG (specs that differ only in budget; extra [plot]).")
@click.option("--json", "as_json", is_flag=True, help="Print the Elo table as one JSON object.")
def tournament(specs, pairs, seed, out, book, resume, workers, scheduler, movetime, iterations, plot, as_json):
    """Round robin between SPECS in duplicate pairs, with a maximum-likelihood Elo table."""
    if len(specs) < 2 or len(set(specs)) != len(specs):
        raise click.UsageError("a tournament needs at least two different specs")
    specs = [checked_player_spec(s) for s in specs]
    pairings = [(x, y) for i, x in enumerate(specs) for y in specs[i + 1:]]
    if plot:
        budgets = _budgets(specs)  # fail before playing, not after
        try:
            import matplotlib  # noqa: F401 - checked before the games, drawn after them
        except ImportError:
            raise click.UsageError("--plot needs matplotlib: pip install 'district-noir-solver[plot]'") from None
    tallies, stop = _run_games(pairings, pairs, seed, _match_limit(movetime, iterations), out, resume,
                               workers or os.cpu_count() or 1, scheduler, book=book)
    index = {s: i for i, s in enumerate(specs)}
    results = []  # (X, Y, X's score) a game; the same three tuples over and over
    for (x, y), tally in tallies.items():
        i, j = index[x], index[y]
        results += [(i, j, 1.0)] * tally.wins + [(i, j, 0.5)] * tally.draws + [(i, j, 0.0)] * tally.losses
    ratings = bradley_terry(specs, results)
    summaries = [tallies[p].summary() for p in pairings]
    if as_json:
        click.echo(json.dumps(dict(ratings=[r.__dict__ for r in ratings],
                                   pairings=[s.to_dict() for s in summaries], stopped=stop)))
    else:
        for summary in summaries:
            click.echo(render_pairing(summary))
        click.echo("")
        click.echo(render_ratings(ratings))
    if plot:
        plot_elo_by_budget(ratings, budgets, plot)
        click.echo(f"plot written to {plot}", err=True)
    return 130 if stop == "interrupted" else 0


def _budgets(specs) -> dict:
    """{spec: budget} when the specs differ only in their budget (iterations or time)."""
    budgets, rest = {}, set()
    for spec in specs:
        if spec.startswith("cmd:"):
            raise click.UsageError("--plot needs built-in bot specs that differ only in budget")
        name, params = parse_spec(spec)
        key = "iterations" if "iterations" in params else "time" if "time" in params else None
        if key is None:
            raise click.UsageError(f"--plot: {spec!r} names no budget (iterations= or time=)")
        budgets[spec] = float(params.pop(key))
        rest.add((name, key, tuple(sorted(params.items()))))
    if len(rest) != 1:
        raise click.UsageError("--plot needs specs that differ only in their budget")
    return budgets


@click.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--game", "index", type=Whole(0, MAX_PAIRS), default=0, show_default=True,
              help="Which game of the file (0 = the first record; every non-blank line is one).")
@click.option("--move", "at_move", type=Whole(0, 1000), default=None,
              help="Show the full board after this move (0: the deal) instead of the whole game.")
@click.option("--compact/--full", default=True, show_default=True,
              help="One line a move, or the full board after every move.")
def replay(file, index, at_move, compact):
    """Step through a recorded game: one line a move (or the board after every move), the
    board at a chosen move, and the result."""
    # Records are numbered by line, bad ones included, so that a bad line never shifts
    # which game an index names; only the chosen record is read and checked.
    count = 0
    for line_number, text, problem in file_lines(file):
        if count == index:
            break
        count += 1
    else:
        raise click.UsageError(f"{file} holds {count} game records; --game {index} is past the end")
    try:
        if problem is not None:
            raise RecordError("record", problem)
        try:
            record = loads(text)
        except ValueError as e:
            raise RecordError("record", str(e)) from None
        check_record(record, REPLAY_FIELDS)
    except RecordError as e:
        raise click.UsageError(f"{file} line {line_number} (--game {index}) is not a game record: {e}") from None
    pos = Position.parse(record["deal"])
    tokens = record["moves"].split()
    if at_move is not None and at_move > len(tokens):
        raise click.UsageError(f"--move {at_move}: the game has {len(tokens)} moves")
    players = record.get("players") or {}
    label = f"game {index} of {file}"
    if isinstance(record.get("pair"), int) and isinstance(record.get("game"), int):
        label += f" (pair {record['pair']}, game {record['game']} of the match)"
    click.echo(f"{label}: a = {players.get('a', '?')}, b = {players.get('b', '?')}")
    if at_move is not None:
        for token in tokens[:at_move]:
            pos = pos.play(token)
        start = "the book's position:" if "book" in record else "the deal:"  # a --book game starts mid-game
        click.echo(f"after move {at_move}:" if at_move else start)
        click.echo(render_board(pos))
        return
    click.echo(render_board(pos))
    if compact:
        click.echo("")
    for number, token in enumerate(tokens, 1):
        before, pos = pos, pos.play(token)
        if compact:
            click.echo(render_move_line(number, before, token, pos))
        else:
            click.echo(f"\n--- move {number}: {'ab'[before.to_move]} plays {token}")
            click.echo(render_board(pos))
    if "fault" in record:
        f = record["fault"]
        click.echo(f"\n{f['player']} forfeits: {f['kind']} ({f.get('detail')})")
    result = record.get("result")
    if result is not None:
        click.echo(f"\nresult: {result['winner']} ({result['how']})")
    else:
        outcome = pos.result()
        click.echo(f"\nresult (from the moves): {outcome.winner} ({outcome.how})" if outcome.over
                   else "\nthe record ends before the game does")


@click.command()
@click.argument("input_file", metavar="INPUT", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option("--out", type=click.Path(dir_okay=False), default=None, callback=output_path,
              help="Write results here as they finish (default: standard output); ids already in it are "
                   "skipped, so an interrupted run resumes (only output written with the same settings).")
@click.option("--csv", "as_csv", is_flag=True, help="Write CSV rather than JSONL.")
@click.option("--workers", type=Whole(1, MAX_WORKERS), default=None, help="Worker processes (default: every core).")
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT",
              help="Solve on this Dask scheduler (extra [cluster]).")
@click.option("--equilibrium-nodes", type=Whole(0, MAX_GRADE_NODES), default=DEFAULT_EQUILIBRIUM_NODES,
              show_default=True,
              help="Grade round-4 moves against the equilibrium of the hidden-information game when its "
                   "public tree has at most this many nodes (32 bytes each), from the third action of the "
                   "round on; 0: always against the one-player view.")
def analyse(input_file, out, as_csv, workers, scheduler, equilibrium_nodes):
    """Solve every round-4 position of INPUT exactly and annotate the round-4 decisions of games.

    INPUT holds DNP lines, JSON positions {"id": ..., "dnp": ...} and JSON game records (as
    `dnoir match --out` writes them), in any mix, one a line. Ids are strings or integers
    (1 and "1" are different), each used once. A bad line is reported with its number and
    the rest still runs; the exit code is then 1.

    A decision (and a position) is graded against the equilibrium of the hidden-information
    game when that game is small enough (--equilibrium-nodes; CFR+ must reach an
    exploitability of 0.001 within 200 iterations), otherwise against the one-player view's
    best move; each result says which (`method`). The choice counts nodes and iterations,
    not seconds, so the results are the same on every machine.
    """
    summary = Summary()

    def bad_line(number, reason):
        summary.bad_lines += 1
        click.echo(f"dnoir: {input_file} line {number}: {' '.join(reason.split())}", err=True)

    try:  # one writer at a time: a second run on the same --out is refused before it reads it
        lock = OutputLock(out) if out is not None else None
    except OutputFileError as e:
        raise click.UsageError(f"--out {e}") from None
    with lock or contextlib.nullcontext():
        return _analyse(input_file, out, as_csv, workers, scheduler, equilibrium_nodes, summary, bad_line)


def _analyse(input_file, out, as_csv, workers, scheduler, equilibrium_nodes, summary, bad_line):
    with click.open_file(input_file, "rb") as stream:  # bytes: each line is decoded alone
        items = read_items(stream, bad_line)
    try:
        previous = existing_results(out, as_csv, equilibrium_nodes) if out is not None else Previous()
    except OutputMismatch as e:
        raise click.UsageError(f"--out {e}") from None
    except OSError as e:
        raise click.UsageError(f"--out {out}: cannot read it ({e.strerror or e})") from None
    plan = make_plan(items, previous.done)
    summary.already_done = plan.skipped_done
    wanted = {id_key(item.id) for item in items}
    for result in previous.results:
        if id_key(result["id"]) in wanted:
            summary.add(result, fresh=False)
    if plan.skipped_done:
        click.echo(f"resuming: {plan.skipped_done} items already in {out}", err=True)
    try:
        writer = Writer(out, as_csv, stream=click.get_text_stream("stdout"), keep=previous.keep,
                        equilibrium_nodes=equilibrium_nodes)
    except OutputFileError as e:
        raise click.UsageError(f"--out {e}") from None
    results = run_plan(plan, workers=workers or os.cpu_count() or 1, scheduler=scheduler,
                       equilibrium_nodes=equilibrium_nodes)
    interrupted = False
    failed = None
    try:
        total = sum(len(group) for group in plan.copies.values())
        with Progress(total=total, label="items") as progress:
            for _, result in results:
                try:
                    writer.write(result)
                except OSError as e:  # a full disk: an output error, the results before it kept
                    if e.errno == errno.EPIPE:
                        raise
                    failed = write_error(out or "the output", e)
                    break
                summary.add(result)
                progress.advance()
    except KeyboardInterrupt:
        interrupted = True
    finally:
        results.close()
        try:
            writer.close()
        except OSError as e:
            if failed is None and e.errno != errno.EPIPE:
                failed = write_error(out or "the output", e)
    for line in summary.lines():
        click.echo(line, err=True)
    if failed is not None:
        raise failed
    if interrupted:
        click.echo("interrupted: every result above is written; run again to resume", err=True)
        return 130
    return 1 if summary.bad_lines else 0
