"""Round tails of the recorded games with every legal move's loss against the tail equilibrium.

    DNOIR_TAIL=6 PYTHONPATH=<scratch tree> python tail_set.py DATA.dnp N COUNT SEED ROUNDS OUT.json

COUNT decisions of rounds ROUNDS (e.g. 1,2) with N actions or fewer left in their round and
a choice, from the mover's view, each graded by `equilibrium_grade` (the tail solved as the
hidden-information game whose leaves are the round's ends, valued by the round-end model).
"""
import json
import sys

from solver.rules.position import Position
from solver.solvers import equilibrium as eq
from common import sampled_positions

data, n, count, seed, rounds, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), \
    {int(r) for r in sys.argv[5].split(",")}, sys.argv[6]
rows = []
for dnp, move in sampled_positions(data, seed):
    pos = Position.parse(dnp)
    if pos.round not in rounds or eq.actions_left(pos) > n:
        continue
    view = pos.view(pos.to_move)
    if len(view.legal_moves()) < 2:
        continue
    g = eq.equilibrium_grade(view, max_nodes=eq.GRADE_NODES)
    if g is None:  # too big for the grade's bounds
        continue
    rows.append(dict(view=str(view), round=pos.round, left=eq.actions_left(pos), played=move, best=g["best"],
                     loss={m["move"]: eq.move_loss(g, m["move"]) for m in g["moves"]}))
    if len(rows) >= count:
        break
json.dump(rows, open(out, "w"))
print(len(rows), "decisions")
