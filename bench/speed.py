"""Random-playout speed: the C core against the pure-Python reference model, in one run.

Complete games from uniformly random deals, each move uniform over the distinct legal
moves. The core plays `games` of them in one nogil loop on one core; the reference
model (tests/refmodel, shipped as solver.refmodel) plays `reference_games` in the same
run, so the ratio is meaningful on a shared, noisy machine.

>>> report = run_speed(games=2000, reference_games=5, seed=1)
>>> sorted(report)[:3]
['city_share', 'draw_share', 'first_player_share']
"""

from __future__ import annotations

import random
import time

from solver.refmodel import random_game as reference_random_game  # shipped with solver.bench (setup.py)
from solver.rules._core import random_games


def run_speed(games: int = 1_000_000, reference_games: int = 2_000, seed: int = 0) -> dict:
    """Measure games per second for the core and the reference model; return a report dict."""
    start = time.perf_counter()
    counts = random_games(games, seed)
    core_seconds = time.perf_counter() - start

    report = dict(
        games=games,
        seconds=round(core_seconds, 4),
        games_per_second=round(games / core_seconds, 1),
        first_player_share=counts["first"] / games,
        second_player_share=counts["second"] / games,
        draw_share=counts["draw"] / games,
        city_share=counts["city"] / games,
        seed=seed,
    )
    if reference_games > 0:
        rng = random.Random(seed)
        start = time.perf_counter()
        for _ in range(reference_games):
            reference_random_game(rng)
        ref_seconds = time.perf_counter() - start
        report.update(
            reference_games=reference_games,
            reference_seconds=round(ref_seconds, 4),
            reference_games_per_second=round(reference_games / ref_seconds, 1),
            ratio=round((games / core_seconds) / (reference_games / ref_seconds), 1),
        )
    return report


def format_speed(report: dict) -> str:
    """The report as the lines `dnoir bench speed` prints."""
    lines = [
        f"core       {report['games']:>10,} games in {report['seconds']:.3f} s  "
        f"{report['games_per_second']:>14,.0f} games/s (one core)",
    ]
    if "reference_games_per_second" in report:
        lines.append(
            f"reference  {report['reference_games']:>10,} games in {report['reference_seconds']:.3f} s  "
            f"{report['reference_games_per_second']:>14,.0f} games/s (pure-Python model)")
        lines.append(f"ratio      core / reference = {report['ratio']:,.1f}x")
    else:
        lines.append("reference  not available (solver.refmodel is not installed)")
    lines.append(
        f"outcomes   first player of round 1 wins {report['first_player_share']:.1%}, "
        f"the other {report['second_player_share']:.1%}, draws {report['draw_share']:.2%}; "
        f"city wins {report['city_share']:.1%}")
    return "\n".join(lines)
