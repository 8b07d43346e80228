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

import click

from ._ismcts import NODE_BYTES, POLICY_NAMES
from .board import render_advice, render_board, render_score, render_solve
from .bounds import (
    MAX_ITERATIONS, MAX_NODES, MAX_SECONDS, MAX_SEED, MAX_THREADS, MAX_TT_MB, MIN_NODES, MIN_TT_MB,
    Real, Whole, whole,
)
from .endgame import DEFAULT_TT_MB
from .search import DEFAULT_MAX_NODES, DEFAULT_POLICY, memory_bound_mb
from .position import EXAMPLE_DNP, Position


class PositionArgsCommand(click.Command):
    """A command whose positional arguments may start with '-' (DNP fields such as '-1-3+2').

    Arguments that look like cards ('-1-3+2', '-') are moved behind '--', so click reads
    them as positional; options, known or not, are left to click.
    """

    def parse_args(self, ctx, args):
        """Move card-like arguments behind '--' before click parses them."""
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
    """The position given as one quoted argument or as its fields unquoted, after any `--moves`."""
    if not words:
        if default is None:
            raise click.UsageError("a position (DNP) is required")
        words = (default,)
    from .events import apply_option

    ctx = click.get_current_context(silent=True)
    return apply_option(Position.parse(" ".join(words)), ctx.meta.get(MOVES_KEY) if ctx else None)


MOVES_KEY = "dnoir.moves"


def moves_option(f):
    """The `--moves EVENTS` option of a command that takes a DNP: `_position` applies the events."""
    return click.option("--moves", metavar="EVENTS", default=None, expose_value=False,
                        callback=lambda ctx, _param, value: ctx.meta.__setitem__(MOVES_KEY, value),
                        help="Events applied to the DNP first: move tokens and hand:<cards> for your "
                             "new hand at a round start, e.g. \"8 -1 T\".")(f)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="district-noir-solver", prog_name="dnoir")
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
    pos = _position(dnp, default=EXAMPLE_DNP)
    click.echo(str(pos) if dnp_only else render_board(pos))


@cli.command(cls=PositionArgsCommand)
@click.argument("dnp", nargs=-1)
@moves_option
def score(dnp):
    """The result and score breakdown of a finished position, or the score so far."""
    click.echo(render_score(_position(dnp)))


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
    pos = _position(args[:-1])
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
@click.option("--strategy", "strategy_file", type=click.Path(dir_okay=False), default=None,
              help="game mode: write the whole strategy to FILE, one information set a line (JSON).")
@click.option("--force", is_flag=True, help="game mode: solve even when the size estimate exceeds the limits.")
@moves_option
def solve(dnp, as_json, tt_mb, mode, target, seconds, strategy_file, force):
    """Solve a round-4 position exactly: the value of every legal move, best first.

    With both hands known: each move's outcome (win/draw/loss) and final margin under
    perfect play, and the principal variation. With the opponent's hand hidden: each
    move's expected score over every hand the opponent may hold, with its probability.
    With --mode game: the equilibrium of the game in which both hands are hidden.
    """
    from .endgame import solve as solve_position

    if mode == "game":
        from .cli_equilibrium import solve_game_command

        solve_game_command(_position(dnp), as_json=as_json, target=target, seconds=seconds,
                           strategy_file=strategy_file, force=force)
        return

    result = solve_position(_position(dnp), tt_mb=tt_mb, mode=mode)
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
@click.option("--policy", type=click.Choice(POLICY_NAMES), default=DEFAULT_POLICY, show_default=True,
              help="Playout policy.")
@click.option("--max-nodes", type=Whole(MIN_NODES, MAX_NODES), default=DEFAULT_MAX_NODES, show_default=True,
              help=f"Tree nodes in all threads together; memory is bounded by "
                   f"{NODE_BYTES} bytes a node ({memory_bound_mb():.0f} MB at the default).")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@moves_option
def advise(dnp, seconds, iterations, threads, seed, policy, max_nodes, as_json):
    """Advise the side to move: every legal move with its share of the search, estimated
    score (win probability, draws as 1/2) and mean margin, best first.

    Without DNP, the built-in example position. The analysis uses only what the side to
    move can see. Before round 4 it is information-set MCTS; in round 4 it is exact.
    Ctrl-C ends the search early: the best move found so far is printed with its figures
    (exit code 130).
    """
    import signal
    import threading

    from .search import advise as advise_position

    pos = _position(dnp, default=EXAMPLE_DNP)
    stop = threading.Event()
    previous = signal.signal(signal.SIGINT, lambda signum, frame: stop.set())
    try:
        result = advise_position(pos, seconds=seconds, iterations=iterations, threads=threads, seed=seed,
                                 policy=policy, max_nodes=max_nodes, stop=stop)
    finally:
        signal.signal(signal.SIGINT, previous)
    if stop.is_set():
        click.echo(f"interrupted after {result.iterations:,} iterations: the best move found so far", err=True)
    click.echo(json.dumps(result.to_dict()) if as_json else render_advice(pos, result))
    return 130 if stop.is_set() else 0


@cli.command()
@click.option("--threads", type=Whole(1, MAX_THREADS), default=1, show_default=True,
              help="Search threads.")
@click.option("--policy", type=click.Choice(POLICY_NAMES), default=DEFAULT_POLICY, show_default=True,
              help="Playout policy.")
def engine(threads, policy):
    """Speak the engine protocol (NOTATION.md) on stdin/stdout, for arenas and GUIs."""
    from .engine import Engine

    Engine(threads=threads, policy=policy).run(sys.stdin)


def main(argv=None) -> int:
    """Entry point of the `dnoir` console script: run the CLI, turn every error into one line.

    SIGTERM is handled as Ctrl-C (KeyboardInterrupt): a long run stops cleanly, keeps what
    it finished and exits with 130, as after Ctrl-C.
    """
    _sigterm_as_ctrl_c()
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
    except ValueError as e:  # PositionError, MoveError, CardError, a bad bot spec
        _fail(str(e))
    except (RuntimeError, MemoryError) as e:  # a missing extra, an unreachable cluster, too big a table
        _fail(str(e) or type(e).__name__)
    except BrokenPipeError:
        return 0
    except Exception as e:  # a bug: still one line, and the traceback on request
        if os.environ.get("DNOIR_DEBUG"):
            raise
        _fail(f"internal error ({type(e).__name__}: {e}); set DNOIR_DEBUG=1 for the traceback", code=1)
    return rv if isinstance(rv, int) else 0


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
    sys.exit(code)


# The commands of the other modules register themselves on `cli` when imported.
from . import cli_bench, cli_equilibrium, cli_games  # noqa: E402,F401
from . import cli_play  # noqa: E402,F401

if __name__ == "__main__":
    # run as `python -m solver.cli`: use the package's module, on which every command registered
    from solver.cli import main as package_main

    sys.exit(package_main())
