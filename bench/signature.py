"""A fixed-position signature, like Stockfish's `bench` node count.

The exact solver's nodes over fixed round-4 starts (from an empty table), the visits of
the most visited root move of fixed ISMCTS searches (a tree grows one node an iteration,
so its size says nothing; where the visits go does), and a perft count: a change meant to be speed-only must leave
the number unchanged; a change of search behaviour changes it.

>>> signature(solve_positions=2, searches=1) == signature(solve_positions=2, searches=1)
True
"""

from __future__ import annotations

from solver.rules.position import Position
from solver.solvers.endgame import get_solver, solve
from solver.solvers.search import IsmctsSearch

from .solve import round4_starts


def signature(solve_positions: int = 30, searches: int = 3, iterations: int = 20_000) -> dict:
    """The signature's parts and their total."""
    solver = get_solver(tt_mb=2.0)
    solver.clear()
    solve_nodes = sum(solve(pos, mode="open", tt_mb=2.0).nodes for pos in round4_starts(solve_positions, seed=0))
    best_visits = 0
    for k in range(searches):
        deal = Position.random_deal(7000 + k)
        search = IsmctsSearch(deal.view("ab"[deal.to_move]), threads=1, seed=k)
        search.run(iterations=iterations)
        best_visits += max(stats.visits for stats in search.root_stats().values())
        search.close()
    perft = Position.random_deal(42).perft(6)
    return dict(solver_nodes=solve_nodes, ismcts_best_visits=best_visits, perft6=perft,
                signature=solve_nodes + best_visits + perft)
