"""Game-solver benchmark: round-4 positions two and three actions in, from ISMCTS self-play.

Each position comes from a seeded self-play game of `ismcts:iterations=N` bots (random
play mostly reaches positions already decided), stopped two or three actions into round
4 (in round 4 the ISMCTS bot answers with the exact one-player view). For each position:
the public tree's size, the time CFR+ takes to reach exploitability 1e-3 (the exact best
response checks included), the tree's memory, and the exploitability of the view policy
(the one-player-view solver's choice at every information set).

>>> report = run_game(positions=1, ahead=(3,), seed=1, view=False, iterations=30)
>>> report["groups"][0]["actions_in"], report["groups"][0]["positions"]
(3, 1)
"""

from __future__ import annotations

import random
import resource
import statistics
import time

from solver.agents.bots import make_bot
from solver.analysis.exploit import exploitability
from solver.rules.position import Position
from solver.solvers.equilibrium import GameTooBig, solve_game
from solver.solvers.limit import Limit

TARGET = 1e-3


def selfplay_positions(count: int, ahead: int, seed: int = 0, iterations: int = 200) -> list[Position]:
    """`count` positions `ahead` actions into round 4 from seeded ISMCTS self-play (full positions).

    Games that end, or whose round-4 result is settled, before that point are skipped.
    """
    found, game = [], 0
    while len(found) < count:
        game_seed = seed * 1_000_003 + game
        game += 1
        bots = [make_bot(f"ismcts:iterations={iterations}", seed=game_seed * 2 + p) for p in range(2)]
        pos = Position.random_deal(game_seed)
        rng = random.Random(game_seed)
        while not pos.is_over and not (pos.round == 4 and sum(pos.actions) >= ahead):
            view = pos.view(pos.to_move)
            move = bots[pos.to_move].choose(view) if iterations > 0 else rng.choice(pos.legal_moves())
            pos = pos.play(move)
        if not pos.is_over and pos.taken != 3:
            found.append(pos)
    return found


def _peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _stats(values):
    values = sorted(values)
    if not values:
        return dict(median=None, worst=None)
    return dict(median=statistics.median(values), worst=values[-1])


def run_game(positions: int = 10, ahead=(3, 2), seed: int = 0, view: bool = True, iterations: int = 200,
             seconds: float = 600.0, max_memory_mb: float = 4096.0, log=None) -> dict:
    """Solve `positions` positions at each number of actions in `ahead`; return the figures."""
    groups = []
    for n in ahead:
        rows = []
        for pos in selfplay_positions(positions, n, seed, iterations):
            start = time.perf_counter()
            row = dict(dnp=str(pos))
            try:
                sol = solve_game(pos, target=TARGET, limit=Limit(seconds=seconds), max_memory_mb=max_memory_mb)
            except GameTooBig as e:
                row.update(refused=str(e))
                rows.append(row)
                continue
            row.update(nodes=sol.estimate.nodes, seconds=round(time.perf_counter() - start, 4),
                       iterations=sol.iterations, exploitability=sol.exploitability,
                       memory_mb=round(sol.memory_mb, 2), peak_rss_mb=round(_peak_rss_mb(), 1),
                       reached=sol.exploitability <= TARGET)
            if view:
                report = exploitability(pos, "view", solution=sol)
                row.update(view_exploitability=report.exploitability, view_seconds=round(report.seconds, 3))
            rows.append(row)
            del sol  # its tree: the next solve must not count this one in its peak RSS
            if log is not None:
                log(f"{n} actions in: {row}")
        solved = [r for r in rows if "seconds" in r]
        groups.append(dict(
            actions_in=n, positions=len(rows), refused=len(rows) - len(solved),
            reached_target=sum(r["reached"] for r in solved),
            seconds=_stats([r["seconds"] for r in solved]),
            nodes=_stats([r["nodes"] for r in solved]),
            memory_mb=_stats([r["memory_mb"] for r in solved]),
            view_exploitability=_stats([r["view_exploitability"] for r in solved if "view_exploitability" in r]),
            rows=rows,
        ))
    return dict(target=TARGET, seed=seed, selfplay=f"ismcts:iterations={iterations}",
                peak_rss_mb=round(_peak_rss_mb(), 1), groups=groups)


def format_game(r: dict) -> str:
    """The report as the lines `dnoir bench game` prints."""
    def fmt(stats, spec):
        if stats["median"] is None:
            return "-"
        return f"median {stats['median']:{spec}}  worst {stats['worst']:{spec}}"

    out = [f"game solver: CFR+ to exploitability {r['target']:g}, positions from {r['selfplay']} "
           f"self-play (seed {r['seed']}), peak RSS {r['peak_rss_mb']:,.0f} MB"]
    for g in r["groups"]:
        out.append(f"{g['actions_in']} actions into round 4: {g['positions']} positions, {g['refused']} refused, "
                   f"{g['reached_target']} reached the target")
        out.append(f"  time (s)     {fmt(g['seconds'], '.3f')}")
        out.append(f"  nodes        {fmt(g['nodes'], ',.0f')}")
        out.append(f"  memory (MB)  {fmt(g['memory_mb'], ',.1f')}")
        out.append(f"  view policy exploitability  {fmt(g['view_exploitability'], '.5f')}")
    return "\n".join(out)
