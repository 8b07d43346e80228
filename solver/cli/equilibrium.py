"""The game-solving commands: `dnoir solve --mode game` (its output) and `dnoir exploit`.

Both solve the hidden-information round-4 game of solver.solvers.equilibrium: both hands and the
removed cards dealt uniformly from the cards not public.
"""

from __future__ import annotations

import json

import click

from solver.agents.progress import Progress
from solver.analysis.exploit import ExploitReport, exploitability
from solver.base.bounds import MAX_SECONDS, MAX_SEED, MAX_TT_MB
from solver.cli.common import PositionArgsCommand, Real, Whole, moves_option, position_arg
from solver.rules.cards import format_counts
from solver.rules.notation import PLAYERS
from solver.solvers.equilibrium import (
    DEFAULT_MAX_MEMORY_MB,
    DEFAULT_SECONDS,
    DEFAULT_TARGET,
    GAME_NOTE,
    GameSolution,
    solve_game,
)
from solver.solvers.limit import Limit


def render_game(pos, sol: GameSolution) -> str:
    """The text form of a solved game: value, exploitability, the mover's strategy at its hand."""
    mover = PLAYERS[sol.to_move]
    out = [f"game, {mover} to move: value {sol.game_value:.6f} for {mover} over every deal, "
           f"exploitability {sol.exploitability:.2e}",
           f"the game: {GAME_NOTE}"]
    if sol.moves is None:
        out.append(f"({mover}'s hand is hidden: give it to see the equilibrium strategy at that hand)")
    else:
        out.append(f"{mover}'s equilibrium strategy holding {format_counts(pos.hands[sol.to_move])}: "
                   f"most frequent {sol.best}")
        out.append("move  frequency  expected")
        for m in sol.moves:
            out.append(f"{m.move:<4}  {m.frequency:>9.4f}  {m.expected:>8.4f}")
    out.append(f"iterations {sol.iterations:,}  nodes {sol.estimate.nodes:,}  memory {sol.memory_mb:,.1f} MB  "
               f"time {sol.seconds:.2f} s")
    return "\n".join(out)


def _write_strategy(sol: GameSolution, path: str) -> int:
    try:
        with open(path, "w") as f:
            return sol.write_strategy(f)
    except OSError as e:
        raise click.UsageError(f"--strategy: cannot write {path!r} ({e.strerror or e})") from None


def solve_game_command(pos, as_json: bool, target: float | None, seconds: float | None,
                       strategy_file: str | None, force: bool, max_memory_mb: float | None = None) -> None:
    """`dnoir solve --mode game`: solve, print, and write the strategy file when asked."""
    sol = solve_game(pos, target=DEFAULT_TARGET if target is None else target,
                     limit=Limit(seconds=DEFAULT_SECONDS if seconds is None else seconds),
                     max_memory_mb=DEFAULT_MAX_MEMORY_MB if max_memory_mb is None else max_memory_mb, force=force)
    if as_json:
        out = sol.to_dict()
        if strategy_file:
            out["strategy_infosets"] = _write_strategy(sol, strategy_file)
        click.echo(json.dumps(out))
    else:
        click.echo(render_game(pos, sol))  # shown before the file is written: a failed write loses nothing
        if strategy_file:
            infosets = _write_strategy(sol, strategy_file)
            click.echo(f"strategy: {infosets:,} information sets written to {strategy_file}")


def render_exploit(r: ExploitReport) -> str:
    """The text form of `dnoir exploit`."""
    mover = PLAYERS[r.to_move]
    return "\n".join([
        f"policy {r.policy}: exploitability {r.exploitability:.6f} "
        f"(mean gain of a best response over the game value)",
        f"game value for {mover} {r.game_value:.6f} (solved to exploitability {r.game_exploitability:.1e}); "
        f"the policy against itself {r.policy_value:.6f}",
        f"best response against the policy: a scores {r.best_response[0]:.6f}, b scores {r.best_response[1]:.6f}",
        f"the game: {GAME_NOTE}",
        f"information sets {r.infosets:,}  time {r.seconds:.2f} s",
    ])


@click.command(cls=PositionArgsCommand)
@click.argument("dnp", nargs=-1)
@click.option("--policy", default="view", show_default=True,
              help="view (the one-player-view solver's choice), random (uniform), or a bot spec such as "
                   "greedy or ismcts:iterations=N,seed=S.")
@click.option("--seed", type=Whole(0, MAX_SEED), default=0, show_default=True, help="Seed of a bot policy.")
@click.option("--target", type=Real(1e-12, 1.0), default=1e-6, show_default=True,
              help="Exploitability to which the game itself is solved (for its value).")
@click.option("--time", "seconds", type=Real(0.001, MAX_SECONDS), default=DEFAULT_SECONDS, show_default=True,
              help="Seconds at most for solving the game.")
@click.option("--max-memory-mb", type=Real(1.0, MAX_TT_MB), default=DEFAULT_MAX_MEMORY_MB, show_default=True,
              help="Refuse trees estimated larger than this.")
@click.option("--force", is_flag=True, help="Solve even when the size estimate exceeds the limits.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")
@moves_option
def exploit(dnp, policy, seed, target, seconds, max_memory_mb, force, as_json):
    """The exploitability of a policy in the round-4 game of DNP (both hands hidden).

    Prints the best-response value against the policy for each seat and the
    exploitability: the mean of the two best-response gains over the game value.
    """
    with Progress(total=None, label="information sets of the policy") as progress:
        def on_infoset(done, total):  # a bot policy asks the bot at every one: minutes on a big tree
            progress.total = total
            if done % 50 == 0 or done == total:  # a live line is redrawn at every advance
                progress.advance(done - progress.done)

        report = exploitability(position_arg(dnp), policy=policy, seed=seed, target=target,
                                limit=Limit(seconds=seconds), max_memory_mb=max_memory_mb, force=force,
                                on_infoset=on_infoset)
    click.echo(json.dumps(report.to_dict()) if as_json else render_exploit(report))
