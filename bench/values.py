"""Every exact value the round-4 solvers give on seeded random positions, to compare builds.

A speed change to ext/endgame.pyx must leave every value identical. This writes, for
`count` random round-4 positions (seeded random games stopped at a random action of
round 4, both hands known), the open-hands value of every legal move and the mover's
view (each move's expected score, outcome weights and margin, exact fractions), one JSON
line a position, and prints a digest of the whole; run it under two builds and compare
the digests (or the files).

    python -m solver.bench.values 10000 --out /tmp/values-new.jsonl

>>> lines = list(value_lines(3, seed=1, view_every=1))
>>> len(lines), sorted(lines[0])
(3, ['dnp', 'open', 'view'])
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random

from solver.rules.position import Position
from solver.solvers.endgame import get_solver, solve


def random_round4(count: int, seed: int = 0):
    """`count` round-4 positions, not over, at a random action of the round (seeded)."""
    game = 0
    found = 0
    while found < count:
        rng = random.Random(seed * 7_000_003 + game)
        pos = Position.random_deal(seed * 7_000_003 + game)
        game += 1
        while pos.round < 4 and not pos.is_over:
            pos = pos.play(rng.choice(pos.legal_moves()))
        stop = rng.randrange(12)
        while not pos.is_over and sum(pos.actions) < stop:
            pos = pos.play(rng.choice(pos.legal_moves()))
        if not pos.is_over:
            found += 1
            yield pos


def value_lines(count: int, seed: int = 0, view_every: int = 5):
    """One dict a position: its DNP, the open-hands values, and every `view_every`-th the view."""
    get_solver().clear()
    for k, pos in enumerate(random_round4(count, seed)):
        line = dict(dnp=str(pos), open={m.move: m.value for m in solve(pos, mode="open").moves})
        if k % view_every == 0:
            view = pos.view("ab"[pos.to_move])
            line["view"] = {m.move: [str(m.expected), str(m.win), str(m.draw), str(m.loss), m.margin]
                            for m in solve(view, mode="view").moves}
        yield line


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("count", type=int, nargs="?", default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--view-every", type=int, default=5)
    parser.add_argument("--out")
    args = parser.parse_args(argv)
    digest = hashlib.sha256()
    out = open(args.out, "w") if args.out else None
    for line in value_lines(args.count, args.seed, args.view_every):
        text = json.dumps(line, sort_keys=True)
        digest.update(text.encode() + b"\n")
        if out:
            out.write(text + "\n")
    if out:
        out.close()
    print(f"{args.count} positions, seed {args.seed}: sha256 {digest.hexdigest()}")


if __name__ == "__main__":
    main()
