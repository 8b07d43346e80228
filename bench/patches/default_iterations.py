"""Iterations a CPU second of the default search (bench/RESULTS.md round 22): 24 positions of
rounds 1-3 (random play from seeded deals), 40,000 iterations each, one tree, CPU time.
Run as `PYTHONPATH=<tree> python default_iterations.py` from outside any checkout, the trees
compared in turn, the machine otherwise idle."""
import random, time
from solver.rules.position import Position
from solver.solvers.search import IsmctsSearch, mover_view, DEFAULT_CONFIG
rng = random.Random(7); views = []
while len(views) < 24:
    pos = Position.random_deal(rng.getrandbits(50))
    stop_round = 1 + len(views) % 3
    steps = rng.randrange(0, 10)
    while not pos.is_over and (pos.round < stop_round or steps > 0):
        if pos.round >= stop_round: steps -= 1
        pos = pos.play(rng.choice(pos.legal_moves()))
    if not pos.is_over and pos.round <= 3: views.append(mover_view(pos))
done = 0; t = time.process_time()
for k, v in enumerate(views):
    s = IsmctsSearch(v, seed=k, config=DEFAULT_CONFIG)
    done += s.run(iterations=40000)
print(done / (time.process_time() - t))
