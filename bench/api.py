"""Random games through the public Python API, against the pure-Python reference model.

What an agent, an environment or a training loop written in Python pays for the rules:
each game is `Position.random_deal(seed)`, then `pos.play(rng.choice(pos.legal_moves()))`
until `pos.is_over`, then `pos.result()`. The reference model (tests/refmodel, shipped as
solver.refmodel) plays the same loop, deal and result included, in the same run. The two
play in alternating chunks timed in CPU seconds of the process, so that other load on a
shared machine slows both alike and the ratio stays meaningful. Target (issue 11): a
ratio of at least 5.

The same run also plays the loop that asks `result()` after every move (both sides),
and times each public call that a Python loop makes per step (`play`, `result`,
`score`, `is_over`, `legal_moves`, `view`) on the positions of seeded random games, in
nanoseconds a call: issue 21 wants none of them dearer than a `play`.

>>> report = run_api(games=20, seed=1)
>>> sorted(report)[:4]
['call_ns', 'games', 'games_per_second', 'ratio']
"""

from __future__ import annotations

import random
import time

from solver.refmodel import random_deal as reference_deal

from solver.rules.position import Position

# Chunks per engine: enough to interleave the two through a run, few enough that each
# chunk is long against the timer.
CHUNKS = 10


def api_games(first_seed: int, games: int, rng: random.Random, every_move: bool = False) -> int:
    """Play `games` random games through `solver.rules.position.Position`; returns the moves played.

    With `every_move`, `result()` is asked after every move, not only at the end."""
    moves = 0
    for seed in range(first_seed, first_seed + games):
        pos = Position.random_deal(seed)
        while not pos.is_over:
            pos = pos.play(rng.choice(pos.legal_moves()))
            moves += 1
            if every_move:
                pos.result()
        pos.result()
    return moves


def reference_games(games: int, rng: random.Random, every_move: bool = False) -> int:
    """Play `games` random games through the reference model; returns the moves played."""
    moves = 0
    for _ in range(games):
        state = reference_deal(rng)
        while not state.is_over():
            state = state.play(rng.choice(state.legal_moves()))
            moves += 1
            if every_move:
                state.result()
        state.result()
    return moves


def _rates(games: int, seed: int, every_move: bool) -> tuple[float, float]:
    """(API seconds, reference seconds) of `games` each, in alternating chunks."""
    api_rng, ref_rng = random.Random(seed), random.Random(seed)
    api_seconds = ref_seconds = 0.0
    done = 0
    for chunk in range(CHUNKS):
        n = games * (chunk + 1) // CHUNKS - done
        start = time.process_time()
        api_games(seed + done, n, api_rng, every_move)
        middle = time.process_time()
        reference_games(n, ref_rng, every_move)
        api_seconds += middle - start
        ref_seconds += time.process_time() - middle
        done += n
    return api_seconds, ref_seconds


def call_costs(games: int = 200, seed: int = 0, repeats: int = 5) -> dict:
    """Nanoseconds a call of each public step of a Python loop (the least of `repeats`
    passes over every position of `games` seeded random games, the game's end excluded)."""
    rng = random.Random(seed)
    live = []
    for k in range(games):
        pos = Position.random_deal(seed + k)
        while not pos.is_over:
            live.append(pos)
            pos = pos.play(rng.choice(pos.legal_moves()))
    moves = [rng.choice(pos.legal_moves()) for pos in live]
    players = [pos.to_move for pos in live]
    calls = dict(
        play=lambda: [pos.play(m) for pos, m in zip(live, moves)],
        result=lambda: [pos.result() for pos in live],
        score=lambda: [pos.score() for pos in live],
        is_over=lambda: [pos.is_over for pos in live],
        legal_moves=lambda: [pos.legal_moves() for pos in live],
        view=lambda: [pos.view(p) for pos, p in zip(live, players)],
    )
    if not hasattr(Position, "score"):  # builds before issue 21 (for same-run comparisons)
        del calls["score"]
    best = {name: float("inf") for name in calls}
    for _ in range(repeats):
        for name, call in calls.items():  # interleaved, so that load affects each alike
            start = time.process_time()
            call()
            best[name] = min(best[name], time.process_time() - start)
    return {name: round(seconds / len(live) * 1e9) for name, seconds in best.items()}


def run_api(games: int = 2_000, seed: int = 0) -> dict:
    """Games per second through the API and through the reference model; a report dict."""
    api_seconds, ref_seconds = _rates(games, seed, every_move=False)
    api_rate, ref_rate = games / api_seconds, games / ref_seconds
    every_api, every_ref = _rates(max(1, games // 2), seed, every_move=True)
    return dict(games=games, seed=seed, seconds=round(api_seconds, 4), reference_seconds=round(ref_seconds, 4),
                games_per_second=round(api_rate, 1), reference_games_per_second=round(ref_rate, 1),
                ratio=round(api_rate / ref_rate, 2),
                result_every_move_ratio=round(every_ref / every_api, 2),
                call_ns=call_costs(games=max(1, min(games, 200)), seed=seed))


def format_api(report: dict) -> str:
    """The report as the lines `dnoir bench api` prints."""
    calls = report["call_ns"]
    return "\n".join([
        f"API        {report['games']:>8,} games in {report['seconds']:.3f} s  "
        f"{report['games_per_second']:>10,.0f} games/s (solver.rules.position.Position)",
        f"reference  {report['games']:>8,} games in {report['reference_seconds']:.3f} s  "
        f"{report['reference_games_per_second']:>10,.0f} games/s (pure-Python model)",
        f"ratio      API / reference = {report['ratio']:.2f}x (target 5x)",
        f"           with result() after every move: {report['result_every_move_ratio']:.2f}x (target 3x)",
        "ns a call  " + "  ".join(f"{name} {ns:,}" for name, ns in calls.items())
        + f"  (target: none above play)",
    ])
