"""How often the recommendation rule's overrule acts (bench/STRENGTH.md, round 25).

The advice plays the most visited root move unless another move with at least 100 visits has
an expected score higher by more than the standard error of the difference
(solver.solvers.search.recommend). This counts the positions where that rule picks another
move than the visits do: positions of rounds 1-3 drawn from a recorded match (one random
point of each of N random games), each searched by the default at a fixed number of iterations.

    python bench/patches/round25_overrule.py MATCH.jsonl N ITERATIONS

Round 25: `bench/matches/t35_city.jsonl.gz` (decompressed, 6,785 games), 600 games, 40,000
iterations (about what 100 ms a move gives): 6 of 369 positions, four of them between moves
whose expected scores lie within 0.01 of each other.
"""

import json
import random
import sys

from solver import Position
from solver.limit import Limit
from solver.solvers.search import advise


def main(path: str, games: int, iterations: int) -> None:
    rng = random.Random(1)
    records = [json.loads(line) for line in open(path)]
    overruled, searched = [], 0
    for record in rng.sample(records, games):
        pos = Position.parse(record["deal"])
        moves = record["moves"].split()
        k = rng.randrange(len(moves))
        for move in moves[:k]:
            pos = pos.play(move)
        if pos.round == 4 or pos.result().over or len(pos.legal_moves()) < 2:
            continue
        advice = advise(pos.view("ab"[pos.to_move]), Limit(iterations=iterations), threads=1, seed=k)
        most_visited = max(advice.moves, key=lambda m: m.visits)
        searched += 1
        if advice.moves[0].move != most_visited.move:
            overruled.append((advice.moves[0], most_visited))
    print(f"{len(overruled)} of {searched} positions: the rule overrules the visits")
    for chosen, visited in overruled:
        print(f"  {chosen.move} ({chosen.visits} visits, {chosen.expected:.4f}) over "
              f"{visited.move} ({visited.visits} visits, {visited.expected:.4f})")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]))
