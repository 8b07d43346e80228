"""Random games through the public Python API, against the pure-Python reference model.

What an agent, an environment or a training loop written in Python pays for the rules:
each game is `Position.random_deal(seed)`, then `pos.play(rng.choice(pos.legal_moves()))`
until `pos.is_over`, then `pos.result()`. The reference model (tests/refmodel, shipped as
solver.refmodel) plays the same loop, deal and result included, in the same run. The two
play in alternating chunks timed in CPU seconds of the process, so that other load on a
shared machine slows both alike and the ratio stays meaningful. Target (issue 11): a
ratio of at least 5.

>>> report = run_api(games=20, seed=1)
>>> sorted(report)
['games', 'games_per_second', 'ratio', 'reference_games_per_second', 'reference_seconds', 'seconds', 'seed']
"""

from __future__ import annotations

import random
import time

from solver.position import Position
from solver.refmodel import random_deal as reference_deal

# Chunks per engine: enough to interleave the two through a run, few enough that each
# chunk is long against the timer.
CHUNKS = 10


def api_games(first_seed: int, games: int, rng: random.Random) -> int:
    """Play `games` random games through `solver.position.Position`; returns the moves played."""
    moves = 0
    for seed in range(first_seed, first_seed + games):
        pos = Position.random_deal(seed)
        while not pos.is_over:
            pos = pos.play(rng.choice(pos.legal_moves()))
            moves += 1
        pos.result()
    return moves


def reference_games(games: int, rng: random.Random) -> int:
    """Play `games` random games through the reference model; returns the moves played."""
    moves = 0
    for _ in range(games):
        state = reference_deal(rng)
        while not state.is_over():
            state = state.play(rng.choice(state.legal_moves()))
            moves += 1
        state.result()
    return moves


def run_api(games: int = 2_000, seed: int = 0) -> dict:
    """Games per second through the API and through the reference model; a report dict."""
    api_rng, ref_rng = random.Random(seed), random.Random(seed)
    api_seconds = ref_seconds = 0.0
    done = 0
    for chunk in range(CHUNKS):
        n = games * (chunk + 1) // CHUNKS - done
        start = time.process_time()
        api_games(seed + done, n, api_rng)
        middle = time.process_time()
        reference_games(n, ref_rng)
        api_seconds += middle - start
        ref_seconds += time.process_time() - middle
        done += n
    api_rate, ref_rate = games / api_seconds, games / ref_seconds
    return dict(games=games, seed=seed, seconds=round(api_seconds, 4), reference_seconds=round(ref_seconds, 4),
                games_per_second=round(api_rate, 1), reference_games_per_second=round(ref_rate, 1),
                ratio=round(api_rate / ref_rate, 2))


def format_api(report: dict) -> str:
    """The report as the lines `dnoir bench api` prints."""
    return "\n".join([
        f"API        {report['games']:>8,} games in {report['seconds']:.3f} s  "
        f"{report['games_per_second']:>10,.0f} games/s (solver.position.Position)",
        f"reference  {report['games']:>8,} games in {report['reference_seconds']:.3f} s  "
        f"{report['reference_games_per_second']:>10,.0f} games/s (pure-Python model)",
        f"ratio      API / reference = {report['ratio']:.2f}x (target 5x)",
    ])
