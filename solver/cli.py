"""The `dnoir` command line.

Every error reaches the user as one line on stderr and exit code 2, never a traceback:
`main` runs click without its standalone handling and turns each failure into that line.

DNP positions may begin with '-' (a betrayal card at the old end of the line); such an
argument is taken as the position, not as an option (see `PositionArgsCommand`).
"""

from __future__ import annotations

import json
import os
import random
import sys
import time

import click

from ._ismcts import NODE_BYTES
from .board import render_advice, render_board, render_pairing, render_ratings, render_score, render_solve
from .endgame import DEFAULT_TT_MB
from .search import DEFAULT_MAX_NODES, DEFAULT_POLICY, memory_bound_mb
from .position import EXAMPLE_DNP, Position


class PositionArgsCommand(click.Command):
    """A command whose positional arguments may start with '-' (DNP fields such as '-1-3+2').

    Arguments that look like cards ('-1-3+2', '-') are moved behind '--', so click reads
    them as positional; options, known or not, are left to click.
    """

    def parse_args(self, ctx, args):
        takes_value, flags = set(), set()
        for param in self.get_params(ctx):
            if isinstance(param, click.Option):
                names = param.opts + param.secondary_opts
                (flags if param.is_flag or param.count else takes_value).update(names)
        options, positional, i = [], [], 0
        while i < len(args):
            arg = args[i]
            if arg == "--":
                positional.extend(args[i + 1:])
                break
            name = arg.split("=", 1)[0]
            if _looks_like_cards(arg):
                positional.append(arg)
            elif name in flags or (name in takes_value and "=" in arg):
                options.append(arg)
            elif name in takes_value:
                options.extend(args[i:i + 2])
                i += 1
            elif arg.startswith("-") and arg != "-":
                options.append(arg)  # an unknown option: click names it in its error
            else:
                positional.append(arg)
            i += 1
        return super().parse_args(ctx, options + ["--"] + positional)


def _looks_like_cards(arg: str) -> bool:
    """A DNP or a field of one starting with a betrayal ('-1...'), or the lone '-' of a field."""
    return arg == "-" or (len(arg) > 1 and arg[0] == "-" and arg[1].isdigit())


def _position(words: tuple[str, ...], default: str | None = None) -> Position:
    """The position given as one quoted argument or as its fields unquoted."""
    if not words:
        if default is None:
            raise click.UsageError("a position (DNP) is required")
        return Position.parse(default)
    return Position.parse(" ".join(words))


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="district-noir-solver", prog_name="dnoir")
def cli():
    """District Noir analysis engine: positions, perft, deals, scores and benchmarks.

    Positions are written in DNP, e.g. "5+2 678+3C/????? ./. 1 a -" (see docs/notation.md).
    """


@cli.command(cls=PositionArgsCommand)
@click.argument("dnp", nargs=-1)
def show(dnp):
    """Print a readable board for the position DNP (default: the built-in example)."""
    click.echo(render_board(_position(dnp, default=EXAMPLE_DNP)))


@cli.command(cls=PositionArgsCommand)
@click.argument("dnp", nargs=-1)
def score(dnp):
    """The result and score breakdown of a finished position, or the score so far."""
    click.echo(render_score(_position(dnp)))


@cli.command(cls=PositionArgsCommand)
@click.argument("args", nargs=-1)
@click.option("--divide", is_flag=True, help="First print 'move: count' for every legal move.")
def perft(args, divide):
    """Count the move sequences of DEPTH moves from a fully known position.

    Usage: dnoir perft DNP DEPTH. The deck must be given when DEPTH reaches the end of
    the round. The count is the last line of output.
    """
    if len(args) < 2:
        raise click.UsageError("usage: dnoir perft DNP DEPTH [--divide]")
    try:
        depth = int(args[-1])
    except ValueError:
        raise click.UsageError(f"DEPTH must be a whole number, not {args[-1]!r}") from None
    if depth < 0:
        raise click.UsageError(f"DEPTH must be 0 or more, not {depth}")
    pos = _position(args[:-1])
    if divide and depth >= 1:
        counts = pos.divide(depth)
        for move, count in counts.items():
            click.echo(f"{move}: {count}")
        click.echo(sum(counts.values()))
    else:
        click.echo(pos.perft(depth))


@cli.command()
@click.option("--seed", type=int, default=None, help="Seed of the deal (default: a random one, printed).")
def deal(seed):
    """A random full deal in DNP, and each player's view of it."""
    if seed is None:
        seed = random.SystemRandom().randrange(2**63)
    pos = Position.random_deal(seed)
    click.echo(f"seed    {seed}")
    click.echo(f"deal    {pos}")
    click.echo(f"view a  {pos.view('a')}")
    click.echo(f"view b  {pos.view('b')}")


@cli.command(cls=PositionArgsCommand)
@click.argument("dnp", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--tt-mb", type=click.FloatRange(0.001, 65536), default=DEFAULT_TT_MB, show_default=True,
              help="Transposition table size in MB (fixed; small tables stay in cache and are fastest "
                   "for round-4 trees).")
@click.option("--mode", type=click.Choice(["auto", "open", "view"]), default="auto", show_default=True,
              help="open: both hands known; view: over every hand the opponent may hold; "
                   "auto: open when both hands are known.")
def solve(dnp, as_json, tt_mb, mode):
    """Solve a round-4 position exactly: the value of every legal move, best first.

    With both hands known: each move's outcome (win/draw/loss) and final margin under
    perfect play, and the principal variation. With the opponent's hand hidden: each
    move's expected score over every hand the opponent may hold, with its probability.
    """
    from .endgame import solve as solve_position

    result = solve_position(_position(dnp), tt_mb=tt_mb, mode=mode)
    click.echo(json.dumps(result.to_dict()) if as_json else render_solve(result))


@cli.command(cls=PositionArgsCommand)
@click.argument("dnp", nargs=-1)
@click.option("--time", "seconds", type=click.FloatRange(0.001), default=None,
              help="Seconds to think (default 1 when --iterations is not given).")
@click.option("--iterations", type=click.IntRange(1), default=None,
              help="Iterations in all (reproducible with --seed).")
@click.option("--threads", type=click.IntRange(1, 256), default=None,
              help="Search threads, one tree each (default: every core).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the sampled worlds and playouts.")
@click.option("--policy", type=click.Choice(["random", "greedy"]), default=DEFAULT_POLICY, show_default=True,
              help="Playout policy.")
@click.option("--max-nodes", type=click.IntRange(1000), default=DEFAULT_MAX_NODES, show_default=True,
              help=f"Tree nodes in all threads together; memory is bounded by "
                   f"{NODE_BYTES} bytes a node ({memory_bound_mb():.0f} MB at the default).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def advise(dnp, seconds, iterations, threads, seed, policy, max_nodes, as_json):
    """Advise the side to move: every legal move with its share of the search, estimated
    score (win probability, draws as 1/2) and mean margin, best first.

    Without DNP, the built-in example position. The analysis uses only what the side to
    move can see. Before round 4 it is information-set MCTS; in round 4 it is exact.
    """
    from .search import advise as advise_position

    pos = _position(dnp, default=EXAMPLE_DNP)
    result = advise_position(pos, seconds=seconds, iterations=iterations, threads=threads, seed=seed,
                             policy=policy, max_nodes=max_nodes)
    click.echo(json.dumps(result.to_dict()) if as_json else render_advice(pos, result))


@cli.command()
@click.option("--threads", type=click.IntRange(1, 256), default=1, show_default=True,
              help="Search threads.")
@click.option("--policy", type=click.Choice(["random", "greedy"]), default=DEFAULT_POLICY, show_default=True,
              help="Playout policy.")
def engine(threads, policy):
    """Speak the engine protocol (NOTATION.md) on stdin/stdout, for arenas and GUIs."""
    from .engine import Engine

    Engine(threads=threads, policy=policy).run(sys.stdin)


def _run_games(pairings, pairs, seed, movetime, iterations, out, resume, workers, scheduler, sprt=None):
    """Play every game of the pairings with a progress bar, writing each record to `out` at once.

    Returns (records of this run's pairings, stop reason or None). Ctrl-C stops the run
    and keeps every finished game; with `resume`, games already in `out` are skipped.
    """
    from .match import make_jobs, read_records, record_key, run_jobs, unit_scores

    previous = []
    if out is not None:
        if os.path.exists(out) and os.path.getsize(out) > 0 and not resume:
            raise click.UsageError(f"{out} exists: add --resume to continue it, or choose another --out")
        if resume:
            previous = read_records(out, on_bad_line=lambda n, why: click.echo(
                f"dnoir: warning: {out} line {n} is not a game record ({why}); ignored", err=True))
    wanted = {job.key for job in make_jobs(pairings, pairs, seed, movetime, iterations)}
    records = [r for r in previous if record_key(r) in wanted]
    jobs = make_jobs(pairings, pairs, seed, movetime, iterations, done={record_key(r) for r in records})
    if records:
        click.echo(f"resuming: {len(records)} games already in {out}, {len(jobs)} to play", err=True)
    sink = open(out, "a") if out is not None else None
    if sink is not None and sink.tell() > 0:
        with open(out, "rb") as f:
            f.seek(-1, os.SEEK_END)
            if f.read(1) != b"\n":
                sink.write("\n")  # a line cut by a crash must not swallow the next record
    stop = None
    games = run_jobs(jobs, workers=workers, scheduler=scheduler)
    first = [r for r in records if r["pairing"] == list(pairings[0])]
    started, played = time.perf_counter(), 0
    try:
        with click.progressbar(length=len(jobs), label="games", file=sys.stderr, show_pos=True,
                               item_show_func=lambda text: text) as bar:
            for record in games:
                if sink is not None:
                    sink.write(json.dumps(record) + "\n")
                    sink.flush()
                records.append(record)
                if record["pairing"] == list(pairings[0]):
                    first.append(record)
                units = unit_scores(first)
                played += 1
                rate = played / (time.perf_counter() - started)
                score = f"{pairings[0][0]} scores {sum(units) / len(units):.3f}, " if units else ""
                bar.update(1, f"{score}{rate:.2f} games/s")
                if sprt is not None:
                    stop = sprt.decision(units)
                    if stop is not None:
                        break
    except KeyboardInterrupt:
        stop = "interrupted"
    finally:
        games.close()
        if sink is not None:
            sink.close()
    return records, stop


def _budget_options(f):
    f = click.option("--iterations", type=click.IntRange(1), default=None,
                     help="Iterations a move for ISMCTS bots and engines that do not set their own.")(f)
    f = click.option("--movetime", type=click.IntRange(1), default=None,
                     help="Milliseconds a move for ISMCTS bots and engines that do not set their own "
                          "(engines: default 1000).")(f)
    return f


def _run_options(f):
    f = click.option("--scheduler", default=None, metavar="tcp://HOST:PORT",
                     help="Run the games on this Dask scheduler (extra [cluster]).")(f)
    f = click.option("--workers", type=click.IntRange(1), default=None,
                     help="Game processes on this machine (default: every core).")(f)
    f = click.option("--resume", is_flag=True, help="Continue --out, skipping the games it holds.")(f)
    f = click.option("--out", type=click.Path(dir_okay=False), default=None,
                     help="Write every game record to this JSONL file as it finishes.")(f)
    f = click.option("--seed", type=int, default=0, show_default=True, help="Seed of the deals and bots.")(f)
    f = click.option("--pairs", type=click.IntRange(1), default=100, show_default=True,
                     help="Duplicate pairs (each deal played twice, seats swapped).")(f)
    return f


def _check_spec(spec: str) -> str:
    from .bots import parse_spec

    if spec.startswith("cmd:"):
        if not spec[4:].strip():
            raise click.BadParameter(f"{spec!r}: give the engine's command after 'cmd:'")
        return spec
    parse_spec(spec)
    return spec


@cli.command()
@click.argument("a")
@click.argument("b")
@_run_options
@_budget_options
@click.option("--sprt", default=None, metavar="ELO0,ELO1[,ALPHA,BETA]",
              help="Stop early on a sequential probability ratio test (as fishtest).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as one JSON object.")
def match(a, b, pairs, seed, out, resume, workers, scheduler, movetime, iterations, sprt, as_json):
    """Play A against B in duplicate pairs and report the score, Elo and more from A's side.

    A and B are bot specs (random, greedy, pimc:worlds=50, ismcts:iterations=2000, ...)
    or external engines 'cmd:<shell command>' speaking the engine protocol.
    """
    from .match import summarise
    from .stats import Sprt

    test = Sprt.parse(sprt) if sprt else None
    records, stop = _run_games([(_check_spec(a), _check_spec(b))], pairs, seed, movetime, iterations, out,
                               resume, workers or os.cpu_count() or 1, scheduler, sprt=test)
    summary = summarise(records, a, b)
    if as_json:
        data = summary.to_dict()
        data.update(stopped=stop)
        if test is not None:
            from .match import unit_scores
            data.update(sprt=dict(llr=test.llr(unit_scores(records)), lower=test.lower, upper=test.upper))
        click.echo(json.dumps(data))
    else:
        click.echo(render_pairing(summary))
        if test is not None:
            from .match import unit_scores
            llr = test.llr(unit_scores(records))
            verdict = {"H1": f"H1 accepted: {a} is at least {test.elo1:+g} Elo",
                       "H0": f"H0 accepted: {a} is at most {test.elo0:+g} Elo"}.get(stop, "undecided")
            click.echo(f"  SPRT [{test.elo0:g}, {test.elo1:g}] alpha {test.alpha} beta {test.beta}: "
                       f"LLR {llr:.2f} in [{test.lower:.2f}, {test.upper:.2f}]: {verdict}")
    if stop == "interrupted":
        click.echo("interrupted: the table covers the games finished so far", err=True)
        return 130
    return 0


@cli.command()
@click.argument("specs", nargs=-1, required=True)
@_run_options
@_budget_options
@click.option("--plot", type=click.Path(dir_okay=False), default=None,
              help="Draw Elo against search budget to this PNG (specs that differ only in budget; extra [plot]).")
@click.option("--json", "as_json", is_flag=True, help="Print the Elo table as one JSON object.")
def tournament(specs, pairs, seed, out, resume, workers, scheduler, movetime, iterations, plot, as_json):
    """Round robin between SPECS in duplicate pairs, with a maximum-likelihood Elo table."""
    from .match import summarise
    from .stats import bradley_terry

    if len(specs) < 2 or len(set(specs)) != len(specs):
        raise click.UsageError("a tournament needs at least two different specs")
    specs = [_check_spec(s) for s in specs]
    pairings = [(x, y) for i, x in enumerate(specs) for y in specs[i + 1:]]
    if plot:
        budgets = _budgets(specs)  # fail before playing, not after
    records, stop = _run_games(pairings, pairs, seed, movetime, iterations, out, resume,
                               workers or os.cpu_count() or 1, scheduler)
    index = {s: i for i, s in enumerate(specs)}
    results = []
    for r in records:
        x, y = r["pairing"]
        results.append((index[x], index[y], _x_score(r)))
    ratings = bradley_terry(specs, results)
    if as_json:
        click.echo(json.dumps(dict(ratings=[r.__dict__ for r in ratings],
                                   pairings=[summarise(records, x, y).to_dict() for x, y in pairings],
                                   stopped=stop)))
    else:
        for x, y in pairings:
            click.echo(render_pairing(summarise(records, x, y)))
        click.echo("")
        click.echo(render_ratings(ratings))
    if plot:
        from .plot import plot_elo_by_budget
        plot_elo_by_budget(ratings, budgets, plot)
        click.echo(f"plot written to {plot}", err=True)
    return 130 if stop == "interrupted" else 0


def _x_score(record: dict) -> float:
    from .arena import score_for

    return score_for(record, "a" if record["game"] == 0 else "b")


def _budgets(specs) -> dict:
    """{spec: budget} when the specs differ only in their budget (iterations or time)."""
    from .bots import parse_spec

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


@cli.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--game", "index", type=click.IntRange(0), default=0, show_default=True,
              help="Which game of the file (0 = the first record).")
def replay(file, index):
    """Step through a recorded game, showing the board after every move."""
    from .match import read_records

    records = read_records(file, on_bad_line=lambda n, why: click.echo(
        f"dnoir: warning: {file} line {n} is not a game record ({why}); skipped", err=True))
    if index >= len(records):
        raise click.UsageError(f"{file} holds {len(records)} game records; --game {index} is past the end")
    record = records[index]
    pos = Position.parse(record["deal"])
    players = record.get("players", {})
    click.echo(f"game {index}: a = {players.get('a')}, b = {players.get('b')}")
    click.echo(render_board(pos))
    for number, token in enumerate(record["moves"].split(), 1):
        mover = "ab"[pos.to_move]
        pos = pos.play(token)
        click.echo(f"\n--- move {number}: {mover} plays {token}")
        click.echo(render_board(pos))
    if "fault" in record:
        f = record["fault"]
        click.echo(f"\n{f['player']} forfeits: {f['kind']} ({f['detail']})")
    result = record["result"]
    click.echo(f"\nresult: {result['winner']} ({result['how']})")


@cli.command()
@click.argument("input_file", metavar="INPUT", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option("--out", type=click.Path(dir_okay=False), default=None,
              help="Write results here as they finish (default: standard output); ids already in it are "
                   "skipped, so an interrupted run resumes.")
@click.option("--csv", "as_csv", is_flag=True, help="Write CSV rather than JSONL.")
@click.option("--workers", type=click.IntRange(1), default=None, help="Worker processes (default: every core).")
@click.option("--scheduler", default=None, metavar="tcp://HOST:PORT",
              help="Solve on this Dask scheduler (extra [cluster]).")
def analyse(input_file, out, as_csv, workers, scheduler):
    """Solve every round-4 position of INPUT exactly and annotate the round-4 decisions of games.

    INPUT holds DNP lines, JSON positions {"id": ..., "dnp": ...} and JSON game records (as
    `dnoir match --out` writes them), in any mix, one a line. A bad line is reported with
    its number and the rest still runs; the exit code is then 1.
    """
    from .batch import Summary, Writer, existing_ids, make_plan, read_items, run_plan

    summary = Summary()

    def bad_line(number, reason):
        summary.bad_lines += 1
        click.echo(f"dnoir: {input_file} line {number}: {' '.join(reason.split())}", err=True)

    with click.open_file(input_file) as stream:
        items = read_items(stream, bad_line)
    done = existing_ids(out, as_csv) if out is not None else set()
    plan = make_plan(items, done)
    summary.already_done = plan.skipped_done
    if plan.skipped_done:
        click.echo(f"resuming: {plan.skipped_done} items already in {out}", err=True)
    writer = Writer(out, as_csv, stream=click.get_text_stream("stdout"))
    results = run_plan(plan, workers=workers or os.cpu_count() or 1, scheduler=scheduler)
    interrupted = False
    try:
        total = sum(len(group) for group in plan.copies.values())
        with click.progressbar(length=total, label="items", file=sys.stderr, show_pos=True) as bar:
            for _, result in results:
                writer.write(result)
                summary.add(result)
                bar.update(1)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        results.close()
        writer.close()
    for line in summary.lines():
        click.echo(line, err=True)
    if interrupted:
        click.echo("interrupted: every result above is written; run again to resume", err=True)
        return 130
    return 1 if summary.bad_lines else 0


@cli.group(invoke_without_command=True)
@click.option("--json", "as_json", is_flag=True, help="With no subcommand: print one JSON object.")
@click.pass_context
def bench(ctx, as_json):
    """Speed benchmarks (figures are ratios against a baseline measured in the same run).

    With no subcommand, runs the speed suites (playouts, solver, search) in a shorter form
    and prints one table with the fixed-position signature: total nodes searched on fixed
    positions, which a change meant to be speed-only must not change.
    """
    if ctx.invoked_subcommand is not None:
        return
    from .bench.search import run_speed_part
    from .bench.signature import signature
    from .bench.solve import run_solve
    from .bench.speed import run_speed

    report = dict(speed=run_speed(games=300_000, reference_games=500), solve=run_solve(positions=100),
                  search=run_speed_part(seconds=1.0, deals=2), signature=signature())
    if as_json:
        click.echo(json.dumps(report))
        return
    sp, so, se, sig = report["speed"], report["solve"], report["search"], report["signature"]
    rows = [
        ("random games/s (core)", f"{sp['games_per_second']:,.0f}", f"x{sp['ratio']:,.0f} the Python model"),
        ("open solve, round-4 start", f"{so['open_median_ms']:.3f} ms", f"p95 {so['open_p95_ms']:.3f} ms, "
         f"table-off x{1 / so['table_time_ratio']:.2f} slower"),
        ("view solve, round-4 start", f"{so['view_median_ms']:.2f} ms", f"p95 {so['view_p95_ms']:.2f} ms"),
        ("ISMCTS iterations/s, 1 thread", f"{se['iterations_per_second']:,}",
         f"{se['iterations_per_playout']} per random game"),
        (f"ISMCTS iterations/s, {se['threads']} threads", f"{se['iterations_per_second_all_threads']:,}",
         f"x{se['thread_speedup']} one thread"),
        ("signature (nodes)", f"{sig['signature']:,}",
         f"solver {sig['solver_nodes']:,} + ISMCTS {sig['ismcts_best_visits']:,} + perft {sig['perft6']:,}"),
    ]
    for name, value, note in rows:
        click.echo(f"{name:<32} {value:>14}   {note}")


@bench.command("speed")
@click.option("--games", type=click.IntRange(1), default=1_000_000, show_default=True,
              help="Random games for the C core.")
@click.option("--reference-games", type=click.IntRange(0), default=2_000, show_default=True,
              help="Random games for the pure-Python reference model (0: skip it).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the deals and moves.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def bench_speed(games, reference_games, seed, as_json):
    """Random games per second on one core: the Cython core against the pure-Python model."""
    from .bench.speed import format_speed, run_speed

    report = run_speed(games=games, reference_games=reference_games, seed=seed)
    click.echo(json.dumps(report) if as_json else format_speed(report))


@bench.command("solve")
@click.option("--positions", type=click.IntRange(1), default=300, show_default=True,
              help="Round-4 start positions to solve.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the games that reach them.")
@click.option("--tt-mb", type=click.FloatRange(0.001, 65536), default=DEFAULT_TT_MB, show_default=True,
              help="Transposition table size in MB.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def bench_solve(positions, seed, tt_mb, as_json):
    """Exact-solver times on round-4 starts: open hands, table off, one-player view."""
    from .bench.solve import format_solve, run_solve

    report = run_solve(positions=positions, seed=seed, tt_mb=tt_mb)
    click.echo(json.dumps(report) if as_json else format_solve(report))


@bench.command("search")
@click.option("--seconds", type=click.FloatRange(0.01), default=2.0, show_default=True,
              help="Search time per deal for the speed figures.")
@click.option("--deals", type=click.IntRange(1), default=3, show_default=True, help="Deals for the speed figures.")
@click.option("--strength/--no-strength", default=False, show_default=True,
              help="Also play the strength matches (long: minutes to an hour).")
@click.option("--games", type=click.IntRange(2), default=200, show_default=True,
              help="Games against each baseline (duplicate pairs).")
@click.option("--movetime", type=click.IntRange(1), default=100, show_default=True,
              help="ISMCTS milliseconds a move against the baselines.")
@click.option("--scaling-pairs", type=click.IntRange(1), default=100, show_default=True,
              help="Duplicate pairs at each budget of the 4x scaling curve.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the deals.")
@click.option("--workers", type=click.IntRange(1), default=None, help="Game processes (default: every core).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def bench_search(seconds, deals, strength, games, movetime, scaling_pairs, seed, workers, as_json):
    """ISMCTS iterations per second (1 thread, all threads) and, with --strength, match scores."""
    from .bench.search import format_speed_part, run_latency_part, run_speed_part, run_strength_part

    report = run_speed_part(seconds=seconds, deals=deals)
    report.update(run_latency_part())
    if not as_json:
        click.echo(format_speed_part(report))
    if strength:
        log = (lambda line: None) if as_json else click.echo
        report.update(run_strength_part(games=games, movetime_ms=movetime, scaling_pairs=scaling_pairs,
                                        seed=seed, workers=workers, log=log))
    if as_json:
        click.echo(json.dumps(report))


@bench.command("analyse")
@click.option("--positions", type=click.IntRange(1), default=400, show_default=True,
              help="Round-4 start positions to analyse.")
@click.option("--workers", type=click.IntRange(1), default=None, help="Processes for the parallel run (default: every core).")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the games that reach them.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
def bench_analyse(positions, workers, seed, as_json):
    """Batch analysis rate with one worker and with every core, and the speed-up."""
    from .bench.analyse import format_analyse, run_analyse

    report = run_analyse(positions=positions, workers=workers, seed=seed)
    click.echo(json.dumps(report) if as_json else format_analyse(report))


def main(argv=None) -> int:
    """Entry point of the `dnoir` console script: run the CLI, turn every error into one line."""
    try:
        rv = cli.main(args=argv, prog_name="dnoir", standalone_mode=False)
    except click.exceptions.Exit as e:
        return e.exit_code
    except click.ClickException as e:
        _fail(e.format_message())
    except click.Abort:
        _fail("interrupted", code=130)
    except KeyboardInterrupt:
        _fail("interrupted", code=130)
    except ValueError as e:  # PositionError, MoveError, CardError
        _fail(str(e))
    except BrokenPipeError:
        return 0
    return rv if isinstance(rv, int) else 0


def _fail(message: str, code: int = 2):
    line = " ".join(str(message).split())
    click.echo(f"dnoir: error: {line}", err=True)
    sys.exit(code)


if __name__ == "__main__":
    sys.exit(main())
