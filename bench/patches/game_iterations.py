"""The mean ISMCTS iterations a move of in-process games at a fixed time a move (bench/RESULTS.md
round 19): python game_iterations.py GAMES SPEC, e.g. 3 "ismcts:time=0.1" (deals 300.., seeds 0..).
Run from a tree with PYTHONPATH set to it; alternate the trees or specs compared, the machine idle."""
import sys, time, statistics
import solver.agents.bots as B
from solver import Position
from solver.agents.arena import play_game
its = []
SPEC = sys.argv[2]
orig = B.advise
def wrapped(*a, **k):
    r = orig(*a, **k)
    if not r.exact:
        its.append(r.iterations)
    return r
B.advise = wrapped
t = time.perf_counter()
for g in range(int(sys.argv[1])):
    play_game(Position.random_deal(300 + g), (SPEC, SPEC), seed=g)
print(f"{B.__file__.split('/')[2]} moves {len(its)} mean iterations {statistics.mean(its):.0f} median {statistics.median(its):.0f} wall {time.perf_counter()-t:.1f}")
