"""What every `dnoir` command module shares: positions and players given on the command
line, the click types of bounded numbers, the search options.

A leaf of the command line (solver.cli.games, solver.cli.play, ...) imports from here, never
from solver.cli.main, which imports the leaves to add their commands: the modules form a
tree, not a circle.

DNP positions may begin with '-' (a betrayal card at the old end of the line); such an
argument is taken as the position, not as an option (see `PositionArgsCommand`).
"""

from __future__ import annotations

import functools
import os

import click

from solver.agents.bots import parse_spec
from solver.agents.external import EngineFault, check_engine
from solver.base.bounds import (MAX_EXPLORATION, MAX_MODEL_TEMPERATURE, MAX_TREE_ROUNDS, MIN_MODEL_TEMPERATURE, fmt,
                                 real, whole)
from solver.rules.events import apply_option
from solver.rules.position import Position
from solver.solvers._ismcts import MAX_HAND_PRIOR, MAX_POLY_BONUS, POLICY_NAMES
from solver.solvers.searchconfig import PRESETS, SearchConfig, from_options

MOVES_KEY = "dnoir.moves"


class Whole(click.ParamType):
    """A click type for a whole number in [low, high]: the error names the option and the range."""

    name = "integer"

    def __init__(self, low: int, high: int):
        self.low, self.high = low, high

    def convert(self, value, param, ctx):
        if isinstance(value, int) and not isinstance(value, bool) and self.low <= value <= self.high:
            return value
        try:
            return whole(param.opts[0] if param is not None else "value", value, self.low, self.high)
        except ValueError as e:
            self.fail(str(e).split(": ", 1)[1], param, ctx)

    def get_metavar(self, param, ctx=None):
        return f"INTEGER {self.low}..{self.high}"


class Real(click.ParamType):
    """A click type for a finite number in [low, high] (click's FloatRange lets NaN through)."""

    name = "float"

    def __init__(self, low: float, high: float):
        self.low, self.high = low, high

    def convert(self, value, param, ctx):
        try:
            return real(param.opts[0] if param is not None else "value", value, self.low, self.high)
        except ValueError as e:
            self.fail(str(e).split(": ", 1)[1], param, ctx)

    def get_metavar(self, param, ctx=None):
        return f"FLOAT {fmt(self.low)}..{fmt(self.high)}"


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
            if looks_like_cards(arg):
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


def looks_like_cards(arg: str) -> bool:
    """A DNP or a field of one starting with a betrayal ('-1...'), or the lone '-' of a field.

    >>> looks_like_cards("-1-3+2"), looks_like_cards("-"), looks_like_cards("--json")
    (True, True, False)
    """
    return arg == "-" or (len(arg) > 1 and arg[0] == "-" and arg[1].isdigit())


def position_arg(words: tuple[str, ...], default: str | None = None) -> Position:
    """The position given as one quoted argument or as its fields unquoted, after any `--moves`."""
    if not words:
        if default is None:
            raise click.UsageError("a position (DNP) is required")
        words = (default,)

    ctx = click.get_current_context(silent=True)
    return apply_option(Position.parse(" ".join(words)), ctx.meta.get(MOVES_KEY) if ctx else None)


def moves_option(f):
    """The `--moves EVENTS` option of a command that takes a DNP: `position_arg` applies the events."""
    return click.option("--moves", metavar="EVENTS", default=None, expose_value=False,
                        callback=lambda ctx, _param, value: ctx.meta.__setitem__(MOVES_KEY, value),
                        help="Events applied to the DNP first: move tokens and hand:<cards> for your "
                             "new hand at a round start, e.g. \"8 -1 T\".")(f)


def search_options(command):
    """The options of a command that searches: a preset (`--search`) and the settings that
    replace its fields (solver.solvers.searchconfig). The command receives one `config`."""
    options = [
        click.option("--search", "preset", type=click.Choice(tuple(PRESETS)), default="default", show_default=True,
                     help="The search configuration to start from: 'default' (the strongest tested, "
                          "bench/STRENGTH.md), or '66bbc8c', '5e7c200', '29c04e6', '7d9ffe8' or '388581d' (the default search as that "
                          "commit shipped it)."),
        click.option("--policy", type=click.Choice(POLICY_NAMES), default=None,
                     help="Playout policy [default: the preset's]."),
        click.option("--exploration", type=Real(0.0, MAX_EXPLORATION), default=None,
                     help="The UCB exploration constant at the mover's decisions [default: the preset's]."),
        click.option("--opponent-exploration", type=Real(0.0, MAX_EXPLORATION), default=None,
                     help="The exploration constant at the opponent's decisions [default: the preset's]."),
        click.option("--root-exploration", type=Real(0.0, MAX_EXPLORATION), default=None,
                     help="The exploration constant at the root, whose visits choose the advice "
                          "[default: the preset's, which is --exploration's]."),
        click.option("--round4-exploration", type=Real(0.0, MAX_EXPLORATION), default=None,
                     help="With the round-end model, the exploration constant at round 4's decisions "
                          "below a root of rounds 1-3, whose results are all played out [default: the preset's]."),
        click.option("--poly-bonus", type=Real(0.0, MAX_POLY_BONUS), default=None, metavar="K",
                     help="With the round-end model, the exploration bonus c K avail^(1/4) / sqrt(visits) "
                          "instead of UCB1's c sqrt(ln(avail) / visits); 0.467 agrees with UCB1 at 1,000 "
                          "visits; 0: UCB1's; no effect without the model [default: the preset's]."),
        click.option("--margin", type=Real(0.0, 1.0), default=None,
                     help="Weight of the final margin in the selection: a margin of 40 points counts as "
                          "this fraction of a win; needs played-out games (--no-round-model) "
                          "[default: the preset's]."),
        click.option("--take-margin", type=Real(0.0, 1.0), default=None, metavar="M",
                     help="Before round 4, the search's take is played only when its mean beats the best "
                          "play's by M (a fraction of a win), else that play is; 0: the search's own "
                          "choice [default: the preset's]."),
        click.option("--tuned/--no-tuned", default=None,
                     help="UCB1-Tuned selection: a move's exploration shrinks with the spread of its "
                          "results; needs played-out games (--no-round-model) [default: the preset's]."),
        click.option("--opponent-hands", type=Real(0.0, MAX_HAND_PRIOR), default=None,
                     help="The opponent's choices learnt per hand it holds in the sampled world, the "
                          "shared mean counted as this many visits of prior; 0: off [default: the preset's]."),
        click.option("--hand-bandit/--no-hand-bandit", default=None,
                     help="With --opponent-hands, each hand the opponent may hold explores its moves on "
                          "its own counts, and its sums hold the model's exact values [default: the preset's]."),
        click.option("--reuse/--no-reuse", default=None,
                     help="Go on from the last move's tree when the game follows it (the engine, play) "
                          "[default: the preset's]."),
        click.option("--tree-rounds", type=Whole(0, MAX_TREE_ROUNDS), default=None,
                     help="Rounds the tree spans, the root's first; the rest is played out at random; "
                          "0: to the game's end [default: the preset's]."),
        click.option("--settled-stop/--no-settled-stop", default=None,
                     help="End each descent and playout once the result is settled (round 4, both "
                          "players have taken) [default: the preset's]."),
        click.option("--round-model/--no-round-model", default=None,
                     help="Playouts end with their round, scored by the round-end model's chance of a win "
                          "under random play, instead of playing the rounds left [default: the preset's]."),
        click.option("--model-temperature", type=Real(MIN_MODEL_TEMPERATURE, MAX_MODEL_TEMPERATURE), default=None,
                     help="With the round-end model, its logit times this: how surely a lead wins "
                          "(1: as under random play; 1.75-1.86 in recorded engine games) [default: the preset's]."),
        click.option("--third-city/--no-third-city", default=None,
                     help="With the round-end model, a round end whose next first player holds two cities "
                          "with a city within reach of a take is its win, not the model's value "
                          "[default: the preset's]."),
    ]

    def build(callback):
        @functools.wraps(callback)  # keeps the options click has already attached to it
        def wrapper(*args, preset, policy, exploration, opponent_exploration, root_exploration,
                    round4_exploration, poly_bonus, margin, take_margin, tuned, opponent_hands, hand_bandit, reuse, tree_rounds,
                    settled_stop, round_model, model_temperature, third_city, **kwargs):
            config = from_options(preset, policy=policy, exploration=exploration,
                                  opponent_exploration=opponent_exploration, root_exploration=root_exploration,
                                  round4_exploration=round4_exploration, poly_bonus=poly_bonus, margin=margin,
                                  take_margin=take_margin, tuned=tuned,
                                  opponent_hands=opponent_hands, reuse=reuse, round_model=round_model,
                                  tree_rounds=tree_rounds, settled_stop=settled_stop, hand_bandit=hand_bandit,
                                  model_temperature=model_temperature, third_city=third_city)
            return callback(*args, config=config, **kwargs)

        wrapper.__dict__["__click_params__"] = list(getattr(callback, "__click_params__", []))
        for option in reversed(options):
            wrapper = option(wrapper)
        return wrapper

    return build(command)


def output_path(ctx, param, value):
    """A click callback for an option that names an output file: checked when the command
    line is read, before any game, iteration or question, so that a run never fails at
    its end for want of a place to write (the folder exists and can be written, the path
    is not a folder, an existing file can be written)."""
    if value is None or value == "-":
        return value
    check_output_path(value, param.opts[0] if param is not None else "the output")
    return value


def check_output_path(path: str, option: str) -> None:
    """OptionError-like click.BadParameter unless `path` can be written (see output_path)."""
    folder = os.path.dirname(os.path.abspath(path))
    why = None
    if not os.path.isdir(folder):
        why = f"the folder {folder} does not exist"
    elif os.path.isdir(path):
        why = "it is a folder"
    elif os.path.exists(path) and not os.access(path, os.W_OK):
        why = "permission denied"
    elif not os.path.exists(path) and not os.access(folder, os.W_OK | os.X_OK):
        why = f"the folder {folder} cannot be written"
    if why is not None:
        raise click.BadParameter(f"cannot write {path}: {why}", param_hint=f"'{option}'")


__all__ = ["MOVES_KEY", "PositionArgsCommand", "SearchConfig", "check_output_path", "moves_option", "output_path",
           "position_arg", "search_options"]


def checked_player_spec(spec: str) -> str:
    """The spec, checked before the first game: a bot spec parses, an engine command shakes hands."""
    if spec.startswith("cmd:"):
        if not spec[4:].strip():
            raise click.BadParameter(f"{spec!r}: give the engine's command after 'cmd:'")
        try:
            check_engine(spec[4:].strip())
        except EngineFault as e:
            raise click.UsageError(f"engine {spec[4:].strip()!r} does not work: {e}") from None
        return spec
    parse_spec(spec)
    return spec
