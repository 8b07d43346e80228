"""Other final-move rules on the root figures tail_eval.py saved, graded on the same set.

    python rule_eval.py SET.json STATS.json

The search's own rule (`recommend`), the most visited move, the best mean, the best mean among
the moves with a twentieth of the most visited one's visits: if they grade alike, a bias is in
the figures the search gives its root moves, not in how the move is read from them.
"""
import json
import statistics as st
import sys

from common import disagreement
from solver.solvers.search import MoveStats, recommend

rows, stats = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
figures = [[MoveStats(move, visits, share, expected, margin, se=se) for move, visits, share, expected, margin, se in s["moves"]]
           for s in stats]


def well_visited(moves):
    return [m for m in moves if m.visits >= 0.05 * max(x.visits for x in moves)]


RULES = {"the search's own (recommend)": lambda moves: recommend(moves)[0][0].move,
         "the most visited": lambda moves: max(moves, key=lambda m: m.visits).move,
         "the best mean": lambda moves: max(moves, key=lambda m: m.expected).move,
         "the best mean, a twentieth of the visits": lambda moves: max(well_visited(moves), key=lambda m: m.expected).move}
own = [RULES["the search's own (recommend)"](moves) for moves in figures]
for name, rule in RULES.items():
    chosen = [rule(moves) for moves in figures]
    losses = [r["loss"][c] for r, c in zip(rows, chosen)]
    early = sum(disagreement(c, r["best"]) == "takes where the equilibrium plays" for r, c in zip(rows, chosen))
    print(f"{name}: mean loss {st.mean(losses):.5f}, takes where the equilibrium plays {early}, "
          f"other than the search's own {sum(c != o for c, o in zip(chosen, own))}")
