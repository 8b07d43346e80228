"""Search speed and strength: ISMCTS iterations per second, and matches in duplicate pairs.

Speed: iterations per second from round-1 start positions (the mover's view of seeded
deals), with one thread and with every core, against the core's random-playout rate
measured in the same run (an iteration is a sampled world, a tree descent and a playout, so
the rate of playouts to the game's end bounds that of a search that plays its games out; the
default's playouts end with their round, scored by the round-end model, and can go faster).

Strength: ISMCTS with a time per move against random, greedy and PIMC, and ISMCTS with
four times the iterations against one time, over duplicate pairs (every deal played twice
with seats swapped), each score with its 95% interval.

>>> r = run_speed_part(seconds=0.2, deals=1)
>>> r["iterations_per_second"] > 0
True
>>> run_latency_part(movetimes=(20,), positions=1)["latency_samples"]
1
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from solver.rules._core import random_games

from solver.agents.bots import spec_budget
from solver.agents.match import make_jobs, run_jobs, summarise
from solver.agents.progress import Progress
from solver.rules.position import Position
from solver.solvers.limit import Limit
from solver.solvers.search import IsmctsSearch


def _rate(deals: int, seconds: float, threads: int) -> float:
    done = spent = 0.0
    for k in range(deals):
        deal = Position.random_deal(1000 + k)
        search = IsmctsSearch(deal.view("ab"[deal.to_move]), threads=threads, seed=k)
        start = time.perf_counter()
        done += search.run(seconds=seconds)
        spent += time.perf_counter() - start
        search.close()
    return done / spent


def run_speed_part(seconds: float = 2.0, deals: int = 3, threads: int | None = None) -> dict:
    """Iterations per second from the opening with one thread and with `threads` (all cores)."""
    threads = threads or os.cpu_count() or 1
    start = time.perf_counter()
    random_games(200_000, 0)
    playouts = 200_000 / (time.perf_counter() - start)
    one = _rate(deals, seconds, 1)
    many = _rate(deals, seconds, threads)
    return dict(iterations_per_second=round(one), threads=threads,
                iterations_per_second_all_threads=round(many),
                thread_speedup=round(many / one, 2),
                playouts_per_second=round(playouts), iterations_per_playout=round(one / playouts, 3))


def run_strength_part(games: int = 200, limit: Limit = Limit(seconds=0.1), scaling_pairs: int = 100,
                      budgets=(250, 1000, 4000, 16000), seed: int = 0, workers: int | None = None,
                      log=print) -> dict:
    """ISMCTS against the baselines at `limit` a move, and the 4x-iterations scaling curve."""
    workers = workers or os.cpu_count() or 1
    pairs = max(1, games // 2)
    ismcts = f"ismcts:{spec_budget(limit)}"
    out = {}
    for name, opponent in (("random", "random"), ("greedy", "greedy"), ("pimc", "pimc:worlds=50")):
        score = _match(ismcts, opponent, pairs, seed, workers)
        out[f"vs_{name}"] = score
        log(_line(ismcts, opponent, score))
    scaling = []
    for budget in budgets:
        strong, weak = f"ismcts:iterations={4 * budget}", f"ismcts:iterations={budget}"
        score = _match(strong, weak, scaling_pairs, seed + budget, workers)
        scaling.append(dict(budget=budget, **score))
        log(_line(strong, weak, score))
    out["scaling"] = scaling
    return out


def run_latency_part(movetimes=(10, 50, 100, 300), positions: int = 6) -> dict:
    """How late `bestmove` arrives after `go movetime T`, through a real engine subprocess.

    Positions: seeded games stopped in rounds 1 to 4 (round 4 is solved exactly from 50 ms,
    solver.interfaces.engine.EXACT_MIN_SECONDS). Returns the worst and the mean overshoot
    (answer time minus movetime) in ms.
    """
    # -I: never import a source tree in the current directory instead of the installed package
    engine = subprocess.Popen([sys.executable, "-I", "-m", "solver.cli", "engine"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, bufsize=1)
    overshoot = []
    try:
        # as an arena does: wait until the engine is up before timing anything
        engine.stdin.write("isready\n")
        _read_until(engine, "readyok")
        for k in range(positions):
            pos = Position.random_deal(500 + k)
            target = 12 * (k % 4) + 3
            while sum(pos.actions) + 12 * (pos.round - 1) < target and not pos.is_over:
                pos = pos.play(pos.legal_moves()[0])
            if pos.is_over:
                continue
            engine.stdin.write(f"position {pos.view('ab'[pos.to_move])}\n")
            for movetime in movetimes:
                start = time.perf_counter()
                engine.stdin.write(f"go movetime {movetime}\n")
                _read_until(engine, "bestmove")
                overshoot.append((time.perf_counter() - start) * 1000 - movetime)
        engine.stdin.write("quit\n")
    finally:
        engine.stdin.close()
        engine.wait(timeout=30)
    return dict(latency_worst_overshoot_ms=round(max(overshoot), 2),
                latency_mean_overshoot_ms=round(sum(overshoot) / len(overshoot), 2),
                latency_samples=len(overshoot), latency_movetimes_ms=list(movetimes))


def _match(x: str, y: str, pairs: int, seed: int, workers: int) -> dict:
    jobs = make_jobs([(x, y)], pairs, seed)
    records = []
    with Progress(total=len(jobs), label=f"{x} vs {y}: games") as progress:  # on stderr
        for record in run_jobs(jobs, workers=workers):
            records.append(record)
            progress.advance()
    return summarise(records, x, y).to_dict()


def _line(x: str, y: str, s: dict) -> str:
    return (f"{x} vs {y}: {s['score']:.3f} [{s['score_low']:.3f}, {s['score_high']:.3f}] over {s['games']} games "
            f"(+{s['wins']} ={s['draws']} -{s['losses']})")


def _read_until(engine, prefix: str) -> str:
    """The engine's next line starting with `prefix`; RuntimeError if the engine exits first."""
    while True:
        line = engine.stdout.readline()
        if not line:
            raise RuntimeError(f"the engine exited before answering '{prefix}'")
        if line.startswith(prefix):
            return line


def format_speed_part(r: dict) -> str:
    """The speed report as the lines `dnoir bench search` prints."""
    return "\n".join([
        f"ISMCTS from the opening, 1 thread:   {r['iterations_per_second']:>12,} iterations/s",
        f"ISMCTS from the opening, {r['threads']} threads:  {r['iterations_per_second_all_threads']:>12,} "
        f"iterations/s  (x{r['thread_speedup']})",
        f"random playouts (same run, 1 core):  {r['playouts_per_second']:>12,} games/s  "
        f"(iterations per playout {r['iterations_per_playout']})",
    ] + ([f"engine bestmove after movetime: worst {r['latency_worst_overshoot_ms']:+.1f} ms, "
          f"mean {r['latency_mean_overshoot_ms']:+.1f} ms over {r['latency_samples']} searches "
          f"(movetimes {r['latency_movetimes_ms']} ms; the bound is +50 ms)"]
         if "latency_samples" in r else []))
