"""Exact-solver speed on round-4 start positions (5 + 5 cards, nobody has taken yet).

Each position comes from a seeded random game played to the start of round 4. Every
figure times what `dnoir solve` reports, the value of every legal move: open hands (with
the principal variation), then with the table off as the same run's baseline, then the
one-player view (every possible opponent hand).

>>> report = run_solve(positions=3, seed=1)
>>> report["positions"], report["open_median_ms"] > 0
(3, True)
"""

from __future__ import annotations

import random
import statistics
import time

from solver.rules.position import Position
from solver.solvers.endgame import DEFAULT_TT_MB, get_solver, solve


def round4_starts(count: int, seed: int = 0) -> list[Position]:
    """`count` round-4 start positions from seeded random games (games won early are skipped)."""
    found, game = [], 0
    while len(found) < count:
        rng = random.Random(seed * 1_000_003 + game)
        pos = Position.random_deal(seed * 1_000_003 + game)
        game += 1
        while pos.round < 4 and not pos.is_over:
            pos = pos.play(rng.choice(pos.legal_moves()))
        if not pos.is_over:
            found.append(pos)
    return found


def _percentile(values, q):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _time_solves(positions, **kwargs):
    """(milliseconds, nodes) of every solve."""
    times, nodes = [], []
    for pos in positions:
        start = time.perf_counter()
        result = solve(pos, **kwargs)
        times.append((time.perf_counter() - start) * 1000)
        nodes.append(result.nodes)
    return times, nodes


def run_solve(positions: int = 300, seed: int = 0, tt_mb: float = DEFAULT_TT_MB) -> dict:
    """Solve `positions` round-4 starts three ways and return the figures."""
    starts = round4_starts(positions, seed)
    views = [pos.view("ab"[pos.to_move]) for pos in starts]
    get_solver(tt_mb).clear()
    open_ms, open_nodes = _time_solves(starts, mode="open", tt_mb=tt_mb)
    off_ms, off_nodes = _time_solves(starts, mode="open", use_tt=False)
    view_ms, view_nodes = _time_solves(views, mode="view", tt_mb=tt_mb)
    open_seconds = sum(open_ms) / 1000
    return dict(
        positions=len(starts), seed=seed, tt_mb=tt_mb,
        open_median_ms=round(statistics.median(open_ms), 4),
        open_p95_ms=round(_percentile(open_ms, 0.95), 4),
        open_nodes_median=int(statistics.median(open_nodes)),
        open_nodes_per_second=round(sum(open_nodes) / open_seconds),
        no_table_median_ms=round(statistics.median(off_ms), 4),
        no_table_p95_ms=round(_percentile(off_ms, 0.95), 4),
        no_table_nodes_median=int(statistics.median(off_nodes)),
        table_node_ratio=round(sum(open_nodes) / sum(off_nodes), 3),
        table_time_ratio=round(sum(open_ms) / sum(off_ms), 3),
        view_median_ms=round(statistics.median(view_ms), 4),
        view_p95_ms=round(_percentile(view_ms, 0.95), 4),
        view_nodes_median=int(statistics.median(view_nodes)),
        view_positions_per_second=round(len(views) / (sum(view_ms) / 1000), 1),
    )


def format_solve(r: dict) -> str:
    """The report as the lines `dnoir bench solve` prints."""
    return "\n".join([
        f"round-4 starts: {r['positions']} positions (seed {r['seed']}), table {r['tt_mb']} MB, "
        "every legal move's value",
        f"open hands       median {r['open_median_ms']:.3f} ms  p95 {r['open_p95_ms']:.3f} ms  "
        f"nodes median {r['open_nodes_median']:,}  {r['open_nodes_per_second']:,} nodes/s",
        f"  table off      median {r['no_table_median_ms']:.3f} ms  p95 {r['no_table_p95_ms']:.3f} ms  "
        f"nodes median {r['no_table_nodes_median']:,}",
        f"  table on/off   nodes x{r['table_node_ratio']:.3f}  time x{r['table_time_ratio']:.3f}",
        f"one-player view  median {r['view_median_ms']:.3f} ms  p95 {r['view_p95_ms']:.3f} ms  "
        f"nodes median {r['view_nodes_median']:,}  {r['view_positions_per_second']:,} positions/s",
    ])
