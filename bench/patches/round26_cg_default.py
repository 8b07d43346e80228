"""Instructions of the default search (bench/RESULTS.md, round 26): 3 round-1 positions of random
play from random.Random(7), 30,000 iterations each of the default search, the root visits printed
(they must be the same in the builds compared). Run under callgrind from outside any checkout:

    PYTHONPATH=<tree> valgrind --tool=callgrind python round26_cg_default.py
"""
import random
from solver.rules.position import Position
from solver.solvers.search import IsmctsSearch, mover_view, DEFAULT_CONFIG
rng = random.Random(7); views = []
while len(views) < 3:
    pos = Position.random_deal(rng.getrandbits(50))
    for _ in range(rng.randrange(0, 8)):
        pos = pos.play(rng.choice(pos.legal_moves()))
    if not pos.is_over and pos.round == 1: views.append(mover_view(pos))
for k, v in enumerate(views):
    s = IsmctsSearch(v, seed=k, config=DEFAULT_CONFIG)
    s.run(iterations=30000)
    print(sorted((m, r.visits) for m, r in s.root_stats().items()))
