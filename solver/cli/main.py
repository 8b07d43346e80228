"""The `dnoir` command line: the root group, the position commands, and `main`.

The other commands are defined in leaf modules of this package (bench, equilibrium, games,
play, serve) that know nothing of this one; the root adds them. What the leaves share with
the root (positions on the command line, the click number types) is in solver.cli.common.

`main` runs click without its standalone handling and sorts every failure: an input
mistake (the solver.errors family, a usage error) is one line on stderr and exit code 2;
anything else is a bug, reported as an internal error with exit code 1, and with its
traceback under `dnoir --debug`.
"""

from __future__ import annotations

import errno
import importlib
import json
import os
import random
import sys
import traceback

import click

from solver.base.bounds import (
    MAX_ITERATIONS,
    MAX_MOVETIME_MS,
    MAX_NODES,
    MAX_SECONDS,
    MAX_SEED,
    MAX_THREADS,
    MAX_TT_MB,
    MIN_NODES,
    MIN_TT_MB,
    whole,
)
from solver.cli.common import PositionArgsCommand, Real, Whole, moves_option, output_path, position_arg, search_options
from solver.cli.equilibrium import exploit, solve_game_command
from solver.errors import DnoirError, SetupError
from solver.interfaces.board import render_advice, render_board, render_score, render_solve
from solver.interfaces.engine import Engine
from solver.rules.position import EXAMPLE_DNP, Position
from solver.solvers._ismcts import NODE_BYTES
from solver.solvers.endgame import DEFAULT_TT_MB
from solver.solvers.endgame import solve as solve_position
from solver.solvers.limit import Limit
from solver.solvers.search import DEFAULT_MAX_NODES, memory_bound_mb
from solver.solvers.search import advise as advise_position


# The commands of the leaf modules whose imports are heavy (numpy through the statistics, the
# benchmarks, the play loop, the web server): loaded when their command runs or `--help` lists
# them, so that `dnoir show` or `dnoir engine` does not pay for them at start-up (0.1 s of 0.2).
LAZY_COMMANDS = {
    "analyse": "solver.cli.games", "match": "solver.cli.games", "replay": "solver.cli.games",
    "tournament": "solver.cli.games", "bench": "solver.cli.bench", "play": "solver.cli.play",
    "review": "solver.cli.play", "serve": "solver.cli.serve",
}


class LazyGroup(click.Group):
    """The root group: its own commands, and LAZY_COMMANDS imported from their module by name."""

    def list_commands(self, ctx):
        return sorted({*super().list_commands(ctx), *LAZY_COMMANDS})

    def get_command(self, ctx, name):
        if name in LAZY_COMMANDS:
            return getattr(importlib.import_module(LAZY_COMMANDS[name]), name)
        return super().get_command(ctx, name)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="district-noir-solver", prog_name="dnoir")
@click.option("--debug", is_flag=True, expose_value=False,
              help="On an internal error (a bug), show its traceback.")
def cli():
    """District Noir analysis engine: positions, perft, deals, scores and benchmarks.

    Positions are written in DNP, e.g. "5+2 678+3C/????? ./. 1 a -" (see docs/notation.md).
    """


@cli.command(cls=PositionArgsCommand)
@click.argument("dnp", nargs=-1)
@moves_option
@click.option("--dnp", "dnp_only", is_flag=True, help="Print only the DNP of the position (after --moves).")
def show(dnp, dnp_only):
    """Print a readable board for the position DNP (default: the built-in example)."""
    pos = position_arg(dnp, default=EXAMPLE_DNP)
    click.echo(str(pos) if dnp_only else render_board(pos))


@cli.command(cls=PositionArgsCommand)
@click.argument("dnp", nargs=-1)
@moves_option
def score(dnp):
    """The result and score breakdown of a finished position, or the score so far."""
    click.echo(render_score(position_arg(dnp)))


@cli.command(cls=PositionArgsCommand)
@click.argument("args", nargs=-1)
@click.option("--divide", is_flag=True, help="First print 'move: count' for every legal move.")
@moves_option
def perft(args, divide):
    """Count the move sequences of DEPTH moves from a fully known position.

    Usage: dnoir perft DNP DEPTH. The deck must be given when DEPTH reaches the end of
    the round. DEPTH is 0 up to the moves left in the game (48 from a deal); a larger
    one is refused, naming the maximum, since no sequence that long exists. The count is
    the last line of output. Ctrl-C stops a long count (exit 130).
    """
    if len(args) < 2:
        raise click.UsageError("usage: dnoir perft DNP DEPTH [--divide]")
    pos = position_arg(args[:-1])
    most = pos.moves_left
    try:
        depth = whole("DEPTH", args[-1], 0, most)
    except ValueError as e:
        raise click.UsageError(f"{e}: the game has at most {most} moves left") from None
    try:
        if divide and depth >= 1:
            counts = pos.divide(depth)
            for move, count in counts.items():
                click.echo(f"{move}: {count}")
            click.echo(sum(counts.values()))
        else:
            click.echo(pos.perft(depth))
    except KeyboardInterrupt:
        # click would print an empty line before its Abort; the Abort alone is one line
        raise click.Abort() from None


@cli.command()
@click.option("--seed", type=Whole(0, MAX_SEED), default=None,
              help="Seed of the deal (default: a random one, printed).")
def deal(seed):
    """A random full deal in DNP, and each player's view of it."""
    if seed is None:
        seed = random.SystemRandom().randrange(MAX_SEED + 1)  # a seed --seed takes back
    pos = Position.random_deal(seed)
    click.echo(f"seed    {seed}")
    click.echo(f"deal    {pos}")
    click.echo(f"view a  {pos.view('a')}")
    click.echo(f"view b  {pos.view('b')}")


@cli.command(cls=PositionArgsCommand)
@click.argument("dnp", nargs=-1)
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@click.option("--tt-mb", type=Real(MIN_TT_MB, MAX_TT_MB), default=DEFAULT_TT_MB, show_default=True,
              help="Transposition table size in MB (fixed; small tables stay in cache and are fastest "
                   "for round-4 trees).")
@click.option("--mode", type=click.Choice(["auto", "open", "view", "game"]), default="auto", show_default=True,
              help="open: both hands known; view: over every hand the opponent may hold; "
                   "auto: open when both hands are known; game: the hidden-information game's equilibrium.")
@click.option("--target", type=Real(1e-12, 1.0), default=None,
              help="game mode: stop once the exploitability is at most this (default 0.001).")
@click.option("--time", "seconds", type=Real(0.001, MAX_SECONDS), default=None,
              help="game mode: seconds at most (default 300).")
@click.option("--strategy", "strategy_file", type=click.Path(dir_okay=False), default=None, callback=output_path,
              help="game mode: write the whole strategy to FILE, one information set a line (JSON).")
@click.option("--max-memory-mb", type=Real(1.0, MAX_TT_MB), default=None,
              help="game mode: refuse trees estimated larger than this many MB (default 4096).")
@click.option("--force", is_flag=True, help="game mode: solve even when the size estimate exceeds the limits.")
@moves_option
def solve(dnp, as_json, tt_mb, mode, target, seconds, strategy_file, max_memory_mb, force):
    """Solve a round-4 position exactly: the value of every legal move, best first.

    With both hands known: each move's outcome (win/draw/loss) and final margin under
    perfect play, and the principal variation. With the opponent's hand hidden: each
    move's expected score over every hand the opponent may hold, with its probability.
    With --mode game: the equilibrium of the game in which both hands are hidden.
    """
    if mode == "game":
        solve_game_command(position_arg(dnp), as_json=as_json, target=target, seconds=seconds,
                           strategy_file=strategy_file, force=force, max_memory_mb=max_memory_mb)
        return
    if max_memory_mb is not None:
        raise click.UsageError("--max-memory-mb is for --mode game (the other modes use --tt-mb)")

    result = solve_position(position_arg(dnp), tt_mb=tt_mb, mode=mode)
    click.echo(json.dumps(result.to_dict()) if as_json else render_solve(result))


@cli.command(cls=PositionArgsCommand)
@click.argument("dnp", nargs=-1)
@click.option("--time", "seconds", type=Real(0.001, MAX_SECONDS), default=None,
              help="Seconds to think (default 1 when --iterations is not given).")
@click.option("--iterations", type=Whole(1, MAX_ITERATIONS), default=None,
              help="Iterations in all (reproducible with --seed).")
@click.option("--threads", type=Whole(1, MAX_THREADS), default=None,
              help="Search threads, one tree each (default: every core).")
@click.option("--seed", type=Whole(0, MAX_SEED), default=0, show_default=True,
              help="Seed of the sampled worlds and playouts.")
@search_options
@click.option("--max-nodes", type=Whole(MIN_NODES, MAX_NODES), default=DEFAULT_MAX_NODES, show_default=True,
              help=f"Tree nodes in all threads together; memory is bounded by "
                   f"{NODE_BYTES} bytes a node ({memory_bound_mb():.0f} MB at the default).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@moves_option
def advise(dnp, seconds, iterations, threads, seed, config, max_nodes, as_json):
    """Advise the side to move: every legal move with its share of the search and estimated
    score (win probability, draws as 1/2), best first; win/draw/loss and the mean margin where
    games are played out (in round 4, or with --no-round-model).

    Without DNP, the built-in example position. The analysis uses only what the side to
    move can see. Before round 4 it is information-set MCTS; in round 4 it is exact.
    Ctrl-C ends the search early: the best move found so far is printed with its figures
    (exit code 130).
    """
    import signal
    import threading


    pos = position_arg(dnp, default=EXAMPLE_DNP)
    stop = threading.Event()
    previous = signal.signal(signal.SIGINT, lambda signum, frame: stop.set())
    try:
        result = advise_position(pos, Limit.given(seconds, iterations), threads=threads, seed=seed,
                                 config=config, max_nodes=max_nodes, stop=stop)
    finally:
        signal.signal(signal.SIGINT, previous)
    if stop.is_set():
        click.echo(f"interrupted after {result.iterations:,} iterations: the best move found so far", err=True)
    if not dnp and not as_json:  # no position given: show the one advised on
        click.echo(f"the built-in example position: {pos}")
        click.echo(render_board(pos))
        click.echo()
    click.echo(json.dumps(result.to_dict()) if as_json else render_advice(pos, result))
    return 130 if stop.is_set() else 0


@cli.command()
@click.option("--threads", type=Whole(1, MAX_THREADS), default=1, show_default=True,
              help="Search threads.")
@search_options
@click.option("--exact-from", "exact_from_ms", type=Whole(1, MAX_MOVETIME_MS), default=None,
              help="The shortest movetime (ms) at which a round-4 position is solved exactly rather "
                   "than searched [default: the engine's EXACT_MIN_SECONDS].")
@click.option("--ponder/--no-ponder", default=False, show_default=True,
              help="Think on the opponent's time, below the move just given (the Ponder option's "
                   "default): only where each engine of a game has a core of its own.")
def engine(threads, config, exact_from_ms, ponder):
    """Speak the engine protocol (docs/protocol.md) on stdin/stdout, for arenas and GUIs."""
    exact_from = None if exact_from_ms is None else Limit.from_ms(exact_from_ms).seconds
    Engine(threads=threads, config=config, exact_from=exact_from, ponder=ponder).run(sys.stdin)


# The one leaf command loaded at start-up (its module serves `solve --mode game` anyway); the
# other leaves are LAZY_COMMANDS. The leaves never import this module.
cli.add_command(exploit)


def main(argv=None) -> int:
    """Entry point of the `dnoir` console script: run the CLI, sort every failure.

    An input mistake (the solver.errors family, a usage error of click's) is one line,
    ``dnoir: error: ...``, and exit code 2. Anything else is a bug: ``dnoir: internal
    error: <type>: <message>``, a hint to rerun with ``--debug``, and exit code 1; with
    ``dnoir --debug ...`` (or DNOIR_DEBUG=1) the traceback comes first.

    SIGTERM is handled as Ctrl-C (KeyboardInterrupt): a long run stops cleanly, keeps what
    it finished and exits with 130, as after Ctrl-C.
    """
    _sigterm_as_ctrl_c()
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        # click's own `main` is not used: it prints a blank line before its Abort on Ctrl-C
        # and turns a closed output pipe into a silent exit 1
        with cli.make_context("dnoir", list(args)) as ctx:
            rv = cli.invoke(ctx)
    except click.exceptions.Exit as e:
        return e.exit_code
    except click.ClickException as e:
        _fail(e.format_message())
    except (click.Abort, KeyboardInterrupt, EOFError):
        _fail("interrupted", code=130)
    except DnoirError as e:  # PositionError, MoveError, SpecError, RecordError, ...
        _fail(str(e))
    except MemoryError as e:  # too big a table for this machine: the user's size, not a bug
        _fail(str(e) or "out of memory")
    except BrokenPipeError:
        return closed_pipe()
    except OSError as e:
        if e.errno == errno.EPIPE:
            return closed_pipe()
        if e.errno in OUTPUT_FULL:  # standard output on a full disk: the output's problem, not a bug
            _fail(f"cannot write the output: {e.strerror or e}")
        _internal_error(e, debug=_wants_debug(args))
    except SetupError as e:  # a missing extra, an unreachable cluster: the setup, not the input
        _fail(str(e))
    except Exception as e:  # noqa: BLE001 - anything else is a bug
        _internal_error(e, debug=_wants_debug(args))
    code = rv if isinstance(rv, int) else 0
    try:  # what is still buffered for stdout must reach it now, not fail at exit
        sys.stdout.flush()
    except OSError as e:
        if e.errno == errno.EPIPE:
            return closed_pipe()
        _fail(f"cannot write the output: {e.strerror or e}")
    return code


# The exit code after the reader of the output went away (`dnoir ... | head -1`): what a Unix
# tool killed by SIGPIPE reports (128 + 13), never 1 (for `dnoir analyse`: "bad lines").
EXIT_CLOSED_PIPE = 128 + 13
# The errors of writing to a full disk or quota: an output error (exit 2), not a bug.
OUTPUT_FULL = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)


def closed_pipe() -> int:
    """The reader of stdout has gone: end quietly, as Unix tools do (EXIT_CLOSED_PIPE).

    Later writes and the final flush go to /dev/null, so that Python does not complain
    about the pipe at exit.
    """
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):
        pass
    return EXIT_CLOSED_PIPE


def _wants_debug(args: list[str]) -> bool:
    """`--debug` among the root's options (those before the command), or DNOIR_DEBUG set.

    >>> _wants_debug(["--debug", "show"]), _wants_debug(["show", "--debug"])
    (True, False)
    """
    for arg in args:
        if arg == "--debug":
            return True
        if not arg.startswith("-") or arg == "--":
            break  # the command: what follows is its own
    return bool(os.environ.get("DNOIR_DEBUG"))


def _sigterm_as_ctrl_c() -> None:
    import signal
    import threading

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    # only where signals can be set, and not over a handler of the caller's own
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGTERM) == signal.SIG_DFL:
        signal.signal(signal.SIGTERM, interrupt)


def _fail(message: str, code: int = 2):
    line = " ".join(str(message).split())
    click.echo(f"dnoir: error: {line}", err=True)
    try:
        sys.stdout.flush()
    except OSError:  # the output is the problem (full, closed): drop what is buffered for it
        closed_pipe()
    sys.exit(code)


def _internal_error(e: Exception, debug: bool):
    """A bug: its type and message (and its traceback when debugging), exit code 1."""
    if debug:
        traceback.print_exception(type(e), e, e.__traceback__, file=sys.stderr)
    line = " ".join(str(e).split())
    click.echo(f"dnoir: internal error: {type(e).__name__}: {line}", err=True)
    if not debug:
        click.echo("dnoir: this is a bug in dnoir, not in your input; rerun as `dnoir --debug ...` "
                   "to see the traceback", err=True)
    sys.exit(1)

