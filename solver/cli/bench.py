"""The `dnoir bench` commands: speed suites printed against baselines measured in the same run."""

from __future__ import annotations

import json

import click

from solver.base.bounds import (
    MAX_GAMES,
    MAX_ITERATIONS,
    MAX_MOVETIME_MS,
    MAX_PAIRS,
    MAX_POSITIONS,
    MAX_SECONDS,
    MAX_SEED,
    MAX_TT_MB,
    MAX_WORKERS,
    MIN_TT_MB,
)
from solver.bench.adapters import format_adapters, run_adapters
from solver.bench.analyse import format_analyse, run_analyse
from solver.bench.api import format_api, run_api
from solver.bench.equilibrium import format_game, run_game
from solver.bench.search import format_speed_part, run_latency_part, run_speed_part, run_strength_part
from solver.bench.signature import signature
from solver.bench.solve import format_solve, run_solve
from solver.bench.speed import format_speed, run_speed
from solver.cli.common import Real, Whole
from solver.solvers.endgame import DEFAULT_TT_MB
from solver.solvers.limit import Limit


def seed_option(what: str):
    """The --seed option of a suite; `what` says what the seed draws."""
    return click.option("--seed", type=Whole(0, MAX_SEED), default=0, show_default=True, help=f"Seed of {what}.")


# Every suite prints its figures as a table, or as one JSON object.
json_option = click.option("--json", "as_json", is_flag=True, help="Print one JSON object.")


def emit(report: dict, as_json: bool, format_report) -> None:
    """Print a suite's report: one JSON object, or the suite's table."""
    click.echo(json.dumps(report) if as_json else format_report(report))


@click.group(invoke_without_command=True)
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
@click.option("--games", type=Whole(1, MAX_GAMES), default=1_000_000, show_default=True,
              help="Random games for the C core.")
@click.option("--reference-games", type=Whole(0, MAX_GAMES), default=2_000, show_default=True,
              help="Random games for the pure-Python reference model (0: skip it).")
@seed_option("the deals and moves")
@json_option
def bench_speed(games, reference_games, seed, as_json):
    """Random games per second on one core: the Cython core against the pure-Python model."""
    report = run_speed(games=games, reference_games=reference_games, seed=seed)
    emit(report, as_json, format_speed)


@bench.command("api")
@click.option("--games", type=Whole(1, MAX_GAMES), default=2_000, show_default=True,
              help="Random games for each of the API and the reference model.")
@seed_option("the deals and moves")
@json_option
def bench_api(games, seed, as_json):
    """Random games per second through the public Python API (Position), deal and result
    included, against the pure-Python reference model in the same run."""
    report = run_api(games=games, seed=seed)
    emit(report, as_json, format_api)


@bench.command("solve")
@click.option("--positions", type=Whole(1, MAX_POSITIONS), default=300, show_default=True,
              help="Round-4 start positions to solve.")
@seed_option("the games that reach them")
@click.option("--tt-mb", type=Real(MIN_TT_MB, MAX_TT_MB), default=DEFAULT_TT_MB, show_default=True,
              help="Transposition table size in MB.")
@json_option
def bench_solve(positions, seed, tt_mb, as_json):
    """Exact-solver times on round-4 starts: open hands, table off, one-player view."""
    report = run_solve(positions=positions, seed=seed, tt_mb=tt_mb)
    emit(report, as_json, format_solve)


@bench.command("search")
@click.option("--seconds", type=Real(0.01, MAX_SECONDS), default=2.0, show_default=True,
              help="Search time per deal for the speed figures.")
@click.option("--deals", type=Whole(1, MAX_POSITIONS), default=3, show_default=True, help="Deals for the speed figures.")
@click.option("--strength/--no-strength", default=False, show_default=True,
              help="Also play the strength matches (long: minutes to an hour).")
@click.option("--games", type=Whole(2, MAX_GAMES), default=200, show_default=True,
              help="Games against each baseline (duplicate pairs).")
@click.option("--movetime", type=Whole(1, MAX_MOVETIME_MS), default=100, show_default=True,
              help="ISMCTS milliseconds a move against the baselines.")
@click.option("--scaling-pairs", type=Whole(1, MAX_PAIRS), default=100, show_default=True,
              help="Duplicate pairs at each budget of the 4x scaling curve.")
@seed_option("the deals")
@click.option("--workers", type=Whole(1, MAX_WORKERS), default=None, help="Game processes (default: every core).")
@json_option
def bench_search(seconds, deals, strength, games, movetime, scaling_pairs, seed, workers, as_json):
    """ISMCTS iterations per second (1 thread, all threads) and, with --strength, match scores."""
    report = run_speed_part(seconds=seconds, deals=deals)
    report.update(run_latency_part())
    if not as_json:
        click.echo(format_speed_part(report))
    if strength:
        log = (lambda line: None) if as_json else click.echo
        report.update(run_strength_part(games=games, limit=Limit.from_ms(movetime), scaling_pairs=scaling_pairs,
                                        seed=seed, workers=workers, log=log))
    if as_json:
        click.echo(json.dumps(report))


@bench.command("analyse")
@click.option("--positions", type=Whole(1, MAX_POSITIONS), default=400, show_default=True,
              help="Round-4 start positions to analyse.")
@click.option("--workers", type=Whole(1, MAX_WORKERS), default=None, help="Processes for the parallel run (default: every core).")
@seed_option("the games that reach them")
@json_option
def bench_analyse(positions, workers, seed, as_json):
    """Batch analysis rate with one worker and with every core, and the speed-up."""
    report = run_analyse(positions=positions, workers=workers, seed=seed)
    emit(report, as_json, format_analyse)


@bench.command("adapters")
@click.option("--games", type=Whole(1, MAX_PAIRS), default=300, show_default=True,
              help="Random games through each loop (the public API, OpenSpiel, PettingZoo).")
@seed_option("the deals and moves")
@json_option
def bench_adapters(games, seed, as_json):
    """Random games per second through the OpenSpiel game and the PettingZoo environment,
    against the same loop through the public Python API in the same run."""
    report = run_adapters(games=games, seed=seed)
    emit(report, as_json, format_adapters)




@bench.command("game")
@click.option("--positions", type=Whole(1, 10_000), default=10, show_default=True,
              help="Positions at each depth (two and three actions into round 4).")
@seed_option("the self-play games that reach them")
@click.option("--selfplay-iterations", type=Whole(0, MAX_ITERATIONS), default=200, show_default=True,
              help="ISMCTS iterations a move in the self-play games (0: random play).")
@click.option("--ahead", type=click.Choice(["2", "3", "both"]), default="both", show_default=True,
              help="Actions into round 4.")
@click.option("--view/--no-view", default=True, show_default=True,
              help="Also measure the view policy's exploitability.")
@json_option
def bench_game(positions, seed, selfplay_iterations, ahead, view, as_json):
    """Game solver: time to exploitability 1e-3, memory, and the view policy's exploitability."""
    depths = (3, 2) if ahead == "both" else (int(ahead),)
    report = run_game(positions=positions, ahead=depths, seed=seed, view=view, iterations=selfplay_iterations,
                      log=None if as_json else click.echo)
    emit(report, as_json, format_game)
