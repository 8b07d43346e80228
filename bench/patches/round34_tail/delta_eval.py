"""The search's choices of tail_eval.py's STATS.json with the take margin of the search's
`recommend` (its `take_margin` option) from 0 to 0.03, graded against the tail equilibrium.

    python delta_eval.py SET.json STATS.json
"""
import json
import statistics as st
import sys

from solver.solvers.search import MoveStats, recommend

rows, stats = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
figures = [[MoveStats(move, visits, share, expected, margin, se=se) for move, visits, share, expected, margin, se in s["moves"]]
           for s in stats]
own = [recommend(moves)[0][0].move for moves in figures]
assert own == [s["best"] for s in stats]  # the search's own recommendation, as advise gave it
for delta in (0, 0.0025, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03):
    chosen = [recommend(moves, take_margin=delta)[0][0].move for moves in figures]
    losses = [r["loss"][c] for r, c in zip(rows, chosen)]
    turned = sum(c != o for c, o in zip(chosen, own))
    print(f"delta {delta}: mean loss {st.mean(losses):.5f}, takes turned into plays {turned}")
