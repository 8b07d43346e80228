"""Batch analysis throughput: one-player-view solves of round-4 start positions per second.

The same positions are analysed with one worker process and with two (or `workers`), in
the same run; the figure that matters is the speed-up, since two workers on a two-core
machine can at best double the rate.

>>> r = run_analyse(positions=4, workers=2)
>>> r["positions"], r["positions_per_second_1"] > 0
(4, True)
"""

from __future__ import annotations

import os
import time

from solver.analysis.batch import make_plan, run_plan
from solver.analysis.exact import Item

from .solve import round4_starts


def _rate(items, workers: int) -> float:
    plan = make_plan(items, done=set())
    start = time.perf_counter()
    for _ in run_plan(plan, workers=workers):
        pass
    return len(items) / (time.perf_counter() - start)


def run_analyse(positions: int = 400, workers: int | None = None, seed: int = 0) -> dict:
    """Rates with 1 and with `workers` processes (default every core) over the same positions."""
    workers = workers or os.cpu_count() or 1
    items = [Item(f"p{k}", "position", k, str(pos.view("ab"[pos.to_move])))
             for k, pos in enumerate(round4_starts(positions, seed))]
    one = _rate(items, 1)
    many = _rate(items, workers)
    return dict(positions=len(items), workers=workers, positions_per_second_1=round(one, 1),
                positions_per_second_n=round(many, 1), speedup=round(many / one, 2))


def format_analyse(r: dict) -> str:
    """The report as the lines `dnoir bench analyse` prints."""
    return "\n".join([
        f"one-player view of {r['positions']} round-4 starts (analyse pipeline)",
        f"  1 worker:   {r['positions_per_second_1']:>8,.1f} positions/s",
        f"  {r['workers']} workers:  {r['positions_per_second_n']:>8,.1f} positions/s   speed-up x{r['speedup']}",
    ])
