"""How often the recommendation rule's overrule acts (bench/STRENGTH.md, round 25).

The advice plays the most visited root move unless another move with at least 100 visits has
an expected score higher by more than the standard error of the difference
(solver.solvers.search.recommend). This counts the positions where that rule picks another
move than the visits do: positions of rounds 1-3 drawn from a recorded match (one random
point of each of N random games), each searched by the default at a fixed number of iterations.

    python bench/patches/round25_overrule.py MATCH.jsonl[.gz] --games N --iterations ITERATIONS

Round 25: `bench/matches/t35_city.jsonl.gz` (6,785 games), 600 games, 40,000 iterations (about
what 100 ms a move gives): 6 of 369 positions, four of them between moves whose expected
scores lie within 0.01 of each other.
"""

import random

from solver import Position
from solver.bench.root_choice import OneLineParser, whole
from solver.bench.round4_loss import is_game_record, load_records
from solver.limit import Limit
from solver.solvers.search import advise


def main(argv=None) -> None:
    parser = OneLineParser(prog="python bench/patches/round25_overrule.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("games_file", metavar="MATCH.jsonl[.gz]")
    parser.add_argument("--games", type=whole(1, 100_000), required=True, metavar="1..100000")
    parser.add_argument("--iterations", type=whole(1, 10_000_000), required=True, metavar="1..10000000")
    args = parser.parse_args(argv)
    records = load_records(parser, args.games_file, 0, 100_000_000, valid=is_game_record)
    if args.games > len(records):
        parser.error(f"{args.games_file}: {len(records)} game records, fewer than --games {args.games}")
    rng = random.Random(1)
    overruled, searched = [], 0
    for record in rng.sample(records, args.games):
        pos = Position.parse(record["deal"])
        moves = record["moves"].split()
        k = rng.randrange(len(moves))
        for move in moves[:k]:
            pos = pos.play(move)
        if pos.round == 4 or pos.result().over or len(pos.legal_moves()) < 2:
            continue
        advice = advise(pos.view("ab"[pos.to_move]), Limit(iterations=args.iterations), threads=1, seed=k)
        most_visited = max(advice.moves, key=lambda m: m.visits)
        searched += 1
        if advice.moves[0].move != most_visited.move:
            overruled.append((advice.moves[0], most_visited))
    print(f"{len(overruled)} of {searched} positions: the rule overrules the visits")
    for chosen, visited in overruled:
        print(f"  {chosen.move} ({chosen.visits} visits, {chosen.expected:.4f}) over "
              f"{visited.move} ({visited.visits} visits, {visited.expected:.4f})")


if __name__ == "__main__":
    main()
